package app

// What users never see of the network's own business: the system groups
// (network.SystemCategories) and their items are left out of the lists,
// the counts and the status the UI and the control API show.

import (
	"slices"

	"newsdesk/network"
	"newsdesk/newsnet"
	"newsdesk/storage"
)

// What Retract returns, for the UI (which talks to app, not network).
var (
	ErrItemNotFound = network.ErrItemNotFound
	ErrBadItemID    = network.ErrBadItemID
)

// NotAuthorizedError: this installation's key may not retract the item.
type NotAuthorizedError = network.NotAuthorizedError

// IsSystemCategory reports whether c is reserved for the network's own
// business (network.IsSystemCategory).
func IsSystemCategory(c string) bool { return network.IsSystemCategory(c) }

// hideSystem removes the system groups from a category list (a copy when
// there is one to remove).
func hideSystem[S ~[]E, E ~string](s S) S {
	if !slices.ContainsFunc(s, func(c E) bool { return network.IsSystemCategory(string(c)) }) {
		return s
	}
	return slices.DeleteFunc(slices.Clone(s), func(c E) bool { return network.IsSystemCategory(string(c)) })
}

// hideSystemStatus removes the system groups from what a status shows.
func hideSystemStatus(st *newsnet.Status) {
	st.Subscriptions = hideSystem(st.Subscriptions)
	links := slices.Clone(st.Links)
	for i := range links {
		links[i].Received = hideSystem(links[i].Received)
		links[i].Sent = hideSystem(links[i].Sent)
	}
	st.Links = links
	direct := make([]newsnet.DirectStatus, 0, len(st.Direct))
	for _, d := range st.Direct {
		if d.Categories = hideSystem(d.Categories); len(d.Categories) > 0 {
			direct = append(direct, d)
		}
	}
	st.Direct = direct
}

// hideSystemEntries drops the system groups' items from a list users see.
func hideSystemEntries(es []storage.Entry) []storage.Entry {
	return slices.DeleteFunc(es, func(e storage.Entry) bool { return network.IsSystemItem(e.Item) })
}
