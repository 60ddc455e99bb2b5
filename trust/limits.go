package trust

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"newsdesk/categories"
)

// Publishing limits (issue 32). One publisher key, or one stolen key, must
// not be able to fill every member's disk: the definition bounds how many
// items and bytes a key puts into the network per hour, and how large one
// item of a category may be. The admins set them (Network.Limits); a
// definition that leaves them at their defaults carries no "publishLimits"
// member, so definitions signed before the limits existed keep their bytes
// and their signatures.
//
// Where the limits are enforced:
//
//   - where an item enters the network (the publishing app; the control
//     API answers 429 with Retry-After): a token bucket of BurstItems
//     items, refilled at ItemsPerHour, and the same for bytes; and no
//     clock hour, by the items' own times, holds more than the hour's
//     ceiling (Burst + PerHour) of the key's items;
//   - at every relay (the servant's Verify): the key's items are counted
//     per clock hour of their own publication time, and an item that would
//     take the hour beyond RelayTolerance × the ceiling is refused as
//     RateLimited. The window is the item's time, not its arrival, so a
//     catch-up or repair of old items lands in the hours it was published
//     in and is never refused for arriving late or all at once.
//
// The byte cap per item (ItemBytes, CategoryItemBytes) is checked in both
// places against the item's signed encoding.

// Defaults, sized for a newsroom: a busy one publishes a few hundred items
// a day, perhaps fifty in the hour of a breaking story, most of them a few
// kilobytes. The defaults never bother that, and cap one key at about
// 2,900 items and 50 MiB a day, where an unlimited publisher put 280 MB
// into every store in 20 seconds.
const (
	DefaultItemsPerHour = 120     // 2 a minute, sustained
	DefaultBurstItems   = 60      // at once, after a quiet hour
	DefaultBytesPerHour = 2 << 20 // 2 MiB: 400 items of 5 KB
	DefaultBurstBytes   = 4 << 20 // 4 MiB: 60 items of the largest size at once
)

// Bounds of the limits an admin may set.
const (
	MaxItemsPerHour   = 1_000_000
	MaxBurstItems     = 1_000_000
	MinBytesLimit     = 128 << 10 // BytesPerHour and BurstBytes: at least one item of the largest size
	MaxBytesLimit     = 1 << 40
	MinItemBytesCap   = 512     // an item of a title and a line
	MaxItemBytesCap   = 1 << 20 // above any valid item (news.MaxBodyBytes is 64 KiB)
	MaxCategoryCaps   = 1000
	RelayTolerance    = 2 // relays allow twice the entry ceiling per hour (clock skew, hour boundaries, a key on two installations)
	LimitClockSkew    = 10 * time.Minute
	limitsMemberName  = "publishLimits"
	categoryCapsField = "categoryItemBytes"
)

// RateLimited is the Rejection of an item beyond its publisher's limits
// (items or bytes per hour); TooLarge of one beyond the byte cap of its
// category.
const (
	RateLimited Rejection = "rateLimited"
	TooLarge    Rejection = "tooLarge"
)

// PublishLimits are the publishing limits of a network. The zero value is
// the defaults; a field at 0 takes its default.
type PublishLimits struct {
	// ItemsPerHour is the sustained rate of items of one publisher key;
	// BurstItems how many it may publish at once. 0: the defaults.
	ItemsPerHour int
	BurstItems   int
	// BytesPerHour and BurstBytes: the same in bytes of signed items.
	BytesPerHour int64
	BurstBytes   int64
	// ItemBytes caps one item's signed encoding in every category; 0: no
	// cap beyond the item format's own.
	ItemBytes int
	// CategoryItemBytes caps one item in a category and its
	// subcategories (the most specific entry wins over ItemBytes).
	CategoryItemBytes map[string]int

	// The attachment limits (attachlimits.go). They are encoded in a
	// member of their own, "attachmentLimits", not in "publishLimits".
	//
	// AttachmentBytes caps the attachments of one item, all together:
	// 0 is the default, news.MaxAttachmentBytes; NoAttachments allows
	// none.
	AttachmentBytes int64
	// CategoryAttachmentBytes is the same per category and its
	// subcategories (the most specific entry wins over AttachmentBytes).
	CategoryAttachmentBytes map[string]int64
	// AttachmentBytesPerHour bounds the attachments of one publisher key
	// per clock hour of the items' publication times; 0: the default.
	AttachmentBytesPerHour int64
}

// IsZero reports whether l is all defaults.
func (l PublishLimits) IsZero() bool {
	return l.itemLimitsZero() && l.attachmentLimitsZero()
}

