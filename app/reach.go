package app

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"

	"newsdesk/network"
	"newsdesk/news"
	"newsdesk/newsnet"
	"newsdesk/storage"
	"newsdesk/trust"
)

// Reach reports (issue 15; the overlay's side is newsnet/reach.go). The
// application tells its servant what the reader did with the items stored
// here: opened or marked read (ReadItem), holds a must-read one (MustReadItem,
// with the reader's identity: installation key and display name, signed
// for the item with the membership certificate, trust.SignReachBlob, or
// trust.ReaderIdentity without one), confirmed it (AcknowledgeItem, with
// a signed proof of the same kind: reachtrust.go). The store is the record of all
// three (read state, must-read items, acknowledgements): a servant that is
// not running is told nothing, and every start passes the recent items'
// marks back in Config.Reach (ownReach), so nothing is lost across restarts;
// with each item its audience, whose subscribers the servants count per
// item (a servant inside counts itself).
//
// As the publisher, the servant reports the totals of each own publication
// (OnReach). They are those of the servants in the tree now: the
// application keeps the latest report of each, durably (storage/reach.go),
// and shows it (Reach, My posts, GET /v1/reach) until the next one, also
// across its own restarts. So a reader who goes offline drops out of the
// counts until its servant is back and reports again, except from what the
// publisher keeps itself: a pending reader moves to Offline, with when it
// was last seen, and a confirmation once verified is kept for good
// (storage/confirmed.go) and counted while the network has not revoked
// its reader; what was reported before the publisher restarted is shown until the
// network reports anew. Acknowledgements and pending readers are verified
// (reachtrust.go, issue 32): acknowledged counts the distinct readers
// whose confirmation is signed by a key admitted to the network for this
// item, pending lists such readers' signed identities, one per key; the
// relays' own count of confirmations is kept beside it as reported, and
// blobs of older releases, which prove no membership, are counted as
// unverified.
//
// Only the publisher learns an item's totals (they travel to it alone),
// so Reach answers for this installation's own publications; admins see
// the reach of their own posts like any publisher.

// Reach is the latest reach of one own publication.
type Reach struct {
	// At is when the network last reported it; zero when it has not (yet).
	At time.Time
	// Subscribers: servants subscribed to its category now; for an item
	// with an audience, those of them inside it that have it. Delivered:
	// servants that stored it. Read: readers who opened it (or marked it
	// read). All three as the relays reported them: a relay can misreport
	// its subtree's. Acknowledged: distinct readers who confirmed a
	// must-read item, verified (signed by a key admitted to the network).
	Subscribers, Delivered, Read, Acknowledged uint64
	// ReportedAcknowledged: the relays' count of confirmations.
	// UnverifiedAcknowledged and UnverifiedPending: readers listed who
	// prove no membership (older releases, or no certificate yet); they
	// are not in Acknowledged or Pending.
	ReportedAcknowledged, UnverifiedAcknowledged, UnverifiedPending uint64
	// ReportedPending: the relays' count of readers who have a must-read
	// item and have not confirmed it, exact where Pending stops at 256;
	// 0 from publications reported before relays counted them.
	ReportedPending uint64
	// MustRead: the item asks readers to confirm it; Pending lists those
	// who have it and have not and are in the network now, as far as
	// reports named them: a report names at most
	// newsnet.MaxReachIdentities, in turns when there are more, so with
	// more the names come in over a cycle of turns (reachCycle) and
	// ReportedPending is the count.
	MustRead bool
	Pending  []Reader
	// Offline: readers once pending who have not been listed lately and
	// have not confirmed as far as the publisher knows: their computers
	// are not in the network now (or a confirmation of theirs did not
	// verify), each with when it was last reported. Most recently seen
	// first.
	Offline []OfflineReader
	// Confirmed: the readers whose confirmation the publisher verified,
	// kept also while their computers are offline, by name; Acknowledged
	// counts them.
	Confirmed []ConfirmedReader
}

// ConfirmedReader is a reader who confirmed a must-read item, with when
// the publisher first learned of it.
type ConfirmedReader struct {
	Reader
	At time.Time
}

// OfflineReader is a pending reader whose computer is offline.
type OfflineReader struct {
	Reader
	LastSeen time.Time
}

// Reader is a reader in a pending list: the display name they set and
// their installation's key (trust.PublicKeyString).
type Reader struct {
	Name, Key string
}

