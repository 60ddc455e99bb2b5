package cli

import (
	"net/http"
	"time"

	"newsdesk/app"
	"newsdesk/network"
	"newsdesk/newsnet"
	"newsdesk/trust"
)

// aloneJSON is statusJSON.Alone.
type aloneJSON struct {
	Seeds []string `json:"seeds"`
}

// statusJSON is the /v1/status answer. The first block is the fixed shape;
// the rest are additions.
type statusJSON struct {
	ID      string   `json:"id"`
	IDValue uint64   `json:"idValue"`
	Root    bool     `json:"root"` // this servant is the vertex
	Up      string   `json:"up"`   // "" when not attached
	Downs   []string `json:"downs"`
	// Leaves are the servants below this one that others cannot dial;
	// Leaf: this servant is one of them.
	Leaves []string `json:"leaves"`
	Leaf   bool     `json:"leaf"`
	// Reachable: whether the last dial-back to this servant's advertised
	// address (ReachAddr) reached it; null when none was made yet.
	Reachable *bool  `json:"reachable"`
	ReachAddr string `json:"reachAddr"`
	ReachAt   string `json:"reachAt"` // RFC 3339, "" when never
	// AddressChanged is the last change of the advertised address in
	// this run (the computer moved to another network); null when none.
	AddressChanged *addressChangeJSON `json:"addressChanged"`
	// Release is this build's release and Protocol the wire versions it
	// speaks; NewerRelease the newest newer release a neighbour runs.
	Release       string     `json:"release"`
	Protocol      [2]uint16  `json:"protocol"`
	NewerRelease  string     `json:"newerRelease"`
	Partition     [2]uint64  `json:"partition"`
	Subscriptions []string   `json:"subscriptions"`
	Links         []linkJSON `json:"links"` // up first, then downs
	// Direct lists the direct links (issue 14): a hot source's items in
	// some categories sent straight to a subscriber, outside the tree.
	Direct []directJSON `json:"direct"`

	Role     string       `json:"role"`     // idle, connecting, attached, vertex, stopped
	RootPath []string     `json:"rootPath"` // from the vertex to the up-servant
	Source   string       `json:"source"`   // this installation's ID
	Control  string       `json:"control"`  // this API's address
	Counters countersJSON `json:"counters"`
	Lost     uint64       `json:"lost"` // needed items no holder could retransmit, and blobs none could deliver
	// LostBlobs counts the blobs of attachments among Lost.
	LostBlobs uint64 `json:"lostBlobs"`

	// StoreProblem says why delivered items wait to be stored ("disk
	// full"), "" when none wait; Unstored counts them.
	StoreProblem string `json:"storeProblem"`
	Unstored     int    `json:"unstored"`

	// Alone is set while this servant is the vertex of a network of its
	// own although it should be attached below a seed: items of others
	// do not reach it. Its seeds are those it should be below, none of
	// which answers (empty: it joined a network that lists no seed).
	// null otherwise.
	Alone *aloneJSON `json:"alone"`

	// Rejected counts the multicast messages this servant dropped on
	// arrival, per reason (trust.Rejection: "unsigned", "badSignature",
	// "untrustedKey", …); every reason is present, zeros included.
	Rejected map[string]uint64 `json:"rejected"`
	// Misconduct: peers that exceeded their budgets (requests, reach
	// reports), per reason (every reason present, zeros included), and the
	// servants whose joins are refused for it now.
	Misconduct misconductJSON `json:"misconduct"`
	// RateLimited lists the sources of which this servant refused items
	// as beyond their publisher's limits ("rateLimited") or their
	// category's byte cap ("tooLarge"), most recent first, counted over
	// every run ([] when none).
	RateLimited []network.LimitedSource `json:"rateLimited"`
	// Storage is what the stored items take against the storage quota,
	// and what the quota removed last.
	Storage storageJSON `json:"storage"`
	Key     string      `json:"key"`     // this installation's public key (trust.PublicKeyString)
	Network networkJSON `json:"network"` // the network definition held
}

type storageJSON struct {
	Used    int64         `json:"used"`    // bytes of stored items (the quota's measure)
	Quota   int64         `json:"quota"`   // bytes; -1: none
	Evicted *app.Eviction `json:"evicted"` // the last eviction, null when none
}

type misconductJSON struct {
	Counts map[string]uint64 `json:"counts"`
	Banned []string          `json:"banned"`
	// Requests that waited for their link's answers to drain, and those
	// refused beyond the waiting bounds; reach reports refused beyond
	// their rate.
	RequestsWaited  uint64 `json:"requestsWaited"`
	RequestsRefused uint64 `json:"requestsRefused"`
	ReportsRefused  uint64 `json:"reportsRefused"`
}

type addressChangeJSON struct {
	From string `json:"from"`
	To   string `json:"to"`
	At   string `json:"at"` // RFC 3339
}

type directJSON struct {
	Peer       string   `json:"peer"`
	Source     string   `json:"source"`
	Categories []string `json:"categories"`
	Role       string   `json:"role"`      // "publisher" (we send our items) or "subscriber"
	Delivered  uint64   `json:"delivered"` // items sent over it, or received over it first
}

type networkJSON struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Version   uint64 `json:"version"`
	Admin     bool   `json:"admin"`     // this installation is an admin
	Publisher bool   `json:"publisher"` // listed as a publisher (or open publishing)
	Open      bool   `json:"openPublishing"`
	// Newer lists the definition's members of a newer release, kept and
	// passed on unchanged ([] when none).
	Newer []string `json:"newerFeatures"`
}

