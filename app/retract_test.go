package app

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"newsdesk/app/apptest"
	"newsdesk/network"
	"newsdesk/news"
	"newsdesk/newsnet"
	"newsdesk/trust"
)

// waitRouted waits until s has a link toward a servant that wants category
// (system groups included).
func (s *App) waitRouted(t *testing.T, category string) {
	t.Helper()
	waitFor(t, s.Addr()+" to route "+category, func() error {
		for _, l := range s.currentNode().Status().Links {
			if newsnet.CategorySet(l.Received).Matches(category) {
				return nil
			}
		}
		return fmt.Errorf("links %+v", s.currentNode().Status().Links)
	})
}

// retractedOn reports nil once s holds item id hidden, with reason, and out
// of its lists and counts.
func retractedOn(s *App, id uuid.UUID, reason string) error {
	e, err := s.Item(id)
	if err != nil {
		return fmt.Errorf("%s: %v", s.Addr(), err)
	}
	if e.Retracted == nil || e.Retracted.Reason != reason {
		return fmt.Errorf("%s: retraction %+v", s.Addr(), e.Retracted)
	}
	list, _, err := s.Newest(nil, 50, "")
	if err != nil {
		return err
	}
	if slices.ContainsFunc(list, func(e2 Entry) bool { return e2.Item.ID == id }) {
		return fmt.Errorf("%s still lists the item", s.Addr())
	}
	if u, _ := s.UnreadCounts(); u["it"] != 0 {
		return fmt.Errorf("%s counts %d unread in it", s.Addr(), u["it"])
	}
	return nil
}

// A publisher's retraction hides its item on every servant, also one that
// joins later; a member that neither published it nor is an admin may not
// retract it; a forged retraction is dropped at the first servant.
func TestRetractionHidesItemEverywhere(t *testing.T) {
	simTest(t, func(t *testing.T, sn *simNet) {
		aDir := t.TempDir()
		_, def, _ := apptest.PublishersNetwork(t, aDir)
		a := sn.open(t, Options{DataDir: aDir, Start: true, Network: def})
		b := sn.open(t, Options{Start: true, Network: def, Seeds: []string{a.Addr()}, Archive: true})
		c := sn.open(t, Options{Start: true, Network: def, Seeds: []string{a.Addr()}, Subscriptions: []string{"it"}})
		a.waitRouted(t, "it")
		res, err := a.Publish(Draft{Category: "it", Title: "Office closed tomorrow"})
		if err != nil {
			t.Fatal(err)
		}
		id := res.ID
		for _, s := range []*App{b, c} {
			waitFor(t, "the item on "+s.Addr(), func() error {
				_, err := s.Item(id)
				return err
			})
		}

		var notAuth *NotAuthorizedError
		if err := c.Retract(id, "not mine"); !errors.As(err, &notAuth) || notAuth.Reason() != string(trust.NotAuthorized) {
			t.Fatalf("retraction by a member who did not publish it = %v, want NotAuthorizedError notAuthorized", err)
		}
		if err := c.Retract(uuid.Must(uuid.NewV7()), ""); !errors.Is(err, ErrItemNotFound) {
			t.Errorf("retraction of an unknown item by a non-admin = %v, want ErrItemNotFound", err)
		}

		// A forged retraction pushed through c's node: signed by c, which is
		// not the publisher. a or b drops it.
		forged, err := c.Identity().SignRetraction(id, "forged", time.Now())
		if err != nil {
			t.Fatal(err)
		}
		pushCarrier(t, c, forged)
		waitFor(t, "the forged retraction rejected", func() error {
			if r := a.ServantStatus().Rejected["notAuthorized"] + b.ServantStatus().Rejected["notAuthorized"]; r != 1 {
				return fmt.Errorf("rejected: a %v, b %v", a.ServantStatus().Rejected, b.ServantStatus().Rejected)
			}
			return nil
		})
		if e, _ := c.Item(id); e.Retracted != nil {
			t.Fatal("a forged retraction hid the item")
		}

		if err := a.Retract(id, "Sent too early"); err != nil {
			t.Fatal(err)
		}
		for _, s := range []*App{a, b, c} {
			waitFor(t, "the item hidden on "+s.Addr(), func() error { return retractedOn(s, id, "Sent too early") })
		}
		if err := a.Retract(id, "again"); err != nil {
			t.Errorf("retracting again: %v", err)
		}

		// A servant that was not there gets the retraction by catch-up from
		// the archive, and not the item: catch-up leaves retracted items out.
		// It joins well after the item went out: an item published less
		// than newsnet's ClockSkew before a servant attached counts as owed
		// to it (a publisher's clock may lag), and its publisher would
		// send it on request.
		time.Sleep(newsnet.DefaultConfig("").ClockSkew + time.Minute)
		d := sn.open(t, Options{Start: true, Network: def, Seeds: []string{b.Addr()}, Subscriptions: []string{"it"}})
		later, err := a.Publish(Draft{Category: "it", Title: "Office open as usual"})
		if err != nil {
			t.Fatal(err)
		}
		// The publisher's retraction waits there for its item (only the item
		// shows who may retract it); should the item come after all, it is
		// stored hidden.
		waitForUpTo(t, 20*time.Second, "the retraction on the late joiner", func() error {
			waiting := d.net.Waiting(id)
			if waiting != 1 {
				return fmt.Errorf("%d retractions wait for the item", waiting)
			}
			_, err := d.Item(later.ID)
			return err
		})
		if _, err := d.Item(id); err == nil {
			if err := retractedOn(d, id, "Sent too early"); err != nil {
				t.Error(err)
			}
		}
	})
}

