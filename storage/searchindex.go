package storage

import (
	"bytes"
	"encoding/binary"
	"hash/maphash"
	"math/bits"
	"slices"
	"sort"
	"strings"

	"github.com/google/uuid"

	"newsdesk/categories"
)

// indexData is the inverted word index.
//
//   - Documents are numbered densely in the order they were added; order
//     lists the numbers sorted by item ID (time), so a query walks it from
//     the newest end and stops after the page is full.
//   - The dictionary keeps every distinct word once, in one byte arena with
//     0x00 between words: a query word is looked for in the whole arena with
//     one bytes.Index pass (a match cannot span two words, since words never
//     contain 0x00), which is how "mail" finds "mailbox".
//   - A posting list is a word's ascending document numbers as uvarint
//     deltas (about 1.2 bytes a posting); a word in at least 1/8 of the
//     documents switches to a bitset (N/8 bytes, no bigger than its deltas),
//     so the common words that dominate a broad query are OR-ed a machine
//     word at a time instead of decoded one by one.
//   - Removed documents stay as tombstones until they outnumber the live
//     ones; then compact renumbers everything.
type indexData struct {
	docs  []docEntry
	byID  map[uuid.UUID]uint32
	order []uint32 // document numbers by ascending item ID; tombstones included
	late  []uint32 // added out of ID order, to be merged into order
	dead  int
	dict  dictionary
	posts []postings // by term number
	cats  map[string]string
}

type docEntry struct {
	id       uuid.UUID
	category string // interned
	alive    bool
}

var (
	// denseMin is the smallest document frequency at which a posting list
	// may become a bitset; below it the deltas are small anyway.
	denseMin = 1024
	// compactMin is how many tombstones there must be before compact runs
	// (and then only when they outnumber the live documents).
	compactMin = 1024
)

func newIndexData() *indexData {
	return &indexData{
		byID: make(map[uuid.UUID]uint32),
		cats: make(map[string]string),
		dict: newDictionary(),
	}
}

func (d *indexData) apply(ops []indexOp) {
	for _, op := range ops {
		if op.remove {
			d.remove(op.doc.id)
		} else {
			d.add(op.doc)
		}
	}
	d.mergeLate()
	if d.dead > compactMin && d.dead*2 > len(d.docs) {
		d.compact()
	}
}

func (d *indexData) add(doc indexDoc) {
	if _, ok := d.byID[doc.id]; ok {
		return
	}
	cat, ok := d.cats[doc.category]
	if !ok {
		cat = strings.Clone(doc.category)
		d.cats[cat] = cat
	}
	n := uint32(len(d.docs))
	d.docs = append(d.docs, docEntry{id: doc.id, category: cat, alive: true})
	d.byID[doc.id] = n
	// Items mostly arrive newest last: append. Older ones (a catch-up)
	// are merged in once per batch by mergeLate, not inserted one by one.
	if k := len(d.order); k == 0 || compareID(d.docs[d.order[k-1]].id, doc.id) < 0 {
		d.order = append(d.order, n)
	} else {
		d.late = append(d.late, n)
	}
	d.addText(n, doc.title)
	d.addText(n, doc.body)
}

func (d *indexData) addText(n uint32, text string) {
	forEachWord(text, func(w []byte) bool {
		tid, ok := d.dict.lookup(w)
		if !ok {
			tid = d.dict.insert(w)
			d.posts = append(d.posts, postings{})
		}
		d.posts[tid].add(n, len(d.docs))
		return true
	})
}

// mergeLate merges the documents added out of order into order.
func (d *indexData) mergeLate() {
	if len(d.late) == 0 {
		return
	}
	byID := func(a, b uint32) int { return compareID(d.docs[a].id, d.docs[b].id) }
	slices.SortFunc(d.late, byID)
	merged := make([]uint32, 0, len(d.order)+len(d.late))
	i, j := 0, 0
	for i < len(d.order) && j < len(d.late) {
		if byID(d.order[i], d.late[j]) < 0 {
			merged = append(merged, d.order[i])
			i++
		} else {
			merged = append(merged, d.late[j])
			j++
		}
	}
	merged = append(append(merged, d.order[i:]...), d.late[j:]...)
	d.order, d.late = merged, d.late[:0]
}

func (d *indexData) remove(id uuid.UUID) {
	n, ok := d.byID[id]
	if !ok {
		return
	}
	delete(d.byID, id)
	d.docs[n].alive = false
	d.dead++
}

