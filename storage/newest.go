package storage

import (
	"bytes"
	"encoding/base64"
	"fmt"

	"go.etcd.io/bbolt"

	"newsdesk/categories"
)

// Cursor is an opaque position in a newest-first listing: "" is the start,
// and a listing returns the cursor of its next page ("" when there is none).
// It holds the ID of the last item returned, and the next page continues
// with strictly older IDs, so items that arrive in the meantime with newer
// IDs never shift or repeat a page.
type Cursor string

func cursorFor(id []byte) Cursor {
	return Cursor(base64.RawURLEncoding.EncodeToString(id))
}

// bound returns the exclusive upper bound of the page: the cursor's ID, or
// above every UUIDv7 for the first page.
func (c Cursor) bound() ([]byte, error) {
	if c == "" {
		return bytes.Repeat([]byte{0xff}, 16), nil
	}
	b, err := base64.RawURLEncoding.DecodeString(string(c))
	if err != nil || len(b) != 16 {
		return nil, fmt.Errorf("%w: %q", ErrBadCursor, string(c))
	}
	return b, nil
}

// Newest returns up to n items of the given categories, newest (by ID, that
// is creation time) first, starting after cur. A category in cats also
// selects everything under it ("sales" selects "sales/emea"); an empty cats
// selects all items. The returned cursor fetches the next page; it is ""
// when there are no more items.
func (s *Store) Newest(cats []string, n int, cur Cursor) ([]Entry, Cursor, error) {
	if n <= 0 {
		return nil, "", fmt.Errorf("storage: newest: page size %d, must be positive", n)
	}
	for _, c := range cats {
		if err := categories.ValidateID(c); err != nil {
			return nil, "", fmt.Errorf("storage: newest: %w", err)
		}
	}
	bound, err := cur.bound()
	if err != nil {
		return nil, "", err
	}
	var out []Entry
	var next Cursor
	err = s.view("newest", func(tx *bbolt.Tx) error {
		b := itemBuckets(tx)
		walk, err := newestWalk(b, cats, bound)
		if err != nil {
			return err
		}
		for len(out) < n {
			id := walk.next()
			if id == nil {
				return walk.failed()
			}
			e, err := b.visibleEntry(id)
			if err != nil {
				return err
			}
			if e == nil {
				return corruptf("index entry for missing item %x", id)
			}
			out = append(out, *e)
		}
		if walk.next() != nil {
			next = cursorFor(out[len(out)-1].Item.ID[:])
		}
		return walk.failed()
	})
	if err != nil {
		return nil, "", err
	}
	return out, next, nil
}

// idWalk yields item IDs in descending order; nil when exhausted, or when
// it met a malformed key (then failed says so). The slices point into
// bbolt's memory: valid while the transaction is open.
type idWalk interface {
	next() []byte
	failed() error
}

// newestWalk walks the visible items below bound: over the items bucket
// when all categories are wanted, skipping retracted ones, else a merge over
// the by-category ranges of every existing category the set covers (each
// range is sorted by ID and holds no retracted item; the categories come from
// item-counts, which lists exactly those with visible items).
func newestWalk(b buckets, cats []string, bound []byte) (idWalk, error) {
	if len(cats) == 0 {
		return visibleWalk{newDescCursor(b.items.Cursor(), nil, bound), b.retracted}, nil
	}
	m := &mergeWalk{}
	err := b.itemCounts.ForEach(func(k, _ []byte) error {
		if categories.CoveredByAny(cats, string(k)) {
			m.parts = append(m.parts, newDescCursor(b.byCategory.Cursor(), categoryPrefix(string(k)), bound))
		}
		return nil
	})
	return m, err
}

// descCursor walks the keys prefix+id (id 16 bytes) below prefix+bound in
// descending order.
type descCursor struct {
	c      *bbolt.Cursor
	prefix []byte
	cur    []byte // current ID, nil when exhausted
	err    error  // a key in the range that is not prefix+id
}

func newDescCursor(c *bbolt.Cursor, prefix, bound []byte) *descCursor {
	d := &descCursor{c: c, prefix: prefix}
	seek := append(append([]byte(nil), prefix...), bound...)
	// Seek finds the first key >= seek; the one before it is the first
	// key < seek, where the walk starts.
	k, _ := c.Seek(seek)
	if k == nil {
		k, _ = c.Last()
	} else {
		k, _ = c.Prev()
	}
	d.set(k)
	return d
}

func (d *descCursor) set(k []byte) {
	d.cur = nil
	switch {
	case k == nil || !bytes.HasPrefix(k, d.prefix):
	case len(k) != len(d.prefix)+16:
		d.err = corruptf("key %s malformed", hexCut(k))
	default:
		d.cur = k[len(d.prefix):]
	}
}

func (d *descCursor) failed() error { return d.err }

// peek returns the current ID without advancing.
func (d *descCursor) peek() []byte { return d.cur }

func (d *descCursor) advance() {
	if d.cur != nil {
		k, _ := d.c.Prev()
		d.set(k)
	}
}

func (d *descCursor) next() []byte {
	id := d.cur
	d.advance()
	return id
}

// mergeWalk merges descending walks. A linear pick over the parts is fine:
// a set covers at most the network's categories (tens), and a page is short.
type mergeWalk struct {
	parts []*descCursor
}

func (m *mergeWalk) failed() error {
	for _, p := range m.parts {
		if p.err != nil {
			return p.err
		}
	}
	return nil
}

func (m *mergeWalk) next() []byte {
	var best *descCursor
	for _, p := range m.parts {
		if id := p.peek(); id != nil && (best == nil || bytes.Compare(id, best.peek()) > 0) {
			best = p
		}
	}
	if best == nil {
		return nil
	}
	return best.next()
}
