package ui

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/widget"

	"newsdesk/trust"
)

// The fields of the limits editor (admin_limits.go): one entry per limit,
// in units people read, checked as it is typed against trust's bounds
// (trust.CheckLimit), with the problem said beside it. A field left empty
// is the limit's default, which the placeholder names.

// formLimits are the limits of every category, in the form's order.
var formLimits = []trust.Limit{trust.LimitItemsPerHour, trust.LimitBurstItems, trust.LimitBytesPerHour,
	trust.LimitBurstBytes, trust.LimitItemBytes, trust.LimitAttachmentBytes, trust.LimitAttachmentBytesPerHour}

// limitField is the entry of one limit of every category.
type limitField struct {
	limit   trust.Limit
	entry   *widget.Entry
	problem *widget.Label // hidden while there is none
	hint    *widget.Label // what the limit protects against
	obj     fyne.CanvasObject
}

func newLimitField(k trust.Limit, changed func()) *limitField {
	f := &limitField{limit: k, entry: widget.NewEntry(), problem: wrappedLabel("", widget.DangerImportance),
		hint: wrappedLabel(limitHint(k), widget.LowImportance)}
	f.entry.SetPlaceHolder(limitDefaultText(k))
	f.entry.OnChanged = func(string) { changed() }
	f.problem.Hide()
	f.withBeside()
	return f
}

// limitEntryWidth is the width of a limit's entry: a number or a size
// needs no more, and the line beside it says what the limit is for.
const limitEntryWidth = 260

// withBeside lays the field out: the entry, then o (a choice that
// replaces it, such as "No attachments") and the hint beside it, the
// problem below.
func (f *limitField) withBeside(o ...fyne.CanvasObject) {
	entry := container.New(layout.NewGridWrapLayout(fyne.NewSize(limitEntryWidth, f.entry.MinSize().Height)), f.entry)
	left := container.NewHBox(entry)
	for _, x := range o {
		left.Add(container.NewVBox(x)) // on the entry's line, not centred on a hint of two
	}
	f.obj = container.NewVBox(container.NewBorder(nil, nil, left, nil, f.hint), f.problem)
}

// set shows n, the limit as the definition has it: empty for the default,
// and for no attachments, which a check beside the field says.
func (f *limitField) set(n int64) {
	if n == 0 || n == trust.NoAttachments {
		f.entry.SetText("")
		return
	}
	f.entry.SetText(limitValueText(f.limit, n))
}

// value parses and checks the entry: the limit's value (0 for the
// default), or false after showing the problem beside the field.
func (f *limitField) value() (int64, bool) {
	n, problem := parseLimit(f.limit, f.entry.Text)
	switch {
	case problem != "":
	case n == 0 && strings.TrimSpace(f.entry.Text) != "":
		// 0 is the default only to the definition: whoever types it
		// more likely means none, which no limit but the attachments'
		// allows (and they by a choice of their own).
		problem = limitProblem(&trust.LimitRangeError{Limit: f.limit, Range: f.limit.Range()})
	default:
		if err := trust.CheckLimit(f.limit, n); err != nil {
			problem = limitProblem(err)
		}
	}
	showProblem(f.problem, problem)
	return n, problem == ""
}

// showProblem shows a field's problem, or hides the label without one so
// that a valid form takes no room for them.
func showProblem(l *widget.Label, problem string) {
	l.SetText(problem)
	if problem == "" {
		l.Hide()
	} else {
		l.Show()
	}
}

// sizeLimit reports whether limit k is a number of bytes (else of items).
func sizeLimit(k trust.Limit) bool {
	return k != trust.LimitItemsPerHour && k != trust.LimitBurstItems
}

// limitName names a limit where a sentence or a form needs it.
func limitName(k trust.Limit) string {
	switch k {
	case trust.LimitItemsPerHour:
		return lang.L("Items per hour")
	case trust.LimitBurstItems:
		return lang.L("Items at once")
	case trust.LimitBytesPerHour:
		return lang.L("Bytes per hour")
	case trust.LimitBurstBytes:
		return lang.L("Bytes at once")
	case trust.LimitItemBytes:
		return lang.L("Largest item")
	case trust.LimitAttachmentBytes:
		return lang.L("Attachments per item")
	case trust.LimitAttachmentBytesPerHour:
		return lang.L("Attachments per hour")
	}
	return k.String()
}

