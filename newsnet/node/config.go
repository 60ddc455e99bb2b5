package node

import (
	"crypto/ed25519"
	"crypto/tls"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net"
	"reflect"
	"time"

	"newsdesk/newsnet"
	"newsdesk/trust"
)

// Config configures a Node. Only Listen is required.
type Config struct {
	// Listen is the TCP address to listen on, "host:port". Port 0 picks a
	// free port; Node.Addr reports the one chosen.
	Listen string

	// Advertise is the servant ID: the "host:port" other servants dial to
	// reach this one. Empty means the actual listen address (with the port
	// chosen for port 0). It is required when Listen's host is a wildcard
	// (0.0.0.0, ::, or empty), because a wildcard cannot be dialed and the
	// ID value (the partition key) must come from the address peers see.
	Advertise newsnet.ServantID

	// Release is this build's release ("0.1.0"), sent in every hello so
	// that peers can show which versions run on the network; "" for none.
	// Printable ASCII, at most newsnet.MaxReleaseBytes.
	Release string

	// Protocol holds the protocol tunables, usually newsnet.DefaultConfig with
	// Seeds filled in. Protocol.ID is overwritten with the advertised address.
	// Zero durations and counts are taken from newsnet.DefaultConfig, so a
	// Config with only Seeds set works — except where zero is a setting of
	// its own (zeroIsASetting: 0 turns direct delivery off). A nil
	// Protocol.Rand gets a time-seeded PCG: jitter only has to differ
	// between servants, not repeat.
	Protocol newsnet.Config

	// Logger receives the node's log: protocol notes at Info, dropped links
	// and bad peers at Warn, per-link detail at Debug. Nil discards it.
	Logger *slog.Logger

	// OnDeliver, if set, receives every multicast message delivered to this
	// servant (its category is subscribed). It runs on the node's loop
	// goroutine, the one that owns the protocol core, so it must return
	// quickly: store the item or hand it to another goroutine, never wait
	// on the network. It must not call the Node's methods (they wait for the
	// loop, which is busy running OnDeliver) and must not modify the message,
	// which the core may still forward to other links and keeps to answer
	// retransmission requests.
	OnDeliver func(*newsnet.Multicast)

	// OnProgress, if set, receives the next count expected from a source
	// whenever it moves, for the host to persist and pass back in
	// Protocol.Expected after a restart. Same rules as OnDeliver.
	OnProgress func(source string, next uint64)

	// OnPublished, if set, receives every Published action: the count each
	// publication was given, whether it was queued (not attached) and, when
	// a queued one finally goes out, a second report without Queued. Same
	// rules as OnDeliver.
	OnPublished func(newsnet.Published)

	// OnLost, if set, receives every Lost action: needed messages of a
	// source that no servant could retransmit, and the running total for
	// the host to persist and pass back in Protocol.Lost after a restart. Same
	// rules as OnDeliver.
	OnLost func(newsnet.Lost)

	// OnReach, if set, receives every ReachUpdated action: the new reach
	// totals of one of this servant's publications (newsnet/reach.go), for
	// the host to keep and show. Same rules as OnDeliver.
	OnReach func(newsnet.ReachUpdated)

	// Blobs, if set, keeps attachments' chunks (blobs.go): without it the
	// servant passes chunks on but keeps none. Protocol.Blob.Refs names
	// the blobs of an item.
	Blobs BlobKeeper
	// OnBlob, if set, receives every BlobDone, BlobLost and BlobProgress
	// action: a blob asked for here is whole, could not be got (its Total
	// for the host to persist and pass back in Protocol.Blob.Lost), or has
	// come so far. With Blobs set it runs on the node's blob writer, the
	// goroutine that writes chunks off the loop, once the chunks before
	// it are stored (a blob said done is durable); without, on the loop.
	// Either way it must return quickly and must not call the Node's
	// methods (the loop may be waiting for the writer).
	OnBlob func(newsnet.Action)

	// Security, if set, runs every link over TLS 1.3 with a network-secret
	// membership proof (see Security). Nil means plain TCP, as between
	// servants of a test or a one-computer network; a secured servant and
	// a plain one refuse each other.
	Security *Security

	// Test hooks, zero in production.
	//
	// wrapDial wraps each dialed TCP connection before the handshake (a
	// packet capture, a stalled or throttled peer). handshakeTimeout
	// replaces the accept-side handshake bound when non-zero. observe sees
	// every event the loop feeds the core and the actions it got back, on
	// the loop goroutine. backlogged replaces Servant.Backlogged.
	// queueCap replaces a send queue's hard cap when non-zero.
	// refusalLogEvery replaces refusalLogEvery when non-zero.
	// blobsOnLoop writes blobs on the loop, as before the blob writer
	// (blobs.go), for the benchmark that compares the two.
	wrapDial         func(net.Conn) net.Conn
	handshakeTimeout time.Duration
	observe          func(newsnet.Event, []newsnet.Action)
	backlogged       func(*newsnet.Servant) bool
	queueCap         int
	refusalLogEvery  time.Duration
	blobsOnLoop      bool
}

