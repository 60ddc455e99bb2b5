package app

import (
	"fmt"
	"testing"
	"time"

	"newsdesk/network"
	"newsdesk/trust"
)

// A definition too large for one item (a thousand publishers) spreads in
// parts to every servant, also to one that joins later.
func TestLargeNetworkDefinitionSpreads(t *testing.T) {
	simTest(t, func(t *testing.T, sn *simNet) {
		admin, _ := trust.GenerateIdentity()
		v1, err := trust.NewNetwork("Acme", admin, nil, true)
		if err != nil {
			t.Fatal(err)
		}
		a := sn.open(t, Options{Start: true, Network: v1, Archive: true})
		b := sn.open(t, Options{Start: true, Network: v1, Seeds: []string{a.Addr()}})
		b.waitRouted(t, network.NetworkCategory)

		n := v1.Network.Clone()
		n.Version = 2
		for i := range 1000 {
			k, _ := trust.GenerateIdentity()
			n.Publishers = append(n.Publishers, trust.Publisher{Name: fmt.Sprintf("Publisher %d of the company newsroom", i), Key: k.Public, Categories: []string{"it", "hr"}})
		}
		v2, err := admin.SignNetwork(n)
		if err != nil {
			t.Fatal(err)
		}
		if doc, _ := v2.Marshal(); len(doc) <= 64<<10 {
			t.Fatalf("the definition has %d bytes: not large enough for the test", len(doc))
		}
		if err := b.PublishNetwork(v2); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "v2 on a", func() error {
			if v := a.Network().Version; v != 2 {
				return fmt.Errorf("a holds version %d", v)
			}
			return nil
		})
		if got := len(a.Network().Publishers); got != len(v2.Publishers) {
			t.Errorf("a's definition lists %d publishers", got)
		}
		c := sn.open(t, Options{Start: true, Network: v1, Seeds: []string{a.Addr()}})
		waitForUpTo(t, 20*time.Second, "v2 on the late joiner", func() error {
			if v := c.Network().Version; v != 2 {
				return fmt.Errorf("c holds version %d", v)
			}
			return nil
		})
	})
}