// An admin may retract any item, also one its own servant never received.
func TestAdminRetractsByID(t *testing.T) {
	simTest(t, func(t *testing.T, sn *simNet) {
		pubDir := t.TempDir()
		pub, err := trust.LoadOrCreateIdentity(pubDir)
		if err != nil {
			t.Fatal(err)
		}
		adminDir := t.TempDir()
		admin, err := trust.LoadOrCreateIdentity(adminDir)
		if err != nil {
			t.Fatal(err)
		}
		v1, err := trust.NewNetwork("Acme", admin, nil, false)
		if err != nil {
			t.Fatal(err)
		}
		n := v1.Network.Clone()
		n.Publishers = append(n.Publishers, trust.Publisher{Name: "Newsroom", Key: pub.Public})
		def, err := admin.SignNetwork(n)
		if err != nil {
			t.Fatal(err)
		}
		p := sn.open(t, Options{DataDir: pubDir, Start: true, Network: def, Subscriptions: []string{"it"}})
		ad := sn.open(t, Options{DataDir: adminDir, Start: true, Network: def, Seeds: []string{p.Addr()}})
		ad.waitRouted(t, network.RetractionCategory)
		res, err := p.Publish(Draft{Category: "it", Title: "Wrong figures"})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ad.Item(res.ID); err == nil {
			t.Fatal("the admin's servant holds an item of a category it does not subscribe to")
		}
		if err := ad.Retract(res.ID, "Wrong figures"); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "the item hidden on the publisher", func() error { return retractedOn(p, res.ID, "Wrong figures") })
	})
}

// A publisher's retraction that arrives before its item waits for it, also
// across a restart; one by another publisher is refused when the item comes.
func TestRetractionBeforeItsItem(t *testing.T) {
	dir := t.TempDir()
	q := openApp(t, Options{DataDir: dir}) // the open test network: every member publishes
	pub, _ := trust.GenerateIdentity()
	other, _ := trust.GenerateIdentity()
	src, _ := trust.NewSource(pub.Public)
	it, err := news.NewItem("it", "Canteen closed", "", "", src, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	it.SourceCount = 1
	if err := trust.SignItem(pub, it); err != nil {
		t.Fatal(err)
	}
	for _, k := range []*trust.Identity{other, pub} {
		r, err := k.SignRetraction(it.ID, "by "+trust.PublicKeyString(k.Public)[:12], time.Now())
		if err != nil {
			t.Fatal(err)
		}
		deliverCarrier(t, q, r)
	}
	if got := q.net.Waiting(it.ID); got != 2 {
		t.Fatalf("%d retractions wait for the item, want 2", got)
	}
	q.Close()
	q = openApp(t, Options{DataDir: dir})
	if got := q.net.Waiting(it.ID); got != 2 {
		t.Fatalf("after a restart %d retractions wait for the item, want 2", got)
	}
	m, err := multicastOf(it)
	if err != nil {
		t.Fatal(err)
	}
	q.inbox.deliver(m, time.Now())
	q.inbox.flush()
	if err := retractedOn(q, it.ID, "by "+trust.PublicKeyString(pub.Public)[:12]); err != nil {
		t.Error(err)
	}
}

// deliverCarrier hands q a retraction carrier as if the overlay delivered
// it, from a source of its own.
func deliverCarrier(t *testing.T, q *App, r *trust.Retraction) {
	t.Helper()
	relay, _ := trust.GenerateIdentity() // any member may relay a retraction
	src, _ := trust.NewSource(relay.Public)
	carrier := carrierOf(t, r, relay, src, 1)
	m, err := multicastOf(carrier)
	if err != nil {
		t.Fatal(err)
	}
	if reason := q.net.Verify(m); reason != "" {
		t.Fatalf("verify of the carrier: %s", reason)
	}
	q.inbox.deliver(m, time.Now())
	q.inbox.flush()
}

// pushCarrier sends a retraction carrier through s's node as s's next
// publication, without any check.
func pushCarrier(t *testing.T, s *App, r *trust.Retraction) {
	t.Helper()
	count, err := s.store.NextSourceCount(s.Source())
	if err != nil {
		t.Fatal(err)
	}
	m, err := multicastOf(carrierOf(t, r, s.Identity(), s.Source(), count))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.currentNode().PublishBatch(context.Background(), []*newsnet.Multicast{m}); err != nil {
		t.Fatal(err)
	}
}

// carrierOf is r in an item of network.RetractionCategory, published by signer
// under src (a source signer's key owns).
func carrierOf(t *testing.T, r *trust.Retraction, signer *trust.Identity, src uuid.UUID, count uint64) *news.Item {
	t.Helper()
	bin, err := r.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	it, err := news.NewItem(network.RetractionCategory, "Retraction", base64.StdEncoding.EncodeToString(bin), "", src, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	it.SourceCount = count
	if err := trust.SignItem(signer, it); err != nil {
		t.Fatal(err)
	}
	return it
}
