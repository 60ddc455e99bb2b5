package network

// The redemption protocol (issue 13).
//
//	joiner ──TLS 1.3, ALPN newsdesk-invite/1──▶ seed ──TLS 1.3, ALPN newsdesk-invite/1──▶ via (admin's servant)
//	        redeem{network, id, via, admin, sig,       relay{…, exporter, key, member}
//	               name, proof}
//	        ◀── answer{ok, definition, confirm}         ◀── answer
//
// The joiner dials a seed of the code and announces trust.InviteALPN; the
// seed's node hands the connection to Inviter.Serve (newsnet/node). Both
// sides present their installation keys as on a link (self-signed
// certificates). The joiner sends one request frame:
//
//   - proof = trust.InvitationProof(token, joiner, id, fingerprint,
//     exporter, joiner's key): the token never travels, the proof is bound
//     to this TLS session and to the joiner's key.
//
// The seed checks the fingerprint against the definition it holds
// (another network's seed refuses here), then that via was named by an
// admin of the network: admin is one of its admin keys and sig is that
// key's signature of (fingerprint, id, via) (trust.CheckInviteVia). It
// checks this before anything else, so a stranger who can reach the seed
// cannot make it dial an address of their choosing (the code's bearer can
// change via, but cannot sign it as an admin). If the seed holds the invitation
// (it is the admin's servant that made it) it decides at once; otherwise it
// relays the claim to via over a TLS session of its own, proving
// membership there with a link proof of the network secret and checking
// that via's key is the admin key that signed via. The claim carries the exporter of the
// joiner's session and the joiner's key as the seed saw them, so a proof
// taken from one session (by a man in the middle) does not check on
// another. The holder decides (invite.go) and answers with the current
// signed definition, secret included, and a confirmation proof under
// the token (role inviter); the seed passes the answer on.
//
// The joiner checks the signatures of via and of the seed list (the
// code's seal) against the key the code names before it dials anything (a
// code altered on the way is refused there, issue 32),
// and accepts only a definition that verifies as signed by one of
// its own admins and whose fingerprint is the code's, and a confirmation
// that checks: a seed that does not hold the token can neither fake a
// success nor hand over a network of its own. Each frame is a 4-byte
// big-endian length and a JSON value.

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/tls"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"time"

	"newsdesk/trust"
)

// Timing and bounds of a redemption.
const (
	// dialTimeout bounds connecting to one seed (or to via) and the TLS
	// handshake; redeemTimeout one whole redemption at the joiner; relayTimeout
	// the seed's relay to via; serveTimeout everything a seed does for one
	// joiner (its relay included).
	dialTimeout   = 5 * time.Second
	relayTimeout  = 15 * time.Second
	serveTimeout  = 25 * time.Second
	redeemTimeout = 30 * time.Second
	// maxRedemptions bounds the redemptions a servant serves at once; more
	// are answered "busy". A redemption takes its slot only once its
	// request has been read (issue 32: idle connections held them all).
	maxRedemptions = 8
	// requestTimeout bounds the wait for a connection's request after the
	// TLS handshake: a joiner or a relaying seed sends it at once.
	requestTimeout = 3 * time.Second
	// maxUnreadPerAddress bounds the connections from one address (an
	// IPv4 address, an IPv6 /64) whose request has not been read yet;
	// more are answered "busy" at once.
	maxUnreadPerAddress = 4
	// maxFrameBytes bounds one frame: an answer carries a definition.
	maxFrameBytes = trust.MaxDefinitionBytes + 64<<10
	// maxRequestBytes bounds a request frame (no definition in it).
	maxRequestBytes = 16 << 10
)

// Kinds of request.
const (
	kindRedeem = "redeem" // a joiner to a seed
	kindRelay  = "relay"  // a seed to the servant holding the invitation
	// kindCertify (certify.go): a member to an admin's servant.
)

