package app

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"
	"time"

	"newsdesk/news"
	"newsdesk/newsnet"
	"newsdesk/newsnet/node"
	"newsdesk/storage"
	"newsdesk/trust"
)

// Attachments over the network (newsnet/blobs.go): the servant decides
// what to ask for and pass on; the application names an item's blobs
// (blobRefs), keeps what arrives in the store (blobKeeper), and tells the
// reader when a blob is whole or lost (onBlob). A reader that opens an
// attachment not fetched with its item asks for it (FetchBlob).

// eagerBytes: files up to this size come with their item; larger ones
// when a reader opens them. Pictures always come with their item: the
// reader shows them in the text.
const eagerBytes = 1 << 20

// blobRefs names the blobs of an item delivered here, for the servant to
// ask for the eager ones; an archive asks for all, since it keeps blobs
// with their items for others. Most items attach nothing: they are passed
// over without decoding. Attachments beyond the network's limits
// (eagerBudget) are not eager, on an archive neither.
func (a *App) blobRefs(m *newsnet.Multicast, archive bool) []newsnet.BlobRef {
	if !bytes.Contains(m.Payload, []byte("newsdesk:blob/")) {
		return nil
	}
	e, err := news.Decode(m.Payload)
	if err != nil {
		return nil
	}
	atts := e.Item.Attachments()
	refs := refsOf(atts, archive)
	if len(refs) == 0 {
		return refs
	}
	var total int64
	for _, m := range atts {
		total += m.Size
	}
	limits := a.Network().Limits
	why := ""
	switch {
	case limits.CheckAttachments(e.Item.Category, total) != nil:
		why = "beyond the network's attachment limit of an item"
	case !a.eager.admit(string(trust.SignatureKey(e.Item)), e.Item.PublishedAt(), total,
		trust.RelayTolerance*limits.AttachmentRate(), a.now()):
		why = "beyond the network's attachment limit of its publisher key per hour"
	}
	if why != "" {
		a.log.Info("attachments not fetched with their item: "+why+"; a reader who opens one fetches it",
			"id", e.Item.ID, "category", e.Item.Category, "bytes", total)
		for i := range refs {
			refs[i].Eager = false
		}
	}
	return refs
}

// eagerBudget is a subscriber's side of the attachment limits
// (trust/attachlimits.go). Only a subscriber sees an item's manifest, so
// only it can hold a key (a stolen one, or a client that skips the entry
// check) to the definition's attachment limits: the attachments of an
// item beyond the item cap, or beyond the key's allowance for the clock
// hour of the item's time, are not fetched with the item. The item itself
// is delivered (relays accepted it; refusing it here would only leave it
// owed forever), and a reader who opens an attachment still fetches it: a
// person's choice, not an automatic download. The allowance is
// RelayTolerance times the definition's, like the relays' (clock skew, a
// key on two installations), so what an honest publisher's entry check
// let through always comes with its item.
type eagerBudget struct {
	mu    sync.Mutex
	hours map[eagerHour]int64 // attachment bytes fetched eagerly
	swept int64               // the arrival hour hours was last swept in
}

type eagerHour struct {
	key string
	// hour is the clock hour of the items' times, within eagerWindow;
	// for items dated before it, the hour of their arrival, negated
	// (below 0).
	hour int64
}

const (
	// eagerWindow: hours of item time counted one by one, as far back as
	// the relays count (network's limitHorizon) and a catch-up reaches.
	// Items dated before it share an allowance per hour of their arrival,
	// so that a key cannot take a fresh hour for each item by dating it
	// back.
	eagerWindow = 31 * 24
	// maxEagerHours bounds the book; beyond it, it starts afresh, which
	// only ever makes it more lenient. Only items with attachments that
	// relays accepted make entries: a hundred busy keys' month is below.
	maxEagerHours = 100_000
)

// admit reports whether an item of key published at, with att bytes of
// attachments, gets them fetched at once, and counts them if so.
func (b *eagerBudget) admit(key string, at time.Time, att, perHour int64, now time.Time) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	nowHour := now.Unix() / 3600
	first := nowHour - eagerWindow
	if b.hours == nil || len(b.hours) >= maxEagerHours {
		b.hours = map[eagerHour]int64{}
	}
	if b.swept != nowHour {
		b.swept = nowHour
		for h := range b.hours {
			if h.hour >= 0 && h.hour < first || h.hour < 0 && -h.hour < nowHour {
				delete(b.hours, h)
			}
		}
	}
	if at.After(now.Add(trust.LimitClockSkew)) {
		at = now // dated ahead: counted now, as relays do
	}
	h := eagerHour{key, at.Unix() / 3600}
	if h.hour < first {
		h.hour = -nowHour
	}
	if b.hours[h]+att > perHour {
		return false
	}
	b.hours[h] += att
	return true
}

