package newsnet_test

import (
	"net/netip"
	"testing"

	"newsdesk/newsnet"
)

// An old item that a new subscription's history brings is delivered only
// inside its audience, like a live one: the servant that answers should
// leave it out for a requester outside (notForRequester), and one that
// does not, an older or a modified one, must not get it stored here.
func TestHistoryAnswerIsDeliveredOnlyInsideItsAudience(t *testing.T) {
	for _, tc := range []struct {
		audience string
		want     bool
	}{{"10.0.1.0/24", true}, {"10.9.0.0/16", false}} {
		h := newHarness(t, "10.0.1.1:7400", "10.0.0.1:7400")
		up := h.attach("10.0.0.1:7400")
		h.step(newsnet.Subscribe{Category: "dept"})
		company := newsnet.ShortID("company")
		// X published 1 in company, then 2 and 3 in dept: we follow X
		// from 4 on, and 1 was not ours.
		for k := uint64(2); k <= 3; k++ {
			h.step(newsnet.Received{Link: up, Msg: &newsnet.Multicast{ID: [16]byte{byte(k)}, Category: "dept", Source: "X", Count: k,
				Lasts: []newsnet.LastCount{{Short: company, Count: 1}}, LastsComplete: true}})
		}
		var pages []*newsnet.CatchUp
		raw := func(ev newsnet.Event) []newsnet.Action {
			acts := h.s.Step(ev)
			for _, a := range acts {
				if s, ok := a.(newsnet.Send); ok {
					h.s.Step(newsnet.Written{Link: s.Link, Bytes: newsnet.SizeOf(s.Msg)})
					if c, ok := s.Msg.(*newsnet.CatchUp); ok && len(c.Trail) > 0 {
						pages = append(pages, c)
					}
				}
			}
			return acts
		}
		raw(newsnet.Subscribe{Category: "company"}) // asks for company's history
		if len(pages) == 0 {
			t.Fatal("no history asked for after a new subscription")
		}
		acts := raw(newsnet.Received{Link: up, Msg: &newsnet.Recovered{Trail: pages[0].Trail, Source: "X",
			Msg: &newsnet.Multicast{ID: [16]byte{1}, Category: "company", Source: "X", Count: 1,
				Audience: []netip.Prefix{netip.MustParsePrefix(tc.audience)}}}})
		delivered := false
		for _, a := range acts {
			if d, ok := a.(newsnet.Deliver); ok && d.Msg.Count == 1 {
				delivered = true
			}
		}
		if delivered != tc.want {
			t.Errorf("history item for %s delivered to 10.0.1.1: %v, want %v", tc.audience, delivered, tc.want)
		}
	}
}
