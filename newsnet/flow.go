package newsnet

// Backlogged reports whether some tree link has fallen far behind: it holds
// more than half of Config.LinkBacklog withheld items. Publishing more now
// only grows the backlog, so hosts hold publishers back until it clears
// (node.Publish waits).
func (s *Servant) Backlogged() bool {
	return false
}

// written takes the host's report that bytes of l's queued frames are out.
func (s *Servant) written(l *link, bytes int) {}
