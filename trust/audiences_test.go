package trust

import (
	"bytes"
	"errors"
	"net/netip"
	"os"
	"reflect"
	"strings"
	"testing"
)

func prefixes(t testing.TB, s ...string) []netip.Prefix {
	t.Helper()
	out := make([]netip.Prefix, len(s))
	for i, p := range s {
		out[i] = netip.MustParsePrefix(p)
	}
	return out
}

// withNamedRanges is the golden example with two named ranges.
func withNamedRanges(t testing.TB) *SignedNetwork {
	t.Helper()
	n := exampleNetwork()
	n.Audiences = []NamedRange{
		{Name: "Paris office", Ranges: prefixes(t, "10.2.0.0/16")},
		{Name: "Berlin office", Ranges: prefixes(t, "2001:db8:4::/48", "10.1.4.0/22")},
	}
	sn, err := adminID.SignNetwork(n)
	if err != nil {
		t.Fatal(err)
	}
	return sn
}

// A definition signed before named ranges existed (the golden file) still
// parses and verifies: the member is left out when empty, so its bytes
// and its signature are what they were.
func TestNamedRangesOlderDefinitionsVerify(t *testing.T) {
	old, err := os.ReadFile("testdata/network.golden")
	if err != nil {
		t.Fatal(err)
	}
	sn, err := ParseSignedNetwork(old)
	if err != nil {
		t.Fatal(err)
	}
	if err := VerifySelfSigned(sn); err != nil {
		t.Fatal(err)
	}
	if sn.Audiences != nil {
		t.Errorf("audiences %v in a definition without them", sn.Audiences)
	}
	if bytes.Contains(old, []byte(`"audiences"`)) {
		t.Fatal("the golden definition should be one from before named ranges")
	}
}

// Named ranges are signed, sorted by name, round-trip through the
// canonical encoding, and an older servant's definition (cur) accepts the
// version that adds them.
func TestNamedRangesRoundTrip(t *testing.T) {
	cur := signedExample(t)
	n := next(cur, 1)
	n.Audiences = []NamedRange{
		{Name: "Paris office", Ranges: prefixes(t, "10.2.0.0/16")},
		{Name: "Berlin office", Ranges: prefixes(t, "2001:db8:4::/48", "10.1.4.0/22", "10.1.5.0/24")},
	}
	sn, err := adminID.SignNetwork(n)
	if err != nil {
		t.Fatal(err)
	}
	want := []NamedRange{
		{Name: "Berlin office", Ranges: prefixes(t, "10.1.4.0/22", "2001:db8:4::/48")},
		{Name: "Paris office", Ranges: prefixes(t, "10.2.0.0/16")},
	}
	if !reflect.DeepEqual(sn.Audiences, want) {
		t.Fatalf("signed named ranges %v, want %v (sorted, canonical)", sn.Audiences, want)
	}
	doc, err := sn.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(doc, []byte(`"openPublishing":false,"audiences":[{"name":"Berlin office","ranges":["10.1.4.0/22","2001:db8:4::/48"]},{"name":"Paris office","ranges":["10.2.0.0/16"]}]}`)) {
		t.Errorf("encoding:\n%s", doc)
	}
	got, err := ParseSignedNetwork(doc)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, sn) {
		t.Fatal("parsed definition differs")
	}
	if err := cur.Accept(got); err != nil {
		t.Fatalf("the version adding named ranges: %v", err)
	}
	if r, ok := got.NamedRangeByName("Paris office"); !ok || r.Ranges[0].String() != "10.2.0.0/16" {
		t.Errorf("NamedRangeByName = %v, %v", r, ok)
	}
	if _, ok := got.NamedRangeByName("Rome office"); ok {
		t.Error("NamedRangeByName found a name not there")
	}

	// The ranges are signed: changing one breaks the signature.
	tampered := strings.Replace(string(doc), "10.2.0.0/16", "10.3.0.0/16", 1)
	bad, err := ParseSignedNetwork([]byte(tampered))
	if err != nil {
		t.Fatal(err)
	}
	if err := cur.Accept(bad); !errors.Is(err, ErrBadSignature) {
		t.Errorf("changed ranges accepted: %v", err)
	}
}

func TestNamedRangesValidate(t *testing.T) {
	many := make([]NamedRange, MaxNamedRanges+1)
	for i := range many {
		many[i] = NamedRange{Name: strings.Repeat("a", i+1), Ranges: prefixes(t, "10.0.0.0/8")}
	}
	tooManyRanges := make([]netip.Prefix, MaxRangesPerName+1)
	for i := range tooManyRanges {
		tooManyRanges[i] = netip.PrefixFrom(netip.AddrFrom4([4]byte{10, byte(i), 0, 0}), 16)
	}
	for _, tc := range []struct {
		name string
		rs   []NamedRange
		want string
	}{
		{"no name", []NamedRange{{Name: " ", Ranges: prefixes(t, "10.0.0.0/8")}}, "audiences: name: required"},
		{"long name", []NamedRange{{Name: strings.Repeat("é", MaxRangeNameRunes+1), Ranges: prefixes(t, "10.0.0.0/8")}}, "longer than 100"},
		{"two lines", []NamedRange{{Name: "Berlin\noffice", Ranges: prefixes(t, "10.0.0.0/8")}}, "control character"},
		{"spaces around", []NamedRange{{Name: " Berlin", Ranges: prefixes(t, "10.0.0.0/8")}}, "spaces at either end"},
		{"no ranges", []NamedRange{{Name: "Berlin"}}, `"Berlin": no network ranges`},
		{"too many ranges", []NamedRange{{Name: "Berlin", Ranges: tooManyRanges}}, "at most 32"},
		{"twice", []NamedRange{{Name: "Berlin", Ranges: prefixes(t, "10.0.0.0/8")}, {Name: "Berlin", Ranges: prefixes(t, "10.1.0.0/16")}}, `"Berlin" named twice`},
		{"too many names", many, "more than 64 named ranges"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := exampleNetwork()
			n.Audiences = tc.rs
			_, err := adminID.SignNetwork(n)
			contains(t, err, tc.want)
		})
	}
	// Validate (what a parsed definition meets) also wants them canonical;
	// SignNetwork would have made them so.
	n := signedExample(t).Network.Clone()
	n.Audiences = []NamedRange{{Name: "Berlin", Ranges: prefixes(t, "10.1.4.7/22")}}
	contains(t, n.Validate(), "not canonical")
	n.Audiences = []NamedRange{{Name: "b", Ranges: prefixes(t, "10.0.0.0/8")}, {Name: "a", Ranges: prefixes(t, "10.0.0.0/8")}}
	contains(t, n.Validate(), "not sorted by name")
}

