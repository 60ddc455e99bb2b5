package node

import (
	"bufio"
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"sync"
	"time"

	"newsdesk/newsnet"
	"newsdesk/trust"
)

// Reasons a handshake is refused, the keys of Node.SecurityStats.
const (
	refusedTLS     = "tls"     // no TLS, TLS 1.2, wrong ALPN or certificate
	refusedProof   = "proof"   // the peer's link proof is missing or wrong
	refusedSecret  = "secret"  // this node has no network secret to prove with
	refusedTimeout = "timeout" // the handshake stalled past its deadline
	refusedHello   = "hello"   // the newsnet hello is missing or wrong
	refusedVersion = "version" // the peer speaks no wire version we speak
	refusedKey     = "key"     // a member's key that Security.Admit refused (revoked)
	// reauthClosed counts links closed by Reauthenticate.
	reauthClosed = "rotated"
)

// secretID names a network secret without keeping a copy of it: its
// SHA-256. Links remember the one the peer proved with, not an index, since
// indices shift when a rotation prepends a new secret.
type secretID [sha256.Size]byte

// linkSecurity is a node's TLS configuration and refusal counters.
type linkSecurity struct {
	secrets        func() [][]byte
	admit          func(ed25519.PublicKey) error
	client, server *tls.Config
	invitations    func(*tls.Conn) // Security.Invitations (invite.go)
}

// secStats counts refused handshakes by reason. Safe for concurrent use.
type secStats struct {
	mu sync.Mutex
	m  map[string]uint64
}

func (s *secStats) add(reason string, k uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = make(map[string]uint64)
	}
	s.m[reason] += k
}

// SecurityStats returns how many handshakes were refused, by reason: "tls"
// (no TLS, TLS 1.2, a certificate or ALPN the link does not allow),
// "proof" (a missing or wrong network-secret proof), "secret" (this node
// had no secret to prove with), "timeout" (a stall past the handshake
// deadline), "hello" (a bad newsnet hello); and "rotated", the links closed
// by Reauthenticate. Plain-TCP nodes count "timeout" and "hello" only.
// Reasons that never happened are absent. The map is a copy.
func (n *Node) SecurityStats() map[string]uint64 {
	n.stats.mu.Lock()
	defer n.stats.mu.Unlock()
	return maps.Clone(n.stats.m)
}

// Reauthenticate closes every link whose peer proved membership with a
// secret that Security.Secrets no longer returns, after a rotation dropped
// it; the core sees the loss as any other and reconnects, and the new
// handshake proves with the current secret. Links whose peer's secret is
// still accepted stay up. A handshake in flight during the call is checked
// again when it completes (see stillAccepted). It does nothing on a
// plain-TCP node or a closed one.
func (n *Node) Reauthenticate() {
	if n.sec == nil {
		return
	}
	accepted := n.acceptedSecrets()
	n.do(func(*newsnet.Servant) {
		var stale []newsnet.LinkID
		for id, p := range n.peers {
			if !accepted[p.secret] {
				stale = append(stale, id)
			}
		}
		for _, id := range stale {
			p := n.peers[id]
			if p == nil {
				continue // closed by the core while handling an earlier one
			}
			n.log.Info("closing link: peer's network secret no longer accepted", "link", id, "peer", p.addr)
			delete(n.peers, id)
			p.abort("network secret rotated")
			n.stats.add(reauthClosed, 1)
			n.step(newsnet.LinkDown{Link: id, Reason: "network secret rotated"})
		}
	})
}

func (n *Node) acceptedSecrets() map[secretID]bool {
	accepted := make(map[secretID]bool)
	for _, s := range n.sec.secrets() {
		accepted[sha256.Sum256(s)] = true
	}
	return accepted
}

// stillAccepted reports whether a connection that just passed its handshake
// may become a link: always on a plain node; on a secured one, when the
// secret its peer proved with is still accepted, in case a rotation (and
// Reauthenticate) happened while the handshake ran. A refused one is
// counted as "rotated" and logged. Loop only.
func (n *Node) stillAccepted(p *peer) bool {
	if n.sec == nil || n.acceptedSecrets()[p.secret] {
		return true
	}
	n.log.Info("dropping new link: peer's network secret no longer accepted", "peer", p.addr, "inbound", p.inbound)
	n.stats.add(reauthClosed, 1)
	return false
}

// handshaken is a connection that passed the handshake.
type handshaken struct {
	conn   net.Conn      // the TLS connection on a secured node
	raw    net.Conn      // the TCP connection
	r      *bufio.Reader // positioned after the peer's hello
	secret secretID      // the secret the peer proved with (secured only)
	key    string        // the peer's installation key (secured only)
	hello  newsnet.Hello // the peer's hello
	wire   uint16        // the link's wire version (newsnet.NegotiateVersion)
	spill  *spillConn    // under conn when secured, if raw is a socket
}

// refusal is a failed handshake with the reason counted for it.
type refusal struct {
	reason string
	err    error
}

