package cli

import (
	"maps"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestAPIOverviewsListEveryRoute: every path routes serves is named in the
// overview at the top of control.go, and every path and method in the table
// of docs/api.md, so that neither falls behind when an endpoint is added.
func TestAPIOverviewsListEveryRoute(t *testing.T) {
	src, err := os.ReadFile("control.go")
	if err != nil {
		t.Fatal(err)
	}
	var overview strings.Builder
	for line := range strings.Lines(string(src)) {
		if strings.HasPrefix(line, "import") {
			break
		}
		if strings.HasPrefix(line, "//\t") {
			overview.WriteString(line)
		}
	}
	doc, err := os.ReadFile("../docs/api.md")
	if err != nil {
		t.Fatal(err)
	}
	var table strings.Builder
	for line := range strings.Lines(string(doc)) {
		if strings.HasPrefix(line, "## ") && table.Len() > 0 {
			break // the table ends before the first section
		}
		if strings.HasPrefix(line, "| `") {
			table.WriteString(line)
		}
	}
	routes := (&control{}).routes()
	for _, p := range slices.Sorted(maps.Keys(routes)) {
		// A path ending in / takes an ID or a hash after it; otherwise
		// the path ends where a letter, digit or / does not follow.
		name := regexp.QuoteMeta(p)
		if !strings.HasSuffix(p, "/") {
			name += `(?:[^a-z0-9/]|$)`
		}
		if !regexp.MustCompile(`[A-Z]+ +` + name).MatchString(overview.String()) {
			t.Errorf("control.go's overview does not list %s", p)
		}
		for _, m := range slices.Sorted(maps.Keys(routes[p])) {
			if !regexp.MustCompile("`" + m + " " + name).MatchString(table.String()) {
				t.Errorf("the table of docs/api.md does not list %s %s", m, p)
			}
		}
	}
}
