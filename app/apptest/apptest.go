// Package apptest holds what the tests of app and cli share: the test
// network every servant of a test joins, and `newsdesk serve` run in
// process with a client for its control API (serve.go). It imports neither
// app nor cli, so the tests inside both packages can use it.
package apptest

import (
	"net"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"newsdesk/storage"
	"newsdesk/trust"
)

// The servants of a test join one network: the test network, created once
// per test binary with open publishing, so that any two servants of a test
// can link up and publish to each other as they did before issue 6. It
// lifts the publishing limits (issue 32) as far as a definition may: load
// tests measure throughput; the limits have tests of their own.
var (
	testNetOnce  sync.Once
	testNetAdmin *trust.Identity
	testNet      *trust.SignedNetwork
	testNetErr   error
)

// Network returns the test network's definition.
func Network(t testing.TB) *trust.SignedNetwork {
	t.Helper()
	testNetOnce.Do(func() {
		if testNetAdmin, testNetErr = trust.GenerateIdentity(); testNetErr != nil {
			return
		}
		if testNet, testNetErr = trust.NewNetwork("test network", testNetAdmin, nil, true); testNetErr != nil {
			return
		}
		n := testNet.Network.Clone()
		n.Limits = Unlimited
		testNet, testNetErr = testNetAdmin.SignNetwork(n)
	})
	if testNetErr != nil {
		t.Fatalf("test network: %v", testNetErr)
	}
	return testNet
}

// Unlimited are the highest publishing limits a definition may set.
var Unlimited = trust.PublishLimits{ItemsPerHour: trust.MaxItemsPerHour, BurstItems: trust.MaxBurstItems,
	BytesPerHour: trust.MaxBytesLimit, BurstBytes: trust.MaxBytesLimit, AttachmentBytesPerHour: trust.MaxBytesLimit}

// NetworkAdmin returns the key of the test network's admin, which signs
// its later versions.
func NetworkAdmin(t testing.TB) *trust.Identity {
	t.Helper()
	Network(t)
	return testNetAdmin
}

// WriteNetworkFile writes sn to a fresh file and returns its path.
func WriteNetworkFile(t testing.TB, sn *trust.SignedNetwork) string {
	t.Helper()
	doc, err := sn.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "network.json")
	if err := os.WriteFile(path, doc, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// NoTestNetwork as the first argument of Serve.Start or Serve.StartIn runs
// the servant without the test network's --network flag.
const NoTestNetwork = "\x00no-test-network"

// WithTestNetwork adds --network with the test network to serve arguments
// that name no network.
func WithTestNetwork(t testing.TB, args []string) []string {
	t.Helper()
	if len(args) > 0 && args[0] == NoTestNetwork {
		return args[1:]
	}
	if slices.ContainsFunc(args, func(a string) bool { return a == "--network" || a == "-network" }) {
		return args
	}
	return append([]string{"--network", WriteNetworkFile(t, Network(t))}, args...)
}

// PublishersNetwork returns a definition (not open) whose publisher is the
// installation of data dir pubData, created by a fresh admin, written to
// a file.
func PublishersNetwork(t testing.TB, pubData string) (*trust.Identity, *trust.SignedNetwork, string) {
	t.Helper()
	pub, err := trust.LoadOrCreateIdentity(pubData)
	if err != nil {
		t.Fatal(err)
	}
	admin, err := trust.GenerateIdentity()
	if err != nil {
		t.Fatal(err)
	}
	v1, err := trust.NewNetwork("Acme", admin, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	n := v1.Network.Clone()
	n.Publishers = append(n.Publishers, trust.Publisher{Name: "Newsroom", Key: pub.Public, Categories: []string{"it"}})
	sn, err := admin.SignNetwork(n)
	if err != nil {
		t.Fatal(err)
	}
	return admin, sn, WriteNetworkFile(t, sn)
}

// WaitFor polls cond until it holds, for at most limit, and fails the test
// then. settle, if not nil, runs before each check (in a synctest bubble:
// let everything due happen first).
func WaitFor(t testing.TB, limit time.Duration, what string, settle func(), cond func() error) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		if settle != nil {
			settle()
		}
		err := cond()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s: %v", what, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// FreeAddr returns a loopback address nothing listens on (for a moment).
func FreeAddr(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// DamageStore damages the store of the data directory dir the way an
// installation loses it: "empty" truncates newsdesk.db, "missing" removes
// it. It returns the store's path.
func DamageStore(t testing.TB, dir, damage string) string {
	t.Helper()
	db := filepath.Join(dir, storage.FileName)
	var err error
	if damage == "empty" {
		err = os.Truncate(db, 0)
	} else {
		err = os.Remove(db)
	}
	if err != nil {
		t.Fatal(err)
	}
	return db
}
