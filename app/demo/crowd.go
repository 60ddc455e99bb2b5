package demo

import (
	"context"
	"fmt"

	"newsdesk/app"
	"newsdesk/newsnet"
	"newsdesk/newsnet/node"
)

// CrowdSize is how many computers the demo mode "network" adds: a company
// of real size, for the census and the map of the tree (Admin → Network).
const CrowdSize = 2000

// crowd starts n servants without an application on the demo's network:
// the company's other computers, spread over six sites of a few hundred
// each. A few still run the pilot's release candidate, the headless ones are the sites'
// always-on machines, and a handful of laptops lost items while away, so
// the map has something to show. They relay and count as any servant
// does; they store nothing.
func (d *Demo) crowd(n int) error {
	seeds := make([]newsnet.ServantID, len(Seeds))
	for i, s := range Seeds {
		seeds[i] = newsnet.ServantID(s)
	}
	for i := range n {
		site, host := 1+i%6, i/6
		id := newsnet.ServantID(fmt.Sprintf("10.%d.%d.%d:7946", site, 20+host/200, 1+host%200))
		cfg := newsnet.DefaultConfig(id)
		cfg.Seeds = seeds
		cfg.Subscriptions = []string{"company"}
		if i%3 == 0 {
			cfg.Subscriptions = append(cfg.Subscriptions, "it")
		}
		cfg.ReportPeriod = reportPeriod
		cfg.Release, cfg.Kind = app.Release, newsnet.KindDesktop
		switch {
		case i%97 == 0:
			cfg.Kind = newsnet.KindHeadless
		case i%41 == 0:
			cfg.Release = "0.2.0-rc.2" // the pilot group's, not yet updated
		case i%300 == 7:
			cfg.Lost = uint64(2 + i%5)
		}
		if _, err := d.net.Start(context.Background(), node.Config{Advertise: id, Protocol: cfg}); err != nil {
			return fmt.Errorf("demo: computer %s: %w", id, err)
		}
	}
	return nil
}