// itemLimitsZero reports whether the limits of the "publishLimits" member
// are all defaults.
func (l PublishLimits) itemLimitsZero() bool {
	return l.ItemsPerHour == 0 && l.BurstItems == 0 && l.BytesPerHour == 0 && l.BurstBytes == 0 && l.ItemBytes == 0 && len(l.CategoryItemBytes) == 0
}

// Equal reports whether l and o set the same limits.
func (l PublishLimits) Equal(o PublishLimits) bool {
	return l.ItemsPerHour == o.ItemsPerHour && l.BurstItems == o.BurstItems && l.BytesPerHour == o.BytesPerHour &&
		l.BurstBytes == o.BurstBytes && l.ItemBytes == o.ItemBytes && maps.Equal(l.CategoryItemBytes, o.CategoryItemBytes) &&
		l.AttachmentBytes == o.AttachmentBytes && maps.Equal(l.CategoryAttachmentBytes, o.CategoryAttachmentBytes) &&
		l.AttachmentBytesPerHour == o.AttachmentBytesPerHour
}

func (l PublishLimits) clone() PublishLimits {
	l.CategoryItemBytes = maps.Clone(l.CategoryItemBytes)
	l.CategoryAttachmentBytes = maps.Clone(l.CategoryAttachmentBytes)
	return l
}

// Rate is a rate limit with its defaults resolved.
type Rate struct {
	ItemsPerHour, BurstItems int
	BytesPerHour, BurstBytes int64
}

// Rate returns the rate limits, defaults filled in.
func (l PublishLimits) Rate() Rate {
	r := Rate{ItemsPerHour: l.ItemsPerHour, BurstItems: l.BurstItems, BytesPerHour: l.BytesPerHour, BurstBytes: l.BurstBytes}
	if r.ItemsPerHour == 0 {
		r.ItemsPerHour = DefaultItemsPerHour
	}
	if r.BurstItems == 0 {
		r.BurstItems = DefaultBurstItems
	}
	if r.BytesPerHour == 0 {
		r.BytesPerHour = DefaultBytesPerHour
	}
	if r.BurstBytes == 0 {
		r.BurstBytes = DefaultBurstBytes
	}
	return r
}

// HourCeiling is the most items and bytes of one key whose publication
// times fall into one clock hour that the entry check lets through: a full
// burst and an hour's refill.
func (r Rate) HourCeiling() (items int, bytes int64) {
	return r.BurstItems + r.ItemsPerHour, r.BurstBytes + r.BytesPerHour
}

// ItemCap returns the byte cap of one item of category: the most specific
// CategoryItemBytes entry covering it, else ItemBytes; 0 for none.
func (l PublishLimits) ItemCap(category string) int {
	best, capBytes := "", l.ItemBytes
	for c, n := range l.CategoryItemBytes {
		if categories.Covers(c, category) && len(c) > len(best) {
			best, capBytes = c, n
		}
	}
	return capBytes
}

// CheckItemSize refuses an item of category whose signed encoding is size
// bytes when that is beyond the category's cap (TooLarge).
func (l PublishLimits) CheckItemSize(category string, size int) error {
	if c := l.ItemCap(category); c > 0 && size > c {
		return reject(TooLarge, fmt.Sprintf("item of %d bytes in %q, at most %d allowed there", size, category, c))
	}
	return nil
}

func (l PublishLimits) validate() error {
	for _, f := range []struct {
		k Limit
		n int64
	}{
		{LimitItemsPerHour, int64(l.ItemsPerHour)}, {LimitBurstItems, int64(l.BurstItems)},
		{LimitBytesPerHour, l.BytesPerHour}, {LimitBurstBytes, l.BurstBytes}, {LimitItemBytes, int64(l.ItemBytes)},
	} {
		if err := CheckLimit(f.k, f.n); err != nil {
			return err
		}
	}
	if len(l.CategoryItemBytes) > MaxCategoryCaps {
		return fmt.Errorf("publish limits: more than %d category caps", MaxCategoryCaps)
	}
	for _, c := range slices.Sorted(maps.Keys(l.CategoryItemBytes)) {
		if err := categories.ValidateID(c); err != nil {
			return fmt.Errorf("publish limits: %w", err)
		}
		if err := CheckCategoryLimit(LimitItemBytes, c, int64(l.CategoryItemBytes[c])); err != nil {
			return err
		}
	}
	return l.validateAttachments()
}

