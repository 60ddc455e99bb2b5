package newsnet

import "slices"

// optimize is tree optimization for a servant below the vertex (JP4353827B2
// Fig. 6), run on every partition message from the up-servant: when our
// partition lies strictly inside the up-servant's, pass ours down (S409-S411);
// otherwise our subtree sticks out of where the tree would put it, so reset
// every down-servant, drop them and clear the subtree state (S413-S417).
func (s *Servant) optimize(upPart Partition, path []ServantID) {
	if slices.Contains(path, s.id) {
		// A partition message came back to us: we are in a cycle.
		s.note("cycle detected through %v", path)
		up := s.up
		s.closeLink(up, "cycle")
		s.becomeDetached()
		s.connector.start(s, nil)
		return
	}
	s.rootPath = slices.Clone(path)
	if len(path) > 0 && slices.Contains(s.connector.seedTargets(), path[0]) {
		s.lastSeedRoot = s.now
	}
	members := s.downs.members()
	if len(members) == 0 {
		s.adm.clearSubtree()
		s.sendPartition(s.pathDown()) // to the leaves
		return
	}
	if s.adm.part.StrictlyInside(upPart) {
		s.sendPartition(s.pathDown())
		return
	}
	// Leaves hold no slot: whatever our partition, they stay.
	s.note("partition %v not inside %v: resetting %d down-servants", s.adm.part, upPart, len(members))
	s.counters.Resets++
	s.downs = s.downs[:len(s.downs)-len(members)]
	for _, d := range members {
		s.send(d, &Reset{})
		s.closeLink(d, "reset")
		d.received = nil
	}
	s.adm.clearSubtree()
	s.routeInfoAllExcept(nil)
}

// sendPartition sends our partition and path to every down-servant.
func (s *Servant) sendPartition(path []ServantID) {
	for _, d := range s.downs {
		s.send(d, &PartitionInfo{Lo: s.adm.part.Lo, Hi: s.adm.part.Hi, Path: path})
	}
}

// tickTree originates partition messages where we are a root (the vertex, or
// the top of a fragment still looking for the tree), and notices when an
// attached servant has heard no root for too long.
func (s *Servant) tickTree() {
	if s.up == nil {
		if !s.now.Before(s.nextPartition) {
			s.nextPartition = s.now.Add(s.cfg.PartitionInterval)
			s.sendPartition([]ServantID{s.id})
		}
		return
	}
	switch {
	case s.now.Sub(s.lastRootHeard) > s.cfg.RootSilence:
		// Orphaned, or in a cycle made by a race: nobody above us is a root.
		s.note("no partition message for %v: reconnecting", s.now.Sub(s.lastRootHeard))
		s.closeLink(s.up, "root silent")
		s.becomeDetached()
		s.connector.start(s, nil)
	case s.connector.isSeed() && s.now.Sub(s.lastSeedRoot) > s.cfg.RootSilence:
		// A seed under a tree whose root is not an earlier seed: the earlier
		// seeds are gone and this fragment's root is a servant still looking
		// for them. The first reachable seed must be the vertex, so leave and
		// try the earlier seeds ourselves; if none answers we become the
		// vertex and the fragment's root joins us.
		s.note("tree root %v is not an earlier seed: reconnecting", s.rootPath)
		s.closeLink(s.up, "root is not a seed")
		s.becomeDetached()
		s.connector.start(s, nil)
	}
}
