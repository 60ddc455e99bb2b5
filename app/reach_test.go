package app

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"newsdesk/app/apptest"
	"newsdesk/trust"
)

// reachString shows a reach compactly for comparisons.
func reachString(r Reach) string {
	s := fmt.Sprintf("subscribers %d delivered %d read %d acknowledged %d", r.Subscribers, r.Delivered, r.Read, r.Acknowledged)
	if r.MustRead {
		s += " pending"
		for _, p := range r.Pending {
			s += " " + p.Name
		}
	}
	return s
}

// offlineNames lists the offline readers of id at a, by name, sorted;
// each must have a last-seen time.
func confirmedNames(r Reach) string {
	var names []string
	for _, c := range r.Confirmed {
		if c.At.IsZero() {
			names = append(names, c.Name+"(no time)")
			continue
		}
		names = append(names, c.Name)
	}
	return strings.Join(names, " ")
}

func offlineNames(a *App, id uuid.UUID) string {
	r, _ := a.Reach(id)
	var names []string
	for _, o := range r.Offline {
		if o.LastSeen.IsZero() {
			return "no last-seen time for " + o.Name
		}
		names = append(names, o.Name)
	}
	slices.Sort(names)
	return strings.Join(names, " ")
}

// certify gives a the membership certificate the test network's admin
// signs, as its servant would on a certify request.
func certify(t *testing.T, a *App) {
	t.Helper()
	c := apptest.NetworkAdmin(t).SignMemberCert(a.Network().ID, a.identity.Public, time.Now())
	if err := a.adoptMemberCert(c, ""); err != nil {
		t.Fatal(err)
	}
}

// waitReach waits until a's reach of id shows as want.
func waitReach(t *testing.T, a *App, id uuid.UUID, want string) {
	t.Helper()
	waitFor(t, "reach "+want, func() error {
		r, err := a.Reach(id)
		if err != nil {
			return err
		}
		if got := reachString(r); got != want {
			return fmt.Errorf("reach %s", got)
		}
		return nil
	})
}

