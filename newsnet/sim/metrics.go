package sim

import "newsdesk/newsnet"

// DepthsOf returns the depth of every servant below the vertex (the vertex
// has depth 0). It assumes CheckTreeOf passed.
func DepthsOf(sts []newsnet.Status) map[newsnet.ServantID]int {
	st := byID(sts)
	depth := make(map[newsnet.ServantID]int, len(st))
	var of func(id newsnet.ServantID) int
	of = func(id newsnet.ServantID) int {
		if d, ok := depth[id]; ok {
			return d
		}
		d := 0
		if p := st[id].Up; p != "" {
			d = of(p) + 1
		}
		depth[id] = d
		return d
	}
	for id := range st {
		of(id)
	}
	return depth
}

// MinimumFramesOf is the fewest frames any overlay on this tree needs to
// carry an item of category cat from publisher to every subscriber: the
// number of edges of the subtree spanning the publisher and the subscribers.
// An edge is needed exactly when both of its sides hold a member.
func MinimumFramesOf(sts []newsnet.Status, publisher newsnet.ServantID, cat string) int {
	children := map[newsnet.ServantID][]newsnet.ServantID{}
	var vertex newsnet.ServantID
	member := map[newsnet.ServantID]bool{}
	total := 0
	for _, s := range sts {
		if s.Up == "" {
			vertex = s.ID
		} else {
			children[s.Up] = append(children[s.Up], s.ID)
		}
		if s.ID == publisher || s.Subscriptions.Matches(cat) {
			member[s.ID] = true
			total++
		}
	}
	edges := 0
	var count func(id newsnet.ServantID) int // members in the subtree of id
	count = func(id newsnet.ServantID) int {
		k := 0
		if member[id] {
			k++
		}
		for _, c := range children[id] {
			kc := count(c)
			if kc > 0 && kc < total {
				edges++ // the edge c–id separates members
			}
			k += kc
		}
		return k
	}
	count(vertex)
	return edges
}
