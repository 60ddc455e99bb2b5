package storage

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"strings"
)

// checkPages walks the B+tree of an existing bbolt file with plain reads
// and refuses a file whose pages bbolt cannot safely follow.
//
// bbolt trusts every page of its file: it reaches a page by multiplying a
// page number from a parent by the page size and reading at that address of
// its memory map, and takes the counts, offsets and sizes it finds there as
// they are. A flipped byte in a child's page number sends it outside the
// map (SIGSEGV, which no recover can catch); one in a key size makes it
// slice past the page (a panic, in whatever goroutine made the read). Its
// own tx.Check follows pages the same way, in a goroutine of its own, so it
// crashes on such a file too. This walk reads the same structure with
// bounds-checked reads of the file and checks everything bbolt relies on
// to stay inside its map: every page number is below the high-water mark
// and names a page that says it is that page, of the type expected; every
// element, key and value lies inside its page; every page is reached once
// and is not also free; keys are in order, within the range their parent
// gives them; the freelist fits its page. It also checks what bbolt's
// check does (every page below the high-water mark is reachable or free),
// and, in passing, the shape of every key of the big buckets
// (bucketKeyChecks). A file that passes can be read with bbolt without
// faults; what the values mean is the decoders' business.
//
// It reads every page once with plain reads: about as long as reading the
// file. BenchmarkCheckPages: 88 ms for the 100,000-item store (229 MB, in
// the page cache) on the 2-core development machine; bbolt's tx.Check
// takes 30-100 ms on the same file. From a cold disk it costs one read of
// the file, which the search index build after Open makes anyway.
func checkPages(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return classify("check", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return classify("check", err)
	}
	m, err := fileMeta(f, fi.Size(), path)
	if err != nil {
		return err
	}
	if err := walkPages(f, m); err != nil {
		return corruptf("%s: %v", path, err)
	}
	return nil
}

// bbolt's page layout (go.etcd.io/bbolt/internal/common/page.go), all
// integers native-endian: a 16-byte header (page number uint64, flags
// uint16, element count uint16, overflow pages uint32), then the elements.
// A branch element is pos, ksize uint32 and the child's page number uint64;
// a leaf element is flags, pos, ksize, vsize uint32. pos is the distance
// from the element to its key; a leaf's value follows its key. A bucket is
// a leaf element with flag 1 whose value is the bucket header (root page
// number, sequence: uint64 each), followed, when the root is 0, by the
// bucket's only page inline. A freelist page lists free page numbers
// (uint64); a count of 0xFFFF means the real count is the first of them.
const (
	branchPageFlag   = 0x01
	leafPageFlag     = 0x02
	freelistPageFlag = 0x10
	bucketLeafFlag   = 0x01
	elementSize      = 16
	bucketHeaderSize = 16
	// maxTreeDepth bounds the walk: bbolt's trees are a few levels deep,
	// and buckets here nest one level; more means pages that point back
	// up (caught anyway, as pages reached twice) or a damaged file.
	maxTreeDepth = 64
)

// pageWalk is the state of one walk.
type pageWalk struct {
	r        io.ReaderAt
	pageSize uint64
	hwm      uint64   // pages in use: every page number is below it
	seen     []uint64 // bitset: pages reached (or the freelist's)
	free     []uint64 // bitset: pages the freelist lists
	bufs     [][]byte // one buffer per depth, reused
}

func (w *pageWalk) has(set []uint64, id uint64) bool { return set[id>>6]&(1<<(id&63)) != 0 }
func (w *pageWalk) set(set []uint64, id uint64)      { set[id>>6] |= 1 << (id & 63) }

func walkPages(r io.ReaderAt, m boltMeta) error {
	w := &pageWalk{
		r:        r,
		pageSize: uint64(m.pageSize),
		hwm:      m.pgid,
		seen:     make([]uint64, (m.pgid+63)/64),
		free:     make([]uint64, (m.pgid+63)/64),
	}
	w.set(w.seen, 0)
	w.set(w.seen, 1)
	if m.freelist != noFreelist {
		if err := w.freelist(m.freelist); err != nil {
			return err
		}
	}
	if err := w.tree(m.root, 0, nil, nil, bucketCtx{root: true}); err != nil {
		return err
	}
	if m.freelist == noFreelist {
		return nil // bbolt rebuilds the freelist from what is unreachable
	}
	for id := uint64(2); id < w.hwm; id++ {
		if !w.has(w.seen, id) && !w.has(w.free, id) {
			return fmt.Errorf("page %d neither reachable nor free", id)
		}
	}
	return nil
}

