package app_test

import (
	"errors"
	"net/netip"
	"slices"
	"testing"

	"newsdesk/app"
	"newsdesk/news"
)

func prefixes(s ...string) []netip.Prefix {
	out := make([]netip.Prefix, len(s))
	for i, p := range s {
		out[i] = netip.MustParsePrefix(p)
	}
	return out
}

// A post with an audience keeps it, in canonical form (masked, sorted,
// none inside another): the item listed, opened and in My posts is for
// those ranges, and a draft with too many ranges is refused.
func testPublishAudience(t *testing.T, s Subject) {
	d := app.Draft{Category: "it", Title: "Berlin office closed",
		Audience: prefixes("2001:db8:4::/48", "10.1.4.7/22", "10.1.5.0/24")}
	r, err := s.Publish(d)
	if err != nil {
		t.Fatal(err)
	}
	await(t, s, "ItemsPublished after Publish", announced(app.ItemsPublished, r.ID, "it"))
	want := prefixes("10.1.4.0/22", "2001:db8:4::/48")
	if e := item(t, s, r.ID); !slices.Equal(e.Item.Audience, want) {
		t.Errorf("the post's audience is %v, want %v", e.Item.Audience, want)
	}
	if es, _, err := s.MyPosts(10, ""); err != nil || len(es) != 1 || !slices.Equal(es[0].Item.Audience, want) {
		t.Errorf("My posts: %+v, %v", es, err)
	}
	if es, _, err := s.Newest([]string{"it"}, 10, ""); err != nil || len(es) != 1 || !slices.Equal(es[0].Item.Audience, want) {
		t.Errorf("Newest: %+v, %v", es, err)
	}

	many := make([]netip.Prefix, news.MaxAudienceRanges+1)
	for i := range many {
		many[i] = netip.PrefixFrom(netip.AddrFrom4([4]byte{10, byte(i), 0, 0}), 16)
	}
	if _, err := s.Publish(app.Draft{Category: "it", Title: "Too many offices", Audience: many}); err == nil {
		t.Errorf("a draft with %d ranges was published", len(many))
	}
	if es, _, _ := s.MyPosts(10, ""); len(es) != 1 {
		t.Errorf("a refused draft is in My posts: %d posts", len(es))
	}
}

// Named ranges (ui.AudienceBackend): an installation starts with none;
// its admin's list becomes the definition's, sorted by name, in a newer
// version; an edit made on a list that has changed since is refused, and
// so is a list the definition cannot hold.
func testNamedAudiences(t *testing.T, s Subject) {
	ab := s.App
	tb := s.App
	if got := ab.NamedAudiences(); len(got) != 0 {
		t.Fatalf("a new installation has named ranges %v", got)
	}
	v := tb.Network().Version
	paris := app.NamedAudience{Name: "Paris office", Ranges: prefixes("10.2.0.0/16")}
	berlin := app.NamedAudience{Name: "Berlin office", Ranges: prefixes("10.1.4.0/22", "2001:db8:4::/48")}
	got, err := ab.SetNamedAudiences(nil, []app.NamedAudience{paris, berlin})
	if err != nil {
		t.Fatal(err)
	}
	if got != v+1 || tb.Network().Version != got {
		t.Errorf("published version %d, held %d; was %d", got, tb.Network().Version, v)
	}
	list := ab.NamedAudiences()
	if len(list) != 2 || list[0].Name != "Berlin office" || !slices.Equal(list[0].Ranges, berlin.Ranges) || list[1].Name != "Paris office" {
		t.Fatalf("NamedAudiences = %v", list)
	}
	if _, err := ab.SetNamedAudiences(nil, []app.NamedAudience{paris}); !errors.Is(err, app.ErrNamedAudiencesChanged) {
		t.Errorf("an edit on an outdated list: %v, want app.ErrNamedAudiencesChanged", err)
	}
	if _, err := ab.SetNamedAudiences(list, []app.NamedAudience{paris, paris}); err == nil {
		t.Error("a name twice was accepted")
	}
	if _, err := ab.SetNamedAudiences(list, []app.NamedAudience{{Name: "Rome office"}}); err == nil {
		t.Error("a name without ranges was accepted")
	}
	if tb.Network().Version != got {
		t.Errorf("a refused edit changed the definition to version %d", tb.Network().Version)
	}
}
