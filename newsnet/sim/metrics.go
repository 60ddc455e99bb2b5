package sim

import "newsdesk/newsnet"

// Depths returns the depth of every live servant below the vertex (the
// vertex has depth 0). It assumes CheckTree passed.
func (n *Network) Depths() map[newsnet.ServantID]int {
	up := map[newsnet.ServantID]newsnet.ServantID{}
	for _, nd := range n.Alive() {
		up[nd.ID] = nd.Servant.Status().Up
	}
	depth := make(map[newsnet.ServantID]int, len(up))
	var of func(id newsnet.ServantID) int
	of = func(id newsnet.ServantID) int {
		if d, ok := depth[id]; ok {
			return d
		}
		d := 0
		if p := up[id]; p != "" {
			d = of(p) + 1
		}
		depth[id] = d
		return d
	}
	for id := range up {
		of(id)
	}
	return depth
}

// MinimumFrames is the fewest frames any overlay on this tree needs to
// carry an item of category cat from publisher to every subscriber: the
// number of edges of the subtree spanning the publisher and the subscribers.
// An edge is needed exactly when both of its sides hold a member.
func (n *Network) MinimumFrames(publisher newsnet.ServantID, cat string) int {
	alive := n.Alive()
	children := map[newsnet.ServantID][]newsnet.ServantID{}
	var vertex newsnet.ServantID
	member := map[newsnet.ServantID]bool{}
	total := 0
	for _, nd := range alive {
		st := nd.Servant.Status()
		if st.Up == "" {
			vertex = nd.ID
		} else {
			children[st.Up] = append(children[st.Up], nd.ID)
		}
		if nd.ID == publisher || newsnet.NewCategorySet(nd.Subscriptions...).Matches(cat) {
			member[nd.ID] = true
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
