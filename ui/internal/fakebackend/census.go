package fakebackend

import (
	"context"

	"newsdesk/app"
)

// The census comes from the network: a test presets the one the vertex
// reports (PresetCensus) and those the servants at the top of partitions
// answer (PresetPartition). Who may read them is the application's rule.

// NetworkCensus answers the preset census to an admin, else as the
// application does (app.ErrNotAdmin, app.ErrNoCensus).
func (b *Backend) NetworkCensus() (app.Census, error) {
	b.mu.Lock()
	c := b.census
	b.mu.Unlock()
	if c == nil || !b.IsAdmin() {
		return b.App.NetworkCensus()
	}
	return *c, nil
}

// PartitionCensus answers the census PresetPartition set for root to an
// admin, else as the application does (a root without one does not
// answer).
func (b *Backend) PartitionCensus(ctx context.Context, root string) (app.Census, error) {
	b.mu.Lock()
	c, ok := b.parts[root]
	b.mu.Unlock()
	if !ok || !b.IsAdmin() {
		return b.App.PartitionCensus(ctx, root)
	}
	return c, nil
}

// PresetPartition sets the census the servant root answers with.
func (b *Backend) PresetPartition(root string, c app.Census) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.parts == nil {
		b.parts = map[string]app.Census{}
	}
	b.parts[root] = c
}

// PresetCensus sets the census the network reports.
func (b *Backend) PresetCensus(c app.Census) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.census = &c
}
