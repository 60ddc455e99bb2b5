package storage

import (
	"bytes"
	"time"

	"github.com/google/uuid"
	"go.etcd.io/bbolt"

	"newsdesk/news"
)

// Expiry (news.Item.Expires) hides an item the way a retraction does, but
// without a signature: the expiry is part of the signed item. The store
// keeps the items that will expire in the expiring bucket (key: the expiry
// time as in by-received, then the ID). HideExpired hides those whose time
// has passed, by the same path as Retract: a retraction record marked
// expired goes into the retracted bucket and the item gives up its
// by-category entry, counters and search entry, so every listing, search,
// badge and item view that leaves retracted items out leaves expired ones
// out too, with no second filter. The key then moves to the expired bucket,
// from which PurgeExpired deletes the item ExpiredKeep later. An item that
// arrives already expired is stored hidden, like one retracted before it
// arrived.

// ExpirySkew is how far past its expiry an item stays visible: the
// publisher's clock and this computer's may differ by this much without an
// item vanishing early here (company computers keep time by NTP to well
// under a second; two minutes covers one that has drifted or missed its
// time server for a while). An item is hidden once now > Expires+ExpirySkew.
const ExpirySkew = 2 * time.Minute

// ExpiredKeep is how long an expired, hidden item is kept before
// PurgeExpired deletes it: a servant that was off meanwhile can still
// catch up on the source's counts from this one, with no gap to report,
// and hides the item itself on arrival.
const ExpiredKeep = 24 * time.Hour

// expiredReason is the reason of an expiry's retraction record; expiry
// records are told apart by their format byte, not by this text.
const expiredReason = "expired"

// expiringKey is the key of an item in the expiring and expired buckets.
func expiringKey(it *news.Item) []byte { return receivedKey(it.Expires, it.ID) }

// expiredNow reports whether it has expired by the transaction's clock
// (b.now, zero when the caller does not check expiry).
func (b buckets) expiredNow(it *news.Item) bool {
	return !b.now.IsZero() && it.ExpiredAt(b.now, ExpirySkew)
}

// hideExpired records that it expired and, unless a retraction hid it
// already, hides it.
func (b buckets) hideExpired(it *news.Item, ch *txChanges, visible bool) error {
	if err := b.expiring.Delete(expiringKey(it)); err != nil {
		return err
	}
	if err := b.expired.Put(expiringKey(it), nil); err != nil {
		return err
	}
	if b.isRetracted(it.ID[:]) {
		return nil
	}
	val, err := encodeRetraction(Retraction{ItemID: it.ID, Reason: expiredReason, At: b.now, Expired: true})
	if err != nil {
		return err
	}
	if err := b.retracted.Put(it.ID[:], val); err != nil {
		return err
	}
	if !visible {
		return nil
	}
	return b.hide(it, ch)
}

// HideExpired hides every stored item whose expiry (plus ExpirySkew) has
// passed by the store's clock and returns how many it hid. The application
// calls it often; it reads only the items that expire.
func (s *Store) HideExpired() (int, error) {
	now := s.opts.now()
	bound := receivedBound(now.Add(-ExpirySkew))
	n := 0
	err := s.update("hide expired", func(tx *bbolt.Tx, ch *txChanges) error {
		n = 0
		b := itemBuckets(tx)
		b.now = now
		var ids [][]byte
		c := b.expiring.Cursor()
		for k, _ := c.First(); k != nil && len(ids) < purgeChunk; k, _ = c.Next() {
			at, id, err := decodeReceivedKey(k)
			if err != nil {
				return err
			}
			if bytes.Compare(at, bound) >= 0 {
				break
			}
			ids = append(ids, bytes.Clone(id))
		}
		for _, id := range ids {
			v := b.items.Get(id)
			if v == nil {
				return corruptf("expiring entry for missing item %x", id)
			}
			it, err := decodeValue(id, v)
			if err != nil {
				return err
			}
			if !it.ExpiredAt(now, ExpirySkew) {
				continue // an expiry within the bound's nanosecond rounding
			}
			visible := !b.isRetracted(id)
			if err := b.hideExpired(it, ch, visible); err != nil {
				return err
			}
			if visible {
				n++
			}
		}
		return nil
	})
	return n, err
}

// NextExpiry returns when the next stored, not yet hidden item expires
// (its Expires plus ExpirySkew), or false if none will.
func (s *Store) NextExpiry() (time.Time, bool, error) {
	var at time.Time
	var ok bool
	err := s.view("next expiry", func(tx *bbolt.Tx) error {
		k, _ := tx.Bucket(bucketExpiring).Cursor().First()
		if k == nil {
			return nil
		}
		if len(k) != 8+16 {
			return corruptf("expiring key %s malformed", hexCut(k))
		}
		v := tx.Bucket(bucketItems).Get(k[8:])
		if v == nil {
			return corruptf("expiring entry for missing item %x", k[8:])
		}
		it, err := decodeValue(k[8:], v)
		if err != nil {
			return err
		}
		at, ok = it.Expires.Add(ExpirySkew), true
		return nil
	})
	return at, ok, err
}

// purgeExpired deletes the items that expired more than ExpiredKeep ago,
// pinned categories included (an expiry is the publisher's word), and
// returns how many.
func (s *Store) purgeExpired() (int, error) {
	bound := receivedBound(s.opts.now().Add(-ExpiredKeep))
	return s.removeInBatches("purge expired", func(b buckets, ch *txChanges) (int, bool, error) {
		var keys [][]byte
		done := true
		c := b.expired.Cursor()
		for k, _ := c.First(); k != nil; k, _ = c.Next() {
			at, _, err := decodeReceivedKey(k)
			if err != nil {
				return 0, false, err
			}
			if bytes.Compare(at, bound) >= 0 {
				break
			}
			if len(keys) == purgeChunk {
				done = false
				break
			}
			keys = append(keys, bytes.Clone(k))
		}
		n := 0
		for _, k := range keys {
			if err := b.expired.Delete(k); err != nil {
				return 0, false, err
			}
			id := uuid.UUID(k[8:])
			v := b.items.Get(id[:])
			if v == nil {
				continue // purged by retention meanwhile
			}
			it, err := decodeValue(id[:], v)
			if err != nil {
				return 0, false, err
			}
			if err := b.remove(it, ch); err != nil {
				return 0, false, err
			}
			n++
		}
		return n, done, nil
	})
}
