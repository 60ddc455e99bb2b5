package newsnet_test

import (
	"cmp"
	"fmt"
	"slices"
	"testing"
	"time"

	"newsdesk/newsnet"
)

// Requests within budget (requests.go, pages.go, reach_budget.go,
// conduct.go): what one member with a modified servant can make its
// neighbour hold stays bounded, and honest requesters still get every
// answer.

// testArchive is a store for the servant under test.
type testArchive map[string][]*newsnet.Multicast // by source, count-1

func (a testArchive) Lookup(source string, count uint64) *newsnet.Multicast {
	ms := a[source]
	if count == 0 || count > uint64(len(ms)) {
		return nil
	}
	return ms[count-1]
}

func (a testArchive) CatchUp(cats newsnet.CategorySet, known map[string]uint64, since time.Time, limit int) []*newsnet.Multicast {
	var out []*newsnet.Multicast
	for src, ms := range a {
		for _, m := range ms {
			if next, ok := known[src]; cats.Matches(m.Category) && (!ok || m.Count >= next) {
				out = append(out, m)
			}
		}
	}
	slices.SortFunc(out, func(x, y *newsnet.Multicast) int {
		return cmp.Or(cmp.Compare(x.Source, y.Source), cmp.Compare(x.Count, y.Count))
	})
	return out[:min(len(out), limit)]
}

// fill stores n items of size bytes from source.
func (a testArchive) fill(source string, n, size int) {
	for k := range n {
		var id [16]byte
		copy(id[:], fmt.Sprintf("%s-%d", source, k))
		a[source] = append(a[source], &newsnet.Multicast{ID: id, Category: "news", Source: source, Count: uint64(k + 1), Payload: make([]byte, size)})
	}
}

// floodHarness is a vertex with an archive and one down-servant, the
// member under test, whose link the test drives by hand: what the vertex
// sends it is written only when the test says so (a peer that reads
// slowly, or not at all).
type floodHarness struct {
	t      *testing.T
	s      *newsnet.Servant
	now    time.Time
	member newsnet.ServantID
	link   newsnet.LinkID
	queued int                // bytes sent on link and not reported written
	got    []newsnet.Message  // frames sent on link
	reads  []newsnet.ReadPage // catch-up pages the host was asked to read
	closed bool
}

func newFloodHarness(t *testing.T, arch testArchive) *floodHarness {
	return newFloodHarnessWith(t, arch, nil)
}

func newFloodHarnessWith(t *testing.T, arch testArchive, set func(*newsnet.Config)) *floodHarness {
	h := newHarnessWith(t, "10.0.0.1:7400", func(c *newsnet.Config) {
		c.Archive = arch
		if set != nil {
			set(c)
		}
	}, "10.0.0.1:7400")
	h.step(newsnet.Start{})
	h.step(newsnet.Subscribe{Category: newsnet.AllCategories})
	f := &floodHarness{t: t, s: h.s, now: h.now, member: "10.0.9.9:7400", link: 900}
	f.step(newsnet.LinkUp{Link: f.link, Inbound: true})
	f.step(newsnet.Received{Link: f.link, Msg: &newsnet.JoinRequest{From: f.member}})
	if st := f.s.Status(); len(st.Leaves)+len(st.Downs) != 1 {
		t.Fatalf("member not attached: %+v", st)
	}
	return f
}

// step feeds ev; frames on other links are written at once.
func (f *floodHarness) step(ev newsnet.Event) {
	for _, a := range f.s.Step(ev) {
		switch a := a.(type) {
		case newsnet.Send:
			if a.Link == f.link {
				f.queued += newsnet.SizeOf(a.Msg)
				f.got = append(f.got, a.Msg)
				continue
			}
			f.step(newsnet.Written{Link: a.Link, Bytes: newsnet.SizeOf(a.Msg)})
		case newsnet.Close:
			if a.Link == f.link {
				f.closed = true
			}
		case newsnet.ReadPage:
			f.reads = append(f.reads, a)
		}
	}
}

// ask sends m from the member.
func (f *floodHarness) ask(m newsnet.Message) { f.step(newsnet.Received{Link: f.link, Msg: m}) }

// read has the member read everything queued, again and again, until the
// vertex sends nothing more; pages are read from arch at once.
func (f *floodHarness) read(arch testArchive) {
	for f.queued > 0 || len(f.reads) > 0 {
		if f.queued > 0 {
			b := f.queued
			f.queued = 0
			f.step(newsnet.Written{Link: f.link, Bytes: b})
		}
		for len(f.reads) > 0 {
			r := f.reads[0]
			f.reads = f.reads[1:]
			f.step(newsnet.PageRead{Req: r.Req, Msgs: arch.CatchUp(r.Categories, r.Known, r.Since, r.Limit)})
		}
	}
}

