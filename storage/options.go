package storage

import "time"

// Option configures Open.
type Option func(*options)

type options struct {
	lockTimeout time.Duration
	readOnly    bool
	noSync      bool
	verify      bool
	now         func() time.Time
	maxBatch    int
	commitEvery time.Duration
	pinned      []string
	blobCache   int64

	// evictHook, for tests only (export_test.go), runs in the blob cache's
	// eviction between the read that chooses the blobs and the write that
	// removes them.
	evictHook func()
}

func defaultOptions() options {
	return options{
		// Long enough to ride out a previous instance that is just closing,
		// short enough that a second instance fails well within a second.
		lockTimeout: 500 * time.Millisecond,
		now:         time.Now,
		maxBatch:    2000,
		blobCache:   DefaultBlobCacheBytes,
	}
}

// WithLockTimeout sets how long Open waits for another process to release
// the data directory before failing with ErrInUse (default 500 ms).
func WithLockTimeout(d time.Duration) Option {
	return func(o *options) { o.lockTimeout = d }
}

// ReadOnly opens an existing store for queries only: writes fail with
// ErrReadOnly, and other read-only openers may share the file. It is the way
// to read a store on a read-only medium.
func ReadOnly() Option {
	return func(o *options) { o.readOnly = true }
}

// NoSync turns off fsync on commit. For tests and throwaway stores only: an
// operating-system crash or power loss can then corrupt the file. (A crash of
// the process alone loses nothing: the data is in the page cache.)
func NoSync() Option {
	return func(o *options) { o.noSync = true }
}

// WithIntegrityCheck runs Check during Open and fails with ErrCorrupt if it
// finds anything. It reads the whole file, so it costs about as long as a
// full scan of the items.
func WithIntegrityCheck() Option {
	return func(o *options) { o.verify = true }
}

// WithClock sets the clock used for received times and retention (default
// time.Now).
func WithClock(now func() time.Time) Option {
	return func(o *options) { o.now = now }
}

// WithMaxBatch bounds how many queued items one ingest transaction commits
// (default 2000), which bounds the memory and the latency of one commit.
func WithMaxBatch(n int) Option {
	return func(o *options) {
		if n > 0 {
			o.maxBatch = n
		}
	}
}

// WithCommitInterval makes group commits of received items (Ingest,
// IngestSourceCounts, Put) begin at least d apart: a steady stream of items
// then costs one transaction and fsync per d however many items arrive,
// which leaves the disk and the processor to the rest of the machine. An
// item arriving after a quiet spell is committed at once; own publications
// (PublishOwn) are never held back, and take what waits along. 0, the
// default, commits as soon as the previous commit is done.
func WithCommitInterval(d time.Duration) Option {
	return func(o *options) { o.commitEvery = max(d, 0) }
}

// WithPinned exempts items of these categories, and of the categories under
// them, from Purge and PurgeExpired: the application keeps its system items
// (network definitions, retraction records) for good. Pin only categories
// with few items; Purge reads past the pinned ones among the expired.
func WithPinned(categories ...string) Option {
	return func(o *options) { o.pinned = append(o.pinned, categories...) }
}

// WithBlobCacheBytes bounds the relay cache of blobs (blobs.go): the
// blobs no stored item refers to, whole or arriving, take at most n bytes;
// beyond it the least recently used go first. 0 (or less) keeps the
// default, DefaultBlobCacheBytes.
func WithBlobCacheBytes(n int64) Option {
	return func(o *options) {
		if n > 0 {
			o.blobCache = n
		}
	}
}
