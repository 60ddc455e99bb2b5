package ui

import (
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2/theme"

	"newsdesk/app"
)

func attachedStatus() app.NetStatus {
	st := attachedStatusOf([]string{"company", "it"})
	st.Source = "0191a000-0000-7000-8000-00000000beef"
	return st
}

// TestNetworkView: the network view shows the servant's ID and ID value,
// up- and down-servants, partition and slots, the received and sent sets
// of every link, and the counters; a StatusChanged event refreshes it,
// and the status line says where the servant is.
func TestNetworkView(t *testing.T) {
	b := newFake(t)
	b.PresetStatus(attachedStatus())
	h := newHarness(t, b)
	h.u.tabs.SelectIndex(3)
	h.u.adminTabs.Select(h.u.networkTab)
	h.sync()
	v := h.u.network.content
	st := b.Status()
	for _, want := range []string{
		"10.1.4.23:7946",                 // ID
		"(10.1.4.23:7946)",               // ID value decoded
		"attached",                       // role
		"0.0.0.0:7946",                   // listen
		"10.1.0.5:7946",                  // up
		"10.1.4.58:7946, 10.1.4.77:7946", // downs
		"16 slots of width",              // partition
		"slot " + strconv.Itoa(st.Partition.Slot(app.IDValue("10.1.4.58:7946"))) + ": 10.1.4.58:7946",
		"up-servant 10.1.0.5:7946",
		"down-servant 10.1.4.77:7946, slot",
		"company, facilities, hr, it, sales", // a sent set
		"company, it, sales/emea",            // a received set
		"1284",                               // relayed
		"1 (published with no subscriber",    // suppressed
		"0 (needed, and no servant could",    // lost
		"4195 multicast, 8800 periodic, 63 control",
		"direct, from 10.0.0.2:7946 (outside the tree)", // a direct link
		"0191a000-0000-7000-8000-00000000a11d",
		"412 received directly",
		"0 items sent, 412 received over direct links",
	} {
		if !hasLabel(v, want) {
			t.Errorf("network view lacks %q", want)
		}
	}
	if got := h.u.statusBar.text.Text; got != "Connected to the company network" {
		t.Errorf("status line %q", got)
	}
	if hasLabel(v, "could not be recovered") {
		t.Errorf("network view warns of unrecovered items when there are none: %q", labels(v))
	}

	// The servant loses its uplink and reconnects.
	st.Role, st.Up, st.Downs, st.Links, st.Direct, st.Lost = app.RoleConnecting, "", nil, nil, nil, 2
	b.SetStatus(st)
	h.sync()
	if !hasLabel(v, "No tree links.") || !hasLabel(v, "Up-servant") {
		t.Errorf("after StatusChanged: %q", labels(v))
	}
	if got := h.u.statusBar.text.Text; !strings.HasPrefix(got, "Connecting to the company network…") || !strings.Contains(got, "2 items could not be recovered") {
		t.Errorf("status line %q", got)
	}
	if !hasLabel(v, "2 items could not be recovered: this servant needed them") || !hasLabel(v, "2 (needed, and no servant could") {
		t.Errorf("network view after 2 losses: %q", labels(v))
	}
	st.Role, st.Leaves = app.RoleVertex, nil
	b.SetStatus(st)
	h.sync()
	if got := h.u.statusBar.text.Text; got != "Only this computer so far · 2 items could not be recovered" {
		t.Errorf("status line %q", got)
	}
	// One loss reads in the singular.
	st.Lost = 1
	b.SetStatus(st)
	h.sync()
	if got := h.u.statusBar.text.Text; !strings.HasSuffix(got, " · 1 item could not be recovered") || !hasLabel(v, "1 item could not be recovered:") {
		t.Errorf("status line %q, view %q", got, labels(v))
	}
	// Delivered items that wait for a full disk show on the status line,
	// and go once they are stored.
	st.StoreProblem, st.Unstored = "disk full", 300
	b.SetStatus(st)
	h.sync()
	if got := h.u.statusBar.text.Text; !strings.HasSuffix(got, " · Disk full: 300 items wait to be stored") {
		t.Errorf("status line with a full disk %q", got)
	}
	st.StoreProblem, st.Unstored = "", 0
	b.SetStatus(st)
	h.sync()
	if got := h.u.statusBar.text.Text; strings.Contains(got, "stored") {
		t.Errorf("status line after the disk has room again %q", got)
	}
	st.Lost = 2
	// The periodic refresh reads the status without an event.
	st.Downs = []string{"10.1.4.58:7946"}
	b.PresetStatus(st)
	h.u.tick(false)
	h.sync()
	if got := h.u.statusBar.text.Text; !strings.HasPrefix(got, "Connected to the company network") {
		t.Errorf("status line after a tick %q", got)
	}
}

