package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"newsdesk/app/apptest"
)

// GET /v1/network on an admin's servant of a network of 30 servants that joined
// by invitation: the census counts every servant, by release and kind;
// a member is refused.
func TestNetworkCensusAPI(t *testing.T) {
	const members = 29
	addr := apptest.FreeAddr(t)
	admin := startServe(t, apptest.NoTestNetwork, "--listen", addr, "--seeds", addr)
	code, body := admin.Call(t, http.MethodPost, "/v1/invites", fmt.Sprintf(`{"uses":%d,"expires":"1h","publisher":false,"categories":[]}`, members))
	var created inviteCreated
	if code != http.StatusOK || json.Unmarshal(body, &created) != nil {
		t.Fatalf("POST /v1/invites = %d %s", code, body)
	}
	var joined []*servant
	for i := range members {
		dir := filepath.Join(t.TempDir(), fmt.Sprintf("m%d", i))
		var out, errOut strings.Builder
		if err := JoinCommand(context.Background(), []string{created.Code, "--data", dir}, &out, &errOut); err != nil {
			t.Fatalf("join %d: %v\n%s", i, err, errOut.String())
		}
		m := startServeIn(t, dir, apptest.NoTestNetwork, "--subscribe", "it")
		joined = append(joined, m)
	}
	for _, m := range joined {
		m.WaitAttached(t)
	}
	var got censusJSON
	waitForUpTo(t, 2*time.Minute, "the census to count every servant", func() error {
		code, body := admin.Call(t, http.MethodGet, networkPath, nil)
		if code != http.StatusOK {
			return fmt.Errorf("%d %s", code, body)
		}
		if err := json.Unmarshal(body, &got); err != nil {
			return err
		}
		if got.Servants != members+1 {
			return fmt.Errorf("%d servants", got.Servants)
		}
		// The map: every servant but the vertex (the admin's, the first
		// seed) lies in one of its partitions.
		var inParts uint64
		for _, p := range got.Partitions {
			inParts += p.Servants
		}
		if inParts+got.Leaves != members {
			return fmt.Errorf("%d servants in the map's partitions, %d leaves", inParts, got.Leaves)
		}
		return nil
	})
	for _, p := range got.Partitions {
		var below uint64
		for _, q := range p.Partitions {
			below += q.Servants
			if q.Lo < p.Lo || q.Hi > p.Hi {
				t.Errorf("partition of %s [%d, %d] outside its parent's [%d, %d]", q.Root, q.Lo, q.Hi, p.Lo, p.Hi)
			}
		}
		if p.Root == "" || p.Lo > p.Hi || below >= p.Servants || p.Depth == 0 {
			t.Errorf("partition %+v: %d servants below its root", p, below)
		}
	}
	if got.Headless != members+1 || got.Seeds != 1 || len(got.Releases) != 1 || got.Releases[0].Servants != members+1 ||
		got.Protocol.Min == 0 || got.Depth < 2 || got.At.IsZero() || len(got.SeedsOnline) != 1 || got.SeedsOnline[0] != addr ||
		len(got.SeedsAway) != 0 || got.Subscribers["it"] != members {
		t.Errorf("census: %+v", got)
	}
	// A partition's own census, from the servant at its top: its
	// computers, counted as the whole network's map counts them.
	if len(got.Partitions) > 0 {
		p := got.Partitions[0]
		code, body := admin.Call(t, http.MethodGet, networkPath+"?partition="+p.Root, nil)
		var part censusJSON
		if code != http.StatusOK || json.Unmarshal(body, &part) != nil || part.Servants != p.Servants {
			t.Errorf("GET /v1/network?partition=%s = %d %s; want %d servants", p.Root, code, body, p.Servants)
		}
		if code, body := admin.Call(t, http.MethodGet, networkPath+"?partition=127.9.9.9:1", nil); code != http.StatusGatewayTimeout {
			t.Errorf("a partition nobody heads: %d %s, want 504", code, body)
		}
	}
	if code, body := joined[0].Call(t, http.MethodGet, networkPath, nil); code != http.StatusForbidden {
		t.Errorf("a member's GET /v1/network = %d %s, want 403", code, body)
	}
}
