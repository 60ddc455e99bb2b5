package trust

import (
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"errors"
	"strings"
	"testing"
)

func exampleCode(t testing.TB) *InviteCode {
	t.Helper()
	id, err := NewInviteID()
	if err != nil {
		t.Fatal(err)
	}
	tok, err := NewInviteToken()
	if err != nil {
		t.Fatal(err)
	}
	c := &InviteCode{
		Network: NetworkFingerprint(exampleNetwork()),
		ID:      id,
		Token:   tok,
		Via:     "10.0.0.9:7400",
		Seeds:   []string{"seed1.example.com:7400", "[2001:db8::1]:7400"},
	}
	c.Sign(adminID)
	return c
}

func TestInviteCodeRoundTrip(t *testing.T) {
	c := exampleCode(t)
	s := c.String()
	if !strings.HasPrefix(s, "newsdesk:join?net=") || strings.ContainsAny(s, " \n%") {
		t.Fatalf("code %q: want one line starting newsdesk:join?, no escapes", s)
	}
	got, err := ParseInviteCode("  " + s + "\n")
	if err != nil {
		t.Fatal(err)
	}
	if got.String() != s || got.Network != c.Network || !bytes.Equal(got.Token, c.Token) || !got.Signer.Equal(adminID.Public) {
		t.Fatalf("round trip: got %q, want %q", got.String(), s)
	}
	// Keys in another order mean the same.
	c.Seeds = nil
	c.Sign(adminID)
	s = c.String()
	parts := strings.Split(strings.TrimPrefix(s, InviteScheme), "&")
	for i, j := 0, len(parts)-1; i < j; i, j = i+1, j-1 {
		parts[i], parts[j] = parts[j], parts[i]
	}
	got, err = ParseInviteCode(InviteScheme + strings.Join(parts, "&"))
	if err != nil || got.String() != s {
		t.Fatalf("reordered: %v, %v", got, err)
	}
}

// The token carries at least 128 bits of entropy, and every code differs.
func TestInviteTokenEntropy(t *testing.T) {
	if TokenSize*8 < 128 {
		t.Fatalf("token of %d bits", TokenSize*8)
	}
	seen := map[string]bool{}
	for range 100 {
		tok, err := NewInviteToken()
		if err != nil {
			t.Fatal(err)
		}
		if seen[string(tok)] {
			t.Fatal("token repeated")
		}
		seen[string(tok)] = true
	}
}

func TestParseInviteCodeErrors(t *testing.T) {
	c := exampleCode(t)
	good := c.String()
	tok := base64.RawURLEncoding.EncodeToString(make([]byte, TokenSize))
	sig := base64.RawURLEncoding.EncodeToString(c.Signature)
	admin := base64.RawURLEncoding.EncodeToString(c.Signer)
	unsigned, _, _ := strings.Cut(good, "&admin=")
	// Signed by another key than the one named, and re-signed by the
	// bearer with a key of its own (which only a seed can tell: see
	// TestCheckInviteVia).
	other := *c
	other.Sign(outsiderID)
	flipped := bytes.Clone(c.Signature)
	flipped[10] ^= 1
	for _, c := range []struct{ code, want string }{
		{"", "must start with"},
		{"10.0.0.1:7400", "must start with"},
		{"NEWSDESK:JOIN?" + strings.TrimPrefix(good, InviteScheme), "must start with"},
		{good[:len(good)/2], ""}, // cut off: some field is missing or short
		{good + "&x=1", "unknown key"},
		{good + "&via=10.0.0.1:1", "given twice"},
		{good + "&", "want key=value"},
		{strings.Replace(good, "token=", "token=A", 1), "token"},
		{strings.Replace(good, "&via=10.0.0.9:7400", "&via=10.0.0.9", 1), "via"},
		{strings.Replace(good, "&via=10.0.0.9:7400", "&via=10.0.0.9:0", 1), "via"},
		{strings.Replace(good, "seeds=", "seeds=a:1,a:1,", 1), "twice"},
		{strings.Replace(good, "seeds=", "seeds=a%3A1,", 1), "seeds"},
		{InviteScheme + "net=x&id=x&token=" + tok + "&via=a:1", "net"},
		{strings.Repeat("x", InviteCodeLimit+1), "longer"},
		// The signature of via.
		{unsigned, "made before invitation codes were signed; ask the admin for a new invitation"},
		{strings.Replace(good, "&admin="+admin, "", 1), "admin is missing"},
		{strings.Replace(good, "&sig="+sig, "", 1), "sig is missing"},
		{good[:len(good)-5], "seal: want 86 characters"},
		{strings.Replace(good, "&sig="+sig, "&sig="+sig[:80], 1), "sig: want 86 characters"},
		{strings.Replace(good, "&via=10.0.0.9:7400", "&via=10.0.0.1:22", 1), "is not signed by the admin key the code names (10.0.0.1:22): the code was altered; ask the admin"},
		{strings.Replace(good, sig, base64.RawURLEncoding.EncodeToString(flipped), 1), "not signed"},
		{strings.Replace(good, sig, base64.RawURLEncoding.EncodeToString(other.Signature), 1), "not signed"},
		{strings.Replace(good, admin, admin[:40], 1), "admin: want 43 characters"},
		{good + "&admin=" + admin, "given twice"},
	} {
		_, err := ParseInviteCode(c.code)
		if err == nil || !errors.Is(err, ErrBadInviteCode) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParseInviteCode(%.60q) = %v, want an error with %q", c.code, err, c.want)
		}
	}
}

