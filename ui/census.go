package ui

import (
	"context"
	"fmt"
	"fyne.io/fyne/v2/lang"
	"strings"
	"time"

	"newsdesk/app"
)

// CensusBackend is what a backend offers when it can read the network's
// census (issue 30): the whole network as the vertex summed it up, for
// admins. The UI checks for it with a type assertion, and shows the whole
// network only when it answers; *app.App implements it.
type CensusBackend interface {
	// NetworkCensus returns the census; app.ErrNotAdmin for a servant
	// that is not an admin's, app.ErrNoCensus before one has come.
	NetworkCensus() (app.Census, error)
	// PartitionCensus asks the servant at the top of a partition of the
	// map (its Root) for its census, which maps two levels below it.
	PartitionCensus(ctx context.Context, root string) (app.Census, error)
}

// censusFields lays out the whole network's figures.
func censusFields(c app.Census, now time.Time) []field {
	fields := []field{
		{lang.L("Computers online"), fmt.Sprintf(lang.L("%d (counted %s)"), c.Servants, relTime(c.At, now))},
		{lang.L("Roles"), fmt.Sprintf("%s, %s, %s", fmt.Sprintf(lang.N("%d seeds", int(c.Seeds)), int(c.Seeds)), fmt.Sprintf(lang.N("%d archives", int(c.Archives)), int(c.Archives)),
			fmt.Sprintf(lang.N("%d leaves (cannot be dialled)", int(c.Leaves)), int(c.Leaves)))},
		{lang.L("Kinds"), fmt.Sprintf(lang.L("%d desktop, %d headless"), c.Desktops, c.Headless)},
		{lang.L("Releases"), releasesText(c.Releases)},
		{lang.L("Subscribers"), subscribersText(c.Subscribers)},
		{lang.L("Protocol"), protocolText(c)},
		{lang.L("Tree"), fmt.Sprintf(lang.L("%s deep; at most %d down-servants and %s on one computer"),
			fmt.Sprintf(lang.N("%d levels", int(c.Depth)), int(c.Depth)), c.MostDowns, fmt.Sprintf(lang.N("%d leaves", int(c.MostLeaves)), int(c.MostLeaves)))},
		{lang.L("Lost items"), lostCensusText(c)},
	}
	return fields
}

func releasesText(rs []app.ReleaseCount) string {
	if len(rs) == 0 {
		return lang.L("none reported")
	}
	parts := make([]string, len(rs))
	for i, r := range rs {
		name := r.Release
		if name == "" {
			name = lang.L("unknown")
		}
		parts[i] = fmt.Sprintf("%s: %d", name, r.Servants)
	}
	return strings.Join(parts, ", ")
}

func protocolText(c app.Census) string {
	if c.MinProtocol == c.MaxProtocol {
		return fmt.Sprintf(lang.L("every computer speaks version %d"), c.MaxProtocol)
	}
	return fmt.Sprintf(lang.L("versions %d to %d"), c.MinProtocol, c.MaxProtocol)
}

func lostCensusText(c app.Census) string {
	if c.Lost == 0 {
		return lang.L("none")
	}
	return fmt.Sprintf(lang.L("%s on %s"), fmt.Sprintf(lang.N("%d items", int(c.Lost)), int(c.Lost)), fmt.Sprintf(lang.N("%d computers", int(c.LostServants)), int(c.LostServants)))
}

// healthNotes lists what in the census needs an admin's attention, each
// with the computer (when one is named) and what to do.
func healthNotes(c app.Census, ownRelease string) []string {
	var notes []string
	for _, l := range c.WorstLost {
		notes = append(notes, fmt.Sprintf(lang.L("%s could not recover %s. Check that it reaches a seed, and that an archive keeps the category."),
			l.Servant, fmt.Sprintf(lang.N("%d items", int(l.Lost)), int(l.Lost))))
	}
	if more := c.LostServants - uint64(len(c.WorstLost)); c.LostServants > uint64(len(c.WorstLost)) {
		notes = append(notes, fmt.Sprintf(lang.L("%s more lost items."), fmt.Sprintf(lang.N("%d computers", int(more)), int(more))))
	}
	var older uint64
	for _, r := range c.Releases {
		if app.ReleaseOlder(r.Release, ownRelease) {
			older += r.Servants
		}
	}
	if older > 0 {
		notes = append(notes, fmt.Sprintf(lang.L("%s run a release older than this one (%s). Roll out the update: news still crosses, newer features do not reach them."),
			fmt.Sprintf(lang.N("%d computers", int(older)), int(older)), ownRelease))
	}
	for _, r := range c.Refused {
		notes = append(notes, fmt.Sprintf(lang.L("%s is refused by %s for misbehaving: flooding its neighbours, passing on forged items, or passing on nothing. Check that computer and the program it runs."),
			r.Servant, fmt.Sprintf(lang.N("%d computers", int(r.By)), int(r.By))))
	}
	notes = append(notes, seedNotes(c)...)
	if c.Servants > 0 && c.Leaves*2 > c.Servants {
		notes = append(notes, fmt.Sprintf(lang.L("%d of %d computers cannot be dialled by others, so they cannot relay. Allow the Newsdesk port through the firewall on office computers (see the admin guide)."),
			c.Leaves, c.Servants))
	}
	return notes
}

// seedNotes is the census's advice on the seed list: seeds that have been
// away for a day, and seeds that carry most of the network's leaves.
func seedNotes(c app.Census) []string {
	var notes []string
	for _, a := range c.SeedsAway {
		since := fmt.Sprintf(lang.L("since this computer began watching, %s"), formatTime(a.Watched, dayMonthClock))
		if !a.LastSeen.IsZero() {
			since = fmt.Sprintf(lang.L("since %s"), formatTime(a.LastSeen, dayMonthClock))
		}
		notes = append(notes, fmt.Sprintf(lang.L("Seed %s has not been in the network %s. Check that computer, or replace it in the Seeds tab of Admin: newcomers try it first."),
			a.Seed, since))
	}
	if c.Leaves >= 8 && c.SeedLeaves*2 > c.Leaves {
		notes = append(notes, fmt.Sprintf(lang.L("The seeds hold %d of the %d computers others cannot dial. Add a seed, or open the Newsdesk port on office computers so that they can take some."),
			c.SeedLeaves, c.Leaves))
	}
	return notes
}

// subscribersText lists the most subscribed categories, at most eight.
func subscribersText(cs []app.CategoryCount) string {
	if len(cs) == 0 {
		return lang.L("none")
	}
	var parts []string
	for i, c := range cs {
		if i == 8 {
			parts = append(parts, fmt.Sprintf(lang.L("and %d more"), len(cs)-i))
			break
		}
		name := c.Category
		if name == "*" {
			name = lang.L("everything")
		}
		parts = append(parts, fmt.Sprintf("%s: %d", name, c.Subscribers))
	}
	return strings.Join(parts, ", ")
}
