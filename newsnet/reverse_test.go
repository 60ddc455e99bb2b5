package newsnet_test

import (
	"testing"

	"newsdesk/newsnet"
)

// acceptDown makes the harness's servant accept a down-servant on link.
func (h *harness) acceptDown(link newsnet.LinkID, from newsnet.ServantID) {
	h.t.Helper()
	h.step(newsnet.LinkUp{Link: link, Inbound: true})
	acts := h.step(newsnet.Received{Link: link, Msg: &newsnet.JoinRequest{From: from}})
	if sentOn[*newsnet.JoinAccept](acts, link) == nil {
		h.t.Fatalf("join of %s: %v, want an accept", from, acts)
	}
	// The down-servant subscribes to nothing.
	h.step(newsnet.Received{Link: link, Msg: &newsnet.RoutingInfo{}})
}

// Each tree link keeps the list of the sources whose items arrived over
// it, and a request toward a source follows the list: here source X's
// items came over down-servant A, then over B (the tree changed), then
// over A again; a retransmission request from above goes to whichever
// carried X last. When B's link is gone, the list of A still knows X: the
// request goes to A, although the last item came over B.
// Reference: JP5458944B2, event reverse path determination mechanism 1314, steps S71, S79, S175.
func TestReversePathPerLink(t *testing.T) {
	h := newHarness(t, "10.0.1.1:7400", "10.0.0.1:7400")
	up := h.attach("10.0.0.1:7400")
	const a, b, c = newsnet.LinkID(1), newsnet.LinkID(2), newsnet.LinkID(3)
	h.acceptDown(a, "10.0.1.2:7400")
	h.acceptDown(b, "10.0.1.3:7400")
	h.acceptDown(c, "10.0.1.4:7400") // never carries X
	item := func(count uint64) *newsnet.Multicast {
		return &newsnet.Multicast{ID: [16]byte{byte(count)}, Category: "it", Source: "X", Count: count}
	}
	ask := func(count uint64) newsnet.LinkID {
		t.Helper()
		acts := h.step(newsnet.Received{Link: up, Msg: &newsnet.Recover{Source: "X", Counts: []uint64{count + 100}, Trail: []newsnet.ServantID{"10.0.0.1:7400"}}})
		var to []newsnet.LinkID
		for _, l := range []newsnet.LinkID{a, b, c} {
			if sentOn[*newsnet.Recover](acts, l) != nil {
				to = append(to, l)
			}
		}
		if len(to) == 1 {
			return to[0]
		}
		t.Fatalf("request passed to links %v, want exactly one", to)
		return 0
	}
	h.step(newsnet.Received{Link: a, Msg: item(1)})
	if got := ask(1); got != a {
		t.Errorf("after an item over A the request went to link %d, want A", got)
	}
	h.step(newsnet.Received{Link: b, Msg: item(2)})
	if got := ask(2); got != b {
		t.Errorf("after an item over B the request went to link %d, want B", got)
	}
	h.step(newsnet.Received{Link: a, Msg: item(3)})
	h.step(newsnet.Received{Link: b, Msg: item(4)})
	h.step(newsnet.LinkDown{Link: b, Reason: "test"})
	if got := ask(4); got != a {
		t.Errorf("with B gone the request went to link %d, want A (its list holds X)", got)
	}
}
