package network

// Signed retractions (issue 6): "a signed retraction hides an item
// everywhere". A retraction (trust.Retraction) is valid when signed by an
// admin, or by the key that signed the item. It travels as an item of
// RetractionCategory, a system group every servant joins, whose body is the
// retraction's binary encoding in base64: every servant learns of every
// retraction, also one that does not hold the item yet, so a copy that
// arrives later (catch-up, a retransmission) is stored hidden at once.
//
// Hidden means out of every list, search, count and notification; the
// store keeps the item itself (storage.Store.Retract), so the overlay can
// still answer retransmission requests for its count.
//
// Where it is decided: an admin's retraction everywhere; a publisher's only
// where the item is, since only the item says who signed it. A servant
// without the item relays a publisher's retraction when the signer may
// publish at all, and keeps it in memory (pendingRetractions) until the
// item arrives; the stored carriers rebuild that set after a restart.

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"newsdesk/news"
	"newsdesk/storage"
	"newsdesk/trust"
)

// ErrItemNotFound: a retraction of an item this installation does not hold,
// by a key that is no admin (only the item can show who published it).
var ErrItemNotFound = errors.New("no such item here")

// ErrBadItemID: a retraction of an ID no item can have. Item IDs are
// UUIDv7 (news.NewID); the all-zero UUID in particular is none.
var ErrBadItemID = errors.New("not an item ID (item IDs are UUIDv7)")

// CheckItemID reports whether id can be an item's ID (ErrBadItemID if
// not).
func CheckItemID(id uuid.UUID) error {
	if id == uuid.Nil || id.Version() != 7 || id.Variant() != uuid.RFC4122 {
		return fmt.Errorf("%s: %w", id, ErrBadItemID)
	}
	return nil
}

// NotAuthorizedError: this installation's key may not retract the item (it
// is neither an admin nor the item's publisher, or it is revoked).
type NotAuthorizedError struct {
	ItemID uuid.UUID
	Err    error
}

func (e *NotAuthorizedError) Error() string {
	return fmt.Sprintf("this installation may not retract item %s: %v", e.ItemID, e.Err)
}

func (e *NotAuthorizedError) Unwrap() error { return e.Err }

// Reason returns the short reason, a trust.Rejection.
func (e *NotAuthorizedError) Reason() string { return string(trust.ReasonOf(e.Err)) }

// Retract hides an item everywhere: it signs a retraction with this
// installation's key, applies it here and announces it to the network.
// reason (one line, may be empty) is shown in place of the item. Admins may
// retract any item, a publisher its own. A corrected item's earlier
// versions are retracted with it, so the story does not reappear in the
// version before; retracting an item retracted already is a no-op.
func (k *Keeper) Retract(id uuid.UUID, reason string) error {
	if err := CheckItemID(id); err != nil {
		return fmt.Errorf("retracting %w", err)
	}
	reason = strings.TrimSpace(reason)
	versions, err := k.versionsOf(id)
	if err != nil {
		return err
	}
	sn := k.Definition()
	sign := func(target uuid.UUID, orig *news.Item) (*trust.Retraction, error) {
		r, err := k.identity.SignRetraction(target, reason, time.Now())
		if err != nil {
			return nil, err
		}
		return r, sn.VerifyRetraction(r, orig)
	}
	if len(versions) == 0 {
		// Not here: an admin may still retract it by its ID.
		r, err := sign(id, nil)
		switch {
		case trust.ReasonOf(err) == trust.UnknownItem:
			return fmt.Errorf("retracting %s: %w", id, ErrItemNotFound)
		case trust.ReasonOf(err) != "":
			return &NotAuthorizedError{ItemID: id, Err: err}
		case err != nil:
			return err
		}
		return k.retract(r)
	}
	var rs []*trust.Retraction
	for i, e := range versions {
		if e.Retracted != nil {
			continue
		}
		r, err := sign(e.Item.ID, e.Item)
		switch {
		case trust.ReasonOf(err) != "" && i == 0:
			return &NotAuthorizedError{ItemID: id, Err: err}
		case trust.ReasonOf(err) != "":
			continue // an earlier version by someone else: theirs to retract
		case err != nil:
			return err
		}
		rs = append(rs, r)
	}
	for _, r := range rs {
		if err := k.retract(r); err != nil {
			return err
		}
	}
	return nil
}