// A must-read post's reach at its publisher: readers who store it, open it
// and confirm it are counted, those who have not confirmed are listed by
// display name and key, and a confirmation whose signature does not verify
// is not counted. A reader whose servant stops drops out until it comes
// back, restored from its store, and still counts when it confirms
// afterwards. The publisher keeps the latest totals across its own
// restart. Only the publisher's own posts have a reach.
func TestReachOfMustReadPost(t *testing.T) {
	simTest(t, func(t *testing.T, sn *simNet) {
		pubDir := t.TempDir()
		a := sn.open(t, Options{DataDir: pubDir, Start: true})
		readers := map[string]*App{}
		dirs := map[string]string{}
		for _, name := range []string{"Bo", "Cy", "Di", "Eve"} {
			dirs[name] = t.TempDir()
			r := sn.open(t, Options{DataDir: dirs[name], Start: true, Seeds: []string{a.Addr()}, Subscriptions: []string{"hr"}})
			if err := r.SaveSettings(Settings{DisplayName: name, Listen: "127.0.0.1:0"}); err != nil {
				t.Fatal(err)
			}
			certify(t, r)
			readers[name] = r
		}
		waitFor(t, "the readers' subscriptions at the publisher", func() error {
			if n := len(a.Status().Links); n != 4 {
				return fmt.Errorf("%d links", n)
			}
			return nil
		})
		res, err := a.Publish(Draft{Category: "hr", Title: "New travel policy", MustRead: true})
		if err != nil {
			t.Fatal(err)
		}
		id := res.ID
		for name, r := range readers {
			waitEvent(t, r, "the post at "+name, itemsEvent(ItemsArrived, id))
		}
		waitReach(t, a, id, "subscribers 4 delivered 4 read 0 acknowledged 0 pending Bo Cy Di Eve")

		if err := readers["Bo"].MarkRead(id); err != nil {
			t.Fatal(err)
		}
		if _, err := readers["Cy"].Acknowledge(id); err != nil {
			t.Fatal(err)
		}
		// Eve's servant carries a confirmation signed for another item: it
		// does not count as one (the servant counts her as a reader).
		forged := trust.SignAck(readers["Eve"].identity, uuid.New(), "Eve")
		if err := readers["Eve"].currentNode().Acknowledge(id, a.Source().String(), forged); err != nil {
			t.Fatal(err)
		}
		waitReach(t, a, id, "subscribers 4 delivered 4 read 3 acknowledged 1 pending Bo Di")
		r, _ := a.Reach(id)
		if r.ReportedAcknowledged > 2 {
			t.Errorf("reported acknowledged %d", r.ReportedAcknowledged)
		}
		if i := slices.IndexFunc(r.Pending, func(p Reader) bool { return p.Name == "Di" }); i < 0 ||
			r.Pending[i].Key != trust.PublicKeyString(readers["Di"].identity.Public) {
			t.Errorf("pending %+v: want Di under her installation key", r.Pending)
		}
		if r.At.IsZero() {
			t.Error("the reach has no report time")
		}

		// Di's servant stops before she confirms: she drops out; back, she
		// counts again, and her confirmation counts.
		if err := readers["Di"].Close(); err != nil {
			t.Fatal(err)
		}
		waitReach(t, a, id, "subscribers 3 delivered 3 read 3 acknowledged 1 pending Bo")
		// Issue 26: she is still shown, as not confirmed, with when she
		// was last reported; so is Eve, listed no more since her servant
		// carried a confirmation that did not verify.
		if got := offlineNames(a, id); got != "Di Eve" {
			t.Errorf("offline %s, want Di and Eve with a last-seen time", got)
		}
		readers["Di"] = sn.open(t, Options{DataDir: dirs["Di"], Start: true})
		waitReach(t, a, id, "subscribers 4 delivered 4 read 3 acknowledged 1 pending Bo Di")
		if got := offlineNames(a, id); got != "Eve" {
			t.Errorf("offline %s after Di came back, want Eve", got)
		}
		if _, err := readers["Di"].Acknowledge(id); err != nil {
			t.Fatal(err)
		}
		waitReach(t, a, id, "subscribers 4 delivered 4 read 4 acknowledged 2 pending Bo")

		// Cy, who confirmed, shuts down: the network counts her no more,
		// but the publisher keeps her verified confirmation (issue 26).
		if err := readers["Cy"].Close(); err != nil {
			t.Fatal(err)
		}
		waitReach(t, a, id, "subscribers 3 delivered 3 read 3 acknowledged 2 pending Bo")
		// The relays count Di and Eve's forged confirmation.
		if r, _ := a.Reach(id); confirmedNames(r) != "Cy Di" || r.ReportedAcknowledged != 2 {
			t.Errorf("confirmed %q, reported by relays %d; want Cy and Di, 2 reported", confirmedNames(r), r.ReportedAcknowledged)
		}
		if got := offlineNames(a, id); got != "Eve" {
			t.Errorf("offline %s, want Eve alone: Cy confirmed", got)
		}
		readers["Cy"] = sn.open(t, Options{DataDir: dirs["Cy"], Start: true})
		waitReach(t, a, id, "subscribers 4 delivered 4 read 4 acknowledged 2 pending Bo")

		// The publisher restarts: it shows what it kept, and the network
		// reports the same again.
		if err := a.Close(); err != nil {
			t.Fatal(err)
		}
		a = sn.open(t, Options{DataDir: pubDir})
		if r, err := a.Reach(id); err != nil || reachString(r) != "subscribers 4 delivered 4 read 4 acknowledged 2 pending Bo" {
			t.Errorf("after a restart, not started: %s, %v", reachString(r), err)
		}
		if err := a.Start(); err != nil {
			t.Fatal(err)
		}
		for name, r := range readers {
			if err := r.SetSeeds([]string{a.Addr()}); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
		}
		waitFor(t, "the readers back under the publisher", func() error {
			if n := len(a.Status().Links); n != 4 {
				return fmt.Errorf("%d links", n)
			}
			return nil
		})
		waitReach(t, a, id, "subscribers 4 delivered 4 read 4 acknowledged 2 pending Bo")

		if _, err := readers["Bo"].Reach(id); !errors.Is(err, ErrNotFound) {
			t.Errorf("a reader's Reach of someone else's post = %v, want ErrNotFound", err)
		}
		if _, err := a.Reach(uuid.New()); !errors.Is(err, ErrNotFound) {
			t.Errorf("Reach of an unknown item = %v, want ErrNotFound", err)
		}
	})
}

// A plain post's reach counts readers and lists nobody; marking all read
// counts too.
func TestReachOfPlainPost(t *testing.T) {
	simTest(t, func(t *testing.T, sn *simNet) {
		a := sn.open(t, Options{Start: true})
		b := sn.open(t, Options{Start: true, Seeds: []string{a.Addr()}, Subscriptions: []string{"it"}})
		c := sn.open(t, Options{Start: true, Seeds: []string{a.Addr()}, Subscriptions: []string{"it"}})
		waitFor(t, "the readers at the publisher", func() error {
			if n := len(a.Status().Links); n != 2 {
				return fmt.Errorf("%d links", n)
			}
			return nil
		})
		res, err := a.Publish(Draft{Category: "it", Title: "Printer moved"})
		if err != nil {
			t.Fatal(err)
		}
		waitReach(t, a, res.ID, "subscribers 2 delivered 2 read 0 acknowledged 0")
		waitEvent(t, b, "the post at b", itemsEvent(ItemsArrived, res.ID))
		waitEvent(t, c, "the post at c", itemsEvent(ItemsArrived, res.ID))
		if err := b.MarkRead(res.ID); err != nil {
			t.Fatal(err)
		}
		if err := c.MarkAllRead(""); err != nil {
			t.Fatal(err)
		}
		waitReach(t, a, res.ID, "subscribers 2 delivered 2 read 2 acknowledged 0")
		waitEvent(t, a, "ReachChanged", itemsEvent(ReachChanged, res.ID))
		if r, _ := a.Reach(res.ID); r.Pending != nil {
			t.Errorf("a plain post lists pending readers: %+v", r.Pending)
		}
	})
}
