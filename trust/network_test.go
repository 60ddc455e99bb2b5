package trust

import (
	"bytes"
	"crypto/ed25519"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/google/uuid"

	"newsdesk/categories"
)

func TestNewNetworkDefaults(t *testing.T) {
	admin := newIdentity(t)
	sn, err := NewNetwork("Acme", admin, []string{"a.example:7400", "b.example:7400"}, false)
	if err != nil {
		t.Fatal(err)
	}
	if err := VerifySelfSigned(sn); err != nil {
		t.Fatal(err)
	}
	if sn.Version != 1 || sn.Fanout != 16 || len(sn.Secret) != 32 || sn.ID == uuid.Nil || sn.OpenPublishing {
		t.Errorf("version %d fanout %d secret %d bytes id %v open %v", sn.Version, sn.Fanout, len(sn.Secret), sn.ID, sn.OpenPublishing)
	}
	if !sn.IsAdmin(admin.Public) || !sn.Signer.Equal(admin.Public) {
		t.Error("creator is not the admin and signer")
	}
	if _, ok := sn.Publisher(admin.Public); !ok {
		t.Error("creator is not a publisher")
	}
	if got, want := sn.Catalog.IDs(), categories.Default().IDs(); !reflect.DeepEqual(got, want) {
		t.Errorf("catalog %v, want the default %v", got, want)
	}
	if !reflect.DeepEqual(sn.Seeds, []string{"a.example:7400", "b.example:7400"}) {
		t.Errorf("seeds %v", sn.Seeds)
	}
	other, err := NewNetwork("Acme", admin, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(other.Secret, sn.Secret) || other.ID == sn.ID {
		t.Error("two networks share a secret or an ID")
	}
	if !other.OpenPublishing {
		t.Error("open publishing not set")
	}
}

// The canonical encoding is pinned: a change breaks every signed definition
// in the field, so it must be deliberate (go test -update).
func TestSignedNetworkGolden(t *testing.T) {
	sn := signedExample(t)
	b, err := sn.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "network.golden", b)
	// Same content in another order signs to the same bytes.
	shuffled := exampleNetwork()
	for i, j := 0, len(shuffled.Publishers)-1; i < j; i, j = i+1, j-1 {
		shuffled.Publishers[i], shuffled.Publishers[j] = shuffled.Publishers[j], shuffled.Publishers[i]
	}
	sn2, err := adminID.SignNetwork(shuffled)
	if err != nil {
		t.Fatal(err)
	}
	b2, _ := sn2.Marshal()
	if !bytes.Equal(b, b2) {
		t.Error("publisher order changed the encoding")
	}
	// Parse gives back the same definition.
	parsed, err := ParseSignedNetwork(b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(parsed, sn) {
		t.Errorf("parse(marshal) differs:\n%+v\n%+v", parsed.Network, sn.Network)
	}
	if _, err := ParseSignedNetwork(bytes.TrimSuffix(b, []byte("\n"))); err != nil {
		t.Errorf("without the final newline: %v", err)
	}
	if err := VerifySelfSigned(parsed); err != nil {
		t.Fatal(err)
	}
}

func TestSignNetworkDoesNotModifyInput(t *testing.T) {
	n := exampleNetwork()
	before := n.Clone()
	if _, err := adminID.SignNetwork(n); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(n, before) {
		t.Error("SignNetwork sorted or changed its argument")
	}
}

func TestAcceptRules(t *testing.T) {
	cur := signedExample(t) // version 5, admin adminID
	sign := func(id *Identity, n *Network) *SignedNetwork {
		sn, err := id.SignNetwork(n)
		if err != nil {
			t.Fatal(err)
		}
		return sn
	}
	otherNet := next(cur, 1)
	otherNet.ID = uuid.MustParse("11111111-2222-4333-8444-555555555555")
	tampered := sign(adminID, next(cur, 1))
	tampered.Seeds = append(tampered.Seeds, "evil.example:7400")
	forgedSigner := sign(outsiderID, next(cur, 1))
	forgedSigner.Signer = adminID.Public // claims the admin, signature by another key

	for _, tc := range []struct {
		name string
		next *SignedNetwork
		rule error
		want string
	}{
		{"older version", sign(adminID, func() *Network { n := cur.Network.Clone(); n.Version = 3; return n }()), ErrNotNewer, "network definition: version 3 is not newer than 5"},
		{"same version", sign(adminID, next(cur, 0)), ErrNotNewer, "network definition: version 5 is not newer than 5"},
		{"non-admin signer", sign(newsroomID, next(cur, 1)), ErrNotAdmin, "signed by a key that is not an admin of the current definition"},
		{"self-appointed admin", sign(outsiderID, func() *Network {
			n := next(cur, 1)
			n.Admins = append(n.Admins, outsiderID.Public)
			return n
		}()), ErrNotAdmin, "signed by a key that is not an admin of the current definition"},
		{"another network", sign(adminID, otherNet), ErrOtherNetwork, "network definition: for network 11111111-2222-4333-8444-555555555555"},
		{"tampered after signing", tampered, ErrBadSignature, "network definition: signature does not verify"},
		{"signer swapped", forgedSigner, ErrBadSignature, "network definition: signature does not verify"},
		{"missing", nil, ErrInvalidDefinition, "network definition: missing"},
		{"valid newer", sign(adminID, next(cur, 1)), nil, ""},
		{"valid much newer", sign(adminID, next(cur, 1000)), nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := cur.Accept(tc.next)
			if tc.rule == nil {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if !errors.Is(err, tc.rule) {
				t.Fatalf("got %v, want rule %v", err, tc.rule)
			}
			contains(t, err, tc.want)
		})
	}
}

// An admin can hand the network over: the next definition names other
// admins, and from then on only they can sign.
func TestAcceptAdminHandover(t *testing.T) {
	v5 := signedExample(t)
	n6 := next(v5, 1)
	n6.Admins = []ed25519.PublicKey{secondAdmin.Public}
	v6, err := adminID.SignNetwork(n6)
	if err != nil {
		t.Fatal(err)
	}
	if err := v5.Accept(v6); err != nil {
		t.Fatal(err)
	}
	v7old, _ := adminID.SignNetwork(next(v6, 1))
	if err := v6.Accept(v7old); !errors.Is(err, ErrNotAdmin) {
		t.Fatalf("old admin after handover: %v", err)
	}
	v7, _ := secondAdmin.SignNetwork(next(v6, 1))
	if err := v6.Accept(v7); err != nil {
		t.Fatal(err)
	}
	// v6 was signed by a key not among its own admins: fine to accept from
	// v5, but not as a self-standing first import.
	if err := VerifySelfSigned(v6); !errors.Is(err, ErrNotAdmin) {
		t.Fatalf("VerifySelfSigned(v6) = %v", err)
	}
	contains(t, VerifySelfSigned(v6), "signed by a key that is not one of its own admins")
}

func TestVerifySelfSigned(t *testing.T) {
	if err := VerifySelfSigned(signedExample(t)); err != nil {
		t.Fatal(err)
	}
	byPublisher, _ := newsroomID.SignNetwork(exampleNetwork())
	if err := VerifySelfSigned(byPublisher); !errors.Is(err, ErrNotAdmin) {
		t.Fatalf("publisher-signed: %v", err)
	}
	tampered := signedExample(t)
	tampered.OpenPublishing = true
	if err := VerifySelfSigned(tampered); !errors.Is(err, ErrBadSignature) {
		t.Fatalf("tampered: %v", err)
	}
	tampered = signedExample(t)
	tampered.Secret[0] ^= 1
	if err := VerifySelfSigned(tampered); !errors.Is(err, ErrBadSignature) {
		t.Fatalf("secret tampered: %v", err)
	}
}

func TestNetworkValidate(t *testing.T) {
	key := func(b byte) ed25519.PublicKey { return fixedIdentity(b).Public }
	for _, tc := range []struct {
		name   string
		change func(n *Network)
		want   string
	}{
		{"no id", func(n *Network) { n.ID = uuid.Nil }, "id: required"},
		{"no name", func(n *Network) { n.Name = " " }, "name: required"},
		{"long name", func(n *Network) { n.Name = strings.Repeat("é", 101) }, "name: longer than 100"},
		{"control in name", func(n *Network) { n.Name = "a\nb" }, "name: control character"},
		{"version 0", func(n *Network) { n.Version = 0 }, "version: must be at least 1"},
		{"no admins", func(n *Network) { n.Admins = nil }, "admins: at least one required"},
		{"short admin key", func(n *Network) { n.Admins = []ed25519.PublicKey{key(1)[:31]} }, "admins: key of 31 bytes"},
		{"duplicate admin", func(n *Network) { n.Admins = []ed25519.PublicKey{key(1), key(1)} }, "listed twice"},
		{"duplicate seed", func(n *Network) { n.Seeds = []string{"a:1", "a:1"} }, `seeds: "a:1" listed twice`},
		{"seed without port", func(n *Network) { n.Seeds = []string{"a.example"} }, "seeds"},
		{"seed port 0", func(n *Network) { n.Seeds = []string{"a:0"} }, "port must be a number from 1 to 65535"},
		{"seed port leading zero", func(n *Network) { n.Seeds = []string{"a:080"} }, "port must be a number"},
		{"seed port too big", func(n *Network) { n.Seeds = []string{"a:65536"} }, "port must be a number"},
		{"seed no host", func(n *Network) { n.Seeds = []string{":7400"} }, "host: required"},
		{"seed space", func(n *Network) { n.Seeds = []string{"a b:1"} }, "spaces"},
		{"too many seeds", func(n *Network) { n.Seeds = make([]string, MaxSeeds+1) }, "seeds: more than"},
		{"no catalog", func(n *Network) { n.Catalog = nil }, "catalog: required"},
		{"publisher without name", func(n *Network) { n.Publishers[0].Name = "" }, "name: required"},
		{"publisher bad category", func(n *Network) { n.Publishers[0].Categories = []string{"Sales"} }, "invalid character"},
		{"publisher duplicate category", func(n *Network) { n.Publishers[0].Categories = []string{"hr", "hr"} }, "not sorted or listed twice"},
		{"duplicate publisher", func(n *Network) { n.Publishers = append(n.Publishers, n.Publishers[0]) }, "listed twice"},
		{"revoked admin", func(n *Network) { n.Revoked = []ed25519.PublicKey{adminID.Public} }, "is also an admin"},
		{"revoked publisher", func(n *Network) { n.Revoked = []ed25519.PublicKey{newsroomID.Public} }, "is also a publisher"},
		{"fanout 1", func(n *Network) { n.Fanout = 1 }, "fanout: 1 outside 2 to 256"},
		{"fanout 257", func(n *Network) { n.Fanout = 257 }, "fanout: 257 outside"},
		{"short secret", func(n *Network) { n.Secret = n.Secret[:16] }, "secret: 16 bytes, want 32"},
		{"no secret", func(n *Network) { n.Secret = nil }, "secret: 0 bytes, want 32"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := exampleNetwork()
			tc.change(n)
			_, err := adminID.SignNetwork(n)
			contains(t, err, tc.want)
			if !strings.HasPrefix(err.Error(), "network definition: ") {
				t.Errorf("error %q does not name the document", err)
			}
		})
	}
}

