package cli

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"newsdesk/app/apptest"
	"newsdesk/trust"
)

// Issue 32 A, on the servant as it runs: an outsider holding many idle
// redemption connections to the admin's servant (TLS done, the invitation
// protocol chosen, no request sent), from many addresses, does not make
// joins fail as "busy": `newsdesk join` succeeds at once while they are
// held.
func TestJoinWhileIdleRedemptionConnectionsHeld(t *testing.T) {
	addr := apptest.FreeAddr(t)
	a := startServe(t, apptest.NoTestNetwork, "--listen", addr, "--seeds", addr)
	status, body := a.Call(t, http.MethodPost, "/v1/invites", `{"uses":1}`)
	var created inviteCreated
	if status != http.StatusOK || json.Unmarshal(body, &created) != nil {
		t.Fatalf("POST /v1/invites = %d %s", status, body)
	}
	outsider, err := trust.GenerateIdentity()
	if err != nil {
		t.Fatal(err)
	}
	const idle = 40
	for i := range idle {
		d := &net.Dialer{Timeout: 5 * time.Second, LocalAddr: &net.TCPAddr{IP: net.ParseIP(fmt.Sprintf("127.0.0.%d", 2+i%20))}}
		c, err := tls.DialWithDialer(d, "tcp", addr, trust.TLSConfigFor(outsider, false, trust.InviteALPN))
		if err != nil {
			t.Fatalf("idle connection %d: %v", i, err)
		}
		defer c.Close()
	}
	start := time.Now()
	var out, errOut bytes.Buffer
	if err := JoinCommand(context.Background(), []string{created.Code, "--data", filepath.Join(t.TempDir(), "b")}, &out, &errOut); err != nil {
		t.Fatalf("join while %d idle connections are held: %v", idle, err)
	}
	if took := time.Since(start); took >= 3*time.Second || !strings.Contains(out.String(), "joined network") {
		t.Fatalf("join took %v, printed %q", took, out.String())
	}
	t.Logf("newsdesk join with %d idle redemption connections held: %v", idle, time.Since(start))
}
