package app

import (
	"fmt"
	"slices"

	"newsdesk/categories"
	"newsdesk/network"
	"newsdesk/newsnet"
)

// Subscriptions returns the stored subscriptions, sorted.
func (a *App) Subscriptions() []string {
	s, err := a.store.Subscriptions()
	if err != nil {
		a.log.Warn("reading subscriptions failed", "err", err)
	}
	return s
}

// SetSubscriptions validates (category IDs; "*" is not one) and stores the
// subscriptions and applies them to the running servant.
func (a *App) SetSubscriptions(ids []string) error {
	if err := a.CheckNewSubscriptions(ids); err != nil {
		return err
	}
	if err := a.store.SetSubscriptions(normalizeSubs(ids)); err != nil {
		return err
	}
	if err := a.applySubscriptions(); err != nil {
		return err
	}
	a.events.emit(Event{Kind: CatalogChanged})
	return nil
}

// applySubscriptions gives the running servant what it subscribes to now
// (liveSubscriptions).
func (a *App) applySubscriptions() error {
	if n := a.currentNode(); n != nil {
		return n.SetSubscriptions(a.liveSubscriptions())
	}
	return nil
}

// MaxSubscriptions is the most categories one installation subscribes to.
// The servant's routing set holds newsnet.MaxCategories, and it also holds
// the two system groups, for an admin the admin group, and for an
// archive newsnet.AllCategories. The set must also fit
// newsnet.MaxSubscriptionBytes (128 KiB: each ID's length plus one byte),
// for a catch-up request names it.
const MaxSubscriptions = newsnet.MaxCategories - 4

// checkSubscriptions validates a subscription list: category IDs, at most
// MaxSubscriptions of them, small enough for the servant's frames.
func checkSubscriptions(ids []string) error {
	for _, id := range ids {
		if err := categories.ValidateID(id); err != nil {
			return fmt.Errorf("subscriptions: %w", err)
		}
	}
	subs := normalizeSubs(ids)
	if len(subs) > MaxSubscriptions {
		return fmt.Errorf("subscriptions: %d categories, at most %d", len(subs), MaxSubscriptions)
	}
	return newsnet.CheckSubscriptions(slices.Concat(subs, []string{newsnet.AllCategories}, network.SystemCategories, network.AdminCategories))
}

// CheckNewSubscriptions is checkSubscriptions for a list someone enters
// now (the UI, PUT /v1/subscriptions): a category not subscribed yet and
// not in the catalog must also start every level with a letter or a digit
// (CheckNewCategory).
func (a *App) CheckNewSubscriptions(ids []string) error {
	var cur []string
	if slices.ContainsFunc(ids, func(id string) bool { return checkCategory(id) != nil }) {
		cur = a.Subscriptions() // read only for an old name
	}
	return CheckNewSubscriptionsIn(a.Catalog(), cur, ids)
}

// CheckNewSubscriptionsIn is CheckNewSubscriptions with catalog cat and
// the current subscriptions cur (needed only when ids hold a category
// named before CheckNewCategory's rule): the rule itself, for the UI
// tests' fake too.
func CheckNewSubscriptionsIn(cat *categories.Catalog, cur, ids []string) error {
	if err := checkSubscriptions(ids); err != nil {
		return err
	}
	for _, id := range ids {
		if err := CheckNewCategoryIn(cat, id, cur); err != nil {
			return fmt.Errorf("subscriptions: %w", err)
		}
	}
	return nil
}

// normalizeSubs sorts and de-duplicates, never returning nil.
func normalizeSubs(ids []string) []string {
	s := append([]string{}, ids...)
	slices.Sort(s)
	return slices.Compact(s)
}