func TestMayPublish(t *testing.T) {
	sn := signedExample(t)
	open := exampleNetwork()
	open.OpenPublishing = true
	for _, tc := range []struct {
		name     string
		n        *Network
		key      *Identity
		category string
		want     Rejection
	}{
		{"newsroom anywhere", &sn.Network, newsroomID, "sales/emea", ""},
		{"hr in hr", &sn.Network, hrID, "hr", ""},
		{"hr in a subcategory", &sn.Network, hrID, "hr/benefits", ""},
		{"hr elsewhere", &sn.Network, hrID, "company", CategoryNotAllowed},
		{"hr prefix is not a parent", &sn.Network, hrID, "hrx", CategoryNotAllowed},
		{"admin anywhere", &sn.Network, adminID, "it", ""},
		{"admin not listed as publisher", &sn.Network, secondAdmin, "it", UntrustedKey},
		{"outsider", &sn.Network, outsiderID, "company", UntrustedKey},
		{"revoked", &sn.Network, revokedID, "company", RevokedKey},
		{"open: anyone", open, outsiderID, "company", ""},
		{"open: limits do not apply", open, hrID, "company", ""},
		{"open: revoked still refused", open, revokedID, "company", RevokedKey},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantReason(t, tc.n.MayPublish(tc.key.Public, tc.category), tc.want)
		})
	}
}

