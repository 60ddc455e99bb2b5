package app

import (
	"net"
	"net/netip"

	"newsdesk/news"
	"newsdesk/newsnet"
)

// Audiences (issue 15): an item with an audience is for the servants whose
// advertised address lies in one of its ranges. The servant core already
// delivers only those (newsnet/audience.go); the application checks again,
// exactly, before it stores an item, because some ways in (an old item a
// new subscription asked for) are not sequenced by the core.

// forThisServant reports whether it may be stored here: it has no
// audience, or the running servant's advertised address lies in it. With
// no servant running (a restart in between) the core's check stands.
func (a *App) forThisServant(it *news.Item) bool {
	if len(it.Audience) == 0 {
		return true
	}
	n := a.currentNode()
	if n == nil {
		return true
	}
	return it.InAudience(addrOfServant(n.Addr()))
}

// addrOfServant returns the IP address of a servant ID, or the zero Addr
// for a host name (which no audience holds).
func addrOfServant(id newsnet.ServantID) netip.Addr {
	host, _, err := net.SplitHostPort(string(id))
	if err != nil {
		return netip.Addr{}
	}
	addr, err := netip.ParseAddr(host)
	if err != nil {
		return netip.Addr{}
	}
	return addr
}
