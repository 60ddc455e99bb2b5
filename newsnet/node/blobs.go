package node

import (
	"newsdesk/newsnet"
)

// Attachments' bytes (newsnet/blobs.go): the core decides what to ask for
// and what to pass on; the node keeps what arrives in the host's store and
// tells the host when a blob is whole or lost.

// BlobKeeper is the host's store of blobs as the node needs it: the core
// reads it (newsnet.BlobStore) and the node writes the chunk lists and
// chunks the core checked. Its methods run on the node's loop: a write
// should not wait on more than the local disk.
type BlobKeeper interface {
	newsnet.BlobStore
	KeepBlobHead(ref newsnet.BlobRef, chunks [][32]byte) error
	KeepBlobChunk(hash [32]byte, index int, data []byte) error
}

// FetchBlob asks the servant to get a blob whole here (an attachment a
// reader opened, or one found incomplete after a restart); source is the
// item's. The host hears of the result through Config.OnBlob.
func (n *Node) FetchBlob(ref newsnet.BlobRef, source string) error {
	return n.do(func(*newsnet.Servant) {
		n.step(newsnet.FetchBlob{Ref: ref, Source: source})
	})
}

// keepBlob carries out the core's blob actions. A write that fails (a
// full disk) is logged: the chunk is missing here, and a neighbour that
// asks for it, or this servant's next FetchBlob, gets it again.
func (n *Node) keepBlob(a newsnet.Action) {
	if l, ok := a.(newsnet.BlobLost); ok {
		n.log.Warn("attachment lost", "blob", l.Hash, "total", l.Total)
	}
	if err := KeepBlob(n.blobs, n.onBlob, a); err != nil {
		n.log.Warn("keeping an attachment's chunk failed", "err", err)
	}
}

// KeepBlob carries out one of the core's blob actions for a host: the
// chunk lists and chunks into keeper, BlobDone, BlobLost and BlobProgress
// to onBlob
// (either may be nil). The simulated runtime (simnode) shares it.
func KeepBlob(keeper BlobKeeper, onBlob func(newsnet.Action), a newsnet.Action) error {
	switch a := a.(type) {
	case newsnet.StoreBlobHead:
		if keeper != nil {
			return keeper.KeepBlobHead(a.Ref, a.Chunks)
		}
	case newsnet.StoreBlobChunk:
		if keeper != nil {
			return keeper.KeepBlobChunk(a.Hash, a.Index, a.Data)
		}
	case newsnet.BlobDone, newsnet.BlobLost, newsnet.BlobProgress:
		if onBlob != nil {
			onBlob(a)
		}
	}
	return nil
}
