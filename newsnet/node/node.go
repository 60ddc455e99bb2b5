// Package node runs one newsnet.Servant over TCP: the runtime half of the
// overlay, where the protocol core meets sockets and clocks.
//
// One goroutine, the loop, owns the Servant. It is the only goroutine that
// calls Step and the only one that touches link state; everything else talks
// to it over channels:
//
//	ticker ─────────────► Tick{now}
//	acceptor ─ hello ───► LinkUp{Inbound}          ┌──► writer (per link, send queue)
//	dialer ─── hello ───► LinkUp / LinkDown   loop ┤
//	reader (per link) ──► Received / LinkDown      └──► OnDeliver, log, API replies
//	writer (per link) ──► Written
//	API calls ──────────► closures run on the loop
//	loop ─ chunks ──────► blob writer ──► the host's store, then OnBlob
//
// With Config.Security, a TLS 1.3 handshake and the network-secret link
// proofs come before the hello, on the acceptor's and dialer's goroutines.
//
// # Flow control
//
// The loop never blocks on a peer. It encodes each message once per step,
// however many links it goes out on, and pushes the frame onto each link's
// send queue (queue.go), a FIFO that never refuses a frame for being
// full. On a link whose queue is empty and whose writer is idle, the loop
// instead holds the frames of its iteration (everything its inputs ready
// at once caused) and, if no more input is waiting (else the writer takes
// them), writes them itself at the iteration's end, in one write that
// never waits, queueing only what the socket did not take (on
// a TLS link, what the socket did not take of the records waits in the
// link's spill, trywrite_unix.go, which the writer sends first): a frame
// that travels alone (paced publishing, heartbeats) then costs one write
// instead of a writer wake-up and a write, and a loop that fell behind
// still writes many frames at once. The writer takes up to 32 KiB of frames at
// a time, writes them with one write and adds their newsnet.SizeOf bytes
// (the loop adds those of its own writes) to a counter; the loop
// collects the counters and feeds them to the core as newsnet.Written
// events on every tick, and at once when a link's unreported bytes reach
// Protocol.LinkBuffer/8 (at most 64 KiB; the writer wakes it without waiting).
// Each Written is a step of the core, so reporting every small write of a
// quiet link would cost more than the frames.
//
// The core counts the bytes it sent and the host has not written yet, and
// stops sending items on a link once they reach Protocol.LinkBuffer (it
// withholds them and sends them later from its relay cache and the store);
// so the queue of a slow peer stops growing instead of being emptied into
// the void.
//
// A peer is closed as too slow only when a write made no progress for
// about Protocol.LinkTimeout: the core closes a link with bytes queued and
// nothing written for LinkTimeout, and the writer's deadline, armed afresh
// before every write of at most 32 KiB, fails it one tick later. A peer that
// reads slowly but steadily (32 KiB per LinkTimeout, 8 KiB/s by default)
// keeps its link.
//
// Memory per link is bounded: its send queue holds at most 4×Protocol.LinkBuffer
// + 8 MiB of frame buffers (12 MiB by default; buffers are shared between
// links and at most twice their frame). The core keeps it near
// Protocol.LinkBuffer, 1 MiB by default, so the cap only catches a bug: a link
// that reaches it is closed with an error in the log. Add to that the
// writer's 32 KiB buffer and batch, the reader's 48 KiB of buffers, the
// frame being read or written (at most newsnet.MaxFrameBytes, 256 KiB) and,
// on a TLS link, the spill: the records of at most one direct write (32 KiB
// of frames, or one larger frame).
//
// Back-pressure reaches publishers: while the core reports
// Servant.Backlogged (a link has fallen far behind), Publish waits, parked
// off the loop, until the backlog clears or its context ends.
//
// Readers only decode and forward. Every goroutine is tracked by one
// WaitGroup, so Close returns only when all of them are gone.
package node

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"sync"
	"time"

	"newsdesk/newsnet"
	"newsdesk/trust"
)

// ErrClosed is returned by API calls on a node that has shut down.
var ErrClosed = errors.New("node: closed")

