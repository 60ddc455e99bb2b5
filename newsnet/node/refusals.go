package node

import (
	"net"
	"sync"
	"time"
)

// Bounds of the log of refused handshakes. A flood of bad connections
// (a port scanner, a servant of another network retrying, a misconfigured
// client) would otherwise write a line per connection: thousands a minute.
const (
	// refusalLogEvery: at most one line per peer address in this period;
	// the lines not written are counted and summed up in one line per
	// period.
	refusalLogEvery = time.Minute

	// refusalLogAddrs bounds the addresses remembered for the limit: a
	// refusal from a further address within the period is counted, not
	// logged.
	refusalLogAddrs = 4096
)

// refusalLog limits the log lines of refused handshakes: one line per peer
// address per period, and a summary of the lines not written once per
// period. Safe for concurrent use: handshakes run on their own goroutines,
// the summary comes from the loop's tick.
type refusalLog struct {
	every time.Duration

	mu    sync.Mutex
	addrs map[string]*refusalAddr
	quiet uint64    // refusals not logged since the last summary
	from  int       // addresses they came from
	since time.Time // start of the summary period
}

// refusalAddr is one peer address's state in the limit.
type refusalAddr struct {
	logged time.Time // when its last line was written
	inSum  bool      // counted in refusalLog.from since the last summary
}

func newRefusalLog(every time.Duration, now time.Time) *refusalLog {
	return &refusalLog{every: every, addrs: make(map[string]*refusalAddr), since: now}
}

// refusalKey is the address a refusal counts against: the host of an
// inbound connection (its port is ephemeral, new for every connection), the
// dialed servant address of an outbound one.
func refusalKey(peer string, inbound bool) string {
	if inbound {
		if host, _, err := net.SplitHostPort(peer); err == nil {
			return host
		}
	}
	return peer
}

// allow reports whether a refusal from key at now gets a log line; one that
// does not is counted for the summary.
func (r *refusalLog) allow(key string, now time.Time) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	a := r.addrs[key]
	switch {
	case a == nil && len(r.addrs) < refusalLogAddrs:
		r.addrs[key] = &refusalAddr{logged: now}
		return true
	case a == nil:
		r.quiet++ // too many addresses this period: counted only
		return false
	case now.Sub(a.logged) >= r.every:
		a.logged = now
		return true
	}
	r.quiet++
	if !a.inSum {
		a.inSum = true
		r.from++
	}
	return false
}

// summary returns, once per period (at the first call at or after its
// end), the refusals not logged during it and how many of the remembered
// addresses they came from; ok is false before the end of the period and
// when there were none. It forgets addresses whose last line is a period
// old (their next refusal is logged anyway), so it remembers at most the
// addresses of one period.
func (r *refusalLog) summary(now time.Time) (quiet uint64, from int, ok bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if now.Sub(r.since) < r.every {
		return 0, 0, false
	}
	quiet, from = r.quiet, r.from
	r.quiet, r.from, r.since = 0, 0, now
	for k, a := range r.addrs {
		a.inSum = false
		if now.Sub(a.logged) >= r.every {
			delete(r.addrs, k)
		}
	}
	return quiet, from, quiet > 0
}
