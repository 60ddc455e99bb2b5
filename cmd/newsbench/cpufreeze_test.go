package main

import (
	"strings"
	"testing"
	"time"
)

// A short probe returns sorted gaps, each longer than the threshold, and
// a line that names them.
func TestMeasureFreezes(t *testing.T) {
	st := measureFreezes(50 * time.Millisecond)
	if st.CPUs < 1 || st.Window != 50*time.Millisecond {
		t.Fatalf("probe of %v on %d CPUs", st.Window, st.CPUs)
	}
	for i, g := range st.Gaps {
		if g <= freezeGap || i > 0 && g < st.Gaps[i-1] {
			t.Fatalf("gaps not sorted above %v: %v", freezeGap, st.Gaps)
		}
	}
	if s := st.String(); !strings.HasPrefix(s, "CPU freezes over 50ms") {
		t.Errorf("report line %q", s)
	}
	withGaps := freezeStats{Window: time.Second, CPUs: 2, Gaps: []time.Duration{2 * time.Millisecond, 3 * time.Millisecond, 9 * time.Millisecond}}
	if s := withGaps.String(); !strings.Contains(s, "1.5 per second per CPU") || !strings.Contains(s, "longest 9ms") {
		t.Errorf("report line %q", s)
	}
}
