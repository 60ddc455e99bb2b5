package app

import (
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"newsdesk/trust"
)

// The servants of a test join one network: the test network, created once
// per test binary with open publishing, so that any two servants of a test
// can link up and publish to each other as they did before issue 6.
var (
	testNetOnce  sync.Once
	testNetAdmin *trust.Identity
	testNet      *trust.SignedNetwork
	testNetErr   error
)

func testNetwork(t testing.TB) *trust.SignedNetwork {
	t.Helper()
	testNetOnce.Do(func() {
		if testNetAdmin, testNetErr = trust.GenerateIdentity(); testNetErr != nil {
			return
		}
		testNet, testNetErr = trust.NewNetwork("test network", testNetAdmin, nil, true)
	})
	if testNetErr != nil {
		t.Fatalf("test network: %v", testNetErr)
	}
	return testNet
}

// writeNetworkFile writes sn to a fresh file and returns its path.
func writeNetworkFile(t testing.TB, sn *trust.SignedNetwork) string {
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

// noTestNetwork as the first argument of startServe or startServeIn runs
// the servant without the test network's --network flag.
const noTestNetwork = "\x00no-test-network"

// withTestNetwork adds --network with the test network to serve arguments
// that name no network.
func withTestNetwork(t testing.TB, args []string) []string {
	t.Helper()
	if len(args) > 0 && args[0] == noTestNetwork {
		return args[1:]
	}
	if slices.ContainsFunc(args, func(a string) bool { return a == "--network" || a == "-network" }) {
		return args
	}
	return append([]string{"--network", writeNetworkFile(t, testNetwork(t))}, args...)
}