// Reasons of a RedeemError.
const (
	ReasonUnknown     = "unknown"     // the holder does not know the invitation
	ReasonWrongToken  = "wrongToken"  // the proof does not check under its token
	ReasonRevoked     = "revoked"     // the admin revoked it
	ReasonExpired     = "expired"     // past its expiry
	ReasonUsedUp      = "usedUp"      // no use left
	ReasonFingerprint = "fingerprint" // the seed (or the holder) is of another network now
	ReasonRevokedKey  = "revokedKey"  // the joiner's key is revoked
	ReasonNotAdmin    = "notAdmin"    // via is not (or no longer) an admin's servant
	ReasonViaUnsigned = "viaUnsigned" // via is not signed by an admin of the network: never dialled
	ReasonUnsigned    = "unsigned"    // the code's seed list is not signed by the key it names (altered, or an older code): nothing dialled
	ReasonUnreachable = "unreachable" // the seed cannot reach via
	ReasonBusy        = "busy"        // too many redemptions at once
	ReasonNotMember   = "notMember"   // a relay from a servant that proved no membership
	ReasonBadRequest  = "badRequest"  // a malformed request
	ReasonInternal    = "internal"    // the servant failed (store, signing)
	ReasonBadAnswer   = "badAnswer"   // the joiner could not accept the answer it got
	ReasonNoSeed      = "noSeed"      // the joiner reached no servant of the code
)

// RedeemError is a refused or failed redemption.
type RedeemError struct {
	Reason string // one of the Reason constants
	Msg    string // what happened, in words
	Seed   string // the servant the joiner asked ("" when none answered)
}

func (e *RedeemError) Error() string {
	msg := e.Msg
	if next := e.next(); next != "" && !strings.Contains(msg, "ask ") {
		msg += ": " + next // the holder (perhaps of an older release) did not say
	}
	if e.Seed == "" {
		return msg
	}
	return msg + " (asked " + e.Seed + ")"
}

// next is what the joiner does about a refusal that ends the invitation
// for them: only an admin can help.
func (e *RedeemError) next() string {
	switch e.Reason {
	case ReasonUsedUp, ReasonExpired, ReasonRevoked, ReasonUnknown:
		return "ask the admin who sent it for a new invitation"
	case ReasonNotAdmin, ReasonViaUnsigned, ReasonUnsigned, ReasonFingerprint:
		return "ask an admin of the network for a new invitation"
	case ReasonRevokedKey:
		return "ask an admin of the network why"
	}
	return ""
}

// Definitive reports whether asking another seed cannot help: the holder
// of the invitation decided.
func (e *RedeemError) Definitive() bool {
	switch e.Reason {
	case ReasonUnknown, ReasonWrongToken, ReasonRevoked, ReasonExpired, ReasonUsedUp, ReasonRevokedKey, ReasonNotAdmin, ReasonViaUnsigned, ReasonUnsigned:
		return true
	}
	return false
}

func refusal(reason, format string, args ...any) *RedeemError {
	return &RedeemError{Reason: reason, Msg: fmt.Sprintf(format, args...)}
}

// request is a request frame.
type request struct {
	Kind    string `json:"kind"`
	Network string `json:"network"` // trust.Fingerprint text
	ID      string `json:"id"`
	Via     string `json:"via"`
	Admin   []byte `json:"admin"`          // the key that signed via (trust.InviteCode.Signer)
	Sig     []byte `json:"sig"`            // its signature (trust.InviteCode.Signature)
	Name    string `json:"name,omitempty"` // the joiner's display name
	Proof   []byte `json:"proof"`

	// A relay's: the joiner's session and key as the seed saw them, and
	// the seed's link proof on the relay session.
	Exporter []byte `json:"exporter,omitempty"`
	Key      string `json:"key,omitempty"`
	Member   []byte `json:"member,omitempty"`
}

// answer is an answer frame.
type answer struct {
	OK         bool            `json:"ok"`
	Reason     string          `json:"reason,omitempty"`
	Error      string          `json:"error,omitempty"`
	Definition json.RawMessage `json:"definition,omitempty"` // the signed definition, secret included
	Confirm    []byte          `json:"confirm,omitempty"`
	// Certificate answers a certify request (certify.go):
	// trust.MemberCert text. Never in an answer to an older kind, whose
	// askers may be of a release that refuses unknown fields.
	Certificate string `json:"certificate,omitempty"`
}

func refusedAnswer(e *RedeemError) answer { return answer{Reason: e.Reason, Error: e.Msg} }

func writeFrame(w io.Writer, v any) error {
	doc, err := json.Marshal(v)
	if err != nil {
		return err
	}
	buf := binary.BigEndian.AppendUint32(make([]byte, 0, 4+len(doc)), uint32(len(doc)))
	_, err = w.Write(append(buf, doc...))
	return err
}

