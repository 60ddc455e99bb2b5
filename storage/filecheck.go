package storage

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"io"
	"os"
)

// checkFile looks at an existing, non-empty database file before bbolt maps
// it. bbolt trusts its meta page: a file truncated after its last commit still
// has a valid meta page, bbolt maps it, and the first access past the end of
// the file kills the process with SIGBUS. So the meta pages are read here with
// plain reads, and the file must be at least as long as the meta page says.
// Nothing is written.
func checkFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return classify("check", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return classify("check", err)
	}
	_, err = fileMeta(f, fi.Size(), path)
	return err
}

// fileMeta reads the meta page bbolt will use, the way bbolt picks it, and
// checks it against the file's size.
func fileMeta(f io.ReaderAt, size int64, path string) (boltMeta, error) {
	// bbolt's own order: meta 0 at offset 0; its page size locates meta 1
	// and every other page; if meta 0 is bad, the OS page size does.
	m0, err0 := readMeta(f, 0)
	off1 := int64(os.Getpagesize())
	if err0 == nil {
		off1 = int64(m0.pageSize)
	}
	m1, err1 := readMeta(f, off1)
	var m boltMeta
	switch {
	case err0 != nil && err1 != nil:
		return m, corruptf("%s: not a bbolt database (meta page 0: %v; meta page 1: %v)", path, err0, err1)
	case err0 != nil:
		m = m1
	case err1 != nil:
		m = m0
	case m1.txid > m0.txid:
		m = m1
	default:
		m = m0
	}
	ps := uint64(m.pageSize)
	if ps < 512 || ps > 1<<16 || ps&(ps-1) != 0 {
		return m, corruptf("%s: implausible page size %d", path, ps)
	}
	if int64(ps) != off1 {
		return m, corruptf("%s: meta pages disagree on the page size (%d, %d)", path, off1, ps)
	}
	if m.pgid < 4 || m.root < 2 || m.root >= m.pgid || (m.freelist >= m.pgid && m.freelist != noFreelist) {
		return m, corruptf("%s: inconsistent meta page (root %d, freelist %d, high water mark %d)", path, m.root, m.freelist, m.pgid)
	}
	if m.pgid > uint64(size)/ps { // size < pgid*ps, without overflow
		return m, corruptf("%s: file truncated: %d bytes, the last commit needs %d", path, size, m.pgid*ps)
	}
	return m, nil
}

// bbolt's meta page layout (go.etcd.io/bbolt/internal/common/meta.go): after
// the 16-byte page header, native-endian fields magic, version, pageSize,
// flags (4 bytes each), root bucket (root pgid, sequence), freelist pgid,
// high-water pgid, txid (8 bytes each), then an FNV-64a checksum of all of
// the above.
const (
	boltMagic       = 0xED0CDAED
	boltVersion     = 2
	pageHeaderSize  = 16
	metaSize        = 64
	metaChecksumOff = 56
	noFreelist      = ^uint64(0)
)

type boltMeta struct {
	pageSize                   uint32
	root, freelist, pgid, txid uint64
}

func readMeta(r io.ReaderAt, off int64) (boltMeta, error) {
	var buf [pageHeaderSize + metaSize]byte
	if _, err := r.ReadAt(buf[:], off); err != nil {
		return boltMeta{}, fmt.Errorf("unreadable: %v", err)
	}
	b := buf[pageHeaderSize:]
	ne := binary.NativeEndian
	if ne.Uint32(b[0:]) != boltMagic {
		return boltMeta{}, fmt.Errorf("bad magic")
	}
	if ne.Uint32(b[4:]) != boltVersion {
		return boltMeta{}, fmt.Errorf("unsupported bbolt version %d", ne.Uint32(b[4:]))
	}
	h := fnv.New64a()
	h.Write(b[:metaChecksumOff])
	if h.Sum64() != ne.Uint64(b[metaChecksumOff:]) {
		return boltMeta{}, fmt.Errorf("checksum mismatch")
	}
	return boltMeta{
		pageSize: ne.Uint32(b[8:]),
		root:     ne.Uint64(b[16:]),
		freelist: ne.Uint64(b[32:]),
		pgid:     ne.Uint64(b[40:]),
		txid:     ne.Uint64(b[48:]),
	}, nil
}
