package sim

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"newsdesk/newsnet"
)

// The index a simulated host answers catch-up pages from gives the pages
// Archive.CatchUp gives: the same items in the same order, for random
// stores filled out of order and random requests, also after the store
// was cleared behind it.
func TestArchiveIndexAnswersAsTheStore(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	sources := []string{"b-src", "a-src", "c-src", "aa-src"}
	for round := range 200 {
		nd := &Node{Store: Archive{}}
		if round%2 == 0 {
			nd.catchUp(nil, nil, Epoch, 1) // index from the start
		}
		for range r.IntN(300) {
			m := &newsnet.Multicast{
				Source:   sources[r.IntN(len(sources))],
				Count:    uint64(r.IntN(120)), // 0 is not stored; repeats are not either
				Category: testCategories[r.IntN(len(testCategories))],
			}
			nd.store(m, Epoch.Add(time.Duration(r.IntN(100))*time.Second))
			if r.IntN(150) == 0 {
				clear(nd.Store)
			}
		}
		for range 20 {
			cats := newsnet.NewCategorySet(randomSubs(r)...)
			if r.IntN(10) == 0 {
				cats = newsnet.NewCategorySet(newsnet.AllCategories)
			}
			known := map[string]uint64{}
			for _, src := range sources {
				if r.IntN(2) == 0 {
					known[src] = uint64(r.IntN(130))
				}
			}
			since := Epoch.Add(time.Duration(r.IntN(110)) * time.Second)
			limit := 1 + r.IntN(400)
			want := nd.Store.CatchUp(cats, known, since, limit)
			got := nd.catchUp(cats, known, since, limit)
			if !slices.Equal(got, want) {
				t.Fatalf("round %d: index answered %s, store %s", round, pageOf(got), pageOf(want))
			}
		}
	}
}

func pageOf(msgs []*newsnet.Multicast) string {
	var s []string
	for _, m := range msgs {
		s = append(s, fmt.Sprintf("%s#%d", m.Source, m.Count))
	}
	return fmt.Sprint(s)
}
