package newsnet

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// reachSample is the ReachReport of the golden file and the fuzz seeds:
// every field set, two sources, a must-read item with an audience (so
// with its subscribers) and both lists.
func reachSample(id [16]byte) *ReachReport {
	id2 := id
	id2[0]++
	return &ReachReport{
		HasCensus:  true,
		Census:     []CategoryCount{{Category: "*", Count: 2}, {Category: "hr", Count: 300}, {Category: "it/ops", Count: 1}},
		Publishers: []string{"hq", "lab"},
		Sources: []SourceReach{
			{Source: "hq", Category: "hr", Items: []ItemReach{
				{ID: id, Subscribers: 320, Delivered: 310, Read: 200, Acknowledged: 1,
					Pending: [][]byte{[]byte("ana"), []byte("bo")}, Acks: [][]byte{[]byte("signed:cy")}, PendingCount: 309},
				{ID: id2, Delivered: 1 << 20},
			}},
			{Source: "hq", Category: "it", Items: []ItemReach{{ID: id, Read: 1}}},
			{Source: "lab", Items: []ItemReach{{ID: id2}}},
		},
		Subtree: &NetCensus{Servants: 12, Seeds: 1, Leaves: 3, Desktops: 10, Headless: 2, Lost: 7, LostServants: 1,
			Depth: 3, MostDowns: 4, MostLeaves: 3, MinVersion: 5, MaxVersion: 6,
			Releases: []NameCount{{"0.2.0", 11}, {"0.1.0", 1}}, WorstLost: []ServantCount{{"10.0.0.9:7400", 7}},
			SeedsOnline: []ServantID{"10.0.0.1:7400"}, SeedLeaves: 2, Refused: []ServantCount{{"10.0.0.66:7400", 3}},
			Parts: []PartCensus{{Root: "10.0.0.9:7400", Lo: 1 << 40, Hi: 1<<41 - 1, Servants: 8, Leaves: 3, Lost: 7, LostServants: 1, Depth: 2, MinVersion: 5, MaxVersion: 6}}},
		Network: &NetCensus{Servants: 40, Depth: 4, MinVersion: 6, MaxVersion: 6, Releases: []NameCount{{"0.2.0", 40}},
			Parts: []PartCensus{{Root: "10.0.0.2:7400", Lo: 1, Hi: 1 << 47, Servants: 39, Depth: 3, MinVersion: 6, MaxVersion: 6,
				Parts: []PartCensus{{Root: "10.0.0.3:7400", Lo: 1, Hi: 1 << 46, Servants: 20, Depth: 2, MinVersion: 6, MaxVersion: 6}}}}},
		NetworkAt: 1764000000000000000,
	}
}

// TestReachReportRoundTrip: what the encoder writes decodes to the same
// report, an empty census is told apart from none, and the encoding is
// canonical.
func TestReachReportRoundTrip(t *testing.T) {
	for _, m := range []*ReachReport{
		reachSample([16]byte{1}),
		{HasCensus: true},
		{},
		{Sources: []SourceReach{{Source: "hq"}}},
	} {
		b, err := EncodeMessage(m)
		if err != nil {
			t.Fatalf("%+v: %v", m, err)
		}
		got, err := DecodeMessage(b)
		if err != nil {
			t.Fatalf("%+v: decode: %v", m, err)
		}
		if !reflect.DeepEqual(got, m) {
			t.Errorf("round trip:\n got %+v\nwant %+v", got, m)
		}
		if n := SizeOf(m); n < len(b) || n > len(b)+32 {
			t.Errorf("SizeOf %d for a frame of %d bytes", n, len(b))
		}
	}
}

