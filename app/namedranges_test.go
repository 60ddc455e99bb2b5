package app

import (
	"errors"
	"net/netip"
	"slices"
	"testing"

	"newsdesk/trust"
)

// adminApp opens an App that is the only admin of its own network.
func adminApp(t *testing.T) *App {
	t.Helper()
	dir := t.TempDir()
	id, err := trust.LoadOrCreateIdentity(dir)
	if err != nil {
		t.Fatal(err)
	}
	sn, err := trust.NewNetwork("Acme", id, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	return openApp(t, Options{DataDir: dir, Network: sn})
}

func named(name string, ranges ...string) NamedAudience {
	v := NamedAudience{Name: name}
	for _, r := range ranges {
		v.Ranges = append(v.Ranges, netip.MustParsePrefix(r))
	}
	return v
}

// An admin's named ranges become the next version of the definition,
// signed and held; an edit made on ranges another admin changed since is
// refused, and so is a list the definition cannot hold.
func TestSetNamedAudiences(t *testing.T) {
	a := adminApp(t)
	if got := a.NamedAudiences(); got != nil {
		t.Fatalf("a new network has named ranges %v", got)
	}
	v1 := a.Network().Version
	berlin := named("Berlin office", "10.1.4.0/22")
	paris := named("Paris office", "10.2.0.0/16", "2001:db8:2::/48")
	ver, err := a.SetNamedAudiences(nil, []NamedAudience{paris, berlin})
	if err != nil {
		t.Fatal(err)
	}
	if ver != v1+1 || a.Network().Version != ver || !a.Network().Signer.Equal(a.Identity().Public) {
		t.Fatalf("published version %d, held %d (was %d)", ver, a.Network().Version, v1)
	}
	got := a.NamedAudiences()
	if len(got) != 2 || got[0].Name != "Berlin office" || got[1].Name != "Paris office" || !slices.Equal(got[1].Ranges, paris.Ranges) {
		t.Fatalf("NamedAudiences = %v", got)
	}

	// The same list again publishes nothing.
	if again, err := a.SetNamedAudiences(got, []NamedAudience{berlin, paris}); err != nil || again != ver {
		t.Errorf("the same list: version %d, %v", again, err)
	}
	// An edit made on the empty list, after these were published.
	if _, err := a.SetNamedAudiences(nil, []NamedAudience{berlin}); !errors.Is(err, ErrNamedAudiencesChanged) {
		t.Errorf("an edit on an older list: %v", err)
	}
	for _, bad := range [][]NamedAudience{
		{berlin, named("Berlin office", "10.9.0.0/16")},
		{named("", "10.9.0.0/16")},
		{named("Rome office")},
	} {
		if _, err := a.SetNamedAudiences(got, bad); err == nil {
			t.Errorf("SetNamedAudiences(%v) accepted", bad)
		}
	}
	if a.Network().Version != ver {
		t.Errorf("a refused edit changed the definition to version %d", a.Network().Version)
	}
	// Removing them all.
	if v, err := a.SetNamedAudiences(got, nil); err != nil || a.NamedAudiences() != nil || v != ver+1 {
		t.Errorf("removing all: version %d, %v, left %v", v, err, a.NamedAudiences())
	}
}

// Only an admin edits the named ranges.
func TestSetNamedAudiencesNotAdmin(t *testing.T) {
	a := openApp(t, Options{}) // the test network's admin is another key
	if _, err := a.SetNamedAudiences(nil, []NamedAudience{named("Berlin office", "10.1.4.0/22")}); !errors.Is(err, ErrNotAdmin) {
		t.Errorf("a member's edit: %v", err)
	}
}

// AudienceNames names the parts of an audience that are named ranges.
func TestAudienceNames(t *testing.T) {
	list := []NamedAudience{named("Berlin office", "10.1.4.0/22", "2001:db8:4::/48"), named("Paris office", "10.2.0.0/16")}
	ps := []netip.Prefix{netip.MustParsePrefix("10.1.4.0/22"), netip.MustParsePrefix("10.2.0.0/16"), netip.MustParsePrefix("10.9.0.0/16")}
	names, rest := AudienceNames(ps, list)
	if len(names) != 1 || names[0].Name != "Paris office" || len(rest) != 2 || rest[0].String() != "10.1.4.0/22" {
		t.Errorf("half of Berlin: names %v, rest %v", names, rest)
	}
	ps = append(ps, netip.MustParsePrefix("2001:db8:4::/48"))
	names, rest = AudienceNames(ps, list)
	if len(names) != 2 || len(rest) != 1 || rest[0].String() != "10.9.0.0/16" {
		t.Errorf("names %v, rest %v", names, rest)
	}
}
