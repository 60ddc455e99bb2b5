package trust

import (
	"errors"
	"testing"
)

// Each limit alone: 0 (the default) and its bounds pass, one beyond them
// does not, with a *LimitRangeError naming the limit and its range; a
// category's entry has no default; and Validate refuses the same values in
// a whole set, so an editor checking field by field and the signing agree.
func TestCheckLimit(t *testing.T) {
	for _, c := range []struct {
		k        Limit
		min, max int64
		none     bool
	}{
		{LimitItemsPerHour, 1, MaxItemsPerHour, false},
		{LimitBurstItems, 1, MaxBurstItems, false},
		{LimitBytesPerHour, MinBytesLimit, MaxBytesLimit, false},
		{LimitBurstBytes, MinBytesLimit, MaxBytesLimit, false},
		{LimitItemBytes, MinItemBytesCap, MaxItemBytesCap, false},
		{LimitAttachmentBytes, MinAttachmentBytesCap, MaxAttachmentBytesCap, true},
		{LimitAttachmentBytesPerHour, MinAttachmentBytesPerHour, MaxBytesLimit, false},
	} {
		for _, n := range []int64{0, c.min, c.max} {
			if err := CheckLimit(c.k, n); err != nil {
				t.Errorf("%s %d: %v", c.k, n, err)
			}
		}
		for _, n := range []int64{c.max + 1, -2, c.min - 1} {
			if n == 0 || n == NoAttachments && c.none {
				continue
			}
			err := CheckLimit(c.k, n)
			var re *LimitRangeError
			if !errors.As(err, &re) || re.Limit != c.k || re.Value != n || re.Range != (LimitRange{c.min, c.max, c.none}) {
				t.Errorf("%s %d: %v", c.k, n, err)
			}
			if err := withLimit(c.k, n).Validate(); err == nil || err.Error() != CheckLimit(c.k, n).Error() {
				t.Errorf("%s %d: Validate says %v", c.k, n, err)
			}
		}
		if err := CheckLimit(c.k, NoAttachments); (err == nil) != c.none {
			t.Errorf("%s -1: %v", c.k, err)
		}
	}

	if err := CheckLimit(LimitItemsPerHour, -1); err.Error() != "publish limits: items per hour -1 outside 1 to 1000000 (0: the default)" {
		t.Errorf("message %q", err)
	}
	for _, k := range []Limit{LimitItemBytes, LimitAttachmentBytes} {
		if err := CheckCategoryLimit(k, "alerts", 0); err == nil {
			t.Errorf("%s of a category: 0 passed", k)
		}
	}
	if err := CheckCategoryLimit(LimitAttachmentBytes, "alerts", NoAttachments); err != nil {
		t.Errorf("no attachments in a category: %v", err)
	}
	err := PublishLimits{CategoryAttachmentBytes: map[string]int64{"hr": 100}}.Validate()
	var re *LimitRangeError
	if !errors.As(err, &re) || re.Category != "hr" || err.Error() != `publish limits: attachment bytes of "hr": 100 outside 65536 to 20971520 (-1: none)` {
		t.Errorf("a category's attachment cap of 100: %v", err)
	}
}

// withLimit is the limits with k set to n, the others at their defaults.
func withLimit(k Limit, n int64) PublishLimits {
	var l PublishLimits
	switch k {
	case LimitItemsPerHour:
		l.ItemsPerHour = int(n)
	case LimitBurstItems:
		l.BurstItems = int(n)
	case LimitBytesPerHour:
		l.BytesPerHour = n
	case LimitBurstBytes:
		l.BurstBytes = n
	case LimitItemBytes:
		l.ItemBytes = int(n)
	case LimitAttachmentBytes:
		l.AttachmentBytes = n
	case LimitAttachmentBytesPerHour:
		l.AttachmentBytesPerHour = n
	}
	return l
}