func TestParseSignedNetworkStrict(t *testing.T) {
	sn := signedExample(t)
	good, err := sn.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	s := string(good)
	replace := func(old, new string) string {
		if !strings.Contains(s, old) {
			t.Fatalf("golden document lacks %q", old)
		}
		return strings.Replace(s, old, new, 1)
	}
	k0 := PublicKeyString(sn.Admins[0])
	for name, doc := range map[string]string{
		"empty":                               "",
		"not json":                            "hello",
		"null":                                "null",
		"array":                               "[]",
		"trailing data":                       s + "{}",
		"two newlines":                        s + "\n",
		"leading space":                       " " + s,
		"indented":                            strings.Replace(s, `{"network":`, "{\n  \"network\": ", 1),
		"unknown outer member":                replace(`{"network":`, `{"x":1,"network":`),
		"unknown inner member":                replace(`"name":"Example Corp"`, `"name":"Example Corp","color":"red"`),
		"missing signature":                   replace(`,"signature":"`, `,"x":"`),
		"duplicate member":                    replace(`"name":"Example Corp"`, `"name":"Example Corp","name":"Example Corp"`),
		"case-folded member":                  replace(`"name":"Example Corp"`, `"NAME":"Example Corp"`),
		"escaped string":                      replace(`"Example Corp"`, `"Example\u0020Corp"`),
		"version as float":                    replace(`"version":5`, `"version":5.0`),
		"version too big":                     replace(`"version":5`, `"version":18446744073709551616`),
		"negative fanout":                     replace(`"fanout":16`, `"fanout":-16`),
		"null seeds":                          replace(`"seeds":[`, `"seeds":null,"x":[`),
		"short secret":                        replace(`"secret":"AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8"`, `"secret":"AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHg"`),
		"padded secret":                       replace(`"secret":"AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8"`, `"secret":"AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8="`),
		"bad admin key":                       replace(k0, "ed25519:AAAA"),
		"bad signature size":                  replace(`"signature":"`, `"signature":"AAAA`),
		"unsorted catalog":                    replace(`{"id":"company"`, `{"id":"zzz","name":"Z","description":""},{"id":"company"`),
		"unsorted seeds ok but different doc": replace(`"seed1.example.com:7400","10.0.0.2:7400"`, `"10.0.0.2:7400","seed1.example.com:7400"`),
		"too large":                           s + strings.Repeat(" ", MaxDefinitionBytes),
	} {
		t.Run(name, func(t *testing.T) {
			got, err := ParseSignedNetwork([]byte(doc))
			if name == "unsorted seeds ok but different doc" {
				// Seeds are in priority order, so this parses (the order is
				// content) but the signature no longer verifies.
				if err != nil {
					t.Fatal(err)
				}
				if err := VerifySelfSigned(got); !errors.Is(err, ErrBadSignature) {
					t.Fatalf("reordered seeds verified: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("accepted:\n%.300s", doc)
			}
			if !strings.HasPrefix(err.Error(), "network definition: ") {
				t.Errorf("error %q does not name the document", err)
			}
			// A person who chose the wrong file or edited it is told
			// which: every refusal is one of the two.
			malformed, edited := errors.Is(err, ErrMalformedDefinition), errors.Is(err, ErrDefinitionEdited)
			if malformed == edited {
				t.Errorf("error %q: malformed %v, edited %v; want one of them", err, malformed, edited)
			}
			if want := map[string]error{"not json": ErrMalformedDefinition, "indented": ErrDefinitionEdited,
				"too large": ErrDefinitionTooLarge}[name]; want != nil && !errors.Is(err, want) {
				t.Errorf("error %q does not match %q", err, want)
			}
		})
	}
}

func TestParseSignedNetworkDoesNotVerify(t *testing.T) {
	// Parse is about form; trust is Accept's and VerifySelfSigned's. A
	// well-formed forgery parses and is then refused.
	forged, _ := outsiderID.SignNetwork(exampleNetwork())
	forged.Signer = adminID.Public
	b, err := forged.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	p, err := ParseSignedNetwork(b)
	if err != nil {
		t.Fatal(err)
	}
	if err := VerifySelfSigned(p); !errors.Is(err, ErrBadSignature) {
		t.Fatalf("forgery: %v", err)
	}
}

func TestCloneIsDeep(t *testing.T) {
	n := exampleNetwork()
	c := n.Clone()
	c.Admins[0][0] ^= 1
	c.Seeds[0] = "x:1"
	c.Secret[0] ^= 1
	c.Publishers[1].Categories[0] = "it"
	c.Publishers[0].Key[0] ^= 1
	c.Revoked[0][0] ^= 1
	if !reflect.DeepEqual(n, exampleNetwork()) {
		t.Fatal("clone shares memory with the original")
	}
}

// FuzzParseSignedNetwork: parsing never panics, and whatever parses is in
// canonical form: it marshals back to the input and parses to the same
// definition.
func FuzzParseSignedNetwork(f *testing.F) {
	sn := signedExample(f)
	good, _ := sn.Marshal()
	f.Add(good)
	f.Add(bytes.TrimSuffix(good, []byte("\n")))
	small, _ := NewNetwork("x", fixedIdentity(8), nil, true)
	b, _ := small.Marshal()
	f.Add(b)
	if named, err := withNamedRanges(f).Marshal(); err == nil {
		f.Add(named)
	}
	f.Add([]byte(`{"network":{},"signer":"","signature":""}`))
	f.Add([]byte(`{}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		sn, err := ParseSignedNetwork(data)
		if err != nil {
			return
		}
		out, err := sn.Marshal()
		if err != nil {
			t.Fatalf("parsed but does not marshal: %v", err)
		}
		if !bytes.Equal(out, data) && !bytes.Equal(out[:len(out)-1], data) {
			t.Fatalf("not canonical:\n in: %q\nout: %q", data, out)
		}
		again, err := ParseSignedNetwork(out)
		if err != nil {
			t.Fatalf("re-parse: %v", err)
		}
		if !reflect.DeepEqual(again, sn) {
			t.Fatal("re-parse differs")
		}
		_ = VerifySelfSigned(sn) // must not panic
		_ = sn.Accept(again)
	})
}