// Security makes a node's links members-only. After the TCP connect both
// ends run a TLS 1.3 handshake (trust.TLSConfig: self-signed certificates
// for their installation keys, ALPN "newsdesk/1"), then each sends a
// 32-byte trust.LinkProof of the current network secret bound to that TLS
// session (the dialer with trust.RoleClient, the acceptor with
// trust.RoleServer) and checks the peer's proof against every accepted
// secret. Only then are newsnet hellos exchanged. A peer that fails any
// step (no TLS, TLS 1.2, wrong secret, no proof, a stall) is closed before
// any protocol frame, with a count in Node.SecurityStats and a logged
// reason (at most one line per peer address per minute; a line per minute
// sums up the refusals not logged). TLS, proof and hello together are bounded by the
// handshake timeout (Protocol.JoinTimeout when dialing, 5s when accepting).
type Security struct {
	// Identity is this installation's key pair; its self-signed certificate
	// is presented on every link. Required.
	Identity *trust.Identity

	// Secrets returns the network secrets currently accepted, the current
	// one first: proofs are made with Secrets()[0] and a peer's proof is
	// accepted under any of them, so during a rotation the previous secret
	// stays accepted until every servant has the new one. It is called once
	// per handshake and by Node.Reauthenticate, from several goroutines, so
	// it must be safe for concurrent use and quick (return a snapshot; the
	// node does not modify the slices). An empty result refuses every link.
	// Required.
	Secrets func() [][]byte

	// Admit, if set, is asked about every peer's public key once its
	// membership proof checked out; an error refuses the link ("key"), so a
	// revoked key is shut out even though it knows the secret. Same
	// concurrency rules as Secrets.
	Admit func(peer ed25519.PublicKey) error

	// Invitations, if set, serves the redemptions of invitation codes
	// (invite.go): a connection whose TLS handshake chose
	// trust.InviteALPN instead of the link protocol is handed to it, on
	// the goroutine that accepted it, instead of becoming a link. It owns
	// the connection until it returns (the node closes it then) and bounds
	// its own time with deadlines on it. Without it the node offers only
	// the link protocol.
	Invitations func(conn *tls.Conn)
}

func (s *Security) validate() error {
	switch {
	case s.Identity == nil:
		return fmt.Errorf("security: no identity")
	case s.Secrets == nil:
		return fmt.Errorf("security: no secrets function")
	}
	return nil
}

