package network

// Publishing limits at relays (issue 32). The publishing app refuses what
// is beyond its key's limits before the item takes a count (app,
// entrylimit.go); a modified servant, or a stolen key, can skip that. So
// every servant counts, in Verify, the items of each publisher key that
// pass it, and refuses those beyond the limits of the definition held as
// trust.RateLimited.
//
// The window is the item's own publication time (news.Item.PublishedAt,
// signed), in clock hours, never its arrival: a relay that was away a day
// and catches up, a repair after a cut and a new member's catch-up from an
// archive all bring old items at once, and each lands in the hour it was
// published in, where the entry check let at most the hour's ceiling
// (trust.Rate.HourCeiling) through. A relay allows trust.RelayTolerance
// times that, for clock skew between publisher and relay, a publisher's
// clock stepping back, and a key shared by two installations. Items are
// counted once by ID, however often they arrive (Verify runs before the
// overlay drops duplicates), and an item refused is not counted, so the
// same item is refused again wherever it comes from: the outcome for an
// item does not depend on the path it took.
//
// What the window cannot see by itself:
//
//   - An item dated in the future beyond trust.LimitClockSkew is counted in
//     the current hour, so dating items ahead gains nothing.
//   - Items dated before the horizon (limitHorizon, 31 days) are not held
//     per hour (that memory would grow without end); instead all of a
//     key's old items share one bucket, of a day's ceilings
//     (oldBurstHours), refilled by arrival time at oldRefillHours ceilings
//     an hour. A servant back from a month away catches the month up in
//     the hour windows; one away longer takes the older part from this
//     bucket (a busy newsroom's two weeks at once, more as it refills,
//     and what is refused at first is repaired later); a flood dated last
//     year gets one day's worth and then a trickle.
//
// The book lives in memory only: after a restart it starts empty, which is
// never stricter than before. What was refused is counted per source and
// kept in the store (RateLimited).

import (
	"crypto/ed25519"
	"encoding/json"
	"slices"
	"sync"
	"time"

	"github.com/google/uuid"

	"newsdesk/news"
	"newsdesk/trust"
)

const (
	// limitHorizon is how far back, by item time, the book keeps hours:
	// beyond newsnet's catch-up window (7 days) for sources a servant does
	// not follow yet, and a month for the sources it follows (their
	// catch-up starts at the last count it had, however old).
	limitHorizon = 31 * 24 * time.Hour
	// oldBurstHours and oldRefillHours size the bucket of items older than
	// the horizon, in hour ceilings of the key's rate.
	oldBurstHours  = 24
	oldRefillHours = 4
	// maxBookKeys bounds the keys the book follows (every key is a
	// publisher of the definition, but under open publishing any member
	// can make keys); the least recently seen is forgotten first.
	maxBookKeys = 4096
	// keyRateLimited is the settings key of the per-source refusals.
	keyRateLimited = "rate-limited"
	// maxLimitedSources bounds the sources the refusal counts keep.
	maxLimitedSources = 256
)

// maxBookItems bounds the items the book remembers, over all keys (about
// 60 bytes each): beyond it the least recently seen keys are forgotten,
// which only ever makes the book more lenient. A hundred busy publishers'
// month is under a million. A variable only so that tests can make it
// small.
var maxBookItems = 2 << 20

// rateBook is the relay's count of items per publisher key. Safe for
// concurrent use (Verify runs on the node's loop; the app asks for the
// counts from others).
type rateBook struct {
	mu    sync.Mutex
	keys  map[string]*keyBook
	items int    // the items the keys' books remember (seen and oldIDs)
	tick  uint64 // a use counter: keyBook.used orders keys for forgetting
	limit map[uuid.UUID]*LimitedSource
	dirty bool
}

type keyBook struct {
	hours map[int64]*hourCount // by hour since the Unix epoch of the items' times
	// seen holds every item counted in hours, whichever hour: an item
	// counted once (say, dated ahead and counted now) is never counted
	// again when it comes again.
	seen map[uuid.UUID]struct{}
	used uint64
	// old is the bucket of items dated before the horizon: tokens left as
	// of at.
	oldItems float64
	oldBytes float64
	oldAt    time.Time
	oldIDs   map[uuid.UUID]struct{}
}

type hourCount struct {
	items int
	bytes int64
	ids   []uuid.UUID // counted here, to forget with the hour
}

// LimitedSource counts the items of one source this servant refused as
// beyond its publisher's limits (trust.RateLimited) or its category's
// byte cap (trust.TooLarge).
type LimitedSource struct {
	Source    uuid.UUID `json:"source"`
	Key       string    `json:"key"`       // the publisher key, "ed25519:…"
	Publisher string    `json:"publisher"` // its display name in the definition, when listed
	Items     uint64    `json:"items"`
	Bytes     uint64    `json:"bytes"`
	Last      time.Time `json:"last"`
}

