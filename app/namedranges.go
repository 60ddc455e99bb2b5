package app

import (
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"strings"

	"newsdesk/news"
	"newsdesk/trust"
)

// Named ranges (issue 15): the network ranges the admin named in the
// network definition (trust.NamedRange). Compose offers the names, the
// reader shows them beside an item's audience, and an admin edits them,
// which publishes the next version of the definition.

// ErrNamedAudiencesChanged: the named ranges of the definition held are no
// longer the ones an edit started from; another admin changed them.
var ErrNamedAudiencesChanged = errors.New("another admin changed the named ranges meanwhile")

// namedAudienceAttempts bounds how often SetNamedAudiences starts again
// when another version was adopted while it was signing.
const namedAudienceAttempts = 3

// NamedAudiences returns the named ranges of the definition held, sorted
// by name; nil when there are none.
func (a *App) NamedAudiences() []NamedAudience {
	return namedAudienceViews(a.Network().Audiences)
}

func namedAudienceViews(rs []trust.NamedRange) []NamedAudience {
	return convert(rs, func(r trust.NamedRange) NamedAudience {
		return NamedAudience{Name: r.Name, Ranges: slices.Clone(r.Ranges)}
	})
}

// SetNamedAudiences makes now the named ranges of the network (admins
// only: ErrNotAdmin) and returns the version of the definition that has
// them. It signs the next version with this installation's key and
// publishes it; everything else in it stays as held, so other admins'
// edits of other parts are kept. was is the list the edit started from:
// when the definition held has other named ranges by now, nothing is
// published and the error is ErrNamedAudiencesChanged (the list merges as
// a whole, as trust.Merge does it). A list the definition refuses (a name
// twice, an empty name, no ranges) is an error naming the rule.
func (a *App) SetNamedAudiences(was, now []NamedAudience) (uint64, error) {
	for attempt := 1; ; attempt++ {
		cur := a.Network()
		next, err := NamedAudiencesEdit(cur, a.identity, was, now)
		if err != nil {
			return 0, err
		}
		if next == nil {
			return cur.Version, nil
		}
		err = a.PublishNetwork(next)
		switch {
		case err == nil:
			a.log.Info("named ranges published", "version", next.Version, "names", len(next.Audiences))
			return next.Version, nil
		case !errors.Is(err, trust.ErrNotNewer) || attempt == namedAudienceAttempts:
			return 0, fmt.Errorf("publishing the named ranges: %w", err)
		}
	}
}

// NamedAudiencesEdit returns the next version of cur with the named ranges
// now, signed by signer, for SetNamedAudiences and the demo backend: nil
// when cur has them already; ErrNotAdmin, ErrNamedAudiencesChanged (cur's
// are not was) or the rule the list breaks.
func NamedAudiencesEdit(cur *trust.SignedNetwork, signer *trust.Identity, was, now []NamedAudience) (*trust.SignedNetwork, error) {
	if !cur.IsAdmin(signer.Public) {
		return nil, ErrNotAdmin
	}
	held := namedAudienceViews(cur.Audiences)
	if sameNamedAudiences(held, now) {
		return nil, nil
	}
	if !sameNamedAudiences(held, was) {
		return nil, ErrNamedAudiencesChanged
	}
	n := cur.Network.Clone()
	n.Version = cur.Version + 1
	n.Audiences = make([]trust.NamedRange, 0, len(now))
	for _, v := range now {
		n.Audiences = append(n.Audiences, trust.NamedRange{Name: v.Name, Ranges: news.CanonicalAudience(v.Ranges)})
	}
	return signer.SignNetwork(n)
}

// sameNamedAudiences compares two lists as sets of names with their
// ranges (canonical order on both sides).
func sameNamedAudiences(a, b []NamedAudience) bool {
	canon := func(l []NamedAudience) []NamedAudience {
		out := make([]NamedAudience, len(l))
		for i, v := range l {
			out[i] = NamedAudience{Name: v.Name, Ranges: news.CanonicalAudience(v.Ranges)}
		}
		slices.SortFunc(out, func(x, y NamedAudience) int { return strings.Compare(x.Name, y.Name) })
		return out
	}
	return slices.EqualFunc(canon(a), canon(b), func(x, y NamedAudience) bool {
		return x.Name == y.Name && slices.Equal(x.Ranges, y.Ranges)
	})
}

// AudienceNames returns the named ranges an audience is made of: each one
// whose ranges are all in ps (so an item addressed to "Berlin office"
// shows that name), in named's order, and the ranges of ps no name
// covers.
func AudienceNames(ps []netip.Prefix, named []NamedAudience) (names []NamedAudience, rest []netip.Prefix) {
	covered := map[netip.Prefix]bool{}
	for _, n := range named {
		if len(n.Ranges) > 0 && !slices.ContainsFunc(n.Ranges, func(p netip.Prefix) bool { return !slices.Contains(ps, p) }) {
			names = append(names, n)
			for _, p := range n.Ranges {
				covered[p] = true
			}
		}
	}
	for _, p := range ps {
		if !covered[p] {
			rest = append(rest, p)
		}
	}
	return names, rest
}

// NamedAudience is a set of network ranges the admin named in the network
// definition ("Berlin office" = 10.1.4.0/22): Compose offers the names,
// the reader shows them (namedranges.go).
type NamedAudience struct {
	Name   string
	Ranges []netip.Prefix // canonical (news.CanonicalAudience)
}
