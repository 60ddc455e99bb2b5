package app

import (
	"bytes"
	"crypto/ed25519"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"newsdesk/app/apptest"
	"newsdesk/newsnet"
	"newsdesk/trust"
)

// reachParty is a reader of the test network for reach blobs: its key and,
// when admitted, the admin's certificate.
type reachParty struct {
	id   *trust.Identity
	cert *trust.MemberCert
}

func admittedReader(t *testing.T, sn *trust.SignedNetwork) reachParty {
	t.Helper()
	id, err := trust.GenerateIdentity()
	if err != nil {
		t.Fatal(err)
	}
	return reachParty{id, apptest.NetworkAdmin(t).SignMemberCert(sn.ID, id.Public, time.Now())}
}

func (p reachParty) blob(sn *trust.SignedNetwork, item [16]byte, name string, ack bool) []byte {
	return trust.SignReachBlob(p.id, sn.ID, p.cert, item, name, ack)
}

func mustIdentity(t *testing.T) *trust.Identity {
	t.Helper()
	id, err := trust.GenerateIdentity()
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// Issue 32 C: the acknowledged count was taken from the relays' number
// (1,005 delivered, 1,002 read and 1,002 acknowledged, where 5, 2 and 2
// were true). It is now the distinct readers whose confirmations verify;
// the relays' number is kept beside it as reported, and a confirmation
// listed twice counts once.
func TestReachAcknowledgedIsVerified(t *testing.T) {
	a := openApp(t, Options{})
	sn := a.Network()
	item := uuid.New()
	bo, cy := admittedReader(t, sn), admittedReader(t, sn)
	u := newsnet.ReachUpdated{ID: item, ReachTotals: newsnet.ReachTotals{Subscribers: 5, Delivered: 1005, Read: 1002, Acknowledged: 1002,
		Acks: [][]byte{bo.blob(sn, item, "Bo", true), cy.blob(sn, item, "Cy", true), cy.blob(sn, item, "Cy", true)}}}
	r := a.reachRecord(u, time.Now())
	if r.Acknowledged != 2 || r.ReportedAcknowledged != 1002 || r.Delivered != 1005 || r.Read != 1002 {
		t.Fatalf("acknowledged %d (reported %d), delivered %d, read %d; want 2 verified of 1002 reported, the relays' delivered and read kept as reported",
			r.Acknowledged, r.ReportedAcknowledged, r.Delivered, r.Read)
	}
}

// Issue 32 C: confirmations signed by random keys verified, since keys
// were not checked against the network's members. A key the network
// never admitted (no certificate, one it signed itself, another key's)
// is refused by every servant's check (VerifyReachBlob: dropped at the
// first relay) and never counted; a version-1 confirmation (an older
// release) is counted only as unverified.
func TestReachRandomKeysDoNotCount(t *testing.T) {
	a := openApp(t, Options{})
	sn := a.Network()
	item := uuid.New()
	bo := admittedReader(t, sn)
	random := mustIdentity(t)
	forged := [][]byte{
		trust.SignReachBlob(random, sn.ID, nil, item, "Random", true),
		trust.SignReachBlob(random, sn.ID, random.SignMemberCert(sn.ID, random.Public, time.Now()), item, "Self", true),
		trust.SignReachBlob(random, sn.ID, bo.cert, item, "Borrowed", true),
	}
	for i, b := range forged {
		if a.verifyReachBlob(item, b, true) {
			t.Errorf("forged confirmation %d passes the relays' check", i)
		}
	}
	legacy := trust.SignAck(mustIdentity(t), item, "Old")
	if !a.verifyReachBlob(item, legacy, true) {
		t.Error("a version-1 confirmation (an older release's) is refused: its relay would be counted as misbehaving")
	}
	u := newsnet.ReachUpdated{ID: item, ReachTotals: newsnet.ReachTotals{Delivered: 6, Acknowledged: 5,
		Acks: append(slices.Clone(forged), legacy, bo.blob(sn, item, "Bo", true))}}
	r := a.reachRecord(u, time.Now())
	if r.Acknowledged != 1 || r.UnverifiedAcknowledged != 1 || r.ReportedAcknowledged != 5 {
		t.Fatalf("acknowledged %d, unverified %d, reported %d; want 1, 1, 5", r.Acknowledged, r.UnverifiedAcknowledged, r.ReportedAcknowledged)
	}
}

// Issue 32 C: invented pending readers appeared, and a real reader's key
// was listed a second time under another name, since identity blobs were
// not signed. Pending lists only identities signed by an admitted key for
// this item, one per key; unsigned ones (older releases) are only counted.
func TestReachInventedPendingReaders(t *testing.T) {
	a := openApp(t, Options{})
	sn := a.Network()
	item := uuid.New()
	di := admittedReader(t, sn)
	invented := mustIdentity(t)
	pending := [][]byte{
		di.blob(sn, item, "Di", false),
		trust.SignReachBlob(invented, sn.ID, nil, item, "Invented", false),
		di.blob(sn, uuid.New(), "Di elsewhere", false), // another item's
		trust.ReaderIdentity(di.id, "Mallory"),         // Di's key under another name, unsigned
		trust.ReaderIdentity(invented, "Ghost"),        // unsigned
	}
	if a.verifyReachBlob(item, pending[1], false) || a.verifyReachBlob(item, pending[2], false) {
		t.Error("an invented or misplaced identity passes the relays' check")
	}
	r := a.reachRecord(newsnet.ReachUpdated{ID: item, ReachTotals: newsnet.ReachTotals{Delivered: 5, Pending: pending, PendingCount: 5}}, time.Now())
	if len(r.Pending) != 1 || r.Pending[0].Name != "Di" || r.Pending[0].Key != trust.PublicKeyString(di.id.Public) {
		t.Fatalf("pending %+v, want Di alone", r.Pending)
	}
	if r.ReportedPending != 5 {
		t.Errorf("reported pending %d, want the relays' 5", r.ReportedPending)
	}
	if r.UnverifiedPending != 2 {
		t.Errorf("unverified pending %d, want 2", r.UnverifiedPending)
	}
}

// Issue 32 C: 256 junk confirmations that sort first pushed the real ones
// out of the list the overlay bounds by sorting (newsnet identityList).
// Junk of keys not admitted is refused at the first relay; version-1
// junk, which relays pass on for older releases, sorts after every
// verified blob, so it never pushes one out; and a member cannot fill the
// list with its one key under many names: a second name for the same item
// is refused until blobReplaceAfter has passed.
func TestReachJunkCannotPushOut(t *testing.T) {
	a := openApp(t, Options{})
	sn := a.Network()
	item := uuid.New()
	now := time.Unix(1_800_000_000, 0)
	a.blobs.now = func() time.Time { return now }
	real := [][]byte{admittedReader(t, sn).blob(sn, item, "Bo", true), admittedReader(t, sn).blob(sn, item, "Cy", true)}
	var list [][]byte
	for _, b := range real {
		if !a.verifyReachBlob(item, b, true) {
			t.Fatal("a real confirmation is refused")
		}
		list = append(list, b)
	}
	for i := range newsnet.MaxReachIdentities {
		junk := trust.SignReachBlob(mustIdentity(t), sn.ID, nil, item, string(rune('a'+i%26)), true)
		junk[2] = 0 // its key sorts first
		if a.verifyReachBlob(item, junk, true) {
			t.Fatal("junk passes the relays' check")
		}
		old := trust.SignAck(mustIdentity(t), item, "")
		if !a.verifyReachBlob(item, old, true) {
			t.Fatal("a version-1 confirmation is refused")
		}
		list = append(list, old)
	}
	// What the overlay keeps: sorted, the first MaxReachIdentities.
	slices.SortFunc(list, bytes.Compare)
	list = list[:newsnet.MaxReachIdentities]
	r := a.reachRecord(newsnet.ReachUpdated{ID: item, ReachTotals: newsnet.ReachTotals{Acknowledged: 258, Acks: list}}, time.Now())
	if r.Acknowledged != 2 {
		t.Fatalf("acknowledged %d after the junk, want 2", r.Acknowledged)
	}

	eve := admittedReader(t, sn)
	if !a.verifyReachBlob(item, eve.blob(sn, item, "Eve", true), true) {
		t.Fatal("Eve's confirmation is refused")
	}
	if a.verifyReachBlob(item, eve.blob(sn, item, "Eve 2", true), true) {
		t.Fatal("a second name for one key and item passes at once")
	}
	if !a.verifyReachBlob(item, eve.blob(sn, item, "Eve", true), true) {
		t.Fatal("the same confirmation again is refused")
	}
	now = now.Add(blobReplaceAfter)
	if !a.verifyReachBlob(item, eve.blob(sn, item, "Eve Renamed", true), true) {
		t.Fatal("a renamed reader's confirmation is refused after blobReplaceAfter")
	}
	if a.verifyReachBlob(item, eve.blob(sn, item, "Eve", true), true) {
		t.Fatal("the replaced name passes again at once")
	}
}

// A revoked reader's confirmation does not count, certificate or not;
// one whose certificate's admin the definition no longer lists neither.
func TestReachRevokedAndFormerAdmin(t *testing.T) {
	a := openApp(t, Options{})
	sn := a.Network()
	item := uuid.New()
	bo := admittedReader(t, sn)
	next := sn.Network.Clone()
	next.Version++
	next.Revoked = append(next.Revoked, bo.id.Public)
	slices.SortFunc(next.Revoked, func(x, y ed25519.PublicKey) int { return bytes.Compare(x, y) })
	revoked, err := apptest.NetworkAdmin(t).SignNetwork(next)
	if err != nil {
		t.Fatal(err)
	}
	if a.blobs.accept(revoked, item, bo.blob(sn, item, "Bo", true), true) {
		t.Error("a revoked key's confirmation passes")
	}
	other := mustIdentity(t)
	former := reachParty{bo.id, other.SignMemberCert(sn.ID, bo.id.Public, time.Now())}
	if a.blobs.accept(sn, item, former.blob(sn, item, "Bo", true), true) {
		t.Error("a certificate by a key that is no admin passes")
	}
}

// Issue 26: a reader who confirmed and then goes offline stays confirmed:
// the publisher keeps the confirmations it verified, and counts them
// while the network has not revoked their readers.
func TestKeptConfirmations(t *testing.T) {
	a := openApp(t, Options{})
	res, err := a.Publish(Draft{Category: "hr", Title: "New travel policy", MustRead: true})
	if err != nil {
		t.Fatal(err)
	}
	item := res.ID
	sn := a.Network()
	bo, cy := admittedReader(t, sn), admittedReader(t, sn)
	report := func(acks ...[]byte) {
		u := newsnet.ReachUpdated{ID: item, ReachTotals: newsnet.ReachTotals{Subscribers: 2, Delivered: uint64(len(acks)),
			Acknowledged: uint64(len(acks)), Acks: acks}}
		a.storeReach([]reachReport{{u, time.Now()}})
	}
	check := func(when string, want string) {
		t.Helper()
		r, err := a.Reach(item)
		if got := fmt.Sprintf("%d: %s", r.Acknowledged, confirmedNames(r)); err != nil || got != want {
			t.Errorf("%s: acknowledged %s, %v; want %s", when, got, err, want)
		}
	}
	report(bo.blob(sn, item, "Bo", true), cy.blob(sn, item, "Cy", true))
	check("both online", "2: Bo Cy")
	report()
	check("both offline", "2: Bo Cy")
	report(cy.blob(sn, item, "Cy", true))
	check("Cy back", "2: Bo Cy")

	next := sn.Network.Clone()
	next.Version++
	next.Revoked = append(next.Revoked, bo.id.Public)
	slices.SortFunc(next.Revoked, func(x, y ed25519.PublicKey) int { return bytes.Compare(x, y) })
	revoked, err := apptest.NetworkAdmin(t).SignNetwork(next)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.ImportNetwork(revoked); err != nil {
		t.Fatal(err)
	}
	check("Bo revoked", "1: Cy")
}

// Issue 26: with more pending readers than a report names, reports name
// them in turns, and the publisher keeps every name it heard: the list
// grows to all of them, exportable in full; when later reports name
// fewer (readers left), those not named within a cycle show as offline.
func TestPendingNamesAccumulate(t *testing.T) {
	a := openApp(t, Options{})
	res, err := a.Publish(Draft{Category: "hr", Title: "New travel policy", MustRead: true})
	if err != nil {
		t.Fatal(err)
	}
	item := res.ID
	sn := a.Network()
	const readers = 600
	blobs := make([][]byte, readers)
	for i := range blobs {
		blobs[i] = admittedReader(t, sn).blob(sn, item, fmt.Sprintf("Reader %03d", i), false)
	}
	at := time.Now()
	report := func(pending [][]byte, count int) {
		u := newsnet.ReachUpdated{ID: item, ReachTotals: newsnet.ReachTotals{Subscribers: readers, Delivered: readers,
			PendingCount: uint64(count), Pending: pending}}
		a.storeReach([]reachReport{{u, at}})
	}
	for start := 0; start < readers; start += newsnet.MaxReachIdentities {
		report(blobs[start:min(start+newsnet.MaxReachIdentities, readers)], readers)
		at = at.Add(30 * time.Second)
	}
	r, err := a.Reach(item)
	if err != nil || len(r.Pending) != readers || len(r.Offline) != 0 || r.ReportedPending != readers {
		t.Fatalf("after three turns: %d named pending, %d offline, %d counted, %v; want all %d named", len(r.Pending), len(r.Offline), r.ReportedPending, err, readers)
	}
	// The readers past the first 100 leave; a cycle later the reports
	// name the 100 alone, complete.
	at = at.Add(a.reachCycle())
	report(blobs[:100], 100)
	r, _ = a.Reach(item)
	if len(r.Pending) != 100 || len(r.Offline) != readers-100 || r.Offline[0].LastSeen.IsZero() {
		t.Errorf("after 500 left: %d pending, %d offline; want 100 and 500 with a last-seen time", len(r.Pending), len(r.Offline))
	}
}
