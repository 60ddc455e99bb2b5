package app

// The port a servant accepts links on. Two installations on one computer
// (two profiles, --data apart) cannot both listen on 7400: the first run
// proposes a free port instead, and both the first run and a changed
// setting check that the port is free before anything else happens, so a
// failure never comes after an invitation was redeemed. When the address
// changes, the servant's own entry in the seed list, and in the network
// definition when it is an admin's, follows it, so that the admin's
// servant does not look for itself at the old address.

import (
	"errors"
	"fmt"
	"net"
	"slices"
	"strconv"
	"syscall"
)

// keyOwnAddress is the settings key of the address this servant last ran
// under (its servant ID).
const keyOwnAddress = "own-address"

// proposeTries is how many ports after the configured one ProposeListen
// tries before it lets the system choose.
const proposeTries = 100

// ErrPortInUse: another program (often another Newsdesk) listens on the
// port.
var ErrPortInUse = errors.New("the port is in use on this computer")

// ProposeListen proposes the address to accept servant links on: listen
// ("host:port", "" for the settings' address) when its port is free on
// this computer, else the same host with the next free port after it;
// taken reports that listen's port was in use. A listen address it cannot
// parse is returned as it is.
func (a *App) ProposeListen(listen string) (proposal string, taken bool) {
	if a.opts.Listen != "" {
		return a.opts.Listen, false // serve --listen, tests: not a choice
	}
	if listen == "" {
		listen = a.Settings().Listen
	}
	if cur := a.runningListen(); cur != "" && samePort(cur, listen) {
		return listen, false // this servant holds it
	}
	host, port, err := net.SplitHostPort(listen)
	p, err2 := strconv.Atoi(port)
	if err != nil || err2 != nil || p == 0 {
		return listen, false
	}
	if a.checkListenFree(listen) == nil {
		return listen, false
	}
	for q := p + 1; q <= min(p+proposeTries, 65535); q++ {
		addr := net.JoinHostPort(host, strconv.Itoa(q))
		if a.checkListenFree(addr) == nil {
			return addr, true
		}
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		return listen, true
	}
	defer ln.Close()
	_, free, _ := net.SplitHostPort(ln.Addr().String())
	return net.JoinHostPort(host, free), true
}

// checkListenFree reports whether a servant could listen on addr now: nil,
// or an error matching ErrPortInUse when another program holds the port
// (Options.PortHeld says, else binding it tells).
func (a *App) checkListenFree(addr string) error {
	if a.opts.PortHeld == nil {
		ln, err := net.Listen("tcp", addr)
		switch {
		case err == nil:
			return ln.Close()
		case !errors.Is(err, syscall.EADDRINUSE):
			return fmt.Errorf("cannot listen on %s: %w", addr, err)
		}
	} else if !a.opts.PortHeld(addr) {
		return nil
	}
	_, port, _ := net.SplitHostPort(addr)
	return fmt.Errorf("%w: port %s is taken, perhaps by another Newsdesk on this computer; choose another port", ErrPortInUse, port)
}

// runningListen is the address the running servant listens on, "" when it
// is not running.
func (a *App) runningListen() string {
	n := a.currentNode()
	if n == nil {
		return ""
	}
	return a.listenAddr(n)
}

// samePort reports whether two "host:port" addresses name the same port.
func samePort(x, y string) bool {
	_, px, err := net.SplitHostPort(x)
	_, py, err2 := net.SplitHostPort(y)
	return err == nil && err2 == nil && px == py
}

// checkNewListen checks a listen address the settings or the first run
// are about to store: a host and a port, free on this computer unless the
// running servant holds it.
func (a *App) checkNewListen(listen string) error {
	if _, err := CheckHostPort(listen); err != nil {
		return fmt.Errorf("listen address: %w", err)
	}
	if cur := a.runningListen(); cur != "" && samePort(cur, listen) {
		return nil
	}
	if _, port, _ := net.SplitHostPort(listen); port == "0" {
		return nil
	}
	return a.checkListenFree(listen)
}

// afterStart runs after every start of the servant, with no lock held: its
// own seed entry follows a changed address (followOwnAddress), and an
// admin's servant of a network without seeds becomes its seed
// (seedSeedless).
func (a *App) afterStart() {
	addr := a.Addr()
	if addr == "" {
		return
	}
	prev, _, err := a.store.Setting(keyOwnAddress)
	if err != nil {
		a.log.Warn("reading this servant's last address failed", "err", err)
	} else if prev != "" && prev != addr {
		a.followOwnAddress(prev, addr)
	}
	if prev != addr {
		if err := a.store.SetSetting(keyOwnAddress, addr); err != nil {
			a.log.Warn("recording this servant's address failed", "err", err)
		}
	}
	a.seedSeedless()
}

// followOwnAddress replaces prev, this servant's former address, with addr
// in the stored seed list and, for an admin, in the network definition.
// Only a change the user made follows (another port, or an advertised
// address of their own): a laptop whose address follows the network it is
// on (address.go) would otherwise publish a new definition at every move.
func (a *App) followOwnAddress(prev, addr string) {
	prevHost, _, err := net.SplitHostPort(prev)
	host, _, err2 := net.SplitHostPort(addr)
	if err != nil || err2 != nil {
		return
	}
	if prevHost != host && a.advertiseSet() == "" {
		return
	}
	seeds := a.Seeds()
	if i := slices.Index(seeds, prev); i >= 0 && !slices.Contains(seeds, addr) {
		seeds = slices.Clone(seeds)
		seeds[i] = addr
		if err := a.storeSeeds(seeds); err != nil {
			a.log.Warn("updating this servant's seed entry failed", "from", prev, "to", addr, "err", err)
			return
		}
		if err := a.applySeeds(seeds, true); err != nil {
			a.log.Warn("handing the updated seed list to the servant failed", "err", err)
		}
		a.log.Info("this servant's seed entry follows its new address", "from", prev, "to", addr)
	}
	if a.IsAdmin() && slices.Contains(a.Network().Seeds, prev) {
		a.net.ReplaceOwnSeed(prev, addr)
	}
}

// advertiseSet is the advertised address given (option or setting), ""
// when the servant works it out.
func (a *App) advertiseSet() string {
	if a.opts.Advertise != "" {
		return a.opts.Advertise
	}
	return a.settings().Advertise
}

// PortMove is a move of the listen address to a free port at a start,
// because another program held the one set (Options.MovePortIfTaken).
type PortMove struct {
	From, To string
}

// movePortIfTaken moves the stored listen address to the next free port
// when another program (another Newsdesk profile, often) holds it, with
// Options.MovePortIfTaken and no listen address given: the desktop starts
// rather than stop at "address already in use", and says where it went
// (AppStatus.PortMoved). Its own seed entry follows the move (afterStart).
func (a *App) movePortIfTaken() {
	if !a.opts.MovePortIfTaken || a.opts.Listen != "" || a.currentNode() != nil {
		return
	}
	from := a.Settings().Listen
	if !errors.Is(a.checkListenFree(from), ErrPortInUse) {
		return
	}
	to, taken := a.ProposeListen(from)
	if !taken || to == from || a.checkListenFree(to) != nil {
		return
	}
	if err := a.store.SetSetting(keyListen, to); err != nil {
		a.log.Warn("moving to a free port failed", "from", from, "to", to, "err", err)
		return
	}
	a.portMoved.Store(&PortMove{From: from, To: to})
	a.log.Warn("the port was in use on this computer, perhaps by another Newsdesk: listening on another one", "from", from, "to", to)
}