// FuzzParseInviteCode: the parser never panics, and what it accepts writes
// back to a code that parses to the same.
func FuzzParseInviteCode(f *testing.F) {
	f.Add(exampleCode(f).String())
	c := exampleCode(f)
	c.Seeds = nil
	c.Sign(adminID)
	f.Add(c.String())
	c.Seal = nil
	f.Add(c.String()) // the older format, without seeds
	f.Add("newsdesk:join?")
	f.Add("newsdesk:join?net=&id=&token=&via=")
	f.Add("newsdesk:join?seeds=[::1]:7400,a:1&via=b:2")
	good := exampleCode(f).String()
	unsigned, _, _ := strings.Cut(good, "&admin=")
	f.Add(unsigned)                                                   // the unsigned format
	f.Add(strings.Replace(good, "&via=10.0.0.9:7400", "&via=h:1", 1)) // via changed
	f.Add(good[:len(good)-1])                                         // sig cut short
	f.Add(good + "&admin=")
	f.Add(strings.Replace(good, "&sig=", "&sig=&x=", 1))
	f.Fuzz(func(t *testing.T, s string) {
		c, err := ParseInviteCode(s)
		if err != nil {
			if !errors.Is(err, ErrBadInviteCode) {
				t.Fatalf("error %v does not wrap ErrBadInviteCode", err)
			}
			return
		}
		again, err := ParseInviteCode(c.String())
		if err != nil {
			t.Fatalf("%q parsed, its rewrite %q does not: %v", s, c.String(), err)
		}
		if again.String() != c.String() {
			t.Fatalf("rewrite differs: %q vs %q", again.String(), c.String())
		}
	})
}