func readFrame(r io.Reader, v any, limit int) error {
	var hdr [4]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return err
	}
	n := binary.BigEndian.Uint32(hdr[:])
	if n > uint32(limit) {
		return fmt.Errorf("frame of %d bytes, more than %d", n, limit)
	}
	doc := make([]byte, n)
	if _, err := io.ReadFull(r, doc); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

// Serve serves one redemption connection (node.Security.Invitations): a
// joiner's request, or a seed's relay when this servant holds the
// invitation. It bounds its own time and answers once.
//
// Nobody who merely connects holds anything for long (issue 32): the
// request must arrive within requestTimeout, while at most
// maxUnreadPerAddress connections of one address wait for theirs, and
// one of the maxRedemptions slots is taken only once a request has been
// read, for the time it is decided (a relay to via included). So idle
// connections, however many and from however many addresses, cannot make
// joins fail as "busy".
//
// It reports whether this servant decided a claim on one of its own
// invitations (so their uses may have changed).
func (iv *Inviter) Serve(conn *tls.Conn) (decided bool) {
	conn.SetDeadline(time.Now().Add(requestTimeout))
	defer func() {
		// Let the peer read the answer before the node closes the socket.
		conn.CloseWrite()
		conn.SetReadDeadline(time.Now().Add(2 * time.Second))
		io.Copy(io.Discard, io.LimitReader(conn, 1<<16))
	}()
	from := addressKey(conn.RemoteAddr())
	if !iv.unread.acquire(from) {
		writeFrame(conn, refusedAnswer(refusal(ReasonBusy, "too many redemption connections from %s at once; try again in a moment", from)))
		return false
	}
	var req request
	err := readFrame(conn, &req, maxRequestBytes)
	iv.unread.release(from)
	if err != nil {
		if ne, ok := errors.AsType[net.Error](err); ok && ne.Timeout() {
			err = fmt.Errorf("no request within %v", requestTimeout)
		}
		conn.SetWriteDeadline(time.Now().Add(time.Second))
		writeFrame(conn, refusedAnswer(refusal(ReasonBadRequest, "bad redemption request: %v", err)))
		return false
	}
	select {
	case iv.relays <- struct{}{}:
		defer func() { <-iv.relays }()
	default:
		writeFrame(conn, refusedAnswer(refusal(ReasonBusy, "the seed is busy with other redemptions; try again in a moment")))
		return false
	}
	conn.SetDeadline(time.Now().Add(serveTimeout))
	cs := conn.ConnectionState()
	key, err := trust.PeerKey(cs)
	if err != nil {
		return false
	}
	exporter, err := trust.ExporterValue(cs)
	if err != nil {
		return false
	}
	var ans answer
	switch req.Kind {
	case kindRedeem:
		ans, decided = iv.serveRedeem(req, exporter, key)
	case kindRelay:
		ans, decided = iv.serveRelay(req, exporter, key)
	case kindCertify:
		ans = iv.serveCertify(req, exporter, key)
	default:
		ans = refusedAnswer(refusal(ReasonBadRequest, "bad redemption request: kind %q", req.Kind))
	}
	if !ans.OK {
		if ok, quiet := iv.refusedLines.allow(from, time.Now()); ok {
			iv.k.log.Info("invitation redemption refused", "kind", req.Kind, "id", req.ID, "peer", conn.RemoteAddr().String(),
				"reason", ans.Reason, "err", ans.Error, "notLogged", quiet)
		}
	}
	writeFrame(conn, ans)
	return decided
}

// addressKey is what the per-address limit counts a peer under: its IP
// address, or for IPv6 its /64 (one host commonly holds a whole /64).
func addressKey(a net.Addr) string {
	ap, err := netip.ParseAddrPort(a.String())
	if err != nil {
		return a.String()
	}
	ip := ap.Addr().Unmap()
	if ip.Is6() {
		p, _ := ip.Prefix(64)
		return p.String()
	}
	return ip.String()
}

// addressLimit counts connections per address key, up to max each. Safe
// for concurrent use.
type addressLimit struct {
	mu  sync.Mutex
	max int
	n   map[string]int
}

