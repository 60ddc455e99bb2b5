package app

import (
	"fmt"
	"slices"

	"github.com/google/uuid"

	"newsdesk/news"
	"newsdesk/newsnet"
)

// An item travels in newsnet.Multicast.Payload in its wire encoding
// (news.Item.MarshalBinary); the multicast's ID, Category, Source and Count
// repeat the item's fields for the overlay, which never decodes payloads.

// multicastOf builds the multicast message carrying a stored or new item.
func multicastOf(it *news.Item) (*newsnet.Multicast, error) {
	payload, err := it.MarshalBinary()
	if err != nil {
		return nil, err
	}
	return &newsnet.Multicast{
		ID:       it.ID,
		Category: it.Category,
		Source:   it.Source.String(),
		Count:    it.SourceCount,
		Payload:  payload,
		Audience: it.Audience,
	}, nil
}

// itemOf decodes the item a delivered message carries. The message's own
// fields must agree with the item's; its count is the one the overlay
// sequenced it by.
func itemOf(m *newsnet.Multicast) (*news.Item, error) {
	it := new(news.Item)
	if err := it.UnmarshalBinary(m.Payload); err != nil {
		return nil, fmt.Errorf("payload: %w", err)
	}
	switch {
	case it.ID != uuid.UUID(m.ID):
		return nil, fmt.Errorf("payload id %s, the message's %s", it.ID, uuid.UUID(m.ID))
	case it.Category != m.Category:
		return nil, fmt.Errorf("payload category %q, the message's %q", it.Category, m.Category)
	case it.Source.String() != m.Source:
		return nil, fmt.Errorf("payload source %s, the message's %q", it.Source, m.Source)
	case !slices.Equal(it.Audience, m.Audience):
		return nil, fmt.Errorf("payload audience %v, the message's %v", it.Audience, m.Audience)
	}
	it.SourceCount = m.Count
	return it, nil
}
