package app

// The publishing limits where an item enters the network (issue 32): the
// network definition bounds how many items and bytes one publisher key
// puts into the network (trust.PublishLimits), and every relay refuses
// what is beyond them (network/limits.go). The publishing app checks
// first, before the item takes a count, so an honest publisher learns at
// once (the Compose view shows the reason, the control API answers 429
// with Retry-After) and never sends what relays would refuse.
//
// Two checks, both needed:
//
//   - a token bucket in real time: BurstItems items (BurstBytes bytes) at
//     once, refilled at ItemsPerHour (BytesPerHour);
//   - per clock hour of the items' own publication times, at most the
//     hour's ceiling (trust.Rate.HourCeiling), which is what relays count
//     (with a tolerance): scheduled items carry their scheduled time, and
//     many scheduled for one hour must not take that hour beyond what
//     relays accept.
//
// The state is rebuilt from this installation's own stored items when the
// first publication after a start is checked, so restarting the app does
// not refill the bucket.

import (
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"newsdesk/network"
	"newsdesk/news"
	"newsdesk/trust"
)

// LimitError: the network's publishing limits refuse the item. Reason is
// trust.RateLimited (come back after RetryAfter; 0 when waiting does not
// help: a scheduled item sent late into an hour that is full) or
// trust.TooLarge (the item is beyond its category's byte cap; RetryAfter
// is 0).
type LimitError struct {
	Reason     trust.Rejection
	RetryAfter time.Duration
	Detail     string
	// Attachments: the limit is one of the network's attachment limits
	// (the category's cap of an item's attachments, TooLarge; a key's
	// attachment bytes per hour, RateLimited), and Limit is it in bytes
	// (0: no attachments allowed), for Compose to name it.
	Attachments bool
	Limit       int64
}

func (e *LimitError) Error() string {
	switch {
	case e.Reason == trust.TooLarge:
		return "too large for the network: " + e.Detail
	case e.RetryAfter == 0:
		return "beyond the network's publishing limit: " + e.Detail
	}
	return fmt.Sprintf("the network's publishing limit for this computer is reached (%s); try again in %s",
		e.Detail, roundUp(e.RetryAfter))
}

// Unwrap makes errors.Is(err, trust.RateLimited) work.
func (e *LimitError) Unwrap() error { return e.Reason }

func roundUp(d time.Duration) time.Duration {
	if d < time.Second {
		return time.Second
	}
	return d.Round(time.Second)
}

// entryLimiter is the entry check of one installation (one key).
type entryLimiter struct {
	mu     sync.Mutex
	loaded bool
	items  float64 // tokens as of at
	bytes  float64
	at     time.Time
	hours  map[int64]hourUse // by clock hour of the items' publication times
}

type hourUse struct {
	items    int
	bytes    int64
	attBytes int64 // of the items' attachments, which bytes does not count
}

// entryHours is how long the hours of own items are kept (item time).
const entryHours = 48

// entrySize is an upper bound of an item's signed encoding, which relays
// count: the item with the largest count and a signature in place.
func entrySize(it *news.Item) (int, error) {
	c := *it
	c.SourceCount = math.MaxUint64
	c.Signature = make([]byte, trust.ItemSignatureSize)
	b, err := c.MarshalBinary()
	return len(b), err
}

// checkLimits takes it, about to be numbered and published now, from the
// limits of the definition held, or returns the *LimitError that refuses
// it. System items carrying definitions are not limited (as at relays),
// and reach summaries have a budget of their own at relays (network
// reportRate) that the report sender stays well within.
func (a *App) checkLimits(it *news.Item, now time.Time) error {
	if it.Category == network.NetworkCategory || it.Category == network.ReportsCategory {
		return nil
	}
	limits := a.Network().Limits
	size, err := a.checkItemCap(it)
	if err != nil {
		return err
	}
	l := &a.limiter
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.loaded {
		a.loadOwnUse(l, now)
	}
	return l.take(limits, it.PublishedAt(), size, attachmentTotal(it), now)
}

// attachmentTotal is the bytes of the attachments an item's manifest
// names, all together.
func attachmentTotal(it *news.Item) int64 {
	var n int64
	for _, m := range it.Attachments() {
		n += m.Size
	}
	return n
}

