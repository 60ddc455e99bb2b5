package app

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/google/uuid"

	"newsdesk/network"
	"newsdesk/news"
	"newsdesk/newsnet"
	"newsdesk/storage"
	"newsdesk/trust"
)

// The methods the desktop UI uses (ui.Backend). Reading goes straight to the
// store; read-state changes announce themselves with ReadStateChanged.

// Newest returns up to n items of cats (and below them; none means all),
// newest first, after cur.
func (a *App) Newest(cats []string, n int, cur Cursor) ([]Entry, Cursor, error) {
	out, next, err := a.store.Newest(cats, n, storage.Cursor(cur))
	return convert(hideSystemEntries(out), a.entryView), Cursor(next), err
}

// Search finds items whose title or body contain every word of query.
func (a *App) Search(ctx context.Context, query string, cats []string, n int, cur Cursor) ([]Entry, Cursor, error) {
	out, next, err := a.store.Search(ctx, query, cats, n, storage.Cursor(cur))
	return convert(hideSystemEntries(out), a.entryView), Cursor(next), err
}

// Item returns one stored item. An item of a system group is not there
// for the UI (ErrNotFound): the reader, My posts and the notifications
// look items up by the IDs events name.
func (a *App) Item(id uuid.UUID) (Entry, error) {
	e, err := a.store.Get(id)
	if err == nil && network.IsSystemItem(e.Item) {
		return Entry{}, fmt.Errorf("%w: item %s", ErrNotFound, id)
	}
	return a.entryView(e), err
}

// UnreadCounts returns the unread items per exact category.
func (a *App) UnreadCounts() (map[string]uint64, error) {
	m, err := a.store.UnreadCounts()
	maps.DeleteFunc(m, func(c string, _ uint64) bool { return network.IsSystemCategory(c) })
	return m, err
}

// MarkRead marks items read.
func (a *App) MarkRead(ids ...uuid.UUID) error {
	n, err := a.store.MarkRead(ids...)
	if n > 0 {
		a.events.emit(Event{Kind: ReadStateChanged, Items: slices.Clone(ids)})
		a.tellRead(ids)
	}
	return err
}

// MarkUnread marks items unread.
func (a *App) MarkUnread(ids ...uuid.UUID) error {
	n, err := a.store.MarkUnread(ids...)
	if n > 0 {
		a.events.emit(Event{Kind: ReadStateChanged, Items: slices.Clone(ids)})
	}
	return err
}

// MarkAllRead marks every item of category and below it read ("" for all).
func (a *App) MarkAllRead(category string) error {
	n, err := a.store.MarkAllRead(category)
	if n > 0 {
		var cats []string // nil: every category
		if category != "" {
			cats = []string{category}
		}
		a.events.emit(Event{Kind: ReadStateChanged, Categories: cats})
		a.tellAllRead()
	}
	return err
}

// myPostsCursor prefixes the cursors of MyPosts, which page by count.
const myPostsCursor = "own:"