// TestNetworkViewLeaf: a computer that others cannot connect to says so in
// the status line and the network view, with the port and what IT can do;
// its up-servant lists it as a leaf, in no slot.
func TestNetworkViewLeaf(t *testing.T) {
	b := newFake(t)
	st := attachedStatus()
	st.Leaf, st.Reach, st.ReachAddr = true, "unreachable", "10.1.4.23:7946"
	st.Downs, st.Links = nil, st.Links[:1]
	b.PresetStatus(st)
	h := newHarness(t, b)
	h.u.tabs.SelectIndex(3)
	h.u.adminTabs.Select(h.u.networkTab)
	h.sync()
	if got := h.u.statusBar.text.Text; !strings.Contains(got, "Others cannot connect to this computer (port 7946 blocked?); news still arrives through its own connection") {
		t.Errorf("status line %q", got)
	}
	v := h.u.network.content
	for _, want := range []string{"attached, as a leaf", "no: nobody could connect back to 10.1.4.23:7946", "allow inbound TCP port 7946",
		"unchanged since the start"} {
		if !hasLabel(v, want) {
			t.Errorf("network view lacks %q", want)
		}
	}

	up := attachedStatus()
	up.Reach, up.ReachAddr = "reachable", up.ID
	up.Moved = &app.AddressChange{From: "192.168.1.20:7946", To: up.ID, At: time.Date(2026, 12, 4, 9, 30, 0, 0, time.Local)}
	up.Leaves = []string{"10.1.4.99:7946"}
	up.Links = append(up.Links, app.Link{Peer: "10.1.4.99:7946", Leaf: true, Slot: -1})
	b.SetStatus(up)
	h.sync()
	v = h.u.network.content
	for _, want := range []string{"leaf 10.1.4.99:7946 (others cannot connect to it)", "yes: another computer connected back to 10.1.4.23:7946",
		"changed from 192.168.1.20:7946 to 10.1.4.23:7946 at 09:30"} {
		if !hasLabel(v, want) {
			t.Errorf("network view of the up-servant lacks %q", want)
		}
	}
	if hasLabel(v, "slot -1") {
		t.Errorf("a leaf is shown in slot -1")
	}
	if strings.Contains(h.u.statusBar.text.Text, "leaf") {
		t.Errorf("status line of a member mentions leaves: %q", h.u.statusBar.text.Text)
	}
}

// TestNetworkViewReleases: the network view says which release runs here
// and at the other end of every link, and mentions a newer one.
func TestNetworkViewReleases(t *testing.T) {
	b := newFake(t)
	st := attachedStatus()
	st.Release, st.NewerRelease, st.NewerNetwork = "0.1.0", "0.2.0", []string{"census"}
	st.Links[0].Release, st.Links[0].Version = "0.2.0", 5
	b.PresetStatus(st)
	h := newHarness(t, b)
	h.u.tabs.SelectIndex(3)
	h.u.adminTabs.Select(h.u.networkTab)
	h.sync()
	v := h.u.network.content
	for _, want := range []string{"Newsdesk 0.1.0 · a newer Newsdesk (0.2.0) is in use on this network · this network uses features of a newer Newsdesk",
		"Newsdesk 0.2.0, protocol 5"} {
		if !hasLabel(v, want) {
			t.Errorf("network view lacks %q", want)
		}
	}
}

// Issue 26: a servant that runs as a network of its own although seeds
// should be above it says so on the status line, with the seeds, and
// with the warning colour rather than the connected one.
func TestStatusLineAlone(t *testing.T) {
	b := newFake(t)
	st := attachedStatus()
	st.Role, st.Up, st.Downs, st.Links = app.RoleVertex, "", nil, nil
	st.Alone = &app.Alone{Seeds: []string{"10.1.0.5:7400"}}
	b.PresetStatus(st)
	h := newHarness(t, b)
	h.sync()
	if got := h.u.statusBar.text.Text; !strings.HasPrefix(got, "Not connected: the company network does not answer at 10.1.0.5:7400") {
		t.Errorf("status line %q", got)
	}
	if h.u.statusBar.icon.Resource.Name() == theme.NewSuccessThemedResource(theme.MediaRecordIcon()).Name() {
		t.Error("the status icon says all is well")
	}
	st.Alone = &app.Alone{}
	b.SetStatus(st)
	h.sync()
	if got := h.u.statusBar.text.Text; !strings.Contains(got, "lists no computer to connect to") || !strings.Contains(got, "ask an admin for a new invitation") {
		t.Errorf("status line without seeds %q", got)
	}
}

