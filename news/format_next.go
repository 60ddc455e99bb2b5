//go:build wirenext

package news

import (
	"fmt"
	"os"
	"slices"
)

// A build of the next release, for the interoperability test only
// (interop/). It reads format 3, an envelope whose fields hold the item in
// format 1 or 2 with an empty signature, and writes it for every item it
// signs when NEWSDESK_NEXT_FORMAT=1. This release keeps such items by
// their envelope and shows that they need a newer Newsdesk.
const (
	readsFormat = 3
	formatNext  = 3
)

// readFields decodes format 3's fields into n, whose envelope fields must
// agree with them.
func readFields(n *Item, fields []byte) error {
	var in Item
	if err := in.UnmarshalBinary(fields); err != nil {
		return fmt.Errorf("format 3 fields: %w", err)
	}
	if in.ID != n.ID || in.Source != n.Source || in.SourceCount != n.SourceCount || !in.Created.Equal(n.Created) ||
		in.Category != n.Category || in.Title != n.Title || !slices.Equal(in.Audience, n.Audience) || len(in.Signature) != 0 {
		return fmt.Errorf("%w: format 3 fields disagree with the envelope", ErrMalformed)
	}
	sig := n.Signature
	*n = in
	n.Signature = sig
	return nil
}

// WritesEnvelope reports whether new items are written in format 3.
func WritesEnvelope() bool { return os.Getenv("NEWSDESK_NEXT_FORMAT") == "1" }

// AppendWritten appends the encoding this build writes for a new item it
// signs: format 3 when NEWSDESK_NEXT_FORMAT=1, else AppendBinary.
func (it *Item) AppendWritten(b []byte) ([]byte, error) {
	if !WritesEnvelope() {
		return it.AppendBinary(b)
	}
	inner := *it
	inner.Signature = nil
	fields, err := inner.MarshalBinary()
	if err != nil {
		return nil, err
	}
	return AppendEnvelope(b, formatNext, it, fields)
}