// Reach returns the latest reach of the own publication id. An item that
// is not stored here, or not this installation's, is ErrNotFound.
func (a *App) Reach(id uuid.UUID) (Reach, error) {
	e, err := a.store.Get(id)
	if err != nil {
		return Reach{}, err
	}
	if e.Item.Source != a.source || network.IsSystemItem(e.Item) {
		return Reach{}, fmt.Errorf("%w: %s is not one of this installation's posts", ErrNotFound, id)
	}
	r, _, err := a.store.Reach(id)
	if err != nil {
		return Reach{}, err
	}
	v := Reach{At: r.At, Subscribers: r.Subscribers, Delivered: r.Delivered, Read: r.Read, Acknowledged: r.Acknowledged,
		ReportedAcknowledged: r.ReportedAcknowledged, UnverifiedAcknowledged: r.UnverifiedAcknowledged,
		UnverifiedPending: r.UnverifiedPending, ReportedPending: r.ReportedPending, MustRead: e.Item.MustRead}
	if v.MustRead {
		confirmed, err := a.confirmations(id)
		if err != nil {
			return Reach{}, err
		}
		if len(confirmed) > 0 || r.Acknowledged == 0 {
			v.Acknowledged = uint64(len(confirmed))
		} // else: reported before confirmations were kept, or all revoked since
		for _, c := range confirmed {
			v.Confirmed = append(v.Confirmed, ConfirmedReader{Reader: Reader(c.Reader), At: c.At})
		}
		keys := map[string]bool{}
		for _, c := range confirmed {
			keys[c.Key] = true
		}
		now, offline, kept := a.pendingNow(id, r, keys)
		if !kept {
			for _, p := range r.Pending {
				now = append(now, Reader(p))
			}
		}
		v.Pending = append(make([]Reader, 0, len(now)), now...)
		slices.SortFunc(v.Pending, func(x, y Reader) int { return cmp.Or(cmp.Compare(x.Name, y.Name), cmp.Compare(x.Key, y.Key)) })
		// Offline: the kept readers not listed lately, and those the
		// entry kept from before readers were kept one by one.
		listed := map[string]bool{}
		for _, p := range v.Pending {
			listed[p.Key] = true
		}
		for _, o := range offline {
			listed[o.Key] = true
			v.Offline = append(v.Offline, o)
		}
		for _, o := range r.Offline {
			if !listed[o.Key] && !keys[o.Key] {
				listed[o.Key] = true
				v.Offline = append(v.Offline, OfflineReader{Reader: Reader(o.Reader), LastSeen: o.LastSeen})
			}
		}
		slices.SortFunc(v.Offline, func(x, y OfflineReader) int {
			return cmp.Or(y.LastSeen.Compare(x.LastSeen), cmp.Compare(x.Name, y.Name), cmp.Compare(x.Key, y.Key))
		})
	}
	return v, nil
}

// onReach hears the servant's reports on own publications, on its loop
// goroutine: the inbox stores them.
func (a *App) onReach(u newsnet.ReachUpdated) {
	a.inbox.reach(u, a.now())
}

// storeReach stores the latest of the reports in us (the inbox's
// goroutine) and announces them with ReachChanged.
func (a *App) storeReach(us []reachReport) {
	latest := map[[16]byte]int{}
	for i, u := range us {
		latest[u.ID] = i
	}
	var changed []uuid.UUID
	for i, u := range us {
		if latest[u.ID] != i || network.IsSystemCategory(u.Category) {
			continue // superseded, or the network's own business
		}
		r := a.reachRecord(u.ReachUpdated, u.at)
		confirmed := a.keepConfirmations(u.ReachUpdated, u.at)
		r.Pending = slices.DeleteFunc(r.Pending, func(p storage.Reader) bool { return confirmed[p.Key] })
		r.Acknowledged = uint64(len(confirmed))
		a.keepPending(uuid.UUID(u.ID), r.Pending, u.at)
		if prev, ok, err := a.store.Reach(uuid.UUID(u.ID)); err == nil && ok {
			r.Offline = offlineReaders(prev, r, confirmed)
		}
		if err := a.store.SetReach(uuid.UUID(u.ID), r); err != nil {
			a.log.Warn("storing the reach of a publication failed", "id", uuid.UUID(u.ID), "err", err)
			continue
		}
		changed = append(changed, uuid.UUID(u.ID))
	}
	if len(changed) > 0 {
		a.events.emit(Event{Kind: ReachChanged, Items: changed})
		a.reports.changed(changed)
	}
}

