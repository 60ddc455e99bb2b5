package node

import (
	"fmt"

	"newsdesk/newsnet"
)

// The loop's half of sending (see Flow control in the package comment):
// each message encoded once per step, frames held for one direct write or
// queued for the link's writer (peer.go's writeLoop; the queue is
// queue.go's), and the writers' Written reports fed back to the core.

// encoded is a message encoded for this step: its frame (nil if it could
// not be encoded) and its size as the core counts it.
type encoded struct {
	frame *frame
	size  int
}

// frameKey is a message as encoded at one wire version.
type frameKey struct {
	m    newsnet.Message
	wire uint16
}

// send queues m on p, encoded once per step however many links it goes
// out on. It never waits. Every frame the core sent is reported back as
// Written exactly once: by the writer when written, or here when it cannot
// be queued. Loop only.
func (n *Node) send(p *peer, m newsnet.Message) {
	key := frameKey{m, p.wire}
	e, ok := n.frames[key]
	if !ok {
		e.size = newsnet.SizeOf(m)
		var err error
		n.scratch, err = newsnet.AppendFrameAt(n.scratch[:0], m, p.wire)
		if err != nil {
			// A message the wire cannot carry is a bug upstream; nothing
			// was written, so the stream is intact: skip the frame.
			n.log.Error("dropping unencodable frame", "peer", p.addr, "link", p.id, "type", fmt.Sprintf("%T", m), "err", err)
		} else {
			e.frame = newFrame(n.scratch)
		}
		n.frames[key] = e
	}
	if e.frame == nil {
		n.pending = append(n.pending, newsnet.Written{Link: p.id, Bytes: e.size})
		return
	}
	if p.direct != nil && (len(p.held) > 0 || p.q.claimDirect()) {
		if len(p.held) == 0 {
			n.dirty = append(n.dirty, p)
		}
		e.frame.retain()
		p.held = append(p.held, queued{frame: e.frame, size: e.size})
		return
	}
	e.frame.retain()
	_, bulk := m.(*newsnet.BlobChunk)
	switch p.q.push(queued{frame: e.frame, size: e.size, bulk: bulk}, n.queueCap) {
	case pushed:
		return
	case dropped:
		// The writer failed; the reader's LinkDown is on its way.
		n.pending = append(n.pending, newsnet.Written{Link: p.id, Bytes: e.size})
	case overCap:
		n.overCap(p)
	}
	e.frame.release()
}

// overCap closes p, whose send queue passed its hard cap. Loop only.
func (n *Node) overCap(p *peer) {
	n.log.Error("closing link: send queue over its hard cap (the core's flow control failed)",
		"peer", p.addr, "link", p.id, "cap", n.queueCap)
	delete(n.peers, p.id)
	p.abort("send queue over its cap")
	n.pending = append(n.pending, newsnet.LinkDown{Link: p.id, Reason: "send queue over its cap"})
}

// flushHeld writes what the loop held for direct writes during this
// iteration (see send), one write per link, or hands them to the links'
// writers when more input is waiting, and carries out any events that
// raised. Loop only, at the end of every iteration.
func (n *Node) flushHeld() {
	for len(n.dirty) > 0 {
		// With more input waiting, the loop is behind: its writers, which
		// gather what queues up meanwhile, write fewer and larger pieces
		// than it would, iteration by iteration.
		busy := len(n.fromPeers) > 0
		for _, p := range n.dirty {
			if busy {
				n.handOver(p)
			} else {
				n.flush(p)
			}
		}
		n.dirty = n.dirty[:0]
		if len(n.pending) > 0 {
			n.stepPending() // may hold more frames
		}
	}
}

// handOver queues the frames held for p for its writer instead of writing
// them. Loop only.
func (n *Node) handOver(p *peer) {
	held := p.held
	p.held = p.held[:0]
	if len(held) > 0 && p.q.endDirect(held, n.queueCap) == overCap {
		n.overCap(p)
	}
	clear(held)
}

// flush writes the frames held for p (it holds p.q's direct claim while
// any are), gathered into one write of at most writeBufferSize bytes
// (a larger frame alone), without waiting and without waking p's writer:
// a frame that travels alone (paced publishing, heartbeats) costs one
// write instead of a writer wake-up and a write, and a loop that fell
// behind writes what its iteration produced for a link at once. What the
// socket did not take is queued for the writer, ahead of anything later;
// on a TLS link, what TLS took but the socket did not waits in the spill,
// and the frames it belongs to are queued (with nothing left to write of
// them) so that they are reported written only once it is out. Loop only.
func (n *Node) flush(p *peer) {
	held := p.held
	p.held = p.held[:0]
	if len(held) == 0 {
		return
	}
	defer clear(held)
	if p.q.isDead() {
		p.q.endDirect(held, n.queueCap) // released and counted as written
		return
	}
	b, k := held[0].frame.b, 1
	if len(held) > 1 && len(b) < writeBufferSize {
		buf := n.directBuf[:0]
		for k = 0; k < len(held); k++ {
			f := held[k].frame.b
			if k > 0 && len(buf)+len(f) > writeBufferSize {
				break
			}
			buf = append(buf, f...)
		}
		b, n.directBuf = buf, buf
	}
	written, err := p.direct(b)
	if err != nil {
		size := 0
		for _, e := range held {
			size += e.size
			e.frame.release()
		}
		p.q.endDirect(nil, n.queueCap)
		// As a failed writer does: the frames are dropped with the link
		// and counted as written, and the reader reports the loss.
		p.fail("write: " + err.Error())
		p.q.drop()
		n.pending = append(n.pending, newsnet.Written{Link: p.id, Bytes: size})
		return
	}
	spilled := p.spill != nil && p.spill.spilled()
	rest, size := n.restBuf[:0], 0
	for i, e := range held {
		if i < k {
			l := len(e.frame.b)
			if written >= l && !spilled {
				written -= l
				size += e.size
				e.frame.release()
				continue
			}
			e.off = min(written, l) // partly written, or (TLS) taken into the spill
			written -= e.off
		}
		rest = append(rest, e)
	}
	n.restBuf = rest
	defer clear(rest)
	if size > 0 && p.q.report(size) {
		n.wakeWritten()
	}
	if p.q.endDirect(rest, n.queueCap) == overCap {
		n.overCap(p)
	}
}

// wakeWritten tells the loop that a writer has written bytes worth
// reporting now. It never waits: one pending wake-up collects every
// writer's report.
func (n *Node) wakeWritten() {
	select {
	case n.wrote <- struct{}{}:
	default:
	}
}

// reportWritten feeds the core what the writers wrote (or dropped) since
// the last report, one Written event per link. The loop runs it when a
// writer wakes it and on every tick, so the core learns of progress within
// a tick even when it comes in small writes. Loop only.
func (n *Node) reportWritten() {
	n.writes = n.writes[:0]
	for id, p := range n.peers {
		if b := p.q.takeWritten(); b > 0 {
			n.writes = append(n.writes, newsnet.Written{Link: id, Bytes: b})
		}
	}
	for _, w := range n.writes {
		n.step(w)
	}
}
