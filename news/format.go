//go:build !wirenext

package news

// readsFormat is the newest item format this release reads whole; items
// of later formats are kept by their envelope (encoding.go).
const readsFormat = formatV2

// readFields decodes the own fields of an envelope format this release
// reads: none.
func readFields(*Item, []byte) error { return ErrMalformed }

// AppendWritten appends the encoding this release writes for a new item
// it signs: AppendBinary.
func (it *Item) AppendWritten(b []byte) ([]byte, error) { return it.AppendBinary(b) }
