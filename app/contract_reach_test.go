package app_test

import (
	"errors"
	"testing"

	"newsdesk/app"
	"newsdesk/news"
)

// Reach is there for one's own posts only: a post published here has a
// reach (no counts before the network reports; a must-read post an empty
// pending list, a plain one none), a received item and an unknown ID are
// app.ErrNotFound.
func testReach(t *testing.T, s Subject) {
	plain, err := s.Publish(app.Draft{Category: "it", Title: "Printer moved"})
	if err != nil {
		t.Fatal(err)
	}
	mustRead, err := s.Publish(app.Draft{Category: "hr", Title: "New travel policy", MustRead: true})
	if err != nil {
		t.Fatal(err)
	}
	if r, err := s.Reach(plain.ID); err != nil || r.MustRead || r.Pending != nil || r.Subscribers != 0 || r.Delivered != 0 {
		t.Errorf("Reach of a new plain post = %+v, %v", r, err)
	}
	if r, err := s.Reach(mustRead.ID); err != nil || !r.MustRead || r.Pending == nil || len(r.Pending) != 0 || r.Acknowledged != 0 {
		t.Errorf("Reach of a new must-read post = %+v, %v; want must-read, an empty pending list", r, err)
	}
	received := received(1, "hr", "Someone else's", "", 10)
	receive(t, s, received)
	if _, err := s.Reach(received.ID); !errors.Is(err, app.ErrNotFound) {
		t.Errorf("Reach of a received item = %v, want app.ErrNotFound", err)
	}
	if _, err := s.Reach(news.IDAt(base, 99)); !errors.Is(err, app.ErrNotFound) {
		t.Errorf("Reach of an unknown ID = %v, want app.ErrNotFound", err)
	}
}
