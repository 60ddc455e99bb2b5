package fakebackend

import (
	"slices"

	"newsdesk/app"
)

// attachedSelf is the address of the servant AttachedStatus describes.
const attachedSelf = "10.1.4.23:7946"

// AttachedStatus is the status of a servant attached in a small tree, with an
// up-servant, a leaf, two down-servants, a direct link and a day's
// counters, subscribed to subs: the status the UI's tests show.
func AttachedStatus(subs []string) app.NetStatus {
	self := attachedSelf
	up := "10.1.0.5:7946"
	downs := []string{"10.1.4.58:7946", "10.1.4.77:7946"}
	lo, hi := app.IDValue(self), app.IDValue(self)
	for _, d := range downs {
		v := app.IDValue(d)
		lo, hi = min(lo, v), max(hi, v)
	}
	part := app.PartitionOf(lo, hi, 16)
	all := categorySet("company", "hr", "it", "sales", "sales/emea")
	links := []app.Link{{
		Peer: up, Up: true,
		Received: categorySet("company", "facilities", "hr", "it", "sales"),
		Sent:     all,
	}}
	// A laptop of the subnet that others cannot connect to hangs below as
	// a leaf.
	leaves := []string{"10.1.4.91:7946"}
	links = append(links, app.Link{Peer: leaves[0], Leaf: true, Slot: -1,
		Received: categorySet("company", "hr"),
		Sent:     categorySet("company", "facilities", "hr", "it", "sales", "sales/emea"),
	})
	for _, d := range downs {
		links = append(links, app.Link{
			Peer: d, Slot: part.Slot(app.IDValue(d)),
			Received: categorySet("company", "it", "sales/emea"),
			Sent:     categorySet("company", "facilities", "hr", "it", "sales"),
		})
	}
	return app.NetStatus{
		ID:            self,
		IDValue:       app.IDValue(self),
		Role:          app.RoleAttached,
		Up:            up,
		Downs:         downs,
		Leaves:        leaves,
		Reach:         "reachable",
		ReachAddr:     self,
		Range:         [2]uint64{lo, hi},
		Partition:     part,
		RootPath:      []string{"10.0.0.2:7946", up},
		Siblings:      []string{"10.1.2.8:7946", self, "10.1.9.40:7946"},
		Subscriptions: categorySet(subs...),
		Links:         links,
		// The newsroom's source sends this busy reader its IT news
		// directly (issue 14).
		Direct: []app.DirectLink{{Peer: "10.0.0.2:7946", Source: "0191a000-0000-7000-8000-00000000a11d",
			Categories: categorySet("it"), Role: app.DirectSubscriber, Delivered: 412}},
		Counters: app.Counters{
			Published: 4, Suppressed: 1, Delivered: 2911, Relayed: 1284,
			Duplicates: 17, Resets: 1, Lost: 0,
			MulticastFrames: 4195, PeriodicFrames: 8800, ControlFrames: 63,
			DirectReceived: 412,
		},
		AppStatus: app.AppStatus{Listen: "0.0.0.0:7946", Connected: true, Release: app.Release},
	}
}

// categorySet is cats sorted, each once: a category set as a status has it.
func categorySet(cats ...string) []string {
	s := slices.Clone(cats)
	slices.Sort(s)
	return slices.Compact(s)
}
