package trust

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"

	"newsdesk/news"
)

// The attachment limits are signed and round-trip in a member of their
// own after every other one, left out at their defaults (the definition
// encodes exactly as before), refused out of range or when a default is
// written out, resolve per category, and merge with the other publishing
// limits as one field.
func TestAttachmentLimitsField(t *testing.T) {
	cur := signedExample(t)
	before, err := cur.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(before, []byte(attachLimitsMemberName)) {
		t.Fatalf("default attachment limits are encoded: %s", before)
	}

	n := next(cur, 1)
	n.Limits = PublishLimits{AttachmentBytes: 5 << 20, AttachmentBytesPerHour: 40 << 20,
		CategoryAttachmentBytes: map[string]int64{"alerts": NoAttachments, "hr": 1 << 20}}
	sn, err := adminID.SignNetwork(n)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := sn.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	// Last, after categoryTitles, and nothing in "publishLimits", which
	// releases before it decode strictly.
	want := `,"attachmentLimits":{"itemBytes":5242880,"categoryItemBytes":{"alerts":-1,"hr":1048576},"bytesPerHour":41943040}},"signer"`
	if !bytes.Contains(doc, []byte(want)) || bytes.Contains(doc, []byte(`"publishLimits"`)) {
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
		t.Fatalf("the version setting attachment limits: %v", err)
	}
	tampered, err := ParseSignedNetwork(bytes.Replace(doc, []byte(`"itemBytes":5242880`), []byte(`"itemBytes":6291456`), 1))
	if err != nil {
		t.Fatal(err)
	}
	if err := cur.Accept(tampered); !errors.Is(err, ErrBadSignature) {
		t.Errorf("changed attachment limits accepted: %v", err)
	}

	for _, bad := range []string{
		`"itemBytes":0`,                        // a default written out
		`"itemBytes":-2`,                       // neither none nor a size
		`"itemBytes":1000`,                     // below a chunk: MiB taken for bytes
		`"itemBytes":20971521`,                 // beyond the item format's cap
		`"itemBytes":5242880,"bytesPerHour":0`, // a default written out
		`"itemBytes":5242880,"bytesPerHour":1048576`,
	} {
		forged := bytes.Replace(doc, []byte(`"itemBytes":5242880`), []byte(bad), 1)
		forged = bytes.Replace(forged, []byte(`,"bytesPerHour":41943040`), nil, 1)
		if _, err := ParseSignedNetwork(forged); err == nil {
			t.Errorf("%s parsed", bad)
		}
	}
	for _, bad := range []string{`"attachmentLimits":{}`, `"attachmentLimits":{"categoryItemBytes":{}}`,
		`"attachmentLimits":{"categoryItemBytes":{"Bad Cat":1048576}}`, `"attachmentLimits":{"categoryItemBytes":{"hr":0}}`} {
		i := bytes.Index(doc, []byte(`"attachmentLimits":`))
		j := bytes.LastIndex(doc, []byte(`},"signer"`))
		forged := string(doc[:i]) + bad + string(doc[j:])
		if _, err := ParseSignedNetwork([]byte(forged)); err == nil {
			t.Errorf("%s parsed", bad)
		}
	}
	for _, l := range []PublishLimits{{AttachmentBytes: -5}, {AttachmentBytes: MaxAttachmentBytesCap + 1},
		{CategoryAttachmentBytes: map[string]int64{"hr": 100}}, {AttachmentBytesPerHour: -1}} {
		n.Limits = l
		if _, err := adminID.SignNetwork(n); err == nil {
			t.Errorf("signed %+v", l)
		}
	}

	// Item limits and attachment limits each go into their own member.
	n.Limits = PublishLimits{ItemsPerHour: 30, AttachmentBytes: NoAttachments}
	sn, err = adminID.SignNetwork(n)
	if err != nil {
		t.Fatal(err)
	}
	if doc, err = sn.Marshal(); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(doc, []byte(`"publishLimits":{"itemsPerHour":30},`)) || !bytes.Contains(doc, []byte(`"attachmentLimits":{"itemBytes":-1}}`)) {
		t.Fatalf("encoding:\n%s", doc)
	}
	if got, err = ParseSignedNetwork(doc); err != nil || !got.Limits.Equal(n.Limits) {
		t.Fatalf("parsed %+v (%v), want %+v", got.Limits, err, n.Limits)
	}

	base := exampleNetwork()
	mine, theirs := base.Clone(), base.Clone()
	mine.Limits.AttachmentBytes, theirs.Name = 1<<20, "Renamed"
	out, conflicts := Merge(base, mine, theirs)
	if len(conflicts) != 0 || out.Limits.AttachmentBytes != 1<<20 || out.Name != "Renamed" {
		t.Fatalf("one side's attachment limit: %v %+v %q", conflicts, out.Limits, out.Name)
	}
	theirs.Limits.ItemsPerHour = 5
	if _, conflicts = Merge(base, mine, theirs); len(conflicts) != 1 || conflicts[0].Field != FieldPublishLimits {
		t.Fatalf("attachment limit against another limit: %v", conflicts)
	}
}

