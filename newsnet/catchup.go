package newsnet

import (
	"maps"
	"slices"
	"time"
)

// Catch-up covers what gap detection cannot: a servant that was away, or
// that just subscribed, learns of nothing it missed until a source sends
// again, and a source that fell silent never does. So after (re)joining the
// tree, and after subscribing to a category, a servant asks upward for what
// it missed. The nearest archive servant (one that subscribes to
// AllCategories and keeps a store) answers from its store; without one, the
// vertex answers with what it has. The request is repeated once a little
// later, for items that were still in flight or being repaired upstream
// when the first answer was made.

// catchUpSince is the time from which catch-up asks for the items of
// sources we do not follow: when we were last attached, bounded by the
// catch-up window.
func (s *Servant) catchUpSince(last time.Time) time.Time {
	if floor := s.now.Add(-s.cfg.CatchUpWindow); last.Before(floor) {
		return floor
	}
	return last
}

// requestCatchUp asks the up-servant for the items of cats we missed. With
// followed set, the sources we follow are asked for from their next count;
// otherwise (a new category) every source is asked for since the time.
func (s *Servant) requestCatchUp(cats CategorySet, since time.Time, followed bool) {
	if s.up == nil || len(cats) == 0 {
		return
	}
	req := &CatchUp{Categories: cats, Since: since.UnixNano(), Trail: []ServantID{s.id}}
	if followed {
		for _, id := range slices.Sorted(maps.Keys(s.sources)) {
			if next := s.sources[id].next; next > 0 && len(req.Known) < MaxSources {
				req.Known = append(req.Known, SourceCount{Source: id, Next: next})
			}
		}
	}
	s.send(s.up, req)
	// Durable categories are asked for once more without the time bound:
	// a second request rather than a per-category time in the first keeps
	// the wire format as it is.
	var durable []string
	for _, c := range s.cfg.Durable {
		if cats.Matches(c) {
			durable = append(durable, c)
		}
	}
	if len(durable) > 0 && since.UnixNano() > 0 {
		all := *req
		all.Categories = NewCategorySet(durable...)
		all.Since = 0
		s.send(s.up, &all)
	}
}

// catchUpHinted runs when the up-servant passes down a catch-up hint: the
// tree above us re-formed, and messages in flight through a servant that
// died may have been lost for our whole subtree, not only for the servant
// that rejoined. So catch up ourselves (now and once more later) and pass
// the hint on.
func (s *Servant) catchUpHinted() {
	s.requestCatchUp(s.self, s.catchUpSince(s.lastUp), true)
	s.catchUpAgain = s.now.Add(s.cfg.CatchUpRepeat)
	s.hintDowns()
}

// hintDowns sends the catch-up hint (a CatchUp without a trail) to every
// down-servant.
func (s *Servant) hintDowns() {
	for _, d := range s.downs {
		s.send(d, &CatchUp{})
	}
}

// tickCatchUp repeats the catch-up after joining once, CatchUpRepeat later.
func (s *Servant) tickCatchUp() {
	if s.catchUpAgain.IsZero() || s.now.Before(s.catchUpAgain) {
		return
	}
	s.catchUpAgain = time.Time{}
	s.requestCatchUp(s.self, s.catchUpSince(s.lastUp), true)
}

// handleCatchUp answers a catch-up request from below when we are an
// archive, and passes it up otherwise. The vertex answers with what it has.
func (s *Servant) handleCatchUp(from *link, c *CatchUp) {
	if len(c.Trail) == 0 || slices.Contains(c.Trail, s.id) || len(c.Trail) >= MaxPathLen {
		return
	}
	archive := s.self.Has(AllCategories) && s.cfg.Archive != nil
	if !archive && s.up != nil {
		fwd := *c
		fwd.Trail = slices.Concat(c.Trail, []ServantID{s.id})
		s.send(s.up, &fwd)
		return
	}
	if s.cfg.Archive == nil {
		return
	}
	known := make(map[string]uint64, len(c.Known))
	for _, k := range c.Known {
		known[k.Source] = k.Next
	}
	for _, m := range s.cfg.Archive.CatchUp(c.Categories, known, time.Unix(0, c.Since), s.cfg.CatchUpLimit) {
		s.send(from, &Recovered{Trail: c.Trail, Source: m.Source, Msg: m})
	}
}
