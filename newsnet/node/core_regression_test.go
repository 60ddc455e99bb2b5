package node

// Regression tests for problems found in the protocol core while building
// the runtime: each drives the core the way this runtime does.

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"newsdesk/newsnet"
)

// A seed spelled differently from the servant's advertised ID
// ("localhost:7400" for "127.0.0.1:7400") still works: the joiner takes the
// accept path's last element as its up-servant's ID. (The core once
// compared it with the dialed string and retried forever.)
func TestSeedSpelledDifferently(t *testing.T) {
	v := startNode(t, Config{Protocol: fastCore(), Logger: newTestLog(t)})
	port := strings.TrimPrefix(string(v.Addr()), "127.0.0.1:")
	j := startNode(t, Config{Protocol: fastCore(newsnet.ServantID("localhost:" + port)), Logger: newTestLog(t)})
	waitFor(t, 5*time.Second, "joiner attached through a seed named localhost", func() error {
		if st := j.Status(); st.Up != v.Addr() {
			return fmt.Errorf("role %s, up %q", st.Role, st.Up)
		}
		return nil
	})
}

// A category the wire cannot carry (empty, or over MaxCategoryBytes) never
// enters the self set: one bad subscription used to make every routing
// frame of the servant unencodable. Driven through the core directly: a
// vertex with one downlink subscribes to "it" and "".
func TestInvalidCategoryNeverReachesWire(t *testing.T) {
	cfg := fastCore()
	cfg.ID = "127.0.0.1:7400"
	cfg.Rand = coreConfig(cfg, cfg.ID).Rand
	s, err := newsnet.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Unix(1000, 0)
	s.Step(newsnet.Tick{Now: now})
	s.Step(newsnet.Start{})
	s.Step(newsnet.LinkUp{Link: 1, Inbound: true})
	s.Step(newsnet.Received{Link: 1, Msg: &newsnet.JoinRequest{From: "127.0.0.1:7401"}})
	for _, a := range s.Step(newsnet.SetSubscriptions{Categories: []string{"it", ""}}) {
		if send, ok := a.(newsnet.Send); ok {
			if _, err := newsnet.AppendFrame(nil, send.Msg); err != nil {
				t.Errorf("the core asked to send a frame the wire cannot encode: %T: %v", send.Msg, err)
			}
		}
	}
	if got := s.Status().Subscriptions; !got.Equal(newsnet.CategorySet{"it"}) {
		t.Errorf("subscriptions = %v, want only the valid one", got)
	}
}