// compact drops removed documents, renumbers the rest (keeping their
// relative order, so posting lists stay ascending) and drops words left
// without documents.
func (d *indexData) compact() {
	remap := make([]uint32, len(d.docs))
	live := make([]docEntry, 0, len(d.docs)-d.dead)
	for i, doc := range d.docs {
		if doc.alive {
			remap[i] = uint32(len(live))
			d.byID[doc.id] = remap[i]
			live = append(live, doc)
		} else {
			remap[i] = ^uint32(0)
		}
	}
	order := make([]uint32, 0, len(live))
	for _, n := range d.order {
		if m := remap[n]; m != ^uint32(0) {
			order = append(order, m)
		}
	}
	dict := newDictionary()
	var posts []postings
	for tid := range d.posts {
		var np postings
		d.posts[tid].each(func(n uint32) {
			if m := remap[n]; m != ^uint32(0) {
				np.add(m, len(live))
			}
		})
		if np.n > 0 {
			dict.insert(d.dict.term(uint32(tid)))
			np.clip()
			posts = append(posts, np)
		}
	}
	d.docs, d.order, d.dict, d.posts, d.dead = live, order, dict, posts, 0
}

// trim returns the spare capacity left by append growth after a bulk build.
func (d *indexData) trim() {
	for i := range d.posts {
		d.posts[i].clip()
	}
}

// verifyFunc reports whether the stored item id contains every term (see
// containsAll); false for an item no longer stored.
type verifyFunc func(id uuid.UUID, terms [][]byte) (bool, error)

// Query planning. A query word that occurs in a large part of the index
// ("e", "ne") matches thousands of dictionary words whose posting lists add
// up to millions of entries; uniting them costs tens of milliseconds. But
// such a word also matches most items, so reading the newest items and
// checking their text finds a page of results after a few dozen items. The
// planner estimates both costs per query word and picks the cheaper one; a
// check that keeps failing (a broad word that rarely co-occurs with the
// rest) falls back to the posting lists after verifyBudget items.
const (
	unionCostNs  = 8     // per posting, measured with cmd/storebench
	verifyCostNs = 10000 // per item read from bbolt and scanned
)

var (
	// verifyBudget is how many items a query checks before falling back to
	// the posting lists.
	verifyBudget = 2000
	// searchPlan forces a plan in tests: 0 chooses by cost, 1 uses the
	// posting lists only, 2 checks text for every query word.
	searchPlan = 0
)

// search returns the IDs of the newest (at most k) live documents below
// bound that are in cats (all if empty) and contain every term, newest
// first. verify, if not nil, checks an item's stored text.
func (d *indexData) search(terms []string, cats []string, bound uuid.UUID, k int, verify verifyFunc) ([]uuid.UUID, error) {
	type qword struct {
		q      []byte
		tids   []uint32 // dictionary words containing q
		volume int      // their postings
	}
	var indexed, checked []qword
	for _, t := range terms {
		w := qword{q: []byte(t)}
		d.dict.containing(w.q, func(tid uint32) {
			w.tids = append(w.tids, tid)
			w.volume += int(d.posts[tid].n)
		})
		if len(w.tids) == 0 {
			return nil, nil // a word no item contains
		}
		if verify != nil && d.checkCheaper(w.volume, k) {
			checked = append(checked, w)
		} else {
			indexed = append(indexed, w)
		}
	}
	var acc []uint64 // nil: every document
	intersect := func(w qword) {
		set := make([]uint64, (len(d.docs)+63)/64)
		for _, tid := range w.tids {
			d.posts[tid].or(set)
		}
		if acc == nil {
			acc = set
			return
		}
		for i := range acc {
			acc[i] &= set[i]
		}
	}
	for _, w := range indexed {
		intersect(w)
	}
	checks := make([][]byte, len(checked))
	for i, w := range checked {
		checks[i] = w.q
	}
	end := sort.Search(len(d.order), func(i int) bool { return compareID(d.docs[d.order[i]].id, bound) >= 0 })
	var out []uuid.UUID
	examined := 0
	for i := end - 1; i >= 0 && len(out) < k; i-- {
		n := d.order[i]
		if acc != nil && acc[n>>6]&(1<<(n&63)) == 0 {
			continue
		}
		doc := &d.docs[n]
		if !doc.alive || (len(cats) > 0 && !categories.CoveredByAny(cats, doc.category)) {
			continue
		}
		if len(checks) > 0 {
			if examined++; examined > verifyBudget {
				for _, w := range checked {
					intersect(w)
				}
				checks = nil
				if acc[n>>6]&(1<<(n&63)) == 0 {
					continue
				}
			} else if ok, err := verify(doc.id, checks); err != nil {
				return nil, err
			} else if !ok {
				continue
			}
		}
		out = append(out, doc.id)
	}
	return out, nil
}

// checkCheaper estimates whether checking item text beats uniting the
// posting lists for a query word with the given volume. A word's volume is
// at least the number of items it matches, so volume/items bounds the share
// of items that pass, and k/share items must be read to fill the page.
func (d *indexData) checkCheaper(volume, k int) bool {
	switch searchPlan {
	case 1:
		return false
	case 2:
		return true
	}
	live := max(len(d.byID), 1)
	share := min(float64(volume)/float64(live), 1)
	return float64(k)/share*verifyCostNs < float64(volume)*unionCostNs
}

func compareID(a, b uuid.UUID) int { return bytes.Compare(a[:], b[:]) }

