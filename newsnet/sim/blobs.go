package sim

import (
	"crypto/sha256"

	"newsdesk/newsnet"
)

// Attachments in the simulator: each simulated host keeps a shelf of blob
// chunks across restarts, as a data directory does, and the network knows
// which items attach which blobs (PublishBlob), as a host learns it from
// the item's manifest.

// BlobShelf is a simulated host's store of blobs.
type BlobShelf struct {
	lists  map[[32]byte][][32]byte
	chunks map[[32]byte]map[int][]byte
}

func (s *BlobShelf) init() {
	if s.lists == nil {
		s.lists = map[[32]byte][][32]byte{}
		s.chunks = map[[32]byte]map[int][]byte{}
	}
}

// BlobChunks implements newsnet.BlobStore.
func (s *BlobShelf) BlobChunks(hash [32]byte) ([][32]byte, []bool) {
	list := s.lists[hash]
	have := make([]bool, len(list))
	for i := range list {
		_, have[i] = s.chunks[hash][i]
	}
	return list, have
}

// BlobChunk implements newsnet.BlobStore.
func (s *BlobShelf) BlobChunk(hash [32]byte, i int) []byte { return s.chunks[hash][i] }

// Whole returns a blob's bytes when every chunk is here and the whole
// hashes to its name; nil otherwise.
func (s *BlobShelf) Whole(hash [32]byte) []byte {
	list := s.lists[hash]
	if list == nil || len(s.chunks[hash]) != len(list) {
		return nil
	}
	size := 0
	for _, c := range s.chunks[hash] {
		size += len(c)
	}
	b := make([]byte, 0, size) // a picture is megabytes: no regrowing per chunk
	for i := range list {
		b = append(b, s.chunks[hash][i]...)
	}
	if sha256.Sum256(b) != hash {
		return nil
	}
	return b
}

// Chunks counts the chunks of a blob here.
func (s *BlobShelf) Chunks(hash [32]byte) int { return len(s.chunks[hash]) }

func (s *BlobShelf) put(hash [32]byte, i int, data []byte) {
	s.init()
	if s.chunks[hash] == nil {
		s.chunks[hash] = map[int][]byte{}
	}
	s.chunks[hash][i] = data
}

// Blob makes the reference and chunk list of data, as a publisher's store
// does when an attachment is added.
func Blob(data []byte) (newsnet.BlobRef, [][32]byte) {
	var list [][32]byte
	for off := 0; off < len(data); off += newsnet.BlobChunkSize {
		list = append(list, sha256.Sum256(data[off:min(len(data), off+newsnet.BlobChunkSize)]))
	}
	return newsnet.BlobRef{Hash: sha256.Sum256(data), Root: newsnet.BlobRoot(list), Size: uint64(len(data)), Eager: true}, list
}

// PublishBlob publishes an item of category from id that attaches data,
// which id's shelf holds whole from then on. It returns the item's ID and
// the blob's reference.
func (n *Network) PublishBlob(id newsnet.ServantID, category string, data []byte) ([16]byte, newsnet.BlobRef) {
	ref := n.Shelve(id, data)
	return n.PublishRefs(id, category, ref), ref
}

// Shelve puts data whole on id's shelf, as its store holds an attachment
// it published or fetched earlier, and returns its (eager) reference.
func (n *Network) Shelve(id newsnet.ServantID, data []byte) newsnet.BlobRef {
	ref, list := Blob(data)
	nd := n.nodes[id]
	nd.Blobs.init()
	nd.Blobs.lists[ref.Hash] = list
	for i := range list {
		nd.Blobs.put(ref.Hash, i, data[i*newsnet.BlobChunkSize:min(len(data), (i+1)*newsnet.BlobChunkSize)])
	}
	return ref
}

// PublishRefs publishes an item of category from id whose manifest names
// refs, and returns its ID.
func (n *Network) PublishRefs(id newsnet.ServantID, category string, refs ...newsnet.BlobRef) [16]byte {
	mid := n.ItemID()
	if n.attached == nil {
		n.attached = map[[16]byte][]newsnet.BlobRef{}
	}
	n.attached[mid] = refs
	n.PublishMsg(id, &newsnet.Multicast{ID: mid, Category: category})
	return mid
}

// blobRefs is the simulated hosts' BlobConfig.Refs.
func (n *Network) blobRefs(m *newsnet.Multicast) []newsnet.BlobRef { return n.attached[m.ID] }

// storeBlob carries out a servant's blob actions on its host's shelf.
func (nd *Node) storeBlob(a newsnet.Action) {
	switch a := a.(type) {
	case newsnet.StoreBlobHead:
		nd.Blobs.init()
		nd.Blobs.lists[a.Ref.Hash] = a.Chunks
	case newsnet.StoreBlobChunk:
		nd.Blobs.put(a.Hash, a.Index, a.Data)
	case newsnet.BlobLost:
		nd.BlobsLost = a.Total
	}
}
