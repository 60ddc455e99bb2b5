package node

import (
	"fmt"
	"slices"

	"newsdesk/newsnet"
)

// Reach reports (newsnet/reach.go) through the runtime: the application
// tells the core what its reader did with an item, and asks for the reach
// of its own publications. Changes arrive through Config.OnReach.

// Reach returns the current reach of this servant's publication id; false
// when the core does not track it (not ours, or forgotten beyond
// Protocol.ReachItems) or the node is closed.
func (n *Node) Reach(id [16]byte) (newsnet.ReachTotals, bool) {
	var t newsnet.ReachTotals
	var ok bool
	if err := n.do(func(s *newsnet.Servant) { t, ok = s.Reach(id) }); err != nil {
		return newsnet.ReachTotals{}, false
	}
	return t, ok
}

// Read tells the core that the local reader opened item id of source.
func (n *Node) Read(id [16]byte, source string) error {
	return n.do(func(*newsnet.Servant) { n.step(newsnet.ReadItem{ID: id, Source: source}) })
}

// MustRead tells the core that item id of source, stored here, is
// must-read, with identity (at most newsnet.MaxIdentityBytes) naming the
// reader in its publisher's pending list until the reader acknowledges.
func (n *Node) MustRead(id [16]byte, source string, identity []byte) error {
	if err := checkBlob("identity", identity); err != nil {
		return err
	}
	blob := slices.Clone(identity)
	return n.do(func(*newsnet.Servant) { n.step(newsnet.MustReadItem{ID: id, Source: source, Identity: blob}) })
}

// Acknowledge tells the core that the local reader confirmed must-read
// item id of source; proof is the application's signed acknowledgement.
func (n *Node) Acknowledge(id [16]byte, source string, proof []byte) error {
	if err := checkBlob("acknowledgement", proof); err != nil {
		return err
	}
	blob := slices.Clone(proof)
	return n.do(func(*newsnet.Servant) { n.step(newsnet.AcknowledgeItem{ID: id, Source: source, Proof: blob}) })
}

// checkBlob refuses a blob no reach report could carry, which the core
// would drop.
func checkBlob(what string, b []byte) error {
	if len(b) == 0 || len(b) > newsnet.MaxIdentityBytes {
		return fmt.Errorf("node: %s of %d bytes: must be 1..%d", what, len(b), newsnet.MaxIdentityBytes)
	}
	return nil
}