// retract applies a retraction signed here and announces it.
func (k *Keeper) retract(r *trust.Retraction) error {
	k.applyRetraction(r)
	return k.announceRetraction(r)
}

// versionsOf returns the stored item id and the earlier versions it
// corrects, newest first; none when id is not stored.
func (k *Keeper) versionsOf(id uuid.UUID) ([]storage.Entry, error) {
	var out []storage.Entry
	for next := id; next != uuid.Nil && len(out) < maxCorrectionChain; {
		e, err := k.store.Get(next)
		switch {
		case errors.Is(err, storage.ErrNotFound):
			return out, nil
		case err != nil:
			return nil, err
		case IsSystemItem(e.Item):
			return nil, fmt.Errorf("retracting %s: %w", next, ErrItemNotFound)
		}
		out = append(out, e)
		next = e.Item.Supersedes
	}
	return out, nil
}

// maxCorrectionChain bounds the walk through corrections of corrections.
const maxCorrectionChain = 100

// announceRetraction publishes r as an item of RetractionCategory.
func (k *Keeper) announceRetraction(r *trust.Retraction) error {
	bin, err := r.MarshalBinary()
	if err != nil {
		return err
	}
	outcome, err := k.host.Announce(RetractionCategory, "Retraction of "+r.ItemID.String(), base64.StdEncoding.EncodeToString(bin))
	if err != nil {
		return fmt.Errorf("announcing the retraction: %w", err)
	}
	k.log.Info("retraction announced", "item", r.ItemID, "outcome", outcome)
	return nil
}

// retractionOf decodes the retraction an item of RetractionCategory carries.
func retractionOf(it *news.Item) (*trust.Retraction, error) {
	bin, err := base64.StdEncoding.Strict().DecodeString(it.Body)
	if err != nil {
		return nil, fmt.Errorf("retraction: %w", err)
	}
	r := new(trust.Retraction)
	if err := r.UnmarshalBinary(bin); err != nil {
		return nil, err
	}
	return r, nil
}

// verifyRetraction is Verify for an item of RetractionCategory whose
// carrier passed VerifyCarrier, against sn, the definition held. A
// publisher's retraction of an item this servant does not hold passes when
// the signer may publish at all: the servants that hold the item decide.
func (k *Keeper) verifyRetraction(sn *trust.SignedNetwork, it *news.Item) string {
	r, err := retractionOf(it)
	if err != nil {
		return string(trust.Invalid)
	}
	err = sn.VerifyRetraction(r, k.heldItem(r.ItemID))
	switch reason := trust.ReasonOf(err); {
	case err == nil:
		return ""
	case reason == trust.UnknownItem:
		if mayPublishAnywhere(sn, r.Signer) {
			return ""
		}
		return string(trust.NotAuthorized)
	case reason != "":
		return string(reason)
	}
	return string(trust.Invalid)
}

// mayPublishAnywhere reports whether k is an admin or a publisher.
func mayPublishAnywhere(sn *trust.SignedNetwork, k []byte) bool {
	if sn.IsRevoked(k) {
		return false
	}
	if _, ok := sn.Publisher(k); ok {
		return true
	}
	return sn.IsAdmin(k) || sn.OpenPublishing
}

// heldItem returns the stored item id, or nil.
func (k *Keeper) heldItem(id uuid.UUID) *news.Item {
	e, err := k.store.Get(id)
	if err != nil {
		if !errors.Is(err, storage.ErrNotFound) {
			k.log.Warn("reading an item failed", "id", id, "err", err)
		}
		return nil
	}
	return e.Item
}

// ReceiveRetraction handles a stored item of RetractionCategory that the
// overlay delivered (on the goroutine that stores deliveries).
func (k *Keeper) ReceiveRetraction(it *news.Item) {
	if _, err := k.store.MarkRead(it.ID); err != nil {
		k.log.Warn("marking a retraction read failed", "err", err)
	}
	r, err := retractionOf(it)
	if err != nil {
		return // Verify let it through, so this cannot happen
	}
	k.applyRetraction(r)
}