// A seed's check of a code's via: signed by an admin of its network, for
// this network, invitation and address.
func TestCheckInviteVia(t *testing.T) {
	n := exampleNetwork()
	c := exampleCode(t)
	if err := n.CheckInviteVia(c.Network, c.ID, c.Via, c.Signer, c.Signature); err != nil {
		t.Fatalf("an admin's signature: %v", err)
	}
	// The bearer names another address and signs it with a key of its
	// own: the code parses (it is consistent), a seed refuses it.
	forged := *c
	forged.Via = "192.0.2.1:22"
	forged.Sign(outsiderID)
	if _, err := ParseInviteCode(forged.String()); err != nil {
		t.Fatalf("a self-consistent code: %v", err)
	}
	if err := n.CheckInviteVia(forged.Network, forged.ID, forged.Via, forged.Signer, forged.Signature); !errors.Is(err, ErrInviteViaNotAdmin) {
		t.Errorf("signed by a non-admin: %v", err)
	}
	otherFP := c.Network
	otherFP[0] ^= 1
	for name, err := range map[string]error{
		"other via":     n.CheckInviteVia(c.Network, c.ID, "10.0.0.9:7401", c.Signer, c.Signature),
		"other id":      n.CheckInviteVia(c.Network, "AAAAAAAAAAAA", c.Via, c.Signer, c.Signature),
		"other network": n.CheckInviteVia(otherFP, c.ID, c.Via, c.Signer, c.Signature),
		"no signature":  n.CheckInviteVia(c.Network, c.ID, c.Via, c.Signer, nil),
		"other admin":   n.CheckInviteVia(c.Network, c.ID, c.Via, c.Signer, secondAdmin.Sign(InviteViaSigningBytes(c.Network, c.ID, c.Via))),
	} {
		if !errors.Is(err, ErrInviteViaSignature) {
			t.Errorf("%s: %v, want ErrInviteViaSignature", name, err)
		}
	}
	if err := n.CheckInviteVia(c.Network, c.ID, c.Via, nil, c.Signature); !errors.Is(err, ErrInviteViaNotAdmin) {
		t.Errorf("no signer: %v", err)
	}
	// The signed message is not one of another purpose's.
	if bytes.HasPrefix(InviteViaSigningBytes(c.Network, c.ID, c.Via), []byte(inviteDomain)) {
		t.Error("the via signature shares the proofs' domain")
	}
}

func TestNetworkFingerprint(t *testing.T) {
	n := exampleNetwork()
	f := NetworkFingerprint(n)
	m := n.Clone()
	m.Version++
	m.Name = "Renamed"
	m.Secret = bytes.Repeat([]byte{9}, SecretSize)
	if NetworkFingerprint(m) != f {
		t.Error("the fingerprint changed with the version, name or secret")
	}
	m.Admins = append(m.Admins, secondAdmin.Public)
	if NetworkFingerprint(m) == f {
		t.Error("the fingerprint did not change with the admins")
	}
	m = n.Clone()
	m.ID[0] ^= 1
	if NetworkFingerprint(m) == f {
		t.Error("the fingerprint did not change with the network ID")
	}
	if len(f.String()) != 43 {
		t.Errorf("fingerprint text %q", f.String())
	}
}

func TestInvitationProof(t *testing.T) {
	c := exampleCode(t)
	exp := bytes.Repeat([]byte{7}, ExporterSize)
	key := newsroomID.Public
	p := InvitationProof(c.Token, RoleJoiner, c.ID, c.Network, exp, key)
	if !CheckInvitationProof(p, c.Token, RoleJoiner, c.ID, c.Network, exp, key) {
		t.Fatal("proof does not check")
	}
	if bytes.Contains(p, c.Token) {
		t.Fatal("the proof contains the token")
	}
	other := bytes.Clone(exp)
	other[0] ^= 1
	wrongTok := bytes.Clone(c.Token)
	wrongTok[0] ^= 1
	for name, ok := range map[string]bool{
		"other role":     CheckInvitationProof(p, c.Token, RoleInviter, c.ID, c.Network, exp, key),
		"other session":  CheckInvitationProof(p, c.Token, RoleJoiner, c.ID, c.Network, other, key),
		"other key":      CheckInvitationProof(p, c.Token, RoleJoiner, c.ID, c.Network, exp, hrID.Public),
		"other token":    CheckInvitationProof(p, wrongTok, RoleJoiner, c.ID, c.Network, exp, key),
		"other id":       CheckInvitationProof(p, c.Token, RoleJoiner, "AAAAAAAAAAAA", c.Network, exp, key),
		"other network":  CheckInvitationProof(p, c.Token, RoleJoiner, c.ID, Fingerprint{}, exp, key),
		"empty exporter": CheckInvitationProof(InvitationProof(c.Token, RoleJoiner, c.ID, c.Network, nil, key), c.Token, RoleJoiner, c.ID, c.Network, nil, key),
		"short key":      CheckInvitationProof(p, c.Token, RoleJoiner, c.ID, c.Network, exp, ed25519.PublicKey{1}),
	} {
		if ok {
			t.Errorf("%s: the proof checks", name)
		}
	}
}

