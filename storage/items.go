package storage

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/google/uuid"
	"go.etcd.io/bbolt"

	"newsdesk/news"
)

// Entry is a stored item with its local read state.
type Entry struct {
	Item *news.Item
	Read bool
	// Retracted is set for an item hidden by a retraction (see retract.go);
	// nil for a visible item.
	Retracted *Retraction
	// Acknowledged is when the reader confirmed a must-read item (see
	// acks.go); zero if not.
	Acknowledged time.Time
	// Kept: the reader keeps this item; retention never purges it (see
	// kept.go).
	Kept bool
}

// An items value: a format byte, the received time (int64 Unix ns,
// big-endian), then the item's wire encoding. Reusing the wire encoding keeps
// one canonical form of an item (a later signature check, or a
// retransmission, works on exactly what arrived) and one fuzzed decoder.
const (
	valueFormat    = 1
	valueHeaderLen = 1 + 8
)

func encodeValue(it *news.Item) ([]byte, error) {
	if it.Received.IsZero() {
		return nil, errors.New("received: required")
	}
	if it.Received.Before(time.Unix(0, math.MinInt64)) || it.Received.After(time.Unix(0, math.MaxInt64)) {
		return nil, errors.New("received: outside the years 1678 to 2262")
	}
	b := make([]byte, valueHeaderLen, valueHeaderLen+256+len(it.Body))
	b[0] = valueFormat
	binary.BigEndian.PutUint64(b[1:], uint64(it.Received.UnixNano()))
	return it.AppendBinary(b) // validates
}

// encodedValue is encodeValue for an item already encoded (its
// MarshalBinary, which validated it) and received at received.
func encodedValue(received time.Time, encoded []byte) ([]byte, error) {
	if received.IsZero() {
		return nil, errors.New("received: required")
	}
	if received.Before(time.Unix(0, math.MinInt64)) || received.After(time.Unix(0, math.MaxInt64)) {
		return nil, errors.New("received: outside the years 1678 to 2262")
	}
	b := make([]byte, valueHeaderLen, valueHeaderLen+len(encoded))
	b[0] = valueFormat
	binary.BigEndian.PutUint64(b[1:], uint64(received.UnixNano()))
	return append(b, encoded...), nil
}

// decodeValue copies an item out of a bbolt value (which is only valid
// inside its transaction).
func decodeValue(id []byte, v []byte) (*news.Item, error) {
	if len(id) != 16 {
		return nil, corruptf("items key %s malformed", hexCut(id))
	}
	if len(v) < valueHeaderLen || v[0] != valueFormat {
		return nil, corruptf("item %x: unknown value format", id)
	}
	it := new(news.Item)
	if err := it.UnmarshalBinary(v[valueHeaderLen:]); err != nil {
		return nil, corruptf("item %x: %v", id, err)
	}
	if string(it.ID[:]) != string(id) {
		return nil, corruptf("item %x stored under key %x", it.ID, id)
	}
	it.Received = time.Unix(0, int64(binary.BigEndian.Uint64(v[1:])))
	return it, nil
}

// buckets holds the buckets of one transaction, looked up once.
type buckets struct {
	items, byCategory, bySource, byReceived, read, unread, itemCounts, retracted *bbolt.Bucket
	expiring, expired                                                            *bbolt.Bucket // expiry.go
	acks                                                                         *bbolt.Bucket // acks.go
	reach                                                                        *bbolt.Bucket // reach.go
	kept                                                                         *bbolt.Bucket // kept.go
	confirmed, pending                                                           *bbolt.Bucket // confirmed.go
	blobs, blobRefs                                                              *bbolt.Bucket // blobs.go
	// now is the clock insert checks expiry by; zero where nothing is
	// inserted.
	now time.Time
}

