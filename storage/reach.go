package storage

import (
	"encoding/binary"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	"go.etcd.io/bbolt"
)

// Reach of this installation's own publications (reach reports, issue
// 15): the latest totals the overlay reported for each, kept in the reach
// bucket so My posts and GET /v1/reach show them after a restart, before
// the network has reported again. Key the item ID; value:
//
//	version       1 byte (= 3; 2 before schema 10, 1 before schema 9)
//	at            8 bytes, big-endian Unix nanoseconds of the report
//	subscribers, delivered, read, acknowledged   uvarints
//	reportedAcknowledged, unverifiedAcknowledged, unverifiedPending
//	              uvarints (version 2 on)
//	pending       uvarint n, then n × (uvarint len, name; uvarint len, key)
//	offline       (version 2 on) uvarint n, then n × (uvarint len, name;
//	              uvarint len, key; 8 bytes big-endian Unix nanoseconds last seen)
//	reportedPending  (version 3 only) uvarint
//
// A version-1 entry was written before acknowledgements were verified
// against the network's members (issue 32): its acknowledged count is
// the relays' (it reads as ReportedAcknowledged, with nothing verified).
// The entry goes with its item when the item is purged.

const (
	reachVersion  = 3
	reachVersion2 = 2
	reachVersion1 = 1
)

// maxReachPending bounds the pending list of one entry, as the overlay
// bounds it (newsnet.MaxReachIdentities).
const maxReachPending = 256

// Reach is the latest reach report of one own publication.
type Reach struct {
	At                           time.Time // when it was reported
	Subscribers, Delivered, Read uint64    // as the relays reported them
	// Acknowledged: distinct readers whose confirmation verified, signed
	// by a key admitted to the network. ReportedAcknowledged: the relays'
	// count. UnverifiedAcknowledged: confirmations listed that prove no
	// membership (from older releases, or readers without a certificate).
	Acknowledged, ReportedAcknowledged, UnverifiedAcknowledged uint64
	// UnverifiedPending: readers listed as pending who prove no
	// membership; not in Pending.
	UnverifiedPending uint64
	// ReportedPending: the relays' count of readers who have it and have
	// not confirmed, exact where Pending stops at 256.
	ReportedPending uint64
	Pending         []Reader // must-read items: who has it and has not confirmed, verified
	// Offline: readers once listed as pending whose servants are not in
	// the tree now, with when they were last reported; not confirmed as
	// far as the publisher knows.
	Offline []OfflineReader
}

// OfflineReader is a pending reader last reported at LastSeen.
type OfflineReader struct {
	Reader
	LastSeen time.Time
}

// Reader is one entry of a pending list: a display name and a public key
// in text form.
type Reader struct {
	Name, Key string
}

// SetReach stores r as the reach of item id, replacing what was there.
// An item that is not stored is ErrNotFound: its report has nothing to
// belong to.
func (s *Store) SetReach(id uuid.UUID, r Reach) error {
	if len(r.Pending) > maxReachPending || len(r.Offline) > maxReachPending {
		return fmt.Errorf("storage: reach of %s: %d pending and %d offline readers, at most %d each", id, len(r.Pending), len(r.Offline), maxReachPending)
	}
	v := encodeReach(r)
	return s.update("set reach", func(tx *bbolt.Tx, _ *txChanges) error {
		if tx.Bucket(bucketItems).Get(id[:]) == nil {
			return fmt.Errorf("%w: item %s", ErrNotFound, id)
		}
		return tx.Bucket(bucketReach).Put(id[:], v)
	})
}

// Reach returns the stored reach of item id; false if none is stored.
func (s *Store) Reach(id uuid.UUID) (Reach, bool, error) {
	var r Reach
	var ok bool
	err := s.view("reach", func(tx *bbolt.Tx) error {
		r, ok = Reach{}, false
		v := tx.Bucket(bucketReach).Get(id[:])
		if v == nil {
			return nil
		}
		var err error
		r, err = decodeReach(id[:], v)
		ok = err == nil
		return err
	})
	return r, ok, err
}

