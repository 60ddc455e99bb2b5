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

// Issue 26: a refusal that ends the invitation says what to do next,
// whether or not the holder's message did.
func TestRedeemErrorSaysWhatNext(t *testing.T) {
	for _, tc := range []struct {
		err  RedeemError
		want string
	}{
		{RedeemError{Reason: ReasonUsedUp, Msg: "this invitation was used up (it allowed 1 use)"}, "this invitation was used up (it allowed 1 use): ask the admin who sent it for a new invitation"},
		{RedeemError{Reason: ReasonExpired, Msg: "this invitation expired on 2 Jan 2026 10:00", Seed: "10.0.0.1:7400"}, "this invitation expired on 2 Jan 2026 10:00: ask the admin who sent it for a new invitation (asked 10.0.0.1:7400)"},
		{RedeemError{Reason: ReasonNotAdmin, Msg: "the servant at 10.0.0.9:7400 named in the invitation is not an admin's servant of this network"}, "the servant at 10.0.0.9:7400 named in the invitation is not an admin's servant of this network: ask an admin of the network for a new invitation"},
		{RedeemError{Reason: ReasonNotAdmin, Msg: "no longer an admin; ask an admin for a new invitation"}, "no longer an admin; ask an admin for a new invitation"},
		{RedeemError{Reason: ReasonBusy, Msg: "the seed is busy"}, "the seed is busy"},
	} {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.err.Reason, got, tc.want)
		}
	}
}