func refsOf(atts []news.Attachment, all bool) []newsnet.BlobRef {
	refs := make([]newsnet.BlobRef, 0, len(atts))
	for _, a := range atts {
		refs = append(refs, newsnet.BlobRef{Hash: a.Hash, Root: a.Root, Size: uint64(a.Size),
			Eager: all || Attachment{MediaType: a.MediaType}.IsImage() || a.Size <= eagerBytes})
	}
	return refs
}

// fetchIncomplete asks again, after a start, for the eager blobs that
// stored items name and that did not arrive whole before the last stop.
func (a *App) fetchIncomplete(n Servant) {
	missing, err := a.store.IncompleteBlobs()
	if err != nil {
		a.log.Warn("listing attachments to fetch again", "err", err)
		return
	}
	for hash, id := range missing {
		e, err := a.store.Get(id)
		if err != nil {
			continue
		}
		for _, ref := range refsOf(e.Item.Attachments(), a.opts.Archive) {
			if ref.Hash == hash && ref.Eager {
				if err := n.FetchBlob(ref, e.Item.Source.String()); err != nil {
					return // stopped meanwhile
				}
			}
		}
	}
}

// blobKeeper is the store as the servant keeps blobs in it
// (node.BlobKeeper).
type blobKeeper struct{ store *storage.Store }

var _ node.BlobBatchKeeper = blobKeeper{}

func (k blobKeeper) BlobChunks(hash [32]byte) ([][32]byte, []bool) { return k.store.ChunksHeld(hash) }

func (k blobKeeper) BlobChunk(hash [32]byte, i int) []byte {
	b, err := k.store.BlobChunk(hash, i)
	if err != nil {
		return nil
	}
	return b
}

func (k blobKeeper) KeepBlobHead(ref newsnet.BlobRef, chunks [][32]byte) error {
	return k.store.BeginBlob(news.Attachment{Hash: ref.Hash, Root: ref.Root, Size: int64(ref.Size)}, chunks)
}

func (k blobKeeper) KeepBlobChunk(hash [32]byte, i int, data []byte) error {
	_, err := k.store.PutBlobChunk(hash, i, data)
	return err
}

// KeepBlobChunks stores the chunks of a blob that arrived together with
// one sync and one commit (node.BlobBatchKeeper).
func (k blobKeeper) KeepBlobChunks(hash [32]byte, chunks []node.BlobChunkData) error {
	at := make([]storage.BlobChunkAt, len(chunks))
	for i, c := range chunks {
		at[i] = storage.BlobChunkAt{Index: c.Index, Data: c.Data}
	}
	_, err := k.store.PutBlobChunks(hash, at)
	return err
}

// onBlob hears that a blob asked for here came further, is whole, or is
// lost: the reader updates the item's progress bar, shows the picture, or
// says which attachment is missing.
func (a *App) onBlob(act newsnet.Action) {
	var hash [32]byte
	switch act := act.(type) {
	case newsnet.BlobLost:
		hash = act.Hash
		a.log.Warn("an attachment could not be recovered", "blob", hex.EncodeToString(act.Hash[:]), "total", act.Total)
		if err := a.store.MarkBlobLost(act.Hash); err != nil {
			a.log.Warn("recording a lost attachment", "err", err)
		}
	case newsnet.BlobDone:
		hash = act.Hash
	case newsnet.BlobProgress:
		hash = act.Hash
	default:
		return
	}
	// The items that show it; none named (all re-read) if they cannot be
	// listed.
	ids, _ := a.store.BlobItems(hash)
	a.events.emit(Event{Kind: ItemsChanged, Items: ids})
}

// FetchBlob asks the network for an attachment that is not here whole
// (Attachment.State BlobMissing, or arriving and stalled): the reader
// opened it. ErrNotFound when no stored item attaches it; an error when
// the servant is not running.
func (a *App) FetchBlob(hash string) error {
	h, err := news.ParseHash(hash)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrNotFound, err)
	}
	ids, err := a.store.BlobItems(h)
	if err != nil {
		return err
	}
	for _, id := range ids {
		e, err := a.store.Get(id)
		if err != nil {
			continue
		}
		for _, ref := range refsOf(e.Item.Attachments(), true) {
			if ref.Hash != h {
				continue
			}
			n := a.currentNode()
			if n == nil {
				return errors.New("the servant is not running")
			}
			return n.FetchBlob(ref, e.Item.Source.String())
		}
	}
	return fmt.Errorf("%w: no item here attaches blob %s", ErrNotFound, hash)
}