func (f *floodHarness) memberLink() newsnet.LinkStatus {
	for _, l := range f.s.Status().Links {
		if l.Peer == f.member {
			return l
		}
	}
	f.t.Fatalf("no link to %s", f.member)
	return newsnet.LinkStatus{}
}

func (f *floodHarness) answers() (items int) {
	for _, m := range f.got {
		if r, ok := m.(*newsnet.Recovered); ok && r.Msg != nil {
			items++
		}
	}
	return items
}

// A member that asks for 512 items of 60 KB of many sources and never
// reads: what the vertex queues for it stays within the link's buffer and
// its answer budget, and its requests beyond the parking bounds are
// refused. Requests that pretend to be passed on for others (their trail
// does not end with the member) close its link and have its joins refused
// for a while.
func TestRepairFloodBounded(t *testing.T) {
	arch := testArchive{}
	for i := range 40 {
		arch.fill(fmt.Sprintf("src-%02d", i), 512, 60<<10)
	}
	f := newFloodHarness(t, arch)
	cfg := newsnet.DefaultConfig("")
	for round := 0; round < 10 && !f.closed; round++ {
		for i := range 40 {
			f.ask(&newsnet.Recover{Source: fmt.Sprintf("src-%02d", i), Counts: rangeCounts(1, 512), Trail: []newsnet.ServantID{f.member}})
			if f.closed {
				break
			}
			l := f.memberLink()
			if l.Queued > cfg.LinkBuffer+newsnet.MaxFrameBytes {
				t.Fatalf("%d bytes queued in the host for a member that reads nothing", l.Queued)
			}
			if l.Parked > 16 {
				t.Fatalf("%d requests parked for one requester", l.Parked)
			}
		}
		f.now = f.now.Add(100 * time.Millisecond)
		f.step(newsnet.Tick{Now: f.now})
	}
	st := f.s.Status()
	if st.Counters.RequestsRefused == 0 {
		t.Fatalf("nothing refused: %+v", st.Counters)
	}
	for i := 0; i < 40 && !f.closed; i++ {
		f.ask(&newsnet.Recover{Source: "src-00", Counts: []uint64{1}, Trail: []newsnet.ServantID{"10.0.7.7:7400"}})
	}
	st = f.s.Status()
	if st.Misconduct.Counts["requests"] == 0 || !f.closed || !slices.Contains(st.Misconduct.Banned, f.member) {
		t.Fatalf("flooding member not closed and banned: closed %v, %+v", f.closed, st.Misconduct)
	}
	// Its rejoin is refused while the ban lasts.
	f.link++
	f.closed = false
	f.step(newsnet.LinkUp{Link: f.link, Inbound: true})
	f.ask(&newsnet.JoinRequest{From: f.member})
	if !f.closed {
		t.Fatal("banned member rejoined")
	}
}

// An honest requester whose answers exceed the budget gets them all: the
// requests beyond it wait, and are served as the answers drain.
func TestRepairBeyondBudgetAllAnswered(t *testing.T) {
	arch := testArchive{}
	sources := []string{"src-a", "src-b", "src-c", "src-d"}
	for _, src := range sources {
		arch.fill(src, 512, 20<<10)
	}
	f := newFloodHarness(t, arch)
	for _, src := range sources {
		f.ask(&newsnet.Recover{Source: src, Counts: rangeCounts(1, 512), Trail: []newsnet.ServantID{f.member}})
	}
	if l := f.memberLink(); l.Parked == 0 {
		t.Fatalf("no request waited for its answers: %+v", l)
	}
	f.read(arch)
	if n := f.answers(); n != 4*512 {
		t.Fatalf("%d items answered, want %d", n, 4*512)
	}
	if st := f.s.Status(); st.Counters.RequestsRefused != 0 || len(st.Misconduct.Counts) != 0 {
		t.Fatalf("honest requester refused: %+v %+v", st.Counters, st.Misconduct)
	}
}

