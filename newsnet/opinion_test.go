package newsnet

// The second opinion (opinion.go) on its own, through a fake of the
// servant. sim/blackhole_test.go finds a silent relay in a whole network.

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// fakeOpinionHost is a servant attached under "up", subscribed to "news".
type fakeOpinionHost struct {
	now      time.Time
	up       *link
	self     CategorySet
	next     LinkID
	links    map[LinkID]*link
	edges    leadingEdges
	seqs     map[string]bool
	counters Counters
	events   []string // "dial t", "close t: reason", "send t Type", "misconduct t reason points"
	notes    []string
}

func newFakeOpinions(seeds ...ServantID) (*opinions, *fakeOpinionHost) {
	cfg := &Config{OpinionInterval: 10 * time.Minute, JoinTimeout: 5 * time.Second, Seeds: seeds, Source: "me",
		Rand: rand.New(rand.NewPCG(5, 6))}
	h := &fakeOpinionHost{now: time.Unix(1_700_000_000, 0), up: &link{id: 1, kind: linkUp, peer: "up"},
		self: NewCategorySet("news"), links: map[LinkID]*link{}, edges: map[edgeKey]*LatestHeader{}, seqs: map[string]bool{}}
	o := newOpinions(cfg, "me", h)
	return &o, h
}

func (h *fakeOpinionHost) clock() time.Time { return h.now }
func (h *fakeOpinionHost) note(f string, args ...any) {
	h.notes = append(h.notes, fmt.Sprintf(f, args...))
}
func (h *fakeOpinionHost) tally() *Counters              { return &h.counters }
func (h *fakeOpinionHost) linkByID(id LinkID) *link      { return h.links[id] }
func (h *fakeOpinionHost) upLink() *link                 { return h.up }
func (h *fakeOpinionHost) subscriptions() CategorySet    { return h.self }
func (h *fakeOpinionHost) sequencing(source string) bool { return h.seqs[source] }
func (h *fakeOpinionHost) latestEdges() leadingEdges     { return h.edges }
func (h *fakeOpinionHost) send(l *link, m Message) {
	h.events = append(h.events, fmt.Sprintf("send %s %T", l.peer, m))
}
func (h *fakeOpinionHost) closeLink(l *link, reason string) {
	delete(h.links, l.id)
	h.events = append(h.events, fmt.Sprintf("close %s: %s", l.peer, reason))
}
func (h *fakeOpinionHost) dial(t ServantID, kind linkKind) *link {
	h.next++
	l := &link{id: 100 + h.next, kind: kind, peer: t, opened: h.now}
	h.links[l.id] = l
	h.events = append(h.events, "dial "+string(t))
	return l
}
func (h *fakeOpinionHost) misbehaved(l *link, reason string, points float64) {
	h.events = append(h.events, fmt.Sprintf("misconduct %s %s %v", l.peer, reason, points))
}

func (h *fakeOpinionHost) took() string {
	s := strings.Join(h.events, ", ")
	h.events = nil
	return s
}

// An attached servant asks a seed other than itself and its up-servant
// every OpinionInterval ±50%, one at a time; an opinion not given within
// two join timeouts is given up.
// Reference: issue 32, part 6; opinion.go.
func TestOpinionsAskASeedNowAndThen(t *testing.T) {
	o, h := newFakeOpinions("me", "up", "s3")
	o.tick(h)
	if got := h.took(); got != "" || o.next.IsZero() {
		t.Fatalf("did %q on first attaching, next %v", got, o.next)
	}
	if wait := o.next.Sub(h.now); wait < 5*time.Minute || wait > 15*time.Minute {
		t.Fatalf("next opinion in %v", wait)
	}
	h.now = o.next
	o.tick(h)
	o.tick(h)
	if got := h.took(); got != "dial s3" || h.counters.Opinions != 1 {
		t.Fatalf("did %q (%d opinions), want one dial to s3", got, h.counters.Opinions)
	}
	h.now = h.now.Add(10 * time.Second)
	o.tick(h)
	if got := h.took(); got != "close s3: second opinion timed out" || o.asking != 0 {
		t.Fatalf("did %q, asking %d", got, o.asking)
	}
}

// Nobody is asked without another seed, without subscriptions, or while
// not attached.
func TestOpinionsNobodyToAsk(t *testing.T) {
	for name, set := range map[string]func(*opinions, *fakeOpinionHost){
		"no other seed":    func(o *opinions, h *fakeOpinionHost) { o.cfg.Seeds = []ServantID{"me", "up"} },
		"no subscriptions": func(o *opinions, h *fakeOpinionHost) { h.self = nil },
		"not attached":     func(o *opinions, h *fakeOpinionHost) { h.up.kind = linkJoining },
	} {
		o, h := newFakeOpinions("me", "up", "s3")
		o.next = h.now
		set(o, h)
		o.tick(h)
		if got := h.took(); got != "" {
			t.Errorf("%s: did %q", name, got)
		}
	}
}

