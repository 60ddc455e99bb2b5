package app

import (
	"errors"

	"newsdesk/newsnet"
)

// ErrNoCensus: the servant has not heard the network's census yet (it is
// not started, or the vertex's census has not come down to it).
var ErrNoCensus = errors.New("the network's census has not reached this servant yet")

// NetworkCensus returns the whole network's census as this servant last
// heard it from the vertex (newsnet/netcensus.go): servants online by
// release, role and reachability, the items lost and where, the tree's
// depth. Only admins may read it (ErrNotAdmin): it names computers.
func (a *App) NetworkCensus() (newsnet.NetworkCensus, error) {
	if !a.IsAdmin() {
		return newsnet.NetworkCensus{}, ErrNotAdmin
	}
	n := a.currentNode()
	if n == nil {
		return newsnet.NetworkCensus{}, ErrNoCensus
	}
	c := n.Status().Network
	if c.At.IsZero() {
		return newsnet.NetworkCensus{}, ErrNoCensus
	}
	return c, nil
}