// The cap of an item's attachments: the item format's by default, the
// network's when it sets one, the most specific category's entry over
// both, 0 where none are allowed; CheckAttachments refuses beyond it as
// TooLarge, naming the limit.
func TestAttachmentCap(t *testing.T) {
	var def PublishLimits
	if c := def.AttachmentCap("news"); c != news.MaxAttachmentBytes {
		t.Errorf("default cap %d", c)
	}
	if r := def.AttachmentRate(); r != DefaultAttachmentBytesPerHour {
		t.Errorf("default rate %d", r)
	}
	l := PublishLimits{AttachmentBytes: 2 << 20, CategoryAttachmentBytes: map[string]int64{
		"hr": NoAttachments, "hr/payroll": 8 << 20, "alerts": 256 << 10}}
	for cat, want := range map[string]int64{"news": 2 << 20, "hr": 0, "hr/holidays": 0, "hr/payroll": 8 << 20,
		"hr/payroll/2027": 8 << 20, "alerts": 256 << 10} {
		if c := l.AttachmentCap(cat); c != want {
			t.Errorf("cap of %s: %d, want %d", cat, c, want)
		}
	}
	if err := l.CheckAttachments("news", 2<<20); err != nil {
		t.Errorf("at the cap: %v", err)
	}
	err := l.CheckAttachments("news", 2<<20+1)
	if !errors.Is(err, TooLarge) || !strings.Contains(err.Error(), "at most 2 MiB") {
		t.Errorf("beyond the cap: %v", err)
	}
	if err := l.CheckAttachments("hr", 0); err != nil {
		t.Errorf("no attachments where none are allowed: %v", err)
	}
	if err := l.CheckAttachments("hr/holidays", 1); !errors.Is(err, TooLarge) || !strings.Contains(err.Error(), "no attachments") {
		t.Errorf("one byte where none are allowed: %v", err)
	}
	if s := l.String(); !strings.Contains(s, "attachments at most 2 MiB an item, 100 MiB/hour") || !strings.Contains(s, "hr none") {
		t.Errorf("String: %s", s)
	}
}

// A release before the attachment limits keeps the member as one of a
// newer release: it parses the definition, reads the other limits as they
// are, passes the definition on byte for byte, and the signature holds.
func TestAttachmentLimitsOnAnOlderRelease(t *testing.T) {
	cur := signedExample(t)
	n := next(cur, 1)
	n.Limits = PublishLimits{ItemBytes: 4096, AttachmentBytes: 1 << 20}
	sn, err := adminID.SignNetwork(n)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := sn.Marshal()
	if err != nil {
		t.Fatal(err)
	}

	// The older release: the same members, less this one.
	known := knownMembers
	knownMembers = slices.DeleteFunc(slices.Clone(known), func(m string) bool { return m == attachLimitsMemberName })
	defer func() { knownMembers = known }()

	old, err := ParseSignedNetwork(doc)
	if err != nil {
		t.Fatalf("an older release refuses the definition: %v", err)
	}
	if names := old.NewerMembers(); !slices.Equal(names, []string{attachLimitsMemberName}) {
		t.Errorf("members of a newer release: %v", names)
	}
	if old.Limits.ItemBytes != 4096 || old.Limits.AttachmentBytes != 0 {
		t.Errorf("limits read there: %+v", old.Limits)
	}
	if err := cur.Accept(old); err != nil {
		t.Errorf("Accept there: %v", err)
	}
	if again, err := old.Marshal(); err != nil || !bytes.Equal(again, doc) {
		t.Errorf("passed on as\n%s\nwant\n%s (%v)", again, doc, err)
	}
}