// page reads page id with its overflow pages into the buffer of the given
// depth, after checking that it is in use, says it is page id, and has one
// of the wanted flags. It marks the pages reached.
func (w *pageWalk) page(id uint64, depth int, want ...uint16) ([]byte, error) {
	if id < 2 || id >= w.hwm {
		return nil, fmt.Errorf("page number %d outside the pages in use (2 to %d)", id, w.hwm-1)
	}
	for len(w.bufs) <= depth {
		w.bufs = append(w.bufs, make([]byte, w.pageSize))
	}
	buf := w.bufs[depth][:w.pageSize]
	if _, err := w.r.ReadAt(buf, int64(id*w.pageSize)); err != nil {
		return nil, fmt.Errorf("page %d unreadable: %v", id, err)
	}
	ne := binary.NativeEndian
	if got := ne.Uint64(buf); got != id {
		return nil, fmt.Errorf("page %d says it is page %d", id, got)
	}
	flags := ne.Uint16(buf[8:])
	ok := false
	for _, f := range want {
		ok = ok || flags == f
	}
	if !ok {
		return nil, fmt.Errorf("page %d has type %#x, want one of %#x", id, flags, want)
	}
	overflow := uint64(ne.Uint32(buf[12:]))
	if overflow >= w.hwm-id {
		return nil, fmt.Errorf("page %d runs %d pages past the pages in use", id, overflow+1)
	}
	for p := id; p <= id+overflow; p++ {
		if w.has(w.seen, p) {
			return nil, fmt.Errorf("page %d reached twice", p)
		}
		if w.has(w.free, p) {
			return nil, fmt.Errorf("page %d in use and free", p)
		}
		w.set(w.seen, p)
	}
	if overflow == 0 {
		return buf, nil
	}
	size := (overflow + 1) * w.pageSize
	if uint64(cap(w.bufs[depth])) < size {
		w.bufs[depth] = append(w.bufs[depth][:w.pageSize], make([]byte, size-w.pageSize)...)
	}
	buf = w.bufs[depth][:size]
	if _, err := w.r.ReadAt(buf[w.pageSize:], int64((id+1)*w.pageSize)); err != nil {
		return nil, fmt.Errorf("page %d unreadable: %v", id, err)
	}
	return buf, nil
}

// freelist checks the freelist page and records the free pages.
func (w *pageWalk) freelist(id uint64) error {
	p, err := w.page(id, 0, freelistPageFlag)
	if err != nil {
		return fmt.Errorf("freelist: %w", err)
	}
	ne := binary.NativeEndian
	start, count := uint64(pageHeaderSize), uint64(ne.Uint16(p[10:]))
	if count == 0xFFFF {
		if len(p) < pageHeaderSize+8 {
			return fmt.Errorf("freelist page %d: too short", id)
		}
		count = ne.Uint64(p[pageHeaderSize:])
		start += 8
	}
	if count > (uint64(len(p))-start)/8 {
		return fmt.Errorf("freelist page %d: %d entries do not fit its %d bytes", id, count, len(p))
	}
	for i := range count {
		f := ne.Uint64(p[start+8*i:])
		switch {
		case f < 2 || f >= w.hwm:
			return fmt.Errorf("freelist page %d: free page %d outside the pages in use", id, f)
		case w.has(w.free, f):
			return fmt.Errorf("freelist page %d: page %d listed twice", id, f)
		case w.has(w.seen, f):
			return fmt.Errorf("freelist page %d: lists page %d, which holds the freelist", id, f)
		}
		w.set(w.free, f)
	}
	return nil
}

