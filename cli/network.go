package cli

import (
	"errors"
	"net/http"
	"time"

	"newsdesk/app"
)

// networkPath is the network census (admins only).
const networkPath = "/v1/network"

// censusJSON is GET /v1/network's answer.
type censusJSON struct {
	Servants     uint64            `json:"servants"`
	At           time.Time         `json:"at"`
	AgeSeconds   float64           `json:"ageSeconds"`
	Seeds        uint64            `json:"seeds"`
	Archives     uint64            `json:"archives"`
	Leaves       uint64            `json:"leaves"`
	Desktops     uint64            `json:"desktops"`
	Headless     uint64            `json:"headless"`
	Releases     []releaseJSON     `json:"releases"`
	Lost         uint64            `json:"lost"`
	LostServants uint64            `json:"lostServants"`
	WorstLost    []lostServantJSON `json:"worstLost"`
	Depth        uint64            `json:"depth"`
	MostDowns    uint64            `json:"mostDowns"`
	MostLeaves   uint64            `json:"mostLeaves"`
	Protocol     struct {
		Min uint64 `json:"min"`
		Max uint64 `json:"max"`
	} `json:"protocol"`
	Subscribers map[string]uint64 `json:"subscribers"`
	SeedsOnline []string          `json:"seedsOnline"`
	SeedLeaves  uint64            `json:"seedLeaves"`
	SeedsAway   []seedAwayJSON    `json:"seedsAway"`
	Refused     []refusedJSON     `json:"refused"`
	Partitions  []partitionJSON   `json:"partitions"`
}

// partitionJSON is one partition of the tree's map: a servant's subtree
// and the ID range it holds (lo and hi as decimal strings: they exceed
// what a JSON number keeps exactly).
type partitionJSON struct {
	Root         string `json:"root"`
	Lo           uint64 `json:"lo,string"`
	Hi           uint64 `json:"hi,string"`
	Servants     uint64 `json:"servants"`
	Leaves       uint64 `json:"leaves"`
	Lost         uint64 `json:"lost"`
	LostServants uint64 `json:"lostServants"`
	Depth        uint64 `json:"depth"`
	Protocol     struct {
		Min uint64 `json:"min"`
		Max uint64 `json:"max"`
	} `json:"protocol"`
	Partitions []partitionJSON `json:"partitions"`
}

func partitionsOut(ps []app.MapPart) []partitionJSON {
	out := []partitionJSON{}
	for _, p := range ps {
		j := partitionJSON{Root: p.Root, Lo: p.Lo, Hi: p.Hi, Servants: p.Servants, Leaves: p.Leaves, Lost: p.Lost,
			LostServants: p.LostServants, Depth: p.Depth, Partitions: partitionsOut(p.Parts)}
		j.Protocol.Min, j.Protocol.Max = p.MinProtocol, p.MaxProtocol
		out = append(out, j)
	}
	return out
}

// refusedJSON is a servant others refuse for misconduct, and how many.
type refusedJSON struct {
	Servant string `json:"servant"`
	By      uint64 `json:"by"`
}

// seedAwayJSON is a listed seed out of the network for a day or more;
// lastSeen is left out when it was never seen since watched.
type seedAwayJSON struct {
	Seed     string     `json:"seed"`
	LastSeen *time.Time `json:"lastSeen,omitempty"`
	Watched  time.Time  `json:"watchedSince"`
}

type releaseJSON struct {
	Release  string `json:"release"`
	Servants uint64 `json:"servants"`
}

type lostServantJSON struct {
	Servant string `json:"servant"`
	Lost    uint64 `json:"lost"`
}

// network: GET /v1/network, the network census as the vertex last made
// it; with ?partition=ROOT, the census of the partition below the servant
// ROOT, from that servant. 403 for a servant that is not an admin's, 503
// before the census has come, 504 when the partition's servant did not
// answer.
func (c *control) network(w http.ResponseWriter, r *http.Request) {
	if root := r.URL.Query().Get("partition"); root != "" {
		nc, err := c.a.PartitionCensus(r.Context(), root)
		switch {
		case errors.Is(err, app.ErrNotAdmin):
			writeError(w, http.StatusForbidden, "only an admin of the network may read its census")
		case errors.Is(err, app.ErrNoCensus):
			writeError(w, http.StatusServiceUnavailable, err.Error())
		case err != nil:
			writeError(w, http.StatusGatewayTimeout, err.Error())
		default:
			writeJSON(w, http.StatusOK, censusOut(nc, time.Now()))
		}
		return
	}
	nc, err := c.a.NetworkCensus()
	switch {
	case errors.Is(err, app.ErrNotAdmin):
		writeError(w, http.StatusForbidden, "only an admin of the network may read its census")
		return
	case errors.Is(err, app.ErrNoCensus):
		writeError(w, http.StatusServiceUnavailable, err.Error())
		return
	case err != nil:
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	writeJSON(w, http.StatusOK, censusOut(nc, time.Now()))
}

func censusOut(nc app.Census, now time.Time) censusJSON {
	out := censusJSON{Servants: nc.Servants, At: nc.At.UTC(), AgeSeconds: now.Sub(nc.At).Seconds(),
		Seeds: nc.Seeds, Archives: nc.Archives, Leaves: nc.Leaves, Desktops: nc.Desktops, Headless: nc.Headless,
		Lost: nc.Lost, LostServants: nc.LostServants, Depth: nc.Depth, MostDowns: nc.MostDowns, MostLeaves: nc.MostLeaves,
		Releases: []releaseJSON{}, WorstLost: []lostServantJSON{}, SeedsOnline: append([]string{}, nc.SeedsOnline...),
		SeedLeaves: nc.SeedLeaves, SeedsAway: []seedAwayJSON{}, Subscribers: map[string]uint64{}, Refused: []refusedJSON{}}
	for _, r := range nc.Refused {
		out.Refused = append(out.Refused, refusedJSON(r))
	}
	for _, c := range nc.Subscribers {
		out.Subscribers[c.Category] = c.Subscribers
	}
	for _, a := range nc.SeedsAway {
		j := seedAwayJSON{Seed: a.Seed, Watched: a.Watched.UTC()}
		if !a.LastSeen.IsZero() {
			seen := a.LastSeen.UTC()
			j.LastSeen = &seen
		}
		out.SeedsAway = append(out.SeedsAway, j)
	}
	out.Protocol.Min, out.Protocol.Max = nc.MinProtocol, nc.MaxProtocol
	for _, r := range nc.Releases {
		out.Releases = append(out.Releases, releaseJSON(r))
	}
	for _, l := range nc.WorstLost {
		out.WorstLost = append(out.WorstLost, lostServantJSON(l))
	}
	out.Partitions = partitionsOut(nc.Parts)
	return out
}