// Node is one servant on TCP. Its methods are safe for concurrent use.
type Node struct {
	id   newsnet.ServantID
	core newsnet.Config
	log  *slog.Logger
	ln   net.Listener

	onDeliver  func(*newsnet.Multicast)
	onProgress func(source string, next uint64)
	onPublish  func(newsnet.Published)
	onLost     func(newsnet.Lost)
	onReach    func(newsnet.ReachUpdated)
	onBlob     func(newsnet.Action)
	blobs      BlobKeeper
	blobWriter *blobWriter // writes blobs off the loop (blobs.go); nil without Blobs

	sec        *linkSecurity // nil: plain TCP
	stats      secStats
	refusals   *refusalLog // bounds the log lines of refused handshakes
	wrapDial   func(net.Conn) net.Conn
	hsTimeout  time.Duration // accept-side handshake bound
	release    string        // this build's release, in every hello
	observe    func(newsnet.Event, []newsnet.Action)
	backlogged func(*newsnet.Servant) bool

	queueCap     int           // a send queue's hard bound in bytes
	writeTimeout time.Duration // a write without progress fails the link
	wakeBytes    int64         // unreported written bytes that wake the loop

	ctx    context.Context // ends the node; cancelled by Close or the caller
	cancel context.CancelFunc
	wg     sync.WaitGroup
	done   chan struct{} // closed when the loop has exited

	// Inputs of the loop.
	accepted chan accepted
	dialed   chan dialed
	// fromPeers carries every reader's frames and, last, its loss report.
	// One channel per direction keeps them in order: a frame sent just
	// before a close (a redirect, a reset) must reach the core before the
	// LinkDown, or the core would take a deliberate move for a failure.
	fromPeers chan fromPeer
	requests  chan request
	// pagesRead carries catch-up pages read off the loop (readPage).
	pagesRead chan newsnet.PageRead

	// source is the address dials come from (sourceIP).
	sourceOnce sync.Once
	source     netip.Addr
	// wrote wakes the loop to collect the writers' Written reports from
	// their queues' counters; a writer never waits on it.
	wrote chan struct{}

	// Loop state: touched only by the loop goroutine.
	servant     *newsnet.Servant
	peers       map[newsnet.LinkID]*peer
	nextInbound newsnet.LinkID
	pending     []newsnet.Event                        // events raised while carrying out actions
	publishing  *parkedPublish                         // the Publish call being stepped: the Published action is its report
	censusQuery uint64                                 // the last census query's ID (census.go)
	censusWait  map[uint64]chan newsnet.CensusAnswered // the census queries waiting for their answers
	parked      []*parkedPublish                       // Publish calls held back while backlogged, oldest first
	stopped     bool                                   // Stop was sent to the core
	frames      map[frameKey]encoded                   // this step's encoded messages
	scratch     []byte                                 // encoding buffer
	writes      []newsnet.Written                      // reportWritten's scratch
	dirty       []*peer                                // links with frames held for a direct write (send, flush)
	directBuf   []byte                                 // flush's gathering buffer
	restBuf     []queued                               // flush's scratch

	finalMu sync.Mutex
	final   newsnet.Status // the last status, for Status after shutdown
}

// Loop inputs.
type (
	accepted struct {
		peer *peer // link ID filled in by the loop
	}
	dialed struct {
		link newsnet.LinkID
		peer *peer // nil when the dial or handshake failed
		err  error
	}
	fromPeer struct {
		link   newsnet.LinkID
		msg    newsnet.Message // nil: the link ended
		reason string          // why it ended
	}
	request struct {
		f    func(*newsnet.Servant)
		done chan struct{}
	}
)

// encoded is a message encoded for this step: its frame (nil if it could
// not be encoded) and its size as the core counts it.
type encoded struct {
	frame *frame
	size  int
}