// reachReport is one ReachUpdated and when it came.
type reachReport struct {
	newsnet.ReachUpdated
	at time.Time
}

// reachRecord turns the servant's totals into what is stored (issue 32):
// acknowledged is the number of distinct readers whose confirmation
// verifies, signed by a key admitted to the network (reachtrust.go), the
// relays' own count kept beside it as reported; pending are the verified
// identities, one per key, less the readers who confirmed, sorted by
// name. Blobs of older releases (version 1) prove no membership: they
// are counted as unverified, never named or counted as verified.
func (a *App) reachRecord(u newsnet.ReachUpdated, at time.Time) storage.Reach {
	r := storage.Reach{At: at, Subscribers: u.Subscribers, Delivered: u.Delivered, Read: u.Read,
		ReportedAcknowledged: u.Acknowledged, ReportedPending: u.PendingCount}
	sn := a.Network()
	bad := 0
	acked, legacyAcked := map[string]bool{}, map[string]bool{}
	for _, p := range u.Acks {
		v := a.blobs.verify(sn, u.ID, p, true)
		switch {
		case v.err == nil:
			acked[v.reader.KeyString()] = true
		case errors.Is(v.err, trust.ErrLegacyReachBlob):
			legacyAcked[v.reader.KeyString()] = true
		default:
			bad++
		}
	}
	r.Acknowledged = uint64(len(acked))
	for k := range legacyAcked {
		if !acked[k] {
			r.UnverifiedAcknowledged++
		}
	}
	listed, legacyListed := map[string]bool{}, map[string]bool{}
	for _, b := range u.Pending {
		v := a.blobs.verify(sn, u.ID, b, false)
		k := v.reader.KeyString()
		switch {
		case v.err == nil:
			if !acked[k] && !listed[k] && len(r.Pending) < newsnet.MaxReachIdentities {
				listed[k] = true
				r.Pending = append(r.Pending, storage.Reader{Name: v.reader.Name, Key: k})
			}
		case errors.Is(v.err, trust.ErrLegacyReachBlob):
			if !acked[k] && !legacyAcked[k] && !legacyListed[k] {
				legacyListed[k] = true
				r.UnverifiedPending++
			}
		default:
			bad++
		}
	}
	if bad > 0 {
		a.log.Warn("reach entries that do not verify are not counted", "id", uuid.UUID(u.ID), "bad", bad)
	}
	slices.SortFunc(r.Pending, func(x, y storage.Reader) int { return cmp.Or(cmp.Compare(x.Name, y.Name), cmp.Compare(x.Key, y.Key)) })
	return r
}

// keepConfirmations stores the confirmations in u that verify (verdicts
// cached: reachRecord just checked them) with those kept before
// (storage/confirmed.go), and returns the keys of all of them whose
// readers are not revoked: a reader who confirmed stays confirmed when
// their computer leaves the network. A store that fails leaves the
// report's own confirmations.
func (a *App) keepConfirmations(u newsnet.ReachUpdated, at time.Time) map[string]bool {
	sn := a.Network()
	out := map[string]bool{}
	var fresh []storage.Confirmation
	for _, p := range u.Acks {
		if v := a.blobs.verify(sn, u.ID, p, true); v.err == nil && !out[v.reader.KeyString()] {
			out[v.reader.KeyString()] = true
			fresh = append(fresh, storage.Confirmation{Reader: storage.Reader{Name: v.reader.Name, Key: v.reader.KeyString()}, At: at})
		}
	}
	if _, err := a.store.AddConfirmations(uuid.UUID(u.ID), fresh); err != nil {
		a.log.Warn("keeping the confirmations of a publication failed", "id", uuid.UUID(u.ID), "err", err)
		return out
	}
	kept, err := a.confirmations(uuid.UUID(u.ID))
	if err != nil {
		return out
	}
	for _, c := range kept {
		out[c.Key] = true
	}
	return out
}

// keepPending records the readers a report listed as pending, at its
// time: a list names at most 256 readers, in turns when there are more
// (newsnet/reach_window.go), so the publisher learns every name over a
// cycle of reports and keeps them (storage/confirmed.go).
func (a *App) keepPending(id uuid.UUID, listed []storage.Reader, at time.Time) {
	ps := make([]storage.Confirmation, len(listed))
	for i, p := range listed {
		ps[i] = storage.Confirmation{Reader: p, At: at}
	}
	if err := a.store.SeePending(id, ps); err != nil {
		a.log.Warn("keeping the pending readers of a publication failed", "id", id, "err", err)
	}
}