// applyRetraction hides the item r retracts when r is valid: at once for an
// admin's, or for a publisher's when the item is here and the publisher
// signed it. A publisher's retraction of an item not here waits for it.
func (k *Keeper) applyRetraction(r *trust.Retraction) {
	orig := k.heldItem(r.ItemID)
	if err := k.Definition().VerifyRetraction(r, orig); err != nil {
		if trust.ReasonOf(err) == trust.UnknownItem {
			k.pending.add(r)
			return
		}
		k.log.Warn("retraction refused", "item", r.ItemID, "signer", trust.PublicKeyString(r.Signer), "err", err)
		return
	}
	hidden, err := k.store.Retract(storage.Retraction{ItemID: r.ItemID, Reason: r.Reason, At: time.Now()})
	if err != nil {
		k.log.Error("storing a retraction failed", "item", r.ItemID, "err", err)
		return
	}
	k.log.Info("item retracted", "item", r.ItemID, "signer", trust.PublicKeyString(r.Signer), "held", orig != nil)
	if hidden && orig != nil {
		k.host.Retracted(orig.Category, r.ItemID)
	}
}

// RetractionsArrived applies the retractions that waited for item id,
// which was just stored (on the goroutine that stores deliveries). It
// reports whether the item is hidden now.
func (k *Keeper) RetractionsArrived(id uuid.UUID) bool {
	for _, r := range k.pending.take(id) {
		k.applyRetraction(r)
	}
	ret, err := k.store.Retracted(id)
	return err == nil && ret != nil
}

// maxPendingRetractions bounds the items publishers' retractions wait for;
// beyond it the oldest are forgotten (until the next restart reads them
// back from the stored carriers). maxPendingPerItem bounds the different
// retractions of one item kept (one is the publisher's; the others were
// signed by other publishers and will be refused).
const (
	maxPendingRetractions = 10000
	maxPendingPerItem     = 8
)

// pendingRetractions are publishers' retractions of items not held, by
// item ID.
type pendingRetractions struct {
	mu    sync.Mutex
	byID  map[uuid.UUID][]*trust.Retraction
	order []uuid.UUID // arrival order, for the bound
}

func (p *pendingRetractions) add(r *trust.Retraction) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.byID == nil {
		p.byID = make(map[uuid.UUID][]*trust.Retraction)
	}
	rs, ok := p.byID[r.ItemID]
	if !ok {
		p.order = append(p.order, r.ItemID)
	}
	if len(rs) >= maxPendingPerItem || slices.ContainsFunc(rs, func(o *trust.Retraction) bool { return bytes.Equal(o.Signature, r.Signature) }) {
		return // one retraction relayed in many carriers counts once
	}
	p.byID[r.ItemID] = append(rs, r)
	for len(p.order) > maxPendingRetractions {
		delete(p.byID, p.order[0])
		p.order = p.order[1:]
	}
}

// take removes and returns the retractions waiting for id.
func (p *pendingRetractions) take(id uuid.UUID) []*trust.Retraction {
	p.mu.Lock()
	defer p.mu.Unlock()
	rs, ok := p.byID[id]
	if !ok {
		return nil
	}
	delete(p.byID, id)
	for i, o := range p.order {
		if o == id {
			p.order = append(p.order[:i], p.order[i+1:]...)
			break
		}
	}
	return rs
}

// loadRetractions reads the stored retraction carriers back after a
// restart and applies again every one whose item is not hidden yet: those
// still waiting for their item wait again, and one whose hiding the stop
// interrupted (stored, not yet applied) is applied now. Applying is
// idempotent.
func (k *Keeper) loadRetractions() error {
	return k.eachStored(RetractionCategory, func(it *news.Item) {
		r, err := retractionOf(it)
		if err != nil {
			return
		}
		if done, err := k.store.Retracted(r.ItemID); err == nil && done == nil {
			k.applyRetraction(r)
		}
	})
}

// Waiting returns how many retractions wait for item id to arrive.
func (k *Keeper) Waiting(id uuid.UUID) int {
	k.pending.mu.Lock()
	defer k.pending.mu.Unlock()
	return len(k.pending.byID[id])
}
