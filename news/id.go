package news

import (
	"bytes"
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"sync"
	"time"

	"github.com/google/uuid"
)

// idGen makes IDs strictly increasing within one process while a burst of
// items shares a millisecond, as uuid.NewV7 does; unlike uuid.NewV7 it takes
// the time from the caller, so tests and imports can create items "at" any
// time and the ID's timestamp matches Created.
var idGen struct {
	sync.Mutex
	last int64 // ms<<12 | 12-bit sub-millisecond sequence of the previous ID
}

// NewID returns a UUIDv7 (RFC 9562) for an item created at now: 48 bits of
// Unix milliseconds, 12 bits of sub-millisecond time (bumped to stay above the
// previous ID of the same millisecond), and 62 random bits. IDs therefore
// sort by creation time, which is what storage keys on.
func NewID(now time.Time) (uuid.UUID, error) {
	if now.Before(time.Unix(0, 0)) {
		return uuid.Nil, fmt.Errorf("id: time %v before 1970 has no UUIDv7", now)
	}
	var id uuid.UUID
	if _, err := rand.Read(id[8:]); err != nil {
		return uuid.Nil, err
	}
	nano := now.UnixNano()
	ms := nano / 1e6
	v := ms<<12 | ((nano - ms*1e6) >> 8) // 0..3906 fits in 12 bits
	idGen.Lock()
	if v <= idGen.last && v>>12 == idGen.last>>12 && idGen.last&0xfff < 0xfff {
		v = idGen.last + 1
	}
	idGen.last = v
	idGen.Unlock()
	ms, seq := v>>12, v&0xfff
	var ts [8]byte
	binary.BigEndian.PutUint64(ts[:], uint64(ms))
	copy(id[0:6], ts[2:8])
	id[6] = 0x70 | byte(seq>>8)
	id[7] = byte(seq)
	id[8] = 0x80 | id[8]&0x3f // RFC 4122/9562 variant
	return id, nil
}

// IDTime returns the creation time encoded in a UUIDv7 (millisecond precision).
func IDTime(id uuid.UUID) time.Time {
	var ts [8]byte
	copy(ts[2:], id[0:6])
	return time.UnixMilli(int64(binary.BigEndian.Uint64(ts[:])))
}

// IDAt returns a UUIDv7 for an item created at t that is not random: t's
// milliseconds, then n where NewID puts its sub-millisecond sequence and
// random bits (the top two bits of n give way to the variant). The same t
// and n always give the same ID, so it suits previews, fixtures and the
// demo data set, never an item that is published.
func IDAt(t time.Time, n uint64) uuid.UUID {
	var id uuid.UUID
	ms := uint64(t.UnixMilli())
	for i := range 6 {
		id[i] = byte(ms >> (40 - 8*i))
	}
	id[6] = 0x70
	binary.BigEndian.PutUint64(id[8:], n)
	id[8] = 0x80 | id[8]&0x3f // RFC 4122/9562 variant
	return id
}

// CompareIDs orders item IDs as storage keys them: by their bytes, which
// for UUIDv7 is by creation time. It returns -1, 0 or +1.
func CompareIDs(a, b uuid.UUID) int { return bytes.Compare(a[:], b[:]) }
