package node

import (
	"bufio"
	"fmt"
	"testing"
	"time"

	"newsdesk/newsnet"
)

// What the request budgets cost an honest requester over TCP: a catch-up of
// 20,000 items page by page, and a repair of 20,000 counts asked at once
// (the storm after a cut), from a vertex's archive to a member that reads
// as fast as it can. Compare with the same benchmark on an earlier commit:
//
//	go test -run '^$' -bench HonestRequester -count 5 ./newsnet/node/
func BenchmarkHonestRequester(b *testing.B) {
	const items = 20000
	arch := newMemArchive()
	payload := make([]byte, 1<<10)
	for k := range items {
		m := newMsg("news")
		m.Source, m.Count, m.Payload = "src", uint64(k+1), payload
		arch.put(m)
	}
	core := fastCore()
	core.LinkTimeout = 10 * time.Second
	core.Archive = copyingArchive{arch}
	v, err := Start(b.Context(), Config{Listen: "127.0.0.1:0", Protocol: core})
	if err != nil {
		b.Fatal(err)
	}
	defer v.Close()
	if err := v.Subscribe(newsnet.AllCategories); err != nil {
		b.Fatal(err)
	}
	member := func(b *testing.B, i int) (*rawConn, *bufio.Reader, []newsnet.ServantID) {
		c := dialRaw(b, v.Addr())
		c.hello()
		id := newsnet.ServantID(fmt.Sprintf("127.0.0.1:%d", 10000+i))
		c.join(id)
		c.SetDeadline(time.Time{})
		return c, bufio.NewReaderSize(c, 1<<16), []newsnet.ServantID{id}
	}

	b.Run("catch-up", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			c, r, trail := member(b, i)
			var known []newsnet.SourceCount
			got := 0
			for more := true; more; {
				if err := newsnet.WriteFrame(c, &newsnet.CatchUp{Categories: newsnet.NewCategorySet("news"), Known: known, Trail: trail}); err != nil {
					b.Fatal(err)
				}
				for {
					m, err := newsnet.ReadFrame(r, nil)
					if err != nil {
						b.Fatal(err)
					}
					if rec, ok := m.(*newsnet.Recovered); ok && rec.Msg != nil {
						got++
					}
					if d, ok := m.(*newsnet.CatchUpDone); ok {
						known, more = d.Next, d.More
						break
					}
				}
			}
			if got != items {
				b.Fatalf("caught up %d items, want %d", got, items)
			}
			c.Close()
		}
	})
	b.Run("repair", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			c, r, trail := member(b, 1000+i)
			for lo := uint64(1); lo <= items; lo += newsnet.MaxCounts {
				counts := make([]uint64, 0, newsnet.MaxCounts)
				for k := lo; k < lo+newsnet.MaxCounts && k <= items; k++ {
					counts = append(counts, k)
				}
				if err := newsnet.WriteFrame(c, &newsnet.Recover{Source: "src", Counts: counts, Trail: trail}); err != nil {
					b.Fatal(err)
				}
			}
			for got := 0; got < items; {
				m, err := newsnet.ReadFrame(r, nil)
				if err != nil {
					b.Fatal(err)
				}
				if rec, ok := m.(*newsnet.Recovered); ok && rec.Msg != nil {
					got++
				}
			}
			c.Close()
		}
	})
}

// copyingArchive returns a fresh copy of every message it is asked for, as
// a store that decodes what it reads does: what the servant keeps of the
// answers costs memory of its own.
type copyingArchive struct{ *memArchive }

func (a copyingArchive) Lookup(source string, count uint64) *newsnet.Multicast {
	m := a.memArchive.Lookup(source, count)
	if m == nil {
		return nil
	}
	c := *m
	c.Payload = append([]byte(nil), m.Payload...)
	return &c
}

func (a copyingArchive) CatchUp(cats newsnet.CategorySet, known map[string]uint64, since time.Time, limit int) []*newsnet.Multicast {
	ms := a.memArchive.CatchUp(cats, known, since, limit)
	out := make([]*newsnet.Multicast, len(ms))
	for i, m := range ms {
		c := *m
		c.Payload = append([]byte(nil), m.Payload...)
		out[i] = &c
	}
	return out
}
