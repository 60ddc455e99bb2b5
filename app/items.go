package app

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"newsdesk/newsnet"
)

// Item is a news item as the control API shows it. The shape is fixed:
// external tools depend on it.
type Item struct {
	ID       string `json:"id"`       // UUIDv7, chosen by the publisher
	Category string `json:"category"` // the multicast group
	Title    string `json:"title"`
	Body     string `json:"body"`
	Source   string `json:"source"`   // the publishing installation's UUID
	Received string `json:"received"` // when this servant got it (RFC 3339, UTC)
}

// itemPayload is an item's encoding inside newsnet.Multicast.Payload; the
// overlay treats it as opaque bytes.
type itemPayload struct {
	Title   string `json:"title"`
	Body    string `json:"body"`
	Created string `json:"created"` // RFC 3339, UTC, set by the publisher
}

// encodeItem builds the multicast message for a new item from this
// installation. HTML escaping is off: it would inflate "<" and "&" sixfold
// for no benefit, and the frame size is limited.
func encodeItem(id uuid.UUID, category, title, body, source string, created time.Time) (*newsnet.Multicast, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	p := itemPayload{Title: title, Body: body, Created: created.UTC().Format(time.RFC3339Nano)}
	if err := enc.Encode(p); err != nil {
		return nil, err
	}
	return &newsnet.Multicast{
		ID:       id,
		Category: category,
		Source:   source,
		Payload:  bytes.TrimSuffix(buf.Bytes(), []byte("\n")),
	}, nil
}

// decodeItem turns a delivered message back into an item.
func decodeItem(m *newsnet.Multicast, received time.Time) (Item, error) {
	var p itemPayload
	if err := json.Unmarshal(m.Payload, &p); err != nil {
		return Item{}, fmt.Errorf("item %s: bad payload: %w", uuid.UUID(m.ID), err)
	}
	return Item{
		ID:       uuid.UUID(m.ID).String(),
		Category: m.Category,
		Title:    p.Title,
		Body:     p.Body,
		Source:   m.Source,
		Received: received.UTC().Format(time.RFC3339Nano),
	}, nil
}

// maxItemsPerCategory bounds memory until items move to bbolt: the oldest
// item of a full category is forgotten.
const maxItemsPerCategory = 10000

// itemStore keeps items in memory, per category, in arrival order: the
// items delivered by the overlay and those published here. It is safe for
// concurrent use; add is called on the node's loop goroutine and holds the
// lock only for an append.
type itemStore struct {
	mu    sync.Mutex
	seq   uint64 // arrival counter, to merge categories in arrival order
	byCat map[string][]storedItem
	ids   map[string]bool // every stored ID, so a second copy is ignored
	limit int
}

type storedItem struct {
	seq uint64
	Item
}

func newItemStore(limit int) *itemStore {
	return &itemStore{byCat: make(map[string][]storedItem), ids: make(map[string]bool), limit: limit}
}

// add stores it unless an item with its ID is stored already, and reports
// whether it did.
func (s *itemStore) add(it Item) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ids[it.ID] {
		return false
	}
	s.seq++
	list := append(s.byCat[it.Category], storedItem{seq: s.seq, Item: it})
	if len(list) > s.limit {
		delete(s.ids, list[0].ID)
		list = slices.Delete(list, 0, 1)
	}
	s.byCat[it.Category] = list
	s.ids[it.ID] = true
	return true
}

// list returns the items of category and of every category below it
// ("sales" includes "sales/emea", as a subscription does), oldest first by
// arrival at this servant.
func (s *itemStore) list(category string) []Item {
	s.mu.Lock()
	var found []storedItem
	for c, items := range s.byCat {
		if c == category || strings.HasPrefix(c, category+"/") {
			found = append(found, items...)
		}
	}
	s.mu.Unlock()
	slices.SortFunc(found, func(a, b storedItem) int { return cmp.Compare(a.seq, b.seq) })
	out := make([]Item, len(found))
	for i, it := range found {
		out[i] = it.Item
	}
	return out
}
