package newsnet

import (
	"strings"
	"testing"
)

// The verifier counts every refusal by reason and notes each peer and
// reason once, however often the peer repeats it; without Config.Verify
// everything passes.
func TestVerifierCountsAndNotesOnce(t *testing.T) {
	c := &core{cfg: Config{Verify: func(m *Multicast) string {
		if m.Category == "forged" {
			return "bad signature"
		}
		return ""
	}}}
	var v verifier
	for range 3 {
		if got := v.check(c, "10.0.0.2:7400", &Multicast{Category: "forged"}); got != "bad signature" {
			t.Fatalf("check = %q, want the reason", got)
		}
	}
	v.check(c, "10.0.0.3:7400", &Multicast{Category: "forged"})
	if got := v.check(c, "10.0.0.2:7400", &Multicast{Category: "news"}); got != "" {
		t.Errorf("a good message refused: %q", got)
	}
	if v.rejected["bad signature"] != 4 {
		t.Errorf("rejected = %v, want 4 bad signatures", v.rejected)
	}
	var notes []string
	for _, a := range c.out {
		if n, ok := a.(Note); ok {
			notes = append(notes, n.Text)
		}
	}
	if len(notes) != 2 || !strings.Contains(notes[0], "10.0.0.2:7400") || !strings.Contains(notes[1], "10.0.0.3:7400") {
		t.Errorf("notes %q, want one per peer", notes)
	}
	if (&verifier{}).check(&core{}, "p", &Multicast{Category: "forged"}) != "" {
		t.Error("without Config.Verify a message was refused")
	}
}
