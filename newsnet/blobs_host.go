package newsnet

import "time"

// What the host sees of blob transfers (blobs.go): the manifest entry it
// names a blob by, the configuration and store it lends the core, the
// event that fetches a blob, the actions that keep one, and the counters.

// BlobRef is what the core needs of an attachment's manifest entry.
type BlobRef struct {
	Hash, Root [32]byte
	Size       uint64
	// Eager: get it as soon as its item is delivered here.
	Eager bool
}

// BlobConfig tunes blob transfers (Config.Blob).
type BlobConfig struct {
	// Store is the host's store of blobs; nil for a servant that keeps
	// none (it passes chunks on from the ones it just received only).
	Store BlobStore
	// Refs lists the blobs of an item (its manifest), nil for none. The
	// host parses the item; the core asks for the eager ones when it
	// delivers the item here.
	Refs func(*Multicast) []BlobRef
	// Window: a chunk goes onto a link only while less than this many
	// bytes are queued on it.
	Window int
	// Timeout: a transfer that made no progress for this long asks again
	// (doubling up to 8 times), Attempts times in all before it is given
	// up.
	Timeout  time.Duration
	Attempts int
	// MaxTransfers bounds the blobs being got or passed on at once, and
	// an eighth of it those one neighbour waits on; a want beyond is
	// answered BlobNone.
	MaxTransfers int
	// Lost is the count of blobs given up on before this run (BlobLost).
	Lost uint64
}

// DefaultBlobConfig: four chunks queued per link, five seconds without
// progress before asking again, six attempts (about two minutes).
func DefaultBlobConfig() BlobConfig {
	return BlobConfig{Window: 4 * BlobChunkSize, Timeout: 5 * time.Second, Attempts: 6, MaxTransfers: 256}
}

// BlobStore is the host's store of blobs, as the core sees it. Its methods
// are called from Step and must not wait on the network (a read of the
// local store is fine).
type BlobStore interface {
	// BlobChunks returns a blob's chunk list and which of its chunks are
	// stored here (have[i] for chunk i); a nil list when there is no list
	// for it here.
	BlobChunks(hash [32]byte) (list [][32]byte, have []bool)
	// BlobChunk returns chunk index of a blob, nil when it is not here.
	BlobChunk(hash [32]byte, index int) []byte
}

// FetchBlob asks the servant to get a blob whole here: a reader opened an
// attachment that was not fetched with its item, or the host found one
// incomplete after a restart. Source is the item's.
type FetchBlob struct {
	Ref    BlobRef
	Source string
}

func (FetchBlob) isEvent() {}

// StoreBlobHead asks the host to keep a blob's chunk list, checked against
// Ref.Root, before its chunks arrive.
type StoreBlobHead struct {
	Ref    BlobRef
	Chunks [][32]byte
}

// StoreBlobChunk asks the host to keep a chunk, checked against the list.
type StoreBlobChunk struct {
	Hash  [32]byte
	Index int
	Data  []byte
}

// BlobDone says every chunk of a blob wanted here has arrived and been
// handed to the host.
type BlobDone struct{ Hash [32]byte }

// BlobProgress says how far a blob wanted here has come, every
// blobProgressEvery chunks, for a reader's progress bar.
type BlobProgress struct {
	Hash     [32]byte
	Have, Of int // chunks
}

// blobProgressEvery: a picture of 1 MB reports twice, one of 20 MiB 20 times.
const blobProgressEvery = 16

// BlobLost says a blob wanted here could not be got. Total is the running
// count, BlobConfig.Lost included: the host persists it and passes it
// back after a restart.
type BlobLost struct {
	Hash  [32]byte
	Total uint64
}

func (StoreBlobHead) isAction()  {}
func (StoreBlobChunk) isAction() {}
func (BlobDone) isAction()       {}
func (BlobProgress) isAction()   {}
func (BlobLost) isAction()       {}

// BlobCounters count the transfers' frames and troubles.
type BlobCounters struct {
	ChunksIn, ChunksOut uint64
	BytesIn, BytesOut   uint64
	// Refused: chunks or lists that did not match and were dropped.
	Refused uint64
	// Unasked: chunks and lists nobody here asked for, dropped.
	Unasked uint64
	// Busy: wants refused because MaxTransfers were running.
	Busy uint64
}
