package node

import (
	"context"
	"fmt"
	"testing"
	"time"

	"newsdesk/newsnet"
)

// The second opinion over TCP: a member asks the seed that is not its
// up-servant how far its streams have got, again and again, and an honest
// up-servant that passes everything on is never taken for a silent one.
func TestSecondOpinionOverTCP(t *testing.T) {
	log := newTestLog(t)
	core := func(seeds ...newsnet.ServantID) newsnet.Config {
		c := fastCore(seeds...)
		c.OpinionInterval = 2 * c.JoinTimeout
		return c
	}
	a := startNode(t, Config{Protocol: core(), Logger: log})
	b := startNode(t, Config{Protocol: core(a.Addr()), Logger: log})
	seeds := []newsnet.ServantID{a.Addr(), b.Addr()}
	for _, n := range []*Node{a, b} {
		if err := n.SetSeeds(seeds); err != nil {
			t.Fatal(err)
		}
	}
	var got deliveries
	c := startNode(t, Config{Protocol: core(seeds...), Logger: log, OnDeliver: got.add})
	if err := c.Subscribe("it"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "the member attached", func() error {
		if st := c.Status(); st.Up == "" {
			return fmt.Errorf("role %s", st.Role)
		}
		return nil
	})
	var ids [][16]byte
	for range 5 {
		m := newMsg("it")
		if _, err := a.Publish(context.Background(), m); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, m.ID)
	}
	waitFor(t, 10*time.Second, "the items at the member", func() error {
		for _, id := range ids {
			if got.count(id) != 1 {
				return fmt.Errorf("item %x delivered %d times", id[:4], got.count(id))
			}
		}
		return nil
	})
	up := c.Status().Up
	waitFor(t, 30*time.Second, "three second opinions", func() error {
		if st := c.Status(); st.Counters.Opinions < 3 {
			return fmt.Errorf("%d opinions", st.Counters.Opinions)
		}
		return nil
	})
	st := c.Status()
	if st.Counters.SilentUps != 0 || st.Up != up || st.Misconduct.Counts["silent"] != 0 {
		t.Errorf("the honest up-servant %s was taken for a silent one: up now %q, %+v", up, st.Up, st.Misconduct)
	}
}
