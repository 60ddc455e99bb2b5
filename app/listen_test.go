package app

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"newsdesk/app/apptest"
)

// holdPort listens on a loopback port until the test ends, as another
// program (another Newsdesk) would, and returns its address.
func holdPort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	return ln.Addr().String()
}

// Issue 26: the first run proposes the configured port when it is free
// and the next free one when another program holds it.
func TestProposeListen(t *testing.T) {
	a, err := Open(context.Background(), Options{DataDir: t.TempDir(), Logger: testLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	free := apptest.FreeAddr(t)
	if got, taken := a.ProposeListen(free); got != free || taken {
		t.Errorf("a free port: %s, taken %v", got, taken)
	}
	held := holdPort(t)
	got, taken := a.ProposeListen(held)
	if !taken || got == held || !strings.HasPrefix(got, "127.0.0.1:") || a.checkListenFree(got) != nil {
		t.Errorf("a taken port %s: proposed %s, taken %v", held, got, taken)
	}
}

// Issue 26: a joiner whose port is taken is refused before it redeems
// the code, so the code is not used up, and joins with it once the port
// is free.
func TestJoinOnATakenPortKeepsTheCode(t *testing.T) {
	admin := openFresh(t)
	if err := admin.Setup(Setup{DisplayName: "Admin", NewNetwork: true}); err != nil {
		t.Fatal(err)
	}
	inv, err := admin.CreateInvitation(InviteOptions{Uses: 1})
	if err != nil {
		t.Fatal(err)
	}
	held := holdPort(t)
	joiner, err := Open(context.Background(), Options{DataDir: t.TempDir(), Listen: held, Logger: testLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer joiner.Close()
	err = joiner.JoinByInvitation(context.Background(), inv.Code, Setup{DisplayName: "Joiner"})
	if !errors.Is(err, ErrPortInUse) {
		t.Fatalf("joining on a taken port: %v", err)
	}
	if l, _ := admin.Invitations(); len(l) != 1 || l[0].Used != 0 || l[0].State != "active" {
		t.Fatalf("the refused join used the code: %+v", l)
	}
	if !joiner.NeedsSetup() {
		t.Error("the refused join counted as set up")
	}
	free := openFresh(t)
	if err := free.JoinByInvitation(context.Background(), inv.Code, Setup{DisplayName: "Joiner"}); err != nil {
		t.Fatalf("joining on a free port: %v", err)
	}
}

// Issue 26: a new listen port in the settings applies at once: the
// servant restarts under it, and the admin's own seed entry, in its seed
// list and in the network definition, follows, so it does not look for
// itself at the old port. A port in use is refused and changes nothing.
func TestListenChangeFollowsOwnSeed(t *testing.T) {
	first := apptest.FreeAddr(t)
	a, err := Open(context.Background(), Options{DataDir: t.TempDir(), Logger: testLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if err := a.Setup(Setup{DisplayName: "Admin", NewNetwork: true, Listen: first}); err != nil {
		t.Fatal(err)
	}
	if a.Addr() != first || !slices.Equal(a.Seeds(), []string{first}) || !slices.Equal(a.Network().Seeds, []string{first}) {
		t.Fatalf("after setup: address %s, seeds %q, network seeds %q", a.Addr(), a.Seeds(), a.Network().Seeds)
	}
	s := a.Settings()
	s.Listen = holdPort(t)
	if err := a.SaveSettings(s); !errors.Is(err, ErrPortInUse) {
		t.Errorf("a taken port saved: %v", err)
	}
	if got := a.Settings().Listen; got != first {
		t.Errorf("the refused port was stored: %s", got)
	}
	second := apptest.FreeAddr(t)
	s.Listen = second
	if err := a.SaveSettings(s); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the servant under its new port, its seed entry with it", func() error {
		if a.Addr() != second || !slices.Equal(a.Seeds(), []string{second}) || !slices.Equal(a.Network().Seeds, []string{second}) {
			return fmt.Errorf("address %s, seeds %q, network seeds %q", a.Addr(), a.Seeds(), a.Network().Seeds)
		}
		if st := a.Status(); st.Role != RoleVertex || st.Alone != nil {
			return fmt.Errorf("role %s, alone %+v", st.Role, st.Alone)
		}
		return nil
	})
	inv, err := a.CreateInvitation(InviteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c, _ := ParseInviteCode(inv.Code)
	if c.Via != second || !slices.Equal(c.Seeds, []string{second}) {
		t.Errorf("a new code names %s and %q", c.Via, c.Seeds)
	}
}

// Issue 26: a desktop whose port another program took while it was not
// running (a second profile) starts on the next free port instead of
// failing with "address already in use", says so, and its own seed entry
// follows.
func TestStartMovesOffATakenPort(t *testing.T) {
	dir := t.TempDir()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	first := ln.Addr().String()
	ln.Close()
	opts := Options{DataDir: dir, Logger: testLogger(t), MovePortIfTaken: true}
	a, err := Open(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Setup(Setup{DisplayName: "Ada", NewNetwork: true, Listen: first}); err != nil {
		t.Fatal(err)
	}
	if st := a.Status(); st.PortMoved != nil {
		t.Errorf("moved from a free port: %+v", st.PortMoved)
	}
	a.Close()

	ln, err = net.Listen("tcp", first) // the other profile
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	a, err = Open(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if err := a.Start(); err != nil {
		t.Fatalf("Start on a taken port: %v", err)
	}
	st := a.Status()
	if st.PortMoved == nil || st.PortMoved.From != first || st.PortMoved.To != a.Addr() || a.Addr() == first {
		t.Fatalf("address %s, moved %+v", a.Addr(), st.PortMoved)
	}
	if got := a.Settings().Listen; got != a.Addr() {
		t.Errorf("the settings listen on %s, the servant on %s", got, a.Addr())
	}
	waitFor(t, "the seed entry at the new port", func() error {
		if !slices.Equal(a.Seeds(), []string{a.Addr()}) || !slices.Equal(a.Network().Seeds, []string{a.Addr()}) {
			return fmt.Errorf("seeds %q, network seeds %q", a.Seeds(), a.Network().Seeds)
		}
		return nil
	})
}

// Issue 26: a member follows its admin's servant to a new port: the seed
// entry moves while the links are still up, so the member hears of it
// before the admin's servant goes.
func TestMemberFollowsAdminToNewPort(t *testing.T) {
	admin, err := Open(context.Background(), Options{DataDir: t.TempDir(), Logger: testLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	if err := admin.Setup(Setup{DisplayName: "Admin", NewNetwork: true, Listen: apptest.FreeAddr(t)}); err != nil {
		t.Fatal(err)
	}
	inv, err := admin.CreateInvitation(InviteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	member := openFresh(t)
	if err := member.JoinByInvitation(context.Background(), inv.Code, Setup{DisplayName: "Member"}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the member below the admin", func() error {
		if st := member.Status(); st.Up != admin.Addr() {
			return fmt.Errorf("member's up-servant %q", st.Up)
		}
		return nil
	})
	s := admin.Settings()
	s.Listen = apptest.FreeAddr(t)
	if err := admin.SaveSettings(s); err != nil {
		t.Fatal(err)
	}
	waitForUpTo(t, 30*time.Second, "the member below the admin at its new port", func() error {
		if admin.Addr() != s.Listen {
			return fmt.Errorf("admin at %s", admin.Addr())
		}
		if st := member.Status(); st.Up != s.Listen || !slices.Equal(member.Seeds(), []string{s.Listen}) {
			return fmt.Errorf("member's up-servant %q, seeds %q", st.Up, member.Seeds())
		}
		return nil
	})
}

// Options.PortHeld answers for every check of a listen port in place of
// binding it: the first run's proposal walks past the ports it says are
// held, Setup, JoinByInvitation and SaveSettings refuse them, and a start
// moves off one.
func TestPortHeldReplacesTheBind(t *testing.T) {
	free := apptest.FreeAddr(t)
	host, port, _ := net.SplitHostPort(free)
	p, _ := strconv.Atoi(port)
	at := func(q int) string { return net.JoinHostPort(host, strconv.Itoa(q)) }
	held := map[string]bool{at(p - 2): true, at(p - 1): true}
	var asked []string
	dir := t.TempDir()
	a, err := Open(context.Background(), Options{DataDir: dir, Logger: testLogger(t), MovePortIfTaken: true,
		PortHeld: func(addr string) bool { asked = append(asked, addr); return held[addr] }})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if got, taken := a.ProposeListen(at(p - 2)); got != free || !taken {
		t.Errorf("from a held port: proposed %s, taken %v", got, taken)
	}
	if !slices.Equal(asked, []string{at(p - 2), at(p - 1), free}) {
		t.Errorf("PortHeld asked about %q", asked)
	}
	if got, taken := a.ProposeListen(free); got != free || taken {
		t.Errorf("a port not held: proposed %s, taken %v", got, taken)
	}
	if err := a.Setup(Setup{DisplayName: "Ada", NewNetwork: true, Listen: at(p - 1)}); !errors.Is(err, ErrPortInUse) ||
		!strings.Contains(err.Error(), "port "+strconv.Itoa(p-1)+" is taken") {
		t.Errorf("setup on a held port: %v", err)
	}
	// Refused before the code is read (the port comes first).
	if err := a.JoinByInvitation(context.Background(), "newsdesk:join?", Setup{DisplayName: "Ada", Listen: at(p - 1)}); !errors.Is(err, ErrPortInUse) {
		t.Errorf("joining on a held port: %v", err)
	}
	if !a.NeedsSetup() {
		t.Fatal("a refused setup counted")
	}

	// Stored while stopped, a held port is moved off at the start.
	s := a.Settings()
	s.DisplayName, s.Listen = "Ada", at(p-1)
	if err := a.SaveSettings(s); err != nil {
		t.Fatal(err)
	}
	if err := a.Setup(Setup{DisplayName: "Ada", NewNetwork: true}); err != nil {
		t.Fatal(err)
	}
	if st := a.Status(); st.PortMoved == nil || st.PortMoved.From != at(p-1) || st.PortMoved.To != free || a.Addr() != free {
		t.Fatalf("address %s, moved %+v", a.Addr(), st.PortMoved)
	}
	s = a.Settings()
	s.Listen = at(p - 2)
	if err := a.SaveSettings(s); !errors.Is(err, ErrPortInUse) {
		t.Errorf("a held port saved while running: %v", err)
	}
	if got := a.Settings().Listen; got != free {
		t.Errorf("listen %s after the refusal", got)
	}
}
