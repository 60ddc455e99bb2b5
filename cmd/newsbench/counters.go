package main

import (
	"fmt"
	"time"

	"newsdesk/newsnet"
)

// quietCounters waits until no servant is catching up and the network's
// recovery frames stopped changing for a second, and returns the summed
// counters: the baseline the run's counters are measured from.
func (c *tcpCluster) quietCounters(limit time.Duration) (newsnet.Counters, error) {
	deadline := time.Now().Add(limit)
	var last newsnet.Counters
	stable := 0
	for time.Now().Before(deadline) {
		sts := c.statuses()
		busy := false
		for _, s := range sts {
			busy = busy || s.CatchingUp
		}
		cur := sumCounters(sts)
		if !busy && cur.RecoveryFrames == last.RecoveryFrames && cur.AskedMessages == last.AskedMessages {
			stable++
		} else {
			stable = 0
		}
		last = cur
		if stable >= 5 {
			return cur, nil
		}
		time.Sleep(200 * time.Millisecond)
	}
	return last, fmt.Errorf("recovery traffic did not stop within %v of settling", limit)
}

func sumCounters(sts []newsnet.Status) newsnet.Counters {
	var t newsnet.Counters
	for _, s := range sts {
		c := s.Counters
		t.Delivered += c.Delivered
		t.Lost += c.Lost
		t.Withheld += c.Withheld
		t.BacklogDropped += c.BacklogDropped
		t.GapNeeded += c.GapNeeded
		t.GapSkipped += c.GapSkipped
		t.AskedMessages += c.AskedMessages
		t.AskedClasses += c.AskedClasses
		t.MulticastFrames += c.MulticastFrames
		t.ControlFrames += c.ControlFrames
		t.PeriodicFrames += c.PeriodicFrames
		t.RecoveryFrames += c.RecoveryFrames
		t.EdgeFrames += c.EdgeFrames
	}
	return t
}

// subCounters returns a − b for the fields sumCounters fills in.
func subCounters(a, b newsnet.Counters) newsnet.Counters {
	return newsnet.Counters{
		Delivered:       a.Delivered - b.Delivered,
		Lost:            a.Lost - b.Lost,
		Withheld:        a.Withheld - b.Withheld,
		BacklogDropped:  a.BacklogDropped - b.BacklogDropped,
		GapNeeded:       a.GapNeeded - b.GapNeeded,
		GapSkipped:      a.GapSkipped - b.GapSkipped,
		AskedMessages:   a.AskedMessages - b.AskedMessages,
		AskedClasses:    a.AskedClasses - b.AskedClasses,
		MulticastFrames: a.MulticastFrames - b.MulticastFrames,
		ControlFrames:   a.ControlFrames - b.ControlFrames,
		PeriodicFrames:  a.PeriodicFrames - b.PeriodicFrames,
		RecoveryFrames:  a.RecoveryFrames - b.RecoveryFrames,
		EdgeFrames:      a.EdgeFrames - b.EdgeFrames,
	}
}
