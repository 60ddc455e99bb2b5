package newsnet

import "slices"

// Requests from peers within budget. A retransmission request or a
// catch-up page costs the servant that answers it what it must hold until
// the answers are written: honest requesters keep that small (a recovery
// window, one page at a time), but a modified peer can ask for 4,096 counts
// of 60 KB items ten times a second and read slowly. So answers wait in the
// link's backlog as keys (sendAnswer), their bytes counted, and once a
// link's answers reach its budget (answerBudget) its further requests are
// parked, not served: they are served in order as the answers drain
// (serveParked). Parked requests are bounded too, in bytes per link and in
// entries per requester; a newer request from the same requester for the
// same thing is merged into the one waiting (a retry, or more counts of
// the same source), so repeats cost nothing. What
// exceeds that is refused, and when the link's own servant asked (not a
// servant it relays for), the refusal counts against it (conduct.go).

// parkedRequest is a request from a link that waits for the link's answers
// to drain: a *Recover or a *CatchUp.
type parkedRequest struct {
	msg  Message
	size int
}

// answerBudget is how many bytes of answers (keyed or whole) a link may
// have withheld before its requests wait: twice what the host queues.
func (s *Servant) answerBudget() int { return 2 * s.cfg.LinkBuffer }

// parkedBudget bounds the bytes of a link's parked requests. A request is
// small (a Recover of 4,096 counts takes about 32 KB), so this holds
// dozens of relayed requesters' worth.
func (s *Servant) parkedBudget() int { return s.cfg.LinkBuffer / 2 }

// parkedPerRequester bounds a single requester's parked requests on one
// link: a requester recovering several sources has one request per source
// in flight, rarely more.
const parkedPerRequester = 16

// takeRequest serves a request from l now, or parks it behind l's answers.
func (s *Servant) takeRequest(l *link, m Message) {
	if len(l.parked) == 0 && !s.mustWait(l, m) {
		s.serveRequest(l, m)
		return
	}
	s.park(l, m)
}

// mustWait reports whether a request from l has to wait: l's answers
// reached their budget, or, for a catch-up page, one is being read for l
// already or the reads in flight reached their bound (pages.go).
func (s *Servant) mustWait(l *link, m Message) bool {
	if l.backlogBytes >= s.answerBudget() {
		return true
	}
	if _, ok := m.(*CatchUp); ok {
		return l.paging || len(s.pages) >= maxPageReads
	}
	return false
}

func (s *Servant) serveRequest(l *link, m Message) {
	switch m := m.(type) {
	case *Recover:
		s.handleRecover(l, m)
	case *CatchUp:
		s.serveCatchUp(l, m)
	}
}

// park queues m behind l's answers: replacing a waiting request of the
// same requester for the same thing, within the link's budgets, or not at
// all.
func (s *Servant) park(l *link, m Message) {
	s.counters.RequestsWaited++
	size := SizeOf(m)
	requester, mine := 0, -1
	for i, p := range l.parked {
		if !sameRequester(p.msg, m) {
			continue
		}
		requester++
		if sameRequest(p.msg, m) {
			mine = i
		}
	}
	if mine >= 0 {
		m = merged(l.parked[mine].msg, m)
		size = SizeOf(m)
		l.parkedBytes += size - l.parked[mine].size
		l.parked[mine] = parkedRequest{msg: m, size: size}
		return
	}
	if requester >= parkedPerRequester || l.parkedBytes+size > s.parkedBudget() {
		s.counters.RequestsRefused++
		if len(requestTrail(m)) == 1 {
			// The peer asked for itself: an honest one keeps to one page
			// and its recovery window, so it would never get here.
			s.misbehaved(l, reasonRequests)
		}
		return
	}
	l.parkedBytes += size
	l.parked = append(l.parked, parkedRequest{msg: m, size: size})
}

// serveParked serves l's parked requests in order while they need not
// wait.
func (s *Servant) serveParked(l *link) {
	for len(l.parked) > 0 && s.links[l.id] == l {
		p := l.parked[0]
		if s.mustWait(l, p.msg) {
			return
		}
		l.parked[0] = parkedRequest{}
		l.parked = l.parked[1:]
		l.parkedBytes -= p.size
		s.serveRequest(l, p.msg)
	}
	if len(l.parked) == 0 {
		l.parked = nil
	}
}

// serveAllParked gives every link's parked requests their turn, in link
// order, when a bound shared by all links (the page reads) freed up.
func (s *Servant) serveAllParked() {
	for _, l := range s.sortedLinks() {
		if len(l.parked) > 0 {
			s.serveParked(l)
		}
	}
}

func requestTrail(m Message) []ServantID {
	switch m := m.(type) {
	case *Recover:
		return m.Trail
	case *CatchUp:
		return m.Trail
	}
	return nil
}

// sameRequester reports whether a and b come from the same servant: the
// first of their trails.
func sameRequester(a, b Message) bool {
	ta, tb := requestTrail(a), requestTrail(b)
	return len(ta) > 0 && len(tb) > 0 && ta[0] == tb[0]
}

// sameRequest reports whether b asks for what a asked, so that b, the
// newer, replaces a: a catch-up page, or the counts of one source (a
// retry names the counts still missing).
func sameRequest(a, b Message) bool {
	switch a := a.(type) {
	case *CatchUp:
		_, ok := b.(*CatchUp)
		return ok
	case *Recover:
		b, ok := b.(*Recover)
		return ok && a.Source == b.Source && a.CategoriesOnly == b.CategoriesOnly && a.Search == b.Search &&
			slices.Equal(a.Trail, b.Trail) && len(unionCounts(a.Counts, b.Counts)) <= MaxCounts
	}
	return false
}

// merged is what a waiting request a and a newer one b for the same thing
// ask together: b for a catch-up page (it starts where the requester is
// now), both sets of counts for a retransmission (a requester that asks
// more than one frame holds at a time sends several).
func merged(a, b Message) Message {
	ra, ok := a.(*Recover)
	if !ok {
		return b
	}
	rb := *b.(*Recover)
	rb.Counts = unionCounts(ra.Counts, rb.Counts)
	return &rb
}

func unionCounts(a, b []uint64) []uint64 {
	u := slices.Concat(a, b)
	slices.Sort(u)
	return slices.Compact(u)
}

// Edges name sources, and a source this servant meets for the first time
// costs it state and probes for what of it is owed (owed.go). A new link
// brings the edges of every stream its peer knows, so honest peers
// introduce hundreds of sources at once; a peer that makes up sources
// introduces them without end. So a link may introduce newSourceBurst
// sources at once and newSourceBurst more per minute; edges of further new
// sources are dropped (the items, if real, still come with their own
// headers) and count against the peer.
const newSourceBurst = 1024

// takeNewSource reports whether l may introduce one more source.
func (s *Servant) takeNewSource(l *link) bool {
	if l.sourceAt.IsZero() {
		l.sourceTokens, l.sourceAt = newSourceBurst, s.now
	}
	l.sourceTokens = min(newSourceBurst, l.sourceTokens+newSourceBurst*s.now.Sub(l.sourceAt).Minutes())
	l.sourceAt = s.now
	if l.sourceTokens < 1 {
		s.counters.EdgesRefused++
		s.misbehaved(l, reasonEdges)
		return false
	}
	l.sourceTokens--
	return true
}
