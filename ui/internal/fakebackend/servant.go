package fakebackend

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"sync"

	"newsdesk/app"
	"newsdesk/categories"
	"newsdesk/news"
	"newsdesk/newsnet"
	"newsdesk/newsnet/node"
)

// Self is the servant ID of the tests' servant, and Up its up-servant.
const (
	Self = "10.1.4.23:7946"
	Up   = "10.1.0.5:7946"
)

// servant is the application's servant in the UI's tests (app.Servant):
// attached under Up, with no network behind it. A publication is queued
// while the test's status says it is not connected, suppressed when
// nobody elsewhere subscribes to its category (SetRemoteSubscriptions),
// and goes out on the uplink otherwise. It delivers what a test gives it
// (deliver) through the application's callback, as the network would.
type servant struct {
	b   *Backend
	cfg node.Config

	mu     sync.Mutex // serialises the callbacks, guards the fields below
	blobs  []string   // FetchBlob's hashes, in hex
	closed bool
}

var _ app.Servant = (*servant)(nil)

func newServant(b *Backend, cfg node.Config) *servant {
	return &servant{b: b, cfg: cfg}
}

// deliver hands it to the application as a delivery of the network.
func (s *servant) deliver(it *news.Item) error {
	payload, err := it.MarshalBinary()
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return fmt.Errorf("the servant is closed")
	}
	s.cfg.OnDeliver(&newsnet.Multicast{ID: it.ID, Category: it.Category, Source: it.Source.String(),
		Count: it.SourceCount, Payload: payload, Audience: it.Audience})
	return nil
}

func (s *servant) Addr() newsnet.ServantID { return Self }

// Status is constant: the application's polls of it find no change
// (PresetStatus is what the window shows).
func (s *servant) Status() newsnet.Status {
	return newsnet.Status{ID: Self, IDValue: app.IDValue(Self), Role: newsnet.RoleAttached, Up: Up}
}

func (s *servant) PublishBatch(_ context.Context, ms []*newsnet.Multicast) ([]newsnet.Published, error) {
	connected, remote := s.b.network()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, node.ErrClosed
	}
	out := make([]newsnet.Published, len(ms))
	for i, m := range ms {
		p := newsnet.Published{ID: m.ID, Category: m.Category, Count: m.Count}
		switch {
		case !connected:
			p.Queued = true
		case categories.CoveredByAny(remote, m.Category):
			p.Links = 1
		}
		out[i] = p
		if s.cfg.OnPublished != nil {
			s.cfg.OnPublished(p)
		}
	}
	return out, nil
}

func (s *servant) SetSubscriptions([]string) error            { return nil }
func (s *servant) SetSeeds([]newsnet.ServantID) error         { return nil }
func (s *servant) Reauthenticate()                            {}
func (s *servant) Read([16]byte, string) error                { return nil }
func (s *servant) MustRead([16]byte, string, []byte) error    { return nil }
func (s *servant) Acknowledge([16]byte, string, []byte) error { return nil }
func (s *servant) QueryCensus(context.Context, newsnet.ServantID) (newsnet.NetworkCensus, error) {
	return newsnet.NetworkCensus{}, errNoNetwork
}

func (s *servant) FetchBlob(ref newsnet.BlobRef, _ string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.blobs = append(s.blobs, hex.EncodeToString(ref.Hash[:]))
	return nil
}

// transfer keeps the first chunks of the blob data with the
// application (its blob keeper), as the network's transfer does, and
// reports how far it came, or that it is whole.
func (s *servant) transfer(data []byte, chunks int) error {
	parts := slices.Collect(slices.Chunk(data, news.ChunkSize))
	hashes := make([][32]byte, len(parts))
	for i, p := range parts {
		hashes[i] = sha256.Sum256(p)
	}
	ref := newsnet.BlobRef{Hash: sha256.Sum256(data), Root: news.ChunkRoot(hashes), Size: uint64(len(data))}
	if err := s.cfg.Blobs.KeepBlobHead(ref, hashes); err != nil {
		return err
	}
	for i, p := range parts[:min(chunks, len(parts))] {
		if err := s.cfg.Blobs.KeepBlobChunk(ref.Hash, i, p); err != nil {
			return err
		}
	}
	if chunks >= len(parts) {
		s.blobEvent(newsnet.BlobDone{Hash: ref.Hash})
	} else {
		s.blobEvent(newsnet.BlobProgress{Hash: ref.Hash, Have: chunks, Of: len(parts)})
	}
	return nil
}

// blobEvent tells the application of a blob it asked for.
func (s *servant) blobEvent(act newsnet.Action) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cfg.OnBlob(act)
}

func (s *servant) fetchedBlobs() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.blobs)
}

func (s *servant) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	return nil
}
