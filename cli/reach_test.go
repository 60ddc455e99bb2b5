package cli

import (
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"newsdesk/app"
	"newsdesk/app/apptest"
	"newsdesk/newsnet"
	"newsdesk/storage"
	"newsdesk/trust"
)

// reachOf is GET /v1/reach on s, decoded.
func reachOf(t *testing.T, s *servant, id string) (int, reachResponse, []byte) {
	t.Helper()
	code, out := s.Call(t, "GET", "/v1/reach?id="+id, nil)
	var r reachResponse
	if code == http.StatusOK {
		if err := json.Unmarshal(out, &r); err != nil {
			t.Fatalf("/v1/reach: %v: %s", err, out)
		}
	}
	return code, r, out
}

// wantReach is the exact /v1/reach answer a test waits for.
func wantReach(subscribers, delivered, read, acked int, pending []string) string {
	readers := make([]pendingReader, 0, len(pending))
	for _, k := range pending {
		readers = append(readers, pendingReader{Key: k}) // serve sets no display name
	}
	b, _ := json.Marshal(reachResponse{Subscribers: uint64(subscribers), Delivered: uint64(delivered), Read: uint64(read),
		Acknowledged: uint64(acked), ReportedAcknowledged: uint64(acked), ReportedPending: uint64(len(pending)), Pending: &readers})
	return string(b)
}

// certifiedData returns a data directory whose installation holds the
// membership certificate of the test network's admin, as one that joined
// by invitation does (issue 32), so that its confirmations count as
// verified.
func certifiedData(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "data")
	id, err := trust.LoadOrCreateIdentity(dir)
	if err != nil {
		t.Fatal(err)
	}
	sn := apptest.Network(t)
	c := apptest.NetworkAdmin(t).SignMemberCert(sn.ID, id.Public, time.Now())
	st, err := storage.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.SetSetting(app.MemberCertSetting, c.String()); err != nil {
		t.Fatal(err)
	}
	return dir
}

