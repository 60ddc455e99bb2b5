package ui

import (
	"fyne.io/fyne/v2/lang"
	"net/netip"
	"strings"

	"newsdesk/app"
	"newsdesk/news"
)

// Named ranges (issue 15): the network ranges the admin named in the
// network definition. Compose offers them (audience_picker.go), the
// reader names them beside an item's audience, and admins edit them
// (admin_audiences.go).

// AudienceBackend is what a backend offers when its network definition
// can name ranges. The UI checks for it with a type assertion: without
// it, Compose takes typed ranges only and the Admin tab has no named
// ranges. *app.App implements it, and so does the demo backend.
type AudienceBackend interface {
	// NamedAudiences returns the named ranges held, sorted by name.
	NamedAudiences() []app.NamedAudience
	// SetNamedAudiences publishes now as the named ranges (admins only),
	// as the next version of the network definition, and returns that
	// version. was is the list the edit started from:
	// app.ErrNamedAudiencesChanged when the held one differs by now.
	SetNamedAudiences(was, now []app.NamedAudience) (uint64, error)
}

var _ AudienceBackend = (*app.App)(nil)

// audienceBackend returns the backend's AudienceBackend, if it has one.
func (u *UI) audienceBackend() (AudienceBackend, bool) {
	ab, ok := u.b.(AudienceBackend)
	return ab, ok
}

// audienceLabel says whom an item is for: "For 10.1.4.0/22 (Berlin
// office)", each named range's ranges followed by its name, then the
// ranges no name covers.
func audienceLabel(ps []netip.Prefix, named []app.NamedAudience) string {
	names, rest := app.AudienceNames(ps, named)
	parts := make([]string, 0, len(names)+1)
	for _, n := range names {
		parts = append(parts, audienceText(n.Ranges)+" ("+n.Name+")")
	}
	if len(rest) > 0 {
		parts = append(parts, strings.Join(news.FormatAudience(rest), ", "))
	}
	return lang.L("For ") + strings.Join(parts, ", ")
}
