package newsnet

import "fmt"

// The second opinion (opinion.go): a servant asks a seed, over a link of
// its own, how far the streams it follows have got.

// StreamQuery asks the servant reached for the latest counts it knows of
// the streams in Categories. It is the first and only frame the asker
// sends on the link; the answer is one StreamHeads.
type StreamQuery struct {
	Categories CategorySet
}

// StreamHeads answers a StreamQuery: the latest count the answering
// servant knows of each stream (source and category) matching the query,
// at most MaxStreamHeads, the most advanced first.
type StreamHeads struct {
	Heads []StreamHead
}

// StreamHead is how far one stream has got.
type StreamHead struct {
	Source, Category string
	Count            uint64
}

// MaxStreamHeads bounds the heads of one answer.
const MaxStreamHeads = 1024

// opinionSince is the first wire version with the second opinion's frames.
const opinionSince = 6

func (*StreamQuery) since() uint16 { return opinionSince }
func (*StreamHeads) since() uint16 { return opinionSince }

func (m *StreamQuery) marshal(e *encoder) { e.categories("categories", m.Categories) }

func (m *StreamQuery) unmarshal(d *decoder) { m.Categories = d.categories("categories") }

func (m *StreamHeads) marshal(e *encoder) {
	if len(m.Heads) > MaxStreamHeads {
		e.fail(fmt.Errorf("heads: %w: %d > %d", errTooMany, len(m.Heads), MaxStreamHeads))
		return
	}
	e.uvarint(uint64(len(m.Heads)))
	for _, h := range m.Heads {
		e.string("head source", h.Source, MaxIDBytes)
		e.string("head category", h.Category, MaxCategoryBytes)
		e.uvarint(h.Count)
	}
}

func (m *StreamHeads) unmarshal(d *decoder) {
	n := d.count("heads", MaxStreamHeads)
	if n == 0 {
		return
	}
	m.Heads = make([]StreamHead, n)
	for i := range m.Heads {
		m.Heads[i].Source = d.string("head source", MaxIDBytes)
		m.Heads[i].Category = d.string("head category", MaxCategoryBytes)
		m.Heads[i].Count = d.uvarint("head count")
	}
}
