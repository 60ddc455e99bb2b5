package newsnet

import (
	"crypto/sha256"
	"errors"
	"fmt"
)

// Attachments' bytes (blobs.go): a servant asks a neighbour for a blob's
// chunks, the neighbour sends the blob's chunk list first and then the
// chunks. A blob is named by its SHA-256 (Hash); its chunks, of BlobChunkSize
// bytes each but the last, are checked one by one against the list, and the
// list against Root, which the signed item's manifest carries with Hash and
// Size. So a relay can neither forge nor corrupt a byte without the
// receiver noticing at the chunk.

// BlobChunkSize is the size of every chunk of a blob but its last.
const BlobChunkSize = 64 << 10

// MaxBlobChunks bounds a blob's chunk list: 20 MiB in 64 KiB chunks, the
// most one item may attach in all (news.MaxAttachmentBytes).
const MaxBlobChunks = 320

// BlobWant asks the link's peer for chunks of a blob: Missing is a bitmap of
// the chunks wanted (bit i of byte i/8, least significant first; empty for
// all of them), and Head asks for the chunk list too. Root, Size and Source
// come from the item's manifest: the peer checks the list against Root and
// passes the want on toward Source's publisher when it lacks chunks itself.
type BlobWant struct {
	Hash    [32]byte
	Root    [32]byte
	Size    uint64
	Source  string
	Head    bool
	Missing []byte
}

// BlobHead is a blob's chunk list: the SHA-256 of each chunk, in order.
type BlobHead struct {
	Hash   [32]byte
	Chunks [][32]byte
}

// BlobChunk is chunk Index of a blob.
type BlobChunk struct {
	Hash  [32]byte
	Index uint32
	Data  []byte
}

// BlobNone says the sender cannot get the blob's missing chunks any more:
// the asker looks elsewhere or gives up.
type BlobNone struct {
	Hash [32]byte
}

var errOutOfRange = errors.New("out of range")

// blobsSince is the first wire version that carries blobs.
const blobsSince = 8

func (*BlobWant) since() uint16  { return blobsSince }
func (*BlobHead) since() uint16  { return blobsSince }
func (*BlobChunk) since() uint16 { return blobsSince }
func (*BlobNone) since() uint16  { return blobsSince }

func (e *encoder) raw32(v [32]byte) {
	if e.err == nil {
		e.b = append(e.b, v[:]...)
	}
}

func (d *decoder) raw32(field string) (v [32]byte) {
	if d.err != nil {
		return v
	}
	if len(d.b) < len(v) {
		d.fail(fmt.Errorf("%s: %w", field, errTruncated))
		return v
	}
	copy(v[:], d.b)
	d.b = d.b[len(v):]
	return v
}

func (m *BlobWant) marshal(e *encoder) {
	e.raw32(m.Hash)
	e.raw32(m.Root)
	e.uvarint(m.Size)
	e.string("source", m.Source, MaxIDBytes)
	e.flag(m.Head)
	e.string("missing", string(m.Missing), MaxBlobChunks/8)
}

func (m *BlobWant) unmarshal(d *decoder) {
	m.Hash = d.raw32("hash")
	m.Root = d.raw32("root")
	m.Size = d.uvarint("size")
	m.Source = d.string("source", MaxIDBytes)
	m.Head = d.flag("head")
	if s := d.span("missing", MaxBlobChunks/8); len(s) > 0 {
		m.Missing = append([]byte(nil), s...)
	}
}

func (m *BlobHead) marshal(e *encoder) {
	e.raw32(m.Hash)
	if len(m.Chunks) > MaxBlobChunks {
		e.fail(fmt.Errorf("chunks: %w: %d > %d", errTooMany, len(m.Chunks), MaxBlobChunks))
		return
	}
	e.uvarint(uint64(len(m.Chunks)))
	for _, c := range m.Chunks {
		e.raw32(c)
	}
}

func (m *BlobHead) unmarshal(d *decoder) {
	m.Hash = d.raw32("hash")
	n := d.count("chunks", MaxBlobChunks)
	if n > 0 {
		m.Chunks = make([][32]byte, n)
		for i := range m.Chunks {
			m.Chunks[i] = d.raw32("chunk")
		}
	}
}

func (m *BlobChunk) marshal(e *encoder) {
	e.raw32(m.Hash)
	e.uvarint(uint64(m.Index))
	if len(m.Data) > BlobChunkSize {
		e.fail(fmt.Errorf("data: %w: %d bytes > %d", errTooLong, len(m.Data), BlobChunkSize))
		return
	}
	e.bytes("data", m.Data)
}

func (m *BlobChunk) unmarshal(d *decoder) {
	m.Hash = d.raw32("hash")
	i := d.uvarint("index")
	if d.err == nil && i >= MaxBlobChunks {
		d.fail(fmt.Errorf("index: %w: %d", errOutOfRange, i))
	}
	m.Index = uint32(i)
	if s := d.span("data", BlobChunkSize); len(s) > 0 {
		m.Data = append([]byte(nil), s...)
	}
}

func (m *BlobNone) marshal(e *encoder)   { e.raw32(m.Hash) }
func (m *BlobNone) unmarshal(d *decoder) { m.Hash = d.raw32("hash") }

// BlobChunkCount is how many chunks a blob of size bytes has.
func BlobChunkCount(size uint64) int {
	return int((size + BlobChunkSize - 1) / BlobChunkSize)
}

// BlobRoot is the SHA-256 over a chunk list, which an item's manifest
// carries: a list that hashes to it names exactly the blob's chunks.
func BlobRoot(chunks [][32]byte) [32]byte {
	h := sha256.New()
	for _, c := range chunks {
		h.Write(c[:])
	}
	var r [32]byte
	h.Sum(r[:0])
	return r
}