// admit counts an item of key, or reports why it may not pass. size is
// its signed encoding's length; at its publication time.
func (b *rateBook) admit(key ed25519.PublicKey, id uuid.UUID, at time.Time, size int, r trust.Rate, now time.Time) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	kb := b.keyBook(key)
	ceilItems, ceilBytes := r.HourCeiling()
	maxItems, maxBytes := trust.RelayTolerance*ceilItems, trust.RelayTolerance*ceilBytes
	if at.After(now.Add(trust.LimitClockSkew)) {
		at = now // dated ahead: counted now
	}
	if at.Before(now.Add(-limitHorizon)) {
		return b.admitOld(kb, id, size, float64(ceilItems), float64(ceilBytes), now)
	}
	if _, ok := kb.seen[id]; ok {
		return true // counted when it first passed
	}
	h := hourOf(at)
	hc := kb.hours[h]
	if hc == nil {
		hc = &hourCount{}
		kb.hours[h] = hc
		b.grew(kb, -kb.prune(now))
	}
	if hc.items+1 > maxItems || hc.bytes+int64(size) > maxBytes {
		return false
	}
	hc.items++
	hc.bytes += int64(size)
	hc.ids = append(hc.ids, id)
	kb.seen[id] = struct{}{}
	b.grew(kb, 1)
	return true
}

// grew notes n more items remembered for kb (negative: forgotten), and
// forgets the least recently seen other keys while the book holds more
// than maxBookItems.
func (b *rateBook) grew(kb *keyBook, n int) {
	b.items += n
	for b.items > maxBookItems && len(b.keys) > 1 {
		b.forgetOldest(kb)
	}
}

// forgetOldest forgets the least recently seen key but keep.
func (b *rateBook) forgetOldest(keep *keyBook) {
	var oldest string
	var used uint64
	for k, v := range b.keys {
		if v != keep && (oldest == "" || v.used < used) {
			oldest, used = k, v.used
		}
	}
	if kb := b.keys[oldest]; kb != nil {
		b.items -= len(kb.seen) + len(kb.oldIDs)
		delete(b.keys, oldest)
	}
}

func hourOf(t time.Time) int64 { return t.Unix() / 3600 }

func (b *rateBook) keyBook(key ed25519.PublicKey) *keyBook {
	if b.keys == nil {
		b.keys = map[string]*keyBook{}
	}
	b.tick++
	kb := b.keys[string(key)]
	if kb == nil {
		if len(b.keys) >= maxBookKeys {
			b.forgetOldest(nil)
		}
		kb = &keyBook{hours: map[int64]*hourCount{}, seen: map[uuid.UUID]struct{}{}, oldIDs: map[uuid.UUID]struct{}{}}
		b.keys[string(key)] = kb
	}
	kb.used = b.tick
	return kb
}

// prune forgets the hours before the horizon, and their items, and
// returns how many items it forgot.
func (kb *keyBook) prune(now time.Time) int {
	first := hourOf(now.Add(-limitHorizon))
	n := 0
	for h, hc := range kb.hours {
		if h < first {
			for _, id := range hc.ids {
				delete(kb.seen, id)
			}
			n += len(hc.ids)
			delete(kb.hours, h)
		}
	}
	return n
}

// admitOld takes an item dated before the horizon from the key's old-items
// bucket, refilled by arrival time.
func (b *rateBook) admitOld(kb *keyBook, id uuid.UUID, size int, ceilItems, ceilBytes float64, now time.Time) bool {
	if _, ok := kb.oldIDs[id]; ok {
		return true
	}
	if _, ok := kb.seen[id]; ok {
		return true // counted in its hour before the hour passed the horizon
	}
	capItems, capBytes := oldBurstHours*ceilItems, oldBurstHours*ceilBytes
	if kb.oldAt.IsZero() {
		kb.oldItems, kb.oldBytes = capItems, capBytes
	} else if d := now.Sub(kb.oldAt).Hours(); d > 0 {
		kb.oldItems = min(capItems, kb.oldItems+d*oldRefillHours*ceilItems)
		kb.oldBytes = min(capBytes, kb.oldBytes+d*oldRefillHours*ceilBytes)
	}
	kb.oldAt = now
	if kb.oldItems < 1 || kb.oldBytes < float64(size) {
		return false
	}
	kb.oldItems--
	kb.oldBytes -= float64(size)
	if len(kb.oldIDs) >= int(capItems) {
		b.grew(kb, -len(kb.oldIDs))
		clear(kb.oldIDs) // bounded: a duplicate after this costs a token again
	}
	kb.oldIDs[id] = struct{}{}
	b.grew(kb, 1)
	return true
}