// MyPosts returns the items this installation published, newest first, n
// at a time. It walks the store's per-source index backwards from the
// highest own count, so it costs the page, not the store.
func (a *App) MyPosts(n int, cur Cursor) ([]Entry, Cursor, error) {
	if n <= 0 {
		return nil, "", fmt.Errorf("my posts: page size %d, must be positive", n)
	}
	var below uint64 // counts strictly below this
	if cur == "" {
		hi, err := a.store.HighestStoredCount(a.source)
		if err != nil {
			return nil, "", err
		}
		below = hi + 1
	} else {
		v, ok := strings.CutPrefix(string(cur), myPostsCursor)
		c, err := strconv.ParseUint(v, 10, 64)
		if !ok || err != nil {
			return nil, "", fmt.Errorf("%w: %q", ErrBadCursor, string(cur))
		}
		below = c
	}
	var found []*news.Item // ascending counts, all below `below`
	span := uint64(n)
	for below > 1 {
		after := uint64(0)
		if below-1 > span {
			after = below - 1 - span
		}
		items, err := a.store.ItemsAfter(a.source, after, int(below-1-after))
		if err != nil {
			return nil, "", err
		}
		// With holes in the range the limit reaches counts above it.
		items = slices.DeleteFunc(items, func(it *news.Item) bool { return it.SourceCount >= below })
		found = append(items, found...)
		below = after + 1
		if len(found) >= n || after == 0 {
			break
		}
		span *= 2 // holes (purged or failed items): look further back
	}
	more := len(found) > n || below > 1
	if len(found) > n {
		found = found[len(found)-n:]
	}
	out := make([]storage.Entry, 0, len(found))
	for i := len(found) - 1; i >= 0; i-- {
		e, err := a.store.Get(found[i].ID)
		if errors.Is(err, storage.ErrNotFound) {
			continue // purged meanwhile
		}
		if err != nil {
			return nil, "", err
		}
		out = append(out, e)
	}
	var next Cursor
	if more && len(found) > 0 {
		next = Cursor(myPostsCursor + strconv.FormatUint(found[0].SourceCount, 10))
	}
	return convert(hideSystemEntries(out), a.entryView), next, nil
}

// Status returns the servant's place in the tree as the UI shows it.
// Before the servant has started, Role is idle.
// Its counters are of news: the servant's own publications in the system
// groups are not among them (syscount.go).
func (a *App) Status() NetStatus {
	v := netStatusView(a.ServantStatus())
	a.sysCounts.remove(&v.Counters)
	return v
}

// ServantStatus returns the servant's whole status. Before the servant has
// started, Role is idle.
func (a *App) ServantStatus() ServantStatus {
	ns := a.servantStatus()
	ns.LostBlobs = a.BlobsLost()
	ns.Lost += ns.LostBlobs
	return ns
}

func (a *App) servantStatus() ServantStatus {
	tr := a.storeTrouble.Load()
	ns := ServantStatus{AppStatus: AppStatus{Source: a.sourceStr, Lost: a.lost.Load(), StoreProblem: tr.Problem, Unstored: tr.Unstored,
		Moved: a.addrChange.Load(), PortMoved: a.portMoved.Load(), Release: Release, NewerNetwork: a.Network().NewerMembers(),
		Evicted: a.evicted.Load()}}
	if r := a.newerRelease.Load(); r != nil {
		ns.NewerRelease = *r
	}
	n := a.currentNode()
	if n == nil {
		ns.Role = newsnet.RoleIdle
		ns.Listen = a.Settings().Listen
		return ns
	}
	ns.Status = n.Status()
	hideSystemStatus(&ns.Status)
	ns.Listen = a.listenAddr(n)
	ns.Connected = ns.Role == newsnet.RoleAttached || ns.Role == newsnet.RoleVertex
	ns.Alone = a.alone(ns.Status)
	// The servant counts from the persisted total on; the total may be
	// ahead of it for a moment while a loss is being stored.
	ns.Lost = max(ns.Counters.Lost, ns.Lost)
	return ns
}

// listenAddr is the address n was told to listen on, with the port it
// chose for port 0.
func (a *App) listenAddr(n Servant) string {
	a.mu.Lock()
	listen := a.listen
	a.mu.Unlock()
	host, port, err := net.SplitHostPort(listen)
	if err != nil || port != "0" {
		return listen
	}
	if _, p, err := net.SplitHostPort(string(n.Addr())); err == nil {
		return net.JoinHostPort(host, p)
	}
	return listen
}

// probeTimeout bounds a probe when ctx has no earlier deadline.
const probeTimeout = 5 * time.Second

