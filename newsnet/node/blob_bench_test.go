package node

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"newsdesk/newsnet"
)

// BenchmarkBlobTreeVsHTTP (issue 29): a 5 MB picture to N servants on
// loopback over the tree, against a plain HTTP file server that N clients
// download it from, in the same run. It reports what the publisher and
// the server sent, the time to the last complete copy, and the CPU (the
// whole process: senders and receivers alike) per delivered MB.
//
//	go test ./newsnet/node/ -run '^$' -bench BlobTreeVsHTTP -benchtime 1x
//
// NEWSDESK_BLOB_SERVANTS sets N (200).
func BenchmarkBlobTreeVsHTTP(b *testing.B) {
	servants := 200
	if v, err := strconv.Atoi(os.Getenv("NEWSDESK_BLOB_SERVANTS")); err == nil && v > 1 {
		servants = v
	}
	const size = 5 << 20
	pub, subs, done := blobBenchTree(b, servants)
	const mb = 1 << 20
	delivered := float64(size*len(subs)) / mb
	var treeSent, httpSent, treeSec, httpSec, treeCPU, httpCPU float64
	b.ResetTimer()
	for i := range b.N {
		data := randomBytes(uint64(i), size)

		// The tree: the publisher's store holds the picture, the item
		// names it, every subscriber asks for it on delivery.
		before, cpu0 := pub.Status().Blobs.BytesOut, cpuTime()
		start := time.Now()
		ref := pub.keep.put(data)
		m := newMsg("photos")
		blobBenchRefs.attach(m, ref)
		if _, err := pub.Publish(context.Background(), m); err != nil {
			b.Fatal(err)
		}
		for range subs {
			select {
			case <-done:
			case <-time.After(5 * time.Minute):
				b.Fatalf("not every subscriber got the picture in 5 minutes")
			}
		}
		treeSec += time.Since(start).Seconds()
		treeCPU += (cpuTime() - cpu0).Seconds()
		treeSent += float64(pub.Status().Blobs.BytesOut-before) / mb
		for _, s := range subs {
			if !bytes.Equal(s.keep.whole(ref.Hash), data) {
				b.Fatalf("%s holds another picture", s.Addr())
			}
		}

		// The file server: N clients download it at once.
		var served atomic.Int64
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			n, _ := w.Write(data)
			served.Add(int64(n))
		}))
		want := sha256.Sum256(data)
		cpu0 = cpuTime()
		start = time.Now()
		var wg sync.WaitGroup
		errs := make(chan error, len(subs))
		for range subs {
			wg.Go(func() {
				resp, err := http.Get(srv.URL)
				if err != nil {
					errs <- err
					return
				}
				defer resp.Body.Close()
				h := sha256.New()
				if _, err := io.Copy(h, resp.Body); err != nil || [32]byte(h.Sum(nil)) != want {
					errs <- fmt.Errorf("download: %v", err)
				}
			})
		}
		wg.Wait()
		httpSec += time.Since(start).Seconds()
		httpCPU += (cpuTime() - cpu0).Seconds()
		httpSent += float64(served.Load()) / mb
		srv.Close()
		close(errs)
		for err := range errs {
			b.Fatal(err)
		}
	}
	n := float64(b.N)
	b.ReportMetric(treeSent/n, "tree-publisher-MB")
	b.ReportMetric(httpSent/n, "http-server-MB")
	b.ReportMetric(treeSec/n, "tree-s-to-last")
	b.ReportMetric(httpSec/n, "http-s-to-last")
	b.ReportMetric(1000*treeCPU/n/delivered, "tree-cpu-ms/MB")
	b.ReportMetric(1000*httpCPU/n/delivered, "http-cpu-ms/MB")
}

// blobBenchRefs names the blobs of the benchmark's items.
var blobBenchRefs itemBlobs

type blobBenchNode struct {
	*Node
	keep *memKeeper
}

// blobBenchTree starts a publisher and servants-1 subscribers of "photos"
// and waits until they form one tree with converged routing; done gets a
// value for every blob a subscriber completes.
func blobBenchTree(b *testing.B, servants int) (*blobBenchNode, []*blobBenchNode, chan [32]byte) {
	b.Helper()
	start := func(cfg Config) *Node {
		cfg.Listen = "127.0.0.1:0"
		cfg.Protocol.Blob.Refs = blobBenchRefs.refs
		n, err := Start(context.Background(), cfg)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { n.Close() })
		return n
	}
	done := make(chan [32]byte, servants)
	pub := &blobBenchNode{keep: newMemKeeper()}
	pub.Node = start(Config{Protocol: overlayCore(), Blobs: pub.keep})
	nodes := []*overlayNode{{Node: pub.Node}}
	var subs []*blobBenchNode
	for range servants - 1 {
		s := &blobBenchNode{keep: newMemKeeper()}
		core := overlayCore(pub.Addr())
		core.Subscriptions = []string{"photos"}
		s.Node = start(Config{Protocol: core, Blobs: s.keep, OnBlob: func(a newsnet.Action) {
			if d, ok := a.(newsnet.BlobDone); ok {
				done <- d.Hash
			}
		}})
		subs = append(subs, s)
		nodes = append(nodes, &overlayNode{Node: s.Node, subs: newsnet.CategorySet{"photos"}})
	}
	deadline := time.Now().Add(2 * time.Minute)
	for err := checkOverlay(nodes); err != nil; err = checkOverlay(nodes) {
		if time.Now().After(deadline) {
			b.Fatalf("no converged tree of %d servants: %v", servants, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	return pub, subs, done
}
