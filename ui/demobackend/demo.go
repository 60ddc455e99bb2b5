package demobackend

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"newsdesk/app"
	"newsdesk/categories"
	"newsdesk/news"
)

// The demo mode (NEWSDESK_DEMO=1) runs the window over an in-memory
// backend filled with a fixed data set: several categories, a few hundred
// items, one urgent item and one correction, a servant attached in a small
// tree. It exists for screenshots and trying the UI without a network; it
// never touches the disk or the network.

// Open returns the demo backend of a mode (NEWSDESK_DEMO) and the function
// that closes it: "wizard" starts the window with the first-run wizard;
// "urgent" adds an urgent must-read item that came while the app was off
// and waits for confirmation, so the urgent window opens at once; any
// other mode is the plain data set.
func Open(mode string) (*Backend, func() error) {
	now := time.Now()
	m := newDemo(now, mode == "wizard")
	if mode == "urgent" {
		m.Add(demoUrgentMustRead(now))
	}
	done := make(chan struct{})
	go m.live(done)
	return m, func() error {
		close(done)
		return m.Close()
	}
}

const demoSelf = "10.1.4.23:7946"

func newDemo(now time.Time, firstRun bool) *Backend {
	m := New(time.Now)
	m.setup = firstRun
	m.subs = []string{"company", "hr", "it", "sales"}
	m.remoteSubs = []string{"company", "hr", "it", "sales"}
	m.seeds = []string{"10.1.0.5:7946", "10.2.0.9:7946", "10.3.0.2:7946"}
	m.settings = app.Settings{
		DisplayName:      "Dana Whitfield",
		Listen:           "0.0.0.0:7946",
		Advertise:        demoSelf,
		Notify:           true,
		NotifyCategories: []string{"company"},
		Retention:        app.DesktopRetention, // what a desktop keeps until its reader chooses
	}
	m.status = DemoStatus(m.subs)
	m.status.Source = m.source.String()
	m.census = demoCensus(now)
	m.reports = demoReports(now)
	m.probe = demoProbe
	m.Add(demoItems(now, m.source)...)
	// Older items are read, the last day's mostly not. One of the posts
	// was retracted, so My posts shows what that looks like.
	for _, it := range m.items {
		if now.Sub(it.Created) > 30*time.Hour || it.Source == m.source {
			m.read[it.ID] = true
		}
		if it.Source == m.source && strings.HasPrefix(it.Title, "Volunteering day") {
			m.retracted = map[uuid.UUID]*app.Retraction{it.ID: {ItemID: it.ID, Reason: "Date moved: a new sign-up sheet follows", At: now.Add(-2 * time.Hour)}}
		}
	}
	m.presetDemoReach()
	if !firstRun {
		// Invitations made earlier: one used, one for the sales team's
		// publisher, one revoked.
		used, _ := m.CreateInvitation(app.InviteOptions{Uses: 1, Expires: 7 * 24 * time.Hour})
		m.PresetRedeemed(used.ID, 1)
		m.CreateInvitation(app.InviteOptions{Uses: 1, Expires: 30 * 24 * time.Hour, Publisher: true, Categories: []string{"sales"}})
		revoked, _ := m.CreateInvitation(app.InviteOptions{Uses: 10, Expires: 24 * time.Hour})
		m.PresetRedeemed(revoked.ID, 3)
		m.RevokeInvitation(revoked.ID)
	}
	return m
}

