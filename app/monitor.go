package app

import (
	"cmp"
	"strings"
	"time"

	"newsdesk/newsnet"
)

// monitor reports status changes, persists the time of attachment and
// purges expired items, until Close.
func (a *App) monitor() {
	defer a.bg.Done()
	poll := time.NewTicker(statusPoll)
	defer poll.Stop()
	purge := time.NewTicker(purgeEvery)
	defer purge.Stop()
	expiry := time.NewTicker(expirySweepEvery)
	defer expiry.Stop()
	quota := time.NewTicker(quotaCheckEvery)
	defer quota.Stop()
	var (
		last      statusKey
		lastSaved time.Time
		addrAt    = time.Now() // when the address was last worked out
		wasAlone  bool
		aloneAt   time.Time // when alone was last worked out
		// limitedSaved: when the counts of rate-limited sources were
		// last offered to the store (saved only when they changed).
		limitedSaved time.Time
	)
	a.purge()
	for {
		select {
		case <-a.stop:
			return
		case <-purge.C:
			a.purge()
		case <-a.purgeNow:
			a.purge()
		case <-quota.C:
			a.enforceQuota()
		case <-expiry.C:
			a.hideExpired()
		case now := <-poll.C:
			n := a.currentNode()
			if n == nil {
				continue
			}
			st := n.Status()
			lostUplink := last.role == newsnet.RoleAttached && st.Role == newsnet.RoleConnecting
			changed := false
			if k := keyOf(st); k != last {
				last, changed = k, true
				a.events.emit(Event{Kind: StatusChanged})
			}
			// Alone reads the seed lists: looked at when the tree
			// changed, else every aloneCheckEvery (a seed list can
			// change without it).
			if (st.Role == newsnet.RoleVertex || wasAlone) && (changed || now.Sub(aloneAt) >= aloneCheckEvery) {
				aloneAt = now
				wasAlone = a.tellAlone(a.alone(st), wasAlone)
			}
			if r := newestPeerRelease(st.Links); r != "" {
				if seen := a.newerRelease.Load(); seen == nil || *seen != r {
					a.newerRelease.Store(&r)
					a.log.Info("a newer Newsdesk (" + r + ") is in use on this network")
					a.events.emit(Event{Kind: StatusChanged})
				}
			}
			if lostUplink || now.Sub(addrAt) >= cmp.Or(a.opts.addressCheckEvery, addressCheckEvery) {
				addrAt = now
				a.checkAddress()
			}
			if now.Sub(limitedSaved) >= limitedSaveEvery {
				limitedSaved = now
				if err := a.net.SaveRateLimited(); err != nil {
					a.log.Warn("storing the counts of rate-limited sources failed", "err", err)
				}
			}
			if st.Role == newsnet.RoleAttached && now.Sub(lastSaved) >= lastAttachedEvery {
				lastSaved = now
				a.saveLastAttached(now)
			}
		}
	}
}

// statusKey is what a StatusChanged event is about.
type statusKey struct {
	role  newsnet.Role
	up    newsnet.ServantID
	downs int
	lost  uint64
	subs  string
}

func keyOf(st newsnet.Status) statusKey {
	// Join, not fmt: this runs twice a second for as long as the app does.
	return statusKey{role: st.Role, up: st.Up, downs: len(st.Downs), lost: st.Counters.Lost, subs: strings.Join(st.Subscriptions, ",")}
}

func (a *App) purge() {
	n, err := a.store.PurgeExpired()
	switch {
	case err != nil:
		a.log.Warn("purging expired items failed", "err", err)
	case n > 0:
		a.log.Info("purged expired items", "items", n)
		a.events.emit(Event{Kind: ItemsChanged})
	}
	a.enforceQuota()
}

// hideExpired hides the items whose expiry has passed (storage.HideExpired),
// when the store says one is due: a read, not a write, on most calls.
func (a *App) hideExpired() {
	at, ok, err := a.store.NextExpiry()
	if err == nil && (!ok || a.now().Before(at)) {
		return
	}
	n, err := a.store.HideExpired()
	switch {
	case err != nil:
		a.log.Warn("hiding expired items failed", "err", err)
	case n > 0:
		a.log.Info("expired items hidden", "items", n)
		a.events.emit(Event{Kind: ItemsRetracted})
	}
}
