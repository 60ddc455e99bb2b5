// Package demo is the data set of the demo mode (NEWSDESK_DEMO): two
// weeks of a company's news in several categories, an urgent item, a
// correction, must-read items and a few posts of the reader's own.
package demo

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/google/uuid"

	"newsdesk/categories"
	"newsdesk/news"
)

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

// LiveItem is the n-th item of source src, made at at: a random
// category, title, author and body of the data set, drawn from rng.
func LiveItem(rng *rand.Rand, at time.Time, n uint64, src uuid.UUID) *news.Item {
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

// Items is the fixed data set: about three hundred items over two
// weeks, an urgent outage notice, a correction, and a few of the user's own
// posts.
func Items(now time.Time, self uuid.UUID) []*news.Item {
	rng := rand.New(rand.NewPCG(1, 2))
	src := uuid.MustParse("0191a000-0000-7000-8000-000000000001")
	var items []*news.Item
	t := now.Add(-14 * 24 * time.Hour)
	for n := uint64(1); t.Before(now.Add(-50 * time.Minute)); n++ {
		items = append(items, LiveItem(rng, t, n, src))
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
	office := &news.Item{
		ID: news.IDAt(at(2*time.Hour), 9006), Category: "company", Author: "Facilities", Source: src, SourceCount: 9006,
		Title: "Our new office in Lisbon opens on Monday", Body: officeBody(),
		Created: at(2 * time.Hour), Received: at(2 * time.Hour),
	}
	items = append(items, urgent, orig, corr, policy, drill, office)
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

// UrgentMustRead is the urgent must-read item of the "urgent" mode, as
// it came five minutes before now.
func UrgentMustRead(now time.Time) *news.Item {
	at := now.Add(-5 * time.Minute)
	return &news.Item{
		ID: news.IDAt(at, 9005), Category: "company", Author: "Facilities", SourceCount: 9005,
		Source: uuid.MustParse("0191a000-0000-7000-8000-000000000001"),
		Title:  "Evacuation drill today at 14:00",
		Body:   "## Evacuation drill at 14:00\n\nWhen the alarm sounds, leave by the **nearest stairs**, not the lifts, and meet at the *car park north*.\n\n1. Take your badge, leave everything else.\n2. Floor wardens wear yellow vests: follow them.\n3. Wait for the all-clear before going back in.\n\nThe drill takes about 15 minutes.",
		Urgent: true, MustRead: true, Created: at, Received: at,
	}
}
