package ui

import (
	"fmt"
	"net/netip"
	"strings"
	"time"

	"fyne.io/fyne/v2/lang"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"newsdesk/app"
	"newsdesk/categories"
)

// relTime says how long ago t was, as a list row shows it: "just now",
// "5 min ago", "3 h ago", "yesterday", then the weekday or the date.
func relTime(t, now time.Time) string {
	d := now.Sub(t)
	switch {
	case d < 0:
		return formatTime(t, clockTime)
	case d < time.Minute:
		return lang.L("just now")
	case d < time.Hour:
		n := int(d / time.Minute)
		return fmt.Sprintf(lang.N("%d min ago", n), n)
	case d < 24*time.Hour:
		n := int(d / time.Hour)
		return fmt.Sprintf(lang.N("%d h ago", n), n)
	}
	ty, tm, td := t.Local().Date()
	ny, nm, nd := now.Local().Date()
	yesterday := time.Date(ny, nm, nd-1, 0, 0, 0, 0, time.Local)
	switch {
	case ty == yesterday.Year() && tm == yesterday.Month() && td == yesterday.Day():
		return lang.L("yesterday")
	case d < 7*24*time.Hour:
		return formatTime(t, weekday)
	case ty == ny:
		return formatTime(t, dayMonth)
	}
	return formatTime(t, date)
}

// fullTime is the absolute time shown in the item view.
func fullTime(t time.Time) string { return formatTime(t, fullDateTime) }

// The ways a time is shown; formatTime writes each in the interface's
// language.
type timeStyle int

const (
	clockTime     timeStyle = iota // 15:04
	weekday                        // Monday
	dayMonth                       // 2 Jan
	date                           // 2 Jan 2006
	dayMonthClock                  // 2 Jan 15:04
	dateClock                      // 2 Jan 2006 15:04
	fullDateTime                   // Mon 2 Jan 2006, 15:04
)

// Go's time layouts know English names only: German and Japanese spell
// theirs here (CLDR's abbreviated forms).
var (
	germanMonths   = [...]string{"Jan.", "Feb.", "März", "Apr.", "Mai", "Juni", "Juli", "Aug.", "Sept.", "Okt.", "Nov.", "Dez."}
	germanDays     = [...]string{"Sonntag", "Montag", "Dienstag", "Mittwoch", "Donnerstag", "Freitag", "Samstag"}
	germanDaysAbbr = [...]string{"So.", "Mo.", "Di.", "Mi.", "Do.", "Fr.", "Sa."}
	japaneseDays   = [...]string{"日", "月", "火", "水", "木", "金", "土"}
)

// formatTime shows t in local time, in style and the interface's
// language: English "Mon 2 Jan 2006, 15:04", German "Mo., 2. Jan. 2006,
// 15:04", Japanese "2006年1月2日(月) 15:04". The clock is 24-hour in each.
func formatTime(t time.Time, style timeStyle) string {
	t = t.Local()
	clock := t.Format("15:04")
	switch currentLanguage() {
	case "de":
		dm := fmt.Sprintf("%d. %s", t.Day(), germanMonths[t.Month()-1])
		switch style {
		case weekday:
			return germanDays[t.Weekday()]
		case dayMonth:
			return dm
		case date:
			return fmt.Sprintf("%s %d", dm, t.Year())
		case dayMonthClock:
			return dm + ", " + clock
		case dateClock:
			return fmt.Sprintf("%s %d, %s", dm, t.Year(), clock)
		case fullDateTime:
			return fmt.Sprintf("%s, %s %d, %s", germanDaysAbbr[t.Weekday()], dm, t.Year(), clock)
		}
	case "ja":
		md := fmt.Sprintf("%d月%d日", t.Month(), t.Day())
		switch style {
		case weekday:
			return japaneseDays[t.Weekday()] + "曜日"
		case dayMonth:
			return md
		case date:
			return fmt.Sprintf("%d年%s", t.Year(), md)
		case dayMonthClock:
			return md + " " + clock
		case dateClock:
			return fmt.Sprintf("%d年%s %s", t.Year(), md, clock)
		case fullDateTime:
			return fmt.Sprintf("%d年%s(%s) %s", t.Year(), md, japaneseDays[t.Weekday()], clock)
		}
	default:
		switch style {
		case weekday:
			return t.Format("Monday")
		case dayMonth:
			return t.Format("2 Jan")
		case date:
			return t.Format("2 Jan 2006")
		case dayMonthClock:
			return t.Format("2 Jan 15:04")
		case dateClock:
			return t.Format("2 Jan 2006 15:04")
		case fullDateTime:
			return t.Format("Mon 2 Jan 2006, 15:04")
		}
	}
	return clock
}

// formatNumber writes n with the language's digit grouping: 12,345 in
// English and Japanese, 12.345 in German.
func formatNumber(n int64) string {
	return message.NewPrinter(language.Make(currentLanguage())).Sprintf("%d", n)
}

// formatBytes is trust.FormatBytes with the language's decimal mark
// ("1.5 GiB", "1,5 GiB").
func formatBytes(n int64) string {
	const k = 1024
	p := message.NewPrinter(language.Make(currentLanguage()))
	for _, u := range []struct {
		size int64
		unit string
	}{{k * k * k, "GiB"}, {k * k, "MiB"}, {k, "KiB"}} {
		switch {
		case n >= u.size && n%u.size == 0:
			return p.Sprintf("%d %s", n/u.size, u.unit)
		case n >= u.size:
			return p.Sprintf("%.1f %s", float64(n)/float64(u.size), u.unit)
		}
	}
	return p.Sprintf("%d B", n)
}

// evictionText says what the storage limit removed last, as
// app.Eviction.Text does, in the interface's language ("Storage limit of
// 4 GiB reached: the 120 oldest items (300 MiB) were removed on 2 Mar, 09:05").
func evictionText(e *app.Eviction) string {
	return fmt.Sprintf(lang.N("Storage limit of %s reached: the %d oldest items (%s) were removed on %s", e.Items),
		formatBytes(e.Quota), e.Items, formatBytes(e.Bytes), formatTime(e.At, dayMonthClock))
}

// categoryName returns the display name of a category in the interface's
// language (app.CategoryTitle: the catalog's title in that language, else
// its Name), falling back to its ID when the catalog does not know it.
// Every view that names a category names it with this.
func categoryName(cat *categories.Catalog, id string) string {
	return app.CategoryTitle(cat, id, titleLanguage())
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
