package trust

import "fmt"

// Checking one limit at a time. An editor of the limits (the desktop's
// Admin → Limits) checks each field as it is typed and says beside it what
// is wrong, in the reader's language; validate checks a whole
// PublishLimits. Both use limitRange, so a value the editor lets through is
// one a definition may hold, and the bounds are written down once.

// Limit names one of the publishing limits an admin sets.
type Limit int

// The limits. LimitItemBytes and LimitAttachmentBytes name both the limit
// of every category and a category's entry (CategoryItemBytes,
// CategoryAttachmentBytes): their ranges are the same.
const (
	LimitItemsPerHour Limit = iota + 1
	LimitBurstItems
	LimitBytesPerHour
	LimitBurstBytes
	LimitItemBytes
	LimitAttachmentBytes
	LimitAttachmentBytesPerHour
)

// String names the limit as validate's messages do.
func (k Limit) String() string {
	switch k {
	case LimitItemsPerHour:
		return "items per hour"
	case LimitBurstItems:
		return "burst items"
	case LimitBytesPerHour:
		return "bytes per hour"
	case LimitBurstBytes:
		return "burst bytes"
	case LimitItemBytes:
		return "item bytes"
	case LimitAttachmentBytes:
		return "attachment bytes"
	case LimitAttachmentBytesPerHour:
		return "attachment bytes per hour"
	}
	return fmt.Sprintf("Limit(%d)", int(k))
}

// LimitRange is what a limit may be set to besides 0, which is its default
// (and which a category's entry, having no default, may not be).
type LimitRange struct {
	Min, Max int64
	// None: NoAttachments is allowed too (the attachment caps).
	None bool
}

// Contains reports whether n is in the range.
func (r LimitRange) Contains(n int64) bool {
	return n >= r.Min && n <= r.Max || r.None && n == NoAttachments
}

// Range returns what limit k may be set to.
func (k Limit) Range() LimitRange {
	switch k {
	case LimitItemsPerHour:
		return LimitRange{Min: 1, Max: MaxItemsPerHour}
	case LimitBurstItems:
		return LimitRange{Min: 1, Max: MaxBurstItems}
	case LimitBytesPerHour, LimitBurstBytes:
		return LimitRange{Min: MinBytesLimit, Max: MaxBytesLimit}
	case LimitItemBytes:
		return LimitRange{Min: MinItemBytesCap, Max: MaxItemBytesCap}
	case LimitAttachmentBytes:
		return LimitRange{Min: MinAttachmentBytesCap, Max: MaxAttachmentBytesCap, None: true}
	case LimitAttachmentBytesPerHour:
		return LimitRange{Min: MinAttachmentBytesPerHour, Max: MaxBytesLimit}
	}
	return LimitRange{}
}

// LimitRangeError is a limit set outside its range.
type LimitRangeError struct {
	Limit    Limit
	Category string // the category whose entry it is; "" for a limit of every category
	Value    int64
	Range    LimitRange
}

func (e *LimitRangeError) Error() string {
	what := e.Limit.String()
	if e.Category != "" {
		what += fmt.Sprintf(" of %q:", e.Category)
	}
	s := fmt.Sprintf("publish limits: %s %d outside %d to %d", what, e.Value, e.Range.Min, e.Range.Max)
	switch {
	case e.Category != "" && e.Range.None:
		s += fmt.Sprintf(" (%d: none)", NoAttachments)
	case e.Category != "":
	case e.Limit == LimitItemBytes:
		s += " (0: no cap)"
	case e.Range.None:
		s += fmt.Sprintf(" (0: the default, %d: none)", NoAttachments)
	default:
		s += " (0: the default)"
	}
	return s
}

// CheckLimit checks n as the value of limit k for every category: nil for
// 0, the default, and for a value in k's Range; else a *LimitRangeError.
func CheckLimit(k Limit, n int64) error {
	if n == 0 || k.Range().Contains(n) {
		return nil
	}
	return &LimitRangeError{Limit: k, Value: n, Range: k.Range()}
}

// CheckCategoryLimit checks n as category's entry of limit k
// (LimitItemBytes or LimitAttachmentBytes): a value in k's Range. Not 0:
// an entry has no default, a category without one is left out.
func CheckCategoryLimit(k Limit, category string, n int64) error {
	if k.Range().Contains(n) {
		return nil
	}
	return &LimitRangeError{Limit: k, Category: category, Value: n, Range: k.Range()}
}

// Validate reports the first limit out of its range, or a category entry
// with a malformed ID or too many of them: the check a definition's limits
// must pass to be signed.
func (l PublishLimits) Validate() error { return l.validate() }
