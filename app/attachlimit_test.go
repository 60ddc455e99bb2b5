package app

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"
	"testing"
	"time"

	"newsdesk/news"
	"newsdesk/trust"
)

// filled is n bytes of seed, so that drafts differ in their blobs.
func filled(n int, seed byte) []byte { return bytes.Repeat([]byte{seed}, n) }

func blobHash(data []byte) string {
	h := sha256.Sum256(data)
	return hex.EncodeToString(h[:])
}

// The network's attachment limits, changed by an admin while the app
// runs, refuse a draft beyond them at once, as a *LimitError naming the
// limit (TooLarge), before any blob is stored; the same item handed to
// PublishItem or ScheduleItem (the control API's way) is refused too; a
// category may allow none, and an item without attachments is never
// refused for them.
func TestPublishAttachmentNetworkLimit(t *testing.T) {
	a := adminApp(t)
	if _, err := a.Publish(Draft{Category: "it", Title: "Before", Attachments: []DraftAttachment{{Name: "a.bin", Data: filled(300<<10, 1)}}}); err != nil {
		t.Fatalf("300 KiB under the defaults: %v", err)
	}
	if _, err := a.SetPublishLimits(a.PublishLimits(), trust.PublishLimits{AttachmentBytes: 256 << 10,
		CategoryAttachmentBytes: map[string]int64{"hr": trust.NoAttachments}}); err != nil {
		t.Fatal(err)
	}

	over := filled(300<<10, 2)
	_, err := a.Publish(Draft{Category: "it", Title: "After", Attachments: []DraftAttachment{{Name: "b.bin", Data: over}}})
	var le *LimitError
	if !errors.As(err, &le) || le.Reason != trust.TooLarge || !errors.Is(err, trust.TooLarge) || !strings.Contains(err.Error(), "at most 256 KiB") ||
		!le.Attachments || le.Limit != 256<<10 {
		t.Fatalf("300 KiB under a limit of 256 KiB: %v", err)
	}
	if _, err := a.OpenBlob(blobHash(over)); !errors.Is(err, ErrNotFound) {
		t.Errorf("the refused draft's blob was stored: %v", err)
	}
	if _, err := a.Publish(Draft{Category: "it", Title: "Small", Attachments: []DraftAttachment{{Name: "c.bin", Data: filled(200<<10, 3)}}}); err != nil {
		t.Errorf("200 KiB under a limit of 256 KiB: %v", err)
	}
	if _, err := a.Publish(Draft{Category: "hr", Title: "A file", Attachments: []DraftAttachment{{Name: "d.txt", Data: []byte("x")}}}); !errors.As(err, &le) ||
		!strings.Contains(err.Error(), "no attachments") || le.Limit != 0 || !le.Attachments {
		t.Errorf("an attachment where none are allowed: %v", err)
	}
	if _, err := a.Publish(Draft{Category: "hr", Title: "Text only", Body: "body"}); err != nil {
		t.Errorf("text where no attachments are allowed: %v", err)
	}

	// PublishItem and ScheduleItem check the item's manifest.
	body, _, err := PrepareAttachments("", []DraftAttachment{{Name: "e.bin", Data: over}})
	if err != nil {
		t.Fatal(err)
	}
	it, err := a.newItem("it", "By the API", body)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.PublishItem(it); !errors.As(err, &le) || le.Reason != trust.TooLarge {
		t.Errorf("PublishItem beyond the limit: %v", err)
	}
	it.At = time.Now().Add(time.Hour)
	if _, err := a.ScheduleItem(it); !errors.As(err, &le) || le.Reason != trust.TooLarge {
		t.Errorf("ScheduleItem beyond the limit: %v", err)
	}

	// Back at the defaults, it goes.
	if _, err := a.SetPublishLimits(a.PublishLimits(), trust.PublishLimits{}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Publish(Draft{Category: "it", Title: "Again", Attachments: []DraftAttachment{{Name: "b.bin", Data: over}}}); err != nil {
		t.Errorf("300 KiB after the limit was lifted: %v", err)
	}
}

// A key's attachments per clock hour: items within the hour's allowance
// go, the one beyond it waits for the next hour (RateLimited, with
// Retry-After); text items are not held back by it.
func TestPublishAttachmentHourLimit(t *testing.T) {
	a := adminApp(t)
	if _, err := a.SetPublishLimits(a.PublishLimits(), trust.PublishLimits{AttachmentBytesPerHour: trust.MinAttachmentBytesPerHour}); err != nil {
		t.Fatal(err)
	}
	third := trust.MinAttachmentBytesPerHour/3 + 1
	for i := range 2 {
		if _, err := a.Publish(Draft{Category: "it", Title: "Pictures", Attachments: []DraftAttachment{{Name: "p.bin", Data: filled(int(third), byte(i))}}}); err != nil {
			t.Fatalf("item %d within the hour's allowance: %v", i, err)
		}
	}
	_, err := a.Publish(Draft{Category: "it", Title: "Too much", Attachments: []DraftAttachment{{Name: "p.bin", Data: filled(int(third), 9)}}})
	var le *LimitError
	if !errors.As(err, &le) || le.Reason != trust.RateLimited || le.RetryAfter <= 0 || le.RetryAfter > time.Hour ||
		!strings.Contains(err.Error(), "20 MiB of attachments an hour") || !le.Attachments || le.Limit != trust.MinAttachmentBytesPerHour {
		t.Fatalf("beyond the hour's allowance: %v", err)
	}
	if _, err := a.Publish(Draft{Category: "it", Title: "Text", Body: "body"}); err != nil {
		t.Errorf("a text item after the attachments' allowance: %v", err)
	}
}

// A subscriber fetches with their item only the attachments within the
// network's limits: an item beyond the cap of its category, or beyond its
// key's allowance for the hour (twice the definition's, as relays allow),
// names its blobs as fetched on demand only; the item itself is
// delivered.
func TestEagerBlobsWithinNetworkLimits(t *testing.T) {
	a := adminApp(t)
	item := func(category string, size int, seed byte) *news.Item {
		t.Helper()
		body, _, err := PrepareAttachments("![p][att:1]", []DraftAttachment{{Name: "p.png", Data: append([]byte("\x89PNG\r\n\x1a\n"), filled(size, seed)...)}})
		if err != nil {
			t.Fatal(err)
		}
		it, err := a.newItem(category, "Pictures", body)
		if err != nil {
			t.Fatal(err)
		}
		return it
	}
	eager := func(it *news.Item) bool {
		t.Helper()
		m, err := multicastOf(it)
		if err != nil {
			t.Fatal(err)
		}
		refs := a.blobRefs(m, false)
		if len(refs) != 1 {
			t.Fatalf("refs %+v", refs)
		}
		return refs[0].Eager
	}
	if !eager(item("it", 300<<10, 1)) {
		t.Fatal("a picture under the defaults is not fetched with its item")
	}
	if _, err := a.SetPublishLimits(a.PublishLimits(), trust.PublishLimits{AttachmentBytes: 256 << 10}); err != nil {
		t.Fatal(err)
	}
	if eager(item("it", 300<<10, 2)) {
		t.Error("a picture beyond the network's cap is fetched with its item")
	}
	if !eager(item("it", 200<<10, 3)) {
		t.Error("a picture within the network's cap is not fetched with its item")
	}

	// The hour's allowance, per key, by the items' times.
	var b eagerBudget
	now := time.Date(2027, 3, 1, 10, 30, 0, 0, time.UTC)
	if !b.admit("k", now, 30, 50, now) || b.admit("k", now.Add(-10*time.Minute), 30, 50, now) {
		t.Error("the second item of an hour beyond the allowance")
	}
	if !b.admit("other", now, 30, 50, now) || !b.admit("k", now.Add(-time.Hour), 30, 50, now) {
		t.Error("another key's, or another hour's, allowance taken")
	}
	if !b.admit("k", now.Add(time.Hour), 20, 50, now.Add(time.Hour)) {
		t.Error("the next hour's allowance")
	}
	// Dated back beyond the window: one allowance per hour of arrival,
	// not one per hour dated.
	long := now.Add(-60 * 24 * time.Hour)
	if !b.admit("k", long, 30, 50, now) || b.admit("k", long.Add(-5*time.Hour), 30, 50, now) {
		t.Error("items dated long ago each took a fresh allowance")
	}
	if !b.admit("k", long.Add(-9*time.Hour), 30, 50, now.Add(time.Hour)) {
		t.Error("the old items' allowance of the next hour")
	}
}
