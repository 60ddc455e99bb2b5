package app

import (
	"context"
	"strings"
	"testing"
	"time"

	"newsdesk/news"
	"newsdesk/newsnet"
	"newsdesk/trust"
)

// BenchmarkReceive measures what a subscriber spends on one delivered item
// between the overlay and its store: the servant's Config.Verify (decode,
// header check, signature, limits), the inbox's hand-over and the
// store's group commit. Each iteration is one 1 KiB item of one publisher;
// the timer stops once all of them are durably stored.
//
// Compare two builds with farm-bench, or:
//
//	go test -tags migrated_fynedo -run '^$' -bench Receive -benchmem -count 6 ./app/
func BenchmarkReceive(b *testing.B) {
	pub, err := trust.GenerateIdentity()
	if err != nil {
		b.Fatal(err)
	}
	src, err := trust.NewSource(pub.Public)
	if err != nil {
		b.Fatal(err)
	}
	a, err := Open(context.Background(), Options{DataDir: b.TempDir(), Listen: "127.0.0.1:0", Network: testNetwork(b)})
	if err != nil {
		b.Fatal(err)
	}
	defer a.Close()

	body := strings.Repeat("Benchmark text of an ordinary news item. ", 25)[:1024]
	ms := make([]*newsnet.Multicast, b.N)
	for i := range ms {
		it, err := news.NewItem("it", "Item", body, "Newsroom", src, time.Now())
		if err != nil {
			b.Fatal(err)
		}
		it.SourceCount = uint64(i + 1)
		if err := trust.SignItem(pub, it); err != nil {
			b.Fatal(err)
		}
		if ms[i], err = multicastOf(it); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(int64(len(ms[0].Payload)))
	b.ReportAllocs()
	b.ResetTimer()
	for _, m := range ms {
		if reason := a.net.Verify(m); reason != "" {
			b.Fatalf("verify: %s", reason)
		}
		a.inbox.deliver(m, time.Now())
	}
	a.inbox.flush()
	b.StopTimer()
	if n, err := a.store.HighestStoredCount(src); err != nil || n != uint64(len(ms)) {
		b.Fatalf("stored up to count %d of %d (%v)", n, len(ms), err)
	}
}
