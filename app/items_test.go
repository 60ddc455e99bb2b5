package app

import (
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"newsdesk/news"
	"newsdesk/newsnet"
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
// category, source and count, and a message whose fields disagree with its
// payload is refused.
func TestItemPayloadRoundTrip(t *testing.T) {
	it := testItem(t, "it", "Title <1>")
	it.SourceCount = 7
	it.Urgent = true
	m, err := multicastOf(it)
	if err != nil {
		t.Fatal(err)
	}
	if m.ID != it.ID || m.Category != "it" || m.Source != it.Source.String() || m.Count != 7 {
		t.Fatalf("message %+v for item %+v", m, it)
	}
	got, err := itemOf(m)
	if err != nil {
		t.Fatal(err)
	}
	if got.ID != it.ID || got.Title != it.Title || got.Body != it.Body || got.Author != "Ann" ||
		!got.Created.Equal(it.Created) || !got.Urgent || got.SourceCount != 7 {
		t.Errorf("decoded %+v, want %+v", got, it)
	}

	// The overlay's count wins over the payload's.
	m2 := *m
	m2.Count = 9
	if got, err := itemOf(&m2); err != nil || got.SourceCount != 9 {
		t.Errorf("count from the message: %v, %v", got, err)
	}

	for name, mod := range map[string]func(*newsnet.Multicast){
		"payload":  func(m *newsnet.Multicast) { m.Payload = []byte("not an item") },
		"id":       func(m *newsnet.Multicast) { m.ID = uuid.Must(uuid.NewV7()) },
		"category": func(m *newsnet.Multicast) { m.Category = "hr" },
		"source":   func(m *newsnet.Multicast) { m.Source = "someone-else" },
	} {
		bad := *m
		mod(&bad)
		if _, err := itemOf(&bad); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s mismatch: %v", name, err)
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