// Probe tests whether a newsdesk servant answers at addr: it connects and
// exchanges the protocol hello, and reports the round-trip time or, in
// words, what went wrong.
func (a *App) Probe(ctx context.Context, addr string) Probe {
	p := Probe{Addr: addr}
	if _, err := newsnet.ParseServantID(addr); err != nil {
		p.Problem, p.Kind = "not an address: "+err.Error(), ProbeBadAddress
		return p
	}
	if a.opts.Probe != nil {
		return a.opts.Probe(ctx, addr)
	}
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	start := time.Now()
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		p.Problem, p.Kind = dialProblem(ctx, addr, err)
		return p
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { conn.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	if dl, ok := ctx.Deadline(); ok {
		conn.SetDeadline(dl)
	}
	// The links are TLS 1.3 with a proof of the network secret (issue 6):
	// the probe runs the same handshake as a servant that dials.
	tc := tls.Client(conn, trust.TLSConfig(a.identity, false))
	if err := tc.HandshakeContext(ctx); err != nil {
		if ctx.Err() != nil {
			p.Problem, p.Kind = fmt.Sprintf("connected, but no TLS answer within %v: something else listens there", probeTimeout), ProbeNotNewsdesk
		} else {
			p.Problem, p.Kind = "connected, but the TLS handshake failed (not a newsdesk servant, or an older version): "+err.Error(), ProbeHandshake
		}
		return p
	}
	exporter, err := trust.ExporterValue(tc.ConnectionState())
	if err != nil {
		p.Problem = "TLS: " + err.Error()
		return p
	}
	secret := a.Network().Secret
	if _, err := tc.Write(trust.LinkProof(secret, exporter, trust.RoleClient)); err != nil {
		p.Problem, p.Kind = "connected, but sending the membership proof failed: "+err.Error(), ProbeBroken
		return p
	}
	proof := make([]byte, len(trust.LinkProof(secret, exporter, trust.RoleServer)))
	if _, err := io.ReadFull(tc, proof); err != nil {
		p.Problem, p.Kind = "connected, but the servant refused this installation: it belongs to another network (or the network secret changed)", ProbeOtherNetwork
		return p
	}
	if !trust.CheckLinkProof(secret, exporter, trust.RoleServer, proof) {
		p.Problem, p.Kind = "a newsdesk servant of another network answers there (its membership proof does not match this network's secret)", ProbeOtherNetwork
		return p
	}
	own := newsnet.OwnHello(Release)
	if err := newsnet.WriteHello(tc, own); err != nil {
		p.Problem, p.Kind = "connected, but sending the hello failed: "+err.Error(), ProbeBroken
		return p
	}
	peer, err := newsnet.ReadHello(tc)
	if err != nil {
		switch {
		case ctx.Err() != nil:
			p.Problem, p.Kind = fmt.Sprintf("connected, but no newsdesk hello within %v: something else listens there", probeTimeout), ProbeNotNewsdesk
		case errors.Is(err, io.EOF):
			p.Problem, p.Kind = "connected, but the other side closed the connection: not a newsdesk servant, or it is shutting down", ProbeClosed
		default:
			p.Problem, p.Kind = "connected, but it does not speak the newsdesk protocol: "+err.Error(), ProbeNotNewsdesk
		}
		return p
	}
	if _, err := newsnet.NegotiateVersion(own, peer); err != nil {
		p.Problem, p.Kind = "a newsdesk servant answers, but the two cannot link: "+err.Error(), ProbeIncompatible
		return p
	}
	p.OK = true
	p.RTT = time.Since(start)
	return p
}

// dialProblem explains a failed connection attempt, in English and by
// kind.
func dialProblem(ctx context.Context, addr string, err error) (string, ProbeKind) {
	var dnsErr *net.DNSError
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused: nothing listens on " + addr + " (newsdesk not running there, or another port)", ProbeRefused
	case errors.As(err, &dnsErr):
		return "host name not found: " + dnsErr.Name, ProbeNoSuchHost
	case ctx.Err() != nil || errors.Is(err, context.DeadlineExceeded):
		return fmt.Sprintf("no answer within %v: the computer is off or a firewall drops the connection", probeTimeout), ProbeTimedOut
	case errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH):
		return "no route to " + addr + ": check the address and the network", ProbeNoRoute
	}
	return "cannot connect: " + err.Error(), ProbeOther
}

// Events delivers change notifications until Close, which closes the
// channel. Events are coalesced while the reader is behind.
func (a *App) Events() <-chan Event { return a.events.out }
