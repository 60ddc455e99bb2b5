package node

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"newsdesk/newsnet"
)

// TestReachOverTCP: four servants subscribed to an item's category below a
// publishing vertex on loopback; one reads it, one acknowledges it as
// must-read, one is told it is must-read and does nothing. The vertex's
// Reach and its last OnReach report show the exact counts and lists.
func TestReachOverTCP(t *testing.T) {
	log := newTestLog(t)
	core := func(seeds ...newsnet.ServantID) newsnet.Config {
		c := fastCore(seeds...)
		c.ReportPeriod = 200 * time.Millisecond
		return c
	}
	var mu sync.Mutex
	var last newsnet.ReachUpdated
	v := startNode(t, Config{Protocol: core(), Logger: log, OnReach: func(u newsnet.ReachUpdated) {
		mu.Lock()
		last = u
		mu.Unlock()
	}})
	var ds [4]deliveries
	var js []*Node
	for i := range ds {
		c := core(v.Addr())
		c.Subscriptions = []string{"it"}
		js = append(js, startNode(t, Config{Protocol: c, Logger: log, OnDeliver: ds[i].add}))
	}
	waitFor(t, 10*time.Second, "joiners attached", func() error {
		for _, j := range js {
			if st := j.Status(); st.Role != newsnet.RoleAttached {
				return fmt.Errorf("%s is %s", j.Addr(), st.Role)
			}
		}
		return nil
	})
	m := newMsg("it")
	if _, err := v.Publish(context.Background(), m); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "deliveries", func() error {
		for i := range ds {
			if ds[i].count(m.ID) != 1 {
				return fmt.Errorf("joiner %d delivered %d times", i, ds[i].count(m.ID))
			}
		}
		return nil
	})
	src := string(v.Addr())
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(js[0].Read(m.ID, src))
	must(js[1].MustRead(m.ID, src, []byte("bo")))
	must(js[1].Acknowledge(m.ID, src, []byte("bo signed")))
	must(js[2].MustRead(m.ID, src, []byte("cy")))
	if err := js[3].Acknowledge(m.ID, src, nil); err == nil {
		t.Error("an empty acknowledgement was taken")
	}
	want := "{4 4 2 1 [cy] [bo signed]}"
	show := func(r newsnet.ReachTotals) string {
		return fmt.Sprintf("{%d %d %d %d %s %s}", r.Subscribers, r.Delivered, r.Read, r.Acknowledged, r.Pending, r.Acks)
	}
	waitFor(t, 10*time.Second, "reach at the publisher", func() error {
		r, ok := v.Reach(m.ID)
		mu.Lock()
		u := last
		mu.Unlock()
		switch {
		case !ok:
			return fmt.Errorf("not tracked")
		case show(r) != want:
			return fmt.Errorf("Reach %s, want %s", show(r), want)
		case u.ID != m.ID || show(u.ReachTotals) != want:
			return fmt.Errorf("last OnReach %x %s, want %s", u.ID[:4], show(u.ReachTotals), want)
		}
		return nil
	})
}