func newAddressLimit(max int) *addressLimit { return &addressLimit{max: max, n: map[string]int{}} }

// acquire counts one more connection of key, unless key has max already.
func (l *addressLimit) acquire(key string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.n[key] >= l.max {
		return false
	}
	l.n[key]++
	return true
}

// release uncounts one connection of key.
func (l *addressLimit) release(key string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.n[key]--; l.n[key] <= 0 {
		delete(l.n, key)
	}
}

// count is how many connections of key are counted now.
func (l *addressLimit) count(key string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.n[key]
}

// Bounds of the log of refused redemptions: a stream of bad requests
// from one address writes at most one line a refusalLogEvery, saying how
// many were not logged since; at most refusalLogAddrs addresses are
// remembered (a refusal from a further one is not logged).
const (
	refusalLogEvery = time.Minute
	refusalLogAddrs = 4096
)

// lineLimit allows a log line per key per period. Safe for concurrent
// use.
type lineLimit struct {
	every time.Duration
	max   int

	mu   sync.Mutex
	last map[string]*keyLines
}

type keyLines struct {
	logged time.Time // when its last line was written
	quiet  int       // lines not written since
}

func newLineLimit(every time.Duration, max int) *lineLimit {
	return &lineLimit{every: every, max: max, last: map[string]*keyLines{}}
}

// allow reports whether key may write a line at now, and how many of its
// lines were not written since its last one.
func (l *lineLimit) allow(key string, now time.Time) (bool, int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	k := l.last[key]
	if k == nil {
		if len(l.last) >= l.max {
			for key, k := range l.last {
				if now.Sub(k.logged) >= l.every {
					delete(l.last, key)
				}
			}
			if len(l.last) >= l.max {
				return false, 0
			}
		}
		l.last[key] = &keyLines{logged: now}
		return true, 0
	}
	if now.Sub(k.logged) < l.every {
		k.quiet++
		return false, 0
	}
	quiet := k.quiet
	k.logged, k.quiet = now, 0
	return true, quiet
}

// parseClaim checks the fields of a request common to both kinds.
func parseClaim(req request) (claim, *RedeemError) {
	c := claim{id: req.ID, name: req.Name, proof: req.Proof}
	fp, err := trust.ParseFingerprint(req.Network)
	if err != nil {
		return c, refusal(ReasonBadRequest, "bad redemption request: network: %v", err)
	}
	c.network = fp
	if err := trust.CheckInviteID(req.ID); err != nil {
		return c, refusal(ReasonBadRequest, "bad redemption request: %v", err)
	}
	if len(req.Proof) != trust.InviteProofSize {
		return c, refusal(ReasonBadRequest, "bad redemption request: proof of %d bytes", len(req.Proof))
	}
	if len(req.Name) > 4*trust.MaxPublisherNameRunes {
		return c, refusal(ReasonBadRequest, "bad redemption request: name too long")
	}
	return c, nil
}

// checkVia refuses a request whose via was not named by an admin of the
// network this servant holds (trust.CheckInviteVia): a seed never dials
// such a via.
func checkVia(sn *trust.SignedNetwork, c claim, req request) *RedeemError {
	if err := trust.CheckInviteAddress(req.Via); err != nil {
		return refusal(ReasonBadRequest, "bad redemption request: via: %v", err)
	}
	if err := sn.CheckInviteVia(c.network, c.id, req.Via, req.Admin, req.Sig); err != nil {
		return refusal(ReasonViaUnsigned, "this seed does not contact %s, the admin's servant the invitation names: %v, "+
			"so the code was altered or was not made by an admin; ask the admin for a new invitation", req.Via, err)
	}
	return nil
}

// serveRedeem is a seed's part: check the fingerprint and that an admin
// named via, then decide (this servant holds the invitation) or relay to
// via.
func (iv *Inviter) serveRedeem(req request, exporter []byte, key ed25519.PublicKey) (ans answer, decided bool) {
	c, bad := parseClaim(req)
	if bad != nil {
		return refusedAnswer(bad), false
	}
	c.exporter, c.key = exporter, key
	sn := iv.k.Definition()
	if !trust.SameFingerprint(trust.NetworkFingerprint(&sn.Network), c.network) {
		return refusedAnswer(refusal(ReasonFingerprint,
			"this seed belongs to another network than the invitation names (the network fingerprints differ): the code is for another network, or the seed was given to another network")), false
	}
	if bad := checkVia(sn, c, req); bad != nil {
		return refusedAnswer(bad), false
	}
	if iv.holds(c.id) {
		return iv.decide(c), true
	}
	return iv.relay(req, c), false
}

