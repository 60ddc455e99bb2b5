package app

import (
	"crypto/sha256"
	"testing"

	"newsdesk/news"
	"newsdesk/newsnet"
)

// The manifest (news) and the network (newsnet) must agree on what a chunk
// is: its size, how many an item may carry, and the root over their list.
func TestManifestAndNetworkAgreeOnChunks(t *testing.T) {
	if news.ChunkSize != newsnet.BlobChunkSize {
		t.Errorf("news.ChunkSize %d, newsnet.BlobChunkSize %d", news.ChunkSize, newsnet.BlobChunkSize)
	}
	if n := news.ChunkCount(news.MaxAttachmentBytes); n > newsnet.MaxBlobChunks {
		t.Errorf("an item may attach a blob of %d chunks, the network carries at most %d", n, newsnet.MaxBlobChunks)
	}
	list := [][32]byte{sha256.Sum256([]byte("a")), sha256.Sum256([]byte("b"))}
	if news.ChunkRoot(list) != newsnet.BlobRoot(list) {
		t.Error("news.ChunkRoot and newsnet.BlobRoot differ")
	}
	for _, size := range []int64{1, news.ChunkSize, news.ChunkSize + 1, news.MaxAttachmentBytes} {
		if news.ChunkCount(size) != newsnet.BlobChunkCount(uint64(size)) {
			t.Errorf("size %d: news counts %d chunks, newsnet %d", size, news.ChunkCount(size), newsnet.BlobChunkCount(uint64(size)))
		}
	}
}
