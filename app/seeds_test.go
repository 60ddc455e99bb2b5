package app

import (
	"fmt"
	"sync/atomic"
	"testing"

	"newsdesk/newsnet/node"
)

// New seeds reach the running servant through a core event, not a
// restart: a servant still connecting to a seed that is down joins the new
// one, an attached servant whose place the new list allows keeps its up
// and its links, a lone vertex given a seed joins it, and the first-run
// wizard's join applies its seeds to the running servant too. No servant
// starts a second time.
func TestSeedsChangeWithoutRestart(t *testing.T) {
	simTest(t, func(t *testing.T, sn *simNet) {
		var starts atomic.Int32
		counted := func(cfg node.Config) (Servant, error) {
			starts.Add(1)
			return sn.start(cfg)
		}
		a := sn.open(t, Options{Start: true, StartServant: counted})

		// Connecting to a seed that is down: the new list is tried at once.
		b := sn.open(t, Options{Start: true, Seeds: []string{downAddr}, StartServant: counted})
		bNode := b.currentNode()
		if err := b.SetSeeds([]string{a.Addr()}); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "b attached under its new seed", func() error {
			if st := b.Status(); st.Role != RoleAttached || string(st.Up) != a.Addr() {
				return fmt.Errorf("role %s under %q", st.Role, st.Up)
			}
			return nil
		})
		if b.currentNode() != bNode {
			t.Error("b's servant was replaced")
		}

		// Attached: a list that still allows its place changes nothing
		// in the tree.
		if err := b.SetSeeds([]string{downAddr, a.Addr()}); err != nil {
			t.Fatal(err)
		}
		settle(t)
		if st := b.Status(); st.Role != RoleAttached || string(st.Up) != a.Addr() {
			t.Errorf("after a second change: role %s under %q", st.Role, st.Up)
		}
		if got := b.Seeds(); len(got) != 2 || got[1] != a.Addr() {
			t.Errorf("stored seeds %v", got)
		}

		// A lone vertex (a wizard run before setup) joins the network it
		// is given.
		c := sn.open(t, Options{Start: true, StartServant: counted})
		cNode := c.currentNode()
		if err := c.Setup(Setup{DisplayName: "Cy", Seeds: []string{a.Addr()}}); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "c attached under a", func() error {
			if st := c.Status(); st.Role != RoleAttached || string(st.Up) != a.Addr() {
				return fmt.Errorf("role %s under %q", st.Role, st.Up)
			}
			return nil
		})
		if c.currentNode() != cNode {
			t.Error("c's servant was replaced")
		}
		if n := starts.Load(); n != 3 {
			t.Errorf("%d servant starts for three apps, want 3", n)
		}
	})
}
