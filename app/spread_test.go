package app

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"newsdesk/network"
	"newsdesk/news"
	"newsdesk/newsnet"
	"newsdesk/trust"
)

// A new definition signed by the admin, announced by any member, reaches
// every servant, including one that joins later (through catch-up); one
// signed by a non-admin is dropped at the first servant and changes nothing.
func TestNetworkDefinitionSpreads(t *testing.T) {
	simTest(t, func(t *testing.T, sn *simNet) {
		admin, _ := trust.GenerateIdentity()
		stranger, _ := trust.GenerateIdentity()
		v1, err := trust.NewNetwork("Acme", admin, nil, true)
		if err != nil {
			t.Fatal(err)
		}
		a := sn.open(t, Options{Start: true, Network: v1, Archive: true})
		b := sn.open(t, Options{Start: true, Network: v1, Seeds: []string{a.Addr()}})
		waitFor(t, "b to route the network group to a", func() error {
			for _, l := range b.currentNode().Status().Links {
				if l.Up && l.Received.Matches(network.NetworkCategory) {
					return nil
				}
			}
			return fmt.Errorf("b's links %+v", b.currentNode().Status().Links)
		})
		if slices.Contains(b.Status().Subscriptions, network.NetworkCategory) {
			t.Errorf("the system group shows in the subscriptions: %v", b.Status().Subscriptions)
		}

		n := v1.Network.Clone()
		n.Version = 2
		n.Name = "Acme Corp"
		v2, err := admin.SignNetwork(n)
		if err != nil {
			t.Fatal(err)
		}
		if err := b.PublishNetwork(v2); err != nil { // b is no admin: the signature is the authority
			t.Fatal(err)
		}
		waitFor(t, "v2 on a", func() error {
			if v := a.Network().Version; v != 2 {
				return fmt.Errorf("a holds version %d", v)
			}
			return nil
		})
		if a.Network().Name != "Acme Corp" || b.Network().Version != 2 {
			t.Errorf("a holds %q, b version %d", a.Network().Name, b.Network().Version)
		}
		if u, _ := a.UnreadCounts(); len(u) != 0 {
			t.Errorf("unread counts %v: the definition shows as news", u)
		}

		// A servant that was not there learns it by catch-up.
		c := sn.open(t, Options{Start: true, Network: v1, Seeds: []string{a.Addr()}})
		waitForUpTo(t, 20*time.Second, "v2 on the late joiner", func() error {
			if v := c.Network().Version; v != 2 {
				return fmt.Errorf("c holds version %d", v)
			}
			return nil
		})
		// The stored definition survives a restart of the store (checked by
		// reading it back).
		if got, err := network.StoredDefinition(c.store); err != nil || got.Version != 2 {
			t.Errorf("c's stored definition: %v, %v", got, err)
		}

		// A version 3 signed by a stranger, pushed through b's node.
		n3 := v2.Network.Clone()
		n3.Version = 3
		v3, err := stranger.SignNetwork(n3)
		if err != nil {
			t.Fatal(err)
		}
		doc, _ := v3.Marshal()
		it, err := news.NewItem(network.NetworkCategory, "forged", string(doc), "", b.Source(), time.Now())
		if err != nil {
			t.Fatal(err)
		}
		count, _ := b.store.NextSourceCount(b.Source())
		it.SourceCount = count
		trust.SignItem(b.Identity(), it)
		m, err := multicastOf(it)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := b.currentNode().PublishBatch(context.Background(), []*newsnet.Multicast{m}); err != nil {
			t.Fatal(err)
		}
		first := a
		if up := string(b.Status().Up); up == c.Addr() {
			first = c
		}
		waitFor(t, "the forged definition rejected", func() error {
			if r := first.ServantStatus().Rejected["notAuthorized"]; r != 1 {
				return fmt.Errorf("%s rejected %v", first.Addr(), first.ServantStatus().Rejected)
			}
			return nil
		})
		for _, s := range []*App{a, b, c} {
			if v := s.Network().Version; v != 2 {
				t.Errorf("%s holds version %d after the forgery", s.Addr(), v)
			}
		}
	})
}

// The wizard's import: a fresh installation takes another network's
// definition and links up with its members; once set up, it refuses one.
func TestImportNetwork(t *testing.T) {
	simTest(t, func(t *testing.T, sn *simNet) {
		member := sn.open(t, Options{Start: true, Subscriptions: []string{"it"}}) // the test network
		a, err := Open(context.Background(), sn.options(Options{DataDir: t.TempDir(), Listen: "127.0.0.1:0", Start: true}))
		if err != nil {
			t.Fatal(err)
		}
		defer a.Close()
		if err := a.ImportNetwork(testNetwork(t)); err != nil {
			t.Fatal(err)
		}
		if a.Network().ID != testNetwork(t).ID || a.IsAdmin() {
			t.Fatalf("after the import: network %s, admin %v", a.Network().ID, a.IsAdmin())
		}
		if err := a.Setup(Setup{DisplayName: "Ann", Seeds: []string{member.Addr()}}); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "a to attach to the member", func() error {
			if up := string(a.Status().Up); up != member.Addr() {
				return fmt.Errorf("a's up %q", up)
			}
			return nil
		})
		other, _ := trust.GenerateIdentity()
		foreign, _ := trust.NewNetwork("Other", other, nil, true)
		if err := a.ImportNetwork(foreign); err == nil {
			t.Error("import of another network after setup succeeded")
		}
	})
}