// limitHint says in a line what a limit protects against.
func limitHint(k trust.Limit) string {
	switch k {
	case trust.LimitItemsPerHour:
		return lang.L("Items one publisher key may publish per hour, sustained. Keeps one key, or a stolen one, from flooding every member with items.")
	case trust.LimitBurstItems:
		return lang.L("Items a key may publish at once after a quiet hour, such as the updates of a breaking story.")
	case trust.LimitBytesPerHour:
		return lang.L("Bytes of items (their text, not their attachments) one key may publish per hour. Keeps one key from filling every member's disk.")
	case trust.LimitBurstBytes:
		return lang.L("Bytes of items a key may publish at once after a quiet hour.")
	case trust.LimitItemBytes:
		return lang.L("The largest item in any category, its text without attachments. Keeps single items short where short items are wanted.")
	case trust.LimitAttachmentBytes:
		return lang.L("The most bytes of attachments one item may carry, all together. Lower it for sites with slow links.")
	case trust.LimitAttachmentBytesPerHour:
		return lang.L("Bytes of attachments one key may publish per hour. Keeps one key from filling every member's disk with pictures.")
	}
	return ""
}

// limitDefault is what a limit is when the definition leaves it out; 0
// for "no cap" (LimitItemBytes).
func limitDefault(k trust.Limit) int64 {
	var none trust.PublishLimits
	r := none.Rate()
	switch k {
	case trust.LimitItemsPerHour:
		return int64(r.ItemsPerHour)
	case trust.LimitBurstItems:
		return int64(r.BurstItems)
	case trust.LimitBytesPerHour:
		return r.BytesPerHour
	case trust.LimitBurstBytes:
		return r.BurstBytes
	case trust.LimitAttachmentBytes:
		return none.AttachmentCap("")
	case trust.LimitAttachmentBytesPerHour:
		return none.AttachmentRate()
	}
	return 0
}

// limitDefaultText names a limit's default, as the placeholder of its
// empty field: "120 (default)", "no cap (default)".
func limitDefaultText(k trust.Limit) string {
	if k == trust.LimitItemBytes {
		return lang.L("no cap (default)")
	}
	return fmt.Sprintf(lang.L("%s (default)"), limitValueText(k, limitDefault(k)))
}

// limitValueText writes a limit's value as its field shows it and parses
// it back: a count with the language's digit grouping, a size in the
// largest unit that holds it exactly ("20 MiB", "1.5 MiB", "1 TiB"), else
// in bytes, so that showing a definition and reading the form again gives
// the same limits. (formatBytes stops at GiB and rounds, and a grouped
// "1,024 GiB" would read back as a decimal.)
func limitValueText(k trust.Limit, n int64) string {
	if !sizeLimit(k) {
		return formatNumber(n)
	}
	for _, u := range []struct {
		size int64
		name string
	}{{1 << 40, "TiB"}, {1 << 30, "GiB"}, {1 << 20, "MiB"}, {1 << 10, "KiB"}} {
		switch {
		case n < u.size:
		case n%u.size == 0:
			return fmt.Sprintf("%d %s", n/u.size, u.name)
		case n*10%u.size == 0:
			whole := fmt.Sprintf("%.1f", float64(n)/float64(u.size))
			return strings.Replace(whole, ".", decimalMark(), 1) + " " + u.name
		}
	}
	return fmt.Sprintf("%d B", n)
}

// decimalMark is the interface language's decimal mark: "." or ",".
func decimalMark() string {
	if s := formatBytes(3 << 19); strings.Contains(s, ",") { // "1.5 MiB" or "1,5 MiB"
		return ","
	}
	return "."
}

// limitSettingText names a limit as set in a definition, for a sentence:
// its value, or its default said as such.
func limitSettingText(k trust.Limit, n int64) string {
	switch {
	case n == 0:
		return limitDefaultText(k)
	case n == trust.NoAttachments && k == trust.LimitAttachmentBytes:
		return lang.L("no attachments")
	}
	return limitValueText(k, n)
}