// TestReachReportRefusesNonCanonical: every order, bound and emptiness
// rule is enforced by the encoder (the sender fails) and by the decoder
// (the receiver refuses the frame), never by a panic.
func TestReachReportRefusesNonCanonical(t *testing.T) {
	big := make([]byte, MaxIdentityBytes+1)
	many := make([][]byte, MaxReachIdentities+1)
	for i := range many {
		many[i] = []byte{byte(i >> 8), byte(i)}
	}
	for _, c := range []struct {
		name string
		m    *ReachReport
		want error
	}{
		{"census unsorted", &ReachReport{HasCensus: true, Census: []CategoryCount{{"b", 1}, {"a", 1}}}, errUnsortedReach},
		{"census zero", &ReachReport{HasCensus: true, Census: []CategoryCount{{"a", 0}}}, errZeroCensus},
		{"census empty category", &ReachReport{HasCensus: true, Census: []CategoryCount{{"", 1}}}, errEmptyCategory},
		{"census without flag", &ReachReport{Census: []CategoryCount{{"a", 1}}}, errStrayCensus},
		{"publishers unsorted", &ReachReport{HasCensus: true, Publishers: []string{"b", "a"}}, errUnsortedReach},
		{"publisher empty", &ReachReport{HasCensus: true, Publishers: []string{""}}, errUnsortedReach},
		{"publishers without flag", &ReachReport{Publishers: []string{"a"}}, errStrayCensus},
		{"sources unsorted", &ReachReport{Sources: []SourceReach{{Source: "b"}, {Source: "a"}}}, errUnsortedReach},
		{"source twice", &ReachReport{Sources: []SourceReach{{Source: "a", Category: "x"}, {Source: "a", Category: "x"}}}, errUnsortedReach},
		{"items unsorted", &ReachReport{Sources: []SourceReach{{Source: "a", Items: []ItemReach{{ID: [16]byte{2}}, {ID: [16]byte{1}}}}}}, errUnsortedReach},
		{"blobs unsorted", &ReachReport{Sources: []SourceReach{{Source: "a", Items: []ItemReach{{Pending: [][]byte{[]byte("b"), []byte("a")}}}}}}, errUnsortedReach},
		{"blob empty", &ReachReport{Sources: []SourceReach{{Source: "a", Items: []ItemReach{{Acks: [][]byte{{}}}}}}}, errEmptyBlob},
		{"blob too long", &ReachReport{Sources: []SourceReach{{Source: "a", Items: []ItemReach{{Acks: [][]byte{big}}}}}}, errTooLong},
		{"too many blobs", &ReachReport{Sources: []SourceReach{{Source: "a", Items: []ItemReach{{Pending: many}}}}}, errTooMany},
	} {
		_, err := EncodeMessage(c.m)
		if !errors.Is(err, c.want) {
			t.Errorf("%s: encode: %v, want %v", c.name, err, c.want)
		}
		// The same report written without the encoder's checks.
		e := encoder{b: []byte{byte((*ReachReport).msgType(nil))}}
		rawReach(&e, c.m)
		if _, err := DecodeMessage(e.b); !errors.Is(err, c.want) {
			t.Errorf("%s: decode: %v, want %v", c.name, err, c.want)
		}
	}
}

// rawReach writes m field by field as the encoder would, but checks
// nothing, so the decoder's own checks are tested.
func rawReach(e *encoder, m *ReachReport) {
	raw := func(s string) { e.uvarint(uint64(len(s))); e.b = append(e.b, s...) }
	e.flag(m.HasCensus)
	e.uvarint(uint64(len(m.Census)))
	for _, c := range m.Census {
		raw(c.Category)
		e.uvarint(c.Count)
	}
	e.uvarint(uint64(len(m.Publishers)))
	for _, p := range m.Publishers {
		raw(p)
	}
	e.uvarint(uint64(len(m.Sources)))
	for _, sr := range m.Sources {
		raw(sr.Source)
		raw(sr.Category)
		e.uvarint(uint64(len(sr.Items)))
		for _, it := range sr.Items {
			e.raw16(it.ID)
			e.uvarint(it.Subscribers)
			e.uvarint(it.Delivered)
			e.uvarint(it.Read)
			e.uvarint(it.Acknowledged)
			for _, bs := range [][][]byte{it.Pending, it.Acks} {
				e.uvarint(uint64(len(bs)))
				for _, b := range bs {
					raw(string(b))
				}
			}
		}
	}
}

// TestReachReportItemBound: a report of more than MaxReachItems items,
// however split over sources, is refused before anything is allocated.
func TestReachReportItemBound(t *testing.T) {
	m := &ReachReport{Sources: []SourceReach{{Source: "a", Items: make([]ItemReach, MaxReachItems/2+1)}, {Source: "b", Items: make([]ItemReach, MaxReachItems/2)}}}
	for i := range m.Sources {
		for j := range m.Sources[i].Items {
			m.Sources[i].Items[j].ID = [16]byte{byte(j >> 8), byte(j)}
		}
	}
	if _, err := EncodeMessage(m); !errors.Is(err, errTooMany) {
		t.Errorf("encode: %v, want too many", err)
	}
	e := encoder{b: []byte{20}}
	rawReach(&e, m)
	if _, err := DecodeMessage(e.b); err == nil || !strings.Contains(err.Error(), "reach items") {
		t.Errorf("decode: %v, want too many reach items", err)
	}
}
