package app

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

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
	// serve says the same and does not start.
	err = ServeWithReady(context.Background(), []string{"--listen", "127.0.0.1:0", "--data", dir}, io.Discard, io.Discard, nil)
	if err == nil || !strings.Contains(err.Error(), "readable by others") {
		t.Fatalf("serve with a world-readable key = %v", err)
	}
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

// `network init` writes an owner-only definition that verifies and the
// admin key beside it; `key` prints an installation's key.
func TestNetworkInitAndKey(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "acme.json")
	var stdout bytes.Buffer
	err := NetworkCommand([]string{"init", "--name", "Acme", "--out", out, "--seeds", "10.0.0.1:7400,10.0.0.2:7400", "--open-publishing"}, &stdout, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{out, out + ".admin-key"} {
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if runtime.GOOS != "windows" && st.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %v, want 0600", p, st.Mode().Perm())
		}
	}
	sn, err := ReadNetworkFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if err := trust.VerifySelfSigned(sn); err != nil {
		t.Fatal(err)
	}
	admin, err := trust.LoadIdentityFile(out + ".admin-key")
	if err != nil {
		t.Fatal(err)
	}
	if sn.Name != "Acme" || !sn.OpenPublishing || !slices.Equal(sn.Seeds, []string{"10.0.0.1:7400", "10.0.0.2:7400"}) ||
		!sn.IsAdmin(admin.Public) || !sn.Signer.Equal(admin.Public) {
		t.Errorf("definition %+v", sn.Network)
	}
	if !strings.Contains(stdout.String(), trust.PublicKeyString(admin.Public)) {
		t.Errorf("output %q does not name the admin key", stdout.String())
	}
	// Never overwrites.
	if err := NetworkCommand([]string{"init", "--name", "Acme", "--out", out}, io.Discard, io.Discard); err == nil {
		t.Error("network init over an existing file succeeded")
	}
	for _, args := range [][]string{nil, {"frobnicate"}, {"init"}, {"init", "--name", "x"}, {"init", "--out", filepath.Join(dir, "x")},
		{"init", "--name", "x", "--out", filepath.Join(dir, "y"), "--seeds", "nohost"}} {
		err := NetworkCommand(args, io.Discard, io.Discard)
		var coded interface{ ExitCode() int }
		if !errors.As(err, &coded) || coded.ExitCode() != 2 {
			t.Errorf("network %q = %v, want a usage error (exit 2)", args, err)
		}
	}

	data := filepath.Join(dir, "data")
	stdout.Reset()
	if err := KeyCommand([]string{"--data", data}, &stdout, io.Discard); err != nil {
		t.Fatal(err)
	}
	id, err := trust.LoadIdentityFile(filepath.Join(data, trust.IdentityFile))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(stdout.String()); got != trust.PublicKeyString(id.Public) {
		t.Errorf("key printed %q, want %q", got, trust.PublicKeyString(id.Public))
	}
	if err := KeyCommand(nil, io.Discard, io.Discard); err == nil {
		t.Error("key without --data succeeded")
	}
}

