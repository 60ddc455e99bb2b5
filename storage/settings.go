package storage

import (
	"errors"

	"go.etcd.io/bbolt"
)

// Settings: string keys and values for the application's preferences.

// Setting returns the value of a setting and whether it is set.
func (s *Store) Setting(key string) (string, bool, error) {
	var val string
	var ok bool
	err := s.view("setting", func(tx *bbolt.Tx) error {
		if v := tx.Bucket(bucketSettings).Get([]byte(key)); v != nil {
			val, ok = string(v), true
		}
		return nil
	})
	return val, ok, err
}

// SetSetting stores a setting.
func (s *Store) SetSetting(key, value string) error {
	if key == "" {
		return errors.New("storage: setting: key required")
	}
	return s.update("set setting", func(tx *bbolt.Tx, _ *txChanges) error {
		return tx.Bucket(bucketSettings).Put([]byte(key), []byte(value))
	})
}

// DeleteSetting removes a setting; removing an unset one is not an error.
func (s *Store) DeleteSetting(key string) error {
	return s.update("delete setting", func(tx *bbolt.Tx, _ *txChanges) error {
		return tx.Bucket(bucketSettings).Delete([]byte(key))
	})
}

// Settings returns every setting.
func (s *Store) Settings() (map[string]string, error) {
	out := make(map[string]string)
	err := s.view("settings", func(tx *bbolt.Tx) error {
		return tx.Bucket(bucketSettings).ForEach(func(k, v []byte) error {
			out[string(k)] = string(v)
			return nil
		})
	})
	return out, err
}