// pendingNow splits the kept pending readers of the own item id, less
// those in confirmed, into those in the network now and those offline,
// by when a report last listed them: a reader whose report is complete
// (r names every pending reader) is in the network if the latest report
// listed it; with more pending readers than a report names, if a report
// listed it within the last cycle of turns. ok is false when none are
// kept (reported before they were: r's own lists tell).
func (a *App) pendingNow(id uuid.UUID, r storage.Reach, confirmed map[string]bool) (now []Reader, offline []OfflineReader, ok bool) {
	kept, damaged, err := a.store.PendingReaders(id)
	if err != nil || len(kept) == 0 {
		return nil, nil, false
	}
	if damaged > 0 {
		a.log.Warn("damaged pending readers skipped", "id", id, "damaged", damaged)
	}
	since := r.At
	if r.ReportedPending > uint64(len(r.Pending)) || len(r.Pending) >= newsnet.MaxReachIdentities {
		since = r.At.Add(-a.reachCycle())
	}
	for _, p := range kept {
		switch {
		case confirmed[p.Key]:
		case !p.At.Before(since):
			now = append(now, Reader(p.Reader))
		default:
			offline = append(offline, OfflineReader{Reader: Reader(p.Reader), LastSeen: p.At})
		}
	}
	return now, offline, true
}

// reachCycle is how long the reach lists take to name every reader once
// (newsnet reach windows), with a turn to spare each side.
func (a *App) reachCycle() time.Duration {
	every := newsnet.ReachWindowEvery(a.tunedProtocol())
	return (newsnet.ReachWindowTurns + 2) * every
}

// tunedProtocol is the protocol configuration's timing as the servant
// runs with it (Options.Tune).
func (a *App) tunedProtocol() newsnet.Config {
	cfg := newsnet.DefaultConfig("")
	if a.opts.Tune != nil {
		a.opts.Tune(&cfg)
	}
	return cfg
}

// confirmations returns the kept confirmations of the own item id whose
// readers the network has not revoked since, by name.
func (a *App) confirmations(id uuid.UUID) ([]storage.Confirmation, error) {
	cs, damaged, err := a.store.Confirmations(id)
	if err != nil {
		a.log.Warn("reading the confirmations of a publication failed", "id", id, "err", err)
		return nil, err
	}
	if damaged > 0 {
		a.log.Warn("damaged confirmations skipped", "id", id, "damaged", damaged)
	}
	sn := a.Network()
	cs = slices.DeleteFunc(cs, func(c storage.Confirmation) bool {
		k, err := trust.ParsePublicKey(c.Key)
		return err != nil || sn.IsRevoked(k)
	})
	slices.SortFunc(cs, func(x, y storage.Confirmation) int {
		return cmp.Or(cmp.Compare(x.Name, y.Name), cmp.Compare(x.Key, y.Key))
	})
	return cs, nil
}

// offlineReaders is who was pending in prev (or offline then) and is
// neither listed nor acknowledged in r (issue 26): their servants are not
// in the tree now, so the network counts them no more, yet as far as the
// publisher knows they have not confirmed. Each keeps when it was last
// reported. When r's list is full (partial) a reader missing from it may
// merely not fit: nobody new is taken as offline then. The most recently
// seen maxOffline are kept.
func offlineReaders(prev, r storage.Reach, acked map[string]bool) []storage.OfflineReader {
	listed := map[string]bool{}
	for _, p := range r.Pending {
		listed[p.Key] = true
	}
	seen := map[string]bool{}
	var out []storage.OfflineReader
	add := func(o storage.OfflineReader) {
		if listed[o.Key] || acked[o.Key] || seen[o.Key] {
			return
		}
		seen[o.Key] = true
		out = append(out, o)
	}
	for _, o := range prev.Offline {
		add(o)
	}
	if len(r.Pending) < newsnet.MaxReachIdentities {
		for _, p := range prev.Pending {
			add(storage.OfflineReader{Reader: p, LastSeen: prev.At})
		}
	}
	slices.SortFunc(out, func(x, y storage.OfflineReader) int {
		return cmp.Or(y.LastSeen.Compare(x.LastSeen), cmp.Compare(x.Name, y.Name), cmp.Compare(x.Key, y.Key))
	})
	return out[:min(len(out), maxOffline)]
}

