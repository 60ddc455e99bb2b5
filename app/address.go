package app

import (
	"time"

	"errors"
	"newsdesk/newsnet"
)

// Moving between networks. A laptop goes from the office to home to the
// VPN, and the address it advertises (its servant ID) goes with the
// network it left. A servant listening on a wildcard address without an
// address set to advertise works its address out from the route toward
// its seeds (localAddress); this watch works it out again every
// addressCheckEvery and whenever the servant loses its uplink, and when it
// changed, restarts the servant under the new one. Everything that makes a
// restart lossless carries over: the per-source counts, the history of its
// own items, the outbox and the subscriptions are in the store, and the
// installation (the Source of its items) stays the same; the servant
// catches up from when it was last attached, and the store drops what it
// already holds. The up-servant it joins dials it back at the new address.

// addressCheckEvery is how often the advertised address is worked out
// again while the servant stays attached.
const addressCheckEvery = 30 * time.Second

// AddressChange is the last change of the advertised address.
type AddressChange struct {
	From, To string
	At       time.Time
}

// checkAddress restarts the servant under a new advertised address when
// the one it would work out now differs from the one it runs with.
func (a *App) checkAddress() {
	a.mu.Lock()
	n := a.node
	closed := a.closed
	a.mu.Unlock()
	if n == nil || closed {
		return
	}
	seeds, err := a.store.Seeds()
	if err != nil {
		return
	}
	_, advertise := a.addresses(seeds)
	from := string(n.Addr())
	if advertise == "" || advertise == from {
		return // an address given by the user, or unchanged
	}
	if _, err := newsnet.ParseServantID(advertise); err != nil {
		return
	}
	if !a.addrRestart.CompareAndSwap(false, true) {
		return // the restart for the last change is still running
	}
	a.log.Warn("address changed from "+from+" to "+advertise+": restarting the servant under the new one",
		"from", from, "to", advertise)
	a.addrChange.Store(&AddressChange{From: from, To: advertise, At: a.now()})
	// The restart waits for the goroutines that store deliveries, and so
	// runs off the monitor's goroutine.
	go func() {
		defer a.addrRestart.Store(false)
		if err := a.restart(); err != nil {
			a.log.Error("restarting the servant under its new address failed", "err", err)
		}
	}()
}

// CheckAddress checks a servant address ("host:port") as servants dial
// it. An address it refuses gives an *AddrError.
func CheckAddress(addr string) error {
	_, err := newsnet.ParseServantID(addr)
	if ae, ok := errors.AsType[*newsnet.AddrError](err); ok {
		return &AddrError{Addr: ae.Addr, Reason: ae.Reason, err: err}
	}
	return err
}

// AddrError is an address CheckAddress refuses. Its message names the
// address and the reason; Reason is the reason alone ("missing port in
// address"), for a caller that shows the address itself.
type AddrError struct {
	Addr   string
	Reason string
	err    error
}

func (e *AddrError) Error() string { return e.err.Error() }

// Unwrap returns the error the address was refused with.
func (e *AddrError) Unwrap() error { return e.err }