type linkJSON struct {
	Peer     string   `json:"peer"`
	Received []string `json:"received"`
	Sent     []string `json:"sent"`
	Up       bool     `json:"up"`      // addition: the uplink
	Leaf     bool     `json:"leaf"`    // addition: a downlink to a leaf
	Version  uint16   `json:"version"` // addition: the link's wire version
	Release  string   `json:"release"` // addition: the peer's release, "" when unknown
}

type countersJSON struct {
	Published  uint64 `json:"published"`
	Suppressed uint64 `json:"suppressed"`
	Delivered  uint64 `json:"delivered"`
	Relayed    uint64 `json:"relayed"`
	Duplicates uint64 `json:"duplicates"`
	Resets     uint64 `json:"resets"`
	Lost       uint64 `json:"lost"` // needed items no holder could retransmit

	MulticastFrames uint64 `json:"multicastFrames"`
	PeriodicFrames  uint64 `json:"periodicFrames"`
	ControlFrames   uint64 `json:"controlFrames"`
	RecoveryFrames  uint64 `json:"recoveryFrames"`

	// Items sent to and received from direct links (issue 14).
	DirectSent     uint64 `json:"directSent"`
	DirectReceived uint64 `json:"directReceived"`
}

func (c *control) status(w http.ResponseWriter, r *http.Request) {
	ns := c.a.ServantStatus()
	st := ns.Status
	out := statusJSON{
		ID:            string(st.ID),
		IDValue:       st.IDValue,
		Root:          st.Role == newsnet.RoleVertex,
		Up:            string(st.Up),
		Downs:         strs(st.Downs),
		Leaves:        strs(st.Leaves),
		Leaf:          st.Leaf,
		ReachAddr:     string(st.ReachAddr),
		Release:       ns.Release,
		Protocol:      [2]uint16{newsnet.MinProtocolVersion, newsnet.ProtocolVersion},
		NewerRelease:  ns.NewerRelease,
		Partition:     [2]uint64{st.Partition.Lo, st.Partition.Hi},
		Subscriptions: strs(st.Subscriptions),
		Links:         make([]linkJSON, len(st.Links)),
		Role:          string(st.Role),
		RootPath:      strs(st.RootPath),
		Source:        ns.Source,
		Control:       c.addr,
		Lost:          ns.Lost,
		LostBlobs:     ns.LostBlobs,
		StoreProblem:  ns.StoreProblem,
		Unstored:      ns.Unstored,
		Counters: countersJSON{
			Published: st.Counters.Published, Suppressed: st.Counters.Suppressed,
			Delivered: st.Counters.Delivered, Relayed: st.Counters.Relayed,
			Duplicates: st.Counters.Duplicates, Resets: st.Counters.Resets, Lost: st.Counters.Lost,
			MulticastFrames: st.Counters.MulticastFrames, PeriodicFrames: st.Counters.PeriodicFrames,
			ControlFrames: st.Counters.ControlFrames, RecoveryFrames: st.Counters.RecoveryFrames,
			DirectSent: st.Counters.DirectSent, DirectReceived: st.Counters.DirectReceived,
		},
		Direct: make([]directJSON, len(st.Direct)),
	}
	if al := ns.Alone; al != nil {
		out.Alone = &aloneJSON{Seeds: strs(al.Seeds)}
	}
	if m := ns.Moved; m != nil {
		out.AddressChanged = &addressChangeJSON{From: m.From, To: m.To, At: m.At.UTC().Format(time.RFC3339)}
	}
	if st.Reach != newsnet.ReachUnknown {
		reachable := st.Reach == newsnet.ReachReachable
		out.Reachable = &reachable
		out.ReachAt = st.ReachAt.UTC().Format(time.RFC3339)
	}
	for i, d := range st.Direct {
		out.Direct[i] = directJSON{Peer: string(d.Peer), Source: d.Source, Categories: strs(d.Categories), Role: d.Role, Delivered: d.Delivered}
	}
	out.Rejected = make(map[string]uint64, len(st.Rejected))
	for _, r := range trust.Rejections() {
		out.Rejected[string(r)] = 0
	}
	for r, n := range st.Rejected {
		out.Rejected[r] += n
	}
	out.Misconduct = misconductJSON{Counts: map[string]uint64{}, Banned: strs(st.Misconduct.Banned),
		RequestsWaited: st.Counters.RequestsWaited, RequestsRefused: st.Counters.RequestsRefused, ReportsRefused: st.Counters.ReportsRefused}
	for _, r := range newsnet.MisconductReasons() {
		out.Misconduct.Counts[r] = st.Misconduct.Counts[r]
	}
	out.RateLimited = c.a.RateLimited()
	used, quota, err := c.a.StoredBytes()
	if err != nil {
		c.log.Warn("reading the stored size failed", "err", err)
	}
	out.Storage = storageJSON{Used: used, Quota: quota, Evicted: ns.Evicted}
	sn := c.a.Network()
	key := c.a.Identity().Public
	_, listed := sn.Publisher(key)
	out.Key = trust.PublicKeyString(key)
	out.Network = networkJSON{ID: sn.ID.String(), Name: sn.Name, Version: sn.Version,
		Admin: sn.IsAdmin(key), Publisher: !sn.IsRevoked(key) && (listed || sn.OpenPublishing || sn.IsAdmin(key)), Open: sn.OpenPublishing,
		Newer: strs(sn.NewerMembers())}
	for i, l := range st.Links {
		out.Links[i] = linkJSON{Peer: string(l.Peer), Received: strs(l.Received), Sent: strs(l.Sent), Up: l.Up, Leaf: l.Leaf,
			Version: l.Version, Release: l.Release}
	}
	writeJSON(w, http.StatusOK, out)
}
