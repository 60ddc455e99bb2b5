package network

import (
	"slices"
	"testing"

	"newsdesk/trust"
)

// Issue 26: a joined servant connects through the network's seeds, else
// through the seeds its code names and the admin's servant the code was
// redeemed at, never through nothing.
func TestJoinSeeds(t *testing.T) {
	for _, tc := range []struct {
		name          string
		network, code []string
		via           string
		want          []string
	}{
		{"the network's", []string{"10.0.0.1:7400", "10.0.0.2:7400"}, []string{"10.0.0.1:7400"}, "10.0.0.9:7400", []string{"10.0.0.1:7400", "10.0.0.2:7400"}},
		{"the code's and via", nil, []string{"10.0.0.1:7400"}, "10.0.0.9:7400", []string{"10.0.0.1:7400", "10.0.0.9:7400"}},
		{"via among the code's", nil, []string{"10.0.0.9:7400"}, "10.0.0.9:7400", []string{"10.0.0.9:7400"}},
		{"via alone", nil, nil, "10.0.0.9:7400", []string{"10.0.0.9:7400"}},
	} {
		sn := &trust.SignedNetwork{Network: trust.Network{Seeds: tc.network}}
		code := &trust.InviteCode{Seeds: tc.code, Via: tc.via}
		if got := JoinSeeds(sn, code); !slices.Equal(got, tc.want) {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}
