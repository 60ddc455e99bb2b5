// Package simnode starts servants configured as node.Start's on one
// simulated network (newsnet/sim) that runs alongside the clock: the
// in-memory stand-in for the TCP node in tests of the application.
//
// A Network's virtual time is time.Now. One goroutine brings the
// simulation up to the present and sleeps until something is next due (a
// frame, a link event, a tick); a call on a Node first brings it up to the
// present too, then steps that servant. So a servant's time and its host's
// are one, and so are their timers.
//
// Inside a testing/synctest bubble the clock is the bubble's: a test runs
// in virtual time without sleeping, and synctest.Wait returns once the
// servants and their hosts all wait for the clock (or for each other) —
// the barrier for everything a host does on its own goroutines and
// timers. Create the Network inside the bubble and Close it there. Outside
// a bubble it runs in real time, without sockets.
//
// What a runtime does besides running the core is not simulated: there
// are no sockets and no TLS (Config.Security is ignored: every link is
// admitted, and Reauthenticate does nothing), PublishBatch never waits for
// a backlog to clear, and the core configuration is used as given (node.Start
// fills zero durations and counts from newsnet.DefaultConfig; pass a
// complete one).
package simnode

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"slices"
	"strconv"
	"sync"
	"time"

	"newsdesk/newsnet"
	"newsdesk/newsnet/node"
	"newsdesk/newsnet/sim"
)

// firstPort is the first port handed out for a listen address with port
// 0: below the range the kernel picks ephemeral ports from, so an address
// a test got from a real listener never names a simulated servant.
const firstPort = 20000

// Network is a simulated network that runs alongside the clock, and the
// servants started on it. Its methods are safe for concurrent use.
type Network struct {
	mu    sync.Mutex // held while the simulation runs: the servants' callbacks run under it
	sim   *sim.Network
	port  int // the last port handed out
	nodes map[newsnet.ServantID]*Node

	wake chan struct{} // (1) something may be due earlier than the runner sleeps for
	stop chan struct{}
	done chan struct{}
}

// New starts an empty network at the present time, its randomness (link
// latencies, the servants' jitter) drawn from seed. Every frame goes
// through the wire codec (sim.Network.WireCheck), as on TCP.
func New(seed uint64) *Network {
	s := sim.NewAt(seed, time.Now())
	s.WireCheck = true
	w := &Network{
		sim:   s,
		port:  firstPort - 1,
		nodes: make(map[newsnet.ServantID]*Node),
		wake:  make(chan struct{}, 1),
		stop:  make(chan struct{}),
		done:  make(chan struct{}),
	}
	go w.run()
	return w
}

// Close stops the goroutine that runs the network. Servants still running
// stop with it; their hosts should have closed them. It is safe to call
// more than once.
func (w *Network) Close() {
	w.mu.Lock()
	select {
	case <-w.stop:
	default:
		close(w.stop)
	}
	w.mu.Unlock()
	<-w.done
}

// Do runs f on the simulated network, brought up to the present, while
// nothing else runs: for faults (Cut, Crash, Delay, Stall), the invariants
// (CheckTree, Violations) and statistics. f must not call the Nodes or
// advance the network's time.
func (w *Network) Do(f func(*sim.Network)) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.catchUp()
	f(w.sim)
	w.poke()
}

// run brings the simulation up to the present whenever something is due.
func (w *Network) run() {
	defer close(w.done)
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		w.mu.Lock()
		w.catchUp()
		next := w.sim.Next()
		w.mu.Unlock()
		timer.Reset(time.Until(next))
		select {
		case <-timer.C:
		case <-w.wake:
		case <-w.stop:
			return
		}
	}
}

// catchUp runs the simulation up to the present. With mu held.
func (w *Network) catchUp() {
	if d := time.Now().Sub(w.sim.Now()); d > 0 {
		w.sim.RunFor(d)
	}
}

