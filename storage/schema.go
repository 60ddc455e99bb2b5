package storage

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"go.etcd.io/bbolt"
)

// Bucket names. Package variables, not literals at the call sites, so a
// bucket is named in exactly one place.
var (
	bucketMeta       = []byte("meta")
	bucketItems      = []byte("items")
	bucketByCategory = []byte("by-category")
	bucketBySource   = []byte("by-source")
	bucketByReceived = []byte("by-received")
	bucketRead       = []byte("read")
	bucketUnread     = []byte("unread-counts")
	bucketItemCounts = []byte("item-counts")
	bucketSubs       = []byte("subscriptions")
	bucketSettings   = []byte("settings")
	bucketSeeds      = []byte("seeds")
	bucketSources    = []byte("source-counts")
	bucketOutbox     = []byte("outbox")
	bucketRetracted  = []byte("retracted") // since schema 2
	bucketOwnLast    = []byte("own-last")  // since schema 3: category → count of the latest own publication there
	bucketExpiring   = []byte("expiring")  // since schema 4: expiry time + ID of items still shown (expiry.go)
	bucketExpired    = []byte("expired")   // since schema 4: expiry time + ID of expired items not yet purged
	bucketScheduled  = []byte("scheduled") // since schema 5: own publications waiting for their time (scheduled.go)
	bucketAcks       = []byte("acks")      // since schema 6: item ID → when the reader acknowledged it (acks.go)
	bucketReach      = []byte("reach")     // since schema 7: own item ID → its latest reach report (reach.go)
	bucketKept       = []byte("kept")      // since schema 8: item ID → "", the items the reader keeps (kept.go)
	bucketConfirmed  = []byte("confirmed") // since schema 11: own item ID + reader key → confirmation (confirmed.go)
	bucketPending    = []byte("pending")   // since schema 11: own item ID + reader key → last listed as pending (confirmed.go)
	// bucketBlobs and bucketBlobRefs: since schema 12 (blobs.go).
)

// dataBuckets are the buckets of the current schema besides meta. Open
// creates them with a new store; a store at the current schema version
// missing one is corrupt.
var dataBuckets = [][]byte{
	bucketItems, bucketByCategory, bucketBySource, bucketByReceived, bucketRead,
	bucketUnread, bucketItemCounts, bucketSubs, bucketSettings, bucketSeeds,
	bucketSources, bucketOutbox, bucketRetracted, bucketOwnLast,
	bucketExpiring, bucketExpired, bucketScheduled, bucketAcks, bucketReach,
	bucketKept, bucketConfirmed, bucketPending, bucketBlobs, bucketBlobRefs,
}

// Keys of the meta bucket.
var (
	keyMagic     = []byte("magic")
	keySchema    = []byte("schema")
	keyRetention = []byte("retention")
	keyLostTotal = []byte("lost-total") // needed items no servant could retransmit, all runs
	// keyOwnLastStale marks a store migrated from before own-last was
	// kept: RebuildOwnLast fills the bucket and removes the mark.
	keyOwnLastStale = []byte("own-last-stale")
)

// magicValue marks a bbolt file as a Newsdesk store: a bbolt file from
// another program is refused, not "upgraded" into one.
var magicValue = []byte("newsdesk-store")

// migrations[i] upgrades a store from schema version i+1 to i+2, inside the
// transaction that also records the new version. Append only: a released
// migration never changes. The current schema version is
// len(migrations)+1. A migration must create any bucket it introduces and
// list it in dataBuckets.
var migrations = []func(tx *bbolt.Tx) error{
	// 1 → 2: retractions (retract.go). A schema-1 store has retracted
	// nothing, so an empty bucket is all there is to add.
	func(tx *bbolt.Tx) error {
		_, err := tx.CreateBucket(bucketRetracted)
		return err
	},
	// 2 → 3: own-last (publish.go). Which source is this installation's
	// is not in the store, so the application rebuilds the counts
	// (RebuildOwnLast) when it next opens it.
	func(tx *bbolt.Tx) error {
		if _, err := tx.CreateBucket(bucketOwnLast); err != nil {
			return err
		}
		return tx.Bucket(bucketMeta).Put(keyOwnLastStale, []byte{1})
	},
	// 3 → 4: expiry (expiry.go). Items with an expiry did not exist
	// before, so empty buckets are all there is to add.
	func(tx *bbolt.Tx) error {
		for _, name := range [][]byte{bucketExpiring, bucketExpired} {
			if _, err := tx.CreateBucket(name); err != nil {
				return err
			}
		}
		return nil
	},
	// 4 → 5: scheduled publications (scheduled.go), which did not exist
	// before.
	func(tx *bbolt.Tx) error {
		_, err := tx.CreateBucket(bucketScheduled)
		return err
	},
	// 5 → 6: acknowledgements of must-read items (acks.go). Must-read
	// items did not exist before, so an empty bucket is all there is.
	func(tx *bbolt.Tx) error {
		_, err := tx.CreateBucket(bucketAcks)
		return err
	},
	// 6 → 7: reach reports of own publications (reach.go), which did not
	// exist before.
	func(tx *bbolt.Tx) error {
		_, err := tx.CreateBucket(bucketReach)
		return err
	},
	// 7 → 8: items the reader keeps (kept.go); none were kept before.
	func(tx *bbolt.Tx) error {
		_, err := tx.CreateBucket(bucketKept)
		return err
	},
	// 8 → 9: reach entries of version 2 (reach.go: verified and reported
	// acknowledgements apart, issue 32). Version-1 entries stay readable,
	// so nothing is rewritten; the schema number keeps an older release,
	// which would take a version-2 entry for damage, from opening the
	// file.
	func(tx *bbolt.Tx) error { return nil },
	// 9 → 10: reach entries of version 3 (reach.go: the relays' count of
	// pending readers, exact beyond the list). Version-2 entries stay
	// readable; the schema number keeps an older release from opening the
	// file, as above.
	func(tx *bbolt.Tx) error { return nil },
	// 10 → 11: the confirmations the publisher verified and the pending
	// readers it saw (confirmed.go). None were kept before: the next
	// reach reports bring those of the readers online.
	func(tx *bbolt.Tx) error {
		for _, b := range [][]byte{bucketConfirmed, bucketPending} {
			if _, err := tx.CreateBucketIfNotExists(b); err != nil {
				return err
			}
		}
		return nil
	},
	// 11 → 12: blobs (blobs.go, issue 29). No blob was stored before, but
	// an older release stores the items of a newer one as they come, so
	// items with a manifest may be here: their references are added, and
	// the application fetches their blobs.
	migrateBlobs,
}

