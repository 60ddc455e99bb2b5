package newsnet

import "slices"

// requestRelay is a relay of retransmission requests and their answers
// (JP3679935B2's retransmission along JP5458944B2's reverse path, S71,
// S79): a request travels toward the source over the tree link each hop's
// copies of the source's items arrived on (the reverse-path lists,
// reverse.go); the first servant holding an item answers from its relay
// cache or its archive; and the answer retraces the request's trail hop by
// hop, each relay checking what it passes on as it does on the tree. What
// it answers from (the relay cache and the store) and the lists it follows
// are core's, which routing fills; what a requester does with an answer
// (sequencing it, passing it down) is the servant's
// (Servant.handleRecovered), and asking is the sequencer's (recover.go).
// It reaches the servant through relayHost, met by core but for where a
// source's items last arrived; relay_test.go drives it through a fake.
type requestRelay struct {
	cfg      *Config        // the servant's: ID, Source
	aud      *audienceState // the servant's: answers withheld outside an audience
	arrivals sourceArrivals // the servant's sequencer
}

// relayHost is what the relay needs of the servant. *Servant implements
// it.
type relayHost interface {
	// flowHost: answers go back through the link's flow (flow.go), and
	// lookup finds what a request asks for in the relay cache or the
	// store.
	flowHost
	treeLinks() []*link
	upLink() *link
	linkByID(id LinkID) *link
	// listedToward is the link source's traffic arrived on most recently
	// (reverse.go).
	listedToward(source string, except *link, original bool) *link
	// verify runs Config.Verify on an answer passed on (verifier.go).
	verify(peer ServantID, m *Multicast) string
}

var _ relayHost = (*Servant)(nil)

// sourceArrivals is what the relay reads of the sequencer, which meets
// it.
type sourceArrivals interface {
	// arrival is the link source's items last arrived on
	// (sourceState.arrival); ok is false when we never sequenced source.
	arrival(source string) (l LinkID, ok bool)
}

var _ sourceArrivals = (*sequencer)(nil)

func newRequestRelay(cfg *Config, aud *audienceState, arrivals sourceArrivals) requestRelay {
	return requestRelay{cfg: cfg, aud: aud, arrivals: arrivals}
}

// towardSource returns the tree link leading toward source: of the links
// whose list holds it, the one it arrived on most recently; else the last
// arrival link of its sequence; else the uplink. Never except, never a link
// that is not a tree link. Nil when there is none.
func (r *requestRelay) towardSource(h relayHost, source string, except *link) *link {
	if l := h.listedToward(source, except, false); l != nil {
		return l
	}
	if l := r.arrivalLink(h, source, except); l != nil {
		return l
	}
	if up := h.upLink(); up != nil && up != except {
		return up
	}
	return nil
}

// reversePath is the tree link toward a source: the one its messages last
// arrived on, else towardSource; never the link a request came in on.
func (r *requestRelay) reversePath(h relayHost, source string, except *link) *link {
	if l := r.arrivalLink(h, source, except); l != nil {
		return l
	}
	return r.towardSource(h, source, except)
}

// arrivalLink is the tree link source's items last arrived on, unless it
// is except or gone.
func (r *requestRelay) arrivalLink(h relayHost, source string, except *link) *link {
	if id, ok := r.arrivals.arrival(source); ok {
		if l := h.linkByID(id); l != nil && l != except && l.tree() {
			return l
		}
	}
	return nil
}

// recover answers what this servant holds of request q from link from and
// passes the rest on toward the source.
func (r *requestRelay) recover(h relayHost, from *link, q *Recover) {
	if len(q.Trail) == 0 || slices.Contains(q.Trail, r.cfg.ID) || len(q.Trail) >= MaxPathLen {
		return // malformed, or looping in a re-forming tree: the requester retries
	}
	var rest []uint64
	var cats []CountCategory
	for _, k := range q.Counts {
		m := h.lookup(q.Source, k)
		switch {
		case m == nil:
			rest = append(rest, k)
		case r.aud.notForRequester(q.Trail[0], m) || r.aud.withheldFrom(from, h.upLink(), m):
			// To a requester outside an audience (or a leaf that cannot
			// show it is inside), the item's category is its first range
			// ("@10.1.4.0~22"): foreign, so the item is not asked for
			// again, and neither it nor its category is told.
			cats = append(cats, CountCategory{Count: k, Category: notForYou(m)})
		case q.CategoriesOnly:
			cats = append(cats, CountCategory{Count: k, Category: m.Category})
		default:
			from.flow.sendAnswer(h, from, q.Trail, m)
		}
	}
	if len(cats) > 0 {
		from.flow.sendBulk(h, from, &Recovered{Trail: q.Trail, Source: q.Source, Categories: cats})
	}
	if len(rest) == 0 {
		return
	}
	if q.Source == r.cfg.Source {
		// The source itself does not have them: nobody will.
		from.flow.sendBulk(h, from, &Recovered{Trail: q.Trail, Source: q.Source, Missing: rest})
		return
	}
	fwd := &Recover{Source: q.Source, Counts: rest, CategoriesOnly: q.CategoriesOnly, Search: q.Search, Trail: slices.Concat(q.Trail, []ServantID{r.cfg.ID})}
	if next := r.reversePath(h, q.Source, from); next != nil && !q.Search {
		h.send(next, fwd)
		return
	}
	// A search, or no way toward the source but back (the path the
	// requester followed is stale): pass it on over every other tree link.
	// The trail keeps it from visiting a servant twice. Not for a source
	// this servant never heard of: none of its items or edges passed here,
	// so its holders do not lie beyond us, and a made-up source would make
	// every request a flood of the whole tree.
	if !r.heardOf(h, q.Source) {
		return
	}
	for _, l := range h.treeLinks() {
		if l != from {
			h.send(l, fwd)
		}
	}
}

// retrace passes an answer one hop back along its trail, which ends with
// this servant, and reports whether this servant is the requester it is
// for (the trail holds only this servant).
func (r *requestRelay) retrace(h relayHost, trail []ServantID, m Message) (mine bool) {
	n := len(trail)
	if n == 0 || trail[n-1] != r.cfg.ID {
		return false
	}
	if n == 1 {
		return true
	}
	if a, ok := m.(*Recovered); ok && a.Msg != nil && h.verify("retransmission", a.Msg) != "" {
		return false // a relay checks what it passes on, as it does on the tree
	}
	l := backAlong(h.treeLinks(), trail)
	if l == nil {
		return false // the path broke: the requester retries
	}
	if a, ok := m.(*Recovered); ok && a.Msg != nil && r.aud.withheldFrom(l, h.upLink(), a.Msg) {
		return false
	}
	switch m := m.(type) {
	case *Recovered:
		fwd := *m
		fwd.Trail = trail[:n-1]
		l.flow.sendBulk(h, l, &fwd)
	case *CatchUpDone:
		l.flow.sendBulk(h, l, &CatchUpDone{Trail: trail[:n-1], More: m.More, Next: m.Next})
	}
	return false
}

// heardOf reports whether an item or an edge of source has passed this
// servant.
func (r *requestRelay) heardOf(h relayHost, source string) bool {
	if _, ok := r.arrivals.arrival(source); ok {
		return true
	}
	for _, l := range h.treeLinks() {
		if _, ok := l.sources[source]; ok {
			return true
		}
	}
	return false
}

// The servant's side of the relay: what other sub-machines ask of it
// through their hosts, and what the relay asks besides core.

// towardSource is directHost's and reachHost's (requestRelay.towardSource).
func (s *Servant) towardSource(source string, except *link) *link {
	return s.repairs.towardSource(s, source, except)
}
