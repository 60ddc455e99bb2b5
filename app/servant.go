package app

import (
	"context"

	"newsdesk/newsnet"
	"newsdesk/newsnet/node"
)

// Servant is the running servant as the application drives it: what
// App uses of a *node.Node, and nothing else. The TCP node implements it,
// and so does a servant of a simulated network (*simnode.Node): tests run
// in virtual time on one (see simnet_test.go), and the demo mode
// (app/demo) in real time, both through Options.StartServant.
//
// It is started from a node.Config, whose callbacks (OnDeliver,
// OnProgress, OnPublished, OnLost, OnReach) carry what the servant reports. An
// implementation calls them one at a time, never after Close has
// returned, and they must not call its methods. Its methods are safe for
// concurrent use; after Close, PublishBatch fails with an error matching
// node.ErrClosed and Status returns the last snapshot.
type Servant interface {
	// Addr is the servant ID, the address other servants dial.
	Addr() newsnet.ServantID
	// Status is a snapshot of the servant's place in the tree.
	Status() newsnet.Status
	// PublishBatch publishes ms in order and returns the core's report of
	// each (node.Node.PublishBatch): its count, the tree links it went out
	// on, or that it waits in the core's outbox.
	PublishBatch(ctx context.Context, ms []*newsnet.Multicast) ([]newsnet.Published, error)
	// SetSubscriptions replaces the categories delivered to this servant.
	SetSubscriptions(categories []string) error
	// SetSeeds replaces its seed list without a restart
	// (node.Node.SetSeeds).
	SetSeeds(seeds []newsnet.ServantID) error
	// Reauthenticate closes the links proven with a network secret that
	// is no longer accepted (node.Node.Reauthenticate).
	Reauthenticate()
	// Read, MustRead and Acknowledge tell the servant what the reader did
	// with item id of source, for reach reports (node.Node.Read, MustRead,
	// Acknowledge; app/reach.go); identity and proof are opaque blobs of
	// at most newsnet.MaxIdentityBytes.
	Read(id [16]byte, source string) error
	MustRead(id [16]byte, source string, identity []byte) error
	Acknowledge(id [16]byte, source string, proof []byte) error
	// QueryCensus asks target, the servant at the top of a partition, for
	// its subtree's census and waits for it (node.Node.QueryCensus).
	QueryCensus(ctx context.Context, target newsnet.ServantID) (newsnet.NetworkCensus, error)
	// FetchBlob asks for an attachment's blob to be got whole here; the
	// application hears of it through node.Config.OnBlob
	// (node.Node.FetchBlob).
	FetchBlob(ref newsnet.BlobRef, source string) error
	// Close closes the links and stops the servant; no callback runs
	// after it returns.
	Close() error
}

var _ Servant = (*node.Node)(nil)

// startTCPNode is how App starts its servant unless Options.StartServant
// says otherwise: node.Start, on TCP.
func startTCPNode(cfg node.Config) (Servant, error) {
	n, err := node.Start(context.Background(), cfg)
	if err != nil {
		return nil, err // not a typed nil in the interface
	}
	return n, nil
}
