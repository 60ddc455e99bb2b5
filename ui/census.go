package ui

import (
	"fmt"
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
}

// censusFields lays out the whole network's figures.
func censusFields(c app.Census, now time.Time) []field {
	fields := []field{
		{"Computers online", fmt.Sprintf("%d (counted %s)", c.Servants, relTime(c.At, now))},
		{"Roles", fmt.Sprintf("%s, %s, %s", plural(int(c.Seeds), "seed", "seeds"), plural(int(c.Archives), "archive", "archives"),
			plural(int(c.Leaves), "leaf (cannot be dialled)", "leaves (cannot be dialled)"))},
		{"Kinds", fmt.Sprintf("%d desktop, %d headless", c.Desktops, c.Headless)},
		{"Releases", releasesText(c.Releases)},
		{"Subscribers", subscribersText(c.Subscribers)},
		{"Protocol", protocolText(c)},
		{"Tree", fmt.Sprintf("%s deep; at most %d down-servants and %s on one computer",
			plural(int(c.Depth), "level", "levels"), c.MostDowns, plural(int(c.MostLeaves), "leaf", "leaves"))},
		{"Lost items", lostCensusText(c)},
	}
	return fields
}

func releasesText(rs []app.ReleaseCount) string {
	if len(rs) == 0 {
		return "none reported"
	}
	parts := make([]string, len(rs))
	for i, r := range rs {
		name := r.Release
		if name == "" {
			name = "unknown"
		}
		parts[i] = fmt.Sprintf("%s: %d", name, r.Servants)
	}
	return strings.Join(parts, ", ")
}

func protocolText(c app.Census) string {
	if c.MinProtocol == c.MaxProtocol {
		return fmt.Sprintf("every computer speaks version %d", c.MaxProtocol)
	}
	return fmt.Sprintf("versions %d to %d", c.MinProtocol, c.MaxProtocol)
}

func lostCensusText(c app.Census) string {
	if c.Lost == 0 {
		return "none"
	}
	return fmt.Sprintf("%s on %s", plural(int(c.Lost), "item", "items"), plural(int(c.LostServants), "computer", "computers"))
}

// healthNotes lists what in the census needs an admin's attention, each
// with the computer (when one is named) and what to do.
func healthNotes(c app.Census, ownRelease string) []string {
	var notes []string
	for _, l := range c.WorstLost {
		notes = append(notes, fmt.Sprintf("%s could not recover %s. Check that it reaches a seed, and that an archive keeps the category.",
			l.Servant, plural(int(l.Lost), "item", "items")))
	}
	if more := c.LostServants - uint64(len(c.WorstLost)); c.LostServants > uint64(len(c.WorstLost)) {
		notes = append(notes, fmt.Sprintf("%s more lost items.", plural(int(more), "computer", "computers")))
	}
	var older uint64
	for _, r := range c.Releases {
		if app.ReleaseOlder(r.Release, ownRelease) {
			older += r.Servants
		}
	}
	if older > 0 {
		notes = append(notes, fmt.Sprintf("%s run a release older than this one (%s). Roll out the update: news still crosses, newer features do not reach them.",
			plural(int(older), "computer", "computers"), ownRelease))
	}
	for _, r := range c.Refused {
		notes = append(notes, fmt.Sprintf("%s is refused by %s for misbehaving: flooding its neighbours, passing on forged items, or passing on nothing. Check that computer and the program it runs.",
			r.Servant, plural(int(r.By), "computer", "computers")))
	}
	notes = append(notes, seedNotes(c)...)
	if c.Servants > 0 && c.Leaves*2 > c.Servants {
		notes = append(notes, fmt.Sprintf("%d of %d computers cannot be dialled by others, so they cannot relay. Allow the Newsdesk port through the firewall on office computers (see the admin guide).",
			c.Leaves, c.Servants))
	}
	return notes
}

// seedNotes is the census's advice on the seed list: seeds that have been
// away for a day, and seeds that carry most of the network's leaves.
func seedNotes(c app.Census) []string {
	var notes []string
	for _, a := range c.SeedsAway {
		since := "since this computer began watching, " + a.Watched.Local().Format("2 Jan 15:04")
		if !a.LastSeen.IsZero() {
			since = "since " + a.LastSeen.Local().Format("2 Jan 15:04")
		}
		notes = append(notes, fmt.Sprintf("Seed %s has not been in the network %s. Check that computer, or replace it in the Seeds tab of Admin: newcomers try it first.",
			a.Seed, since))
	}
	if c.Leaves >= 8 && c.SeedLeaves*2 > c.Leaves {
		notes = append(notes, fmt.Sprintf("The seeds hold %d of the %d computers others cannot dial. Add a seed, or open the Newsdesk port on office computers so that they can take some.",
			c.SeedLeaves, c.Leaves))
	}
	return notes
}

// subscribersText lists the most subscribed categories, at most eight.
func subscribersText(cs []app.CategoryCount) string {
	if len(cs) == 0 {
		return "none"
	}
	var parts []string
	for i, c := range cs {
		if i == 8 {
			parts = append(parts, fmt.Sprintf("and %d more", len(cs)-i))
			break
		}
		name := c.Category
		if name == "*" {
			name = "everything"
		}
		parts = append(parts, fmt.Sprintf("%s: %d", name, c.Subscribers))
	}
	return strings.Join(parts, ", ")
}
