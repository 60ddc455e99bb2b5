package trust

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// signedByNewer signs n, with members of a newer release, as a newer
// release would: over its encoding with them.
func signedByNewer(t *testing.T, n *Network, newer ...rawMember) *SignedNetwork {
	t.Helper()
	c := n.Clone()
	c.normalize()
	c.newer = newer
	msg, err := c.signingBytes()
	if err != nil {
		t.Fatal(err)
	}
	return &SignedNetwork{Network: *c, Signer: slices.Clone(adminID.Public), Signature: adminID.Sign(msg)}
}

// A definition signed by a newer release with members this one does not
// know is accepted, keeps them byte for byte (so it passes on and verifies
// elsewhere), names them, and refuses to be edited here.
func TestDefinitionFromNewerRelease(t *testing.T) {
	cur := signedExample(t)
	census := rawMember{name: "census", value: json.RawMessage(`{"period":"1m0s","fields":["version"]}`)}
	sn := signedByNewer(t, next(cur, 1), census)
	doc, err := sn.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasSuffix(bytes.TrimSpace(doc[:bytes.Index(doc, []byte(`,"signer"`))]), []byte(`,"census":{"period":"1m0s","fields":["version"]}}`)) {
		t.Fatalf("encoding:\n%s", doc)
	}
	got, err := ParseSignedNetwork(doc)
	if err != nil {
		t.Fatalf("a definition of a newer release: %v", err)
	}
	if err := cur.Accept(got); err != nil {
		t.Fatalf("Accept: %v", err)
	}
	if names := got.NewerMembers(); !slices.Equal(names, []string{"census"}) {
		t.Errorf("NewerMembers = %v", names)
	}
	again, err := got.Marshal()
	if err != nil || !bytes.Equal(again, doc) {
		t.Errorf("passed on as\n%s\nwant\n%s (%v)", again, doc, err)
	}
	if got.Version != cur.Version+1 || got.Name != cur.Name {
		t.Errorf("the known members: version %d name %q", got.Version, got.Name)
	}
	tampered, err := ParseSignedNetwork(bytes.Replace(doc, []byte(`"1m0s"`), []byte(`"9m0s"`), 1))
	if err != nil {
		t.Fatal(err)
	}
	if err := cur.Accept(tampered); !errors.Is(err, ErrBadSignature) {
		t.Errorf("a changed newer member accepted: %v", err)
	}
	edit := got.Network.Clone()
	edit.Version++
	if _, err := adminID.SignNetwork(edit); err == nil || !strings.Contains(err.Error(), "newer Newsdesk (census)") {
		t.Errorf("editing it here: %v", err)
	}
}

// The newer members come after the known ones, once each, and not too
// many: anything else is not canonical.
func TestDefinitionNewerMembersCanonical(t *testing.T) {
	cur := signedExample(t)
	ok := signedByNewer(t, next(cur, 1), rawMember{"census", json.RawMessage(`1`)})
	doc, err := ok.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	for name, bad := range map[string][]byte{
		"known after newer": bytes.Replace(doc, []byte(`"openPublishing":false,"census":1`), []byte(`"census":1,"openPublishing":false`), 1),
		"twice":             bytes.Replace(doc, []byte(`"census":1`), []byte(`"census":1,"census":1`), 1),
	} {
		if _, err := ParseSignedNetwork(bad); err == nil {
			t.Errorf("%s: parsed", name)
		}
	}
	var many []rawMember
	for i := range MaxNewerMembers + 1 {
		many = append(many, rawMember{fmt.Sprintf("m%d", i), json.RawMessage(`1`)})
	}
	doc, err = signedByNewer(t, next(cur, 1), many...).Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ParseSignedNetwork(doc); err == nil {
		t.Errorf("%d newer members parsed", len(many))
	}
}