// Start listens on cfg.Listen, starts the servant and returns once the
// listen address, and so the servant ID, is known. The node runs until ctx
// ends or Close is called; either way Close waits for it to finish.
func Start(ctx context.Context, cfg Config) (*Node, error) {
	if err := checkListen(cfg.Listen, cfg.Advertise); err != nil {
		return nil, fmt.Errorf("node: %w", err)
	}
	var sec *linkSecurity
	if cfg.Security != nil {
		if err := cfg.Security.validate(); err != nil {
			return nil, fmt.Errorf("node: %w", err)
		}
		sec = &linkSecurity{
			secrets: cfg.Security.Secrets,
			admit:   cfg.Security.Admit,
			client:  trust.TLSConfig(cfg.Security.Identity, false),
			server:  trust.TLSConfig(cfg.Security.Identity, true),
		}
		sec.offerInvitations(cfg.Security)
	}
	ln, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		return nil, fmt.Errorf("node: %w", err)
	}
	id := cfg.Advertise
	if id == "" {
		id = newsnet.ServantID(ln.Addr().String())
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	core := coreConfig(cfg.Protocol, id)
	var bw *blobWriter
	if cfg.Blobs != nil {
		core.Blob.Store = cfg.Blobs
		if !cfg.blobsOnLoop {
			bw = newBlobWriter(cfg.Blobs, cfg.OnBlob, log.With("servant", string(id)))
			core.Blob.Store = bw // the store, with the chunks not written yet
		}
	}
	s, err := newsnet.New(core)
	if err != nil {
		ln.Close()
		return nil, fmt.Errorf("node: %w", err)
	}
	n := &Node{
		id:         id,
		core:       core,
		log:        log.With("servant", string(id)),
		ln:         ln,
		onDeliver:  cfg.OnDeliver,
		onProgress: cfg.OnProgress,
		onPublish:  cfg.OnPublished,
		onLost:     cfg.OnLost,
		onReach:    cfg.OnReach,
		onBlob:     cfg.OnBlob,
		blobs:      cfg.Blobs,
		blobWriter: bw,
		sec:        sec,
		refusals:   newRefusalLog(cmp.Or(cfg.refusalLogEvery, refusalLogEvery), time.Now()),
		wrapDial:   cfg.wrapDial,
		hsTimeout:  cmp.Or(cfg.handshakeTimeout, handshakeTimeout),
		release:    cfg.Release,
		observe:    cfg.observe,
		backlogged: cfg.backlogged,

		queueCap:     cmp.Or(cfg.queueCap, queueCap(core)),
		writeTimeout: writeTimeout(core),
		wakeBytes:    int64(wakeBytes(core)),

		done:      make(chan struct{}),
		accepted:  make(chan accepted),
		dialed:    make(chan dialed),
		fromPeers: make(chan fromPeer, 256),
		requests:  make(chan request),
		pagesRead: make(chan newsnet.PageRead),
		wrote:     make(chan struct{}, 1),
		servant:   s,
		peers:     make(map[newsnet.LinkID]*peer),
		frames:    make(map[frameKey]encoded),
	}
	if n.backlogged == nil {
		n.backlogged = (*newsnet.Servant).Backlogged
	}
	n.ctx, n.cancel = context.WithCancel(ctx)
	n.final = s.Status()
	n.wg.Add(2)
	go n.acceptLoop()
	go n.run()
	if bw != nil {
		n.wg.Add(1)
		go func() {
			defer n.wg.Done()
			bw.run()
		}()
	}
	return n, nil
}

// Close stops the servant: every link is closed (so neighbours recover at
// once), queued frames get up to about a second to flush, and Close returns
// when every goroutine of the node has ended. It is safe to call more than
// once and after the Start context ended.
func (n *Node) Close() error {
	n.cancel()
	n.wg.Wait()
	return nil
}

