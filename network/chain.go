package network

// Definitions ahead of the chain. A servant accepts a network definition
// only when an admin of the one it holds signed it. A servant that was
// away while the admins changed can receive, through catch-up, version 9
// (signed by an admin that version 8 added) before version 8: answers come
// by source, and the two versions have different signers. Rather than
// refuse version 9 for good, it holds a definition that is well formed and
// signed by one of its own admins until the versions between arrive, then
// adopts it. Held definitions are in memory only: after a restart, the
// next catch-up brings them again.

import (
	"cmp"
	"context"
	"crypto/sha256"
	"slices"
	"sync"
	"time"

	"newsdesk/news"
	"newsdesk/trust"
)

// maxHeldDefinitions bounds the definitions held. Only members reach the
// overlay, but one could sign definitions that list itself as admin: the
// bound keeps those from growing without end. When full, the highest
// version goes first (the versions next to the held one are the useful
// ones).
const maxHeldDefinitions = 32

// heldDefinitions are definitions ahead of the chain with their carrier
// items, by the hash of the document: two different definitions may claim
// the same version.
type heldDefinitions struct {
	mu   sync.Mutex
	byID map[[32]byte]heldDefinition
}

type heldDefinition struct {
	def     *trust.SignedNetwork
	carrier *news.Item
}

// hold keeps def unless held already. it is the item that carried it, to
// be stored once def is adopted; nil when it came in parts, which are
// stored as they arrive.
func (h *heldDefinitions) hold(def *trust.SignedNetwork, it *news.Item) {
	doc, err := def.Marshal()
	if err != nil {
		return
	}
	key := sha256.Sum256(doc)
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.byID == nil {
		h.byID = make(map[[32]byte]heldDefinition)
	}
	if _, ok := h.byID[key]; ok {
		return
	}
	h.byID[key] = heldDefinition{def: def}
	if it != nil {
		h.byID[key] = heldDefinition{def: def, carrier: it.Clone()}
	}
	for len(h.byID) > maxHeldDefinitions {
		var top [32]byte
		var topVersion uint64
		for k, d := range h.byID {
			if d.def.Version >= topVersion {
				top, topVersion = k, d.def.Version
			}
		}
		delete(h.byID, top)
	}
}

// after forgets the definitions of version v or older and returns the
// others, lowest version first.
func (h *heldDefinitions) after(v uint64) []heldDefinition {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []heldDefinition
	for k, d := range h.byID {
		if d.def.Version <= v {
			delete(h.byID, k)
			continue
		}
		out = append(out, d)
	}
	slices.SortFunc(out, func(x, y heldDefinition) int { return cmp.Compare(x.def.Version, y.def.Version) })
	return out
}

// adoptHeld adopts, lowest version first, every held definition that the
// definition held now (or one adopted on the way) accepts. Each adopted
// one's carrier is stored, so this servant answers catch-up requests for
// it like for any definition it received in order.
func (k *Keeper) adoptHeld() {
	for {
		cur := k.Definition()
		var next *heldDefinition
		for _, d := range k.held.after(cur.Version) {
			if cur.Accept(d.def) == nil {
				next = &d
				break
			}
		}
		if next == nil {
			return
		}
		if it := next.carrier; it != nil {
			it.Received = time.Now()
			if err := k.store.Put(context.Background(), it); err != nil {
				k.log.Warn("storing a held network definition failed", "version", next.def.Version, "err", err)
			} else if _, err := k.store.MarkRead(it.ID); err != nil {
				k.log.Warn("marking a network definition read failed", "err", err)
			}
		}
		if adopted, err := k.adoptOne(next.def); err != nil || !adopted {
			if err != nil {
				k.log.Error("adopting a held network definition failed", "version", next.def.Version, "err", err)
			}
			return
		}
	}
}
