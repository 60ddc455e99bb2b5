package storage

import (
	"fmt"

	"go.etcd.io/bbolt"

	"newsdesk/categories"
)

// Subscriptions: the categories this installation has joined.

// Subscriptions returns the subscribed category IDs, sorted.
func (s *Store) Subscriptions() ([]string, error) {
	var out []string
	err := s.view("subscriptions", func(tx *bbolt.Tx) error {
		return tx.Bucket(bucketSubs).ForEach(func(k, v []byte) error {
			c, err := decodeSubscription(k, v)
			out = append(out, c)
			return err
		})
	})
	return out, err
}

// decodeSubscription reads a subscriptions entry: a category, no value.
func decodeSubscription(k, v []byte) (string, error) {
	if err := categories.ValidateID(string(k)); err != nil {
		return "", corruptf("subscription %q: %v", k, err)
	}
	if len(v) != 0 {
		return "", corruptf("subscription %q with a value", k)
	}
	return string(k), nil
}

// SetSubscriptions replaces the subscriptions.
func (s *Store) SetSubscriptions(ids []string) error {
	for _, id := range ids {
		if err := categories.ValidateID(id); err != nil {
			return fmt.Errorf("storage: subscriptions: %w", err)
		}
	}
	return s.update("set subscriptions", func(tx *bbolt.Tx, _ *txChanges) error {
		if err := tx.DeleteBucket(bucketSubs); err != nil {
			return err
		}
		b, err := tx.CreateBucket(bucketSubs)
		if err != nil {
			return err
		}
		for _, id := range ids {
			if err := b.Put([]byte(id), nil); err != nil {
				return err
			}
		}
		return nil
	})
}

// Subscribe adds one subscription (idempotent).
func (s *Store) Subscribe(id string) error {
	if err := categories.ValidateID(id); err != nil {
		return fmt.Errorf("storage: subscribe: %w", err)
	}
	return s.update("subscribe", func(tx *bbolt.Tx, _ *txChanges) error {
		return tx.Bucket(bucketSubs).Put([]byte(id), nil)
	})
}

// Unsubscribe removes one subscription (idempotent).
func (s *Store) Unsubscribe(id string) error {
	return s.update("unsubscribe", func(tx *bbolt.Tx, _ *txChanges) error {
		return tx.Bucket(bucketSubs).Delete([]byte(id))
	})
}
