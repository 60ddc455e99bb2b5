package trust

import (
	"bytes"
	"crypto/ed25519"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"newsdesk/categories"
	"newsdesk/news"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// fixedIdentity returns a deterministic identity: Ed25519 signatures are
// deterministic too, so documents signed with it can be golden files.
func fixedIdentity(seed byte) *Identity {
	return identityFromPrivate(ed25519.NewKeyFromSeed(bytes.Repeat([]byte{seed}, ed25519.SeedSize)))
}

func newIdentity(t testing.TB) *Identity {
	t.Helper()
	id, err := GenerateIdentity()
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// Roles of the example network used across the tests.
var (
	adminID     = fixedIdentity(1)
	newsroomID  = fixedIdentity(2) // publisher in every category
	hrID        = fixedIdentity(3) // publisher limited to "hr" (and below)
	revokedID   = fixedIdentity(4)
	outsiderID  = fixedIdentity(5) // a member's key nobody trusts
	secondAdmin = fixedIdentity(6)
)

// exampleNetwork is the golden network definition, before signing.
func exampleNetwork() *Network {
	secret := make([]byte, SecretSize)
	for i := range secret {
		secret[i] = byte(i)
	}
	return &Network{
		ID:      uuid.MustParse("6f1d2a3b-4c5d-4e6f-8a9b-0c1d2e3f4a5b"),
		Name:    "Example Corp",
		Version: 5,
		Admins:  []ed25519.PublicKey{adminID.Public},
		Seeds:   []string{"seed1.example.com:7400", "10.0.0.2:7400", "[2001:db8::1]:7400"},
		Catalog: categories.Default(),
		Publishers: []Publisher{
			{Name: "Newsroom", Key: newsroomID.Public},
			{Name: "HR team", Key: hrID.Public, Categories: []string{"hr"}},
			{Name: "admin", Key: adminID.Public},
		},
		Revoked: []ed25519.PublicKey{revokedID.Public},
		Fanout:  16,
		Secret:  secret,
	}
}

func signedExample(t testing.TB) *SignedNetwork {
	t.Helper()
	sn, err := adminID.SignNetwork(exampleNetwork())
	if err != nil {
		t.Fatal(err)
	}
	return sn
}

// next returns a copy of cur's network with the version bumped by delta.
func next(cur *SignedNetwork, delta uint64) *Network {
	n := cur.Network.Clone()
	n.Version += delta
	return n
}

var testNow = time.Date(2025, 3, 14, 9, 26, 53, 589793238, time.UTC)

// newItem returns a valid unsigned item with every field set to something
// non-default, so a tampering test can change each one.
func newItem(t testing.TB, category string, body string) *news.Item {
	t.Helper()
	it, err := news.NewItem(category, "Office closed on Friday", body, "Communications", uuid.MustParse("0b7d4a52-9c1e-4f11-a9e0-5d2c6b8f7e31"), testNow)
	if err != nil {
		t.Fatal(err)
	}
	it.SourceCount = 42
	it.Urgent = true
	sup, err := news.NewID(testNow.Add(-time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	it.Supersedes = sup
	return it
}

func signedItem(t testing.TB, id *Identity, category string) *news.Item {
	t.Helper()
	it := newItem(t, category, "The **office** is closed on Friday.")
	signAs(t, id, it)
	return it
}

// signAs signs it as id publishes: under a source id's key owns (fixed epoch,
// so signatures stay deterministic).
func signAs(t testing.TB, id *Identity, it *news.Item) {
	t.Helper()
	it.Source = sourceOf(id)
	if err := SignItem(id, it); err != nil {
		t.Fatal(err)
	}
}

// sourceOf is id's source with epoch 0.
func sourceOf(id *Identity) uuid.UUID {
	var u uuid.UUID
	p := sourcePrefix(id.Public)
	copy(u[:], p[:])
	return u
}

// golden compares got with testdata/name, rewriting it under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s changed: every signature made over the old encoding breaks.\n got: %s\nwant: %s", path, got, want)
	}
}

// wantReason checks that err carries reason r.
func wantReason(t *testing.T, err error, r Rejection) {
	t.Helper()
	if r == "" {
		if err != nil {
			t.Fatalf("refused: %v", err)
		}
		return
	}
	if err == nil {
		t.Fatalf("accepted, want %s", r)
	}
	if got := ReasonOf(err); got != r {
		t.Fatalf("reason %q (%v), want %q", got, err, r)
	}
}

func contains(t *testing.T, err error, want string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want one containing %q", want)
	}
	if !strings.Contains(err.Error(), want) {
		t.Fatalf("error %q does not contain %q", err, want)
	}
}
