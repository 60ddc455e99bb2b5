package network

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/base64"
	"errors"
	"io"
	"log/slog"
	"net"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"newsdesk/storage"
	"newsdesk/trust"
)

// quietHost is a Host that publishes nothing.
type quietHost struct {
	mu        sync.Mutex
	announced []string
}

func (h *quietHost) Announce(category, title, body string) (string, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.announced = append(h.announced, title)
	return "sent", nil
}
func (*quietHost) ApplyCatalog(*trust.SignedNetwork) error { return nil }
func (*quietHost) StoreSeeds([]string) error               { return nil }
func (*quietHost) Adopted(prev, next *trust.SignedNetwork) {}
func (*quietHost) Reauthenticate()                         {}
func (*quietHost) Retracted(category string, id uuid.UUID) {}

// testServant is a Keeper and its Inviter serving redemptions on a TLS
// listener of its own, as a servant's node does.
type testServant struct {
	id   *trust.Identity
	k    *Keeper
	iv   *Inviter
	ln   net.Listener
	addr string
}

func newIdentity(t *testing.T) *trust.Identity {
	t.Helper()
	id, err := trust.GenerateIdentity()
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// listen reserves a servant's address before the definition naming it
// exists.
func listen(t *testing.T) net.Listener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	return ln
}

// start runs a servant of def with identity id on ln.
func start(t *testing.T, ln net.Listener, id *trust.Identity, def *trust.SignedNetwork) *testServant {
	t.Helper()
	return startLogged(t, ln, id, def, slog.New(slog.DiscardHandler))
}

// startLogged is start, logging to log.
func startLogged(t *testing.T, ln net.Listener, id *trust.Identity, def *trust.SignedNetwork, log *slog.Logger) *testServant {
	t.Helper()
	st, err := storage.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	k, err := New(Config{Store: st, Identity: id, Log: log, Host: &quietHost{}, Import: def})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(k.Close) // before the store closes: announcements of its own
	s := &testServant{id: id, k: k, iv: NewInviter(k), ln: ln, addr: ln.Addr().String()}
	cfg := trust.TLSConfigFor(id, true, trust.ALPN, trust.InviteALPN)
	var wg sync.WaitGroup
	t.Cleanup(func() { ln.Close(); wg.Wait() })
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer c.Close()
				tc := tls.Server(c, cfg)
				c.SetDeadline(time.Now().Add(5 * time.Second))
				if tc.Handshake() != nil || tc.ConnectionState().NegotiatedProtocol != trust.InviteALPN {
					return
				}
				s.iv.Serve(tc)
			}()
		}
	}()
	return s
}

// testNet is a network of an admin's servant and two seeds that are not
// the admin's: invitations are made at the admin's servant and redeemed
// at the seeds.
type testNet struct {
	def          *trust.SignedNetwork
	admin        *testServant
	seedA, seedB *testServant
}

func newTestNet(t *testing.T) *testNet {
	t.Helper()
	return newTestNetLogged(t, slog.New(slog.DiscardHandler))
}

// newTestNetLogged is newTestNet, the admin's servant logging to log.
func newTestNetLogged(t *testing.T, log *slog.Logger) *testNet {
	t.Helper()
	lnAdmin, lnA, lnB := listen(t), listen(t), listen(t)
	adminID := newIdentity(t)
	def, err := trust.NewNetwork("Test", adminID, []string{lnA.Addr().String(), lnB.Addr().String()}, false)
	if err != nil {
		t.Fatal(err)
	}
	return &testNet{
		def:   def,
		admin: startLogged(t, lnAdmin, adminID, def, log),
		seedA: start(t, lnA, newIdentity(t), def),
		seedB: start(t, lnB, newIdentity(t), def),
	}
}

func (n *testNet) invite(t *testing.T, req InviteRequest) *trust.InviteCode {
	t.Helper()
	if req.Via == "" {
		req.Via = n.admin.addr
	}
	s, _, err := n.admin.iv.Create(req)
	if err != nil {
		t.Fatal(err)
	}
	code, err := trust.ParseInviteCode(s)
	if err != nil {
		t.Fatal(err)
	}
	return code
}

