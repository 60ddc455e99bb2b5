package cli

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"newsdesk/app/apptest"
	"newsdesk/trust"
)

// lossyProxy forwards TCP connections to target. On the first drop
// connections that ask for an invitation redemption (trust.InviteALPN in
// the TLS ClientHello), it loses the answer on its way back: everything
// the servant sends after the joiner's first encrypted record (which the
// joiner sends only once it has the servant's whole handshake flight) is
// dropped, and the joiner's side is closed when the servant closes its
// own. The servant has read the request and answered by then; the joiner
// gets nothing.
type lossyProxy struct {
	ln      net.Listener
	target  string
	drop    atomic.Int32 // redemption answers still to lose
	dropped atomic.Int32
	wg      sync.WaitGroup
}

// newLossyProxy runs a lossyProxy on ln.
func newLossyProxy(t *testing.T, ln net.Listener, target string, drop int) *lossyProxy {
	t.Helper()
	p := &lossyProxy{ln: ln, target: target}
	p.drop.Store(int32(drop))
	t.Cleanup(func() { ln.Close(); p.wg.Wait() })
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			p.wg.Add(1)
			go func() {
				defer p.wg.Done()
				p.forward(c)
			}()
		}
	}()
	return p
}

func (p *lossyProxy) addr() string { return p.ln.Addr().String() }

// readRecord reads one TLS record (5-byte header and payload).
func readRecord(r io.Reader) ([]byte, error) {
	rec := make([]byte, 5)
	if _, err := io.ReadFull(r, rec); err != nil {
		return nil, err
	}
	rec = append(rec, make([]byte, binary.BigEndian.Uint16(rec[3:5]))...)
	_, err := io.ReadFull(r, rec[5:])
	return rec, err
}

func (p *lossyProxy) forward(client net.Conn) {
	defer client.Close()
	server, err := net.Dial("tcp", p.target)
	if err != nil {
		return
	}
	defer server.Close()
	var losing atomic.Bool
	done := make(chan struct{})
	go func() { // servant → joiner
		defer close(done)
		buf := make([]byte, 32<<10)
		for {
			n, err := server.Read(buf)
			if n > 0 && !losing.Load() {
				client.Write(buf[:n])
			}
			if err != nil {
				client.Close()
				return
			}
		}
	}()
	// joiner → servant, a record at a time.
	lose := false
	for first := true; ; first = false {
		rec, err := readRecord(client)
		if err != nil {
			break
		}
		if first && bytes.Contains(rec, []byte(trust.InviteALPN)) && p.drop.Add(-1) >= 0 {
			lose = true
		}
		if lose && rec[0] == 23 && !losing.Load() { // application data: the handshake is over on the servant's side
			losing.Store(true)
			p.dropped.Add(1)
		}
		if _, err := server.Write(rec); err != nil {
			break
		}
	}
	server.(*net.TCPConn).CloseWrite()
	<-done
}

// Issue 32 B: an interrupted join does not use up the code. The answer of
// the admin's servant is lost on its way back to `newsdesk join`, after
// the use was counted; the join fails and keeps the key it made, and the
// same command run again succeeds with that key, without counting another
// use.
func TestJoinRetryAfterLostAnswer(t *testing.T) {
	listen := apptest.FreeAddr(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	// The admin's servant is reached (as seed and as via) only through
	// the proxy, which loses the first redemption's answer.
	p := newLossyProxy(t, ln, listen, 1)
	proxyAddr := p.addr()
	a := startServe(t, apptest.NoTestNetwork, "--listen", listen, "--advertise", proxyAddr, "--seeds", proxyAddr)
	ctx := context.Background()

	status, body := a.Call(t, http.MethodPost, "/v1/invites", `{"uses":1}`)
	var created inviteCreated
	if status != http.StatusOK || json.Unmarshal(body, &created) != nil {
		t.Fatalf("POST /v1/invites = %d %s", status, body)
	}
	c, err := trust.ParseInviteCode(created.Code)
	if err != nil || c.Via != proxyAddr {
		t.Fatalf("code %+v (%v): via is not the proxy", c, err)
	}
	used := func() []inviteJSON {
		t.Helper()
		status, body := a.Call(t, http.MethodGet, "/v1/invites", nil)
		var l []inviteJSON
		if status != http.StatusOK || json.Unmarshal(body, &l) != nil || len(l) != 1 {
			t.Fatalf("GET /v1/invites = %d %s", status, body)
		}
		return l
	}

	dir := filepath.Join(t.TempDir(), "b")
	var out, errOut bytes.Buffer
	err = JoinCommand(ctx, []string{created.Code, "--data", dir}, &out, &errOut)
	if err == nil || p.dropped.Load() != 1 {
		t.Fatalf("the first join: %v, %d answers lost", err, p.dropped.Load())
	}
	if !strings.Contains(err.Error(), "run the same command again") {
		t.Errorf("the failed join says %q", err)
	}
	l := used()
	if l[0].Used != 1 || len(l[0].Redeemed) != 1 {
		t.Fatalf("the admin's servant did not count the lost redemption: %+v", l[0])
	}
	key, err := trust.LoadIdentityFile(filepath.Join(dir, trust.IdentityFile))
	if err != nil {
		t.Fatalf("the failed join kept no key: %v", err)
	}
	if l[0].Redeemed[0] != trust.PublicKeyString(key.Public) {
		t.Fatalf("counted for %s, the kept key is %s", l[0].Redeemed[0], trust.PublicKeyString(key.Public))
	}

	out.Reset()
	if err := JoinCommand(ctx, []string{created.Code, "--data", dir}, &out, &errOut); err != nil {
		t.Fatalf("the retry: %v", err)
	}
	if !strings.Contains(out.String(), "joined network") {
		t.Errorf("the retry printed %q", out.String())
	}
	again, err := trust.LoadIdentityFile(filepath.Join(dir, trust.IdentityFile))
	if err != nil || !again.Public.Equal(key.Public) {
		t.Fatalf("the key changed on the retry (%v)", err)
	}
	if l := used(); l[0].Used != 1 || len(l[0].Redeemed) != 1 {
		t.Fatalf("the retry counted another use: %+v", l[0])
	}
}