// Timing of the runtime's own IO. Protocol timing lives in newsnet.Config.
const (
	// handshakeTimeout bounds the hello exchange on an accepted connection,
	// so a client that connects and says nothing cannot hold a goroutine.
	handshakeTimeout = 5 * time.Second

	// flushTimeout bounds how long a closing link may spend writing what
	// was queued before the close, and waiting for the peer's FIN after it.
	// It is also the bound on Node.Close.
	flushTimeout = time.Second

	// readBufferSize is the bufio size for reading frames; frames up to
	// newsnet.MaxFrameBytes are decoded from a reusable scratch buffer.
	readBufferSize = 32 << 10
	// writeBufferSize bounds one write to the socket: frames queued
	// together are copied into a buffer of this size and go out in one
	// write, and a larger frame is written in pieces of this size. The write
	// deadline is refreshed before every write, so a peer that takes in at
	// least this much per Protocol.LinkTimeout is never closed as stalled.
	writeBufferSize = 32 << 10

	// queueCapSlack is added to 4×Protocol.LinkBuffer to make a link's hard
	// queue cap (see queueCap).
	queueCapSlack = 8 << 20
)

// queueCap is the hard bound, in bytes of frame buffers (sendQueue.bytes),
// of the frames queued on one link and not yet taken by its writer. The core keeps its own unwritten
// bytes under Protocol.LinkBuffer (plus a few control frames), so it never gets
// near this cap: a link that reaches it shows a flow-control bug, and is
// closed with an error in the log rather than allowed to grow.
func queueCap(core newsnet.Config) int { return 4*core.LinkBuffer + queueCapSlack }

// wakeBytes is how many written bytes a link's writer accumulates before
// it wakes the loop to report them (the loop collects smaller amounts on
// its tick): well under the half of Protocol.LinkBuffer at which the core
// sends what it withheld.
func wakeBytes(core newsnet.Config) int { return min(core.LinkBuffer/8, 64<<10) }

// writeTimeout is how long one write to a link may make no progress before
// the writer fails the link: the peer stopped reading. One tick above
// Protocol.LinkTimeout, so the core's own no-progress rule, which runs on
// Written reports and ticks, normally decides first and says why.
func writeTimeout(core newsnet.Config) time.Duration { return core.LinkTimeout + core.TickInterval }

// zeroIsASetting names the numeric protocol fields whose zero the core
// reads as a choice, not as "unset": coreConfig leaves them alone.
var zeroIsASetting = map[string]bool{
	"DirectThreshold": true, // 0: never ask for direct delivery
	"DirectBudget":    true, // 0: refuse every request for it
}

// coreConfig returns cfg.Protocol completed for the servant id: defaults for
// zero numeric fields (durations and counts, including any the core adds
// later, but not those of zeroIsASetting), the ID, and a Rand.
func coreConfig(c newsnet.Config, id newsnet.ServantID) newsnet.Config {
	d := newsnet.DefaultConfig(id)
	c.ID = id
	cv, dv := reflect.ValueOf(&c).Elem(), reflect.ValueOf(d)
	for i := range cv.NumField() {
		f := cv.Field(i)
		if zeroIsASetting[cv.Type().Field(i).Name] {
			continue
		}
		switch f.Kind() {
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
			reflect.Float32, reflect.Float64:
			if f.IsZero() {
				f.Set(dv.Field(i))
			}
		}
	}
	if c.Rand == nil {
		now := uint64(time.Now().UnixNano())
		c.Rand = rand.New(rand.NewPCG(now, now^0x9e3779b97f4a7c15))
	}
	return c
}

// checkListen validates the listen and advertised addresses before anything
// is bound. Without Advertise the servant ID is the actual listen address,
// so a wildcard listen host is refused.
func checkListen(listen string, advertise newsnet.ServantID) error {
	host, _, err := net.SplitHostPort(listen)
	if err != nil {
		return fmt.Errorf("listen address %q: %v", listen, err)
	}
	if advertise != "" {
		if _, err := newsnet.ParseServantID(string(advertise)); err != nil {
			return fmt.Errorf("advertised address: %w", err)
		}
		return nil
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		return fmt.Errorf("listen address %q is a wildcard that other servants cannot dial: "+
			"give the address they should use with --advertise HOST:PORT", listen)
	}
	return nil
}