// bucketCtx is what the walk knows of the bucket whose pages it is in.
type bucketCtx struct {
	root  bool     // the root bucket: it holds buckets only
	name  string   // the bucket's name, "" for the root
	check keyCheck // the store's check of its entries (nil: none)
	ours  bool     // a bucket of the store's schema: it holds no buckets
}

// keyCheck checks an entry of a bucket (see bucketKeyChecks).
type keyCheck func(k, v []byte) error

// bucketKeyChecks check the shape of every key and value of the big
// buckets while the walk passes them anyway, so that a damaged key is
// refused at Open rather than met by a query: a key of the wrong length in
// by-source, say, which ItemsAfter slices. The small buckets are decoded in
// full by checkStartup. Buckets of the schema without an entry here (meta,
// settings) hold free-form keys.
var bucketKeyChecks = map[string]keyCheck{
	string(bucketItems): func(k, v []byte) error {
		if len(k) != 16 || len(v) < valueHeaderLen || v[0] != valueFormat {
			return fmt.Errorf("item %s: value of %d bytes, format %d", hexCut(k), len(v), firstByte(v))
		}
		return nil
	},
	string(bucketBySource): func(k, v []byte) error {
		_, _, _, err := decodeSourceKey(k)
		return emptyValue(k, v, err)
	},
	string(bucketByReceived): func(k, v []byte) error {
		_, _, err := decodeReceivedKey(k)
		return emptyValue(k, v, err)
	},
	string(bucketByCategory): func(k, v []byte) error {
		_, _, err := decodeCategoryKey(k)
		return emptyValue(k, v, err)
	},
	string(bucketRead): func(k, v []byte) error {
		if len(k) != 16 || !bytes.Equal(v, readMark) {
			return fmt.Errorf("read mark %s: value %s malformed", hexCut(k), hexCut(v))
		}
		return nil
	},
}

func emptyValue(k, v []byte, err error) error {
	if err == nil && len(v) != 0 {
		err = fmt.Errorf("key %s with a %d-byte value", hexCut(k), len(v))
	}
	return err
}

func firstByte(v []byte) int {
	if len(v) == 0 {
		return -1
	}
	return int(v[0])
}

// tree walks the B+tree whose root is page id, at the given depth, whose
// keys must lie in [lo, hi) (nil: unbounded).
func (w *pageWalk) tree(id uint64, depth int, lo, hi []byte, b bucketCtx) error {
	if depth >= maxTreeDepth {
		return fmt.Errorf("page %d: B+tree deeper than %d levels", id, maxTreeDepth)
	}
	p, err := w.page(id, depth, branchPageFlag, leafPageFlag)
	if err != nil {
		return err
	}
	return w.node(p, id, depth, lo, hi, b)
}