// poke tells the runner that a step may have scheduled something due
// before it wakes. It never waits.
func (w *Network) poke() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// Start starts a servant on the network, as node.Start does on TCP. Its
// ID is cfg.Advertise, else cfg.Listen, where port 0 takes a port no
// servant of this network had; a live servant with that ID makes it fail
// as a listen on a busy port does. The callbacks of cfg run on whichever
// goroutine brings the simulation up to the present, one at a time, and
// must not call the Node's methods. ctx is not used: a simulated servant
// runs until Close.
func (w *Network) Start(_ context.Context, cfg node.Config) (*Node, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	id, err := w.servantID(cfg.Listen, cfg.Advertise)
	if err != nil {
		return nil, fmt.Errorf("simnode: %w", err)
	}
	if _, busy := w.nodes[id]; busy {
		return nil, fmt.Errorf("simnode: listen %s: address already in use", id)
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	log = log.With("servant", string(id))
	core := cfg.Protocol
	core.ID = id
	if cfg.Blobs != nil {
		core.Blob.Store = cfg.Blobs
	}
	onLost := cfg.OnLost
	host := sim.Host{
		OnDeliver:   cfg.OnDeliver,
		OnProgress:  cfg.OnProgress,
		OnPublished: cfg.OnPublished,
		OnReach:     cfg.OnReach,
		OnLost: func(l newsnet.Lost) {
			log.Warn("messages lost", "source", l.Source, "n", l.N, "total", l.Total)
			if onLost != nil {
				onLost(l)
			}
		},
		OnNote: func(text string) { log.Info(text) },
		OnBlob: func(a newsnet.Action) {
			if err := node.KeepBlob(cfg.Blobs, cfg.OnBlob, a); err != nil {
				log.Warn("keeping an attachment's chunk failed", "err", err)
			}
		},
	}
	var n *Node
	host.OnCensus = func(a newsnet.CensusAnswered) { // under w.mu, as every callback
		if ch := n.censusWait[a.ID]; ch != nil {
			delete(n.censusWait, a.ID)
			ch <- a
		}
	}
	w.catchUp()
	nd, err := w.sim.AddHosted(core, host)
	if err != nil {
		return nil, fmt.Errorf("simnode: %w", err)
	}
	n = &Node{w: w, id: id, sim: nd}
	w.nodes[id] = n
	w.poke()
	return n, nil
}

// Running reports whether a servant with this ID runs on the network:
// what a probe of its address finds (the demo mode's, app/demo).
func (w *Network) Running(id newsnet.ServantID) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	_, ok := w.nodes[id]
	return ok
}

// servantID is the ID a servant started with these addresses gets.
func (w *Network) servantID(listen string, advertise newsnet.ServantID) (newsnet.ServantID, error) {
	if advertise != "" {
		if _, err := newsnet.ParseServantID(string(advertise)); err != nil {
			return "", fmt.Errorf("advertised address: %w", err)
		}
		return advertise, nil
	}
	host, port, err := net.SplitHostPort(listen)
	if err != nil {
		return "", fmt.Errorf("listen address %q: %v", listen, err)
	}
	if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
		return "", fmt.Errorf("listen address %q is a wildcard that other servants cannot dial", listen)
	}
	if port == "0" {
		for {
			w.port++
			id := newsnet.ServantID(net.JoinHostPort(host, strconv.Itoa(w.port)))
			if w.sim.Node(id) == nil {
				port = strconv.Itoa(w.port)
				break
			}
		}
	}
	id := newsnet.ServantID(net.JoinHostPort(host, port))
	if _, err := newsnet.ParseServantID(string(id)); err != nil {
		return "", fmt.Errorf("listen address: %w", err)
	}
	return id, nil
}

// Node is a servant running on a Network. It has the methods of
// *node.Node that an application uses; they are safe for concurrent use.
type Node struct {
	w  *Network
	id newsnet.ServantID

	// Guarded by w.mu.
	sim    *sim.Node
	closed bool
	final  newsnet.Status // the status when it closed
	// census queries under way, by ID (QueryCensus)
	censusQuery uint64
	censusWait  map[uint64]chan newsnet.CensusAnswered
}

// Addr returns the servant ID.
func (n *Node) Addr() newsnet.ServantID { return n.id }

// Status returns a snapshot of the servant; after Close, the last one
// (role "stopped").
func (n *Node) Status() newsnet.Status {
	n.w.mu.Lock()
	defer n.w.mu.Unlock()
	if n.closed {
		return n.final
	}
	n.w.catchUp()
	return n.sim.Servant.Status()
}