// holds reports whether this servant keeps the invitation id.
func (iv *Inviter) holds(id string) bool {
	iv.mu.Lock()
	defer iv.mu.Unlock()
	invs, err := iv.load()
	if err != nil {
		return false
	}
	for _, r := range invs {
		if r.ID == id {
			return true
		}
	}
	return false
}

// decide redeems c here and turns the outcome into an answer.
func (iv *Inviter) decide(c claim) answer {
	sn, confirm, refused := iv.redeem(c)
	if refused != nil {
		return refusedAnswer(refused)
	}
	doc, err := sn.Marshal()
	if err != nil {
		return refusedAnswer(refusal(ReasonInternal, "the admin's servant could not encode the definition: %v", err))
	}
	return answer{OK: true, Definition: doc, Confirm: confirm}
}

// relay passes a joiner's claim on to via, the servant that holds the
// invitation, and returns its answer. The caller checked that an admin
// named via (checkVia); via must present that admin's key.
func (iv *Inviter) relay(req request, c claim) answer {
	unreachable := func(err error) answer {
		return refusedAnswer(refusal(ReasonUnreachable,
			"the admin's servant that made this invitation (%s) cannot be reached from this seed: it counts the invitation's uses "+
				"for the whole network, so it must be running and reachable; try again later, or ask the admin (%v)", req.Via, err))
	}
	ctx, cancel := context.WithTimeout(context.Background(), iv.relayTimeout)
	defer cancel()
	conn, err := dialInvite(ctx, iv.dial, req.Via, iv.k.identity)
	if err != nil {
		return unreachable(err)
	}
	defer conn.Close()
	// The whole relay within its time, not only the dial: a via that
	// accepts and then says nothing (a laptop gone to sleep) must not hold
	// this servant's slot and the joiner.
	if dl, ok := ctx.Deadline(); ok {
		conn.SetDeadline(dl)
	}
	cs := conn.ConnectionState()
	viaKey, err := trust.PeerKey(cs)
	if err != nil {
		return unreachable(err)
	}
	sn := iv.k.Definition()
	if !sn.IsAdmin(viaKey) {
		return refusedAnswer(refusal(ReasonNotAdmin, "the servant at %s named in the invitation is not an admin's servant of this network", req.Via))
	}
	if !viaKey.Equal(ed25519.PublicKey(req.Admin)) {
		return refusedAnswer(refusal(ReasonNotAdmin, "the servant at %s named in the invitation is not the admin's servant that made it (another key answers there)", req.Via))
	}
	exporter, err := trust.ExporterValue(cs)
	if err != nil {
		return unreachable(err)
	}
	secrets := iv.k.Secrets()
	out := req
	out.Kind = kindRelay
	out.Exporter = c.exporter
	out.Key = trust.PublicKeyString(c.key)
	out.Member = trust.LinkProof(secrets[0], exporter, trust.RoleClient)
	if err := writeFrame(conn, out); err != nil {
		return unreachable(err)
	}
	var ans answer
	if err := readFrame(conn, &ans, maxFrameBytes); err != nil {
		return unreachable(fmt.Errorf("no answer: %w", err))
	}
	return ans
}

// serveRelay is the holder's part of a relayed claim: the relaying seed
// must prove membership on this session and not be revoked.
func (iv *Inviter) serveRelay(req request, exporter []byte, seedKey ed25519.PublicKey) (ans answer, decided bool) {
	member := false
	for _, s := range iv.k.Secrets() {
		if trust.CheckLinkProof(s, exporter, trust.RoleClient, req.Member) {
			member = true
			break
		}
	}
	sn := iv.k.Definition()
	if !member || sn.IsRevoked(seedKey) {
		return refusedAnswer(refusal(ReasonNotMember, "the seed that relayed this redemption is not a member of the network")), false
	}
	c, bad := parseClaim(req)
	if bad != nil {
		return refusedAnswer(bad), false
	}
	if bad := checkVia(sn, c, req); bad != nil {
		return refusedAnswer(bad), false
	}
	key, err := trust.ParsePublicKey(req.Key)
	if err != nil || len(req.Exporter) != trust.ExporterSize {
		return refusedAnswer(refusal(ReasonBadRequest, "bad relayed redemption: key or exporter")), false
	}
	c.exporter, c.key = req.Exporter, key
	return iv.decide(c), true
}

