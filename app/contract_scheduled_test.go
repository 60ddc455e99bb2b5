package app_test

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"newsdesk/app"
	"newsdesk/news"
)

// A draft with a publication time in the future is scheduled, not
// published: the outcome says so, its ID is of the publication time, it
// waits in Scheduled (the first due first) and nowhere else, and the
// change is announced with ItemsChanged. CancelScheduled takes it off for
// good; cancelling again is app.ErrNotFound. A time in the past, and an
// expiry not after the publication time, are refused with their field and
// rule and schedule nothing.
func testSchedule(t *testing.T, s Subject) {
	now := time.Now()
	for _, c := range []struct {
		d     app.Draft
		field news.Field
		rule  news.Rule
	}{
		{app.Draft{At: now.Add(-time.Hour)}, news.FieldAt, news.RulePast},
		{app.Draft{At: now.Add(time.Hour), Expires: now.Add(time.Minute)}, news.FieldExpires, news.RuleNotAfter},
	} {
		c.d.Category, c.d.Title = "it", "Refused"
		var fe *news.FieldError
		if _, err := s.Publish(c.d); !errors.As(err, &fe) || fe.Field != c.field || fe.Rule != c.rule {
			t.Errorf("Publish at %v, expires %v = %v, want %s: %s", c.d.At, c.d.Expires, err, c.field, c.rule)
		}
	}

	later := now.Add(2 * time.Hour).Truncate(time.Millisecond)
	sooner := now.Add(time.Hour).Truncate(time.Millisecond)
	var ids []uuid.UUID
	for _, at := range []time.Time{later, sooner} {
		r, err := s.Publish(app.Draft{Category: "it", Title: "Scheduled " + at.String(), At: at, Expires: at.Add(time.Hour)})
		if err != nil {
			t.Fatal(err)
		}
		if r.Outcome != app.Scheduled {
			t.Errorf("outcome %v, want scheduled", r.Outcome)
		}
		if !news.IDTime(r.ID).Equal(at) {
			t.Errorf("ID time %v, want the publication time %v", news.IDTime(r.ID), at)
		}
		await(t, s, "ItemsChanged after scheduling", kind(app.ItemsChanged))
		ids = append(ids, r.ID)
	}
	list, err := s.Scheduled()
	if err != nil {
		t.Fatal(err)
	}
	if got := scheduledIDs(list); !slices.Equal(got, []uuid.UUID{ids[1], ids[0]}) {
		t.Fatalf("Scheduled %v, want the first due first %v", got, []uuid.UUID{ids[1], ids[0]})
	}
	if it := list[0].Item; !it.At.Equal(sooner) || !it.Expires.Equal(sooner.Add(time.Hour)) || it.Category != "it" || list[0].Problem != "" {
		t.Errorf("scheduled %+v, problem %q", it, list[0].Problem)
	}
	for _, id := range ids {
		if _, err := s.Item(id); !errors.Is(err, app.ErrNotFound) {
			t.Errorf("Item of a scheduled post = %v, want ErrNotFound", err)
		}
	}
	if es, _, _ := s.MyPosts(10, ""); len(es) != 0 {
		t.Errorf("scheduled posts in My posts: %d", len(es))
	}
	if es, _, _ := s.Newest(nil, 10, ""); len(es) != 0 {
		t.Errorf("scheduled posts listed: %d", len(es))
	}

	if err := s.CancelScheduled(ids[1]); err != nil {
		t.Fatal(err)
	}
	await(t, s, "ItemsChanged after cancelling", kind(app.ItemsChanged))
	if err := s.CancelScheduled(ids[1]); !errors.Is(err, app.ErrNotFound) {
		t.Errorf("cancelling again = %v, want ErrNotFound", err)
	}
	if list, err := s.Scheduled(); err != nil || !slices.Equal(scheduledIDs(list), ids[:1]) {
		t.Errorf("after cancelling Scheduled %v, %v; want %v", scheduledIDs(list), err, ids[:1])
	}
}

func scheduledIDs(list []app.ScheduledPost) []uuid.UUID {
	return ids(list, func(p app.ScheduledPost) uuid.UUID { return p.Item.ID })
}
