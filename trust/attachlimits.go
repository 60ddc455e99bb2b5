package trust

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"newsdesk/categories"
	"newsdesk/news"
)

// Attachment limits (issue 29). The item format caps an item's attachments
// at news.MaxAttachmentBytes in all; a network may lower that, for every
// category or for some (a slow site, a category of alerts that should
// carry text only), down to none, and bound how many attachment bytes one
// key puts into the network per hour. Attachments are not counted in
// BytesPerHour: that budget is sized for signed items of a few kilobytes,
// and one picture would take it all.
//
// Where they are enforced:
//
//   - where an item enters the network (the publishing app: Compose names
//     the limit; the control API answers 413 tooLarge, or 429 rateLimited
//     with Retry-After for the hour's budget), by the manifest's sizes;
//   - at every subscriber, which alone sees the manifest (relays pass the
//     item's header and, when asked, chunks by hash): the blobs of an item
//     beyond the limits in force there are not fetched with the item, and
//     a key's attachments beyond RelayTolerance × AttachmentBytesPerHour
//     in one clock hour of their publication times neither. The item is
//     delivered all the same, since relays accepted it and a refusal here
//     would only leave it owed; a reader who opens such an attachment
//     still fetches it (app/blobnet.go).
//
// Encoding: a member of its own, "attachmentLimits", after
// "categoryTitles", left out when all three are at their defaults.
// Releases before it decode "publishLimits" strictly and would refuse
// the whole definition for a field they do not know inside it; a member
// of its own they keep as a member of a newer release (newer.go), verify
// and pass on. Inside the member, each limit is left out at its default
// and refused when written so.

// NoAttachments as AttachmentBytes (or a CategoryAttachmentBytes entry)
// allows no attachments. Not 0: throughout PublishLimits, 0 is the
// default.
const NoAttachments = -1

// DefaultAttachmentBytesPerHour: five items with the most attachments an
// item may carry, or some two hundred scaled photos, an hour. A newsroom's
// busiest hour with pictures stays well below; a stolen key is held to
// RelayTolerance times it at every subscriber instead of its items per
// hour times 20 MiB (about 7 GB).
const DefaultAttachmentBytesPerHour = 100 << 20

// Bounds of the attachment limits an admin may set.
const (
	// MinAttachmentBytesCap: one chunk. Less allows hardly a picture, and
	// is more likely MiB taken for bytes than meant.
	MinAttachmentBytesCap = 64 << 10
	// MaxAttachmentBytesCap: the item format's own limit. A network may
	// lower it, not raise it: every release refuses larger manifests.
	MaxAttachmentBytesCap = news.MaxAttachmentBytes
	// MinAttachmentBytesPerHour: one item of the most attachments.
	MinAttachmentBytesPerHour = news.MaxAttachmentBytes
	attachLimitsMemberName    = "attachmentLimits"
)

func (l PublishLimits) attachmentLimitsZero() bool {
	return l.AttachmentBytes == 0 && len(l.CategoryAttachmentBytes) == 0 && l.AttachmentBytesPerHour == 0
}

// AttachmentCap returns the most bytes of attachments one item of
// category may carry, all together: the most specific
// CategoryAttachmentBytes entry covering it, else AttachmentBytes,
// defaults resolved; 0 when none are allowed.
func (l PublishLimits) AttachmentCap(category string) int64 {
	best, c := "", l.AttachmentBytes
	for cat, n := range l.CategoryAttachmentBytes {
		if categories.Covers(cat, category) && len(cat) > len(best) {
			best, c = cat, n
		}
	}
	switch {
	case c == 0:
		return news.MaxAttachmentBytes
	case c < 0:
		return 0
	}
	return c
}

// CheckAttachments refuses attachments of total bytes on an item of
// category when they are beyond its AttachmentCap (TooLarge).
func (l PublishLimits) CheckAttachments(category string, total int64) error {
	c := l.AttachmentCap(category)
	switch {
	case total <= c:
		return nil
	case c == 0:
		return reject(TooLarge, fmt.Sprintf("the network allows no attachments in %q", category))
	}
	return reject(TooLarge, fmt.Sprintf("attachments of %s in all in %q, at most %s allowed there",
		FormatBytes(total), category, FormatBytes(c)))
}