// Issue 15: 30 servants on loopback; a must-read item is acknowledged by
// some of them through the API, and /v1/reach on the publisher shows the
// exact counts and the exact list of those who have not confirmed. A
// reader whose servant restarts before acknowledging drops out while it
// is away and counts again when it comes back and confirms.
func TestServeReachOfMustReadItem(t *testing.T) {
	fastReports(t)

	p := startServe(t)
	const readers = 29
	rs := make([]*servant, readers)
	keys := make([]string, readers)
	for i := range rs {
		rs[i] = startServeIn(t, certifiedData(t), "--seeds", p.ID, "--subscribe", "hr")
	}
	for i, r := range rs {
		r.WaitAttached(t)
		var st struct{ Key string }
		_, out := r.Call(t, "GET", "/v1/status", nil)
		if err := json.Unmarshal(out, &st); err != nil || st.Key == "" {
			t.Fatalf("status of reader %d: %v %s", i, err, out)
		}
		keys[i] = st.Key
	}
	p.WaitRoute(t, "hr")
	code, out := p.Call(t, "POST", "/v1/publish", `{"category":"hr","title":"New travel policy","mustRead":true}`)
	var res struct{ ID string }
	if code != http.StatusOK || json.Unmarshal(out, &res) != nil {
		t.Fatalf("publish: %d %s", code, out)
	}
	id := res.ID
	// waitReach waits for the reach want, for the offline readers
	// offline (issue 26: readers once pending whose servants are away),
	// and for the readers who confirmed listed as confirmed.
	var confirmedKeys func() []string
	waitReach := func(what, want string, offline ...string) {
		t.Helper()
		waitForUpTo(t, 60*time.Second, what, func() error {
			code, r, out := reachOf(t, p, id)
			var keys []string
			for _, o := range r.Offline {
				if o.LastSeen.IsZero() {
					return fmt.Errorf("offline %s without a last-seen time", o.Key)
				}
				keys = append(keys, o.Key)
			}
			r.Offline = nil
			var confirmed []string
			for _, c := range r.Confirmed {
				if c.At.IsZero() {
					return fmt.Errorf("confirmed %s without a time", c.Key)
				}
				confirmed = append(confirmed, c.Key)
			}
			r.Confirmed = nil
			got, _ := json.Marshal(r)
			if code != http.StatusOK || string(got) != want || !slices.Equal(keys, offline) || !slices.Equal(confirmed, confirmedKeys()) {
				return fmt.Errorf("%d %s\nwant %s, offline %v, confirmed %v", code, out, want, offline, confirmedKeys())
			}
			return nil
		})
	}
	pendingBut := func(acked ...int) []string {
		var out []string
		for i, k := range keys {
			if !slices.Contains(acked, i) {
				out = append(out, k)
			}
		}
		slices.Sort(out)
		return out
	}
	var ackers []int
	// confirmedKeys: the readers who confirmed, as "confirmed" lists them
	// (serve sets no display name: by key).
	confirmedKeys = func() []string {
		var out []string
		for _, i := range ackers {
			out = append(out, keys[i])
		}
		slices.Sort(out)
		return out
	}
	waitReach("every reader pending", wantReach(readers, readers, 0, 0, pendingBut()))

	ackers = []int{0, 3, 7, 12, 20, 28}
	for _, i := range ackers {
		if code, out := rs[i].Call(t, "POST", "/v1/ack", `{"id":"`+id+`"}`); code != http.StatusNoContent {
			t.Fatalf("ack at reader %d: %d %s", i, code, out)
		}
	}
	waitReach("six confirmed", wantReach(readers, readers, len(ackers), len(ackers), pendingBut(ackers...)))

	// Reader 5 stops before confirming: it drops out while away (with
	// its subtree until that re-joins elsewhere), and counts again, as
	// pending, when it is back; then it confirms.
	const late = 5
	rs[late].Stop()
	stillPending := slices.DeleteFunc(pendingBut(ackers...), func(k string) bool { return k == keys[late] })
	waitReach("reader 5 away", wantReach(readers-1, readers-1, len(ackers), len(ackers), stillPending), keys[late])
	rs[late] = startServeIn(t, rs[late].Data, "--seeds", p.ID, "--subscribe", "hr")
	waitReach("reader 5 back", wantReach(readers, readers, len(ackers), len(ackers), pendingBut(ackers...)))
	if code, out := rs[late].Call(t, "POST", "/v1/ack", `{"id":"`+id+`"}`); code != http.StatusNoContent {
		t.Fatalf("ack at the restarted reader: %d %s", code, out)
	}
	ackers = append(ackers, late)
	waitReach("reader 5 confirmed", wantReach(readers, readers, len(ackers), len(ackers), pendingBut(ackers...)))

	// Reader 0, who confirmed, stops: the relays count it no more, the
	// publisher still does (issue 26).
	rs[0].Stop()
	away := wantReach(readers-1, readers-1, len(ackers)-1, len(ackers)-1, pendingBut(ackers...))
	waitReach("reader 0 away, still confirmed", strings.Replace(away, `"acknowledged":6`, `"acknowledged":7`, 1))

	// Only the publisher has the reach; bad IDs are refused.
	checkControlCases(t, rs[1], []controlCase{
		{"GET", "/v1/reach?id=" + id, ``, 404, "not a post of this installation"},
		{"GET", "/v1/reach?id=01a2332e-af3d-7e8a-8c73-ac68397e7665", ``, 404, "not a post"},
		{"GET", "/v1/reach?id=nonsense", ``, 400, "id"},
		{"GET", "/v1/reach", ``, 400, "id"},
		{"POST", "/v1/reach?id=" + id, ``, 405, "not allowed"},
	})
}

