package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"testing"

	"newsdesk/app/apptest"
	"newsdesk/trust"
)

// openServing opens an App as `newsdesk serve` does (started at once) on a
// fresh data directory, its log in the buffer returned.
func openServing(t *testing.T, opts Options) (*App, *apptest.SyncBuffer) {
	t.Helper()
	log := &apptest.SyncBuffer{}
	opts.DataDir = t.TempDir()
	opts.Start = true
	opts.Logger = slog.New(slog.NewTextHandler(log, nil))
	a, err := Open(context.Background(), opts)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() {
		a.Close()
		if t.Failed() {
			t.Logf("log:\n%s", log)
		}
	})
	return a, log
}

// Issue 26: a fresh `newsdesk serve` with a listen address makes itself
// the first seed of the network it creates, in its seed list and in the
// definition, so the invitations it makes lead somewhere; it is the vertex
// by design, not alone.
func TestServeSeedsItsNewNetwork(t *testing.T) {
	addr := apptest.FreeAddr(t)
	a, _ := openServing(t, Options{Listen: addr})
	if got := a.Seeds(); !slices.Equal(got, []string{addr}) {
		t.Errorf("seed list %q, want this servant %s", got, addr)
	}
	if sn := a.Network(); !slices.Equal(sn.Seeds, []string{addr}) || !a.IsAdmin() {
		t.Errorf("definition seeds %q (admin %v), want %s", sn.Seeds, a.IsAdmin(), addr)
	}
	inv, err := a.CreateInvitation(InviteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c, err := trust.ParseInviteCode(inv.Code)
	if err != nil || !slices.Equal(c.Seeds, []string{addr}) {
		t.Errorf("the code names seeds %q (%v), want %s", c.Seeds, err, addr)
	}
	waitFor(t, "the vertex", func() error {
		if st := a.Status(); st.Role != RoleVertex || st.Alone != nil {
			return fmt.Errorf("role %s, alone %+v", st.Role, st.Alone)
		}
		return nil
	})
}

// Issue 26: a servant on port 0 changes address at every start, so it is
// not made the seed; an invitation to a network that lists no seed is
// refused, saying what to do.
func TestInvitationRefusedWithoutSeed(t *testing.T) {
	a, _ := openServing(t, Options{Listen: "127.0.0.1:0"})
	if got := a.Seeds(); len(got) != 0 || len(a.Network().Seeds) != 0 {
		t.Fatalf("a servant on port 0 became the seed: list %q, definition %q", got, a.Network().Seeds)
	}
	_, err := a.CreateInvitation(InviteOptions{})
	if !errors.Is(err, ErrNoSeed) || !strings.Contains(err.Error(), "lists no seed") || !strings.Contains(err.Error(), "fixed port") {
		t.Fatalf("invitation for a seedless network: %v", err)
	}
	if l, err := a.Invitations(); err != nil || len(l) != 0 {
		t.Errorf("the refusal kept an invitation: %+v, %v", l, err)
	}
}

// networkWithSeeds is a definition whose admin is someone else, listing
// seeds.
func networkWithSeeds(t *testing.T, seeds ...string) *trust.SignedNetwork {
	t.Helper()
	admin, err := trust.GenerateIdentity()
	if err != nil {
		t.Fatal(err)
	}
	sn, err := trust.NewNetwork("Acme", admin, seeds, true)
	if err != nil {
		t.Fatal(err)
	}
	return sn
}

// Issue 26: a servant that joined a network and finds itself its vertex
// says so in the status (Alone, with the seeds it should be below) and in
// its log: with an empty seed list while the network lists seeds, as a
// later seed whose earlier seeds do not answer, and in a network that
// lists no seed at all (what `newsdesk join` made of a code without
// seeds before).
func TestAloneSaysSo(t *testing.T) {
	dead := apptest.FreeAddr(t) // nothing listens there
	own := apptest.FreeAddr(t)
	for _, tc := range []struct {
		name  string
		opts  Options
		seeds []string // Alone.Seeds
	}{
		{"empty seed list", Options{Network: networkWithSeeds(t, dead), Seeds: []string{}}, []string{dead}},
		{"a later seed", Options{Network: networkWithSeeds(t, dead, own)}, []string{dead}},
		{"no seed anywhere", Options{Network: networkWithSeeds(t)}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.opts.Listen = own
			a, log := openServing(t, tc.opts)
			waitFor(t, "alone in the status and the log", func() error {
				st := a.Status()
				if st.Role != RoleVertex || st.Alone == nil || !slices.Equal(st.Alone.Seeds, tc.seeds) {
					return fmt.Errorf("role %s, alone %+v", st.Role, st.Alone)
				}
				if !strings.Contains(log.String(), "alone: this servant runs as a network of its own") {
					return errors.New("not in the log")
				}
				return nil
			})
		})
	}
}

// Issue 26: a new network showed "Published 1, Suppressed 1" before anyone
// posted: its first seed's network definition, a system item nobody else
// was there to receive. The UI's counters are of news; the servant's own
// (the control API's) still count it.
func TestNewNetworkCountsNoNews(t *testing.T) {
	a, err := Open(context.Background(), Options{DataDir: t.TempDir(), Listen: apptest.FreeAddr(t), Logger: testLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if err := a.Setup(Setup{DisplayName: "Ada", NewNetwork: true}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the definition naming the seed published", func() error {
		if c := a.ServantStatus().Counters; c.Published == 0 {
			return errors.New("the servant counts no publication yet")
		}
		return nil
	})
	if c := a.Status().Counters; c.Published != 0 || c.Suppressed != 0 {
		t.Errorf("before anyone posted: published %d, suppressed %d", c.Published, c.Suppressed)
	}
	if _, err := a.Publish(Draft{Category: "it", Title: "First post"}); err != nil {
		t.Fatal(err)
	}
	if c := a.Status().Counters; c.Published != 1 || c.Suppressed != 1 {
		t.Errorf("after one post nobody receives: published %d, suppressed %d", c.Published, c.Suppressed)
	}
}