// checkItemCap refuses an item beyond its category's byte cap or its
// attachments beyond the category's attachment cap (also when it is
// scheduled, so the publisher learns at once), and returns its size.
func (a *App) checkItemCap(it *news.Item) (int, error) {
	size, err := entrySize(it)
	if err != nil || network.IsSystemItem(it) {
		return size, err
	}
	limits := a.Network().Limits
	if err := limits.CheckItemSize(it.Category, size); err != nil {
		return 0, tooLargeError(err)
	}
	if err := attachmentLimitError(limits, it.Category, attachmentTotal(it)); err != nil {
		return 0, err
	}
	return size, nil
}

// CheckAttachmentLimit refuses attachments of a draft in category beyond
// the network's attachment cap there, with the *LimitError (TooLarge)
// that Publish would return, before anything is stored: Publish and the
// control API call it after PrepareAttachments.
func (a *App) CheckAttachmentLimit(category string, atts []news.Attachment) error {
	return AttachmentLimit(a.Network().Limits, category, atts)
}

// AttachmentLimit is CheckAttachmentLimit under limits, for a backend
// that holds a definition without an App (the UI's test fake).
func AttachmentLimit(limits trust.PublishLimits, category string, atts []news.Attachment) error {
	var total int64
	for _, m := range atts {
		total += m.Size
	}
	if err := attachmentLimitError(limits, category, total); err != nil {
		return err
	}
	return nil
}

// attachmentLimitError is the *LimitError refusing total bytes of
// attachments in category, nil when limits allow them.
func attachmentLimitError(limits trust.PublishLimits, category string, total int64) *LimitError {
	err := limits.CheckAttachments(category, total)
	if err == nil {
		return nil
	}
	le := tooLargeError(err)
	le.Attachments, le.Limit = true, limits.AttachmentCap(category)
	return le
}

// tooLargeError is the *LimitError of a trust.TooLarge rejection.
func tooLargeError(err error) *LimitError {
	var re *trust.RejectionError
	errors.As(err, &re)
	return &LimitError{Reason: trust.TooLarge, Detail: re.Detail}
}

// take refills the bucket to now and takes one item of size, with att
// bytes of attachments, published at.
func (l *entryLimiter) take(limits trust.PublishLimits, at time.Time, size int, att int64, now time.Time) error {
	r := limits.Rate()
	l.refill(r, now)
	ceilItems, ceilBytes := r.HourCeiling()
	h := at.Unix() / 3600
	use := l.hours[h]
	detail := fmt.Sprintf("%d items and %s an hour, %d items or %s at once",
		r.ItemsPerHour, trust.FormatBytes(r.BytesPerHour), r.BurstItems, trust.FormatBytes(r.BurstBytes))
	// Attachments count per clock hour of the items' times only, no
	// bucket: the hour is what subscribers count (app/blobnet.go), and an
	// hour's allowance at once is what a newsroom posting the pictures of
	// an event needs.
	if attRate := limits.AttachmentRate(); att > 0 && use.attBytes+att > attRate {
		if wait := time.Unix((h+1)*3600, 0).Sub(now); wait > 0 {
			return &LimitError{Reason: trust.RateLimited, RetryAfter: max(wait, time.Second),
				Detail: trust.FormatBytes(attRate) + " of attachments an hour", Attachments: true, Limit: attRate}
		}
		return &LimitError{Reason: trust.RateLimited, Attachments: true, Limit: attRate, Detail: fmt.Sprintf(
			"the hour of its publication time, %s, holds %s of attachments already, and the network allows %s; schedule it for a later time",
			time.Unix(h*3600, 0).Local().Format("2 Jan 15:04"), trust.FormatBytes(use.attBytes), trust.FormatBytes(attRate))}
	}
	if use.items+1 > ceilItems || use.bytes+int64(size) > ceilBytes {
		wait := time.Unix((h+1)*3600, 0).Sub(now)
		if wait <= 0 {
			// A scheduled item sent late, dated in an hour that is full:
			// waiting does not help, another time does.
			return &LimitError{Reason: trust.RateLimited, Detail: fmt.Sprintf(
				"the hour of its publication time, %s, holds %d items already, the most the network allows; schedule it for a later time",
				time.Unix(h*3600, 0).Local().Format("2 Jan 15:04"), use.items)}
		}
		return &LimitError{Reason: trust.RateLimited, RetryAfter: max(wait, time.Second), Detail: detail}
	}
	if int64(size) > r.BurstBytes {
		return &LimitError{Reason: trust.TooLarge, Detail: fmt.Sprintf("the item is %s, more than the %s one publisher may send at once",
			trust.FormatBytes(int64(size)), trust.FormatBytes(r.BurstBytes))}
	}
	if l.items < 1 || l.bytes < float64(size) {
		wait := time.Duration(max((1-l.items)/float64(r.ItemsPerHour), (float64(size)-l.bytes)/float64(r.BytesPerHour)) * float64(time.Hour))
		return &LimitError{Reason: trust.RateLimited, RetryAfter: max(wait, time.Second), Detail: detail}
	}
	l.items--
	l.bytes -= float64(size)
	l.note(at, size, att, now)
	return nil
}

