package app

import (
	"context"
	"hash/fnv"
	"sync"
	"testing"
	"testing/synctest"

	"newsdesk/newsnet/node"
	"newsdesk/newsnet/sim"
	"newsdesk/newsnet/sim/simnode"
)

// Most tests run their Apps on a simulated network (newsnet/sim/simnode)
// inside a testing/synctest bubble: the servants, the Apps' own goroutines
// and timers (the inbox, the publishing pipeline, the store's group
// commit, status polls, retries) and the test share one virtual clock,
// which moves only when all of them wait. A test waits with waitFor as on
// TCP, but each check runs once everything due has settled
// (synctest.Wait), and no wait takes real time. The clock stands still
// while any goroutine keeps working: a test with goroutines that never
// pause (publishers in a loop) waits on a channel, not with waitFor, which
// would wait for good. A few tests stay on TCP end to end: the link
// security (TLS, network secrets, revoked keys), Probe, forged items from a
// servant that claims another's source, and the publishing load through
// `newsdesk serve` (publishload_test.go); the control API and `serve` are
// tested in package cli.

// simNet is the simulated network of one test.
type simNet struct {
	w *simnode.Network
}

// simTest runs f in a synctest bubble with a simulated network whose seed
// comes from the test's name; the network's invariants are checked at the
// end. Apps opened with sn.open run on it.
func simTest(t *testing.T, f func(t *testing.T, sn *simNet)) {
	t.Helper()
	h := fnv.New64a()
	h.Write([]byte(t.Name()))
	seed := h.Sum64()
	synctest.Test(t, func(t *testing.T) {
		bubbles.Store(t, true)
		sn := &simNet{w: simnode.New(seed)}
		t.Cleanup(func() { // after the Apps' (cleanups run last first)
			defer bubbles.Delete(t)
			sn.w.Do(func(n *sim.Network) {
				for _, v := range n.Violations() {
					t.Errorf("simulated network (seed %d): %s", seed, v)
				}
			})
			sn.w.Close()
			if t.Failed() {
				t.Logf("simulated network seed %d", seed)
			}
		})
		f(t, sn)
	})
}

// open is openApp with the servant on the simulated network (started by
// opts.StartServant if set, which wraps sn.start).
func (sn *simNet) open(t *testing.T, opts Options) *App {
	t.Helper()
	if opts.StartServant == nil {
		opts.StartServant = sn.start
	}
	return openApp(t, opts)
}

// options returns opts with the servant on the simulated network, for
// tests that call Open themselves.
func (sn *simNet) options(opts Options) Options {
	opts.StartServant = sn.start
	return opts
}

func (sn *simNet) start(cfg node.Config) (Servant, error) {
	n, err := sn.w.Start(context.Background(), cfg)
	if err != nil {
		return nil, err
	}
	return n, nil
}

// downAddr is an address where no servant of a simulated network runs (a
// seed that is down).
const downAddr = "192.0.2.1:7400"

// bubbles holds the tests running in a synctest bubble (simTest).
var bubbles sync.Map // *testing.T → true

// settle lets everything due in a test's bubble happen before it looks:
// it returns once every goroutine of the bubble waits. Outside a bubble
// it does nothing.
func settle(t testing.TB) {
	if _, ok := bubbles.Load(t); ok {
		synctest.Wait()
	}
}