// String describes the limits for a log line or the admin's view.
func (l PublishLimits) String() string {
	r := l.Rate()
	s := fmt.Sprintf("%d items/hour (burst %d), %s/hour (burst %s)", r.ItemsPerHour, r.BurstItems, FormatBytes(r.BytesPerHour), FormatBytes(r.BurstBytes))
	if l.ItemBytes > 0 {
		s += ", at most " + FormatBytes(int64(l.ItemBytes)) + " an item"
	}
	if len(l.CategoryItemBytes) > 0 {
		var parts []string
		for _, c := range slices.Sorted(maps.Keys(l.CategoryItemBytes)) {
			parts = append(parts, c+" "+FormatBytes(int64(l.CategoryItemBytes[c])))
		}
		s += "; per category: " + strings.Join(parts, ", ")
	}
	return s + "; " + l.attachmentString()
}

// FormatBytes writes n as B, KiB, MiB or GiB, whole numbers where exact.
func FormatBytes(n int64) string {
	const k = 1024
	switch {
	case n >= k*k*k && n%(k*k*k) == 0:
		return fmt.Sprintf("%d GiB", n/(k*k*k))
	case n >= k*k*k:
		return fmt.Sprintf("%.1f GiB", float64(n)/(k*k*k))
	case n >= k*k && n%(k*k) == 0:
		return fmt.Sprintf("%d MiB", n/(k*k))
	case n >= k*k:
		return fmt.Sprintf("%.1f MiB", float64(n)/(k*k))
	case n >= k && n%k == 0:
		return fmt.Sprintf("%d KiB", n/k)
	case n >= k:
		return fmt.Sprintf("%.1f KiB", float64(n)/k)
	}
	return fmt.Sprintf("%d B", n)
}

// The encoding: the member "publishLimits", after "leafCapacity", left out
// when every limit is at its default; inside, each limit left out at its
// default (and refused when written as 0), the category caps as an object
// keyed by category ID (encoding/json writes it sorted).
type publishLimitsDoc struct {
	ItemsPerHour      int            `json:"itemsPerHour,omitempty"`
	BurstItems        int            `json:"burstItems,omitempty"`
	BytesPerHour      int64          `json:"bytesPerHour,omitempty"`
	BurstBytes        int64          `json:"burstBytes,omitempty"`
	ItemBytes         int            `json:"itemBytes,omitempty"`
	CategoryItemBytes map[string]int `json:"categoryItemBytes,omitempty"`
}

type publishLimitsIn struct {
	ItemsPerHour      *int            `json:"itemsPerHour"`
	BurstItems        *int            `json:"burstItems"`
	BytesPerHour      *int64          `json:"bytesPerHour"`
	BurstBytes        *int64          `json:"burstBytes"`
	ItemBytes         *int            `json:"itemBytes"`
	CategoryItemBytes *map[string]int `json:"categoryItemBytes"`
}

func publishLimitsDocOf(l PublishLimits) *publishLimitsDoc {
	if l.itemLimitsZero() {
		return nil
	}
	return &publishLimitsDoc{ItemsPerHour: l.ItemsPerHour, BurstItems: l.BurstItems, BytesPerHour: l.BytesPerHour,
		BurstBytes: l.BurstBytes, ItemBytes: l.ItemBytes, CategoryItemBytes: nilIfEmptyMap(l.CategoryItemBytes)}
}

func nilIfEmptyMap(m map[string]int) map[string]int {
	if len(m) == 0 {
		return nil
	}
	return m
}

// parsePublishLimits decodes the member; a default written out (0, an
// empty object or map) is refused: one definition, one encoding.
func parsePublishLimits(in *publishLimitsIn) (PublishLimits, error) {
	var l PublishLimits
	if in == nil {
		return l, nil
	}
	zero := errors.New(limitsMemberName + ": a default is written by leaving it out")
	if in.ItemsPerHour != nil {
		if l.ItemsPerHour = *in.ItemsPerHour; l.ItemsPerHour == 0 {
			return l, zero
		}
	}
	if in.BurstItems != nil {
		if l.BurstItems = *in.BurstItems; l.BurstItems == 0 {
			return l, zero
		}
	}
	if in.BytesPerHour != nil {
		if l.BytesPerHour = *in.BytesPerHour; l.BytesPerHour == 0 {
			return l, zero
		}
	}
	if in.BurstBytes != nil {
		if l.BurstBytes = *in.BurstBytes; l.BurstBytes == 0 {
			return l, zero
		}
	}
	if in.ItemBytes != nil {
		if l.ItemBytes = *in.ItemBytes; l.ItemBytes == 0 {
			return l, zero
		}
	}
	if in.CategoryItemBytes != nil {
		if len(*in.CategoryItemBytes) == 0 {
			return l, zero
		}
		if len(*in.CategoryItemBytes) > MaxCategoryCaps {
			return l, fmt.Errorf("%s: more than %d category caps", limitsMemberName, MaxCategoryCaps)
		}
		l.CategoryItemBytes = *in.CategoryItemBytes
	}
	if l.itemLimitsZero() {
		return l, zero
	}
	return l, nil
}