// Issue 26: a desktop that found its port taken at the start and moved to
// a free one says so plainly on the status line.
func TestStatusLinePortMoved(t *testing.T) {
	b := newFake(t)
	st := attachedStatus()
	st.PortMoved = &app.PortMove{From: "0.0.0.0:7400", To: "0.0.0.0:7401"}
	b.PresetStatus(st)
	h := newHarness(t, b)
	h.sync()
	if got := h.u.statusBar.text.Text; got != "Connected to the company network · port 7400 was in use on this computer, perhaps by another Newsdesk, so this one uses port 7401" {
		t.Errorf("status line %q", got)
	}
}

// Issue 26: while nothing that needs it is shown, the periodic refresh
// reads no status (an idle desktop should cost next to nothing); the
// minute's refresh still does, and a shown network view is kept current.
func TestTickReadsStatusOnlyWhenShown(t *testing.T) {
	b := &countingStatus{fake: newFake(t)}
	b.PresetStatus(attachedStatus())
	h := newHarnessOver(t, b, func() time.Time { return testNow })
	h.u.tabs.Select(h.u.readTab)
	h.sync()
	before := b.calls
	h.u.tick(false)
	h.sync()
	if b.calls != before {
		t.Errorf("a tick with the reader shown read the status %d times", b.calls-before)
	}
	h.u.tick(true)
	h.sync()
	if b.calls != before+1 {
		t.Errorf("the minute's tick read the status %d times, want 1", b.calls-before)
	}
	h.u.showNetworkDetails()
	h.sync()
	before = b.calls
	h.u.tick(false)
	h.sync()
	if b.calls != before+1 {
		t.Errorf("a tick with the network view shown read the status %d times, want 1", b.calls-before)
	}
}

// countingStatus counts the status reads.
type countingStatus struct {
	*fake
	calls int
}

func (c *countingStatus) Status() app.NetStatus {
	c.calls++
	return c.fake.Status()
}

// The status is re-read every minute, and every few seconds while the
// network view shows; a re-read that finds the status line's words and
// colour as they were sets nothing, since every set label redraws the
// window (in software, on an idle desktop). One that finds a change shows
// it.
func TestStatusLineSetsOnlyChanges(t *testing.T) {
	b := newFake(t)
	st := attachedStatus()
	b.PresetStatus(st)
	h := newHarnessOver(t, b, func() time.Time { return testNow })
	h.sync()
	s := h.u.statusBar
	if s.text.Text != "Connected to the company network" {
		t.Fatalf("status line %q", s.text.Text)
	}
	s.text.Text = "left as it was" // what a SetText would overwrite
	h.u.tick(true)
	h.sync()
	if s.text.Text != "left as it was" {
		t.Errorf("an unchanged status was set again: %q", s.text.Text)
	}
	st.Lost = 1
	b.PresetStatus(st)
	h.u.tick(true)
	h.sync()
	if s.text.Text != "Connected to the company network · 1 item could not be recovered" {
		t.Errorf("a changed status shows as %q", s.text.Text)
	}
}