// postings is one word's document list, sparse or dense.
type postings struct {
	data []byte   // sparse: uvarint deltas of ascending document numbers
	bits []uint64 // dense: bitset of document numbers (then data is nil)
	last uint32   // the last document number added
	n    uint32   // documents added (tombstones included)
}

func (p *postings) add(doc uint32, ndocs int) {
	if p.n > 0 && p.last == doc {
		return // already listed for this document
	}
	if p.bits != nil {
		for int(doc>>6) >= len(p.bits) {
			p.bits = append(p.bits, 0)
		}
		p.bits[doc>>6] |= 1 << (doc & 63)
	} else {
		p.data = binary.AppendUvarint(p.data, uint64(doc-p.last))
	}
	p.last = doc
	p.n++
	if p.bits == nil && int(p.n) >= denseMin && int(p.n)*8 >= ndocs {
		b := make([]uint64, (ndocs+63)/64) // every number so far is below ndocs
		p.each(func(n uint32) { b[n>>6] |= 1 << (n & 63) })
		p.bits, p.data = b, nil
	}
}

// each calls fn with every document number, ascending.
func (p *postings) each(fn func(n uint32)) {
	if p.bits != nil {
		for i, w := range p.bits {
			for w != 0 {
				fn(uint32(i*64 + bits.TrailingZeros64(w)))
				w &= w - 1
			}
		}
		return
	}
	var n uint32
	for b := p.data; len(b) > 0; {
		delta, k := binary.Uvarint(b)
		b = b[k:]
		n += uint32(delta)
		fn(n)
	}
}

// or adds the documents to a bitset that covers every document number.
func (p *postings) or(set []uint64) {
	if p.bits != nil {
		for i, w := range p.bits[:min(len(p.bits), len(set))] {
			set[i] |= w
		}
		return
	}
	p.each(func(n uint32) { set[n>>6] |= 1 << (n & 63) })
}

func (p *postings) clip() {
	if cap(p.data) > len(p.data) {
		p.data = slices.Clone(p.data)
	}
	if cap(p.bits) > len(p.bits) {
		p.bits = slices.Clone(p.bits)
	}
}

// dictionary maps words to term numbers. The words live in one arena,
// "w0\x00w1\x00…", found by an open-addressing hash table whose slots hold
// 32 bits of the hash (to skip most mismatches without touching the arena)
// and the term number plus one (0 marks an empty slot). One allocation for
// all words instead of one per word keeps a dictionary of a few hundred
// thousand words cheap for the garbage collector, and the arena is what the
// substring scan reads.
type dictionary struct {
	seed  maphash.Seed
	arena []byte
	offs  []uint32 // term i is arena[offs[i] : offs[i+1]-1]; len(offs) = terms+1
	hash  []uint64 // by term, for growing the table
	table []uint64
}

func newDictionary() dictionary {
	return dictionary{seed: maphash.MakeSeed(), offs: []uint32{0}, table: make([]uint64, 1024)}
}

func (t *dictionary) len() int { return len(t.offs) - 1 }

func (t *dictionary) term(tid uint32) []byte {
	return t.arena[t.offs[tid] : t.offs[tid+1]-1]
}

func (t *dictionary) lookup(w []byte) (uint32, bool) {
	h := maphash.Bytes(t.seed, w)
	mask := uint64(len(t.table) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		e := t.table[i]
		if e == 0 {
			return 0, false
		}
		if e>>32 == h>>32 {
			if tid := uint32(e) - 1; bytes.Equal(t.term(tid), w) {
				return tid, true
			}
		}
	}
}

// insert adds a word that lookup did not find and returns its number.
func (t *dictionary) insert(w []byte) uint32 {
	tid := uint32(t.len())
	t.arena = append(append(t.arena, w...), 0)
	t.offs = append(t.offs, uint32(len(t.arena)))
	h := maphash.Bytes(t.seed, w)
	t.hash = append(t.hash, h)
	if 2*t.len() > len(t.table) {
		t.table = make([]uint64, 2*len(t.table))
		for i, h := range t.hash {
			t.place(h, uint32(i))
		}
	} else {
		t.place(h, tid)
	}
	return tid
}

func (t *dictionary) place(h uint64, tid uint32) {
	mask := uint64(len(t.table) - 1)
	i := h & mask
	for t.table[i] != 0 {
		i = (i + 1) & mask
	}
	t.table[i] = h>>32<<32 | uint64(tid+1)
}

// containing calls fn with every term that contains q (q is not empty and
// has no 0x00).
func (t *dictionary) containing(q []byte, fn func(tid uint32)) {
	for pos := 0; pos < len(t.arena); {
		i := bytes.Index(t.arena[pos:], q)
		if i < 0 {
			return
		}
		p := uint32(pos + i)
		// The term holding position p: the last one starting at or before it.
		tid := uint32(sort.Search(t.len(), func(j int) bool { return t.offs[j+1] > p }))
		fn(tid)
		pos = int(t.offs[tid+1]) // continue with the next term
	}
}
