package app

import (
	"errors"
	"fmt"

	"newsdesk/news"
	"newsdesk/storage"
)

// maxUnstoredBytes bounds the memory held for delivered items the store
// could not take. Beyond it items are let go and fetched again instead
// (unstored.dropped): the stored counts stay below them, so the servant
// asks for them once it starts from the store again.
const maxUnstoredBytes = 32 << 20

// unstored keeps the delivered items the store refused (disk full, a
// read-only file system) until it takes them, so an item is never lost
// because the disk was full for a while: the servant has already counted it
// as delivered and would not ask for it again. Used by the inbox's
// goroutine only.
type unstored struct {
	limit   int // bytes held at most; 0 means maxUnstoredBytes
	items   []heldItem
	bytes   int
	dropped map[string]uint64 // per source, the lowest count let go
	nDrop   int               // items let go, to be fetched again
	err     error             // the last refusal
}

type heldItem struct {
	it   *news.Item
	size int // its encoded size, for maxUnstoredBytes
}

// hold keeps it to store again later, or lets it go when the bound is
// reached (remembering its count, so the stored counts stay below it).
func (u *unstored) hold(it *news.Item, size int, err error) {
	u.err = err
	limit := u.limit
	if limit == 0 {
		limit = maxUnstoredBytes
	}
	if u.bytes+size > limit {
		if u.dropped == nil {
			u.dropped = make(map[string]uint64)
		}
		src := it.Source.String()
		if f, ok := u.dropped[src]; !ok || it.SourceCount < f {
			u.dropped[src] = it.SourceCount
		}
		u.nDrop++
		return
	}
	u.items = append(u.items, heldItem{it, size})
	u.bytes += size
}

// take returns the held items, in the order they arrived, and forgets them.
func (u *unstored) take() []heldItem {
	items := u.items
	u.items, u.bytes = nil, 0
	return items
}

// floor returns the lowest count of src that is not stored: held or let
// go. A stored per-source count must stay below it.
func (u *unstored) floor(src string) (uint64, bool) {
	f, ok := u.dropped[src]
	for _, h := range u.items {
		if h.it.Source.String() == src && (!ok || h.it.SourceCount < f) {
			f, ok = h.it.SourceCount, true
		}
	}
	return f, ok
}

// fetched forgets the items let go: the servant has started again from
// the store and asks for them.
func (u *unstored) fetched() { u.dropped, u.nDrop = nil, 0 }

// waiting is the number of delivered items not stored yet.
func (u *unstored) waiting() int { return len(u.items) + u.nDrop }

// pending reports whether anything waits: items to store again, or counts
// to fetch again.
func (u *unstored) pending() bool { return len(u.items) > 0 || len(u.dropped) > 0 }

// problem says what keeps items from being stored, for the status: "" when
// nothing waits.
func (u *unstored) problem() string {
	if !u.pending() {
		return ""
	}
	switch {
	case errors.Is(u.err, storage.ErrDiskFull):
		return "disk full"
	case errors.Is(u.err, storage.ErrReadOnly):
		return "the store is read-only"
	case u.err != nil:
		return fmt.Sprintf("storing failed: %v", u.err)
	}
	return "storing failed"
}