// node checks the elements of a branch or leaf page p (a page of the file,
// or an inline bucket's page, id 0) of bucket b and walks what they lead
// to.
func (w *pageWalk) node(p []byte, id uint64, depth int, lo, hi []byte, b bucketCtx) error {
	ne := binary.NativeEndian
	if len(p) < pageHeaderSize {
		return fmt.Errorf("page %d: shorter than its header", id)
	}
	flags, count := ne.Uint16(p[8:]), uint64(ne.Uint16(p[10:]))
	if count > (uint64(len(p))-pageHeaderSize)/elementSize {
		return fmt.Errorf("page %d: %d elements do not fit its %d bytes", id, count, len(p))
	}
	branch := flags == branchPageFlag
	if branch && count == 0 {
		return fmt.Errorf("page %d: branch page without elements", id)
	}
	var prev []byte
	for i := range count {
		e := pageHeaderSize + i*elementSize
		var pos, ksize, vsize uint64
		var child uint64
		var leafFlags uint32
		if branch {
			pos, ksize, child = uint64(ne.Uint32(p[e:])), uint64(ne.Uint32(p[e+4:])), ne.Uint64(p[e+8:])
		} else {
			leafFlags = ne.Uint32(p[e:])
			pos, ksize, vsize = uint64(ne.Uint32(p[e+4:])), uint64(ne.Uint32(p[e+8:])), uint64(ne.Uint32(p[e+12:]))
		}
		// The sums cannot overflow: each term is below 2^32.
		if ksize == 0 || e+pos+ksize+vsize > uint64(len(p)) {
			return fmt.Errorf("page %d: element %d (key %d bytes, value %d bytes at offset %d) outside the page", id, i, ksize, vsize, e+pos)
		}
		key := p[e+pos : e+pos+ksize]
		switch {
		case prev != nil && bytes.Compare(prev, key) >= 0:
			return fmt.Errorf("page %d: key %d out of order", id, i)
		case i == 0 && lo != nil && bytes.Compare(key, lo) < 0:
			return fmt.Errorf("page %d: first key below its parent's", id)
		case hi != nil && bytes.Compare(key, hi) >= 0:
			return fmt.Errorf("page %d: key %d beyond its parent's range", id, i)
		}
		prev = key
		if branch {
			next := hi
			if i+1 < count {
				// Checked when the loop gets there; bounds first.
				n := pageHeaderSize + (i+1)*elementSize
				npos, nksize := uint64(ne.Uint32(p[n:])), uint64(ne.Uint32(p[n+4:]))
				if nksize == 0 || n+npos+nksize > uint64(len(p)) {
					return fmt.Errorf("page %d: element %d outside the page", id, i+1)
				}
				next = p[n+npos : n+npos+nksize]
			}
			if err := w.tree(child, depth+1, key, next, b); err != nil {
				return err
			}
			continue
		}
		value := p[e+pos+ksize : e+pos+ksize+vsize]
		switch leafFlags {
		case 0:
			if b.root {
				return fmt.Errorf("page %d: element %d: a value among the buckets", id, i)
			}
			if b.check != nil {
				if err := b.check(key, value); err != nil {
					// The decoders' errors are ErrCorrupt already;
					// checkPages says so once.
					reason := strings.TrimPrefix(err.Error(), ErrCorrupt.Error()+": ")
					return fmt.Errorf("page %d: bucket %q: %s", id, b.name, reason)
				}
			}
		case bucketLeafFlag:
			child := bucketCtx{name: string(key)}
			switch {
			case b.root:
				child.check, child.ours = bucketKeyChecks[child.name], isSchemaBucket(key)
			case b.ours:
				return fmt.Errorf("page %d: a bucket inside bucket %q", id, b.name)
			}
			if err := w.bucket(value, id, depth, child); err != nil {
				return err
			}
		default:
			return fmt.Errorf("page %d: element %d has flags %#x", id, i, leafFlags)
		}
	}
	return nil
}

// bucket checks a bucket header (the value of a bucket element on page id)
// and walks the bucket's tree.
func (w *pageWalk) bucket(v []byte, id uint64, depth int, b bucketCtx) error {
	if len(v) < bucketHeaderSize {
		return fmt.Errorf("page %d: bucket header of %d bytes", id, len(v))
	}
	root := binary.NativeEndian.Uint64(v)
	if root != 0 {
		return w.tree(root, depth+1, nil, nil, b)
	}
	// An inline bucket: one leaf page, without sub-buckets (bbolt never
	// inlines a bucket that has them), inside the value.
	inline := v[bucketHeaderSize:]
	if len(inline) < pageHeaderSize {
		return fmt.Errorf("page %d: inline bucket of %d bytes", id, len(inline))
	}
	if f := binary.NativeEndian.Uint16(inline[8:]); f != leafPageFlag {
		return fmt.Errorf("page %d: inline bucket page of type %#x", id, f)
	}
	count := uint64(binary.NativeEndian.Uint16(inline[10:]))
	for i := range min(count, uint64(len(inline)-pageHeaderSize)/elementSize) {
		if f := binary.NativeEndian.Uint32(inline[pageHeaderSize+i*elementSize:]); f != 0 {
			return fmt.Errorf("page %d: inline bucket holding a bucket", id)
		}
	}
	return w.node(inline, id, depth+1, nil, nil, b)
}

// isSchemaBucket reports whether name is a bucket of the store's schema.
func isSchemaBucket(name []byte) bool {
	if bytes.Equal(name, bucketMeta) {
		return true
	}
	for _, b := range dataBuckets {
		if bytes.Equal(name, b) {
			return true
		}
	}
	return false
}
