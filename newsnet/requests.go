package newsnet

import (
	"slices"
	"time"
)

// Requests from peers within budget. A retransmission request or a
// catch-up page costs the servant that answers it what it must hold until
// the answers are written: honest requesters keep that small (a recovery
// window, one page at a time), but a modified peer can ask for 4,096 counts
// of 60 KB items ten times a second and read slowly. So the answers a busy
// link withholds count their bytes, waiting whole within its budget
// (answerBudget) and as keys beyond it (linkFlow.sendAnswer); once they
// reach the budget, the link's further requests are parked, not served,
// and served in order as the answers drain (serveParked). Parked requests are bounded
// too, in bytes per link and in entries per requester; a newer request
// from the same requester for the same thing is merged into the one
// waiting (a retry, or more counts of the same source), so repeats cost
// nothing. What exceeds that is refused: the requester asks again later.
// A refusal is not held against the peer: honest servants fed made-up
// edges by another ask for made-up sources too. What is held against it
// (conduct.go) is a request whose trail does not end with the peer, which
// no honest servant sends.
//
// linkRequests is that state of one link (link.requests): its parked
// requests, whether a page is being read for it, and its allowances of
// requests and new sources. It decides what is served now, what waits and
// what is refused, and serves through requestHost, which the servant
// implements and requests_link_test.go fakes.
type linkRequests struct {
	// parked: requests from the peer that wait for the link's answers to
	// drain, parkedBytes their size.
	parked      []parkedRequest
	parkedBytes int
	// paging: a catch-up page for the link is being read (pages.go).
	paging bool
	// all and searches: the link's allowance of requests, and of searches
	// among them (take).
	all, searches allowance
	// newSources: the sources the peer's edges may still introduce.
	newSources allowance
}

// requestHost is what answering a link's requests needs of the servant.
// *Servant implements it; requests_link_test.go fakes it.
type requestHost interface {
	clock() time.Time
	config() *Config
	tally() *Counters
	// holds reports whether l is still one of our links: serving a
	// request may close it.
	holds(l *link) bool
	// pagesReading is how many catch-up pages are being read (pages.go).
	pagesReading() int
	misbehaved(l *link, reason string, points float64)
	// answer answers a request its link's budgets let through: a
	// *Recover (relay.go) or a *CatchUp page (pages.go).
	answer(l *link, m Message)
}

var _ requestHost = (*Servant)(nil)

// parkedRequest is a request from a link that waits for the link's answers
// to drain: a *Recover or a *CatchUp.
type parkedRequest struct {
	msg  Message
	size int
}

// parkedBudget bounds the bytes of a link's parked requests. A request is
// small (a Recover of 4,096 counts takes about 32 KB), so this holds
// dozens of relayed requesters' worth.
func parkedBudget(cfg *Config) int { return cfg.LinkBuffer / 2 }

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

// take serves request m from l now, or parks it behind l's answers.
func (q *linkRequests) take(h requestHost, l *link, m Message) {
	trail := requestTrail(m)
	if l.kind == linkDown && (len(trail) == 0 || trail[len(trail)-1] != l.peer) {
		// A down-servant names itself last in every request it passes on.
		h.misbehaved(l, reasonRequests, 1)
		return
	}
	search := false
	if r, ok := m.(*Recover); ok {
		search = r.Search
	}
	if !q.takeToken(h.clock(), search) {
		h.tally().RequestsRefused++
		return
	}
	if len(q.parked) == 0 && !q.mustWait(h, l, m) {
		q.serve(h, l, m)
		return
	}
	q.park(h, m)
}

// mustWait reports whether a request from l has to wait: l's answers
// reached their budget, or, for a catch-up page, one is being read for l
// already or the reads in flight reached their bound (pages.go).
func (q *linkRequests) mustWait(h requestHost, l *link, m Message) bool {
	if l.flow.answersFull(h.config()) {
		return true
	}
	if _, ok := m.(*CatchUp); ok {
		return q.paging || h.pagesReading() >= maxPageReads
	}
	return false
}

func (q *linkRequests) serve(h requestHost, l *link, m Message) { h.answer(l, m) }

// park queues m behind the link's answers: replacing a waiting request of
// the same requester for the same thing, within the link's budgets, or
// not at all.
func (q *linkRequests) park(h requestHost, m Message) {
	h.tally().RequestsWaited++
	size := SizeOf(m)
	requester, mine := 0, -1
	for i, p := range q.parked {
		if !sameRequester(p.msg, m) {
			continue
		}
		requester++
		if sameRequest(p.msg, m) {
			mine = i
		}
	}
	if mine >= 0 {
		m = merged(q.parked[mine].msg, m)
		size = SizeOf(m)
		q.parkedBytes += size - q.parked[mine].size
		q.parked[mine] = parkedRequest{msg: m, size: size}
		return
	}
	if requester >= parkedPerRequester || q.parkedBytes+size > parkedBudget(h.config()) {
		h.tally().RequestsRefused++
		return
	}
	q.parkedBytes += size
	q.parked = append(q.parked, parkedRequest{msg: m, size: size})
}

// serveParked serves l's parked requests in order while they need not
// wait and l is still ours.
func (q *linkRequests) serveParked(h requestHost, l *link) {
	for len(q.parked) > 0 && h.holds(l) {
		p := q.parked[0]
		if q.mustWait(h, l, p.msg) {
			return
		}
		q.parked[0] = parkedRequest{}
		q.parked = q.parked[1:]
		q.parkedBytes -= p.size
		q.serve(h, l, p.msg)
	}
	if len(q.parked) == 0 {
		q.parked = nil
	}
}

// takeToken reports whether a request (a search, when search) fits the
// link's rate at now.
func (q *linkRequests) takeToken(now time.Time, search bool) bool {
	q.searches.fill(now, requestBurst/10, requestRate/10)
	if search && q.searches.tokens < 1 || !q.all.take(now, requestBurst, requestRate) {
		return false
	}
	if search {
		q.searches.tokens--
	}
	return true
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
func (q *linkRequests) takeNewSource(h requestHost, l *link) bool {
	if l.kind != linkDown {
		return true
	}
	if !q.newSources.take(h.clock(), newSourceBurst, newSourceBurst/60.0) {
		// Not counted against the peer: an honest relay passes on the
		// made-up sources a peer of its own let through within its
		// allowance, and edges do not say who made them.
		h.tally().EdgesRefused++
		return false
	}
	return true
}

// What the servant lends the links' request handling (requestHost) and
// the hooks by which the rest of it reaches that handling.

func (s *Servant) pagesReading() int { return s.pages.reading() }

// answer is requestHost's: the relay answers a retransmission request, the
// page reads a catch-up page.
func (s *Servant) answer(l *link, m Message) {
	switch m := m.(type) {
	case *Recover:
		s.repairs.recover(s, l, m)
	case *CatchUp:
		s.pages.serve(s, l, m)
	}
}

// takeRequest is catchUpHost's: a request of our own catch-up that we
// answer here (catchup.go) goes through l's budget like any other.
func (s *Servant) takeRequest(l *link, m Message) { l.requests.take(s, l, m) }

// serveParked is flowHost's: l's answers drained.
func (s *Servant) serveParked(l *link) { l.requests.serveParked(s, l) }
