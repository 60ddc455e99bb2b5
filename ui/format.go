package ui

import (
	"fmt"
	"net/netip"
	"strings"
	"time"

	"newsdesk/categories"
)

// relTime says how long ago t was, as a list row shows it: "just now",
// "5 min ago", "3 h ago", "yesterday", then the date.
func relTime(t, now time.Time) string {
	d := now.Sub(t)
	switch {
	case d < 0:
		return t.Local().Format("15:04")
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%d min ago", int(d/time.Minute))
	case d < 24*time.Hour:
		return fmt.Sprintf("%d h ago", int(d/time.Hour))
	}
	ty, tm, td := t.Local().Date()
	ny, nm, nd := now.Local().Date()
	yesterday := time.Date(ny, nm, nd-1, 0, 0, 0, 0, time.Local)
	switch {
	case ty == yesterday.Year() && tm == yesterday.Month() && td == yesterday.Day():
		return "yesterday"
	case d < 7*24*time.Hour:
		return t.Local().Format("Monday")
	case ty == ny:
		return t.Local().Format("2 Jan")
	}
	return t.Local().Format("2 Jan 2006")
}

// fullTime is the absolute time shown in the item view.
func fullTime(t time.Time) string {
	return t.Local().Format("Mon 2 Jan 2006, 15:04")
}

// categoryName returns the display name of a category, falling back to its
// ID when the catalog does not know it.
func categoryName(cat *categories.Catalog, id string) string {
	if cat != nil {
		if c, ok := cat.Get(id); ok {
			return c.Name
		}
	}
	return id
}

// depth is the nesting level of a category ID ("sales/emea" is 1).
func depth(id string) int { return strings.Count(id, string(categories.Separator)) }

// indent is the horizontal space per hierarchy level.
const indentStep = 18

// idValueText shows a partition value: IPv4 values (addr<<16 | port) are
// decoded as address:port, others in decimal.
func idValueText(v uint64) string {
	if v < 1<<48 {
		b := [4]byte{byte(v >> 40), byte(v >> 32), byte(v >> 24), byte(v >> 16)}
		return fmt.Sprintf("%d (%s:%d)", v, netip.AddrFrom4(b), v&0xffff)
	}
	return fmt.Sprintf("%d", v)
}

// plural returns "1 item", "2 items".
func plural(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}