// The asker sends its subscriptions, unless the seed's release gives no
// opinion; the seed answers with the heads of the matching streams from
// its edges, the furthest ones when there are too many.
func TestOpinionsQueryAndAnswer(t *testing.T) {
	o, h := newFakeOpinions("s3")
	l := &link{id: 7, kind: linkOpinion, peer: "s3", version: opinionSince - 1}
	o.asking = l.id
	o.linkUp(h, l)
	l2 := &link{id: 8, kind: linkOpinion, peer: "s3", version: opinionSince}
	o.linkUp(h, l2)
	if got := h.took(); got != "close s3: the seed's release gives no second opinion, send s3 *newsnet.StreamQuery" || o.asking != 0 {
		t.Fatalf("did %q", got)
	}
	h.edges[edgeKey{"b", "news"}] = &LatestHeader{Source: "b", Category: "news", Count: 5}
	h.edges[edgeKey{"a", "news/uk"}] = &LatestHeader{Source: "a", Category: "news/uk", Count: 9}
	h.edges[edgeKey{"a", "sport"}] = &LatestHeader{Source: "a", Category: "sport", Count: 3}
	var sent Message
	rec := &recordingOpinionHost{fakeOpinionHost: h, sent: &sent}
	o.answer(rec, &link{peer: "asker"}, &StreamQuery{Categories: NewCategorySet("news")})
	heads := sent.(*StreamHeads).Heads
	if fmt.Sprint(heads) != "[{a news/uk 9} {b news 5}]" {
		t.Fatalf("answered %v", heads)
	}
	for i := range MaxStreamHeads {
		k := edgeKey{fmt.Sprintf("s%04d", i), "news"}
		h.edges[k] = &LatestHeader{Source: k.source, Category: "news", Count: 100}
	}
	o.answer(rec, &link{peer: "asker"}, &StreamQuery{Categories: NewCategorySet("news")})
	heads = sent.(*StreamHeads).Heads
	if len(heads) != MaxStreamHeads || heads[len(heads)-1].Count != 100 {
		t.Fatalf("answered %d heads, the last %v: want the %d furthest", len(heads), heads[len(heads)-1], MaxStreamHeads)
	}
}

// recordingOpinionHost keeps the last frame sent.
type recordingOpinionHost struct {
	*fakeOpinionHost
	sent *Message
}

func (r *recordingOpinionHost) send(_ *link, m Message) { *r.sent = m }

// A stream the seed knows further is a suspect only when we subscribe to
// it, have heard of its source, and it is not our own.
func TestOpinionsTakeSuspects(t *testing.T) {
	o, h := newFakeOpinions("s3")
	h.seqs["a"] = true
	h.edges[edgeKey{"b", "news"}] = &LatestHeader{Source: "b", Category: "news", Count: 4}
	h.up.sources = map[string]arrivalStamps{"a": {any: 3, original: 2}}
	o.take(h, &link{id: 9, peer: "s3"}, &StreamHeads{Heads: []StreamHead{
		{Source: "a", Category: "news", Count: 7},  // behind: a suspect
		{Source: "b", Category: "news", Count: 4},  // as far as we are
		{Source: "c", Category: "news", Count: 2},  // never heard of
		{Source: "a", Category: "sport", Count: 9}, // not ours
		{Source: "me", Category: "news", Count: 9}, // our own
	}})
	if got := h.took(); got != "close s3: second opinion taken" || len(o.suspects) != 1 {
		t.Fatalf("did %q, suspects %v", got, o.suspects)
	}
	if p := o.suspects[edgeKey{"a", "news"}]; p.head != 7 || p.up != "up" || p.stamp != 2 || p.seed != "s3" {
		t.Fatalf("suspect %+v", p)
	}
}

// A suspect is cleared when its stream catches up or anything of its
// source comes over the uplink; one the up-servant stays silent about for
// opinionGrace makes us leave it.
func TestOpinionsJudge(t *testing.T) {
	o, h := newFakeOpinions("s3")
	h.up.sources = map[string]arrivalStamps{"a": {original: 2}, "b": {original: 5}}
	note := func() {
		o.suspects = map[edgeKey]suspect{
			{"a", "news"}: {head: 7, up: "up", stamp: 2, seed: "s3", at: h.now},
			{"b", "news"}: {head: 3, up: "up", stamp: 5, seed: "s3", at: h.now},
		}
	}
	note()
	h.edges[edgeKey{"b", "news"}] = &LatestHeader{Count: 3} // caught up
	h.up.sources["a"] = arrivalStamps{original: 3}          // it spoke
	o.judge(h)
	if len(o.suspects) != 0 {
		t.Fatalf("suspects %v left", o.suspects)
	}
	h.up.sources["a"] = arrivalStamps{original: 2}
	note()
	start := h.now
	h.now = start.Add(opinionGrace - 1)
	o.judge(h)
	if got := h.took(); got != "" || len(o.suspects) != 1 {
		t.Fatalf("did %q within the grace, suspects %v", got, o.suspects)
	}
	h.now = start.Add(opinionGrace)
	o.judge(h)
	if got := h.took(); got != fmt.Sprintf("misconduct up silent %v", conductLimit) || h.counters.SilentUps != 1 || len(o.suspects) != 0 {
		t.Fatalf("did %q, silent %d, suspects %v", got, h.counters.SilentUps, o.suspects)
	}
	note()
	h.up = &link{id: 2, kind: linkUp, peer: "other"}
	o.judge(h)
	if len(o.suspects) != 0 || h.took() != "" {
		t.Fatal("suspects of the up-servant we left kept")
	}
}