// Dialer connects to a servant's port for a redemption or a certificate
// request (host:port): the TCP connection, on which the caller runs the
// TLS handshake. Nil dials TCP. A host whose servants run without sockets
// (the demo mode's simulated network, app/demo) passes one that reaches
// them there.
type Dialer func(ctx context.Context, addr string) (net.Conn, error)

// dialInvite connects to addr with dial and runs the TLS handshake for a
// redemption, with id's certificate.
func dialInvite(ctx context.Context, dial Dialer, addr string, id *trust.Identity) (*tls.Conn, error) {
	ctx, cancel := context.WithTimeout(ctx, dialTimeout)
	defer cancel()
	cfg := trust.TLSConfigFor(id, false, trust.InviteALPN)
	if dial == nil {
		d := tls.Dialer{NetDialer: &net.Dialer{}, Config: cfg}
		c, err := d.DialContext(ctx, "tcp", addr)
		if err != nil {
			return nil, err
		}
		return c.(*tls.Conn), nil
	}
	raw, err := dial(ctx, addr)
	if err != nil {
		return nil, err
	}
	c := tls.Client(raw, cfg) // no server name: the peer's key is checked, not a name (trust.TLSConfigFor)
	if err := c.HandshakeContext(ctx); err != nil {
		raw.Close()
		return nil, err
	}
	return c, nil
}

// Redeem redeems an invitation code for the installation id: it checks
// that the code's via is signed by the key the code names (before it dials
// anything: ReasonViaUnsigned), and its seed list too (the seal:
// ReasonUnsigned; an older code without one is redeemed only when it
// names no seeds, through via), asks the code's seeds in order, then via,
// until one answers with the network's definition, and returns that
// definition, checked: signed by one of its own admins, of the code's
// fingerprint, with the key that signed via among its admins, and
// confirmed by the holder of the token on the session it came over. It writes nothing anywhere; the
// caller imports the definition (as `serve --network` does). name is the
// joiner's display name, listed as the publisher's name by a publisher
// invitation. A refusal by the invitation's holder (used up, expired,
// revoked, wrong token) ends it at once; a seed that cannot help
// (unreachable, busy, of another network) makes it try the next. Errors
// are *RedeemError.
func Redeem(ctx context.Context, code *trust.InviteCode, id *trust.Identity, name string) (*trust.SignedNetwork, error) {
	return Dialer(nil).Redeem(ctx, code, id, name)
}

// Redeem is Redeem with connections made by d.
func (d Dialer) Redeem(ctx context.Context, code *trust.InviteCode, id *trust.Identity, name string) (*trust.SignedNetwork, error) {
	switch err := code.VerifySignatures(); {
	case errors.Is(err, trust.ErrInviteViaSignature):
		return nil, &RedeemError{Reason: ReasonViaUnsigned,
			Msg: fmt.Sprintf("the invitation code was altered: %v (%s); ask the admin for a new invitation", err, code.Via)}
	case errors.Is(err, trust.ErrInviteSeal):
		return nil, &RedeemError{Reason: ReasonUnsigned,
			Msg: fmt.Sprintf("the invitation code was altered: %v (%s); ask the admin for a new invitation", err, strings.Join(code.Seeds, ","))}
	case err != nil:
		return nil, &RedeemError{Reason: ReasonUnsigned, Msg: "the invitation code cannot be used: " + err.Error()}
	}
	ctx, cancel := context.WithTimeout(ctx, redeemTimeout)
	defer cancel()
	targets := append([]string{}, code.Seeds...)
	if !slices.Contains(targets, code.Via) {
		targets = append(targets, code.Via)
	}
	var (
		best     *RedeemError // the most telling refusal so far
		dialErrs []string
	)
	for _, addr := range targets {
		sn, err := redeemAt(ctx, d, addr, code, id, name)
		if err == nil {
			return sn, nil
		}
		re, ok := errors.AsType[*RedeemError](err)
		if !ok {
			dialErrs = append(dialErrs, fmt.Sprintf("%s: %v", addr, err))
			if ctx.Err() != nil {
				break
			}
			continue
		}
		re.Seed = addr
		if re.Definitive() {
			return nil, re
		}
		if best == nil || best.Reason == ReasonBusy {
			best = re
		}
	}
	if best != nil {
		return nil, best
	}
	return nil, &RedeemError{Reason: ReasonNoSeed,
		Msg: "no servant named in the invitation could be reached: " + strings.Join(dialErrs, "; ")}
}

