package app

// The storage quota (issue 32): how much the items this installation
// received may take on its disk. The network's publishing limits bound
// what each publisher key sends; the quota bounds what one computer keeps,
// whatever many keys (or one stolen key, before an admin revokes it) send.
// Beyond it the oldest received items go first, as retention would take
// them; kept items and must-read items not yet confirmed stay
// (storage.EvictOldest). The app says so: in the status line for a day,
// in Settings next to the quota, and in /v1/status.

import (
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"newsdesk/trust"
)

// DefaultStorageQuota is the quota unless the user chooses another: 4 GiB
// of items. A busy newsroom's year (a few hundred items a day of a few
// kilobytes) is well under 1 GiB, an archive's month of every category
// less still, so it never takes an item an honest network sent; a flood
// stops at a size any company computer has free.
const DefaultStorageQuota = 4 << 30

// Bounds of Settings.StorageQuota, and its value for no quota at all (an
// archive on a disk of its own, say). 0 in Settings means the default.
const (
	MinStorageQuota       = 64 << 20
	MaxStorageQuota       = 1 << 40
	NoStorageQuota  int64 = -1
)

// Keys of the settings bucket for the quota.
const (
	keyStorageQuota = "storage-quota" // bytes in decimal; "-1": none; unset: DefaultStorageQuota
	keyEvicted      = "quota-evicted" // JSON Eviction: the last eviction
)

// quotaCheckEvery is how often the stored size is compared with the quota
// (a read of a number kept in memory).
const quotaCheckEvery = time.Minute

// evictedNotice is how long the status line mentions an eviction.
const evictedNotice = 24 * time.Hour

// Eviction is what the quota removed, the last time it removed anything.
type Eviction struct {
	At    time.Time `json:"at"`
	Items int       `json:"items"`
	Bytes int64     `json:"bytes"`
	Quota int64     `json:"quota"`
}

// Text says what happened, for the status line and Settings.
func (e *Eviction) Text() string {
	return fmt.Sprintf("storage limit of %s reached: the %d oldest items (%s) were removed on %s",
		trust.FormatBytes(e.Quota), e.Items, trust.FormatBytes(e.Bytes), e.At.Local().Format("2 Jan 15:04"))
}

// Recent reports whether it happened within the last day (the status line
// says so then).
func (e *Eviction) Recent(now time.Time) bool { return e != nil && now.Sub(e.At) < evictedNotice }

// storageQuotaFloor is MinStorageQuota; a variable only so that tests can
// fill a store beyond a quota with a few items.
var storageQuotaFloor int64 = MinStorageQuota

// CheckStorageQuota validates Settings.StorageQuota: 0 (the default),
// NoStorageQuota, or MinStorageQuota to MaxStorageQuota bytes.
func CheckStorageQuota(n int64) error {
	if n != 0 && n != NoStorageQuota && (n < storageQuotaFloor || n > MaxStorageQuota) {
		return fmt.Errorf("storage limit: %d bytes, want none or %s to %s", n, trust.FormatBytes(MinStorageQuota), trust.FormatBytes(MaxStorageQuota))
	}
	return nil
}

// storageQuota returns the quota as Settings has it: DefaultStorageQuota
// unless the user chose another, NoStorageQuota for none.
func (a *App) storageQuota() int64 {
	v, ok, err := a.store.Setting(keyStorageQuota)
	if err != nil || !ok {
		return DefaultStorageQuota
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n == 0 || CheckStorageQuota(n) != nil {
		a.log.Warn("setting "+keyStorageQuota+" is malformed; the default applies", "value", v)
		return DefaultStorageQuota
	}
	return n
}

// saveStorageQuota stores the quota the user chose (0: the default) and
// applies it soon after (the monitor's goroutine).
func (a *App) saveStorageQuota(n int64) error {
	if n == 0 {
		n = DefaultStorageQuota
	}
	if n == a.storageQuota() {
		return nil
	}
	if err := a.store.SetSetting(keyStorageQuota, strconv.FormatInt(n, 10)); err != nil {
		return err
	}
	select {
	case a.purgeNow <- struct{}{}:
	default:
	}
	return nil
}

// SetStorageQuota sets the storage quota alone (`serve --storage-limit`):
// 0 for the default, NoStorageQuota for none.
func (a *App) SetStorageQuota(n int64) error {
	if err := CheckStorageQuota(n); err != nil {
		return err
	}
	return a.saveStorageQuota(n)
}

// StoredBytes returns how much the stored items take (the quota's
// measure) and the quota (NoStorageQuota: none).
func (a *App) StoredBytes() (used, quota int64, err error) {
	used, err = a.store.ItemBytes()
	return used, a.storageQuota(), err
}

// LastEviction returns what the quota removed last, nil when it never
// removed anything.
func (a *App) LastEviction() *Eviction { return a.evicted.Load() }

// loadEviction reads back the last eviction (Open).
func (a *App) loadEviction() {
	v, ok, err := a.store.Setting(keyEvicted)
	if err != nil || !ok {
		return
	}
	var e Eviction
	if err := json.Unmarshal([]byte(v), &e); err != nil {
		a.log.Warn("setting "+keyEvicted+" is malformed; ignored", "err", err)
		return
	}
	a.evicted.Store(&e)
}

// enforceQuota removes the oldest items when the store is beyond its
// quota, and says so (the monitor's goroutine).
func (a *App) enforceQuota() {
	quota := a.storageQuota()
	if quota == NoStorageQuota {
		return
	}
	n, freed, err := a.store.EvictOldest(quota)
	switch {
	case err != nil:
		a.log.Warn("removing the oldest items beyond the storage limit failed", "err", err)
		return
	case n == 0:
		return
	}
	e := &Eviction{At: a.now(), Items: n, Bytes: freed, Quota: quota}
	a.evicted.Store(e)
	a.log.Warn("storage limit reached: removed the oldest items (kept and unconfirmed must-read items stay)",
		"items", n, "bytes", freed, "quota", quota)
	if doc, err := json.Marshal(e); err == nil {
		if err := a.store.SetSetting(keyEvicted, string(doc)); err != nil {
			a.log.Warn("storing the eviction failed", "err", err)
		}
	}
	a.events.emit(Event{Kind: ItemsChanged})
	a.events.emit(Event{Kind: StatusChanged})
}