// only returns code with only the given seed to ask (and via after it),
// signed again by the admin (the seed list is signed).
func (n *testNet) only(code *trust.InviteCode, seed string) *trust.InviteCode {
	return onlySigned(code, seed, n.admin.id)
}

// onlySigned is only, signed by signer.
func onlySigned(code *trust.InviteCode, seed string, signer *trust.Identity) *trust.InviteCode {
	c := *code
	c.Seeds = []string{seed}
	c.Sign(signer)
	return &c
}

func (n *testNet) uses(t *testing.T) []Invitation {
	t.Helper()
	l, err := n.admin.iv.List()
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func redeem(code *trust.InviteCode, id *trust.Identity) (*trust.SignedNetwork, error) {
	return Redeem(context.Background(), code, id, "Joiner")
}

func wantReason(t *testing.T, err error, reason string) {
	t.Helper()
	re, ok := errors.AsType[*RedeemError](err)
	if !ok || re.Reason != reason {
		t.Fatalf("error %v, want a RedeemError %q", err, reason)
	}
}

// A joiner redeems at a seed that is not the admin's servant: the seed
// relays to via, the joiner gets the definition with the secret, and the
// use is counted at the admin's servant.
func TestRedeemThroughSeed(t *testing.T) {
	n := newTestNet(t)
	code := n.invite(t, InviteRequest{})
	joiner := newIdentity(t)
	sn, err := redeem(n.only(code, n.seedA.addr), joiner)
	if err != nil {
		t.Fatal(err)
	}
	if sn.ID != n.def.ID || !bytes.Equal(sn.Secret, n.def.Secret) {
		t.Fatalf("got network %s, want %s with its secret", sn.ID, n.def.ID)
	}
	l := n.uses(t)
	if len(l) != 1 || l[0].Used != 1 || l[0].UsesLeft(time.Now()) != 0 || !slices.Equal(l[0].Redeemed, []string{trust.PublicKeyString(joiner.Public)}) {
		t.Fatalf("invitation after redemption: %+v", l)
	}
	// The same joiner again (its answer lost on the way): the definition
	// again, no use counted.
	if _, err := redeem(n.only(code, n.seedB.addr), joiner); err != nil {
		t.Fatalf("the same key again: %v", err)
	}
	if l := n.uses(t); l[0].Used != 1 {
		t.Fatalf("used %d after the same key's retry", l[0].Used)
	}
	// Another joiner: used up, at either seed and at the admin's servant.
	other := newIdentity(t)
	for _, at := range []string{n.seedA.addr, n.seedB.addr, n.admin.addr} {
		_, err := redeem(n.only(code, at), other)
		wantReason(t, err, ReasonUsedUp)
	}
}

// Two joiners redeem one one-use code at the same moment at two seeds:
// exactly one gets in, the other is told it is used up.
func TestRedeemConcurrentAtTwoSeeds(t *testing.T) {
	n := newTestNet(t)
	for round := range 5 {
		code := n.invite(t, InviteRequest{Uses: 1})
		var (
			wg   sync.WaitGroup
			errs [2]error
		)
		for i, seed := range []string{n.seedA.addr, n.seedB.addr} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, errs[i] = Redeem(context.Background(), n.only(code, seed), newIdentity(t), "")
			}()
		}
		wg.Wait()
		ok := 0
		for _, err := range errs {
			if err == nil {
				ok++
			} else {
				wantReason(t, err, ReasonUsedUp)
			}
		}
		if ok != 1 {
			t.Fatalf("round %d: %d redemptions succeeded (%v), want exactly 1", round, ok, errs)
		}
		if l := n.uses(t); l[len(l)-1].Used != 1 {
			t.Fatalf("round %d: used %d", round, l[len(l)-1].Used)
		}
	}
}

