package storage

import (
	"encoding/binary"
	"time"

	"github.com/google/uuid"
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
