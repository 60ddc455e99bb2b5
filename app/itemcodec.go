package app

import (
	"newsdesk/news"
	"newsdesk/newsnet"
)

// An item travels in newsnet.Multicast.Payload in its wire encoding
// (news.Item.MarshalBinary); the multicast's ID, Category, Source and Count
// repeat the item's fields for the overlay, which never decodes payloads;
// the servant's Verify (network.Keeper.Verify) refuses a message whose
// fields are not its item's, and the inbox decodes what it delivers
// once (news.Decode).

// multicastOf builds the multicast message carrying a stored or new item.
func multicastOf(it *news.Item) (*newsnet.Multicast, error) {
	payload, err := it.MarshalBinary()
	if err != nil {
		return nil, err
	}
	return multicastWith(it, payload), nil
}

// multicastWith is multicastOf for an item whose encoding the caller has.
func multicastWith(it *news.Item, payload []byte) *newsnet.Multicast {
	return &newsnet.Multicast{
		ID:       it.ID,
		Category: it.Category,
		Source:   it.Source.String(),
		Count:    it.SourceCount,
		Payload:  payload,
		Audience: it.Audience,
	}
}
