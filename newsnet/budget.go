package newsnet

import (
	"fmt"
	"strings"
)

// Frames built from category sets stay encodable.
//
// A RoutingInfo carries the union of a servant's own subscriptions and the
// received sets of its other links: at a relay, the subscriptions of a
// whole subtree (or of the rest of the tree, toward a downlink). Each
// servant's own set may be well within the limits and the union still
// exceed MaxCategories or MaxFrameBytes. Such a frame cannot be encoded:
// the routing information would never leave, and the neighbour would keep
// routing by what it heard before (issue 11). Sending part of the union is
// no way out: a category left out would be cut off. So a union that does
// not fit is sent coarser (fitRoutingSet): categories an ancestor in the
// set covers are left out, then the deeper levels are cut ("sales/emea/uk"
// becomes "sales/emea", then "sales"), and at the end AllCategories stands
// for everything, as an archive's subscription does. A coarser set matches
// every category the union matches, and some more: the link may carry
// items nobody beyond it needs, which the servants there relay or drop by
// their own sets; none is lost.
//
// A CatchUp names the requester's own subscriptions, the sources it
// follows and its trail; the hosts keep the first within
// MaxSubscriptionBytes (CheckSubscriptions), and the sources that do not
// fit beside them are left out (fitCatchUp): the archive then sends those
// sources' items since the request's time, as for a source not followed,
// which costs copies but loses nothing.

// MaxSubscriptionBytes bounds a servant's own subscription set as a
// RoutingInfo or a CatchUp carries it (each category's length, plus one
// byte each below 128 bytes): half a frame, so that a catch-up request
// still has room for the sources it follows and its trail.
const MaxSubscriptionBytes = MaxFrameBytes / 2

// CheckSubscriptions reports whether cats can be a servant's own
// subscriptions: valid categories (ValidCategory), at most MaxCategories
// of them and MaxSubscriptionBytes on the wire. Hosts check a set before
// they hand it to the servant (SetSubscriptions); the servant itself takes
// any set, but one beyond these limits cannot be named in a catch-up
// request.
func CheckSubscriptions(cats []string) error {
	for _, c := range cats {
		if err := ValidCategory(c); err != nil {
			return err
		}
	}
	set := NewCategorySet(cats...)
	if len(set) > MaxCategories {
		return fmt.Errorf("subscriptions: %d categories, at most %d", len(set), MaxCategories)
	}
	if n := catSetBytes(set); n > MaxSubscriptionBytes {
		return fmt.Errorf("subscriptions: %d bytes on the wire, at most %d", n, MaxSubscriptionBytes)
	}
	return nil
}

// routingSetFits reports whether a RoutingInfo carrying cs can be encoded.
func routingSetFits(cs CategorySet) bool {
	return len(cs) <= MaxCategories && 1+catSetBytes(cs) <= MaxFrameBytes
}

// fitRoutingSet returns cs when a RoutingInfo can carry it, and otherwise
// the finest coarser set that fits and matches every category cs matches.
func fitRoutingSet(cs CategorySet) CategorySet {
	if routingSetFits(cs) {
		return cs
	}
	if cs.Has(AllCategories) {
		return CategorySet{AllCategories}
	}
	coarse := withoutCovered(cs)
	depth := 0
	for _, c := range coarse {
		depth = max(depth, strings.Count(c, "/")+1)
	}
	for ; depth >= 1; depth-- {
		coarse = cutToDepth(coarse, depth)
		if routingSetFits(coarse) {
			return coarse
		}
	}
	return CategorySet{AllCategories}
}

// withoutCovered returns cs without the categories an ancestor in cs
// covers ("sales/emea" when "sales" is there): Matches is the same.
func withoutCovered(cs CategorySet) CategorySet {
	out := make(CategorySet, 0, len(cs))
	for _, c := range cs {
		covered := false
		for a := c; !covered; {
			i := strings.LastIndexByte(a, '/')
			if i < 0 {
				break
			}
			a = a[:i]
			covered = cs.Has(a)
		}
		if !covered {
			out = append(out, c)
		}
	}
	return out
}

// cutToDepth replaces every category deeper than depth levels by its
// ancestor at that depth.
func cutToDepth(cs CategorySet, depth int) CategorySet {
	out := make([]string, 0, len(cs))
	for _, c := range cs {
		i, level := 0, 0
		for ; i < len(c); i++ {
			if c[i] == '/' {
				if level++; level == depth {
					break
				}
			}
		}
		out = append(out, c[:i])
	}
	return withoutCovered(NewCategorySet(out...))
}

// fitCatchUp leaves out the last sources of c.Known that do not fit one
// frame beside the rest of c. Known is not modified in place.
func fitCatchUp(c *CatchUp) {
	if catchUpBytes(c) <= MaxFrameBytes {
		return
	}
	rest := catchUpBytes(&CatchUp{Categories: c.Categories, Since: c.Since, Trail: c.Trail}) - 1 // without Known's count
	n := 0
	keep := 0
	for i, k := range c.Known {
		add := stringBytes(k.Source) + uvarintBytes(k.Next)
		if rest+uvarintBytes(uint64(i+1))+n+add > MaxFrameBytes {
			break
		}
		n += add
		keep = i + 1
	}
	c.Known = c.Known[:keep:keep]
}

// catchUpBytes is the size of c's frame, type byte included, without the
// length prefix: what MaxFrameBytes bounds.
func catchUpBytes(c *CatchUp) int {
	n := 1 + catSetBytes(c.Categories) + uvarintBytes(uint64(len(c.Known)))
	for _, k := range c.Known {
		n += stringBytes(k.Source) + uvarintBytes(k.Next)
	}
	n += uvarintBytes(uint64(c.Since)) + uvarintBytes(uint64(len(c.Trail)))
	for _, id := range c.Trail {
		n += stringBytes(string(id))
	}
	return n
}

// catSetBytes is the encoded size of a category set.
func catSetBytes(cs CategorySet) int {
	n := uvarintBytes(uint64(len(cs)))
	for _, c := range cs {
		n += stringBytes(c)
	}
	return n
}

func stringBytes(s string) int { return uvarintBytes(uint64(len(s))) + len(s) }

func uvarintBytes(v uint64) int {
	n := 1
	for ; v >= 0x80; v >>= 7 {
		n++
	}
	return n
}