func itemBuckets(tx *bbolt.Tx) buckets {
	b := buckets{
		items:      tx.Bucket(bucketItems),
		byCategory: tx.Bucket(bucketByCategory),
		bySource:   tx.Bucket(bucketBySource),
		byReceived: tx.Bucket(bucketByReceived),
		read:       tx.Bucket(bucketRead),
		unread:     tx.Bucket(bucketUnread),
		itemCounts: tx.Bucket(bucketItemCounts),
		retracted:  tx.Bucket(bucketRetracted),
		expiring:   tx.Bucket(bucketExpiring),
		expired:    tx.Bucket(bucketExpired),
		acks:       tx.Bucket(bucketAcks),
		reach:      tx.Bucket(bucketReach),
		kept:       tx.Bucket(bucketKept),
		confirmed:  tx.Bucket(bucketConfirmed),
		pending:    tx.Bucket(bucketPending),
		blobs:      tx.Bucket(bucketBlobs),
		blobRefs:   tx.Bucket(bucketBlobRefs),
	}
	// Keys of these buckets mostly arrive in ascending order (new items
	// are newest). bbolt splits a full page at FillPercent, 50 % by
	// default, which for appends leaves every page half empty for good;
	// packing pages fuller keeps the file small.
	for _, bk := range []*bbolt.Bucket{b.items, b.byCategory, b.bySource, b.byReceived, b.read} {
		bk.FillPercent = fillPercent
	}
	return b
}

// fillPercent is how full bbolt packs a page before it splits one.
var fillPercent = 0.9

// insert stores a validated item with its encoded value and all index
// entries, as unread. A duplicate ID is ignored (added == false): the network
// may deliver an item twice around a repaired gap. An item retracted before
// it arrived is stored hidden: kept for the network, seen by no user.
func (b buckets) insert(it *news.Item, val []byte, ch *txChanges) (added bool, err error) {
	if b.items.Get(it.ID[:]) != nil {
		return false, nil
	}
	puts := []struct {
		b    *bbolt.Bucket
		k, v []byte
	}{
		{b.items, it.ID[:], val},
		{b.bySource, sourceKey(it.Source, it.SourceCount, it.ID), nil},
		{b.byReceived, receivedKey(it.Received, it.ID), nil},
	}
	for _, p := range puts {
		if err := p.b.Put(p.k, p.v); err != nil {
			return false, err
		}
	}
	ch.bytes += storedSize(val)
	if !it.Expires.IsZero() {
		if b.expiredNow(it) {
			return true, b.hideExpired(it, ch, false)
		}
		if err := b.expiring.Put(expiringKey(it), nil); err != nil {
			return false, err
		}
	}
	if b.isRetracted(it.ID[:]) {
		return true, nil
	}
	if err := b.byCategory.Put(categoryKey(it.Category, it.ID), nil); err != nil {
		return false, err
	}
	if err := b.addBlobRefs(it, ch); err != nil {
		return false, err
	}
	if err := addCount(b.itemCounts, it.Category, 1); err != nil {
		return false, err
	}
	if err := addCount(b.unread, it.Category, 1); err != nil {
		return false, err
	}
	ch.ops = append(ch.ops, indexOp{doc: indexDoc{id: it.ID, category: it.Category, title: it.Title, body: it.Text()}})
	return true, nil
}

