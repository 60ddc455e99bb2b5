package trust

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// The leaf capacity is signed, round-trips, is left out at its default (so
// older definitions keep their bytes), is refused out of range and when
// written as 0, and merges as one field.
func TestLeafCapacity(t *testing.T) {
	cur := signedExample(t)
	doc, err := cur.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(doc, []byte("leafCapacity")) {
		t.Fatalf("the default leaf capacity is encoded: %s", doc)
	}
	n := next(cur, 1)
	n.LeafCapacity = 200
	sn, err := adminID.SignNetwork(n)
	if err != nil {
		t.Fatal(err)
	}
	if doc, err = sn.Marshal(); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(doc, []byte(`,"leafCapacity":200}`)) {
		t.Errorf("encoding:\n%s", doc)
	}
	got, err := ParseSignedNetwork(doc)
	if err != nil {
		t.Fatal(err)
	}
	if got.LeafCapacity != 200 {
		t.Fatalf("parsed leaf capacity %d", got.LeafCapacity)
	}
	if err := cur.Accept(got); err != nil {
		t.Fatalf("the version setting a leaf capacity: %v", err)
	}
	tampered, err := ParseSignedNetwork([]byte(strings.Replace(string(doc), `"leafCapacity":200`, `"leafCapacity":900`, 1)))
	if err != nil {
		t.Fatal(err)
	}
	if err := cur.Accept(tampered); !errors.Is(err, ErrBadSignature) {
		t.Errorf("changed leaf capacity accepted: %v", err)
	}
	for _, bad := range []string{`"leafCapacity":0`, `"leafCapacity":-1`, `"leafCapacity":4097`} {
		if _, err := ParseSignedNetwork([]byte(strings.Replace(string(doc), `"leafCapacity":200`, bad, 1))); err == nil {
			t.Errorf("%s parsed", bad)
		}
	}
	n.LeafCapacity = MaxLeafCapacity + 1
	if _, err := adminID.SignNetwork(n); err == nil {
		t.Error("signed a leaf capacity beyond the maximum")
	}

	base := exampleNetwork()
	mine, theirs := base.Clone(), base.Clone()
	mine.LeafCapacity, theirs.Name = 100, "Renamed"
	out, conflicts := Merge(base, mine, theirs)
	if len(conflicts) != 0 || out.LeafCapacity != 100 || out.Name != "Renamed" {
		t.Fatalf("one side's leaf capacity: %v %d %q", conflicts, out.LeafCapacity, out.Name)
	}
	theirs.LeafCapacity = 300
	if out, conflicts = Merge(base, mine, theirs); len(conflicts) != 1 || conflicts[0].Field != FieldLeafCapacity || out.LeafCapacity != 300 {
		t.Fatalf("both changed: %v, kept %d", conflicts, out.LeafCapacity)
	}
}