// run is the loop: the only goroutine that touches the servant.
func (n *Node) run() {
	defer n.wg.Done()
	defer close(n.done)
	if n.blobWriter != nil {
		// After the loop, which is the only one to queue writes: the
		// writer stores what is queued, then ends; Close waits for it.
		defer n.blobWriter.close()
	}
	ticker := time.NewTicker(n.core.TickInterval)
	defer ticker.Stop()

	n.step(newsnet.Tick{Now: time.Now()})
	n.step(newsnet.Start{})
	for {
		select {
		case <-ticker.C:
			// time.Now, not the ticker's value: that may be stale after a
			// slow iteration, and the core's clock only moves forward anyway.
			// Written first, so the core judges progress on fresh reports.
			n.reportWritten()
			now := time.Now()
			n.step(newsnet.Tick{Now: now})
			n.pruneParked()
			n.logRefusals(now)
		case a := <-n.accepted:
			if !n.stillAccepted(a.peer) {
				a.peer.raw.Close()
				break
			}
			n.nextInbound++
			p := a.peer
			p.id = n.nextInbound
			n.linkUp(p)
			n.step(newsnet.LinkUp{Link: p.id, Inbound: true, Version: p.wire, Release: p.hello.Release, Remote: remoteAddr(p.raw)})
		case d := <-n.dialed:
			if d.peer == nil {
				n.log.Debug("dial failed", "link", d.link, "err", d.err)
				n.step(newsnet.LinkDown{Link: d.link, Reason: d.err.Error()})
				break
			}
			if !n.stillAccepted(d.peer) {
				d.peer.raw.Close()
				n.step(newsnet.LinkDown{Link: d.link, Reason: "network secret rotated"})
				break
			}
			n.linkUp(d.peer)
			n.step(newsnet.LinkUp{Link: d.link, Version: d.peer.wire, Release: d.peer.hello.Release})
		case f := <-n.fromPeers:
			n.fromPeer(f)
			// Take what else the readers have ready without another
			// select over every input (bounded, so ticks and API calls
			// still come through under a flood).
			for range fromPeersBatch - 1 {
				select {
				case f := <-n.fromPeers:
					n.fromPeer(f)
					continue
				default:
				}
				break
			}
		case <-n.wrote:
			n.reportWritten()
		case r := <-n.requests:
			r.f(n.servant)
			close(r.done)
		case p := <-n.pagesRead:
			n.step(p)
		case <-n.ctx.Done():
			n.shutdown()
			return
		}
		if len(n.parked) > 0 {
			n.releaseParked()
		}
		n.flushHeld()
	}
}

// fromPeersBatch is how many reader inputs the loop takes in a row when
// they are ready.
const fromPeersBatch = 32