// dialInviteFor dials addr as dialInvite does and holds the connection to
// ctx: its deadline, and an end of ctx breaks off any read or write.
// closeConn closes it and lets go of ctx.
func dialInviteFor(ctx context.Context, dial Dialer, addr string, id *trust.Identity) (conn *tls.Conn, closeConn func(), err error) {
	conn, err = dialInvite(ctx, dial, addr, id)
	if err != nil {
		return nil, nil, err
	}
	stop := context.AfterFunc(ctx, func() { conn.SetDeadline(time.Unix(1, 0)) })
	if dl, ok := ctx.Deadline(); ok {
		conn.SetDeadline(dl)
	}
	return conn, func() { stop(); conn.Close() }, nil
}

// redeemAt asks one servant. A connection failure is a plain error; an
// answer that refuses, or one the joiner cannot accept, is a *RedeemError.
func redeemAt(ctx context.Context, dial Dialer, addr string, code *trust.InviteCode, id *trust.Identity, name string) (*trust.SignedNetwork, error) {
	conn, closeConn, err := dialInviteFor(ctx, dial, addr, id)
	if err != nil {
		return nil, err
	}
	defer closeConn()
	exporter, err := trust.ExporterValue(conn.ConnectionState())
	if err != nil {
		return nil, err
	}
	req := request{Kind: kindRedeem, Network: code.Network.String(), ID: code.ID, Via: code.Via,
		Admin: code.Signer, Sig: code.Signature, Name: name,
		Proof: trust.InvitationProof(code.Token, trust.RoleJoiner, code.ID, code.Network, exporter, id.Public)}
	if err := writeFrame(conn, req); err != nil {
		return nil, err
	}
	var ans answer
	if err := readFrame(conn, &ans, maxFrameBytes); err != nil {
		return nil, fmt.Errorf("no answer: %w", err)
	}
	if !ans.OK {
		reason := ans.Reason
		if reason == "" {
			reason = ReasonInternal
		}
		return nil, &RedeemError{Reason: reason, Msg: ans.Error}
	}
	bad := func(format string, args ...any) error {
		return &RedeemError{Reason: ReasonBadAnswer, Msg: "the seed's answer cannot be trusted: " + fmt.Sprintf(format, args...)}
	}
	if !trust.CheckInvitationProof(ans.Confirm, code.Token, trust.RoleInviter, code.ID, code.Network, exporter, id.Public) {
		return nil, bad("it was not confirmed by the holder of the invitation")
	}
	sn, err := trust.ParseSignedNetwork(ans.Definition)
	if err != nil {
		return nil, bad("%v", err)
	}
	if err := trust.VerifySelfSigned(sn); err != nil {
		return nil, bad("%v", err)
	}
	if fp := trust.NetworkFingerprint(&sn.Network); !trust.SameFingerprint(fp, code.Network) {
		return nil, bad("it sent the definition of network %q, whose fingerprint is not the invitation's", sn.Name)
	}
	if !sn.IsAdmin(code.Signer) {
		return nil, bad("the invitation was not signed by an admin of network %q", sn.Name)
	}
	return sn, nil
}

// JoinSeeds is the seed list a servant that redeemed code and received sn
// connects through: the network's seeds, else the seeds the code names and
// the admin's servant it names as via, the one servant known to be in the
// network (a code made while the network listed no seed).
func JoinSeeds(sn *trust.SignedNetwork, code *trust.InviteCode) []string {
	if len(sn.Seeds) > 0 {
		return slices.Clone(sn.Seeds)
	}
	seeds := slices.Clone(code.Seeds)
	if !slices.Contains(seeds, code.Via) {
		seeds = append(seeds, code.Via)
	}
	return seeds
}
