package storage

import (
	"encoding/binary"
	"fmt"
	"time"

	"github.com/google/uuid"

	"newsdesk/categories"
)

// Key layouts of the index buckets (see doc.go). Every key ends with the
// 16-byte item ID, so keys are unique even when the leading fields are equal.

func categoryKey(category string, id uuid.UUID) []byte {
	k := make([]byte, 0, len(category)+1+16)
	k = append(k, category...)
	k = append(k, 0) // below every slug character: "sales\x00" selects "sales" alone, not "sales/emea"
	return append(k, id[:]...)
}

func categoryPrefix(category string) []byte {
	return append([]byte(category), 0)
}

func sourceKey(source uuid.UUID, count uint64, id uuid.UUID) []byte {
	k := make([]byte, 0, 16+8+16)
	k = append(k, source[:]...)
	k = binary.BigEndian.AppendUint64(k, count)
	return append(k, id[:]...)
}

func receivedKey(received time.Time, id uuid.UUID) []byte {
	k := make([]byte, 0, 8+16)
	// Unix ns as int64 with the sign bit flipped, so times before 1970 sort
	// before times after it in unsigned byte order.
	k = binary.BigEndian.AppendUint64(k, uint64(received.UnixNano())^(1<<63))
	return append(k, id[:]...)
}

func receivedBound(t time.Time) []byte {
	return binary.BigEndian.AppendUint64(nil, uint64(t.UnixNano())^(1<<63))
}

// The decoders of stored keys and small values check every length before
// they slice: a damaged file gives ErrCorrupt, never a panic (issue 11).
// decode_fuzz_test.go runs them on arbitrary bytes.

// decodeSourceKey splits a by-source key.
func decodeSourceKey(k []byte) (source uuid.UUID, count uint64, id []byte, err error) {
	if len(k) != 16+8+16 {
		return uuid.Nil, 0, nil, corruptf("by-source key %s malformed", hexCut(k))
	}
	return uuid.UUID(k[:16]), binary.BigEndian.Uint64(k[16:24]), k[24:], nil
}

// decodeReceivedKey splits a by-received key into the sortable time (as
// receivedBound makes it) and the ID.
func decodeReceivedKey(k []byte) (bound, id []byte, err error) {
	if len(k) != 8+16 {
		return nil, nil, corruptf("by-received key %s malformed", hexCut(k))
	}
	return k[:8], k[8:], nil
}

// decodeCategoryKey splits a by-category key.
func decodeCategoryKey(k []byte) (category string, id []byte, err error) {
	n := len(k) - 1 - 16
	if n < 1 || k[n] != 0 {
		return "", nil, corruptf("by-category key %s malformed", hexCut(k))
	}
	if err := categories.ValidateID(string(k[:n])); err != nil {
		return "", nil, corruptf("by-category key %s: %v", hexCut(k), err)
	}
	return string(k[:n]), k[n+1:], nil
}

// decodeCount reads a stored uint64 (a counter, a count, a total); the
// caller names it in the error.
func decodeCount(v []byte) (uint64, error) {
	if len(v) != 8 {
		return 0, fmt.Errorf("%d bytes, not 8", len(v))
	}
	return binary.BigEndian.Uint64(v), nil
}

// decodeCategoryCount reads an entry keyed by a category whose value is a
// uint64 (item-counts, unread-counts, own-last).
func decodeCategoryCount(what string, k, v []byte) (string, uint64, error) {
	if err := categories.ValidateID(string(k)); err != nil {
		return "", 0, corruptf("%s of %q: %v", what, k, err)
	}
	n, err := decodeCount(v)
	if err != nil {
		return "", 0, corruptf("%s of %q malformed: %v", what, k, err)
	}
	return string(k), n, nil
}

// hexCut formats a damaged key or value for a message, cut to 64 bytes.
func hexCut(b []byte) string {
	if len(b) > 64 {
		return fmt.Sprintf("%x… (%d bytes)", b[:64], len(b))
	}
	return fmt.Sprintf("%x", b)
}