// Malformed named ranges in a document are refused with an error, never
// reinterpreted.
func TestNamedRangesParseStrict(t *testing.T) {
	doc, err := withNamedRanges(t).Marshal()
	if err != nil {
		t.Fatal(err)
	}
	s := string(doc)
	const member = `"audiences":[{"name":"Berlin office","ranges":["10.1.4.0/22","2001:db8:4::/48"]},{"name":"Paris office","ranges":["10.2.0.0/16"]}]`
	if !strings.Contains(s, member) {
		t.Fatalf("document lacks %s:\n%s", member, s)
	}
	for name, repl := range map[string]string{
		"empty member":     `"audiences":[]`,
		"null member":      `"audiences":null`,
		"host bits":        strings.Replace(member, "10.2.0.0/16", "10.2.0.1/16", 1),
		"not cidr":         strings.Replace(member, "10.2.0.0/16", "10.2.0.0", 1),
		"zone":             strings.Replace(member, "2001:db8:4::/48", "fe80::%eth0/64", 1),
		"mapped":           strings.Replace(member, "10.2.0.0/16", "::ffff:10.2.0.0/112", 1),
		"unsorted ranges":  strings.Replace(member, `"10.1.4.0/22","2001:db8:4::/48"`, `"2001:db8:4::/48","10.1.4.0/22"`, 1),
		"unsorted names":   `"audiences":[{"name":"Paris office","ranges":["10.2.0.0/16"]},{"name":"Berlin office","ranges":["10.1.4.0/22","2001:db8:4::/48"]}]`,
		"no ranges member": `"audiences":[{"name":"Paris office"}]`,
		"null ranges":      `"audiences":[{"name":"Paris office","ranges":null}]`,
		"empty ranges":     `"audiences":[{"name":"Paris office","ranges":[]}]`,
		"unknown member":   `"audiences":[{"name":"Paris office","ranges":["10.2.0.0/16"],"color":"red"}]`,
		"inside another":   `"audiences":[{"name":"Paris office","ranges":["10.2.0.0/16","10.2.1.0/24"]}]`,
		"same name twice":  `"audiences":[{"name":"Paris office","ranges":["10.2.0.0/16"]},{"name":"Paris office","ranges":["10.3.0.0/16"]}]`,
		"ranges as string": `"audiences":[{"name":"Paris office","ranges":"10.2.0.0/16"}]`,
	} {
		t.Run(name, func(t *testing.T) {
			bad := strings.Replace(s, member, repl, 1)
			if _, err := ParseSignedNetwork([]byte(bad)); err == nil {
				t.Fatalf("accepted:\n%s", bad)
			} else if !strings.HasPrefix(err.Error(), "network definition: ") {
				t.Errorf("error %q does not name the document", err)
			}
		})
	}
}

// Merge takes the named ranges as a whole, like the seed list.
func TestMergeNamedRanges(t *testing.T) {
	base := exampleNetwork()
	berlin := []NamedRange{{Name: "Berlin office", Ranges: prefixes(t, "10.1.4.0/22")}}
	paris := []NamedRange{{Name: "Paris office", Ranges: prefixes(t, "10.2.0.0/16")}}

	mine, theirs := base.Clone(), base.Clone()
	mine.Audiences = berlin
	theirs.Name = "Renamed"
	out, conflicts := Merge(base, mine, theirs)
	if len(conflicts) != 0 || !sameNamedRanges(out.Audiences, berlin) || out.Name != "Renamed" {
		t.Fatalf("one side's named ranges: %v %v %q", conflicts, out.Audiences, out.Name)
	}
	mine.Audiences[0].Ranges[0] = netip.MustParsePrefix("10.9.0.0/16")
	if out.Audiences[0].Ranges[0].String() != "10.1.4.0/22" {
		t.Error("the merged definition shares memory with mine")
	}

	mine, theirs = base.Clone(), base.Clone()
	mine.Audiences, theirs.Audiences = berlin, paris
	out, conflicts = Merge(base, mine, theirs)
	if len(conflicts) != 1 || conflicts[0].Field != FieldAudiences || !sameNamedRanges(out.Audiences, paris) {
		t.Fatalf("both changed: %v, kept %v", conflicts, out.Audiences)
	}
}
