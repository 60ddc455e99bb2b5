package app

import (
	"time"

	"github.com/google/uuid"

	"newsdesk/network"
	"newsdesk/news"
	"newsdesk/trust"
)

// netHost is the application as the network's business sees it
// (network.Host).
type netHost struct{ a *App }

var _ network.Host = netHost{}

func (h netHost) Definition() *trust.SignedNetwork { return h.a.Network() }

func (h netHost) Announce(category, title, body string) (string, error) {
	res, err := h.a.publishSystemItem(category, title, body)
	if err != nil {
		return "", err
	}
	return res.Outcome.String(), nil
}

func (h netHost) Retracted(category string, id uuid.UUID) {
	h.a.events.emit(Event{Kind: ItemsRetracted, Categories: []string{category}, Items: []uuid.UUID{id}})
}

// publishSystemItem publishes an item of a system group as this installation, with
// the display name of the settings as its author.
func (a *App) publishSystemItem(category, title, body string) (PublishResult, error) {
	now := time.Now()
	id, err := news.NewID(now)
	if err != nil {
		return PublishResult{}, err
	}
	it := &news.Item{
		ID:       id,
		Category: category,
		Title:    title,
		Body:     body,
		Author:   a.settings().DisplayName,
		Source:   a.source,
		Created:  now,
	}
	if err := it.Validate(); err != nil {
		return PublishResult{}, err
	}
	return a.PublishItem(it)
}

// Retract hides an item everywhere with a retraction signed by this
// installation's key (network.Keeper.Retract): admins may retract any
// item, a publisher its own.
func (a *App) Retract(id uuid.UUID, reason string) error { return a.net.Retract(id, reason) }
