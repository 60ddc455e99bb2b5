package app

import (
	"cmp"
	"crypto/ed25519"
	"errors"
	"fmt"
	"net"
	"slices"

	"newsdesk/network"
	"newsdesk/newsnet"
	"newsdesk/newsnet/node"
	"newsdesk/trust"
)

// What the servant is started with: its node configuration, addresses and
// subscriptions.

// checkFanout refuses an Options.Fanout other than the fanout of the
// definition this start holds: the one imported, else the one stored, else
// a new one-computer network's (trust.DefaultFanout). It runs before init
// stores anything, so a refused start changes nothing.
func (a *App) checkFanout() error {
	if a.opts.Fanout == 0 {
		return nil
	}
	sn := a.opts.Network
	if sn == nil {
		cur, err := network.StoredDefinition(a.store)
		if err != nil && !errors.Is(err, network.ErrNoDefinition) {
			return nil // network.New reports it
		}
		sn = cur
	}
	fanout, what := trust.DefaultFanout, "a new one-computer network"
	if sn != nil {
		fanout, what = sn.Fanout, fmt.Sprintf("network %q", sn.Name)
	}
	if a.opts.Fanout != fanout {
		return &FanoutError{Fanout: a.opts.Fanout, Network: what, NetworkFanout: fanout}
	}
	return nil
}

// FanoutError is Open's error for an Options.Fanout other than the fanout
// of the network definition. `newsdesk serve` reports it as a usage error
// of --fanout.
type FanoutError struct {
	Fanout        int    // Options.Fanout
	Network       string // the definition, in words
	NetworkFanout int    // its fanout
}

func (e *FanoutError) Error() string {
	return fmt.Sprintf("--fanout %d conflicts with the fanout of %s, %d: N is network-wide (servants compare "+
		"partitions built on it), so it comes from the network definition; drop --fanout, or have an "+
		"admin change the definition's fanout", e.Fanout, e.Network, e.NetworkFanout)
}

// nodeConfig builds the runtime and protocol configuration from the store.
// It runs with mu held.
func (a *App) nodeConfig() (node.Config, error) {
	seedList, err := a.store.Seeds()
	if err != nil {
		return node.Config{}, err
	}
	seeds := make([]newsnet.ServantID, 0, len(seedList))
	for _, s := range seedList {
		seeds = append(seeds, newsnet.ServantID(s))
	}
	listen, advertise := a.addresses(seedList)

	proto := newsnet.DefaultConfig("")
	proto.Seeds = seeds
	proto.Source = a.sourceStr
	proto.Release, proto.Kind = Release, a.opts.Kind
	proto.Fanout = a.Network().Fanout // network-wide: never a per-servant setting (Options.Fanout)
	proto.LeafCapacity = a.Network().LeafCapacity
	proto.Verify = a.net.Verify
	// Identity and confirmation blobs of must-read items are checked at
	// the first servant they reach (reachtrust.go).
	proto.VerifyReachBlob = a.verifyReachBlob
	// A signature that does not match what it signs is a tampered item:
	// every servant verifies before it passes an item on, so the one that
	// sent it made it. The other reasons can come of definitions not yet
	// the same everywhere.
	proto.ForgedReasons = []string{string(trust.BadSignature)}
	if t := a.opts.DirectThreshold; t != 0 {
		proto.DirectThreshold = max(t, 0)
	}
	if proto.OwnCount, err = a.store.SourceCount(a.source); err != nil {
		return node.Config{}, err
	}
	// The reports of what waits in the outbox remove its entries.
	a.pub.stored.Store(max(a.pub.stored.Load(), proto.OwnCount))
	if proto.OwnLast, err = a.ownLast(); err != nil {
		return node.Config{}, err
	}
	proto.Lost = a.lost.Load()
	counts, err := a.store.SourceCounts()
	if err != nil {
		return node.Config{}, err
	}
	proto.Expected = make(map[string]uint64, len(counts))
	for src, n := range counts {
		if src != a.source && n > 0 {
			proto.Expected[src.String()] = n + 1 // the store keeps the last delivered count
		}
	}
	queued, err := a.store.Outbox()
	if err != nil {
		return node.Config{}, err
	}
	for _, e := range queued {
		m, err := multicastOf(e.Item)
		if err != nil {
			return node.Config{}, fmt.Errorf("outbox entry %d: %w", e.Seq, err)
		}
		proto.Outbox = append(proto.Outbox, m)
	}
	if t, ok := a.lastAttached(); ok {
		proto.LastAttached = t.Add(-lastAttachedSlack)
	}
	proto.KnownCategories = append(slices.Clone(a.catalog.IDs()), network.SystemCategories...) // mu is held
	proto.Durable = network.SystemCategories
	proto.Archive = a.archive
	archive := a.opts.Archive
	proto.Blob.Refs = func(m *newsnet.Multicast) []newsnet.BlobRef { return a.blobRefs(m, archive) }
	proto.Blob.Lost, _ = a.store.BlobsLost()
	if proto.Reach, err = a.ownReach(); err != nil {
		return node.Config{}, err
	}
	if a.opts.Tune != nil {
		a.opts.Tune(&proto)
	}
	return node.Config{
		Security: &node.Security{
			Identity: a.identity,
			Secrets:  a.net.Secrets,
			// A revoked member still knows the secret until it is rotated;
			// its key is refused at the link.
			Admit: func(peer ed25519.PublicKey) error {
				if a.Network().IsRevoked(peer) {
					return fmt.Errorf("key %s is revoked by the network definition", trust.PublicKeyString(peer))
				}
				return nil
			},
			// Seeds redeem invitation codes on the servant's port.
			Invitations: a.serveInvitation,
		},
		Listen:      listen,
		Advertise:   newsnet.ServantID(advertise),
		Release:     Release,
		Protocol:    proto,
		Logger:      a.log,
		OnDeliver:   a.onDeliver,
		OnProgress:  a.onProgress,
		OnPublished: a.onPublished,
		OnLost:      a.onLost,
		OnReach:     a.onReach,
		Blobs:       blobKeeper{a.store},
		OnBlob:      a.onBlob,
	}, nil
}

