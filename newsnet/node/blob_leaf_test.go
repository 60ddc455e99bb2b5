package node

import (
	"bytes"
	"context"
	"fmt"
	"testing"
	"time"

	"newsdesk/newsnet"
)

// Over TCP, a laptop others cannot dial (it advertises 127.0.0.5, where
// nothing listens) is a leaf under the seed. The picture published with an
// item reaches it with the item; a large file stays behind until its
// reader opens it (FetchBlob), then comes through the leaf's up-servant.
func TestBlobToUndialableLeafOverTCP(t *testing.T) {
	log := newTestLog(t)
	var attached itemBlobs
	core := func(seeds ...newsnet.ServantID) newsnet.Config {
		c := overlayCore(seeds...)
		c.Blob.Refs = attached.refs
		return c
	}
	seedKeep := newMemKeeper()
	seed := startNode(t, Config{Listen: "127.0.0.1:0", Protocol: core(), Logger: log, Blobs: seedKeep})
	port := freePort(t)
	lc := core(seed.Addr())
	lc.Subscriptions = []string{"photos"}
	leafKeep := newMemKeeper()
	done := make(chan [32]byte, 4)
	leaf := startNode(t, Config{Listen: fmt.Sprintf("127.0.0.1:%d", port), Advertise: newsnet.ServantID(fmt.Sprintf("127.0.0.5:%d", port)),
		Protocol: lc, Logger: log, Blobs: leafKeep, OnBlob: func(a newsnet.Action) {
			if d, ok := a.(newsnet.BlobDone); ok {
				done <- d.Hash
			}
		}})
	waitFor(t, 20*time.Second, "the laptop attached as a leaf with its subscription known", func() error {
		if st := leaf.Status(); st.Role != newsnet.RoleAttached || !st.Leaf {
			return fmt.Errorf("role %s leaf %v", st.Role, st.Leaf)
		}
		if l, _ := linkTo(seed.Status(), leaf.Addr()); !l.Received.Equal(newsnet.CategorySet{"photos"}) {
			return fmt.Errorf("the seed knows %v of the leaf", l.Received)
		}
		return nil
	})
	publish := func(refs ...newsnet.BlobRef) {
		t.Helper()
		m := newMsg("photos")
		attached.attach(m, refs...)
		if _, err := seed.Publish(context.Background(), m); err != nil {
			t.Fatal(err)
		}
	}
	wait := func(what string, ref newsnet.BlobRef, data []byte) {
		t.Helper()
		select {
		case h := <-done:
			if h != ref.Hash {
				t.Fatalf("done with another blob than %s", what)
			}
		case <-time.After(time.Minute):
			t.Fatalf("the leaf did not get %s in a minute", what)
		}
		if !bytes.Equal(leafKeep.whole(ref.Hash), data) {
			t.Fatalf("the leaf holds another %s", what)
		}
	}
	photo := randomBytes(21, 700<<10)
	photoRef := seedKeep.put(photo)
	publish(photoRef)
	wait("picture", photoRef, photo)

	file := randomBytes(22, 4<<20+3)
	fileRef := seedKeep.put(file)
	fileRef.Eager = false
	publish(fileRef)
	select {
	case <-done:
		t.Fatal("the large file came before it was opened")
	case <-time.After(time.Second):
	}
	if err := leaf.FetchBlob(fileRef, string(seed.Addr())); err != nil {
		t.Fatal(err)
	}
	wait("file", fileRef, file)
	if st := leaf.Status(); !st.Leaf || st.Blobs.ChunksIn != uint64(newsnet.BlobChunkCount(photoRef.Size)+newsnet.BlobChunkCount(fileRef.Size)) {
		t.Errorf("leaf %v, %d chunks in, want each chunk once", st.Leaf, st.Blobs.ChunksIn)
	}
}
