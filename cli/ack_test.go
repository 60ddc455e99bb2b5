package cli

import (
	"encoding/json"
	"net/http"
	"testing"
)

// "urgent" and "mustRead" are published with the item and listed by
// /v1/items; POST /v1/ack confirms a must-read item (204, also again),
// and answers 409 for a plain item, 404 for an unknown one and 400 for a
// bad request.
func TestControlAck(t *testing.T) {
	s := startServe(t)
	publish := func(body string) string {
		t.Helper()
		code, out := s.Call(t, "POST", "/v1/publish", body)
		var res struct{ ID string }
		if code != http.StatusOK || json.Unmarshal(out, &res) != nil {
			t.Fatalf("publish %s: %d %s", body, code, out)
		}
		return res.ID
	}
	mustRead := publish(`{"category":"hr","title":"New travel policy","mustRead":true,"urgent":true}`)
	plain := publish(`{"category":"hr","title":"Canteen menu"}`)

	code, out := s.Call(t, "GET", "/v1/items?category=hr", nil)
	var items []struct {
		ID       string `json:"id"`
		Urgent   bool   `json:"urgent"`
		MustRead bool   `json:"mustRead"`
	}
	if code != http.StatusOK || json.Unmarshal(out, &items) != nil || len(items) != 2 {
		t.Fatalf("/v1/items: %d %s", code, out)
	}
	if items[0].ID != mustRead || !items[0].MustRead || !items[0].Urgent || items[1].MustRead || items[1].Urgent {
		t.Errorf("/v1/items flags: %s", out)
	}

	for range 2 {
		if code, out := s.Call(t, "POST", "/v1/ack", `{"id":"`+mustRead+`"}`); code != http.StatusNoContent || len(out) != 0 {
			t.Errorf("ack of the must-read item: %d %s, want 204", code, out)
		}
	}
	checkControlCases(t, s, []controlCase{
		{"POST", "/v1/ack", `{"id":"` + plain + `"}`, 409, "not must-read"},
		{"POST", "/v1/ack", `{"id":"01a2332e-af3d-7e8a-8c73-ac68397e7665"}`, 404, "no such item"},
		{"POST", "/v1/ack", `{"id":"not an id"}`, 400, "id"},
		{"POST", "/v1/ack", `{"id":"00000000-0000-0000-0000-000000000000"}`, 400, "id"},
		{"POST", "/v1/ack", `{}`, 400, "id"},
		{"POST", "/v1/ack", `{"id":"` + mustRead + `","extra":1}`, 400, "unknown field"},
		{"POST", "/v1/ack", `[1]`, 400, "bad JSON"},
		{"GET", "/v1/ack", ``, 405, "not allowed"},
	})
}
