package app

import (
	"fmt"
	"testing"
	"time"

	"newsdesk/trust"
)

// Two admins publish version 2 at the same moment (here: one while its
// servant is not linked, so neither sees the other's first), one renaming
// the network, the other adding a publisher: every servant ends with one
// definition holding both changes (the loser's edit applied again as
// version 3), and no servant is left on the losing version.
func TestRivalDefinitionsConverge(t *testing.T) {
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
	a := openApp(t, Options{DataDir: aDir, Start: true, Network: v1, Archive: true})
	b := openApp(t, Options{DataDir: bDir, Network: v1, Seeds: []string{a.Addr()}})
	c := openApp(t, Options{Start: true, Network: v1, Seeds: []string{a.Addr()}})
	c.waitRouted(t, NetworkCategory)

	renamed := v1.Network.Clone()
	renamed.Version = 2
	renamed.Name = "Acme Corp"
	va, err := aKey.SignNetwork(renamed)
	if err != nil {
		t.Fatal(err)
	}
	newcomer, _ := trust.GenerateIdentity()
	added := v1.Network.Clone()
	added.Version = 2
	added.Publishers = append(added.Publishers, trust.Publisher{Name: "Newcomer", Key: newcomer.Public})
	vb, err := bKey.SignNetwork(added)
	if err != nil {
		t.Fatal(err)
	}
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
			sn := s.Network()
			_, hasNewcomer := sn.Publisher(newcomer.Public)
			if sn.Version != 3 || sn.Name != "Acme Corp" || !hasNewcomer {
				return fmt.Errorf("%s holds version %d %q, newcomer %v", s.Addr(), sn.Version, sn.Name, hasNewcomer)
			}
		}
		if !sameDefinition(a.Network(), b.Network()) || !sameDefinition(a.Network(), c.Network()) {
			return fmt.Errorf("version 3 differs between servants")
		}
		return nil
	})
}
