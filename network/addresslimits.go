package network

import (
	"net"
	"net/netip"
	"sync"
	"time"
)

// What Serve bounds per address (issue 32): the connections of one
// address still waiting for their request (addressLimit), and the log
// lines of its refusals (lineLimit), both keyed by addressKey.

// addressKey is what the per-address limit counts a peer under: its IP
// address, or for IPv6 its /64 (one host commonly holds a whole /64).
func addressKey(a net.Addr) string {
	ap, err := netip.ParseAddrPort(a.String())
	if err != nil {
		return a.String()
	}
	ip := ap.Addr().Unmap()
	if ip.Is6() {
		p, _ := ip.Prefix(64)
		return p.String()
	}
	return ip.String()
}

// addressLimit counts connections per address key, up to max each. Safe
// for concurrent use.
type addressLimit struct {
	mu  sync.Mutex
	max int
	n   map[string]int
}

func newAddressLimit(max int) *addressLimit { return &addressLimit{max: max, n: map[string]int{}} }

// acquire counts one more connection of key, unless key has max already.
func (l *addressLimit) acquire(key string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.n[key] >= l.max {
		return false
	}
	l.n[key]++
	return true
}

// release uncounts one connection of key.
func (l *addressLimit) release(key string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.n[key]--; l.n[key] <= 0 {
		delete(l.n, key)
	}
}

// count is how many connections of key are counted now.
func (l *addressLimit) count(key string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.n[key]
}

// Bounds of the log of refused redemptions: a stream of bad requests
// from one address writes at most one line a refusalLogEvery, saying how
// many were not logged since; at most refusalLogAddrs addresses are
// remembered (a refusal from a further one is not logged).
const (
	refusalLogEvery = time.Minute
	refusalLogAddrs = 4096
)

// lineLimit allows a log line per key per period. Safe for concurrent
// use.
type lineLimit struct {
	every time.Duration
	max   int

	mu   sync.Mutex
	last map[string]*keyLines
}

type keyLines struct {
	logged time.Time // when its last line was written
	quiet  int       // lines not written since
}

func newLineLimit(every time.Duration, max int) *lineLimit {
	return &lineLimit{every: every, max: max, last: map[string]*keyLines{}}
}

// allow reports whether key may write a line at now, and how many of its
// lines were not written since its last one.
func (l *lineLimit) allow(key string, now time.Time) (bool, int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	k := l.last[key]
	if k == nil {
		if len(l.last) >= l.max {
			for key, k := range l.last {
				if now.Sub(k.logged) >= l.every {
					delete(l.last, key)
				}
			}
			if len(l.last) >= l.max {
				return false, 0
			}
		}
		l.last[key] = &keyLines{logged: now}
		return true, 0
	}
	if now.Sub(k.logged) < l.every {
		k.quiet++
		return false, 0
	}
	quiet := k.quiet
	k.logged, k.quiet = now, 0
	return true, quiet
}