// Catch-up pages are read off the loop, one per link at a time: fifty
// requests a second from one member start one read, the next starts only
// once that page is out, and a repeated request replaces the one waiting.
func TestCatchUpFloodOnePageAtATime(t *testing.T) {
	arch := testArchive{}
	arch.fill("src-a", 2000, 1<<10)
	f := newFloodHarness(t, arch)
	for range 50 {
		f.ask(&newsnet.CatchUp{Categories: newsnet.NewCategorySet("news"), Trail: []newsnet.ServantID{f.member}})
	}
	if len(f.reads) != 1 {
		t.Fatalf("%d pages being read for one member, want 1", len(f.reads))
	}
	if l := f.memberLink(); l.Parked != 1 {
		t.Fatalf("%d requests waiting, want the latest only", l.Parked)
	}
	if st := f.s.Status(); st.Counters.RequestsRefused != 0 {
		t.Fatalf("repeats refused rather than replaced: %+v", st.Counters)
	}
	f.read(arch)
	if st := f.s.Status(); st.Counters.PagesRead != 2 {
		t.Fatalf("%d pages read, want 2 (the first and the one that waited)", st.Counters.PagesRead)
	}
	// An honest catch-up of 2,000 items, page by page, completes.
	f.got = nil
	known := map[string]uint64{}
	for pages := 0; ; pages++ {
		if pages > 20 {
			t.Fatal("catch-up does not end")
		}
		var ks []newsnet.SourceCount
		for src, next := range known {
			ks = append(ks, newsnet.SourceCount{Source: src, Next: next})
		}
		f.ask(&newsnet.CatchUp{Categories: newsnet.NewCategorySet("news"), Known: ks, Trail: []newsnet.ServantID{f.member}})
		f.read(arch)
		done, _ := f.got[len(f.got)-1].(*newsnet.CatchUpDone)
		if done == nil {
			t.Fatalf("page ended with %T", f.got[len(f.got)-1])
		}
		for _, n := range done.Next {
			known[n.Source] = n.Next
		}
		if !done.More {
			break
		}
	}
	if n := f.answers(); n != 2000 {
		t.Fatalf("catch-up brought %d items, want 2000", n)
	}
}

// Reach reports beyond an honest rate are dropped and count against the
// sender; identity lists beyond the link's budget lose their entries but
// not their counts.
func TestReachReportFloodBounded(t *testing.T) {
	f := newFloodHarness(t, testArchive{})
	blob := make([]byte, newsnet.MaxIdentityBytes)
	list := make([][]byte, newsnet.MaxReachIdentities)
	for i := range list {
		b := slices.Clone(blob)
		b[0], b[1] = byte(i>>8), byte(i)
		list[i] = b
	}
	for i := 0; !f.closed && i < 200; i++ {
		var items []newsnet.ItemReach
		for k := range 16 {
			var id [16]byte
			id[0], id[1] = byte(i), byte(k)
			items = append(items, newsnet.ItemReach{ID: id, Delivered: 1, Pending: list})
		}
		f.ask(&newsnet.ReachReport{Sources: []newsnet.SourceReach{{Source: "pub", Category: "news", Items: items}}})
		f.now = f.now.Add(50 * time.Millisecond)
		f.step(newsnet.Tick{Now: f.now})
	}
	st := f.s.Status()
	if st.Counters.ReportsRefused == 0 || st.Counters.ReachListsDropped == 0 {
		t.Fatalf("nothing refused: %+v", st.Counters)
	}
	if !f.closed {
		t.Fatalf("a member sending reports 20 times a second is still linked: %+v", st.Misconduct)
	}
}

// Edges of made-up sources: a downlink introduces at most a burst of new
// sources and a steady trickle after; beyond that its edges are dropped.
func TestEdgeFloodOfNewSourcesBounded(t *testing.T) {
	f := newFloodHarness(t, testArchive{})
	for i := range 3000 {
		f.ask(&newsnet.LatestHeader{Source: fmt.Sprintf("fake-%04d", i), Category: "news", Count: 65536})
	}
	if st := f.s.Status(); st.Counters.EdgesRefused != 3000-64 {
		t.Fatalf("%d of 3,000 made-up sources refused, want all but 64", st.Counters.EdgesRefused)
	}
}

// Identity and acknowledgement blobs that do not verify are dropped at the
// first servant they reach, and count against the peer that sent them.
func TestUnverifiedReachBlobsDropped(t *testing.T) {
	f := newFloodHarnessWith(t, testArchive{}, func(c *newsnet.Config) {
		c.VerifyReachBlob = func(_ [16]byte, b []byte, _ bool) bool { return string(b[:2]) == "ok" }
	})
	var id [16]byte
	id[0] = 1
	f.ask(&newsnet.ReachReport{Sources: []newsnet.SourceReach{{Source: "pub", Category: "news", Items: []newsnet.ItemReach{
		{ID: id, Delivered: 3, Acknowledged: 2, Acks: [][]byte{[]byte("aa-junk"), []byte("ok-real")}, Pending: [][]byte{[]byte("ok-reader")}},
	}}}})
	st := f.s.Status()
	if st.Counters.ReachBlobsRefused != 1 || st.Misconduct.Counts["reach"] != 1 {
		t.Fatalf("junk acknowledgement: refused %d, misconduct %+v", st.Counters.ReachBlobsRefused, st.Misconduct)
	}
}
