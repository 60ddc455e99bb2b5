package cli

import (
	"fmt"
	"net/http"
	"time"

	"newsdesk/categories"
	"newsdesk/news"
)

// Item is a news item as the control API shows it. The shape is fixed:
// external tools depend on it.
type Item struct {
	ID       string `json:"id"`       // UUIDv7, chosen by the publisher
	Category string `json:"category"` // the multicast group
	Title    string `json:"title"`
	Body     string `json:"body"`
	Source   string `json:"source"`   // the publishing installation's UUID
	Received string `json:"received"` // when this servant stored it (RFC 3339, UTC)

	// Additions: the item's flags, left out when false.
	Urgent   bool `json:"urgent,omitempty"`
	MustRead bool `json:"mustRead,omitempty"`
	// Audience: the network ranges the item is for; left out for everyone.
	Audience []string `json:"audience,omitempty"`
	// NewerFormat: the item is in a format of a newer release (3 and
	// up), of which this servant knows the title but not the text; left
	// out for an item it reads.
	NewerFormat int `json:"newerFormat,omitempty"`
	// Attachments: the item's pictures and files (blobs.go), in manifest
	// order, each with whether it is here; left out when none. Body is
	// then the text without the manifest.
	Attachments []itemAttachmentJSON `json:"attachments,omitempty"`
}

// apiItem converts a stored item to the control API's shape.
func apiItem(it *news.Item) Item {
	return Item{
		ID:          it.ID.String(),
		Category:    it.Category,
		Title:       it.Title,
		Body:        it.Text(),
		Source:      it.Source.String(),
		Received:    it.Received.UTC().Format(time.RFC3339Nano),
		Urgent:      it.Urgent,
		MustRead:    it.MustRead,
		Audience:    news.FormatAudience(it.Audience),
		NewerFormat: int(it.Newer),
	}
}

// maxListedItems bounds a /v1/items answer: the newest this many items of
// the category are listed.
const maxListedItems = 10000

// maxQueryBytes bounds a /v1/items search. Each term of a query is looked
// for in the whole dictionary of the index, so a query of thousands of
// terms would hold the index for seconds; a search typed by hand is far
// shorter.
const maxQueryBytes = 1024

func (c *control) listItems(w http.ResponseWriter, r *http.Request) {
	cat, query := r.URL.Query().Get("category"), r.URL.Query().Get("q")
	if cat == "" && query == "" {
		writeError(w, http.StatusBadRequest, "category query parameter: category is empty")
		return
	}
	// Any ID that can be stored, also one named before categories.ValidateNewID.
	if cat != "" {
		if err := categories.ValidateID(cat); err != nil {
			writeError(w, http.StatusBadRequest, "category query parameter: "+err.Error())
			return
		}
	}
	if len(query) > maxQueryBytes {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("q query parameter: longer than %d bytes", maxQueryBytes))
		return
	}
	var items []*news.Item
	var err error
	if query != "" {
		items, err = c.a.SearchOldestFirst(r.Context(), query, cat, maxListedItems)
	} else {
		items, err = c.a.OldestFirst(cat, maxListedItems)
	}
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	out := make([]Item, len(items)) // never nil: [] rather than null
	for i, it := range items {
		out[i] = apiItem(it)
		out[i].Attachments = itemAttachments(c.a.AttachmentsOf(it))
	}
	writeJSON(w, http.StatusOK, out)
}