// publishersNetwork returns a definition (not open) whose publisher is the
// installation of data dir pubData, created by a fresh admin, written to
// a file.
func publishersNetwork(t *testing.T, pubData string) (*trust.Identity, *trust.SignedNetwork, string) {
	t.Helper()
	pub, err := trust.LoadOrCreateIdentity(pubData)
	if err != nil {
		t.Fatal(err)
	}
	admin, err := trust.GenerateIdentity()
	if err != nil {
		t.Fatal(err)
	}
	v1, err := trust.NewNetwork("Acme", admin, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	n := v1.Network.Clone()
	n.Publishers = append(n.Publishers, trust.Publisher{Name: "Newsroom", Key: pub.Public, Categories: []string{"it"}})
	sn, err := admin.SignNetwork(n)
	if err != nil {
		t.Fatal(err)
	}
	return admin, sn, writeNetworkFile(t, sn)
}

// publisherAndReader starts two `serve` processes of a network whose
// publisher is a, for "it" only; b subscribes to "it". a publishes "Printer
// fixed", and it has reached b.
func publisherAndReader(t *testing.T) (a, b *servant, r publishResult) {
	t.Helper()
	aData := filepath.Join(t.TempDir(), "a")
	_, _, file := publishersNetwork(t, aData)
	a = startServeIn(t, aData, "--network", file)
	b = startServe(t, "--network", file, "--seeds", a.ID, "--subscribe", "it")
	b.waitAttached(t)
	a.waitRoute(t, "it")
	r = a.publish(t, "it", "Printer fixed", "")
	waitFor(t, "the item on b", func() error {
		if got := b.titles(t, "it"); !slices.Equal(got, []string{"Printer fixed"}) {
			return fmt.Errorf("b has %q", got)
		}
		return nil
	})
	return a, b, r
}

// serve --network: the listed publisher's items reach a subscriber; a
// servant whose key is not a publisher gets 403 from /v1/publish, and the
// publisher outside its categories too.
func TestServeNetworkPublishers(t *testing.T) {
	a, b, _ := publisherAndReader(t)
	code, body := b.call(t, "POST", "/v1/publish", map[string]string{"category": "it", "title": "Not mine to say"})
	var e struct{ Error string }
	json.Unmarshal(body, &e)
	if code != http.StatusForbidden || e.Error != string(trust.UntrustedKey) {
		t.Errorf("publish by a non-publisher: %d %s, want 403 untrustedKey", code, body)
	}
	code, body = a.call(t, "POST", "/v1/publish", map[string]string{"category": "hr", "title": "Outside my remit"})
	json.Unmarshal(body, &e)
	if code != http.StatusForbidden || e.Error != string(trust.CategoryNotAllowed) {
		t.Errorf("publish outside the publisher's categories: %d %s, want 403 categoryNotAllowed", code, body)
	}
	_, raw := b.status(t)
	var st struct {
		Rejected map[string]uint64 `json:"rejected"`
		Network  struct {
			Publisher bool `json:"publisher"`
		} `json:"network"`
	}
	if err := json.Unmarshal(raw, &st); err != nil {
		t.Fatal(err)
	}
	if st.Network.Publisher || len(st.Rejected) != len(trust.Rejections()) || st.Rejected["badSignature"] != 0 {
		t.Errorf("b's status: %s", raw)
	}
}

// Forged, tampered, unsigned, mismatched and untrusted items are dropped
// at the first servant, counted per reason, and never stored by a
// subscriber; the publisher's own items still arrive.
func TestForgedItemsRejected(t *testing.T) {
	aDir := t.TempDir()
	_, sn, _ := publishersNetwork(t, aDir)
	a := openApp(t, Options{DataDir: aDir, Start: true, Network: sn})
	b := openApp(t, Options{Start: true, Network: sn, Seeds: []string{a.Addr()}, Subscriptions: []string{"it"}})
	c := openApp(t, Options{Start: true, Network: sn, Seeds: []string{a.Addr()}})
	waitFor(t, "c to learn of a subscriber of it", func() error {
		for _, l := range c.Status().Links {
			if l.Up && newsnet.CategorySet(l.Received).Matches("it") {
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
	// Each forged item is dropped by the first servant it reaches: c's
	// up-servant, or b when b sits below c (both are on 127.0.0.1, so the
	// tree's shape varies). Either way each is rejected exactly once in
	// all, and so never travels past that first servant.
	want := map[string]uint64{"unsigned": 1, "untrustedKey": 1, "badSignature": 1, "mismatch": 1}
	waitFor(t, "the rejections at the first servant", func() error {
		ra, rb := a.Status().Rejected, b.Status().Rejected
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
		for r, n := range s.Status().Rejected {
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
	// Mallory's servant speaks as the victim's source, so its core keeps
	// the forged header (source, count) as given.
	c := openApp(t, Options{DataDir: cDir, Start: true, Network: sn, Seeds: []string{a.Addr()},
		tune: func(cfg *newsnet.Config) { cfg.Source = a.Source().String() }})
	waitFor(t, "c to learn of a subscriber of it", func() error {
		for _, l := range c.Status().Links {
			if l.Up && newsnet.CategorySet(l.Received).Matches("it") {
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
	// The first servant it reaches drops it: c's up-servant, or b when b
	// sits below c.
	waitFor(t, "the forged item rejected at the first servant", func() error {
		if got := a.Status().Rejected["foreignSource"] + b.Status().Rejected["foreignSource"]; got != 1 {
			return fmt.Errorf("rejected: a %v, b %v", a.Status().Rejected, b.Status().Rejected)
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
	_, sn, _ := publishersNetwork(t, aDir)
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
		if got := a.verify(m); got != want {
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

// serve --network refuses an older definition than the one held, one not
// signed by an admin, and a first definition not signed by its own admin.
func TestServeRefusesBadDefinitions(t *testing.T) {
	admin, _ := trust.GenerateIdentity()
	stranger, _ := trust.GenerateIdentity()
	v1, err := trust.NewNetwork("Acme", admin, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	next := func(from *trust.SignedNetwork, by *trust.Identity) *trust.SignedNetwork {
		n := from.Network.Clone()
		n.Version++
		sn, err := by.SignNetwork(n)
		if err != nil {
			t.Fatal(err)
		}
		return sn
	}
	v2 := next(v1, admin)
	v3stranger := next(v2, stranger)

	serveErr := func(data string, sn *trust.SignedNetwork) error {
		t.Helper()
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		done := make(chan error, 1)
		args := []string{"--listen", "127.0.0.1:0", "--data", data, "--network", writeNetworkFile(t, sn)}
		go func() { done <- ServeWithReady(ctx, args, io.Discard, io.Discard, func(Ready) { cancel() }) }()
		select {
		case err := <-done:
			return err
		case <-time.After(20 * time.Second):
			t.Fatal("serve did not return")
			return nil
		}
	}
	data := filepath.Join(t.TempDir(), "data")
	if err := serveErr(data, v2); err != nil {
		t.Fatalf("serve with v2: %v", err)
	}
	if err := serveErr(data, v2); err != nil {
		t.Fatalf("serve with v2 again: %v", err)
	}
	if err := serveErr(data, v1); !errors.Is(err, trust.ErrNotNewer) || !strings.Contains(err.Error(), "version 1") {
		t.Errorf("serve with the older v1 = %v, want a refusal (not newer)", err)
	}
	if err := serveErr(data, v3stranger); !errors.Is(err, trust.ErrNotAdmin) {
		t.Errorf("serve with a v3 signed by a non-admin = %v, want a refusal (not an admin)", err)
	}
	// A first import signed by a key that is not its own admin.
	forgedFirst := func() *trust.SignedNetwork {
		sn, err := stranger.SignNetwork(v1.Network.Clone())
		if err != nil {
			t.Fatal(err)
		}
		return sn
	}()
	if err := serveErr(filepath.Join(t.TempDir(), "fresh"), forgedFirst); !errors.Is(err, trust.ErrNotAdmin) {
		t.Errorf("serve with a first definition not signed by its admin = %v, want a refusal", err)
	}
}

// POST /v1/retract: the publisher's retraction hides its item on the
// subscriber; a servant that did not publish it gets 403 with the reason;
// bad IDs and reasons are 400, an unknown item 404.
func TestServeRetract(t *testing.T) {
	a, b, r := publisherAndReader(t)

	var e struct{ Error string }
	code, body := b.call(t, "POST", "/v1/retract", map[string]string{"id": r.ID})
	json.Unmarshal(body, &e)
	if code != http.StatusForbidden || e.Error != string(trust.NotAuthorized) {
		t.Errorf("retraction by a servant that did not publish it: %d %s, want 403 notAuthorized", code, body)
	}
	for _, bad := range []map[string]string{
		{"id": "not-an-id"},
		{"id": r.ID, "reason": "two\nlines"},
	} {
		if code, body := a.call(t, "POST", "/v1/retract", bad); code != http.StatusBadRequest {
			t.Errorf("retract %v: %d %s, want 400", bad, code, body)
		}
	}
	if code, body := a.call(t, "POST", "/v1/retract", map[string]string{"id": "0191a000-0000-7000-8000-000000000001"}); code != http.StatusNotFound {
		t.Errorf("retract of an unknown item: %d %s, want 404", code, body)
	}

	if code, body := a.call(t, "POST", "/v1/retract", map[string]string{"id": r.ID, "reason": "Still broken"}); code != http.StatusOK {
		t.Fatalf("retraction by the publisher: %d %s", code, body)
	}
	waitFor(t, "the item gone from b", func() error {
		if got := b.titles(t, "it"); len(got) != 0 {
			return fmt.Errorf("b lists %q", got)
		}
		return nil
	})
	if got := a.titles(t, "it"); len(got) != 0 {
		t.Errorf("a lists %q", got)
	}
}