// addresses returns the listen address and the advertised one ("": the
// listener's) of a servant started with the seed list seeds. Without an
// advertised address, one listening on a wildcard address advertises the
// local address of the route toward the first seed (localAddress).
func (a *App) addresses(seeds []string) (listen, advertise string) {
	set := a.settings()
	listen = cmp.Or(a.opts.Listen, set.Listen, DefaultListen)
	advertise = cmp.Or(a.opts.Advertise, set.Advertise)
	if advertise == "" {
		if host, port, err := net.SplitHostPort(listen); err == nil {
			if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
				local := localAddress
				if a.opts.localAddress != nil {
					local = a.opts.localAddress
				}
				advertise = net.JoinHostPort(local(seeds), port)
			}
		}
	}
	return listen, advertise
}

// liveSubscriptions is what the servant subscribes to: the stored
// subscriptions, every category for an archive, the system groups, and
// for an admin the admin groups.
func (a *App) liveSubscriptions() []string {
	subs := a.Subscriptions()
	if a.opts.Archive {
		subs = append(subs, newsnet.AllCategories)
	}
	return append(append(subs, network.SystemCategories...), a.liveAdminGroups()...)
}

// localAddress guesses this computer's address toward the network: the
// source address of a route to the first seed that is not a loopback
// address (no packet is sent), else the first non-loopback IPv4 address of
// an interface that is up, else 127.0.0.1.
func localAddress(seeds []string) string {
	for _, s := range seeds {
		host, _, err := net.SplitHostPort(s)
		if err != nil {
			continue
		}
		if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
			continue
		}
		c, err := net.Dial("udp", s)
		if err != nil {
			continue
		}
		addr := c.LocalAddr().(*net.UDPAddr).IP
		c.Close()
		if !addr.IsLoopback() && !addr.IsUnspecified() {
			return addr.String()
		}
	}
	ifs, _ := net.Interfaces()
	for _, ifc := range ifs {
		if ifc.Flags&net.FlagUp == 0 || ifc.Flags&net.FlagLoopback != 0 {
			continue
		}
		addrs, _ := ifc.Addrs()
		for _, ad := range addrs {
			if ipn, ok := ad.(*net.IPNet); ok && ipn.IP.To4() != nil && !ipn.IP.IsLinkLocalUnicast() {
				return ipn.IP.String()
			}
		}
	}
	return "127.0.0.1"
}