// fromPeer carries out one reader input: a frame, or the link's end. Loop
// only.
func (n *Node) fromPeer(f fromPeer) {
	p := n.peers[f.link]
	switch {
	case p == nil:
		// Closed by the core or the runtime already: whatever was still in
		// flight is moot.
	case f.msg != nil:
		n.step(newsnet.Received{Link: f.link, Msg: f.msg})
	default:
		n.log.Debug("link lost", "link", f.link, "peer", p.addr, "reason", f.reason)
		delete(n.peers, f.link)
		p.q.drop()
		n.step(newsnet.LinkDown{Link: f.link, Reason: f.reason})
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

// shutdown stops the core, which closes every link gracefully, and closes
// the listener. Any link the core did not close is closed too, so no writer
// outlives the node. The writers flush on their own; Close waits for them.
// Dials and handshakes still in flight see the context end and close their
// connections themselves.
func (n *Node) shutdown() {
	n.step(newsnet.Stop{})
	n.ln.Close()
	n.failParked(ErrClosed)
	for id, p := range n.peers {
		delete(n.peers, id)
		n.flush(p)
		p.closeGracefully()
	}
	n.finalMu.Lock()
	n.final = n.servant.Status()
	n.finalMu.Unlock()
}

// linkUp starts the goroutines of an established connection. Loop only.
func (n *Node) linkUp(p *peer) {
	n.peers[p.id] = p
	p.q.wakeAt = n.wakeBytes
	n.log.Debug("link up", "link", p.id, "peer", p.addr, "inbound", p.inbound, "key", p.key, "wire", p.wire, "peerHello", p.hello.String())
	n.wg.Add(2)
	go n.readLoop(p)
	go func() {
		defer n.wg.Done()
		p.writeLoop(n.writeTimeout, n.wakeWritten)
	}()
}

// step feeds ev to the servant and carries out the actions, then any events
// those raised (a LinkDown for a link the runtime gave up on, a Written
// for frames dropped with a link), until nothing is left. Loop only.
func (n *Node) step(ev newsnet.Event) {
	n.pending = append(n.pending, ev)
	n.stepPending()
}

// stepPending carries out the pending events, as step does. Loop only.
func (n *Node) stepPending() {
	// By index, not by reslicing the front away, so the slice keeps its
	// capacity from step to step.
	for i := 0; i < len(n.pending); i++ {
		ev := n.pending[i]
		acts := n.servant.Step(ev)
		if n.observe != nil {
			n.observe(ev, acts)
		}
		for _, a := range acts {
			n.act(a)
		}
	}
	clear(n.pending)
	n.pending = n.pending[:0]
	for _, e := range n.frames {
		if e.frame != nil {
			e.frame.release()
		}
	}
	clear(n.frames)
}

// act carries out one action. It never blocks on the network. Loop only.
func (n *Node) act(a newsnet.Action) {
	switch a := a.(type) {
	case newsnet.Dial:
		// A direct link (outside the tree) is dialed and secured exactly
		// as a tree link: the same TLS 1.3 handshake and membership proof.
		if a.Direct {
			n.log.Debug("dialing direct link", "link", a.Link, "peer", a.Addr)
		}
		n.wg.Add(1)
		go n.dial(a.Link, a.Addr, a.Within)
	case newsnet.Send:
		if p := n.peers[a.Link]; p != nil {
			n.send(p, a.Msg)
		} // else: the core's contract: sends on a closed link are dropped
	case newsnet.Close:
		// No LinkDown goes back: the core already forgot the link.
		if p := n.peers[a.Link]; p != nil {
			n.log.Debug("closing link", "link", a.Link, "peer", p.addr, "reason", a.Reason)
			delete(n.peers, a.Link)
			n.flush(p) // what the core sent before the close goes first
			p.closeGracefully()
		}
	case newsnet.Deliver:
		if n.onDeliver != nil {
			n.onDeliver(a.Msg)
		}
	case newsnet.Published:
		if p := n.publishing; p != nil && p.m.ID == a.ID {
			p.report = a
		}
		if n.onPublish != nil {
			n.onPublish(a)
		}
	case newsnet.Progress:
		if n.onProgress != nil {
			n.onProgress(a.Source, a.Next)
		}
	case newsnet.Lost:
		n.log.Warn("messages lost", "source", a.Source, "n", a.N, "total", a.Total)
		if n.onLost != nil {
			n.onLost(a)
		}
	case newsnet.ReachUpdated:
		if n.onReach != nil {
			n.onReach(a)
		}
	case newsnet.CensusAnswered:
		n.censusAnswered(a)
	case newsnet.StoreBlobHead, newsnet.StoreBlobChunk, newsnet.BlobDone, newsnet.BlobLost, newsnet.BlobProgress:
		n.keepBlob(a)
	case newsnet.ReadPage:
		n.wg.Add(1)
		go n.readPage(a)
	case newsnet.Note:
		n.log.Info(a.Text)
	default:
		n.log.Error("unknown action from the core", "action", fmt.Sprintf("%T", a))
	}
}

// remoteAddr is the IP address conn comes from, the zero Addr when it is
// not a TCP connection.
func remoteAddr(conn net.Conn) netip.Addr {
	if a, ok := conn.RemoteAddr().(*net.TCPAddr); ok {
		return a.AddrPort().Addr()
	}
	return netip.Addr{}
}

// readPage reads a catch-up page from the archive off the loop, as the
// core asks (it bounds the reads in flight), and hands it to the loop.
func (n *Node) readPage(a newsnet.ReadPage) {
	defer n.wg.Done()
	var msgs []*newsnet.Multicast
	if n.core.Archive != nil {
		msgs = n.core.Archive.CatchUp(a.Categories, a.Known, a.Since, a.Limit)
	}
	select {
	case n.pagesRead <- newsnet.PageRead{Req: a.Req, Msgs: msgs}:
	case <-n.ctx.Done():
	}
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

// dial connects to addr for the core's join attempt on link and reports the
// outcome to the loop. Dial and handshake together get within, or
// Protocol.JoinTimeout when the core did not say.
func (n *Node) dial(link newsnet.LinkID, addr newsnet.ServantID, within time.Duration) {
	defer n.wg.Done()
	ctx, cancel := context.WithTimeout(n.ctx, cmp.Or(within, n.core.JoinTimeout))
	defer cancel()
	conn, err := n.dialFrom(ctx, string(addr))
	var p *peer
	if err == nil {
		if n.wrapDial != nil {
			conn = n.wrapDial(conn)
		}
		deadline, _ := ctx.Deadline()
		h, herr := n.handshake(ctx, conn, deadline, true)
		if herr != nil {
			h.raw.Close()
			n.refused(herr, string(addr), false)
			err = herr
		} else {
			p = newPeer(link, h, false)
		}
	}
	select {
	case n.dialed <- dialed{link: link, peer: p, err: err}:
	case <-n.ctx.Done():
		if p != nil {
			p.raw.Close()
		}
	}
}

// dialFrom dials addr from this servant's advertised address when that is
// an address of this computer, so that the connection comes from where
// the servant says it is: what up-servants judge audiences by for a leaf
// (newsnet/audience.go). A computer with several addresses (a VPN beside
// its LAN) would otherwise connect from whichever its routes pick. Where
// binding fails, it dials as the system chooses.
func (n *Node) dialFrom(ctx context.Context, addr string) (net.Conn, error) {
	var d net.Dialer
	if ip := n.sourceIP(); ip.IsValid() {
		bound := net.Dialer{LocalAddr: net.TCPAddrFromAddrPort(netip.AddrPortFrom(ip, 0))}
		if conn, err := bound.DialContext(ctx, "tcp", addr); err == nil || ctx.Err() != nil {
			return conn, err
		}
	}
	return d.DialContext(ctx, "tcp", addr)
}

// sourceIP is the advertised address when it is one of this computer's
// (checked once), the zero Addr otherwise.
func (n *Node) sourceIP() netip.Addr {
	n.sourceOnce.Do(func() {
		ap, err := netip.ParseAddrPort(string(n.id))
		if err != nil {
			return
		}
		ip := ap.Addr().Unmap()
		if ip.IsLoopback() {
			n.source = ip
			return
		}
		addrs, err := net.InterfaceAddrs()
		if err != nil {
			return
		}
		for _, a := range addrs {
			if pfx, err := netip.ParsePrefix(a.String()); err == nil && pfx.Addr().Unmap() == ip {
				n.source = ip
				return
			}
		}
	})
	return n.source
}

// acceptLoop accepts connections and runs each one's handshake in its own
// goroutine, so a client that connects and stays silent delays nobody.
func (n *Node) acceptLoop() {
	defer n.wg.Done()
	var backoff time.Duration
	for {
		conn, err := n.ln.Accept()
		if err != nil {
			if n.ctx.Err() != nil || errors.Is(err, net.ErrClosed) {
				return
			}
			// Out of file descriptors or similar: wait a little and retry
			// rather than spin.
			backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
			n.log.Warn("accept failed", "err", err, "retry", backoff)
			select {
			case <-time.After(backoff):
			case <-n.ctx.Done():
				return
			}
			continue
		}
		backoff = 0
		n.wg.Add(1)
		go n.acceptHandshake(conn)
	}
}

// acceptHandshake secures an accepted connection (on a secured node),
// exchanges hellos and hands it to the loop, or closes it with a logged and
// counted reason.
func (n *Node) acceptHandshake(conn net.Conn) {
	defer n.wg.Done()
	h, err := n.handshake(n.ctx, conn, time.Now().Add(n.hsTimeout), false)
	if err != nil {
		h.raw.Close()
		n.refused(err, conn.RemoteAddr().String(), true)
		return
	}
	p := newPeer(0, h, true)
	select {
	case n.accepted <- accepted{peer: p}:
	case <-n.ctx.Done():
		conn.Close()
	}
}
