package app

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"newsdesk/network"
	"newsdesk/trust"
)

// Issue 26: admins can open the report of any must-read post. The
// publisher sends a signed summary into the reports group, which only
// admins' servants join; the admin sees the counts and the names, also
// of a reader who confirmed and went offline; a member who is not an
// admin neither receives nor reads reports; and a member cannot report
// on someone else's post.
func TestReportsReachAdmins(t *testing.T) {
	simTest(t, func(t *testing.T, sn *simNet) {
		adminDir := t.TempDir()
		adminID, err := trust.LoadOrCreateIdentity(adminDir)
		if err != nil {
			t.Fatal(err)
		}
		def, err := trust.NewNetwork("Acme", adminID, nil, true)
		if err != nil {
			t.Fatal(err)
		}
		pub := sn.open(t, Options{Start: true, Network: def, reportInterval: time.Second})
		admin := sn.open(t, Options{DataDir: adminDir, Start: true, Seeds: []string{pub.Addr()}, Network: def})
		member := sn.open(t, Options{Start: true, Seeds: []string{pub.Addr()}, Network: def, Subscriptions: []string{"hr"}})
		readers := map[string]*App{}
		for _, name := range []string{"Bo", "Cy"} {
			r := sn.open(t, Options{Start: true, Seeds: []string{pub.Addr()}, Network: def, Subscriptions: []string{"hr"}})
			if err := r.SaveSettings(Settings{DisplayName: name, Listen: "127.0.0.1:0"}); err != nil {
				t.Fatal(err)
			}
			if err := r.adoptMemberCert(adminID.SignMemberCert(def.ID, r.identity.Public, time.Now()), ""); err != nil {
				t.Fatal(err)
			}
			readers[name] = r
		}
		waitFor(t, "everyone linked below the publisher", func() error {
			if n := len(pub.Status().Links); n != 4 {
				return fmt.Errorf("%d links", n)
			}
			return nil
		})
		res, err := pub.Publish(Draft{Category: "hr", Title: "New travel policy", MustRead: true})
		if err != nil {
			t.Fatal(err)
		}
		for name, r := range readers {
			waitEvent(t, r, "the post at "+name, itemsEvent(ItemsArrived, res.ID))
		}
		if _, err := readers["Cy"].Acknowledge(res.ID); err != nil {
			t.Fatal(err)
		}
		report := func() (NetworkReport, error) {
			rs, err := admin.NetworkReports()
			if err != nil {
				return NetworkReport{}, err
			}
			if len(rs) != 1 {
				return NetworkReport{}, fmt.Errorf("%d reports", len(rs))
			}
			return rs[0], nil
		}
		waitReport := func(what, want string) {
			t.Helper()
			waitFor(t, what, func() error {
				r, err := report()
				if err != nil {
					return err
				}
				got := fmt.Sprintf("%s by %s: %s confirmed %s", r.Title, r.Author, reachString(r.Reach), confirmedNames(r.Reach))
				if got != want {
					return fmt.Errorf("report %q", got)
				}
				if r.Post != res.ID || r.Publisher != trust.PublicKeyString(pub.identity.Public) || r.Category != "hr" || r.Reach.At.IsZero() {
					return fmt.Errorf("report %+v", r)
				}
				return nil
			})
		}
		author := pub.Settings().DisplayName
		waitReport("the admin's report", fmt.Sprintf("New travel policy by %s: subscribers 3 delivered 3 read 1 acknowledged 1 pending Bo confirmed Cy", author))

		// Cy shuts down: the publisher still counts her confirmation, and
		// so does the report.
		if err := readers["Cy"].Close(); err != nil {
			t.Fatal(err)
		}
		waitReport("the report with Cy offline", fmt.Sprintf("New travel policy by %s: subscribers 2 delivered 2 read 0 acknowledged 1 pending Bo confirmed Cy", author))

		// A member reports on the publisher's post in its name: the
		// servants refuse it, the admin keeps the publisher's.
		forged, ok := pub.summary(res.ID)
		if !ok {
			t.Fatal("no summary at the publisher")
		}
		forged.Acknowledged, forged.Confirmed = 999, nil
		if err := member.net.AnnounceReport(forged); err != nil {
			t.Logf("the member's own servant refused the forged report: %v", err)
		}
		settle(t)
		time.Sleep(3 * time.Second)
		if r, err := report(); err != nil || r.Reach.Acknowledged != 1 {
			t.Errorf("after a forged report: %+v, %v; want the publisher's", r, err)
		}

		if _, err := member.NetworkReports(); !errors.Is(err, ErrNotAdmin) {
			t.Errorf("a member's NetworkReports = %v, want ErrNotAdmin", err)
		}
		for name, a := range map[string]*App{"member": member, "Bo": readers["Bo"]} {
			es, _, err := a.store.Newest([]string{network.ReportsCategory}, 10, "")
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range es {
				if e.Item.Source != a.source { // the member's own forgery is stored where it was made
					t.Errorf("%s stored a report of %s; only admins' servants join the group", name, e.Item.Source)
				}
			}
		}
		if es, _, err := admin.store.Newest([]string{network.ReportsCategory}, 10, ""); err != nil || len(es) == 0 {
			t.Errorf("the admin stored no report items (%v)", err)
		}
		list, _, err := admin.Newest(nil, 100, "")
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range list {
			if network.IsSystemItem(e.Item) {
				t.Errorf("the admin's list shows a report item: %s", e.Item.Title)
			}
		}
		if n, err := admin.UnreadCounts(); err != nil || n[network.ReportsCategory] != 0 {
			t.Errorf("the admin's unread counts %v, %v: reports are not news", n, err)
		}
	})
}

// TestReportIntervalStartsWithNews: a summary that knows nothing yet does
// not hold back the next one; one that knows something does, for the
// interval.
func TestReportIntervalStartsWithNews(t *testing.T) {
	now := time.Now()
	for _, s := range []network.ReachSummary{{}, {Subscribers: 3}} {
		if at := intervalStart(s, now); !at.IsZero() {
			t.Errorf("summary %+v, which knows no reader, starts the interval at %v", s, at)
		}
	}
	for _, s := range []network.ReachSummary{{Delivered: 1}, {Acknowledged: 1}, {ReportedPending: 2}} {
		if at := intervalStart(s, now); !at.Equal(now) {
			t.Errorf("summary %+v starts the interval at %v, want now", s, at)
		}
	}
}
