package ui

import (
	"errors"
	"fyne.io/fyne/v2/lang"
	"net/netip"
	"strings"

	"fyne.io/fyne/v2/widget"

	"newsdesk/news"
)

// Compose's audience: the network ranges an item is for, typed as CIDR
// ranges separated by commas or spaces. Empty is everyone. The overlay
// delivers an item with an audience only to servants whose advertised
// address lies in one of the ranges.

// audienceHint is the audience field's placeholder.
func audienceHint() string {
	return lang.L("Everyone (or network ranges such as 10.1.4.0/22, 2001:db8:4::/48)")
}

// newAudienceEntry returns the audience field.
func newAudienceEntry(changed func()) *widget.Entry {
	e := widget.NewEntry()
	e.SetPlaceHolder(audienceHint())
	e.OnChanged = func(string) { changed() }
	return e
}

// audienceRanges splits the field's text into ranges: nil for an empty
// field (everyone).
func audienceRanges(text string) []string {
	return strings.FieldsFunc(text, func(r rune) bool { return r == ',' || r == ' ' || r == ';' })
}

// parseAudienceField returns the audience the field holds, or the problem
// in words.
func parseAudienceField(text string) ([]netip.Prefix, string) {
	ranges := audienceRanges(text)
	if len(ranges) == 0 {
		return nil, ""
	}
	ps, err := news.ParseAudience(ranges)
	if err != nil {
		var fe *news.FieldError
		if errors.As(err, &fe) && fe.Err != nil {
			return nil, errorText(fe.Err) + " " + leaveEmptyForEveryone()
		}
		return nil, errorText(err)
	}
	return ps, ""
}

// audienceText is an audience as the field shows it.
func audienceText(ps []netip.Prefix) string {
	return strings.Join(news.FormatAudience(ps), ", ")
}

// leaveEmptyForEveryone ends Compose's audience problems; the named-range
// editor, where empty is no choice, leaves it out.
func leaveEmptyForEveryone() string { return lang.L("Leave it empty to reach everyone.") }