// The wizard's new network: this computer becomes the seed of its own
// network's definition too.
func TestSetupNewNetworkSeedsDefinition(t *testing.T) {
	simTest(t, func(t *testing.T, sn *simNet) {
		a, err := Open(context.Background(), sn.options(Options{DataDir: t.TempDir(), Listen: "127.0.0.1:0"}))
		if err != nil {
			t.Fatal(err)
		}
		defer a.Close()
		if err := a.Setup(Setup{DisplayName: "Ann", NewNetwork: true}); err != nil {
			t.Fatal(err)
		}
		def := a.Network()
		if !slices.Equal(def.Seeds, []string{a.Addr()}) || def.Version != 2 || trust.VerifySelfSigned(def) != nil {
			t.Errorf("definition after setup: version %d, seeds %v", def.Version, def.Seeds)
		}
		if u, _ := a.UnreadCounts(); len(u) != 0 {
			t.Errorf("unread %v", u)
		}
		if posts, _, _ := a.MyPosts(10, ""); len(posts) != 0 {
			t.Errorf("my posts list the definition: %d", len(posts))
		}
	})
}

// A servant that was offline while the admins changed and then published
// again (version 2 adds an admin, who signs version 3) receives both by
// catch-up, however long ago they were published (the system group is
// durable: the window here is a millisecond), and adopts version 3 even
// when it arrives before version 2.
func TestNetworkDefinitionChainReachesOfflineServant(t *testing.T) {
	simTest(t, func(t *testing.T, sn *simNet) {
		admin, _ := trust.GenerateIdentity()
		v1, err := trust.NewNetwork("Acme", admin, nil, true)
		if err != nil {
			t.Fatal(err)
		}
		shortWindow := func(c *newsnet.Config) { c.CatchUpWindow = time.Millisecond }
		a := sn.open(t, Options{Start: true, Network: v1, Archive: true})
		b := sn.open(t, Options{Start: true, Network: v1, Seeds: []string{a.Addr()}})
		offline := sn.open(t, Options{Network: v1, Seeds: []string{a.Addr()}, Tune: shortWindow})
		b.waitRouted(t, network.NetworkCategory)

		n2 := v1.Network.Clone()
		n2.Version = 2
		n2.Admins = append(n2.Admins, b.Identity().Public)
		v2, err := admin.SignNetwork(n2)
		if err != nil {
			t.Fatal(err)
		}
		if err := b.PublishNetwork(v2); err != nil {
			t.Fatal(err)
		}
		n3 := v2.Network.Clone()
		n3.Version = 3
		n3.Name = "Acme by b"
		v3, err := b.Identity().SignNetwork(n3)
		if err != nil {
			t.Fatal(err)
		}
		if err := b.PublishNetwork(v3); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "v3 on the archive", func() error {
			if v := a.Network().Version; v != 3 {
				return fmt.Errorf("a holds version %d", v)
			}
			return nil
		})
		time.Sleep(5 * time.Millisecond) // both older than the window now

		if err := offline.Start(); err != nil {
			t.Fatal(err)
		}
		waitForUpTo(t, 20*time.Second, "v3 on the servant that was offline", func() error {
			if v := offline.Network().Version; v != 3 {
				return fmt.Errorf("it holds version %d", v)
			}
			return nil
		})

		// The order that needs holding, made certain: version 3 first.
		q := sn.open(t, Options{Network: v1})
		carrier := func(sn *trust.SignedNetwork) *newsnet.Multicast {
			doc, _ := sn.Marshal()
			src, _ := trust.NewSource(admin.Public)
			it, err := news.NewItem(network.NetworkCategory, "definition", string(doc), "", src, time.Now())
			if err != nil {
				t.Fatal(err)
			}
			it.SourceCount = 1
			trust.SignItem(admin, it)
			m, err := multicastOf(it)
			if err != nil {
				t.Fatal(err)
			}
			return m
		}
		m3, m2 := carrier(v3), carrier(v2)
		if r := q.net.Verify(m3); r != string(trust.AheadOfChain) {
			t.Fatalf("version 3 before version 2: verify = %q, want %q", r, trust.AheadOfChain)
		}
		if r := q.net.Verify(m2); r != "" {
			t.Fatalf("version 2: verify = %q", r)
		}
		q.inbox.deliver(m2, time.Now())
		q.inbox.flush()
		if v := q.Network().Version; v != 3 {
			t.Fatalf("after version 2 arrived, q holds version %d, want 3", v)
		}
		if stored, err := network.StoredDefinition(q.store); err != nil || stored.Version != 3 {
			t.Errorf("q's stored definition: %v, %v", stored, err)
		}
		if _, err := q.store.Get(uuid.UUID(m3.ID)); err != nil {
			t.Errorf("the held version's carrier is not stored to answer others: %v", err)
		}
	})
}
