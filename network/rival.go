package network

// Rival definitions (trust.AcceptRival): two admins published the same
// version at once. Every servant keeps the one that wins the tie, so the
// network converges on it; the admin whose version lost does not lose its
// edit: its servant applies the edit again onto the winner (trust.Merge,
// the merge the admin editors use: per publisher, per category) and
// publishes the result as the next version. Whatever both admins changed
// differently is left as the winner has it and logged: the admin decides
// again.

import (
	"errors"
	"sync"

	"newsdesk/trust"
)

// ownEdit is the last definition this installation signed and published,
// with the one it replaced.
type ownEdit struct {
	mu         sync.Mutex
	base, mine *trust.SignedNetwork
}

func (o *ownEdit) set(base, mine *trust.SignedNetwork) {
	o.mu.Lock()
	o.base, o.mine = base, mine
	o.mu.Unlock()
}

func (o *ownEdit) get() (base, mine *trust.SignedNetwork) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.base, o.mine
}

// considerRival adopts next when it is a rival of the definition held that
// wins the tie (on the goroutine that stores deliveries).
func (k *Keeper) considerRival(next *trust.SignedNetwork) {
	lost := k.Definition()
	if next.Version != lost.Version || SameDefinition(lost, next) {
		return
	}
	if err := lost.AcceptRival(next); err != nil {
		if !errors.Is(err, trust.ErrLosesTie) {
			k.log.Warn("rival network definition refused", "version", next.Version, "err", err)
		}
		return
	}
	k.log.Warn("another admin published the same version at the same time; theirs wins the tie",
		"version", next.Version, "signer", trust.PublicKeyString(next.Signer))
	if adopted, err := k.adoptOne(next); err != nil || !adopted {
		if err != nil {
			k.log.Error("adopting the rival network definition failed", "version", next.Version, "err", err)
		}
		return
	}
	k.adoptHeld()
	// This runs on the goroutine that stores deliveries, which may not
	// announce (Host.Announce): the edit goes out from a goroutine of the
	// Keeper's own.
	k.bg.Add(1)
	go func() {
		defer k.bg.Done()
		k.rebaseOwnEdit(lost, next)
	}()
}

// rebaseOwnEdit publishes this installation's edit again, onto winner,
// when the version it lost to winner was its own.
func (k *Keeper) rebaseOwnEdit(lost, winner *trust.SignedNetwork) {
	base, mine := k.ownEdit.get()
	if mine == nil || !SameDefinition(mine, lost) || !winner.IsAdmin(k.identity.Public) {
		return
	}
	merged, conflicts := trust.Merge(&base.Network, &mine.Network, &winner.Network)
	if len(conflicts) > 0 {
		names := make([]string, len(conflicts))
		for i, c := range conflicts {
			names[i] = c.String()
		}
		k.log.Warn("your edit of the network definition conflicts with another admin's; theirs is kept for these, edit again",
			"conflicts", names, "version", winner.Version)
	}
	unchanged := winner.Network.Clone()
	unchanged.Version = merged.Version
	if unchanged.SameContent(merged) {
		return // nothing of the edit is left to apply
	}
	next, err := k.identity.SignNetwork(merged)
	if err == nil {
		err = k.Publish(next)
	}
	if err != nil {
		k.log.Error("publishing the edit again onto the rival definition failed", "err", err)
		return
	}
	k.log.Info("edit of the network definition published again onto the rival", "version", next.Version)
}
