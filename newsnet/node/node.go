// Package node runs one newsnet.Servant over TCP: the runtime half of the
// overlay, where the protocol core meets sockets and clocks.
//
// One goroutine, the loop, owns the Servant. It is the only goroutine that
// calls Step and the only one that touches link state; everything else talks
// to it over channels:
//
//	ticker ─────────────► Tick{now}
//	acceptor ─ hello ───► LinkUp{Inbound}          ┌──► writer (per link, bounded queue)
//	dialer ─── hello ───► LinkUp / LinkDown   loop ┤
//	reader (per link) ──► Received / LinkDown      └──► OnDeliver, log, API replies
//	API calls ──────────► closures run on the loop
//
// With Config.Security, a TLS 1.3 handshake and the network-secret link
// proofs come before the hello, on the acceptor's and dialer's goroutines.
//
// The loop never blocks on a peer: sends go to a bounded per-link queue, and
// a peer that lets its queue fill is closed ("peer too slow"). Readers only
// decode and forward. Every goroutine is tracked by one WaitGroup, so Close
// returns only when all of them are gone.
package node

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
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

	sec       *linkSecurity // nil: plain TCP
	stats     secStats
	wrapDial  func(net.Conn) net.Conn
	hsTimeout time.Duration // accept-side handshake bound

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

	// Loop state: touched only by the loop goroutine.
	servant     *newsnet.Servant
	peers       map[newsnet.LinkID]*peer
	nextInbound newsnet.LinkID
	pending     []newsnet.Event   // events raised while carrying out actions
	publishing  map[[16]byte]*int // Publish calls awaiting their Published action
	stopped     bool              // Stop was sent to the core

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
	}
	ln, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		return nil, fmt.Errorf("node: %w", err)
	}
	id := cfg.Advertise
	if id == "" {
		id = newsnet.ServantID(ln.Addr().String())
	}
	core := coreConfig(cfg.Core, id)
	s, err := newsnet.New(core)
	if err != nil {
		ln.Close()
		return nil, fmt.Errorf("node: %w", err)
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	n := &Node{
		id:         id,
		core:       core,
		log:        log.With("servant", string(id)),
		ln:         ln,
		onDeliver:  cfg.OnDeliver,
		onProgress: cfg.OnProgress,
		onPublish:  cfg.OnPublished,
		sec:        sec,
		wrapDial:   cfg.wrapDial,
		hsTimeout:  cmp.Or(cfg.handshakeTimeout, handshakeTimeout),
		done:       make(chan struct{}),
		accepted:   make(chan accepted),
		dialed:     make(chan dialed),
		fromPeers:  make(chan fromPeer, 256),
		requests:   make(chan request),
		servant:    s,
		peers:      make(map[newsnet.LinkID]*peer),
		publishing: make(map[[16]byte]*int),
	}
	n.ctx, n.cancel = context.WithCancel(ctx)
	n.final = s.Status()
	n.wg.Add(2)
	go n.acceptLoop()
	go n.run()
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
	ticker := time.NewTicker(n.core.TickInterval)
	defer ticker.Stop()

	n.step(newsnet.Tick{Now: time.Now()})
	n.step(newsnet.Start{})
	for {
		select {
		case <-ticker.C:
			// time.Now, not the ticker's value: that may be stale after a
			// slow iteration, and the core's clock only moves forward anyway.
			n.step(newsnet.Tick{Now: time.Now()})
		case a := <-n.accepted:
			if !n.stillAccepted(a.peer) {
				a.peer.raw.Close()
				break
			}
			n.nextInbound++
			p := a.peer
			p.id = n.nextInbound
			n.linkUp(p)
			n.step(newsnet.LinkUp{Link: p.id, Inbound: true})
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
			n.step(newsnet.LinkUp{Link: d.link})
		case f := <-n.fromPeers:
			p := n.peers[f.link]
			switch {
			case p == nil:
				// Closed by the core or the runtime already: whatever was
				// still in flight is moot.
			case f.msg != nil:
				n.step(newsnet.Received{Link: f.link, Msg: f.msg})
			default:
				n.log.Debug("link lost", "link", f.link, "peer", p.addr, "reason", f.reason)
				delete(n.peers, f.link)
				close(p.queue)
				n.step(newsnet.LinkDown{Link: f.link, Reason: f.reason})
			}
		case r := <-n.requests:
			r.f(n.servant)
			close(r.done)
		case <-n.ctx.Done():
			n.shutdown()
			return
		}
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
	for id, p := range n.peers {
		delete(n.peers, id)
		p.closeGracefully()
	}
	n.finalMu.Lock()
	n.final = n.servant.Status()
	n.finalMu.Unlock()
}

// linkUp starts the goroutines of an established connection. Loop only.
func (n *Node) linkUp(p *peer) {
	n.peers[p.id] = p
	n.log.Debug("link up", "link", p.id, "peer", p.addr, "inbound", p.inbound, "key", p.key)
	n.wg.Add(2)
	go n.readLoop(p)
	go func() {
		defer n.wg.Done()
		p.writeLoop(n.core.LinkTimeout, n.log)
	}()
}

// step feeds ev to the servant and carries out the actions, then any events
// those raised (a slow peer's LinkDown), until nothing is left. Loop only.
func (n *Node) step(ev newsnet.Event) {
	n.pending = append(n.pending, ev)
	for len(n.pending) > 0 {
		ev := n.pending[0]
		n.pending = n.pending[1:]
		for _, a := range n.servant.Step(ev) {
			n.act(a)
		}
	}
	n.pending = n.pending[:0]
}

// act carries out one action. It never blocks on the network. Loop only.
func (n *Node) act(a newsnet.Action) {
	switch a := a.(type) {
	case newsnet.Dial:
		n.wg.Add(1)
		go n.dial(a.Link, a.Addr)
	case newsnet.Send:
		p := n.peers[a.Link]
		if p == nil {
			return // the core's contract: sends on a closed link are dropped
		}
		if !p.enqueue(a.Msg) {
			n.log.Warn("closing link: peer too slow", "peer", p.addr, "link", p.id, "queued", writeQueueLen)
			delete(n.peers, a.Link)
			p.abort("peer too slow")
			n.pending = append(n.pending, newsnet.LinkDown{Link: a.Link, Reason: "peer too slow"})
		}
	case newsnet.Close:
		// No LinkDown goes back: the core already forgot the link.
		if p := n.peers[a.Link]; p != nil {
			n.log.Debug("closing link", "link", a.Link, "peer", p.addr, "reason", a.Reason)
			delete(n.peers, a.Link)
			p.closeGracefully()
		}
	case newsnet.Deliver:
		if n.onDeliver != nil {
			n.onDeliver(a.Msg)
		}
	case newsnet.Published:
		if links := n.publishing[a.ID]; links != nil {
			*links = a.Links
		}
		if n.onPublish != nil {
			n.onPublish(a)
		}
	case newsnet.Progress:
		if n.onProgress != nil {
			n.onProgress(a.Source, a.Next)
		}
	case newsnet.Note:
		n.log.Info(a.Text)
	default:
		n.log.Error("unknown action from the core", "action", fmt.Sprintf("%T", a))
	}
}

// dial connects to addr for the core's join attempt on link and reports the
// outcome to the loop. Dial and handshake together get Core.JoinTimeout.
func (n *Node) dial(link newsnet.LinkID, addr newsnet.ServantID) {
	defer n.wg.Done()
	ctx, cancel := context.WithTimeout(n.ctx, n.core.JoinTimeout)
	defer cancel()
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", string(addr))
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
