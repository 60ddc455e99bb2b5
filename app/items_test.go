package app

import (
	"testing"
	"time"

	"github.com/google/uuid"

	"newsdesk/news"
	"newsdesk/newsnet"
	"newsdesk/trust"
)

func testItem(t *testing.T, category, title string) *news.Item {
	t.Helper()
	it, err := news.NewItem(category, title, "Body & <more>", "Ann", uuid.New(), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	return it
}

// An item travels as its wire encoding; the message repeats its ID,
// category, source and count for the overlay, and Verify refuses a message
// whose fields disagree with its payload's before anything relays,
// delivers or stores it.
func TestVerifyRefusesAHeaderOfAnotherItem(t *testing.T) {
	a := openApp(t, Options{})
	it, err := news.NewItem("it", "Title <1>", "Body & <more>", "Ann", a.Source(), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	it.SourceCount = 7
	it.Urgent = true
	if err := trust.SignItem(a.Identity(), it); err != nil {
		t.Fatal(err)
	}
	m, err := multicastOf(it)
	if err != nil {
		t.Fatal(err)
	}
	if m.ID != it.ID || m.Category != "it" || m.Source != it.Source.String() || m.Count != 7 {
		t.Fatalf("message %+v for item %+v", m, it)
	}
	if r := a.net.Verify(m); r != "" {
		t.Fatalf("Verify = %q", r)
	}
	got, err := news.Decode(m.Payload)
	if err != nil {
		t.Fatal(err)
	}
	if got.Item.ID != it.ID || got.Item.Title != it.Title || got.Item.Body != it.Body || got.Item.Author != "Ann" ||
		!got.Item.Created.Equal(it.Created) || !got.Item.Urgent || got.Item.SourceCount != 7 {
		t.Errorf("decoded %+v, want %+v", got.Item, it)
	}

	for name, tc := range map[string]struct {
		mod  func(*newsnet.Multicast)
		want trust.Rejection
	}{
		"payload":  {func(m *newsnet.Multicast) { m.Payload = []byte("not an item") }, trust.Invalid},
		"id":       {func(m *newsnet.Multicast) { m.ID = uuid.Must(uuid.NewV7()) }, trust.Mismatch},
		"category": {func(m *newsnet.Multicast) { m.Category = "hr" }, trust.Mismatch},
		"source":   {func(m *newsnet.Multicast) { m.Source = "someone-else" }, trust.Mismatch},
		"count":    {func(m *newsnet.Multicast) { m.Count = 9 }, trust.Mismatch},
	} {
		bad := *m
		tc.mod(&bad)
		if r := a.net.Verify(&bad); r != string(tc.want) {
			t.Errorf("%s differs: Verify = %q, want %q", name, r, tc.want)
		}
	}
}

func TestHistoryRuns(t *testing.T) {
	a, b := newsnet.ShortID("a"), newsnet.ShortID("b")
	got := historyRuns([]uint32{a, a, b, a}) // oldest first
	want := []newsnet.HistoryRun{{Short: a, Len: 1}, {Short: b, Len: 1}, {Short: a, Len: 2}}
	if len(got) != len(want) {
		t.Fatalf("runs %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("runs %v, want %v", got, want)
		}
	}
	if historyRuns(nil) != nil {
		t.Error("empty history is not nil")
	}
}