// remove deletes a stored item (as decoded from its value) with its index
// entries, read state and counts. A hidden item has already given up its
// by-category entry, counts and search entry; its retraction record stays.
func (b buckets) remove(it *news.Item, ch *txChanges) error {
	id := it.ID
	if v := b.items.Get(id[:]); v != nil {
		ch.bytes -= storedSize(v)
	}
	dels := []struct {
		b *bbolt.Bucket
		k []byte
	}{
		{b.items, id[:]},
		{b.bySource, sourceKey(it.Source, it.SourceCount, id)},
		{b.byReceived, receivedKey(it.Received, id)},
	}
	for _, d := range dels {
		if err := d.b.Delete(d.k); err != nil {
			return err
		}
	}
	if !it.Expires.IsZero() {
		for _, bk := range []*bbolt.Bucket{b.expiring, b.expired} {
			if err := bk.Delete(expiringKey(it)); err != nil {
				return err
			}
		}
	}
	if err := b.acks.Delete(id[:]); err != nil {
		return err
	}
	if err := b.reach.Delete(id[:]); err != nil {
		return err
	}
	if err := b.kept.Delete(id[:]); err != nil {
		return err
	}
	for _, bk := range []*bbolt.Bucket{b.confirmed, b.pending} {
		if err := deleteReaders(bk, id); err != nil {
			return err
		}
	}
	read := b.read.Get(id[:]) != nil
	if read {
		if err := b.read.Delete(id[:]); err != nil {
			return err
		}
	}
	if b.isRetracted(id[:]) {
		return nil
	}
	if err := b.byCategory.Delete(categoryKey(it.Category, id)); err != nil {
		return err
	}
	if err := b.dropBlobRefs(it, ch); err != nil {
		return err
	}
	if !read {
		if err := addCount(b.unread, it.Category, -1); err != nil {
			return err
		}
	}
	if err := addCount(b.itemCounts, it.Category, -1); err != nil {
		return err
	}
	ch.ops = append(ch.ops, indexOp{remove: true, doc: indexDoc{id: id}})
	return nil
}

// addCount adds delta to a uint64 counter; a counter that reaches zero is
// deleted, so the bucket lists exactly the categories with a count.
func addCount(b *bbolt.Bucket, key string, delta int64) error {
	var n uint64
	if v := b.Get([]byte(key)); v != nil {
		var err error
		if n, err = decodeCount(v); err != nil {
			return corruptf("counter %q malformed: %v", key, err)
		}
	}
	if delta < 0 && n < uint64(-delta) {
		return corruptf("counter %q would go below zero", key)
	}
	n += uint64(delta)
	if n == 0 {
		return b.Delete([]byte(key))
	}
	return b.Put([]byte(key), binary.BigEndian.AppendUint64(nil, n))
}

func readCounts(b *bbolt.Bucket) (map[string]uint64, error) {
	out := make(map[string]uint64)
	err := b.ForEach(func(k, v []byte) error {
		cat, n, err := decodeCategoryCount("counter", k, v)
		out[cat] = n
		return err
	})
	return out, err
}

// entry loads one item with its read state and retraction; nil if absent.
func (b buckets) entry(id []byte) (*Entry, error) {
	e, err := b.visibleEntry(id)
	if e == nil || err != nil {
		return nil, err
	}
	if v := b.retracted.Get(id); v != nil {
		if e.Retracted, err = decodeRetraction(id, v); err != nil {
			return nil, err
		}
	}
	return e, nil
}

// visibleEntry is entry for an ID that a walk over visible items produced,
// so a listing pays no second retraction lookup per item.
func (b buckets) visibleEntry(id []byte) (*Entry, error) {
	v := b.items.Get(id)
	if v == nil {
		return nil, nil
	}
	it, err := decodeValue(id, v)
	if err != nil {
		return nil, err
	}
	acked, err := b.acknowledged(id)
	if err != nil {
		return nil, err
	}
	return &Entry{Item: it, Read: b.read.Get(id) != nil, Acknowledged: acked, Kept: b.kept.Get(id) != nil}, nil
}

// Get returns one item by ID, or ErrNotFound.
func (s *Store) Get(id uuid.UUID) (Entry, error) {
	var e *Entry
	err := s.view("get item", func(tx *bbolt.Tx) (err error) {
		e, err = itemBuckets(tx).entry(id[:])
		return err
	})
	if err != nil {
		return Entry{}, err
	}
	if e == nil {
		return Entry{}, fmt.Errorf("%w: item %s", ErrNotFound, id)
	}
	return *e, nil
}

// Has reports whether an item is stored.
func (s *Store) Has(id uuid.UUID) (bool, error) {
	var ok bool
	err := s.view("has item", func(tx *bbolt.Tx) error {
		ok = tx.Bucket(bucketItems).Get(id[:]) != nil
		return nil
	})
	return ok, err
}
