package trust

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The publishing limits are signed, round-trip, are left out at their
// defaults (so definitions signed before them keep their bytes and
// verify), are refused out of range and when a default is written out,
// and merge as one field.
func TestPublishLimitsField(t *testing.T) {
	cur := signedExample(t)
	doc, err := cur.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(doc, []byte("publishLimits")) {
		t.Fatalf("default limits are encoded: %s", doc)
	}
	// Every golden definition signed before the limits existed still
	// parses to the same bytes and verifies.
	golden, _ := filepath.Glob("testdata/*.golden")
	verified := 0
	for _, g := range golden {
		data, err := os.ReadFile(g)
		if err != nil {
			t.Fatal(err)
		}
		sn, err := ParseSignedNetwork(data)
		if err != nil {
			continue // not a definition
		}
		verified++
		if !sn.Limits.IsZero() {
			t.Errorf("%s: limits %+v", g, sn.Limits)
		}
		if err := VerifySelfSigned(sn); err != nil && !errors.Is(err, ErrNotAdmin) {
			t.Errorf("%s no longer verifies: %v", g, err)
		}
	}

	if verified == 0 {
		t.Fatal("no golden definition found")
	}

	n := next(cur, 1)
	n.Limits = PublishLimits{ItemsPerHour: 30, BurstBytes: 1 << 20, CategoryItemBytes: map[string]int{"hr": 4096, "alerts": 1024}}
	sn, err := adminID.SignNetwork(n)
	if err != nil {
		t.Fatal(err)
	}
	if doc, err = sn.Marshal(); err != nil {
		t.Fatal(err)
	}
	want := `,"publishLimits":{"itemsPerHour":30,"burstBytes":1048576,"categoryItemBytes":{"alerts":1024,"hr":4096}}}`
	if !bytes.Contains(doc, []byte(want)) {
		t.Fatalf("encoding:\n%s", doc)
	}
	got, err := ParseSignedNetwork(doc)
	if err != nil {
		t.Fatal(err)
	}
	if !got.Limits.Equal(n.Limits) {
		t.Fatalf("parsed %+v, want %+v", got.Limits, n.Limits)
	}
	if err := cur.Accept(got); err != nil {
		t.Fatalf("the version setting limits: %v", err)
	}
	r := got.Limits.Rate()
	if r.ItemsPerHour != 30 || r.BurstItems != DefaultBurstItems || r.BytesPerHour != DefaultBytesPerHour || r.BurstBytes != 1<<20 {
		t.Errorf("rate %+v", r)
	}
	if c := got.Limits.ItemCap("hr/payroll"); c != 4096 {
		t.Errorf("cap of hr/payroll %d", c)
	}
	if c := got.Limits.ItemCap("news"); c != 0 {
		t.Errorf("cap of news %d", c)
	}
	if err := got.Limits.CheckItemSize("alerts", 1025); !errors.Is(err, TooLarge) {
		t.Errorf("1025 bytes in alerts: %v", err)
	}

	tampered, err := ParseSignedNetwork([]byte(strings.Replace(string(doc), `"itemsPerHour":30`, `"itemsPerHour":9000`, 1)))
	if err != nil {
		t.Fatal(err)
	}
	if err := cur.Accept(tampered); !errors.Is(err, ErrBadSignature) {
		t.Errorf("changed limits accepted: %v", err)
	}
	for _, bad := range []string{`"itemsPerHour":0`, `"itemsPerHour":-1`, `"itemsPerHour":1000001`, `"itemsPerHour":30,"itemBytes":0`,
		`"itemsPerHour":30,"itemBytes":100`, `"itemsPerHour":30,"bytesPerHour":10`} {
		if _, err := ParseSignedNetwork([]byte(strings.Replace(string(doc), `"itemsPerHour":30`, bad, 1))); err == nil {
			t.Errorf("%s parsed", bad)
		}
	}
	for _, bad := range []string{`"publishLimits":{}`, `"publishLimits":{"categoryItemBytes":{}}`, `"publishLimits":{"categoryItemBytes":{"Bad Cat":600}}`} {
		i := strings.Index(string(doc), `"publishLimits":`)
		j := strings.LastIndex(string(doc), `}},"signer"`)
		forged := string(doc[:i]) + bad + string(doc[j+1:])
		if _, err := ParseSignedNetwork([]byte(forged)); err == nil {
			t.Errorf("%s parsed", bad)
		}
	}
	n.Limits = PublishLimits{BurstItems: -3}
	if _, err := adminID.SignNetwork(n); err == nil {
		t.Error("signed negative burst")
	}

	base := exampleNetwork()
	mine, theirs := base.Clone(), base.Clone()
	mine.Limits.ItemsPerHour, theirs.Name = 10, "Renamed"
	out, conflicts := Merge(base, mine, theirs)
	if len(conflicts) != 0 || out.Limits.ItemsPerHour != 10 || out.Name != "Renamed" {
		t.Fatalf("one side's limits: %v %+v %q", conflicts, out.Limits, out.Name)
	}
	theirs.Limits.BurstItems = 5
	if out, conflicts = Merge(base, mine, theirs); len(conflicts) != 1 || conflicts[0].Field != FieldPublishLimits || out.Limits.BurstItems != 5 || out.Limits.ItemsPerHour != 0 {
		t.Fatalf("both changed: %v, kept %+v", conflicts, out.Limits)
	}
}