func (l *entryLimiter) refill(r trust.Rate, now time.Time) {
	if l.at.IsZero() {
		l.items, l.bytes, l.at = float64(r.BurstItems), float64(r.BurstBytes), now
	}
	if d := now.Sub(l.at).Hours(); d > 0 {
		l.items += d * float64(r.ItemsPerHour)
		l.bytes += d * float64(r.BytesPerHour)
		l.at = now
	}
	// A clock that stepped back refills nothing; a definition that lowered
	// the burst caps what is left.
	l.items = min(l.items, float64(r.BurstItems))
	l.bytes = min(l.bytes, float64(r.BurstBytes))
}

// note records an item taken, and forgets hours long past.
func (l *entryLimiter) note(at time.Time, size int, att int64, now time.Time) {
	if l.hours == nil {
		l.hours = map[int64]hourUse{}
	}
	h := at.Unix() / 3600
	u := l.hours[h]
	u.items++
	u.bytes += int64(size)
	u.attBytes += att
	l.hours[h] = u
	first := now.Unix()/3600 - entryHours
	for h := range l.hours {
		if h < first {
			delete(l.hours, h)
		}
	}
}

// loadOwnUse rebuilds the limiter from this installation's own items
// stored in the last entryHours: their hours, and the bucket as it stands
// after them.
func (a *App) loadOwnUse(l *entryLimiter, now time.Time) {
	l.loaded = true
	r := a.Network().Limits.Rate()
	hi, err := a.store.HighestStoredCount(a.source)
	if err != nil || hi == 0 {
		return
	}
	ceil, _ := r.HourCeiling()
	n := uint64(min(ceil*entryHours, 50_000))
	after := uint64(0)
	if hi > n {
		after = hi - n
	}
	items, err := a.store.ItemsAfter(a.source, after, int(n))
	if err != nil {
		a.log.Warn("reading own publications for the publishing limits failed; starting with a full allowance", "err", err)
		return
	}
	since := now.Add(-entryHours * time.Hour)
	for _, it := range items {
		at := it.PublishedAt()
		if at.Before(since) || it.Category == network.NetworkCategory {
			continue
		}
		size, err := entrySize(it)
		if err != nil {
			continue
		}
		l.refill(r, earlier(at, now))
		l.items--
		l.bytes -= float64(size)
		l.note(at, size, attachmentTotal(it), now)
	}
	l.refill(r, now)
}

func earlier(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

// ErrLimitsChanged: the publishing limits of the definition held are no
// longer the ones an edit started from; another admin changed them.
var ErrLimitsChanged = errors.New("another admin changed the publishing limits meanwhile")

// PublishLimits returns the publishing limits of the definition held (the
// zero value: the defaults).
func (a *App) PublishLimits() trust.PublishLimits { return a.Network().Limits }

// SetPublishLimits makes now the network's publishing limits (admins only:
// ErrNotAdmin) and returns the version of the definition that has them. It
// signs the next version with this installation's key and publishes it;
// everything else in it stays as held. was is what the edit started from:
// when the definition held has other limits by now, nothing is published
// and the error is ErrLimitsChanged (the limits merge as one field, as
// trust.Merge does it). Limits the definition refuses are an error naming
// the rule.
func (a *App) SetPublishLimits(was, now trust.PublishLimits) (uint64, error) {
	for attempt := 1; ; attempt++ {
		cur := a.Network()
		if !cur.IsAdmin(a.identity.Public) {
			return 0, ErrNotAdmin
		}
		if cur.Limits.Equal(now) {
			return cur.Version, nil
		}
		if !cur.Limits.Equal(was) {
			return 0, ErrLimitsChanged
		}
		n := cur.Network.Clone()
		n.Version = cur.Version + 1
		n.Limits = now
		next, err := a.identity.SignNetwork(n)
		if err != nil {
			return 0, err
		}
		err = a.PublishNetwork(next)
		switch {
		case err == nil:
			a.log.Info("publishing limits published", "version", next.Version, "limits", now.String())
			return next.Version, nil
		case !errors.Is(err, trust.ErrNotNewer) || attempt == namedAudienceAttempts:
			return 0, fmt.Errorf("publishing the limits: %w", err)
		}
	}
}
