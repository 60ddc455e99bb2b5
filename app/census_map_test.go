package app

import (
	"slices"
	"testing"

	"newsdesk/newsnet"
)

// A partition of IPv4 addresses reads as their range; one that lies among
// IPv6 sites or host names reads as none. The servants named with lost
// items are found in the partition that holds them.
func TestMapPartAddressesAndLost(t *testing.T) {
	v := func(id string) uint64 { return newsnet.IDValue(newsnet.ServantID(id)) }
	p := MapPart{Root: "10.1.4.23:7400", Lo: v("10.1.0.0:0"), Hi: v("10.1.255.255:65535")}
	if got := p.Addresses(); got != "10.1.0.0 – 10.1.255.255" {
		t.Errorf("addresses %q", got)
	}
	if got := (MapPart{Lo: v("[2001:db8::1]:7400"), Hi: v("[2001:db8::9]:7400")}).Addresses(); got != "" {
		t.Errorf("IPv6 partition reads %q", got)
	}
	c := Census{WorstLost: []LostServant{{"10.1.9.9:7400", 4}, {"10.2.0.1:7400", 2}, {"laptop-7:7400", 1}}}
	if got := c.LostIn(p); !slices.Equal(got, []LostServant{{"10.1.9.9:7400", 4}}) {
		t.Errorf("lost in the partition: %v", got)
	}
}
