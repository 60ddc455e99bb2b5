package app

import (
	"errors"
	"net"
	"strings"

	"newsdesk/newsnet"
	"newsdesk/newsnet/node"
)

// Seeds returns the stored seed list in priority order.
func (a *App) Seeds() []string {
	s, err := a.store.Seeds()
	if err != nil {
		a.log.Warn("reading seeds failed", "err", err)
	}
	return s
}

// SetSeeds validates ("host:port", no duplicates) and stores the seed list.
// The running servant takes it at once, without a restart (a core event,
// newsnet.SetSeeds): its connector uses it from its next round, a servant
// still connecting tries it now, and one whose place the new list does not
// allow (it became the first seed, or a seed under a tree whose root is
// not a seed before it) finds its place again by the seed rules; a running
// tree is not torn down for it. Only a servant whose own address follows
// the route toward the first seed (no advertised address, a wildcard
// listen address) restarts, in the background, when that address changes.
func (a *App) SetSeeds(addrs []string) error {
	if err := a.storeSeeds(addrs); err != nil {
		return err
	}
	return a.applySeeds(addrs, true)
}

// storeSeeds stores a checked seed list.
func (a *App) storeSeeds(addrs []string) error {
	if err := CheckSeeds(addrs); err != nil {
		return err
	}
	return a.store.SetSeeds(trimSeeds(addrs))
}

// applySeeds hands a stored seed list to the running servant, if any
// (SetSeeds). A servant whose advertised address would be another with
// this list restarts instead: its ID is its address. background runs such
// a restart on a goroutine of its own (the caller may hold a lock a
// restart waits for).
func (a *App) applySeeds(addrs []string, background bool) error {
	n := a.currentNode()
	if n == nil {
		return nil // used when the servant starts
	}
	addrs = trimSeeds(addrs)
	if !a.ownAddressFollows(n.Addr(), addrs) {
		seeds := make([]newsnet.ServantID, len(addrs))
		for i, s := range addrs {
			seeds[i] = newsnet.ServantID(s)
		}
		err := n.SetSeeds(seeds)
		if errors.Is(err, node.ErrClosed) {
			return nil // stopped meanwhile: the next start reads the stored list
		}
		return err
	}
	a.log.Info("the servant's address follows the new seeds; restarting it")
	if !background {
		return a.restart()
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		return nil
	}
	a.bg.Add(1)
	go func() {
		defer a.bg.Done()
		if err := a.restart(); err != nil {
			a.log.Error("restarting with the new seeds failed", "err", err)
		}
	}()
	return nil
}

// ownAddressFollows reports whether the servant running as id would get
// another address from nodeConfig with the seed list seeds: only one
// without an advertised address on a wildcard listen address, whose host
// is guessed from the route toward the seeds (localAddress), can.
func (a *App) ownAddressFollows(id newsnet.ServantID, seeds []string) bool {
	_, advertise := a.addresses(seeds)
	if advertise == "" || newsnet.ServantID(advertise) == id {
		return false
	}
	host, _, err := net.SplitHostPort(advertise)
	cur, _, err2 := net.SplitHostPort(string(id))
	return err == nil && err2 == nil && host != cur
}

func trimSeeds(addrs []string) []string {
	trimmed := make([]string, len(addrs))
	for i, s := range addrs {
		trimmed[i] = strings.TrimSpace(s)
	}
	return trimmed
}
