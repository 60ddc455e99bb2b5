package network

import (
	"context"
	"crypto/ed25519"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"time"

	"newsdesk/trust"
)

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