// refused counts an item of source refused as rate limited.
func (b *rateBook) refused(source uuid.UUID, key ed25519.PublicKey, name string, size int, now time.Time) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.limit == nil {
		b.limit = map[uuid.UUID]*LimitedSource{}
	}
	ls := b.limit[source]
	if ls == nil {
		if len(b.limit) >= maxLimitedSources {
			var oldest *LimitedSource
			for _, v := range b.limit {
				if oldest == nil || v.Last.Before(oldest.Last) {
					oldest = v
				}
			}
			delete(b.limit, oldest.Source)
		}
		ls = &LimitedSource{Source: source, Key: trust.PublicKeyString(key)}
		b.limit[source] = ls
	}
	ls.Publisher = name
	ls.Items++
	ls.Bytes += uint64(size)
	ls.Last = now
	b.dirty = true
}

// checkLimits is Verify's last step for an item that passed every other
// check: the byte cap of its category, then the rate of key, its signer.
// m's payload length is the item's size.
func (k *Keeper) checkLimits(sn *trust.SignedNetwork, h *news.Header, key ed25519.PublicKey, size int) string {
	if h.Category == NetworkCategory {
		// Admin-signed documents, few, and a large one arrives in many
		// parts at once: the admins' own business is not limited.
		return ""
	}
	if key == nil {
		return string(trust.Invalid)
	}
	now := k.now()
	if h.Category == ReportsCategory {
		// A budget of its own: a publisher's summaries must not eat into
		// the publishing limits of the posts they report on.
		if k.reportRates.admit(key, h.ID, h.PublishedAt(), size, reportRate, now) {
			return ""
		}
		return string(trust.RateLimited)
	}
	reason := trust.TooLarge
	if IsSystemCategory(h.Category) || sn.Limits.CheckItemSize(h.Category, size) == nil {
		if k.rates.admit(key, h.ID, h.PublishedAt(), size, sn.Limits.Rate(), now) {
			return ""
		}
		reason = trust.RateLimited
	}
	name := ""
	if p, listed := sn.Publisher(key); listed {
		name = p.Name
	}
	k.rates.refused(h.Source, key, name, size, now)
	return string(reason)
}

func (k *Keeper) now() time.Time {
	if k.clock != nil {
		return k.clock()
	}
	return time.Now()
}

// RateLimited returns the sources of which this servant refused items as
// beyond their publisher's limits, most recent first, with the counts
// kept from earlier runs.
func (k *Keeper) RateLimited() []LimitedSource {
	k.rates.mu.Lock()
	defer k.rates.mu.Unlock()
	out := make([]LimitedSource, 0, len(k.rates.limit))
	for _, ls := range k.rates.limit {
		out = append(out, *ls)
	}
	slices.SortFunc(out, func(a, b LimitedSource) int { return b.Last.Compare(a.Last) })
	return out
}

// SaveRateLimited stores the refusal counts when they changed since the
// last save (the app's monitor calls it).
func (k *Keeper) SaveRateLimited() error {
	k.rates.mu.Lock()
	if !k.rates.dirty {
		k.rates.mu.Unlock()
		return nil
	}
	k.rates.dirty = false
	k.rates.mu.Unlock()
	doc, err := json.Marshal(k.RateLimited())
	if err != nil {
		return err
	}
	if err := k.store.SetSetting(keyRateLimited, string(doc)); err != nil {
		k.rates.mu.Lock()
		k.rates.dirty = true
		k.rates.mu.Unlock()
		return err
	}
	return nil
}

// loadRateLimited reads back the refusal counts of earlier runs (New). A
// damaged value is dropped with a warning: counts, not data.
func (k *Keeper) loadRateLimited() error {
	v, ok, err := k.store.Setting(keyRateLimited)
	if err != nil || !ok {
		return err
	}
	var list []LimitedSource
	if err := json.Unmarshal([]byte(v), &list); err != nil {
		k.log.Warn("the stored counts of rate-limited sources are damaged; starting from zero", "err", err)
		return nil
	}
	k.rates.mu.Lock()
	defer k.rates.mu.Unlock()
	k.rates.limit = map[uuid.UUID]*LimitedSource{}
	for i := range list {
		if len(k.rates.limit) < maxLimitedSources {
			k.rates.limit[list[i].Source] = &list[i]
		}
	}
	return nil
}
