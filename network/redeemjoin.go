package network

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"slices"
	"strings"
	"time"

	"newsdesk/trust"
)

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
