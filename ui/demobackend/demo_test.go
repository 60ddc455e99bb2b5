package demobackend

import (
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"newsdesk/news"
)

// The demo data set is fixed for a given clock: two weeks of items, one
// urgent outage notice, one correction, one must-read policy, four posts of the user's own (one
// of them retracted, one must-read), older items read; the window starts with the wizard
// only when asked to.
func TestDemoDataSet(t *testing.T) {
	now := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	m := newDemo(now, false)
	items := m.Items()
	if len(items) != 292 {
		t.Errorf("%d items, want 292", len(items))
	}
	var urgent, corrections, mustRead, own, retracted, unread int
	for i, it := range items {
		if i > 0 && news.CompareIDs(items[i-1].ID, it.ID) <= 0 {
			t.Fatalf("items out of order at %d", i)
		}
		if err := it.Validate(); err != nil {
			t.Errorf("%q: %v", it.Title, err)
		}
		e, err := m.Item(it.ID)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case it.Urgent:
			urgent++
		case it.Supersedes != uuid.Nil:
			corrections++
		}
		if it.Source == m.Source() {
			own++
		}
		if it.MustRead {
			mustRead++
		}
		if e.Retracted != nil {
			retracted++
			if !strings.HasPrefix(it.Title, "Volunteering day") {
				t.Errorf("retracted: %q", it.Title)
			}
		}
		if !e.Read {
			unread++
			if now.Sub(it.Created) > 30*time.Hour {
				t.Errorf("an old item is unread: %q", it.Title)
			}
		}
	}
	if urgent != 1 || corrections != 1 || mustRead != 2 || own != 4 || retracted != 1 || unread == 0 {
		t.Errorf("urgent %d, corrections %d, must-read %d, own %d, retracted %d, unread %d", urgent, corrections, mustRead, own, retracted, unread)
	}
	if m.NeedsSetup() || !newDemo(now, true).NeedsSetup() {
		t.Error("the wizard is not shown exactly when asked for")
	}
	if st := m.Status(); !st.Connected || st.ID != demoSelf || len(st.Downs) != 2 {
		t.Errorf("status %+v", st)
	}
}