// PublishBatch publishes ms in order and returns the core's report of
// each, as node.Node.PublishBatch does, without waiting for a backlog.
// After Close it fails with node.ErrClosed.
func (n *Node) PublishBatch(ctx context.Context, ms []*newsnet.Multicast) ([]newsnet.Published, error) {
	for _, m := range ms {
		if m == nil {
			return nil, errors.New("simnode: publish: nil message")
		}
		if err := newsnet.ValidCategory(m.Category); err != nil {
			return nil, fmt.Errorf("simnode: publish: %w", err)
		}
		if _, err := newsnet.AppendFrame(nil, m); err != nil {
			return nil, fmt.Errorf("simnode: publish: %w", err)
		}
	}
	n.w.mu.Lock()
	defer n.w.mu.Unlock()
	if n.closed {
		return nil, node.ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	n.w.catchUp()
	reports := make([]newsnet.Published, len(ms))
	for i, m := range ms {
		reports[i] = n.w.sim.PublishReport(n.id, m)
	}
	n.w.poke()
	return reports, nil
}

// SetSubscriptions replaces the categories delivered to this servant,
// refusing what node.Node.SetSubscriptions refuses.
func (n *Node) SetSubscriptions(categories []string) error {
	if err := newsnet.CheckSubscriptions(categories); err != nil {
		return fmt.Errorf("simnode: %w", err)
	}
	n.w.mu.Lock()
	defer n.w.mu.Unlock()
	if n.closed {
		return node.ErrClosed
	}
	n.w.catchUp()
	n.w.sim.Subscribe(n.id, slices.Clone(categories)...)
	n.w.poke()
	return nil
}

// SetSeeds replaces the seed list of the running servant, as
// node.Node.SetSeeds does, refusing what it refuses.
func (n *Node) SetSeeds(seeds []newsnet.ServantID) error {
	for _, s := range seeds {
		if _, err := newsnet.ParseServantID(string(s)); err != nil {
			return fmt.Errorf("simnode: seed list: %w", err)
		}
	}
	n.w.mu.Lock()
	defer n.w.mu.Unlock()
	if n.closed {
		return node.ErrClosed
	}
	n.w.catchUp()
	n.w.sim.SetSeeds(n.id, seeds...)
	n.w.poke()
	return nil
}

// Reach returns the current reach of this servant's publication id, as
// node.Node.Reach does; false when the core does not track it or the node
// is closed.
func (n *Node) Reach(id [16]byte) (newsnet.ReachTotals, bool) {
	n.w.mu.Lock()
	defer n.w.mu.Unlock()
	if n.closed {
		return newsnet.ReachTotals{}, false
	}
	n.w.catchUp()
	return n.sim.Servant.Reach(id)
}

// Read tells the core that the local reader opened item id of source
// (node.Node.Read).
func (n *Node) Read(id [16]byte, source string) error {
	return n.tellReach(newsnet.ReadItem{ID: id, Source: source})
}

// MustRead tells the core that item id of source is must-read, with the
// reader's identity blob (node.Node.MustRead), refusing what it refuses.
func (n *Node) MustRead(id [16]byte, source string, identity []byte) error {
	if err := checkBlob("identity", identity); err != nil {
		return err
	}
	return n.tellReach(newsnet.MustReadItem{ID: id, Source: source, Identity: slices.Clone(identity)})
}

// Acknowledge tells the core that the local reader confirmed must-read
// item id of source with proof (node.Node.Acknowledge), refusing what it
// refuses.
func (n *Node) Acknowledge(id [16]byte, source string, proof []byte) error {
	if err := checkBlob("acknowledgement", proof); err != nil {
		return err
	}
	return n.tellReach(newsnet.AcknowledgeItem{ID: id, Source: source, Proof: slices.Clone(proof)})
}

func (n *Node) tellReach(ev newsnet.Event) error {
	n.w.mu.Lock()
	defer n.w.mu.Unlock()
	if n.closed {
		return node.ErrClosed
	}
	n.w.catchUp()
	n.w.sim.TellReach(n.id, ev)
	n.w.poke()
	return nil
}

// checkBlob refuses a blob no reach report could carry, as the TCP node
// does.
func checkBlob(what string, b []byte) error {
	if len(b) == 0 || len(b) > newsnet.MaxIdentityBytes {
		return fmt.Errorf("simnode: %s of %d bytes: must be 1..%d", what, len(b), newsnet.MaxIdentityBytes)
	}
	return nil
}

// FetchBlob asks the servant to get a blob whole here
// (node.Node.FetchBlob).
func (n *Node) FetchBlob(ref newsnet.BlobRef, source string) error {
	n.w.mu.Lock()
	defer n.w.mu.Unlock()
	if n.closed {
		return node.ErrClosed
	}
	n.w.catchUp()
	n.w.sim.FetchBlob(n.id, ref, source)
	n.w.poke()
	return nil
}

// QueryCensus asks target for its subtree's census and waits for the
// answer (node.Node.QueryCensus).
func (n *Node) QueryCensus(ctx context.Context, target newsnet.ServantID) (newsnet.NetworkCensus, error) {
	ch := make(chan newsnet.CensusAnswered, 1)
	n.w.mu.Lock()
	if n.closed {
		n.w.mu.Unlock()
		return newsnet.NetworkCensus{}, node.ErrClosed
	}
	n.w.catchUp()
	n.censusQuery++
	if n.censusWait == nil {
		n.censusWait = map[uint64]chan newsnet.CensusAnswered{}
	}
	n.censusWait[n.censusQuery] = ch
	n.w.sim.QueryCensus(n.id, target, n.censusQuery)
	n.w.poke()
	n.w.mu.Unlock()
	select {
	case a := <-ch:
		if a.Err != "" {
			return newsnet.NetworkCensus{}, errors.New(a.Err)
		}
		return a.Census, nil
	case <-ctx.Done():
		return newsnet.NetworkCensus{}, ctx.Err()
	}
}

// Reauthenticate does nothing: simulated links prove no network secret.
func (n *Node) Reauthenticate() {}

// Close stops the servant: it closes its links, and its neighbours see
// them drop. No callback runs after it returns. It is safe to call more
// than once.
func (n *Node) Close() error {
	n.w.mu.Lock()
	defer n.w.mu.Unlock()
	if n.closed {
		return nil
	}
	n.w.catchUp()
	n.w.sim.Close(n.id)
	n.closed = true
	n.final = n.sim.Servant.Status()
	delete(n.w.nodes, n.id)
	n.w.poke()
	return nil
}