// Refusals change nothing: neither the invitation's count nor anything
// of the joiner's (Redeem writes nothing; the caller imports only on
// success).
func TestRedeemRefusals(t *testing.T) {
	n := newTestNet(t)
	joiner := newIdentity(t)
	check := func(name string, code *trust.InviteCode, reason string) {
		t.Helper()
		before := n.uses(t)
		_, err := redeem(code, joiner)
		wantReason(t, err, reason)
		if !strings.Contains(err.Error(), " ") {
			t.Errorf("%s: error %q says nothing", name, err)
		}
		if after := n.uses(t); !slices.EqualFunc(before, after, func(a, b Invitation) bool { return a.Used == b.Used && slices.Equal(a.Redeemed, b.Redeemed) }) {
			t.Errorf("%s: the invitations changed: %+v → %+v", name, before, after)
		}
	}

	code := n.invite(t, InviteRequest{})
	wrong := *code
	wrong.Token = bytes.Clone(code.Token)
	wrong.Token[0] ^= 1
	check("wrong token", n.only(&wrong, n.seedA.addr), ReasonWrongToken)

	revoked := n.invite(t, InviteRequest{})
	if err := n.admin.iv.Revoke(revoked.ID); err != nil {
		t.Fatal(err)
	}
	check("revoked", n.only(revoked, n.seedA.addr), ReasonRevoked)

	expired := n.invite(t, InviteRequest{Expires: time.Hour})
	n.admin.iv.now = func() time.Time { return time.Now().Add(2 * time.Hour) }
	check("expired", n.only(expired, n.seedB.addr), ReasonExpired)
	n.admin.iv.now = time.Now

	// A code for another network: the seed's fingerprint differs.
	other := *code
	other.Network[0] ^= 1
	other.Sign(n.admin.id)
	check("fingerprint mismatch", n.only(&other, n.seedA.addr), ReasonFingerprint)

	// via names a servant that does not hold the invitation (an admin
	// servant of the network, but not the one that made it).
	secondAdmin := start(t, listen(t), n.admin.id, n.def)
	elsewhere := *code
	elsewhere.Via = secondAdmin.addr
	elsewhere.Sign(n.admin.id)
	check("unknown at via", n.only(&elsewhere, n.seedA.addr), ReasonUnknown)

	// via, signed by the admin, is not an admin's servant.
	notAdmin := *code
	notAdmin.Via = n.seedB.addr
	notAdmin.Sign(n.admin.id)
	_, err := redeem(n.only(&notAdmin, n.seedA.addr), joiner)
	wantReason(t, err, ReasonNotAdmin)

	// The good code still works once after all that.
	if _, err := redeem(n.only(code, n.seedB.addr), joiner); err != nil {
		t.Fatal(err)
	}
}

// A publisher invitation adds the joiner's key to the publishers, in the
// invitation's categories, as the next definition version signed by the
// admin's servant; the joiner gets that version.
func TestRedeemPublisher(t *testing.T) {
	n := newTestNet(t)
	code := n.invite(t, InviteRequest{Publisher: true, Categories: []string{"it"}})
	joiner := newIdentity(t)
	sn, err := Redeem(context.Background(), n.only(code, n.seedA.addr), joiner, "Helpdesk")
	if err != nil {
		t.Fatal(err)
	}
	p, ok := sn.Publisher(joiner.Public)
	if !ok || p.Name != "Helpdesk" || !slices.Equal(p.Categories, []string{"it"}) {
		t.Fatalf("publisher entry %+v, %v", p, ok)
	}
	if sn.Version != n.def.Version+1 || !sn.Signer.Equal(n.admin.id.Public) {
		t.Fatalf("version %d signed by %s", sn.Version, trust.PublicKeyString(sn.Signer))
	}
	if got := n.admin.k.Definition(); got.Version != sn.Version {
		t.Fatalf("the admin's servant holds version %d", got.Version)
	}
	if _, _, err := n.admin.iv.Create(InviteRequest{Via: n.admin.addr, Categories: []string{"it"}}); err == nil {
		t.Error("categories without publisher accepted")
	}
	if _, _, err := n.admin.iv.Create(InviteRequest{Via: n.admin.addr, Publisher: true, Categories: []string{"no-such"}}); err == nil {
		t.Error("a category outside the catalog accepted")
	}
}

