package cli

import (
	"encoding/json"
	"fmt"
	"testing"
)

// /v1/status lists a servant's direct links (issue 14) on both ends: a
// subscriber that opted in (--direct), two hops from a publisher that sends
// it enough items, asks for direct delivery, and both servants show the
// link with its role, the source, the categories and what went over it.
func TestServeStatusListsDirectLinks(t *testing.T) {
	fastReconnect(t)
	pub := startServe(t)
	// mid and sub listen on another loopback address than pub, so their
	// values (address and port) share one of pub's slots whatever ports
	// they get: sub stays under mid. With sub's value in another slot of
	// pub, mid would place it right below pub (tree optimization).
	mid := startServe(t, "--seeds", pub.ID, "--listen", "127.0.0.2:0")
	// Under mid: two hops from pub; it opts in to direct delivery.
	sub := startServe(t, "--seeds", mid.ID, "--subscribe", "it", "--direct", "3", "--listen", "127.0.0.2:0")
	waitFor(t, "the subscriber two hops below the publisher", func() error {
		st, _ := sub.Status(t)
		if st.Up != mid.ID {
			return fmt.Errorf("subscriber's up-servant %q, want %s", st.Up, mid.ID)
		}
		if got := pub.Received(t, mid.ID); len(got) == 0 {
			return fmt.Errorf("publisher has no routing information from below yet")
		}
		return nil
	})
	type direct struct {
		Peer       string   `json:"peer"`
		Source     string   `json:"source"`
		Categories []string `json:"categories"`
		Role       string   `json:"role"`
		Delivered  uint64   `json:"delivered"`
	}
	type status struct {
		Source   string   `json:"source"`
		Direct   []direct `json:"direct"`
		Counters struct {
			DirectSent     uint64 `json:"directSent"`
			DirectReceived uint64 `json:"directReceived"`
		} `json:"counters"`
	}
	read := func(s *servant) status {
		_, body := s.Status(t)
		var st status
		if err := json.Unmarshal(body, &st); err != nil {
			t.Fatal(err)
		}
		return st
	}
	if st := read(sub); st.Direct == nil || len(st.Direct) != 0 {
		t.Fatalf("before any item: direct %v, want []", st.Direct)
	}
	source := read(pub).Source
	n := 0
	waitFor(t, "a direct link that carried items", func() error {
		n++
		pub.Publish(t, "it", fmt.Sprintf("item %d", n), "")
		if st := read(sub); len(st.Direct) == 0 || st.Counters.DirectReceived == 0 {
			return fmt.Errorf("subscriber: direct %+v, received directly %d", st.Direct, st.Counters.DirectReceived)
		}
		return nil
	})
	got := read(sub).Direct[0]
	if got.Role != "subscriber" || got.Source != source || fmt.Sprint(got.Categories) != "[it]" || got.Delivered == 0 {
		t.Errorf("subscriber's direct link %+v, want role subscriber, source %s, categories [it], items delivered", got, source)
	}
	st := read(pub)
	if len(st.Direct) != 1 || st.Direct[0].Role != "publisher" || st.Counters.DirectSent == 0 {
		t.Errorf("publisher: direct %+v, sent directly %d; want one link as publisher that sent items", st.Direct, st.Counters.DirectSent)
	}
}
