package app

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"newsdesk/app/apptest"
	"newsdesk/news"
	"newsdesk/storage"
)

// An item with an expiry is shown everywhere until Expires (plus the
// allowed skew) and then hidden on every servant, by each one's own clock,
// with no retraction sent: out of the lists, the search and the counts,
// and the item view marks it expired.
func TestExpiringItemHiddenEverywhere(t *testing.T) {
	simTest(t, func(t *testing.T, sn *simNet) {
		aDir := t.TempDir()
		_, def, _ := apptest.PublishersNetwork(t, aDir)
		a := sn.open(t, Options{DataDir: aDir, Start: true, Network: def})
		b := sn.open(t, Options{Start: true, Network: def, Seeds: []string{a.Addr()}, Archive: true})
		c := sn.open(t, Options{Start: true, Network: def, Seeds: []string{a.Addr()}, Subscriptions: []string{"it"}})
		a.waitRouted(t, "it")

		if _, err := a.Publish(Draft{Category: "it", Title: "Too late", Expires: time.Now().Add(-time.Second)}); !isField(err, news.FieldExpires, news.RulePast) {
			t.Fatalf("a draft expiring in the past = %v, want expires: in the past", err)
		}
		expires := time.Now().Add(5 * time.Minute)
		res, err := a.Publish(Draft{Category: "it", Title: "Canteen closed today", Expires: expires})
		if err != nil {
			t.Fatal(err)
		}
		id := res.ID
		for _, s := range []*App{a, b, c} {
			waitFor(t, "the item listed on "+s.Addr(), func() error {
				list, _, err := s.Newest(nil, 50, "")
				if err != nil {
					return err
				}
				for _, e := range list {
					if e.Item.ID == id {
						if !e.Item.Expires.Equal(expires) {
							return fmt.Errorf("expires %v, want %v", e.Item.Expires, expires)
						}
						return nil
					}
				}
				return errors.New("not listed")
			})
		}
		// Just after Expires, within the skew: still shown.
		time.Sleep(time.Until(expires) + time.Second)
		for _, s := range []*App{a, b, c} {
			if e, err := s.Item(id); err != nil || e.Retracted != nil {
				t.Fatalf("%s within the skew: %+v, %v", s.Addr(), e.Retracted, err)
			}
		}
		time.Sleep(storage.ExpirySkew + expirySweepEvery)
		for _, s := range []*App{a, b, c} {
			if err := retractedOn(s, id, "expired"); err != nil {
				t.Error(err)
			}
			if e, _ := s.Item(id); e.Retracted == nil || !e.Retracted.Expired {
				t.Errorf("%s: not marked expired: %+v", s.Addr(), e.Retracted)
			}
			if found, _, _ := s.Search(t.Context(), "canteen", nil, 10, ""); slices.ContainsFunc(found, func(e Entry) bool { return e.Item.ID == id }) {
				t.Errorf("%s: search finds the expired item", s.Addr())
			}
		}
	})
}

func isField(err error, f news.Field, r news.Rule) bool {
	var fe *news.FieldError
	return errors.As(err, &fe) && fe.Field == f && fe.Rule == r
}
