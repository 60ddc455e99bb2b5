package newsnet

import "slices"

// Requests from peers within budget. A retransmission request or a
// catch-up page costs the servant that answers it what it must hold until
// the answers are written: honest requesters keep that small (a recovery
// window, one page at a time), but a modified peer can ask for 4,096 counts
// of 60 KB items ten times a second and read slowly. So the answers a busy
// link withholds count their bytes, waiting whole within its budget
// (answerBudget) and as keys beyond it (sendAnswer); once they reach the
// budget, the link's further requests are parked, not served, and served
// in order as the answers drain (serveParked). Parked requests are bounded
// too, in bytes per link and in entries per requester; a newer request
// from the same requester for the same thing is merged into the one
// waiting (a retry, or more counts of the same source), so repeats cost
// nothing. What exceeds that is refused: the requester asks again later.
// A refusal is not held against the peer: honest servants fed made-up
// edges by another ask for made-up sources too. What is held against it
// (conduct.go) is a request whose trail does not end with the peer, which
// no honest servant sends.

// parkedRequest is a request from a link that waits for the link's answers
// to drain: a *Recover or a *CatchUp.
type parkedRequest struct {
	msg  Message
	size int
}

// parkedBudget bounds the bytes of a link's parked requests. A request is
// small (a Recover of 4,096 counts takes about 32 KB), so this holds
// dozens of relayed requesters' worth.
func (s *Servant) parkedBudget() int { return s.cfg.LinkBuffer / 2 }

// parkedPerRequester bounds a single requester's parked requests on one
// link: a requester recovering several sources has one request per source
// in flight, rarely more.
const parkedPerRequester = 16

// Requests per link come at a bounded rate: requestRate a second with a
// burst of requestBurst, searches (which go to every tree link) at a tenth
// of that. A subtree recovering after a cut asks each missing source once
// per retry interval per requester, far below; a modified peer asks
// without end. Beyond the rate a request is dropped (its requester asks
// again later).
const (
	requestRate  = 200
	requestBurst = 1000
)

// takeRequest serves a request from l now, or parks it behind l's answers.
func (s *Servant) takeRequest(l *link, m Message) {
	trail := requestTrail(m)
	if l.kind == linkDown && (len(trail) == 0 || trail[len(trail)-1] != l.peer) {
		// A down-servant names itself last in every request it passes on.
		s.misbehaved(l, reasonRequests)
		return
	}
	search := false
	if r, ok := m.(*Recover); ok {
		search = r.Search
	}
	if !s.takeRequestToken(l, search) {
		s.counters.RequestsRefused++
		return
	}
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
	if l.flow.answersFull(&s.cfg) {
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
// costs it state and probes for what of it is owed (owed.go), here and at
// every servant the edge goes on to. A down-servant's edges name mostly
// sources that came down the tree, which we know; the new ones are the
// publishers in its subtree, a few. A peer that makes sources up names new
// ones without end. So a downlink may introduce newSourceBurst sources at
// once and newSourceBurst more a minute; edges of further new sources are
// dropped (a real source's items still come with their own headers). The
// uplink is not held to it: the up-servant
// decides what reaches us anyway.
const newSourceBurst = 64

// takeNewSource reports whether l may introduce one more source.
func (s *Servant) takeNewSource(l *link) bool {
	if l.kind != linkDown {
		return true
	}
	if !l.newSources.take(s.now, newSourceBurst, newSourceBurst/60.0) {
		// Not counted against the peer: an honest relay passes on the
		// made-up sources a peer of its own let through within its
		// allowance, and edges do not say who made them.
		s.counters.EdgesRefused++
		return false
	}
	return true
}

// takeRequestToken reports whether a request from l fits its rate.
func (s *Servant) takeRequestToken(l *link, search bool) bool {
	b := &l.requests
	b.searches.fill(s.now, requestBurst/10, requestRate/10)
	if search && b.searches.tokens < 1 || !b.all.take(s.now, requestBurst, requestRate) {
		return false
	}
	if search {
		b.searches.tokens--
	}
	return true
}

// requestBucket is a link's allowance of requests (takeRequestToken): of
// all, and of searches among them.
type requestBucket struct{ all, searches allowance }