func encodeReach(r Reach) []byte {
	b := []byte{reachVersion}
	b = binary.BigEndian.AppendUint64(b, uint64(r.At.UnixNano()))
	for _, n := range []uint64{r.Subscribers, r.Delivered, r.Read, r.Acknowledged, r.ReportedAcknowledged, r.UnverifiedAcknowledged, r.UnverifiedPending} {
		b = binary.AppendUvarint(b, n)
	}
	b = binary.AppendUvarint(b, uint64(len(r.Pending)))
	for _, p := range r.Pending {
		for _, s := range []string{p.Name, p.Key} {
			b = binary.AppendUvarint(b, uint64(len(s)))
			b = append(b, s...)
		}
	}
	b = binary.AppendUvarint(b, uint64(len(r.Offline)))
	for _, p := range r.Offline {
		for _, s := range []string{p.Name, p.Key} {
			b = binary.AppendUvarint(b, uint64(len(s)))
			b = append(b, s...)
		}
		b = binary.BigEndian.AppendUint64(b, uint64(p.LastSeen.UnixNano()))
	}
	return binary.AppendUvarint(b, r.ReportedPending)
}

// decodeReach decodes a reach entry; a malformed one is ErrCorrupt.
func decodeReach(k, v []byte) (Reach, error) {
	bad := func(what string) (Reach, error) {
		return Reach{}, corruptf("reach of %x: %s", k, what)
	}
	if len(k) != 16 {
		return bad("key is not an item ID")
	}
	if len(v) < 9 || v[0] != reachVersion && v[0] != reachVersion2 && v[0] != reachVersion1 {
		return bad("malformed header")
	}
	r := Reach{At: time.Unix(0, int64(binary.BigEndian.Uint64(v[1:9])))}
	rest := v[9:]
	next := func() (uint64, bool) {
		n, w := binary.Uvarint(rest)
		if w <= 0 {
			return 0, false
		}
		rest = rest[w:]
		return n, true
	}
	counts := []*uint64{&r.Subscribers, &r.Delivered, &r.Read, &r.Acknowledged}
	if v[0] >= reachVersion2 {
		counts = append(counts, &r.ReportedAcknowledged, &r.UnverifiedAcknowledged, &r.UnverifiedPending)
	}
	for _, p := range counts {
		var ok bool
		if *p, ok = next(); !ok {
			return bad("malformed count")
		}
	}
	if v[0] == reachVersion1 {
		// Nothing was verified against the members then.
		r.ReportedAcknowledged, r.Acknowledged = r.Acknowledged, 0
	}
	n, ok := next()
	if !ok || n > maxReachPending {
		return bad("malformed pending list")
	}
	str := func() (string, bool) {
		l, ok := next()
		if !ok || l > uint64(len(rest)) || !utf8.Valid(rest[:l]) {
			return "", false
		}
		s := string(rest[:l])
		rest = rest[l:]
		return s, true
	}
	for range n {
		name, ok1 := str()
		key, ok2 := str()
		if !ok1 || !ok2 {
			return bad("malformed pending reader")
		}
		r.Pending = append(r.Pending, Reader{Name: name, Key: key})
	}
	if v[0] >= reachVersion2 {
		n, ok := next()
		if !ok || n > maxReachPending {
			return bad("malformed offline list")
		}
		for range n {
			name, ok1 := str()
			key, ok2 := str()
			if !ok1 || !ok2 || len(rest) < 8 {
				return bad("malformed offline reader")
			}
			seen := time.Unix(0, int64(binary.BigEndian.Uint64(rest)))
			rest = rest[8:]
			r.Offline = append(r.Offline, OfflineReader{Reader: Reader{Name: name, Key: key}, LastSeen: seen})
		}
	}
	if v[0] >= reachVersion {
		if r.ReportedPending, ok = next(); !ok {
			return bad("malformed reported pending count")
		}
	}
	if len(rest) != 0 {
		return bad("trailing bytes")
	}
	return r, nil
}