// DemoStatus is the demo servant's status: attached in a small tree, with
// an up-servant, two down-servants and a day's counters, subscribed to
// subs.
func DemoStatus(subs []string) app.NetStatus {
	self := demoSelf
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

func demoProbe(addr string) app.Probe {
	time.Sleep(300 * time.Millisecond) // a probe takes a moment
	switch addr {
	case "10.1.0.5:7946":
		return app.Probe{Addr: addr, OK: true, RTT: 2 * time.Millisecond}
	case "10.2.0.9:7946":
		return app.Probe{Addr: addr, OK: true, RTT: 14 * time.Millisecond}
	case demoSelf:
		return app.Probe{Addr: addr, OK: true, RTT: time.Millisecond / 5}
	}
	return app.Probe{Addr: addr, Problem: "connection timed out"}
}

// live adds an item now and then, as a network would.
func (m *Backend) live(done <-chan struct{}) {
	t := time.NewTicker(90 * time.Second)
	defer t.Stop()
	rng := rand.New(rand.NewPCG(7, 7))
	src := uuid.MustParse("0191a000-0000-7000-8000-0000000000aa")
	for n := uint64(1 << 20); ; n++ {
		select {
		case <-done:
			return
		case now := <-t.C:
			it := demoItem(rng, now, n, src)
			it.Received = now
			m.Ingest(it)
		}
	}
}

var (
	demoAuthors = []string{"Priya Raman", "Tom Becker", "Aiko Tanaka", "Luis Ortega", "Sarah Nolan", "Jonas Weber", "Fatima Khan", "Mark Ellison"}
	demoTitles  = map[string][]string{
		"company":        {"Quarterly results: revenue up %d%% on last year", "All-hands meeting moved to the atrium", "Welcome to our %d new colleagues", "New travel policy takes effect next month", "CEO town hall: questions open until Friday", "Sustainability report %d published"},
		"it":             {"Planned maintenance: VPN gateway on Saturday", "Password manager rollout, wave %d", "Printers on floor %d back in service", "Phishing warning: fake invoice e-mails", "New laptops for the support team", "Wi-Fi upgrade in meeting rooms"},
		"hr":             {"Open enrolment for benefits starts Monday", "Training: giving useful feedback (%d seats left)", "Summer schedule: Friday afternoons off", "Referral bonus raised for engineering roles", "Mentoring programme: round %d", "Parental leave policy updated"},
		"facilities":     {"Car park level %d closed for resurfacing", "Canteen menu for next week", "Fire drill on Thursday at 10:00", "Bike racks added by the north entrance"},
		"sales":          {"Pipeline review moved to Wednesday", "New price list valid from the 1st", "Sales kick-off: agenda and rooms"},
		"sales/emea":     {"EMEA: record quarter in the Nordics", "EMEA: new distributor in Poland", "EMEA: trade fair in Milan, %d leads"},
		"sales/americas": {"Americas: Toronto office opens", "Americas: %d new accounts in Brazil", "Americas: partner day in Austin"},
		"sales/apac":     {"APAC: Singapore team grows to %d", "APAC: contract signed with a Tokyo retailer", "APAC: Sydney roadshow dates"},
	}
	demoCats = []string{"company", "company", "it", "it", "it", "hr", "hr", "facilities", "sales", "sales/emea", "sales/emea", "sales/americas", "sales/apac"}
)

func demoItem(rng *rand.Rand, at time.Time, n uint64, src uuid.UUID) *news.Item {
	cat := demoCats[rng.IntN(len(demoCats))]
	titles := demoTitles[cat]
	title := titles[int(n)%len(titles)] // rotate, so neighbours differ
	if strings.Contains(title, "%d") {
		title = fmt.Sprintf(title, 2+rng.IntN(30))
	}
	author := demoAuthors[rng.IntN(len(demoAuthors))]
	body := fmt.Sprintf("%s\n\n- **When:** %s\n- **Who:** everyone in *%s*\n- **Contact:** [%s](mailto:news@example.com)\n\n%s\n",
		demoParagraphs[rng.IntN(len(demoParagraphs))], at.Add(time.Duration(24+rng.IntN(200))*time.Hour).Format("Monday 2 January, 15:04"),
		categoryName(cat), author, demoParagraphs[rng.IntN(len(demoParagraphs))])
	return &news.Item{
		ID: news.IDAt(at, n), Category: cat, Title: title, Body: body, Author: author,
		Source: src, SourceCount: n, Created: at, Received: at,
	}
}

// categoryName is the default catalog's name of a category, as the UI
// shows it.
func categoryName(id string) string {
	if c, ok := categories.Default().Get(id); ok {
		return c.Name
	}
	return id
}

var demoParagraphs = []string{
	"The details below apply to every site. If something is unclear, reply to the contact named here rather than to the whole list, so that the answers reach everyone in the next update.",
	"We will post an update in this category as soon as there is news. There is nothing you need to do for now; the people concerned have been told directly.",
	"Thank you to everyone who helped prepare this. The full document is on the intranet, and the team will be at the info desk on Tuesday to answer questions in person.",
	"Please plan around the dates below. Meeting rooms in the affected areas can be booked from a different floor; the booking system shows the alternatives.",
}

// demoItems is the fixed data set: about three hundred items over two
// weeks, an urgent outage notice, a correction, and a few of the user's own
// posts.
func demoItems(now time.Time, self uuid.UUID) []*news.Item {
	rng := rand.New(rand.NewPCG(1, 2))
	src := uuid.MustParse("0191a000-0000-7000-8000-000000000001")
	var items []*news.Item
	t := now.Add(-14 * 24 * time.Hour)
	for n := uint64(1); t.Before(now.Add(-50 * time.Minute)); n++ {
		items = append(items, demoItem(rng, t, n, src))
		t = t.Add(time.Duration(20+rng.IntN(100)) * time.Minute)
	}
	at := func(d time.Duration) time.Time { return now.Add(-d) }
	urgent := &news.Item{
		ID: news.IDAt(at(12*time.Minute), 9001), Category: "it", Author: "IT Service Desk", Source: src, SourceCount: 9001,
		Title:  "Outage: e-mail unavailable in all offices",
		Body:   "## E-mail is down\n\nSince **10:05** nobody can send or receive e-mail. Teams chat and phones work.\n\n1. Do not restart your laptop: it does not help.\n2. Urgent customer mail: call the customer instead.\n3. Updates every 30 minutes here and on [the status page](https://status.example.com).\n\n*IT Service Desk*",
		Urgent: true, Created: at(12 * time.Minute), Received: at(12 * time.Minute),
	}
	orig := &news.Item{
		ID: news.IDAt(at(5*time.Hour), 9002), Category: "hr", Author: "Fatima Khan", Source: src, SourceCount: 9002,
		Title:   "Offices closed on 2 October for the company holiday",
		Body:    "All offices close on **2 October**. Support keeps its usual on-call rota.",
		Created: at(5 * time.Hour), Received: at(5 * time.Hour),
	}
	corr := &news.Item{
		ID: news.IDAt(at(3*time.Hour), 9003), Category: "hr", Author: "Fatima Khan", Source: src, SourceCount: 9003,
		Title:      "Offices closed on 3 October for the company holiday",
		Body:       "All offices close on **3 October**, not 2 October as announced earlier. Support keeps its usual on-call rota.\n\nSorry for the confusion.",
		Supersedes: orig.ID, Created: at(3 * time.Hour), Received: at(3 * time.Hour),
	}
	policy := &news.Item{
		ID: news.IDAt(at(30*time.Minute), 9004), Category: "company", Author: "Fatima Khan", Source: src, SourceCount: 9004,
		Title:    "New information security policy: please confirm",
		Body:     "## What changes\n\nFrom **1 April** every laptop locks after *5 minutes* and USB sticks are blocked.\n\n- Read the policy on [the intranet](https://intranet.example.com/security)\n- Confirm below that you have read it\n\nQuestions: the IT Service Desk.",
		MustRead: true, Created: at(30 * time.Minute), Received: at(30 * time.Minute),
	}
	drill := &news.Item{
		ID: news.IDAt(at(4*time.Hour), 9110), Category: "company", Author: "Dana Whitfield", Source: self, SourceCount: 4,
		Title:    "Fire drill on Thursday at 10:00: please confirm",
		Body:     "On **Thursday at 10:00** the alarm sounds in every office. Leave by the nearest exit and meet at your assembly point.\n\nPlease confirm that you have read this.",
		MustRead: true, Created: at(4 * time.Hour), Received: at(4 * time.Hour),
	}
	items = append(items, urgent, orig, corr, policy, drill)
	for i, title := range []string{"Newsletter: what the sales teams learned this quarter", "Reminder: expense reports due Friday", "Volunteering day: sign-up sheet"} {
		created := at(time.Duration(26+i*30) * time.Hour)
		items = append(items, &news.Item{
			ID: news.IDAt(created, 9100+uint64(i)), Category: []string{"sales", "company", "hr"}[i], Author: "Dana Whitfield",
			Source: self, SourceCount: uint64(i + 1), Title: title,
			Body:    "Hello everyone,\n\nthis is a short note from the newsroom. Details are **below**.\n\n- one\n- two\n",
			Created: created, Received: created,
		})
	}
	return items
}

// demoUrgentMustRead is the urgent must-read item of the "urgent" mode.
func demoUrgentMustRead(now time.Time) *news.Item {
	at := now.Add(-5 * time.Minute)
	return &news.Item{
		ID: news.IDAt(at, 9005), Category: "company", Author: "Facilities", SourceCount: 9005,
		Source: uuid.MustParse("0191a000-0000-7000-8000-000000000001"),
		Title:  "Evacuation drill today at 14:00",
		Body:   "## Evacuation drill at 14:00\n\nWhen the alarm sounds, leave by the **nearest stairs**, not the lifts, and meet at the *car park north*.\n\n1. Take your badge, leave everything else.\n2. Floor wardens wear yellow vests: follow them.\n3. Wait for the all-clear before going back in.\n\nThe drill takes about 15 minutes.",
		Urgent: true, MustRead: true, Created: at, Received: at,
	}
}
