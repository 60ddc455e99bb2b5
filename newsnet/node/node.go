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