// Only an admin's servant makes invitations; and a relay from a servant
// that proves no membership is refused.
func TestInviteAdminOnlyAndRelayMembership(t *testing.T) {
	n := newTestNet(t)
	if _, _, err := n.seedA.iv.Create(InviteRequest{Via: n.seedA.addr}); !errors.Is(err, ErrNotAdmin) {
		t.Fatalf("a member's Create: %v", err)
	}
	if err := n.seedA.iv.Revoke("AAAAAAAAAAAA"); !errors.Is(err, ErrNotAdmin) {
		t.Fatalf("a member's Revoke: %v", err)
	}
	code := n.invite(t, InviteRequest{})
	// A relay request from an outsider that knows no secret.
	outsider := newIdentity(t)
	conn, err := dialInvite(context.Background(), nil, n.admin.addr, outsider)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	exp, _ := trust.ExporterValue(conn.ConnectionState())
	req := request{Kind: kindRelay, Network: code.Network.String(), ID: code.ID, Via: code.Via,
		Proof:    trust.InvitationProof(code.Token, trust.RoleJoiner, code.ID, code.Network, exp, outsider.Public),
		Exporter: exp, Key: trust.PublicKeyString(outsider.Public), Member: make([]byte, trust.LinkProofSize)}
	if err := writeFrame(conn, req); err != nil {
		t.Fatal(err)
	}
	var ans answer
	if err := readFrame(conn, &ans, maxFrameBytes); err != nil {
		t.Fatal(err)
	}
	if ans.OK || ans.Reason != ReasonNotMember || len(ans.Definition) != 0 {
		t.Fatalf("outsider's relay: %+v", ans)
	}
	if l := n.uses(t); l[0].Used != 0 {
		t.Fatal("the outsider's relay counted a use")
	}
}

// A servant posing as a seed that does not hold the token learns nothing
// it could redeem with (the token never travels, in any encoding), and
// cannot make the joiner accept an answer of its own.
func TestRedeemRogueSeed(t *testing.T) {
	n := newTestNet(t)
	code := n.invite(t, InviteRequest{})
	rogueID := newIdentity(t)
	ln := listen(t)
	// The rogue hands over a network of its own making, and an answer
	// that claims success.
	fake, err := trust.NewNetwork("Fake", rogueID, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	fakeDoc, _ := fake.Marshal()
	seen := make(chan []byte, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		tc := tls.Server(c, trust.TLSConfigFor(rogueID, true, trust.InviteALPN))
		if tc.Handshake() != nil {
			return
		}
		var hdr [4]byte
		io.ReadFull(tc, hdr[:])
		body := make([]byte, int(hdr[0])<<24|int(hdr[1])<<16|int(hdr[2])<<8|int(hdr[3]))
		io.ReadFull(tc, body)
		seen <- append(hdr[:], body...)
		writeFrame(tc, answer{OK: true, Definition: fakeDoc, Confirm: make([]byte, trust.InviteProofSize)})
	}()
	rogueOnly := *code
	rogueOnly.Seeds = []string{ln.Addr().String()}
	rogueOnly.Via = ln.Addr().String()
	rogueOnly.Sign(n.admin.id) // so that the joiner asks the rogue alone
	_, err = redeem(&rogueOnly, newIdentity(t))
	wantReason(t, err, ReasonBadAnswer)
	got := <-seen
	for _, enc := range [][]byte{code.Token, []byte(base64.RawURLEncoding.EncodeToString(code.Token)), []byte(base64.StdEncoding.EncodeToString(code.Token))} {
		if bytes.Contains(got, enc) {
			t.Fatal("the token reached the rogue seed")
		}
	}
	if l := n.uses(t); l[0].Used != 0 {
		t.Fatal("a use was counted")
	}
}
