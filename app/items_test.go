package app

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
)

func TestItemPayloadRoundTrip(t *testing.T) {
	id := uuid.Must(uuid.NewV7())
	created := time.Date(2026, 3, 1, 12, 0, 0, 5, time.UTC)
	m, err := encodeItem(id, "it", "Title <1>", "Body & more", "src", created)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"title":"Title <1>","body":"Body & more","created":"2026-03-01T12:00:00.000000005Z"}`; string(m.Payload) != want {
		t.Errorf("payload %s, want %s", m.Payload, want)
	}
	received := created.Add(time.Second)
	it, err := decodeItem(m, received)
	if err != nil {
		t.Fatal(err)
	}
	want := Item{ID: id.String(), Category: "it", Title: "Title <1>", Body: "Body & more", Source: "src", Received: "2026-03-01T12:00:01.000000005Z"}
	if it != want {
		t.Errorf("decoded %+v, want %+v", it, want)
	}
	m.Payload = []byte("not json")
	if _, err := decodeItem(m, received); err == nil {
		t.Error("decoded a malformed payload")
	}
}

// The store lists a category with the categories below it, oldest first,
// ignores a second copy of an item, and forgets the oldest item of a full
// category.
func TestItemStore(t *testing.T) {
	s := newItemStore(3)
	add := func(id, cat string) bool { return s.add(Item{ID: id, Category: cat, Title: id}) }
	add("1", "sales")
	add("2", "sales/emea")
	add("3", "it")
	add("4", "sales")
	add("5", "salesforce") // not below "sales"
	if add("2", "sales/emea") {
		t.Error("a second copy was stored")
	}
	ids := func(items []Item) string {
		var b strings.Builder
		for _, it := range items {
			fmt.Fprint(&b, it.ID)
		}
		return b.String()
	}
	for cat, want := range map[string]string{"sales": "124", "sales/emea": "2", "it": "3", "hr": "", "salesforce": "5"} {
		if got := ids(s.list(cat)); got != want {
			t.Errorf("list(%q) = %q, want %q", cat, got, want)
		}
	}
	if got := s.list("hr"); got == nil || len(got) != 0 {
		t.Errorf("empty list = %#v, want [] (not null in JSON)", got)
	}
	add("6", "it")
	add("7", "it")
	add("8", "it")
	if got := ids(s.list("it")); got != "678" {
		t.Errorf("full category = %q, want the newest three", got)
	}
	if !add("3", "it") {
		t.Error("a forgotten item could not be stored again")
	}
}