// parseLimit reads a field of limit k: "" is 0, the default. Sizes are
// read leniently: "20 MiB", "20MB", "20 m", "1,5 MiB", "512 KiB", or bytes
// without a unit; K, M, G and T mean KiB, MiB, GiB and TiB, with or
// without the B, as most people mean them. Counts may carry digit grouping
// ("1,000", "1.000").
func parseLimit(k trust.Limit, text string) (int64, string) {
	text = strings.TrimSpace(text)
	if text == "" {
		return 0, ""
	}
	if !sizeLimit(k) {
		n, ok := parseCount(text)
		if !ok {
			return 0, fmt.Sprintf(lang.L("“%s” is not a whole number."), text)
		}
		return n, ""
	}
	n := parsedSize(text)
	if n < 0 {
		return 0, fmt.Sprintf(lang.L("“%s” is not a size: enter one such as 5 MiB or 512 KiB."), text)
	}
	return n, ""
}

// parseCount reads a whole number, ignoring digit grouping; one too large
// for any limit reads as the largest int64, which the range check refuses.
func parseCount(text string) (int64, bool) {
	digits := strings.Map(func(r rune) rune {
		switch {
		case r >= '0' && r <= '9':
			return r
		case r == ',' || r == '.' || r == '\'' || r == '_' || unicode.IsSpace(r):
			return -1
		}
		return 'x'
	}, text)
	if digits == "" || strings.ContainsRune(digits, 'x') {
		return 0, false
	}
	n, err := strconv.ParseInt(digits, 10, 64)
	if err != nil {
		return math.MaxInt64, true // all digits: too large
	}
	return n, true
}

var sizeUnits = map[string]int64{
	"": 1, "b": 1, "byte": 1, "bytes": 1,
	"k": 1 << 10, "kb": 1 << 10, "kib": 1 << 10,
	"m": 1 << 20, "mb": 1 << 20, "mib": 1 << 20,
	"g": 1 << 30, "gb": 1 << 30, "gib": 1 << 30,
	"t": 1 << 40, "tb": 1 << 40, "tib": 1 << 40,
}

// parsedSize is parseLimit for sizes: the bytes, rounded to a whole
// number, or -1 when text is not a size. A decimal comma is a decimal
// point (German writes 1,5 MiB); a number with both is refused rather
// than guessed at.
func parsedSize(text string) int64 {
	s := strings.ToLower(strings.Join(strings.FieldsFunc(text, unicode.IsSpace), ""))
	i := strings.IndexFunc(s, func(r rune) bool { return (r < '0' || r > '9') && r != '.' && r != ',' })
	if i < 0 {
		i = len(s)
	}
	num, unit := s[:i], s[i:]
	mult, ok := sizeUnits[unit]
	if num == "" || !ok || strings.Contains(num, ".") && strings.Contains(num, ",") {
		return -1
	}
	f, err := strconv.ParseFloat(strings.ReplaceAll(num, ",", "."), 64)
	if err != nil {
		return -1
	}
	if b := f * float64(mult); b < math.MaxInt64/2 {
		return int64(math.Round(b))
	}
	return math.MaxInt64 // beyond any limit: the range check says so
}

// limitProblem says why a value of a limit was refused: trust's range in
// the limit's units, with what leaving the field empty means. Other
// errors (a malformed category ID) go through errorText.
func limitProblem(err error) string {
	re, ok := err.(*trust.LimitRangeError)
	if !ok {
		return errorText(err)
	}
	r := re.Range
	lo, hi := limitValueText(re.Limit, r.Min), limitValueText(re.Limit, r.Max)
	switch {
	case re.Category != "":
		return fmt.Sprintf(lang.L("Enter a size from %s to %s, or leave it empty to use the limit for every category."), lo, hi)
	case !sizeLimit(re.Limit):
		return fmt.Sprintf(lang.L("Enter a number from %s to %s, or leave it empty for the default."), lo, hi)
	case re.Limit == trust.LimitItemBytes:
		return fmt.Sprintf(lang.L("Enter a size from %s to %s, or leave it empty for no cap."), lo, hi)
	}
	return fmt.Sprintf(lang.L("Enter a size from %s to %s, or leave it empty for the default."), lo, hi)
}
