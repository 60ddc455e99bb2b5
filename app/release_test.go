package app

import (
	"os"
	"regexp"
	"testing"

	"newsdesk/newsnet"
)

// The release in every hello is the one the packages carry.
func TestReleaseMatchesFyneApp(t *testing.T) {
	b, err := os.ReadFile("../FyneApp.toml")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^\s*Version\s*=\s*"([^"]*)"`).FindSubmatch(b)
	if m == nil {
		t.Fatal("FyneApp.toml has no Version")
	}
	if string(m[1]) != Release {
		t.Errorf("FyneApp.toml says %s, app.Release %s: keep them equal", m[1], Release)
	}
}

func TestCompareReleases(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		want int
		ok   bool
	}{
		{"0.1.0", "0.1.0", 0, true},
		{"0.2.0", "0.1.9", 1, true},
		{"0.10.0", "0.9.0", 1, true},
		{"1.0.0", "0.99.99", 1, true},
		{"0.2.0-rc1", "0.2.0", -1, true},
		{"0.2.0-rc2", "0.2.0-rc1", 1, true},
		{"0.2", "0.2.0", 0, false},
		{"", "0.1.0", 0, false},
		{"x.1.0", "0.1.0", 0, false},
	} {
		if got, ok := compareReleases(tt.a, tt.b); got != tt.want || ok != tt.ok {
			t.Errorf("compareReleases(%q, %q) = %d, %v; want %d, %v", tt.a, tt.b, got, ok, tt.want, tt.ok)
		}
	}
	links := []newsnet.LinkStatus{{Release: "0.1.0"}, {Release: "9.0.0-next"}, {Release: ""}, {Release: "0.3.0"}}
	if got := newestPeerRelease(links); got != "9.0.0-next" {
		t.Errorf("newest peer release %q", got)
	}
	if got := newestPeerRelease(links[:1]); got != "" {
		t.Errorf("newest peer release among equals %q, want none", got)
	}
}
