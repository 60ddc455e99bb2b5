package storage

import (
	"encoding/binary"
	"fmt"
	"slices"

	"go.etcd.io/bbolt"
)

// Seeds: the ordered seed list. Keys are big-endian positions, so bbolt's
// key order is the list order.

// Seeds returns the seed list in priority order.
func (s *Store) Seeds() ([]string, error) {
	var out []string
	err := s.view("seeds", func(tx *bbolt.Tx) error {
		return tx.Bucket(bucketSeeds).ForEach(func(k, v []byte) error {
			a, err := decodeSeed(k, v)
			out = append(out, a)
			return err
		})
	})
	return out, err
}

// decodeSeed reads a seeds entry: a 4-byte position and an address.
func decodeSeed(k, v []byte) (string, error) {
	if len(k) != 4 || len(v) == 0 {
		return "", corruptf("seed entry %s: value %q malformed", hexCut(k), v)
	}
	return string(v), nil
}

// SetSeeds replaces the seed list. Entries must be non-empty and distinct;
// their syntax is the network layer's business.
func (s *Store) SetSeeds(seeds []string) error {
	for i, a := range seeds {
		if a == "" {
			return fmt.Errorf("storage: seeds: entry %d empty", i)
		}
		if slices.Contains(seeds[:i], a) {
			return fmt.Errorf("storage: seeds: %q listed twice", a)
		}
	}
	return s.update("set seeds", func(tx *bbolt.Tx, _ *txChanges) error {
		if err := tx.DeleteBucket(bucketSeeds); err != nil {
			return err
		}
		b, err := tx.CreateBucket(bucketSeeds)
		if err != nil {
			return err
		}
		for i, a := range seeds {
			if err := b.Put(binary.BigEndian.AppendUint32(nil, uint32(i)), []byte(a)); err != nil {
				return err
			}
		}
		return nil
	})
}
