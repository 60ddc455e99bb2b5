package storage

import (
	"context"
	"encoding/binary"
	"fmt"
	"maps"
	"time"

	"github.com/google/uuid"

	"go.etcd.io/bbolt"

	"newsdesk/news"
)

// maxBatchBytes bounds the encoded size of one group commit, next to the
// item count limit (WithMaxBatch): a burst of large items still commits in
// transactions of a few megabytes.
const maxBatchBytes = 16 << 20

// ingestReq is one request to the writer: a received item (item, val),
// per-source counts (counts), or a batch of own publications (own,
// publish.go). size and n are what it counts toward the batch limits:
// encoded bytes and items.
type ingestReq struct {
	item   *news.Item
	val    []byte
	counts map[uuid.UUID]uint64
	own    *ownReq
	size   int
	n      int
	done   chan error // buffered (1): the writer never blocks on a slow reader
}

// Ingest queues an item for storage and returns a channel that receives
// exactly one value: nil once the item is durably committed (or was already
// stored: duplicates by ID are ignored), or the error that kept it out.
// An invalid item is refused at once with its validation error.
//
// Items queued while a commit is running are committed together in the next
// transaction, so a stream of items costs one fsync per group rather than
// per item. Ingest blocks only when the queue is full (backpressure).
// Received is set to the store's clock if zero; the caller's item is not
// modified.
func (s *Store) Ingest(it *news.Item) <-chan error {
	if s.opts.readOnly {
		return failed(fmt.Errorf("%w: ingest: store opened read-only", ErrReadOnly))
	}
	c := it.Clone()
	if c.Received.IsZero() {
		c.Received = s.opts.now()
	}
	// Encoding (and validation) happens here, on the caller's goroutine, so
	// the single writer only writes.
	val, err := encodeValue(c)
	if err != nil {
		return failed(err)
	}
	return s.enqueue(&ingestReq{item: c, val: val, size: len(val), n: 1})
}

// IngestEncoded is Ingest for an item decoded from its encoding as it
// arrived (news.Decode): the store keeps those bytes as they are, without
// encoding the item again. The item is the caller's no longer; its
// Received is set to received, or to the store's clock if that is zero.
func (s *Store) IngestEncoded(e news.Encoded, received time.Time) <-chan error {
	if s.opts.readOnly {
		return failed(fmt.Errorf("%w: ingest: store opened read-only", ErrReadOnly))
	}
	if received.IsZero() {
		received = s.opts.now()
	}
	e.Item.Received = received
	val, err := encodedValue(received, e.Bytes)
	if err != nil {
		return failed(err)
	}
	return s.enqueue(&ingestReq{item: e.Item, val: val, size: len(val), n: 1})
}

// enqueue hands a request to the writer and returns its done channel. It
// blocks only when the queue is full (backpressure).
func (s *Store) enqueue(r *ingestReq) <-chan error {
	r.done = make(chan error, 1)
	s.closeMu.RLock()
	defer s.closeMu.RUnlock()
	if s.closed {
		r.done <- ErrClosed
		return r.done
	}
	s.queue <- r
	return r.done
}

// Put stores one item and waits until it is durable. Sequential Puts commit
// one transaction each (with a commit interval, each waits for the interval
// since the previous commit); concurrent ones share commits. If ctx ends
// first, Put returns ctx.Err() and the item may still be stored.
func (s *Store) Put(ctx context.Context, it *news.Item) error {
	select {
	case err := <-s.Ingest(it):
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// failed returns a done channel that holds err.
func failed(err error) <-chan error {
	done := make(chan error, 1)
	done <- err
	return done
}

// IngestSourceCounts queues per-source counts (as SetSourceCount stores
// them) to be written with the next group commit, and returns a channel
// that receives exactly one value once they are durable (nil) or not.
// Counts queued after items are written in the same transaction as those
// items or a later one, never an earlier one.
func (s *Store) IngestSourceCounts(counts map[uuid.UUID]uint64) <-chan error {
	if s.opts.readOnly {
		return failed(fmt.Errorf("%w: source counts: store opened read-only", ErrReadOnly))
	}
	return s.enqueue(&ingestReq{counts: maps.Clone(counts), n: 1})
}

// writer is the single ingest goroutine. It blocks for one request, takes
// whatever else is already queued (up to the batch limits), commits it all
// in one transaction, and reports to every request. With a commit interval
// (WithCommitInterval) it first waits until the interval since the last
// commit began has passed, gathering what arrives meanwhile, unless a batch
// of own publications is among it: those commit at once. It exits when Close
// has closed the queue and everything queued has been committed.
func (s *Store) writer() {
	defer close(s.writerDone)
	var last time.Time // when the last commit began
	var timer *time.Timer
	for req := range s.queue {
		batch := []*ingestReq{req}
		size, n := req.size, req.n
		urgent, open := req.own != nil, true
		next := last.Add(s.opts.commitEvery)
	drain:
		for n < s.opts.maxBatch && size < maxBatchBytes {
			var wait <-chan time.Time
			if d := time.Until(next); !urgent && open && d > 0 {
				if timer == nil {
					timer = time.NewTimer(d)
				} else {
					timer.Reset(d)
				}
				wait = timer.C
			}
			var r *ingestReq
			if wait == nil {
				select {
				case r, open = <-s.queue:
				default:
					break drain
				}
			} else {
				select {
				case r, open = <-s.queue:
				case <-wait:
					continue
				}
			}
			if !open {
				break drain // closing: commit what there is at once
			}
			batch = append(batch, r)
			size += r.size
			n += r.n
			urgent = urgent || r.own != nil
		}
		last = time.Now()
		err := s.commit(batch)
		if err != nil && len(batch) > 1 {
			// Find out per item: one failing write (say, the one that hit
			// a full disk) must not be reported for items that fit.
			for _, r := range batch {
				r.done <- s.commit([]*ingestReq{r})
			}
			continue
		}
		for _, r := range batch {
			r.done <- err
		}
	}
}

func (s *Store) commit(batch []*ingestReq) error {
	return s.update("ingest", func(tx *bbolt.Tx, ch *txChanges) error {
		b := itemBuckets(tx)
		b.now = s.opts.now()
		for _, r := range batch {
			switch {
			case r.own != nil:
				if err := r.own.apply(tx, b, ch); err != nil {
					return err
				}
				continue
			case r.counts != nil:
				sources := tx.Bucket(bucketSources)
				for src, n := range r.counts {
					if err := sources.Put(src[:], binary.BigEndian.AppendUint64(nil, n)); err != nil {
						return err
					}
				}
				continue
			}
			if _, err := b.insert(r.item, r.val, ch); err != nil {
				return fmt.Errorf("item %s: %w", r.item.ID, err)
			}
		}
		return nil
	})
}