// AttachmentRate returns the attachment bytes one key may publish per
// clock hour, the default resolved.
func (l PublishLimits) AttachmentRate() int64 {
	if l.AttachmentBytesPerHour == 0 {
		return DefaultAttachmentBytesPerHour
	}
	return l.AttachmentBytesPerHour
}

func (l PublishLimits) validateAttachments() error {
	if err := CheckLimit(LimitAttachmentBytes, l.AttachmentBytes); err != nil {
		return err
	}
	if len(l.CategoryAttachmentBytes) > MaxCategoryCaps {
		return fmt.Errorf("publish limits: more than %d category attachment caps", MaxCategoryCaps)
	}
	for _, c := range slices.Sorted(maps.Keys(l.CategoryAttachmentBytes)) {
		if err := categories.ValidateID(c); err != nil {
			return fmt.Errorf("publish limits: %w", err)
		}
		if err := CheckCategoryLimit(LimitAttachmentBytes, c, l.CategoryAttachmentBytes[c]); err != nil {
			return err
		}
	}
	return CheckLimit(LimitAttachmentBytesPerHour, l.AttachmentBytesPerHour)
}

func attachmentCapString(n int64) string {
	switch {
	case n < 0:
		return "none"
	case n == 0:
		return FormatBytes(news.MaxAttachmentBytes)
	}
	return FormatBytes(n)
}

// attachmentString describes the attachment limits for String.
func (l PublishLimits) attachmentString() string {
	s := fmt.Sprintf("attachments at most %s an item, %s/hour", attachmentCapString(l.AttachmentBytes), FormatBytes(l.AttachmentRate()))
	if len(l.CategoryAttachmentBytes) > 0 {
		var parts []string
		for _, c := range slices.Sorted(maps.Keys(l.CategoryAttachmentBytes)) {
			parts = append(parts, c+" "+attachmentCapString(l.CategoryAttachmentBytes[c]))
		}
		s += "; attachments per category: " + strings.Join(parts, ", ")
	}
	return s
}

// The member "attachmentLimits": each limit left out at its default (and
// refused when written as 0), the category caps as an object keyed by
// category ID (encoding/json writes it sorted). A later limit of
// attachments goes into a member of its own again, for the reason above.
type attachmentLimitsDoc struct {
	ItemBytes         int64            `json:"itemBytes,omitempty"`
	CategoryItemBytes map[string]int64 `json:"categoryItemBytes,omitempty"`
	BytesPerHour      int64            `json:"bytesPerHour,omitempty"`
}

type attachmentLimitsIn struct {
	ItemBytes         *int64            `json:"itemBytes"`
	CategoryItemBytes *map[string]int64 `json:"categoryItemBytes"`
	BytesPerHour      *int64            `json:"bytesPerHour"`
}

func attachmentLimitsDocOf(l PublishLimits) *attachmentLimitsDoc {
	if l.attachmentLimitsZero() {
		return nil
	}
	cats := l.CategoryAttachmentBytes
	if len(cats) == 0 {
		cats = nil
	}
	return &attachmentLimitsDoc{ItemBytes: l.AttachmentBytes, CategoryItemBytes: cats, BytesPerHour: l.AttachmentBytesPerHour}
}

// parseAttachmentLimits decodes the member into l; a default written out
// (0, an empty object or map) is refused: one definition, one encoding.
func parseAttachmentLimits(in *attachmentLimitsIn, l *PublishLimits) error {
	if in == nil {
		return nil
	}
	zero := errors.New(attachLimitsMemberName + ": a default is written by leaving it out")
	if in.ItemBytes != nil {
		if l.AttachmentBytes = *in.ItemBytes; l.AttachmentBytes == 0 {
			return zero
		}
	}
	if in.CategoryItemBytes != nil {
		if len(*in.CategoryItemBytes) == 0 {
			return zero
		}
		if len(*in.CategoryItemBytes) > MaxCategoryCaps {
			return fmt.Errorf("%s: more than %d category caps", attachLimitsMemberName, MaxCategoryCaps)
		}
		l.CategoryAttachmentBytes = *in.CategoryItemBytes
	}
	if in.BytesPerHour != nil {
		if l.AttachmentBytesPerHour = *in.BytesPerHour; l.AttachmentBytesPerHour == 0 {
			return zero
		}
	}
	if l.attachmentLimitsZero() {
		return zero
	}
	return nil
}
