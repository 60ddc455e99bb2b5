package app

import ()

// The view types: what the desktop UI (package ui, through ui.Backend) and
// the control API are given instead of storage's and newsnet's types, and
// the conversions at that boundary. They live in app, not in ui, because
// ui imports app and App is what fills them; each lives beside what fills
// it: items.go (Entry, Retraction), publish.go (Draft, PublishResult),
// events.go (Event), status.go (AppStatus, NetStatus and the links),
// settings.go (Settings, Setup, Probe), invite.go (InviteCode). They carry
// what the views show, and nothing a later change of the store or the
// protocol would have to keep: an item itself is a news.Item, the domain
// type both sides share.

// convert maps s through f; nil stays nil.
func convert[T, U any](s []T, f func(T) U) []U {
	if s == nil {
		return nil
	}
	out := make([]U, len(s))
	for i, e := range s {
		out[i] = f(e)
	}
	return out
}

func stringsOf[S ~[]E, E ~string](s S) []string {
	return convert(s, func(e E) string { return string(e) })
}
