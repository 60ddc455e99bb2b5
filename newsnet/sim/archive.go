package sim

import "newsdesk/newsnet"

// Archive is a simulated host store: the messages a servant delivered or
// published, by source and count. It survives a servant's restart, as the
// bbolt store does.
type Archive map[archiveKey]*newsnet.Multicast

type archiveKey struct {
	source string
	count  uint64
}

var _ newsnet.Archive = Archive(nil)

// Lookup implements newsnet.Archive.
func (a Archive) Lookup(source string, count uint64) *newsnet.Multicast {
	return a[archiveKey{source, count}]
}

func (a Archive) put(m *newsnet.Multicast) {
	if m.Count > 0 {
		a[archiveKey{m.Source, m.Count}] = m
	}
}
