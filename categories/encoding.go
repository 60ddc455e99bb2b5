package categories

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// MaxDocumentBytes bounds a catalog document before it is parsed, so a
// hostile or broken document cannot make a servant allocate without limit.
const MaxDocumentBytes = 1 << 20

// document is the serialised form. Field order is the encoding order.
type document struct {
	Version    uint64     `json:"version"`
	Categories []Category `json:"categories"`
}

// Marshal returns the canonical JSON encoding of the catalog: compact, fields
// in a fixed order, categories sorted by ID, every field present, without
// the titles (MarshalTitles encodes those, titles.go). Two
// catalogs with the same content always encode to the same bytes, which is
// what a signature over the document needs; Parse(Marshal(c)) gives back c.
func (c *Catalog) Marshal() ([]byte, error) {
	cats := c.cats
	if cats == nil {
		cats = []Category{} // "categories":[] rather than null: one canonical form
	}
	return json.Marshal(document{Version: c.version, Categories: cats})
}

// MarshalJSON implements json.Marshaler with the canonical encoding.
func (c *Catalog) MarshalJSON() ([]byte, error) { return c.Marshal() }

// Parse decodes and validates a catalog document. It accepts categories in
// any order (the result is sorted) but nothing else loose: unknown fields,
// trailing data, a missing or zero version, duplicate IDs, bad slugs, bad
// display fields and categories whose parent is missing are all errors. A
// signed document this version does not fully understand is refused rather
// than half-applied. The result has no titles (WithTitles adds them).
func Parse(data []byte) (*Catalog, error) {
	if len(data) > MaxDocumentBytes {
		return nil, fmt.Errorf("catalog: document larger than %d bytes", MaxDocumentBytes)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var doc struct {
		Version    *uint64     `json:"version"`
		Categories *[]Category `json:"categories"`
	}
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("catalog: %w", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("catalog: trailing data after the document")
	}
	if doc.Version == nil {
		return nil, fmt.Errorf("catalog: version: required")
	}
	if doc.Categories == nil {
		return nil, fmt.Errorf("catalog: categories: required")
	}
	return NewCatalog(*doc.Version, *doc.Categories)
}

// UnmarshalJSON implements json.Unmarshaler with Parse's validation.
func (c *Catalog) UnmarshalJSON(data []byte) error {
	p, err := Parse(data)
	if err != nil {
		return err
	}
	*c = *p
	return nil
}
