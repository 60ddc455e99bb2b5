package app

// Somewhere to join. A network is joined through its seeds: an invitation
// code names them, and a joined servant dials them. A network that lists
// no seed leaves its members nowhere to go, and each of them runs as the
// root of a network of its own without a word. So an admin's servant of
// such a network makes itself the first seed when it starts (as the
// desktop's "start a new network" does), an invitation is refused while
// the network lists no seed, and a servant that ends up the vertex while
// seeds that should be above it are listed says so (AppStatus.Alone).

import (
	"errors"
	"net"
	"slices"
	"strings"

	"newsdesk/newsnet"
)

// ErrNoSeed: the network lists no seed, so an invitation would lead
// nowhere.
var ErrNoSeed = errors.New("the network lists no seed, so whoever joins would have nowhere to connect")

// becomeSeed makes addr, this servant's address, the one seed: of the
// stored list (the running servant takes it at once) and, when this
// installation is an admin, of the network definition, which spreads to
// the members and goes into every invitation from now on.
func (a *App) becomeSeed(addr string) error {
	if err := a.store.SetSeeds([]string{addr}); err != nil {
		return err
	}
	if err := a.applySeeds([]string{addr}, false); err != nil {
		return err
	}
	a.net.SeedOwnNetwork(addr)
	return nil
}

// seedSeedless makes the running servant the first seed of its network
// when it is an admin's, the network lists no seed and none is stored:
// a fresh `newsdesk serve` otherwise starts a network nobody can join. A
// servant on port 0 gets another address at every start, which would
// strand its members after a restart, so it is left as it is (an
// invitation says why it cannot be made).
func (a *App) seedSeedless() {
	if !a.IsAdmin() || len(a.Network().Seeds) > 0 || len(a.Seeds()) > 0 {
		return
	}
	a.mu.Lock()
	listen := a.listen
	a.mu.Unlock()
	addr := a.Addr()
	if _, port, err := net.SplitHostPort(listen); err != nil || port == "0" || addr == "" {
		a.log.Info("this network lists no seed; a servant listening on port 0 is not made its seed, " +
			"for its address changes at every start: start it with a fixed port to let others join")
		return
	}
	if err := a.becomeSeed(addr); err != nil {
		a.log.Warn("making this servant the seed of its network failed", "addr", addr, "err", err)
		return
	}
	a.log.Info("this network listed no seed: this servant is its first seed now", "seed", addr)
}

// Alone is why a servant is the vertex of a network of its own when it
// should be attached below another.
type Alone struct {
	// Seeds are the seeds it should be attached below (in its seed list
	// before its own address, or the network's when its list is empty),
	// none of which answers; none when the network lists no seed at all
	// and this installation, not an admin, joined it.
	Seeds []string
}

// alone says whether st, the running servant's status, is the vertex of a
// network of its own although seeds before it are listed, or although it
// joined a network that lists none (nil when it is where it should be).
func (a *App) alone(st newsnet.Status) *Alone {
	if st.Role != newsnet.RoleVertex {
		return nil
	}
	own := string(st.ID)
	stored := a.Seeds()
	if i := slices.Index(stored, own); i >= 0 {
		if i == 0 {
			return nil // the first seed is the vertex by design
		}
		return &Alone{Seeds: slices.Clone(stored[:i])}
	}
	if len(stored) > 0 {
		return &Alone{Seeds: slices.Clone(stored)} // the core keeps a servant that is no seed connecting: not seen
	}
	var listed []string
	for _, s := range a.Network().Seeds {
		if s != own {
			listed = append(listed, s)
		}
	}
	switch {
	case len(listed) > 0:
		return &Alone{Seeds: listed}
	case !a.IsAdmin() && len(st.Downs) == 0 && len(st.Leaves) == 0:
		return &Alone{} // joined a network nobody can be found in
	}
	return nil
}

// tellAlone logs, loudly, when this servant becomes the vertex of a
// network of its own (al not nil) and when that ends, and reports whether
// it is alone now. The status says it too, for as long as it lasts.
func (a *App) tellAlone(al *Alone, was bool) bool {
	switch {
	case al != nil && !was:
		if len(al.Seeds) == 0 {
			a.log.Warn("alone: this servant runs as a network of its own: the network it joined lists no seed to connect to, " +
				"so items from the others do not reach it; ask an admin for a new invitation (or the seeds) and join again")
		} else {
			a.log.Warn("alone: this servant runs as a network of its own: none of the seeds before it answers, "+
				"so items from the others do not reach it until one does; check that they run and that this computer can reach them",
				"seeds", strings.Join(al.Seeds, ","))
		}
		a.events.emit(Event{Kind: StatusChanged})
	case al == nil && was:
		a.log.Info("no longer alone: this servant found its place in the network")
		a.events.emit(Event{Kind: StatusChanged})
	}
	return al != nil
}