// Issue 32 B: the seed list is signed. A code whose seeds were changed on
// the way (replaced, added, dropped, reordered) is refused as it is
// parsed, before anything is dialled; so is one whose seal was taken from
// another code, or signed by another key, or one of the older format (no
// seal) that names seeds. An older code without seeds is still accepted:
// via, which its signature covers, is all a joiner acts on.
func TestInviteSealCoversSeeds(t *testing.T) {
	c := exampleCode(t)
	good := c.String()
	if _, err := ParseInviteCode(good); err != nil {
		t.Fatal(err)
	}
	seeds := "seeds=" + strings.Join(c.Seeds, ",")
	seal := base64.RawURLEncoding.EncodeToString(c.Seal)
	other := exampleCode(t) // another invitation, same admin and seeds
	byOutsider := *c
	byOutsider.Seal = outsiderID.Sign(InviteSealSigningBytes(c.Network, c.ID, c.Via, c.Seeds))
	for _, tc := range []struct{ name, code, want string }{
		{"seed replaced", strings.Replace(good, "seed1.example.com:7400", "evil.example.com:7400", 1), "seed list is not signed"},
		{"seed added", strings.Replace(good, seeds, seeds+",evil.example.com:7400", 1), "seed list is not signed"},
		{"seed dropped", strings.Replace(good, seeds, "seeds="+c.Seeds[1], 1), "seed list is not signed"},
		{"seeds reordered", strings.Replace(good, seeds, "seeds="+c.Seeds[1]+","+c.Seeds[0], 1), "seed list is not signed"},
		{"seeds removed", strings.Replace(good, "&"+seeds, "", 1), "seed list is not signed"},
		{"seal of another code", strings.Replace(good, seal, base64.RawURLEncoding.EncodeToString(other.Seal), 1), "seed list is not signed"},
		{"seal by another key", byOutsider.String(), "seed list is not signed"},
		{"seal is the via signature", strings.Replace(good, seal, base64.RawURLEncoding.EncodeToString(c.Signature), 1), "seed list is not signed"},
		{"older format with seeds", strings.Replace(good, "&seal="+seal, "", 1), "made by an older release before seed lists were signed; ask the admin for a new invitation"},
	} {
		_, err := ParseInviteCode(tc.code)
		if err == nil || !errors.Is(err, ErrBadInviteCode) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error with %q", tc.name, err, tc.want)
		}
	}
	// Sign covers a changed seed list again.
	changed := *c
	changed.Seeds = []string{"seed2.example.com:7400"}
	if err := changed.VerifySignatures(); !errors.Is(err, ErrInviteSeal) {
		t.Errorf("changed seeds before signing again: %v", err)
	}
	changed.Sign(adminID)
	if _, err := ParseInviteCode(changed.String()); err != nil {
		t.Errorf("signed again: %v", err)
	}
	// An older code (via signed, no seal) that names no seeds.
	old := *c
	old.Seeds, old.Seal = nil, nil
	old.Signature = adminID.Sign(InviteViaSigningBytes(old.Network, old.ID, old.Via))
	got, err := ParseInviteCode(old.String())
	if err != nil || got.Seal != nil || len(got.Seeds) != 0 || got.Via != c.Via {
		t.Fatalf("an older code without seeds: %+v, %v", got, err)
	}
	if strings.Contains(old.String(), "seal=") {
		t.Errorf("a code without a seal writes one: %q", old.String())
	}
	// The sealed message is of a purpose of its own.
	if bytes.HasPrefix(InviteSealSigningBytes(c.Network, c.ID, c.Via, nil), InviteViaSigningBytes(c.Network, c.ID, c.Via)[:len(inviteViaDomain)]) {
		t.Error("the seal shares the via signature's domain")
	}
}

// An invitation ID never starts with "-": typed after `invite revoke`, it
// would be read as a flag.
func TestInviteIDNotAFlag(t *testing.T) {
	for range 2000 {
		id, err := NewInviteID()
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(id, "-") {
			t.Fatalf("invitation ID %q starts with -", id)
		}
	}
}