// maxOffline bounds the offline readers kept per item (storage's bound).
const maxOffline = newsnet.MaxReachIdentities

// tellRead tells the running servant that the reader read the items ids
// (someone else's: the publisher is not its own reader). Without a
// servant there is nobody to tell: the next start passes the read state
// in Config.Reach.
func (a *App) tellRead(ids []uuid.UUID) {
	n := a.currentNode()
	if n == nil {
		return
	}
	for _, id := range ids {
		e, err := a.store.Get(id)
		if err != nil || !e.Read || e.Item.Source == a.source {
			continue
		}
		if err := n.Read(id, e.Item.Source.String()); err != nil {
			return // closed: the next start knows from the store
		}
	}
}

// tellAllRead tells the running servant of every recent item read here,
// after MarkAllRead marked an unknown number of them; the servant counts
// each once.
func (a *App) tellAllRead() {
	n := a.currentNode()
	if n == nil {
		return
	}
	marks, err := a.ownReach()
	if err != nil {
		a.log.Warn("reading the read state for reach reports failed", "err", err)
		return
	}
	for _, o := range marks {
		if o.Read && o.Source != a.sourceStr {
			if err := n.Read(o.ID, o.Source); err != nil {
				return
			}
		}
	}
}

// tellStored tells the running servant that must-read items were stored
// here (the inbox's goroutine, after storing them), so that this
// reader is listed as pending until confirming. An archive keeps items for
// others and has no reader: it is counted as having the item and lists
// nobody.
func (a *App) tellStored(mustRead []*news.Item) {
	if a.opts.Archive || len(mustRead) == 0 {
		return
	}
	n := a.currentNode()
	if n == nil {
		return
	}
	for _, it := range mustRead {
		if err := n.MustRead(it.ID, it.Source.String(), a.reachBlob(it.ID, false)); err != nil {
			return
		}
	}
}

// reportAck is the OnAcknowledge hook: the servant carries the signed
// confirmation to the publisher.
func (a *App) reportAck(ack Acknowledgement) {
	if n := a.currentNode(); n != nil {
		if err := n.Acknowledge(ack.ItemID, ack.Source.String(), a.reachBlob(ack.ItemID, true)); err != nil {
			a.log.Debug("the servant stopped before it heard of an acknowledgement; the next start tells it", "id", ack.ItemID)
		}
	}
}

// ownReach is this servant's part in the reach of recent items, oldest
// first, for Config.Reach: the newest items stored from others with their
// read state, this reader's identity for must-read ones and the proof for
// acknowledged ones, and the newest own publications, whose totals the
// servant then tracks again. At most newsnet's default ReachItems of
// each; the servant keeps the newest of them.
func (a *App) ownReach() ([]newsnet.OwnReach, error) {
	limit := newsnet.DefaultConfig("").ReachItems
	entries, _, err := a.store.Newest(nil, limit, "")
	if err != nil {
		return nil, err
	}
	out := make([]newsnet.OwnReach, 0, len(entries))
	for _, e := range entries {
		it := e.Item
		if it.Source == a.source || network.IsSystemItem(it) {
			continue
		}
		o := newsnet.OwnReach{ID: it.ID, Source: it.Source.String(), Category: it.Category, Audience: it.Audience, Read: e.Read}
		if it.MustRead && !a.opts.Archive {
			o.Identity = a.reachBlob(it.ID, false)
			if !e.Acknowledged.IsZero() {
				o.Proof = a.reachBlob(it.ID, true)
			}
		}
		out = append(out, o)
	}
	hi, err := a.store.HighestStoredCount(a.source)
	if err != nil {
		return nil, err
	}
	own, err := a.store.ItemsAfter(a.source, hi-min(hi, uint64(limit)), limit)
	if err != nil {
		return nil, err
	}
	for _, it := range own {
		if !network.IsSystemItem(it) {
			out = append(out, newsnet.OwnReach{ID: it.ID, Source: a.sourceStr, Category: it.Category, Audience: it.Audience})
		}
	}
	// Item IDs are UUIDv7: by creation time.
	slices.SortFunc(out, func(x, y newsnet.OwnReach) int { return slices.Compare(x.ID[:], y.ID[:]) })
	return out, nil
}
