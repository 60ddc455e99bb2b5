package main

import (
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"newsdesk/news"
	"newsdesk/newsnet"
	"newsdesk/trust"
)

// The security run publishes real signed items and has every servant verify
// them on receipt, as the app does, so that what security costs is measured
// end to end instead of added up from per-operation benchmarks. Each run
// builds one network and publishes three batches on it, so the baseline
// shares the tree, the subscribers and the moment with what it is compared
// to.

// itemMode is what one batch of a security run publishes.
type itemMode int32

const (
	// bareItems are multicast messages without a payload, as in the other
	// tables: the protocol alone, the baseline.
	bareItems itemMode = iota
	// signedItems are signed news.Items that no servant checks: what the
	// payload and the signature cost on the wire and at the publisher.
	signedItems
	// verifiedItems are signed news.Items that every servant verifies at
	// receipt, relays included, before forwarding or delivering them.
	verifiedItems
)

var itemModes = []itemMode{bareItems, signedItems, verifiedItems}

func (m itemMode) String() string {
	switch m {
	case bareItems:
		return "unsigned (baseline)"
	case signedItems:
		return "signed, not verified"
	}
	return "signed, verified"
}

// benchBody is the body of every signed item: 1 KB, the size the trust
// package's sign and verify benchmarks use, so the table can be read
// against them.
var benchBody = strings.Repeat("Newsdesk benchmark body, one kilobyte of text to sign. ", 19)[:1024]

// benchPublisher is what one servant publishes as: its installation key
// and the source that key owns.
type benchPublisher struct {
	id     *trust.Identity
	source uuid.UUID
}

// security is the trust setup of a security run.
type security struct {
	net  *trust.SignedNetwork
	pubs []benchPublisher
	// sourceOf maps an installation to the Source its servant's messages
	// carry. On TCP that is the UUID's text, as in the app. Simulated
	// servants all start from one Base configuration, so there each
	// carries its servant ID instead, and the check compares with that.
	sourceOf map[uuid.UUID]string

	mode          atomic.Int32 // an itemMode: Verify checks only verifiedItems
	verifications atomic.Uint64
	rejected      atomic.Uint64
}

// maxBenchPublishers leaves room for the admin, whom trust.NewNetwork makes
// a publisher too.
const maxBenchPublishers = trust.MaxPublishers - 1

// newSecurity makes a network definition, signed by a fresh admin, that
// lists n fresh keys as publishers in the benchmark's categories (so each
// check walks the publisher's category list, as for a restricted
// newsroom). sourceText(i, source) is the Source publisher i's messages
// will carry.
func newSecurity(n int, sourceText func(i int, source uuid.UUID) string) (*security, error) {
	if n > maxBenchPublishers {
		return nil, fmt.Errorf("security: at most %d publishers, not %d", maxBenchPublishers, n)
	}
	admin, err := trust.GenerateIdentity()
	if err != nil {
		return nil, err
	}
	first, err := trust.NewNetwork("newsbench", admin, nil, false)
	if err != nil {
		return nil, err
	}
	def := first.Network.Clone()
	def.Version++
	s := &security{sourceOf: make(map[uuid.UUID]string, n)}
	cats := slices.Sorted(slices.Values(benchCategories))
	for i := range n {
		id, err := trust.GenerateIdentity()
		if err != nil {
			return nil, err
		}
		src, err := trust.NewSource(id.Public)
		if err != nil {
			return nil, err
		}
		s.pubs = append(s.pubs, benchPublisher{id: id, source: src})
		s.sourceOf[src] = sourceText(i, src)
		def.Publishers = append(def.Publishers, trust.Publisher{Name: fmt.Sprintf("servant %d", i), Key: id.Public, Categories: cats})
	}
	if s.net, err = admin.SignNetwork(def); err != nil {
		return nil, err
	}
	return s, nil
}

// item builds publisher p's signed item in category with the given source
// count, and the multicast message carrying it, as the app publishes: the
// count is final before the signature.
func (s *security) item(p int, category string, count uint64, now time.Time) (*newsnet.Multicast, error) {
	id, err := news.NewID(now)
	if err != nil {
		return nil, err
	}
	it := &news.Item{
		ID:          id,
		Category:    category,
		Title:       fmt.Sprintf("Benchmark item %d", count),
		Author:      "newsbench",
		Body:        benchBody,
		Source:      s.pubs[p].source,
		Created:     now,
		SourceCount: count,
	}
	if err := trust.SignItem(s.pubs[p].id, it); err != nil {
		return nil, err
	}
	payload, err := it.MarshalBinary()
	if err != nil {
		return nil, err
	}
	return &newsnet.Multicast{
		ID:       it.ID,
		Category: it.Category,
		Source:   s.sourceOf[it.Source],
		Count:    count,
		Payload:  payload,
	}, nil
}

// verify is every servant's newsnet.Config.Verify. In the verifiedItems
// batch it does what the app's does for a plain item: decode the payload,
// check that the message's fields agree with it, and verify the signature
// and the publisher against the network definition.
func (s *security) verify(m *newsnet.Multicast) string {
	if itemMode(s.mode.Load()) != verifiedItems {
		return ""
	}
	s.verifications.Add(1)
	reason := s.check(m)
	if reason != "" {
		s.rejected.Add(1)
	}
	return reason
}

func (s *security) check(m *newsnet.Multicast) string {
	it := new(news.Item)
	if err := it.UnmarshalBinary(m.Payload); err != nil {
		return string(trust.Invalid)
	}
	if it.ID != uuid.UUID(m.ID) || it.Category != m.Category || s.sourceOf[it.Source] != m.Source || it.SourceCount != m.Count {
		return string(trust.Mismatch)
	}
	if _, err := s.net.VerifyItem(it); err != nil {
		if r := trust.ReasonOf(err); r != "" {
			return string(r)
		}
		return string(trust.Invalid)
	}
	return ""
}

// startBatch switches every servant to mode and clears the counters.
func (s *security) startBatch(mode itemMode) {
	s.mode.Store(int32(mode))
	s.verifications.Store(0)
	s.rejected.Store(0)
}
