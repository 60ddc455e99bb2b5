package network

// Membership certificates (issue 32, part 4; trust/member.go). A
// must-read item's publisher counts a confirmation only when its key was
// admitted to the network, and any servant must be able to tell that
// offline. The admin's servant knows every key that redeemed one of its
// invitations, so it is the one that certifies: a member asks it over the
// redemption protocol with a request of kind "certify".
//
//	member ──TLS 1.3, ALPN newsdesk-invite/1──▶ admin's servant
//	        certify{network, member}
//	        ◀── answer{ok, certificate}
//
// The member proves its key by the TLS handshake (its installation
// certificate, as on a link) and its membership by a link proof of the
// network secret on this session (member). The admin's servant certifies
// only a key it has on record as having redeemed one of its invitations
// (keyAdmitted, kept beyond the invitation records, which are forgotten a
// while after they end), or one the definition admits itself (an admin or
// listed publisher), never a revoked one: so a member cannot have any
// number of keys certified. A joiner asks right after its redemption
// (JoinByInvitation, `newsdesk join`), a member that joined before
// certificates existed on start (the app's membership loop), at the
// admin's servant it joined through or, not knowing it, at the seeds.
//
// Mixed releases: an older servant answers a certify request as a bad
// request (its frame decoder knows no such kind), and the member goes on
// making version-1 blobs, which publishers count as reported by relays.
// A request of an older kind never carries the new answer field.

import (
	"context"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"newsdesk/trust"
)

// kindCertify asks the admin's servant for a membership certificate.
const kindCertify = "certify"

// keyAdmitted is the settings key of the keys that redeemed this admin
// servant's invitations (a JSON list of trust.PublicKeyString), kept for
// good so that they can be certified again (an admin key changed, a
// certificate lost).
const keyAdmitted = "admitted-keys"

// maxAdmitted bounds the keys kept in keyAdmitted; beyond it the oldest
// are forgotten (they can still be certified while their invitation
// record is kept).
const maxAdmitted = 100_000

// ErrNotCertified: the admin's servant would not certify this key (not
// on record there), or answered nothing usable.
var ErrNotCertified = errors.New("no membership certificate")

// noteAdmitted records that key redeemed an invitation here. Under iv.mu.
func (iv *Inviter) noteAdmitted(key string) error {
	keys, err := iv.admitted()
	if err != nil {
		return err
	}
	if slices.Contains(keys, key) {
		return nil
	}
	keys = append(keys, key)
	if len(keys) > maxAdmitted {
		keys = keys[len(keys)-maxAdmitted:]
	}
	doc, err := json.Marshal(keys)
	if err != nil {
		return err
	}
	return iv.k.store.SetSetting(keyAdmitted, string(doc))
}

func (iv *Inviter) admitted() ([]string, error) {
	v, ok, err := iv.k.store.Setting(keyAdmitted)
	if err != nil || !ok || v == "" {
		return nil, err
	}
	var keys []string
	if err := json.Unmarshal([]byte(v), &keys); err != nil {
		return nil, fmt.Errorf("stored admitted keys: %w", err)
	}
	return keys, nil
}

// Admit records key as admitted here, as if it had redeemed one of this
// servant's invitations, so that its next certify request succeeds: for a
// member that joined before certificates existed and whose invitation
// record is gone, which stays "not verified" otherwise. Admins only
// (ErrNotAdmin); never a revoked key (ErrRevokedMember).
func (iv *Inviter) Admit(key ed25519.PublicKey) error {
	sn := iv.k.Definition()
	if !sn.IsAdmin(iv.k.identity.Public) {
		return ErrNotAdmin
	}
	if sn.IsRevoked(key) {
		return fmt.Errorf("%w: %s", ErrRevokedMember, trust.PublicKeyString(key))
	}
	iv.mu.Lock()
	defer iv.mu.Unlock()
	return iv.noteAdmitted(trust.PublicKeyString(key))
}

