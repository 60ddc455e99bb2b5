package app

import (
	"fmt"
	"testing"
	"time"

	"newsdesk/network"
	"newsdesk/trust"
)

// Two admins publish version 2 at the same moment (here: one while its
// servant is not linked, so neither sees the other's first): every servant
// ends with one definition holding both changes (the loser's edit applied
// again as version 3, merged like an editor's save: per field, per
// publisher), and no servant is left on the losing version.
func TestRivalDefinitionsConverge(t *testing.T) {
	newcomer, _ := trust.GenerateIdentity()
	other, _ := trust.GenerateIdentity()
	has := func(sn *trust.SignedNetwork, k *trust.Identity) bool { _, ok := sn.Publisher(k.Public); return ok }
	for _, c := range []struct {
		name  string
		a, b  func(*trust.Network)
		check func(*trust.SignedNetwork) error
	}{
		{
			name: "one renames, the other adds a publisher",
			a:    func(n *trust.Network) { n.Name = "Acme Corp" },
			b: func(n *trust.Network) {
				n.Publishers = append(n.Publishers, trust.Publisher{Name: "Newcomer", Key: newcomer.Public})
			},
			check: func(sn *trust.SignedNetwork) error {
				if sn.Name != "Acme Corp" || !has(sn, newcomer) {
					return fmt.Errorf("%q, newcomer %v", sn.Name, has(sn, newcomer))
				}
				return nil
			},
		},
		{
			// Both change the publishers, each adding one: the rival
			// resolution merges per publisher, as the editors do, so
			// neither addition is lost.
			name: "each adds a publisher",
			a: func(n *trust.Network) {
				n.Publishers = append(n.Publishers, trust.Publisher{Name: "Other", Key: other.Public})
			},
			b: func(n *trust.Network) {
				n.Publishers = append(n.Publishers, trust.Publisher{Name: "Newcomer", Key: newcomer.Public})
			},
			check: func(sn *trust.SignedNetwork) error {
				if !has(sn, newcomer) || !has(sn, other) {
					return fmt.Errorf("newcomer %v, other %v", has(sn, newcomer), has(sn, other))
				}
				return nil
			},
		},
	} {
		t.Run(c.name, func(t *testing.T) { rivalsConverge(t, c.a, c.b, c.check) })
	}
}

// rivalsConverge has admins a and b publish rival versions 2 with the
// edits editA and editB, and waits until every servant holds one version
// 3 that passes check.
func rivalsConverge(t *testing.T, editA, editB func(*trust.Network), check func(*trust.SignedNetwork) error) {
	simTest(t, func(t *testing.T, sn *simNet) {
		aDir, bDir := t.TempDir(), t.TempDir()
		aKey, err := trust.LoadOrCreateIdentity(aDir)
		if err != nil {
			t.Fatal(err)
		}
		bKey, err := trust.LoadOrCreateIdentity(bDir)
		if err != nil {
			t.Fatal(err)
		}
		v1, err := trust.NewNetwork("Acme", aKey, nil, true)
		if err != nil {
			t.Fatal(err)
		}
		n := v1.Network.Clone()
		n.Admins = append(n.Admins, bKey.Public)
		if v1, err = aKey.SignNetwork(n); err != nil {
			t.Fatal(err)
		}
		a := sn.open(t, Options{DataDir: aDir, Start: true, Network: v1, Archive: true})
		b := sn.open(t, Options{DataDir: bDir, Network: v1, Seeds: []string{a.Addr()}})
		c := sn.open(t, Options{Start: true, Network: v1, Seeds: []string{a.Addr()}})
		c.waitRouted(t, network.NetworkCategory)

		sign := func(id *trust.Identity, edit func(*trust.Network)) *trust.SignedNetwork {
			n := v1.Network.Clone()
			n.Version = 2
			edit(n)
			def, err := id.SignNetwork(n)
			if err != nil {
				t.Fatal(err)
			}
			return def
		}
		va, vb := sign(aKey, editA), sign(bKey, editB)
		if err := b.PublishNetwork(vb); err != nil { // queued: b is not running
			t.Fatal(err)
		}
		if err := a.PublishNetwork(va); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "version 2 on c", func() error {
			if v := c.Network().Version; v != 2 {
				return fmt.Errorf("c holds version %d", v)
			}
			return nil
		})
		if err := b.Start(); err != nil {
			t.Fatal(err)
		}

		waitForUpTo(t, 20*time.Second, "one definition with both edits everywhere", func() error {
			for _, s := range []*App{a, b, c} {
				def := s.Network()
				if def.Version != 3 {
					return fmt.Errorf("%s holds version %d", s.Addr(), def.Version)
				}
				if err := check(def); err != nil {
					return fmt.Errorf("%s: %v", s.Addr(), err)
				}
			}
			if !network.SameDefinition(a.Network(), b.Network()) || !network.SameDefinition(a.Network(), c.Network()) {
				return fmt.Errorf("version 3 differs between servants")
			}
			return nil
		})
	})
}
