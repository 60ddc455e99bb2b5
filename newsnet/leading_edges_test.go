package newsnet

import (
	"fmt"
	"net/netip"
	"testing"
)

// The edge book keeps only the newest header of each stream, ignores what
// can make no edge (count 0, an audience), and takes no new stream beyond
// maxEdges while still advancing the streams it has.
func TestLeadingEdgesKeepTheNewest(t *testing.T) {
	var es leadingEdges
	es.note(&Multicast{Source: "a", Category: "news", Count: 3})
	es.note(&Multicast{Source: "a", Category: "news", Count: 2}) // older: ignored
	es.note(&Multicast{Source: "a", Category: "news"})           // no count
	es.note(&Multicast{Source: "a", Category: "hr", Count: 9,
		Audience: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}})
	if len(es) != 1 || es[edgeKey{"a", "news"}].Count != 3 {
		t.Fatalf("edges = %v, want only a/news at 3", es)
	}
	if es.newer("a", "news", 3) || !es.newer("a", "news", 4) || !es.newer("b", "news", 1) {
		t.Error("newer does not compare with the kept edge")
	}
	for i := len(es); i < maxEdges; i++ {
		es.keep(&LatestHeader{Source: fmt.Sprint("s", i), Category: "news", Count: 1})
	}
	es.keep(&LatestHeader{Source: "late", Category: "news", Count: 1})
	es.note(&Multicast{Source: "a", Category: "news", Count: 5})
	if len(es) != maxEdges || es[edgeKey{"late", "news"}] != nil || es[edgeKey{"a", "news"}].Count != 5 {
		t.Errorf("at the bound: %d streams, late kept %v, a/news at %d; want %d, false, 5",
			len(es), es[edgeKey{"late", "news"}] != nil, es[edgeKey{"a", "news"}].Count, maxEdges)
	}
	if keys := es.sortedKeys(); len(keys) != maxEdges || compareEdgeKeys(keys[0], keys[1]) >= 0 {
		t.Error("sortedKeys is not sorted")
	}
}
