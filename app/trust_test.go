package app

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"newsdesk/app/apptest"
	"newsdesk/news"
	"newsdesk/newsnet"
	"newsdesk/trust"
)

// A key file that others may read refuses to start, with a clear error.
func TestIdentityKeyFileRefusedWhenReadable(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no permission bits on Windows")
	}
	dir := t.TempDir()
	a, err := Open(context.Background(), Options{DataDir: dir, Listen: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	key := a.Identity().Public
	a.Close()
	st, err := os.Stat(filepath.Join(dir, trust.IdentityFile))
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("key file: %v, mode %v; want 0600", err, st.Mode().Perm())
	}
	if err := os.Chmod(filepath.Join(dir, trust.IdentityFile), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Open(context.Background(), Options{DataDir: dir, Listen: "127.0.0.1:0"})
	if err == nil || !strings.Contains(err.Error(), "readable by others") || !strings.Contains(err.Error(), "chmod 600") {
		t.Fatalf("Open with a world-readable key = %v, want a refusal naming the mode", err)
	}
	// serve says the same and does not start: cli's TestServeRefusesReadableKey.
	os.Chmod(filepath.Join(dir, trust.IdentityFile), 0o600)
	a, err = Open(context.Background(), Options{DataDir: dir, Listen: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if !a.Identity().Public.Equal(key) {
		t.Error("the key changed across restarts")
	}
}

// A fresh data directory without a definition starts a one-computer network
// whose admin (and publisher) is this installation; it keeps it across
// restarts and refuses a definition of another network.
func TestFreshDataDirCreatesOwnNetwork(t *testing.T) {
	dir := t.TempDir()
	a, err := Open(context.Background(), Options{DataDir: dir, Listen: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	sn := a.Network()
	if !a.IsAdmin() || a.MayPublish("it") != nil || sn.OpenPublishing || trust.VerifySelfSigned(sn) != nil {
		t.Errorf("own network %q: admin %v, may publish: %v", sn.Name, a.IsAdmin(), a.MayPublish("it"))
	}
	a.Close()
	a, err = Open(context.Background(), Options{DataDir: dir, Listen: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	if a.Network().ID != sn.ID {
		t.Errorf("network after restart %s, want %s", a.Network().ID, sn.ID)
	}
	a.Close()
	_, err = Open(context.Background(), Options{DataDir: dir, Listen: "127.0.0.1:0", Network: testNetwork(t)})
	if !errors.Is(err, trust.ErrOtherNetwork) {
		t.Errorf("importing another network's definition = %v, want ErrOtherNetwork", err)
	}
}

// Forged, tampered, unsigned, mismatched and untrusted items are dropped
// at the first servant, counted per reason, and never stored by a
// subscriber; the publisher's own items still arrive.
func TestForgedItemsRejected(t *testing.T) {
	aDir := t.TempDir()
	_, sn, _ := apptest.PublishersNetwork(t, aDir)
	a := openApp(t, Options{DataDir: aDir, Start: true, Network: sn})
	b := openApp(t, Options{Start: true, Network: sn, Seeds: []string{a.Addr()}, Subscriptions: []string{"it"}})
	// c advertises an address where nothing listens, so that nobody can
	// dial it: it is a leaf, below a or b, and its up-servant is the one
	// first servant every item of c's reaches. (As a member, c could have
	// b below it and a above, both first servants while the tree forms.)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := ln.Addr().String()
	ln.Close()
	c := openApp(t, Options{Start: true, Network: sn, Seeds: []string{a.Addr()}, Advertise: dead})
	waitFor(t, "c, a leaf, to learn of a subscriber of it", func() error {
		if st := c.Status(); !st.Leaf || st.Up == "" {
			return fmt.Errorf("c: leaf %v up %q", st.Leaf, st.Up)
		}
		for _, l := range c.Status().Links {
			if newsnet.CategorySet(l.Received).Matches("it") {
				return nil
			}
		}
		return fmt.Errorf("c's links %+v", c.Status().Links)
	})
	if _, err := c.Publish(Draft{Category: "it", Title: "Office closed"}); !errors.As(err, new(*NotAllowedError)) {
		t.Fatalf("Publish by a non-publisher = %v, want a NotAllowedError", err)
	}

	// Items c sends through its node directly, with the counts its core
	// gives them (1, 2, …).
	aKey := a.Identity()
	mk := func(count uint64, title string) *news.Item {
		it, err := news.NewItem("it", title, "", "Mallory", c.Source(), time.Now())
		if err != nil {
			t.Fatal(err)
		}
		it.SourceCount = count
		return it
	}
	var forged []*news.Item
	unsigned := mk(1, "Unsigned")
	forged = append(forged, unsigned)
	untrusted := mk(2, "Signed by c")
	trust.SignItem(c.Identity(), untrusted)
	forged = append(forged, untrusted)
	tampered := mk(3, "Signed by a")
	trust.SignItem(aKey, tampered)
	tampered.Title = "Tampered"
	forged = append(forged, tampered)
	mismatched := mk(3, "Count 3") // the core renumbers it to 4
	trust.SignItem(aKey, mismatched)
	forged = append(forged, mismatched)
	n := c.currentNode()
	for _, it := range forged {
		m, err := multicastOf(it)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := n.PublishBatch(context.Background(), []*newsnet.Multicast{m}); err != nil {
			t.Fatal(err)
		}
	}
	// Each forged item is dropped by the first servant it reaches, c's
	// up-servant, and so never travels past it: each is rejected exactly
	// once in all.
	want := map[string]uint64{"unsigned": 1, "untrustedKey": 1, "badSignature": 1, "mismatch": 1}
	waitFor(t, "the rejections at the first servant", func() error {
		ra, rb := a.ServantStatus().Rejected, b.ServantStatus().Rejected
		for r, k := range want {
			if ra[r]+rb[r] != k {
				return fmt.Errorf("rejected: a %v, b %v; want %v in all", ra, rb, want)
			}
		}
		return nil
	})
	r, err := a.Publish(Draft{Category: "it", Title: "Genuine"})
	if err != nil {
		t.Fatal(err)
	}
	waitEvent(t, b, "the genuine item on b", itemsEvent(ItemsArrived, r.ID))
	for _, it := range forged {
		if _, err := b.Item(it.ID); err == nil {
			t.Errorf("b stored the forged item %q", it.Title)
		}
	}
	for _, s := range []*App{a, b} {
		for r, n := range s.ServantStatus().Rejected {
			if n != want[r] && n != 0 {
				t.Errorf("%s rejected %d %s: a forged item was checked twice", s.Addr(), n, r)
			}
		}
	}
}

// Issue 11, defect 1: a publisher labels an item with another publisher's
// source and a huge count, signed with its own key. The first servant drops
// it as foreignSource, so the victim's stream is not poisoned: its later
// items still arrive, also after the servants restart.
func TestForeignSourceRejected(t *testing.T) {
	aDir, cDir := t.TempDir(), t.TempDir()
	victim, err := trust.LoadOrCreateIdentity(aDir)
	if err != nil {
		t.Fatal(err)
	}
	mallory, err := trust.LoadOrCreateIdentity(cDir)
	if err != nil {
		t.Fatal(err)
	}
	admin, _ := trust.GenerateIdentity()
	v1, err := trust.NewNetwork("Acme", admin, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	n := v1.Network.Clone()
	n.Publishers = append(n.Publishers,
		trust.Publisher{Name: "Newsroom", Key: victim.Public, Categories: []string{"it"}},
		trust.Publisher{Name: "Mallory", Key: mallory.Public, Categories: []string{"it"}})
	sn, err := admin.SignNetwork(n)
	if err != nil {
		t.Fatal(err)
	}
	a := openApp(t, Options{DataDir: aDir, Start: true, Network: sn})
	bDir := t.TempDir()
	bOpts := Options{DataDir: bDir, Listen: "127.0.0.1:0", Start: true, Network: sn, Seeds: []string{a.Addr()}, Subscriptions: []string{"it"}}
	b, err := Open(context.Background(), bOpts)
	if err != nil {
		t.Fatal(err)
	}
	// b attaches before c joins, so b holds its slot of a's partition: c
	// sits beside b or below it, never above it. A Mallory above b could
	// hold back the victim's items, which no servant below it can prevent.
	waitFor(t, "b to attach", func() error {
		if !b.Status().Connected {
			return errors.New("not attached")
		}
		return nil
	})
	// Mallory's servant speaks as the victim's source, so its core keeps
	// the forged header (source, count) as given.
	c := openApp(t, Options{DataDir: cDir, Start: true, Network: sn, Seeds: []string{a.Addr()},
		Tune: func(cfg *newsnet.Config) { cfg.Source = a.Source().String() }})
	// b sits below a; c below a or below b: the three are on 127.0.0.1 and
	// the ports they get decide which.
	waitFor(t, "c to learn of a subscriber of it", func() error {
		for _, l := range c.Status().Links {
			if newsnet.CategorySet(l.Received).Matches("it") {
				return nil
			}
		}
		return fmt.Errorf("c's links %+v", c.Status().Links)
	})
	first, err := a.Publish(Draft{Category: "it", Title: "Before"})
	if err != nil {
		t.Fatal(err)
	}
	waitEvent(t, b, "the victim's first item on b", itemsEvent(ItemsArrived, first.ID))

	forged, err := news.NewItem("it", "Forged", "", "Mallory", a.Source(), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	forged.SourceCount = 1_000_000_000_000
	if err := trust.SignItem(mallory, forged); err != nil {
		t.Fatal(err)
	}
	m, err := multicastOf(forged)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.currentNode().PublishBatch(context.Background(), []*newsnet.Multicast{m}); err != nil {
		t.Fatal(err)
	}
	// The first servant it reaches drops it: c's up-servant, a or b.
	waitFor(t, "the forged item rejected at the first servant", func() error {
		if got := a.ServantStatus().Rejected["foreignSource"] + b.ServantStatus().Rejected["foreignSource"]; got != 1 {
			return fmt.Errorf("rejected: a %v, b %v", a.ServantStatus().Rejected, b.ServantStatus().Rejected)
		}
		return nil
	})
	after, err := a.Publish(Draft{Category: "it", Title: "After"})
	if err != nil {
		t.Fatal(err)
	}
	waitEvent(t, b, "the victim's next item on b", itemsEvent(ItemsArrived, after.ID))
	if _, err := b.Item(forged.ID); err == nil {
		t.Error("b stored the forged item")
	}

	// After a restart of the subscriber the stream is still the victim's.
	// Mallory leaves first: its servant claims the victim's source, so a
	// subscriber that rejoined below it would not get the victim's items.
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	b2, err := Open(context.Background(), bOpts)
	if err != nil {
		t.Fatal(err)
	}
	defer b2.Close()
	waitFor(t, "b to attach again", func() error {
		if !b2.Status().Connected {
			return errors.New("not attached")
		}
		return nil
	})
	again, err := a.Publish(Draft{Category: "it", Title: "After the restart"})
	if err != nil {
		t.Fatal(err)
	}
	waitEvent(t, b2, "the victim's item after b's restart", itemsEvent(ItemsArrived, again.ID))
	for _, id := range []uuid.UUID{first.ID, after.ID, again.ID} {
		if _, err := b2.Item(id); err != nil {
			t.Errorf("b lost the victim's item %s: %v", id, err)
		}
	}
}

// The Verify function itself, reason by reason, including corrections.
func TestVerifyReasons(t *testing.T) {
	aDir := t.TempDir()
	_, sn, _ := apptest.PublishersNetwork(t, aDir)
	a := openApp(t, Options{DataDir: aDir, Network: sn})
	other, _ := trust.GenerateIdentity()
	item := func(sign *trust.Identity, supersedes ...*news.Item) *news.Item {
		it, _ := news.NewItem("it", "t", "", "x", a.Source(), time.Now())
		it.SourceCount = 7
		if len(supersedes) > 0 {
			it.Supersedes = supersedes[0].ID
		}
		if sign != nil {
			trust.SignItem(sign, it)
		}
		return it
	}
	check := func(name string, it *news.Item, mutate func(*newsnet.Multicast), want string) {
		t.Helper()
		m, err := multicastOf(it)
		if err != nil {
			t.Fatal(err)
		}
		if mutate != nil {
			mutate(m)
		}
		if got := a.net.Verify(m); got != want {
			t.Errorf("%s: verify = %q, want %q", name, got, want)
		}
	}
	good := item(a.Identity())
	check("good", good, nil, "")
	check("unsigned", item(nil), nil, "unsigned")
	check("another key labelling the item as ours", item(other), nil, "foreignSource")
	otherSource, _ := trust.NewSource(other.Public)
	own := item(nil)
	own.Source = otherSource
	trust.SignItem(other, own)
	check("another key, its own source", own, func(m *newsnet.Multicast) { m.Source = otherSource.String() }, "untrustedKey")
	check("category swapped", good, func(m *newsnet.Multicast) { m.Category = "hr" }, "mismatch")
	check("count changed", good, func(m *newsnet.Multicast) { m.Count++ }, "mismatch")
	check("garbage", good, func(m *newsnet.Multicast) { m.Payload = []byte{1, 2, 3} }, "invalid")
	// A correction of a stored item by another key: notAuthorized once the
	// original is here (the other key is a publisher under open publishing).
	if err := a.store.Put(context.Background(), good); err != nil {
		t.Fatal(err)
	}
	check("correction by the publisher", item(a.Identity(), good), nil, "")
	check("correction by a stranger", item(other, good), nil, "foreignSource")
}