// Issue 30: an admin's network view shows the whole network, as the census
// summed it up, and what needs attention: the computer that lost items,
// the computers on an older release, a network mostly of leaves. A member
// sees none of it.
func TestNetworkViewCensus(t *testing.T) {
	b := newFake(t)
	st := attachedStatus()
	st.Release = "0.2.0"
	b.PresetStatus(st)
	b.PresetCensus(app.Census{At: testNow.Add(-30 * time.Second), Servants: 2043, Seeds: 3, Archives: 2, Leaves: 1288,
		Desktops: 2031, Headless: 12, Releases: []app.ReleaseCount{{Release: "0.2.0", Servants: 1850}, {Release: "0.1.0", Servants: 193}},
		Lost: 7, LostServants: 1, WorstLost: []app.LostServant{{Servant: "10.3.8.41:7400", Lost: 7}},
		Depth: 4, MostDowns: 16, MostLeaves: 64, MinProtocol: 5, MaxProtocol: 6,
		Subscribers: []app.CategoryCount{{Category: "company", Subscribers: 2031}, {Category: "hr", Subscribers: 310}, {Category: "*", Subscribers: 2}},
		Refused:     []app.RefusedServant{{Servant: "10.6.0.9:7400", By: 3}}})
	h := newHarness(t, b)
	h.u.tabs.SelectIndex(3)
	h.u.adminTabs.Select(h.u.networkTab)
	h.sync()
	v := h.u.network.content
	for _, want := range []string{"The whole network", "Computers online", "0.2.0: 1850, 0.1.0: 193", "versions 5 to 6",
		"company: 2031, hr: 310, everything: 2",
		"7 items on 1 computer",
		"• 10.6.0.9:7400 is refused by 3 computers for misbehaving: flooding its neighbours, passing on forged items, or passing on nothing. Check that computer and the program it runs.",
		"• 10.3.8.41:7400 could not recover 7 items. Check that it reaches a seed, and that an archive keeps the category.",
		"• 193 computers run a release older than this one (0.2.0). Roll out the update: news still crosses, newer features do not reach them.",
		"• 1288 of 2043 computers cannot be dialled by others, so they cannot relay. Allow the Newsdesk port through the firewall on office computers (see the admin guide)."} {
		if !hasLabel(v, want) {
			t.Errorf("network view lacks %q", want)
		}
	}
	if !h.u.network.whole.Visible() {
		t.Error("the whole network is hidden from an admin")
	}

	// The seed list's health, in the network view and in Admin → Seeds.
	c, _ := b.NetworkCensus()
	c.SeedLeaves, c.SeedsAway = 1000, []app.SeedAway{{Seed: "10.2.0.9:7946", LastSeen: time.Date(2026, 3, 1, 8, 15, 0, 0, time.Local)}}
	b.PresetCensus(c)
	h.u.loadStatus()()
	for _, want := range []string{
		"• Seed 10.2.0.9:7946 has not been in the network since 1 Mar 08:15. Check that computer, or replace it in the Seeds tab of Admin: newcomers try it first.",
		"• The seeds hold 1000 of the 1288 computers others cannot dial. Add a seed, or open the Newsdesk port on office computers so that they can take some."} {
		if !hasLabel(v, want) {
			t.Errorf("network view lacks %q", want)
		}
	}
	if got := h.u.seeds.advice.Text; !h.u.seeds.advice.Visible() || !strings.Contains(got, "Seed 10.2.0.9:7946 has not been in the network since 1 Mar 08:15") ||
		!strings.Contains(got, "The seeds hold 1000 of the 1288") {
		t.Errorf("Admin → Seeds advises %q", got)
	}

	asMember(t, b)
	h.u.loadStatus()()
	if h.u.census != nil || h.u.network.whole.Visible() || h.u.seeds.advice.Visible() {
		t.Error("a member's network view shows the whole network")
	}
}

// attachedSelf is the address of the servant AttachedStatus describes.
const attachedSelf = "10.1.4.23:7946"

// attachedStatusOf is the status of a servant attached in a small tree, with an
// up-servant, a leaf, two down-servants, a direct link and a day's
// counters, subscribed to subs: the status the UI's tests show.
func attachedStatusOf(subs []string) app.NetStatus {
	self := attachedSelf
	up := "10.1.0.5:7946"
	downs := []string{"10.1.4.58:7946", "10.1.4.77:7946"}
	lo, hi := app.IDValue(self), app.IDValue(self)
	for _, d := range downs {
		v := app.IDValue(d)
		lo, hi = min(lo, v), max(hi, v)
	}
	part := app.PartitionOf(lo, hi, 16)
	all := statusSet("company", "hr", "it", "sales", "sales/emea")
	links := []app.Link{{
		Peer: up, Up: true,
		Received: statusSet("company", "facilities", "hr", "it", "sales"),
		Sent:     all,
	}}
	// A laptop of the subnet that others cannot connect to hangs below as
	// a leaf.
	leaves := []string{"10.1.4.91:7946"}
	links = append(links, app.Link{Peer: leaves[0], Leaf: true, Slot: -1,
		Received: statusSet("company", "hr"),
		Sent:     statusSet("company", "facilities", "hr", "it", "sales", "sales/emea"),
	})
	for _, d := range downs {
		links = append(links, app.Link{
			Peer: d, Slot: part.Slot(app.IDValue(d)),
			Received: statusSet("company", "it", "sales/emea"),
			Sent:     statusSet("company", "facilities", "hr", "it", "sales"),
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
		Subscriptions: statusSet(subs...),
		Links:         links,
		// The newsroom's source sends this busy reader its IT news
		// directly (issue 14).
		Direct: []app.DirectLink{{Peer: "10.0.0.2:7946", Source: "0191a000-0000-7000-8000-00000000a11d",
			Categories: statusSet("it"), Role: app.DirectSubscriber, Delivered: 412}},
		Counters: app.Counters{
			Published: 4, Suppressed: 1, Delivered: 2911, Relayed: 1284,
			Duplicates: 17, Resets: 1, Lost: 0,
			MulticastFrames: 4195, PeriodicFrames: 8800, ControlFrames: 63,
			DirectReceived: 412,
		},
		AppStatus: app.AppStatus{Listen: "0.0.0.0:7946", Connected: true, Release: app.Release},
	}
}

// statusSet is cats sorted, each once: a category set as a status has it.
func statusSet(cats ...string) []string {
	s := slices.Clone(cats)
	slices.Sort(s)
	return slices.Compact(s)
}
