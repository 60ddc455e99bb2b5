package demo

import (
	"testing"
	"time"

	"github.com/google/uuid"
)

// The data set is fixed for a given clock: two weeks of items, one urgent
// outage notice, one correction, one must-read policy, one item with a
// photo and a file, four posts of the reader's own (one of them
// must-read), every item valid.
func TestItems(t *testing.T) {
	now := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	self := uuid.MustParse("0191a000-0000-7000-8000-0000000000ff")
	items := Items(now, self)
	if len(items) != 293 {
		t.Errorf("%d items, want 293", len(items))
	}
	var urgent, corrections, mustRead, own, attaching int
	for _, it := range items {
		if len(it.Attachments()) > 0 {
			attaching++
		}
		if err := it.Validate(); err != nil {
			t.Errorf("%q: %v", it.Title, err)
		}
		switch {
		case it.Urgent:
			urgent++
		case it.Supersedes != uuid.Nil:
			corrections++
		}
		if it.MustRead {
			mustRead++
		}
		if it.Source == self {
			own++
		}
	}
	if urgent != 1 || corrections != 1 || mustRead != 2 || own != 4 || attaching != 1 {
		t.Errorf("urgent %d, corrections %d, must-read %d, own %d, with attachments %d", urgent, corrections, mustRead, own, attaching)
	}
	if it := UrgentMustRead(now); !it.Urgent || !it.MustRead || it.Validate() != nil {
		t.Errorf("UrgentMustRead: %+v", it)
	}
}
