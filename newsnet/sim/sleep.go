package sim

import (
	"maps"
	"time"

	"newsdesk/newsnet"
)

// Laptops that sleep and servants of older builds.

// Freeze stops servant id for d as SIGSTOP (or a laptop's lid) does: its
// process runs nothing, so it ticks, reads and writes nothing, while its
// connections stay open. What reaches it meanwhile waits in its kernel and
// is read, in order, when it thaws; its peers' writes to it stall, so they
// report nothing written. A dial to it fails as to a firewalled servant:
// its kernel takes the connection but nobody answers the hello. Its peers
// see only silence, and close their links when their LinkTimeout runs out.
func (n *Network) Freeze(id newsnet.ServantID, d time.Duration) {
	nd := n.nodes[id]
	if nd == nil || !nd.Alive {
		return
	}
	if n.frozen == nil {
		n.frozen = map[newsnet.ServantID]time.Time{}
	}
	until := n.now.Add(d)
	n.frozen[id] = until
	for _, p := range n.pipesOf(id) {
		peer := p.other(id).node
		if i := p.side(peer); p.stalled[i].Before(until) {
			p.stalled[i] = until
		}
	}
}

// Frozen reports whether servant id is frozen now (Freeze).
func (n *Network) Frozen(id newsnet.ServantID) bool { return n.isFrozen(id) }

func (n *Network) isFrozen(id newsnet.ServantID) bool {
	until, ok := n.frozen[id]
	return ok && n.now.Before(until)
}

// SpeakWire makes servant id speak wire versions up to max only, as an
// older build does: its links run at the lower of the two ends' versions,
// so its neighbours never send it a frame newer than that (a servant of
// wire version 7 gets no blob frames). It takes effect for links that come
// up afterwards; call it before Add.
func (n *Network) SpeakWire(id newsnet.ServantID, max uint16) {
	if n.wire == nil {
		n.wire = map[newsnet.ServantID]uint16{}
	}
	n.wire[id] = max
}

// linkVersion is the version a link between a and b runs at: the highest
// both speak.
func (n *Network) linkVersion(a, b newsnet.ServantID) uint16 {
	v := uint16(newsnet.ProtocolVersion)
	for _, id := range []newsnet.ServantID{a, b} {
		if w, ok := n.wire[id]; ok && w < v {
			v = w
		}
	}
	return v
}

// Move takes servant from off the network as a laptop that changes
// networks is: its old address is gone, so its connections die without a
// FIN (its neighbours notice by their heartbeats), and it starts again at
// the address to with everything its host persisted (its items, counts,
// blobs' chunks, lost counters, subscriptions and seeds), as the
// application restarts its servant under the new address. The servant's
// protocol state, its transfers included, is lost with the restart. It
// returns the new node. For a simulated host only.
func (n *Network) Move(from, to newsnet.ServantID) *Node {
	old := n.nodes[from]
	if old == nil || old.host != nil {
		panic("sim: Move needs a simulated host")
	}
	if _, dup := n.nodes[to]; dup {
		panic("sim: servant " + string(to) + " exists")
	}
	n.Vanish(from)
	nd := &Node{ID: to, Subscriptions: old.Subscriptions, Seeds: old.Seeds, Store: old.Store,
		Expected: maps.Clone(old.Expected), OwnCount: old.OwnCount, OwnLast: maps.Clone(old.OwnLast),
		Lost: old.Lost, Blobs: old.Blobs, BlobsLost: old.BlobsLost, reach: old.reach}
	n.nodes[to] = nd
	n.order = append(n.order, to)
	n.boot(nd)
	return nd
}
