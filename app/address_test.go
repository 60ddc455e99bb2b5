package app

import (
	"fmt"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
)

// movingLaptop is the local address of a laptop that moves between
// networks: what the route toward its seeds goes out of.
type movingLaptop struct {
	mu   sync.Mutex
	addr string
}

func (m *movingLaptop) local([]string) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.addr
}

func (m *movingLaptop) move(addr string) {
	m.mu.Lock()
	m.addr = addr
	m.mu.Unlock()
}

// A laptop that moves to another network while items flow takes its new
// address as its ID within the address check's period, says so, and holds
// every item exactly once afterwards: the counts, the history and the
// subscriptions carry over the restart.
func TestAddressChangeWhileItemsFlow(t *testing.T) {
	simTest(t, func(t *testing.T, sn *simNet) {
		seed := sn.open(t, Options{Start: true, Listen: "10.0.0.1:7400"})
		laptop := &movingLaptop{addr: "10.1.0.5"}
		m := sn.open(t, Options{Start: true, Listen: "0.0.0.0:7400", Seeds: []string{seed.Addr()},
			Subscriptions: []string{"it"}, localAddress: laptop.local})
		if got := m.Addr(); got != "10.1.0.5:7400" {
			t.Fatalf("laptop's ID %q, want 10.1.0.5:7400", got)
		}
		waitFor(t, "the laptop attached", func() error {
			if st := m.Status(); st.Role != RoleAttached {
				return fmt.Errorf("role %s", st.Role)
			}
			return nil
		})
		var ids []uuid.UUID
		publish := func(k int) {
			for i := range k {
				r, err := seed.Publish(Draft{Category: "it", Title: fmt.Sprintf("item %d", len(ids)+i)})
				if err != nil {
					t.Fatal(err)
				}
				ids = append(ids, r.ID)
				time.Sleep(100 * time.Millisecond)
			}
		}
		publish(20)
		laptop.move("10.2.0.9") // home, through the VPN
		publish(40)
		waitForUpTo(t, 2*addressCheckEvery, "the laptop under its new address, holding every item", func() error {
			return movedWithEveryItem(m, "10.2.0.9:7400", ids)
		})
		checkOnce(t, m, ids)
		st := m.ServantStatus()
		if st.Moved == nil || st.Moved.From != "10.1.0.5:7400" || st.Moved.To != "10.2.0.9:7400" {
			t.Errorf("status Moved %+v, want from 10.1.0.5:7400 to 10.2.0.9:7400", st.Moved)
		}
		if st.Lost != 0 {
			t.Errorf("%d items counted lost", st.Lost)
		}
	})
}

// The same over TCP on loopback: the laptop listens on every address and
// moves from 127.0.0.1 to 127.0.0.2 while the seed publishes.
func TestAddressChangeOverTCP(t *testing.T) {
	seed := openApp(t, Options{Start: true, Listen: "127.0.0.1:0"})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	laptop := &movingLaptop{addr: "127.0.0.1"}
	m := openApp(t, Options{Start: true, Listen: fmt.Sprintf("0.0.0.0:%d", port), Seeds: []string{seed.Addr()},
		Subscriptions: []string{"it"}, localAddress: laptop.local, addressCheckEvery: 200 * time.Millisecond})
	waitForUpTo(t, 20*time.Second, "the laptop attached", func() error {
		if st := m.Status(); st.Role != RoleAttached {
			return fmt.Errorf("role %s", st.Role)
		}
		return nil
	})
	var ids []uuid.UUID
	publish := func(k int) {
		for range k {
			r, err := seed.Publish(Draft{Category: "it", Title: fmt.Sprintf("item %d", len(ids))})
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, r.ID)
			time.Sleep(20 * time.Millisecond)
		}
	}
	publish(20)
	laptop.move("127.0.0.2")
	publish(40)
	to := fmt.Sprintf("127.0.0.2:%d", port)
	waitForUpTo(t, 30*time.Second, "the laptop under its new address, holding every item", func() error {
		return movedWithEveryItem(m, to, ids)
	})
	checkOnce(t, m, ids)
	if st := m.ServantStatus(); st.Moved == nil || st.Moved.To != to || st.Lost != 0 {
		t.Errorf("status: moved %+v, lost %d", st.Moved, st.Lost)
	}
}

// movedWithEveryItem says why m is not yet attached under the address to
// with every item of ids stored, or nil.
func movedWithEveryItem(m *App, to string, ids []uuid.UUID) error {
	if got := m.Addr(); got != to {
		return fmt.Errorf("laptop's ID %q", got)
	}
	if st := m.Status(); st.Role != RoleAttached {
		return fmt.Errorf("role %s", st.Role)
	}
	for _, id := range ids {
		if _, err := m.Item(id); err != nil {
			return fmt.Errorf("item %s: %v", id, err)
		}
	}
	return nil
}

// checkOnce checks that m holds the items of ids once each and no other
// in "it": a copy delivered twice would count twice among the unread.
func checkOnce(t *testing.T, m *App, ids []uuid.UUID) {
	t.Helper()
	if n, _ := m.UnreadCounts(); n["it"] != uint64(len(ids)) {
		t.Errorf("unread %v, want %d items in it", n, len(ids))
	}
}
