package newsnet

// What the servant lends the blob transfers (blobHost), and where it steps
// them: on a delivery (the eager blobs of the item), on a FetchBlob, on the
// blob frames from tree links, on every tick, and when a link's queue
// drained (Written).

var _ blobHost = (*Servant)(nil)

// blobPath asks along the reverse path toward the source, else over the
// other tree links, the uplink first: a source not in this subtree lies
// above it. The transfers decide which links to avoid (blobTransfers.path):
// those that asked for the blob here, and those asked in vain, for the
// reverse path may be stale after the tree re-formed, or lead to a peer
// that cannot get the blob.
func (s *Servant) blobPath(source string, avoid func(*link) bool) *link {
	carries := func(l *link) bool { return l != nil && l.tree() && l.version >= blobsSince && !avoid(l) }
	if l := s.repairs.reversePath(s, source, nil); carries(l) {
		return l
	}
	for _, l := range s.treeLinks() {
		if carries(l) {
			return l
		}
	}
	return nil
}

// delivered asks for the eager blobs of an item delivered here.
func (b *blobTransfers) delivered(host blobHost, m *Multicast) {
	if b.cfg.Refs == nil {
		return
	}
	for _, ref := range b.cfg.Refs(m) {
		if ref.Eager {
			b.fetch(host, ref, m.Source)
		}
	}
}