// migrateBlobs creates the blob buckets and adds the references of the
// visible items whose manifests name blobs. A value that does not decode
// is left to Check to report: a migration does not refuse a store an
// older release opened.
func migrateBlobs(tx *bbolt.Tx) error {
	for _, name := range [][]byte{bucketBlobs, bucketBlobRefs} {
		if _, err := tx.CreateBucketIfNotExists(name); err != nil {
			return err
		}
	}
	b := itemBuckets(tx)
	var ch txChanges
	return b.items.ForEach(func(k, v []byte) error {
		if !bytes.Contains(v, []byte("[att:")) || b.isRetracted(k) {
			return nil
		}
		it, err := decodeValue(k, v)
		if err != nil {
			return nil
		}
		return b.addBlobRefs(it, &ch)
	})
}

// SchemaVersion is the schema this code writes.
func SchemaVersion() uint32 { return uint32(len(migrations)) + 1 }

// storeState is what Open learns from a read-only look at the file.
type storeState struct {
	fresh  bool   // an empty bbolt file: initialise it
	schema uint32 // the file's schema version (0 if fresh)
}

// inspect decides whether the file is a Newsdesk store this code can use,
// without writing.
func inspect(tx *bbolt.Tx) (storeState, error) {
	meta := tx.Bucket(bucketMeta)
	if meta == nil {
		var names []string
		_ = tx.ForEach(func(name []byte, _ *bbolt.Bucket) error {
			names = append(names, fmt.Sprintf("%q", name))
			return nil
		})
		if len(names) == 0 {
			return storeState{fresh: true}, nil
		}
		return storeState{}, corruptf("a bbolt file of another program (buckets %v, no %q bucket)", names, bucketMeta)
	}
	if m := meta.Get(keyMagic); !bytes.Equal(m, magicValue) {
		return storeState{}, corruptf("meta bucket without the newsdesk magic value (found %q)", m)
	}
	v := meta.Get(keySchema)
	if len(v) != 4 {
		return storeState{}, corruptf("schema version missing or malformed")
	}
	schema := binary.BigEndian.Uint32(v)
	switch {
	case schema == 0:
		return storeState{}, corruptf("schema version 0")
	case schema > SchemaVersion():
		return storeState{}, fmt.Errorf("%w: file schema %d, this version understands up to %d", ErrSchemaTooNew, schema, SchemaVersion())
	case schema == SchemaVersion():
		for _, name := range dataBuckets {
			if tx.Bucket(name) == nil {
				return storeState{}, corruptf("bucket %q missing", name)
			}
		}
	}
	return storeState{schema: schema}, nil
}

// upgrade initialises a fresh store or migrates an older one to the current
// schema, all in the caller's single transaction: a crash leaves either the
// old or the new schema, never a mix.
func upgrade(tx *bbolt.Tx, st storeState) error {
	if st.fresh {
		meta, err := tx.CreateBucket(bucketMeta)
		if err != nil {
			return err
		}
		if err := meta.Put(keyMagic, magicValue); err != nil {
			return err
		}
		for _, name := range dataBuckets {
			if _, err := tx.CreateBucket(name); err != nil {
				return fmt.Errorf("create bucket %q: %w", name, err)
			}
		}
		return putSchema(meta, SchemaVersion())
	}
	for v := st.schema; v < SchemaVersion(); v++ {
		if err := migrations[v-1](tx); err != nil {
			return fmt.Errorf("migrate schema %d to %d: %w", v, v+1, err)
		}
	}
	return putSchema(tx.Bucket(bucketMeta), SchemaVersion())
}

func putSchema(meta *bbolt.Bucket, v uint32) error {
	return meta.Put(keySchema, binary.BigEndian.AppendUint32(nil, v))
}
