package fakebackend

import (
	"context"

	"newsdesk/app"
)

// The census comes from the network: a test presets the one the vertex
// reports (PresetCensus) and those the servants at the top of partitions
// answer (PresetPartition). Who may read them is the application's rule:
// an admin reads the preset ones, anyone else is answered as the
// application answers.

// PresetCensus sets the census the network reports.
func (b *Backend) PresetCensus(c app.Census) { b.PresetPartition("", c) }

// PresetPartition sets the census the servant root answers with.
func (b *Backend) PresetPartition(root string, c app.Census) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.censuses[root] = c
}

// preset is the census of root ("": the network's) preset for an admin.
func (b *Backend) presetCensus(root string) (app.Census, bool) {
	b.mu.Lock()
	c, ok := b.censuses[root]
	b.mu.Unlock()
	return c, ok && b.IsAdmin()
}

// NetworkCensus answers the preset census to an admin.
func (b *Backend) NetworkCensus() (app.Census, error) {
	if c, ok := b.presetCensus(""); ok {
		return c, nil
	}
	return b.App.NetworkCensus()
}

// PartitionCensus answers the census PresetPartition set for root to an
// admin.
func (b *Backend) PartitionCensus(ctx context.Context, root string) (app.Census, error) {
	if c, ok := b.presetCensus(root); ok {
		return c, nil
	}
	return b.App.PartitionCensus(ctx, root)
}