// A plain post's reach has no pending list; a must-read post's, an empty
// one when nobody has it.
func TestControlReachShape(t *testing.T) {
	s := startServe(t)
	plain := s.Publish(t, "hr", "Canteen menu", "")
	code, out := s.Call(t, "GET", "/v1/reach?id="+plain.ID, nil)
	if want := `{"subscribers":0,"delivered":0,"read":0,"acknowledged":0,"reportedAcknowledged":0,"unverifiedAcknowledged":0,"unverifiedPending":0,"reportedPending":0}`; code != http.StatusOK || string(out) != want+"\n" && string(out) != want {
		t.Errorf("reach of a plain post nobody has: %d %s, want %s", code, out, want)
	}
	code, out = s.Call(t, "POST", "/v1/publish", `{"category":"hr","title":"Policy","mustRead":true}`)
	var res struct{ ID string }
	if code != http.StatusOK || json.Unmarshal(out, &res) != nil {
		t.Fatalf("publish: %d %s", code, out)
	}
	code, out = s.Call(t, "GET", "/v1/reach?id="+res.ID, nil)
	if want := `{"subscribers":0,"delivered":0,"read":0,"acknowledged":0,"reportedAcknowledged":0,"unverifiedAcknowledged":0,"unverifiedPending":0,"reportedPending":0,"pending":[]}`; code != http.StatusOK || string(out) != want+"\n" && string(out) != want {
		t.Errorf("reach of a must-read post nobody has: %d %s, want %s", code, out, want)
	}
}

// Issue 15, reach of an audience item, on TCP: of four servants
// subscribed to "it", two listen inside 127.0.1.0/24. /v1/reach on the
// publisher (outside) counts as subscribers of an item for that range the
// two inside, not the category's four; of an item for everyone, all four.
// An inside reader restarted counts again once back: its app passes the
// item's audience back to its servant.
func TestServeReachOfAudienceItem(t *testing.T) {
	fastReports(t)

	p := startServe(t, "--listen", "127.0.0.1:0")
	var rs []*servant
	hosts := []string{"127.0.1.2", "127.0.1.3", "127.0.2.2", "127.0.2.3"}
	for _, host := range hosts {
		rs = append(rs, startServe(t, "--listen", host+":0", "--seeds", p.ID, "--subscribe", "it"))
	}
	for _, r := range rs {
		r.WaitAttached(t)
	}
	p.WaitRoute(t, "it")
	code, out := p.Call(t, "POST", "/v1/publish", `{"category":"it","title":"office only","audience":["127.0.1.0/24"]}`)
	var office publishResult
	if code != http.StatusOK || json.Unmarshal(out, &office) != nil {
		t.Fatalf("publish with audience: %d %s", code, out)
	}
	everyone := p.Publish(t, "it", "everyone", "")
	waitReach := func(what, id, want string) {
		t.Helper()
		waitForUpTo(t, 60*time.Second, what, func() error {
			code, _, out := reachOf(t, p, id)
			if got := string(out); code != http.StatusOK || got != want+"\n" && got != want {
				return fmt.Errorf("%d %s\nwant %s", code, out, want)
			}
			return nil
		})
	}
	const plain = `{"subscribers":%d,"delivered":%d,"read":0,"acknowledged":0,"reportedAcknowledged":0,"unverifiedAcknowledged":0,"unverifiedPending":0,"reportedPending":0}`
	waitReach("the office item", office.ID, fmt.Sprintf(plain, 2, 2))
	waitReach("the item for everyone", everyone.ID, fmt.Sprintf(plain, 4, 4))

	rs[0].Stop()
	waitReach("an office reader away", office.ID, fmt.Sprintf(plain, 1, 1))
	rs[0] = startServeIn(t, rs[0].Data, "--listen", hosts[0]+":0", "--seeds", p.ID, "--subscribe", "it")
	waitReach("the office reader back", office.ID, fmt.Sprintf(plain, 2, 2))
}

// fastReports makes the servants a test starts report reach every 200 ms
// and reconnect within a second.
func fastReports(t *testing.T) {
	tuneServe(t, func(c *newsnet.Config) {
		c.ReportPeriod = 200 * time.Millisecond
		c.BackoffMax = time.Second
	})
}
