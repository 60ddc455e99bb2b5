package cli

import (
	"encoding/json"
	"fmt"
	"net"
	"slices"
	"testing"
)

// /v1/status says whether the servant's up-servant could dial it back: a
// servant that advertises an address where nothing listens is a leaf,
// "reachable": false, and its up-servant lists it under "leaves"; one that
// can be dialed is "reachable": true, holds a slot and is a down.
func TestServeStatusReachability(t *testing.T) {
	seed := startServe(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	blocked := fmt.Sprintf("127.0.0.5:%d", port)
	leaf := startServe(t, "--seeds", seed.ID, "--listen", fmt.Sprintf("127.0.0.1:%d", port), "--advertise", blocked)
	member := startServe(t, "--seeds", seed.ID)

	type link struct {
		Peer string `json:"peer"`
		Leaf bool   `json:"leaf"`
	}
	type status struct {
		Leaf           bool      `json:"leaf"`
		Leaves         []string  `json:"leaves"`
		Downs          []string  `json:"downs"`
		Reachable      *bool     `json:"reachable"`
		ReachAddr      string    `json:"reachAddr"`
		ReachAt        string    `json:"reachAt"`
		Links          []link    `json:"links"`
		AddressChanged *struct{} `json:"addressChanged"`
	}
	read := func(s *servant) status {
		_, body := s.Status(t)
		var st status
		if err := json.Unmarshal(body, &st); err != nil {
			t.Fatal(err)
		}
		return st
	}
	waitFor(t, "both dialed back", func() error {
		if st := read(leaf); !st.Leaf || st.Reachable == nil || *st.Reachable || st.ReachAddr != blocked || st.ReachAt == "" {
			return fmt.Errorf("leaf: %+v", st)
		}
		if st := read(member); st.Leaf || st.Reachable == nil || !*st.Reachable || st.ReachAddr != member.ID {
			return fmt.Errorf("member: %+v", st)
		}
		return nil
	})
	st := read(seed)
	if !slices.Equal(st.Leaves, []string{blocked}) || !slices.Equal(st.Downs, []string{member.ID}) {
		t.Errorf("seed: leaves %v downs %v, want [%s] and [%s]", st.Leaves, st.Downs, blocked, member.ID)
	}
	if !slices.Contains(st.Links, link{Peer: blocked, Leaf: true}) {
		t.Errorf("seed's links %+v lack the leaf's", st.Links)
	}
	if st.Reachable != nil || st.AddressChanged != nil {
		t.Errorf("the vertex: reachable %v, addressChanged %v; want null (nobody dials it back, it did not move)", st.Reachable, st.AddressChanged)
	}
}
