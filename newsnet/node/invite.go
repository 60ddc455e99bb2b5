package node

// Redemptions of invitation codes (issue 13). A joiner connects to a seed
// over TLS 1.3 like a servant that dials, but announces trust.InviteALPN in
// place of the link protocol; a seed whose Security.Invitations is set
// offers both, and hands such a connection to it right after the TLS
// handshake, before any link proof: the joiner knows no network secret
// yet. What is said on it (the token proof, the definition sent back) is
// the host's business (package network); the node only tells the two
// kinds of connection apart, so one listening port serves both.

import (
	"crypto/tls"
	"errors"

	"newsdesk/trust"
)

// errInvitation ends the handshake of a connection that was served as a
// redemption: not a refusal, so it is neither counted nor logged as one.
var errInvitation = errors.New("served as an invitation redemption")

// offerInvitations makes the accepting side offer trust.InviteALPN besides
// the link protocol when sec serves redemptions.
func (s *linkSecurity) offerInvitations(sec *Security) {
	if sec.Invitations == nil {
		return
	}
	s.invitations = sec.Invitations
	s.server = trust.TLSConfigFor(sec.Identity, true, trust.ALPN, trust.InviteALPN)
}

// serveInvitation hands an accepted connection that chose
// trust.InviteALPN to Security.Invitations. The TLS configuration offers
// that protocol only when the handler is set; the check is for safety.
func (n *Node) serveInvitation(tc *tls.Conn) error {
	if n.sec.invitations == nil {
		return refuse(refusedTLS, errors.New("peer asked for an invitation redemption, which this node does not serve"))
	}
	n.sec.invitations(tc)
	return errInvitation
}
