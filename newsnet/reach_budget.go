package newsnet

import "time"

// Reach reports within budget. A report replaces what its link said
// before, so a peer gains nothing by sending often, but each report costs
// the receiver a merge, and each identity blob in it is held until the item
// is forgotten: a modified peer sending long lists took its parent from
// 15 MB to 636 MB in 45 s. So per link:
//   - reports are taken at the rate an honest peer sends them (one per
//     ReportPeriod), with a burst of reachBurst: beyond, a report is
//     dropped and counts against the peer (conduct.go);
//   - the Pending and Acks blobs held from the link are bounded in bytes
//     (reachBlobBudget): beyond, an entry keeps its counts and loses its
//     lists (as beyond Config.ReachIdentities);
//   - the items the link's reports may newly have tracked are bounded per
//     ReportPeriod (newItemsPerPeriod): an item tracked only because a report
//     named it may push a real one out of tracking (Config.ReachItems), so
//     made-up item IDs must not come faster than a newsroom publishes.
// Items of the servant's own are never tracked from a report: it tracks
// them from the moment it publishes them.

const (
	reachBurst      = 8
	reachBlobBudget = 4 << 20
)

// newItemsPerPeriod is how many items one link's reports may newly have
// tracked per ReportPeriod: a quarter of what the servant tracks. A
// publisher tracks no item of its own from a report: it tracks its own
// from the moment it publishes them.
func (r *reachReports) newItemsPerPeriod() int { return max(1, r.cfg.ReachItems/4) }

// reachBudget is a link's account of its reports (on reachLink).
type reachBudget struct {
	reports   allowance // reports that may come
	blobBytes int       // bytes of the Pending and Acks blobs held from the link
	newItems  int       // items newly tracked from its reports in the current period
	periodAt  time.Time // when the current period began
}

// takeReport reports whether a report from l fits its rate.
func (r *reachReports) takeReport(h reachHost, l *link, rl *reachLink) bool {
	rate := 0.0
	if r.cfg.ReportPeriod > 0 {
		rate = 1 / r.cfg.ReportPeriod.Seconds()
	}
	if !rl.budget.reports.take(h.clock(), reachBurst, rate) {
		r.counters.ReportsRefused++
		h.misbehaved(l, reasonReach, 1)
		return false
	}
	return true
}

// mayTrack reports whether a report from rl's link may have one more item
// tracked that the servant does not track yet.
func (r *reachReports) mayTrack(now time.Time, rl *reachLink) bool {
	b := &rl.budget
	if now.Sub(b.periodAt) >= r.cfg.ReportPeriod {
		b.newItems, b.periodAt = 0, now
	}
	if b.newItems >= r.newItemsPerPeriod() {
		r.counters.ReportsRefused++
		return false
	}
	b.newItems++
	return true
}

// fitBlobs keeps the blobs of it, replacing prev from the same link, within
// the link's budget, or drops its lists (its counts stay).
func (r *reachReports) fitBlobs(rl *reachLink, prev *ItemReach, it *ItemReach) {
	b := &rl.budget
	if prev != nil {
		b.blobBytes -= blobBytes(prev)
	}
	n := blobBytes(it)
	if b.blobBytes+n > reachBlobBudget {
		it.Pending, it.Acks = nil, nil
		r.counters.ReachListsDropped++
		n = 0
	}
	b.blobBytes += n
}

func blobBytes(it *ItemReach) int {
	n := 0
	for _, b := range it.Pending {
		n += len(b)
	}
	for _, b := range it.Acks {
		n += len(b)
	}
	return n
}

// checkBlobs drops the blobs of it that do not verify (Config.
// VerifyReachBlob) and counts the report against l's peer when any did
// not.
func (r *reachReports) checkBlobs(h reachHost, l *link, it *ItemReach) {
	if r.cfg.VerifyReachBlob == nil || len(it.Pending)+len(it.Acks) == 0 {
		return
	}
	bad := 0
	keep := func(bs [][]byte, ack bool) [][]byte {
		out := bs[:0:0]
		for _, b := range bs {
			if r.cfg.VerifyReachBlob(it.ID, b, ack) {
				out = append(out, b)
			} else {
				bad++
			}
		}
		return out
	}
	it.Pending, it.Acks = keep(it.Pending, false), keep(it.Acks, true)
	if bad > 0 {
		r.counters.ReachBlobsRefused += uint64(bad)
		h.misbehaved(l, reasonReach, 1)
	}
}
