package newsnet

// cacheKey names one message of one source.
type cacheKey struct {
	source string
	count  uint64
}

// relayCache keeps the most recent messages this servant forwarded or
// delivered, to answer requests from below without going to the source
// (requestRelay) and to send again what a busy link's flow withheld.
// It is bounded by count and by payload bytes, whichever is reached first.
type relayCache struct {
	msgs       map[cacheKey]*Multicast
	order      []cacheKey // oldest first
	limit      int
	bytes      int
	limitBytes int
}

func (c *relayCache) add(m *Multicast) {
	if c.limit == 0 || c.limitBytes == 0 || m.Count == 0 {
		return
	}
	k := cacheKey{m.Source, m.Count}
	if _, ok := c.msgs[k]; ok {
		return
	}
	if c.msgs == nil {
		c.msgs = map[cacheKey]*Multicast{}
	}
	c.msgs[k] = m
	c.bytes += len(m.Payload)
	c.order = append(c.order, k)
	for len(c.order) > c.limit || c.bytes > c.limitBytes && len(c.order) > 1 {
		c.bytes -= len(c.msgs[c.order[0]].Payload)
		delete(c.msgs, c.order[0])
		c.order[0] = cacheKey{}
		c.order = c.order[1:]
	}
}

// lookup finds a message in the relay cache, then in the host's archive.
func (c *core) lookup(source string, count uint64) *Multicast {
	if m := c.cache.msgs[cacheKey{source, count}]; m != nil {
		return m
	}
	if c.cfg.Archive != nil {
		return c.cfg.Archive.Lookup(source, count)
	}
	return nil
}