func (e *refusal) Error() string { return e.reason + ": " + e.err.Error() }
func (e *refusal) Unwrap() error { return e.err }

func refuse(reason string, err error) error {
	if ne, ok := errors.AsType[net.Error](err); ok && ne.Timeout() {
		reason = refusedTimeout
	}
	return &refusal{reason: reason, err: err}
}

// handshake secures a fresh connection (on a secured node) and exchanges
// hellos, all before deadline or until ctx ends. client is true for the
// dialing side. On error the caller closes conn.
func (n *Node) handshake(ctx context.Context, conn net.Conn, deadline time.Time, client bool) (handshaken, error) {
	stop := context.AfterFunc(ctx, func() { conn.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	conn.SetDeadline(deadline)
	h := handshaken{conn: conn, raw: conn}
	if n.sec != nil {
		if err := n.secure(&h, client); err != nil {
			return h, err
		}
	}
	own := newsnet.OwnHello(n.release)
	if err := newsnet.WriteHello(h.conn, own); err != nil {
		return h, refuse(refusedHello, err)
	}
	h.r = bufio.NewReaderSize(h.conn, readBufferSize)
	var err error
	if h.hello, err = newsnet.ReadHello(h.r); err != nil {
		return h, refuse(refusedHello, err)
	}
	if h.wire, err = newsnet.NegotiateVersion(own, h.hello); err != nil {
		return h, refuse(refusedVersion, err)
	}
	if !stop() {
		return h, fmt.Errorf("handshake: %w", context.Cause(ctx))
	}
	conn.SetDeadline(time.Time{})
	return h, nil
}

// secure runs TLS 1.3 on h.conn and the link-proof exchange: each side
// sends its proof under the current secret, then reads and checks the
// peer's against every accepted one.
func (n *Node) secure(h *handshaken, client bool) error {
	var tc *tls.Conn
	ownRole, peerRole := trust.RoleServer, trust.RoleClient
	under := h.conn
	if h.spill = newSpillConn(h.conn); h.spill != nil {
		under = h.spill // so that the loop can write through TLS without waiting
	}
	if client {
		tc = tls.Client(under, n.sec.client)
		ownRole, peerRole = peerRole, ownRole
	} else {
		tc = tls.Server(under, n.sec.server)
	}
	h.conn = tc
	if err := tc.Handshake(); err != nil {
		return refuse(refusedTLS, err)
	}
	cs := tc.ConnectionState()
	if !client && cs.NegotiatedProtocol == trust.InviteALPN {
		return n.serveInvitation(tc)
	}
	peerKey, err := trust.PeerKey(cs)
	if err != nil {
		return refuse(refusedTLS, err)
	}
	h.key = trust.PublicKeyString(peerKey)
	exporter, err := trust.ExporterValue(cs)
	if err != nil {
		return refuse(refusedTLS, err)
	}
	secrets := n.sec.secrets()
	if len(secrets) == 0 || len(secrets[0]) == 0 {
		return refuse(refusedSecret, errors.New("no network secret to prove membership with"))
	}
	if _, err := tc.Write(trust.LinkProof(secrets[0], exporter, ownRole)); err != nil {
		return refuse(refusedProof, fmt.Errorf("sending link proof: %w", err))
	}
	proof := make([]byte, trust.LinkProofSize)
	if _, err := io.ReadFull(tc, proof); err != nil {
		return refuse(refusedProof, fmt.Errorf("reading link proof: %w", err))
	}
	for _, s := range secrets {
		if trust.CheckLinkProof(s, exporter, peerRole, proof) {
			h.secret = sha256.Sum256(s)
			if n.sec.admit != nil {
				if err := n.sec.admit(peerKey); err != nil {
					return refuse(refusedKey, err)
				}
			}
			return nil
		}
	}
	return refuse(refusedProof, errors.New("link proof does not match any accepted network secret"))
}

// refused counts and logs a failed handshake with a connected peer: at
// most one line per peer address per refusalLogEvery, the others summed up
// by logRefusals. Nothing is counted once the node is shutting down.
func (n *Node) refused(err error, peer string, inbound bool) {
	if n.ctx.Err() != nil || errors.Is(err, errInvitation) {
		return
	}
	reason := refusedHello
	if r, ok := errors.AsType[*refusal](err); ok {
		reason = r.reason
	} else if ne, ok := errors.AsType[net.Error](err); ok && ne.Timeout() {
		reason = refusedTimeout
	}
	n.stats.add(reason, 1)
	if n.refusals.allow(refusalKey(peer, inbound), time.Now()) {
		n.log.Warn("refusing connection", "peer", peer, "inbound", inbound, "reason", reason, "err", err)
	}
}

// logRefusals writes, once per refusalLogEvery, how many refused handshakes
// were not logged in that period. Called on the loop's tick.
func (n *Node) logRefusals(now time.Time) {
	if quiet, from, ok := n.refusals.summary(now); ok {
		n.log.Warn("refused connections not logged (one line per address per period)",
			"count", quiet, "addresses", from, "period", n.refusals.every)
	}
}
