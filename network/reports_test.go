package network

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"

	"newsdesk/news"
)

// A report of a post with thousands of readers fits one item: names are
// left out from the end (confirmed first), the counts stay whole, and it
// says it was cut.
func TestMarshalSummaryFits(t *testing.T) {
	s := ReachSummary{Post: uuid.New(), Title: "New travel policy", Category: "hr", Publisher: "ed25519:PUB",
		At: time.Unix(100, 0), Acknowledged: 3000, ReportedPending: 2000}
	for i := range 2000 {
		s.Pending = append(s.Pending, SummaryReader{Name: fmt.Sprintf("Pending reader %04d", i), Key: fmt.Sprintf("ed25519:%044d", i)})
	}
	for i := range 3000 {
		s.Confirmed = append(s.Confirmed, SummaryReader{Name: fmt.Sprintf("Reader %04d", i), Key: fmt.Sprintf("ed25519:%044d", i), Time: time.Unix(int64(i), 0)})
	}
	body, err := MarshalSummary(s)
	if err != nil {
		t.Fatal(err)
	}
	if len(body) > news.MaxBodyBytes {
		t.Fatalf("%d bytes, more than an item holds", len(body))
	}
	got, err := ParseSummary(body)
	if err != nil {
		t.Fatal(err)
	}
	if !got.Cut || got.Acknowledged != 3000 || got.ReportedPending != 2000 || len(got.Confirmed) != 0 || len(got.Pending) == 0 || len(got.Pending) == 2000 {
		t.Errorf("cut %v, acknowledged %d, pending count %d, %d confirmed and %d pending named; want cut, whole counts, confirmed names out first",
			got.Cut, got.Acknowledged, got.ReportedPending, len(got.Confirmed), len(got.Pending))
	}
	if got.Pending[0] != s.Pending[0] {
		t.Errorf("the first pending reader %+v, want %+v", got.Pending[0], s.Pending[0])
	}

	small := ReachSummary{Post: s.Post, Title: "t", Publisher: "ed25519:PUB", Confirmed: s.Confirmed[:2]}
	body, err = MarshalSummary(small)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := ParseSummary(body); err != nil || got.Cut || len(got.Confirmed) != 2 || !got.Confirmed[1].Time.Equal(time.Unix(1, 0)) {
		t.Errorf("a small report: %+v, %v", got, err)
	}
}

// ParseSummary takes any body without panicking; what it accepts names a
// post and a publisher.
func FuzzParseSummary(f *testing.F) {
	body, _ := MarshalSummary(ReachSummary{Post: uuid.New(), Title: "t", Publisher: "ed25519:PUB",
		Pending: []SummaryReader{{Name: "Bo", Key: "ed25519:B"}}})
	f.Add(body)
	f.Add(`{"post":"00000000-0000-0000-0000-000000000000"}`)
	f.Add(`{}`)
	f.Add(`[`)
	f.Fuzz(func(t *testing.T, body string) {
		s, err := ParseSummary(body)
		if err == nil && (s.Post == uuid.Nil || s.Publisher == "") {
			t.Errorf("accepted %q without a post or publisher", body)
		}
	})
}
