package app

import (
	"cmp"
	"strconv"
	"strings"

	"newsdesk/newsnet"
)

// Release is this build's release, as FyneApp.toml's Version says (a test
// keeps them equal). It goes into every hello, so that servants can show
// which releases run on the network. A test build of another release sets
// it with -ldflags "-X newsdesk/app.Release=…".
var Release = "0.2.0"

// What runs a servant (Options.Kind), as the network census counts it.
const (
	KindDesktop  = newsnet.KindDesktop
	KindHeadless = newsnet.KindHeadless
)

// ReleaseOlder reports whether release a is older than b; false when
// either does not parse.
func ReleaseOlder(a, b string) bool {
	order, ok := compareReleases(a, b)
	return ok && order < 0
}

// compareReleases orders releases "major.minor.patch" numerically, a
// pre-release ("0.2.0-rc1") before its release; ok is false when either
// does not parse.
func compareReleases(a, b string) (order int, ok bool) {
	pa, preA, okA := parseRelease(a)
	pb, preB, okB := parseRelease(b)
	if !okA || !okB {
		return 0, false
	}
	for i := range pa {
		if pa[i] != pb[i] {
			return cmp.Compare(pa[i], pb[i]), true
		}
	}
	switch {
	case preA == preB:
		return 0, true
	case preA == "":
		return 1, true
	case preB == "":
		return -1, true
	}
	return strings.Compare(preA, preB), true
}

func parseRelease(s string) (parts [3]int, pre string, ok bool) {
	s, pre, _ = strings.Cut(s, "-")
	fields := strings.Split(s, ".")
	if len(fields) != 3 {
		return parts, "", false
	}
	for i, f := range fields {
		n, err := strconv.Atoi(f)
		if err != nil || n < 0 {
			return parts, "", false
		}
		parts[i] = n
	}
	return parts, pre, true
}

// newestPeerRelease is the newest release among st's tree and direct
// links that is newer than this build's, or "".
func newestPeerRelease(links []newsnet.LinkStatus) string {
	newest := ""
	for _, l := range links {
		if o, ok := compareReleases(l.Release, Release); !ok || o <= 0 {
			continue
		}
		if o, _ := compareReleases(l.Release, newest); newest == "" || o > 0 {
			newest = l.Release
		}
	}
	return newest
}
