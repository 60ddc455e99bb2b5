package ui

import (
	"fmt"
	"fyne.io/fyne/v2/lang"

	"newsdesk/app"
)

// releaseText is this computer's release, and a newer one that a
// neighbour runs, if any.
func releaseText(st app.NetStatus) string {
	s := "Newsdesk " + st.Release // the product name stays
	if st.Release == "" {
		s = lang.L("unknown")
	}
	if st.NewerRelease != "" {
		s += fmt.Sprintf(lang.L(" · a newer Newsdesk (%s) is in use on this network"), st.NewerRelease)
	}
	if len(st.NewerNetwork) > 0 {
		s += lang.L(" · this network uses features of a newer Newsdesk")
	}
	return s
}

// peerReleaseText is what runs at the other end of link l.
func peerReleaseText(l app.Link) string {
	rel := lang.L("an unknown release")
	if l.Release != "" {
		rel = "Newsdesk " + l.Release
	}
	if l.Version == 0 {
		return rel
	}
	return fmt.Sprintf(lang.L("%s, protocol %d"), rel, l.Version)
}