// onRecord reports whether key redeemed one of this servant's invitations.
func (iv *Inviter) onRecord(key ed25519.PublicKey) (bool, error) {
	iv.mu.Lock()
	defer iv.mu.Unlock()
	s := trust.PublicKeyString(key)
	keys, err := iv.admitted()
	if err != nil {
		return false, err
	}
	if slices.Contains(keys, s) {
		return true, nil
	}
	invs, err := iv.load()
	if err != nil {
		return false, err
	}
	for _, r := range invs {
		if slices.Contains(r.Redeemed, s) {
			return true, nil
		}
	}
	return false, nil
}

// serveCertify is the admin's servant's answer to a certify request from
// key, on the session of exporter.
func (iv *Inviter) serveCertify(req request, exporter []byte, key ed25519.PublicKey) answer {
	sn := iv.k.Definition()
	member := false
	for _, s := range iv.k.Secrets() {
		if trust.CheckLinkProof(s, exporter, trust.RoleClient, req.Member) {
			member = true
			break
		}
	}
	if !member {
		return refusedAnswer(refusal(ReasonNotMember, "no proof of membership in the network"))
	}
	if fp, err := trust.ParseFingerprint(req.Network); err != nil || !trust.SameFingerprint(fp, trust.NetworkFingerprint(&sn.Network)) {
		return refusedAnswer(refusal(ReasonFingerprint, "this servant belongs to another network"))
	}
	if !sn.IsAdmin(iv.k.identity.Public) {
		return refusedAnswer(refusal(ReasonNotAdmin, "this servant is not an admin's servant of the network"))
	}
	if sn.IsRevoked(key) {
		return refusedAnswer(refusal(ReasonRevokedKey, "this installation's key %s is revoked in the network", trust.PublicKeyString(key)))
	}
	ok, err := iv.onRecord(key)
	if err != nil {
		return refusedAnswer(refusal(ReasonInternal, "the admin's servant could not read its records: %v", err))
	}
	if !ok && !sn.Admitted(key) {
		return refusedAnswer(refusal(ReasonUnknown, "the admin's servant has no record of %s redeeming one of its invitations", trust.PublicKeyString(key)))
	}
	c := iv.k.identity.SignMemberCert(sn.ID, key, iv.now())
	return answer{OK: true, Certificate: c.String()}
}

// Certify asks the servant at addr (an admin's) for id's membership
// certificate in sn's network, and returns it checked against sn. A
// refusal is a *RedeemError; an older servant refuses as a bad request.
func Certify(ctx context.Context, addr string, id *trust.Identity, sn *trust.SignedNetwork, secret []byte) (*trust.MemberCert, error) {
	return Dialer(nil).Certify(ctx, addr, id, sn, secret)
}

// Certify is Certify with the connection made by d.
func (d Dialer) Certify(ctx context.Context, addr string, id *trust.Identity, sn *trust.SignedNetwork, secret []byte) (*trust.MemberCert, error) {
	ctx, cancel := context.WithTimeout(ctx, relayTimeout)
	defer cancel()
	conn, closeConn, err := dialInviteFor(ctx, d, addr, id)
	if err != nil {
		return nil, err
	}
	defer closeConn()
	peer, err := trust.PeerKey(conn.ConnectionState())
	if err != nil {
		return nil, err
	}
	if !sn.IsAdmin(peer) {
		return nil, fmt.Errorf("%w: %s is not an admin's servant", ErrNotCertified, addr)
	}
	exporter, err := trust.ExporterValue(conn.ConnectionState())
	if err != nil {
		return nil, err
	}
	req := request{Kind: kindCertify, Network: trust.NetworkFingerprint(&sn.Network).String(),
		Member: trust.LinkProof(secret, exporter, trust.RoleClient)}
	if err := writeFrame(conn, req); err != nil {
		return nil, err
	}
	var ans answer
	if err := readFrame(conn, &ans, maxFrameBytes); err != nil {
		return nil, fmt.Errorf("no answer: %w", err)
	}
	if !ans.OK {
		return nil, &RedeemError{Reason: ans.Reason, Msg: ans.Error, Seed: addr}
	}
	c, err := trust.ParseMemberCert(ans.Certificate)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNotCertified, err)
	}
	if !c.Key.Equal(id.Public) {
		return nil, fmt.Errorf("%w: the certificate names another key", ErrNotCertified)
	}
	if err := sn.VerifyMemberCert(c); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNotCertified, err)
	}
	return c, nil
}
