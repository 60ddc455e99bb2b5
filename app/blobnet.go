package app

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"

	"newsdesk/news"
	"newsdesk/newsnet"
	"newsdesk/newsnet/node"
	"newsdesk/storage"
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
// over without decoding.
func blobRefs(m *newsnet.Multicast, archive bool) []newsnet.BlobRef {
	if !bytes.Contains(m.Payload, []byte("newsdesk:blob/")) {
		return nil
	}
	e, err := news.Decode(m.Payload)
	if err != nil {
		return nil
	}
	return refsOf(e.Item.Attachments(), archive)
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

func (k blobKeeper) BlobChunks(hash [32]byte) ([][32]byte, []bool) {
	list, err := k.store.ChunkHashes(hash)
	if err != nil {
		return nil, nil
	}
	missing, err := k.store.MissingChunks(hash)
	if err != nil {
		return nil, nil
	}
	have := make([]bool, len(list))
	for i := range have {
		have[i] = true
	}
	for _, i := range missing {
		have[i] = false
	}
	return list, have
}

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
