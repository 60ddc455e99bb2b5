package newsnet

// The recovery messages: retransmission requests and answers
// (JP3679935B2) and catch-up pages, each with its codec.

import (
	"fmt"
)

// CatchUpDone ends one page of a catch-up answer, travelling back along
// Trail after the page's items. More says the archive stopped at the page
// limit: the requester asks again from Next, where the page ended for each
// source it held (retransmissions that arrive meanwhile say nothing of
// where a page got to).
type CatchUpDone struct {
	Trail []ServantID
	More  bool
	Next  []SourceCount
}

// Recover asks for messages of Source (or only their categories) that the
// requester missed. It travels toward the source along the reverse path (the
// link each hop's copies of the source's messages arrived on) until a
// servant holding them answers. Trail lists the servants it passed,
// requester first, so the answers can retrace it.
type Recover struct {
	Source         string
	Counts         []uint64 // ascending
	CategoriesOnly bool     // classify a gap older than the history window
	// Search makes every hop pass the request on over all its other tree
	// links instead of the reverse path alone: a retry, for the reverse
	// path goes stale when the tree re-forms after the source's last item.
	Search bool
	Trail  []ServantID
}

// Recovered answers a Recover, travelling back along Trail (each hop removes
// itself from the end). It carries one message, or the categories of counts
// (for CategoriesOnly), or the counts nobody on the path holds.
type Recovered struct {
	Trail      []ServantID
	Source     string
	Msg        *Multicast      // a retransmitted message, or nil
	Categories []CountCategory // answers to a CategoriesOnly request
	Missing    []uint64        // counts the end of the path does not hold
}

// CatchUp asks for what a servant missed while it was away (or, for a
// category it just subscribed to, what was published before). It travels up
// the tree to the nearest servant able to answer: one that subscribes to
// every category asked for and keeps an archive (an archive servant
// subscribes to everything). The items come back as Recovered frames along
// Trail, in source order.
type CatchUp struct {
	Categories CategorySet
	Known      []SourceCount // sources followed: send their items from Next on
	Since      int64         // other sources: items stored since (Unix ns)
	Trail      []ServantID
}

// SourceCount is the next count a servant expects from a source.
type SourceCount struct {
	Source string
	Next   uint64
}

// CountCategory is the category of the source's message with this count.
type CountCategory struct {
	Count    uint64
	Category string
}

func (m *CatchUpDone) marshal(e *encoder) {
	e.ids("trail", m.Trail)
	e.flag(m.More)
	e.sourceCounts("next", m.Next)
}

func (m *CatchUpDone) unmarshal(d *decoder) {
	m.Trail = d.ids("trail")
	m.More = d.flag("more")
	m.Next = d.sourceCounts("next")
}

func (e *encoder) sourceCounts(field string, scs []SourceCount) {
	if len(scs) > MaxSources {
		e.fail(fmt.Errorf("%s: %w: %d > %d", field, errTooMany, len(scs), MaxSources))
		return
	}
	e.uvarint(uint64(len(scs)))
	for _, k := range scs {
		e.string(field+" source", k.Source, MaxIDBytes)
		e.uvarint(k.Next)
	}
}

func (d *decoder) sourceCounts(field string) []SourceCount {
	n := d.count(field, MaxSources)
	if n == 0 {
		return nil
	}
	scs := make([]SourceCount, n)
	for i := range scs {
		scs[i] = SourceCount{Source: d.string(field+" source", MaxIDBytes), Next: d.uvarint(field + " next")}
	}
	if d.err != nil {
		return nil
	}
	return scs
}

func (m *Recover) marshal(e *encoder) {
	e.string("source", m.Source, MaxIDBytes)
	e.counts("counts", m.Counts, MaxCounts)
	e.flag(m.CategoriesOnly)
	e.flag(m.Search)
	e.ids("trail", m.Trail)
}

func (m *Recover) unmarshal(d *decoder) {
	m.Source = d.string("source", MaxIDBytes)
	m.Counts = d.counts("counts", MaxCounts)
	m.CategoriesOnly = d.flag("categoriesOnly")
	m.Search = d.flag("search")
	m.Trail = d.ids("trail")
}

func (m *CatchUp) marshal(e *encoder) {
	e.categories("categories", m.Categories)
	e.sourceCounts("known", m.Known)
	e.uvarint(uint64(m.Since))
	e.ids("trail", m.Trail)
}

func (m *CatchUp) unmarshal(d *decoder) {
	m.Categories = d.categories("categories")
	m.Known = d.sourceCounts("known")
	m.Since = int64(d.uvarint("since"))
	m.Trail = d.ids("trail")
}

func (m *Recovered) marshal(e *encoder) {
	e.ids("trail", m.Trail)
	e.string("source", m.Source, MaxIDBytes)
	e.flag(m.Msg != nil)
	if m.Msg != nil {
		m.Msg.marshal(e)
	}
	e.countCategories(m.Categories)
	e.counts("missing", m.Missing, MaxCounts)
}

func (m *Recovered) unmarshal(d *decoder) {
	m.Trail = d.ids("trail")
	m.Source = d.string("source", MaxIDBytes)
	if d.flag("msg") {
		m.Msg = new(Multicast)
		m.Msg.unmarshal(d)
	}
	m.Categories = d.countCategories()
	m.Missing = d.counts("missing", MaxCounts)
}

func (e *encoder) counts(field string, cs []uint64, max int) {
	if len(cs) > max {
		e.fail(fmt.Errorf("%s: %w: %d > %d", field, errTooMany, len(cs), max))
		return
	}
	e.uvarint(uint64(len(cs)))
	for _, c := range cs {
		e.uvarint(c)
	}
}

func (e *encoder) countCategories(cc []CountCategory) {
	if len(cc) > MaxCounts {
		e.fail(fmt.Errorf("categories: %w: %d > %d", errTooMany, len(cc), MaxCounts))
		return
	}
	e.uvarint(uint64(len(cc)))
	for _, c := range cc {
		e.uvarint(c.Count)
		e.string("category", c.Category, MaxCategoryBytes)
	}
}

func (d *decoder) counts(field string, max int) []uint64 {
	n := d.count(field, max)
	if n == 0 {
		return nil
	}
	cs := make([]uint64, n)
	for i := range cs {
		cs[i] = d.uvarint(field)
	}
	if d.err != nil {
		return nil
	}
	return cs
}

func (d *decoder) countCategories() []CountCategory {
	n := d.count("categories", MaxCounts)
	if n == 0 {
		return nil
	}
	cc := make([]CountCategory, n)
	for i := range cc {
		cc[i] = CountCategory{Count: d.uvarint("count"), Category: d.string("category", MaxCategoryBytes)}
	}
	if d.err != nil {
		return nil
	}
	return cc
}
