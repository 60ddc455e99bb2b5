package node

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"newsdesk/newsnet"
	"newsdesk/trust"
)

// secretList is a Security.Secrets a test can rotate.
type secretList struct {
	mu sync.Mutex
	s  [][]byte
}

func newSecretList(secrets ...[]byte) *secretList { return &secretList{s: secrets} }

func (l *secretList) get() [][]byte {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.s)
}

func (l *secretList) set(secrets ...[]byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.s = secrets
}

// newSecurity gives a node a fresh identity and the secrets of l.
func newSecurity(t testing.TB, l *secretList) *Security {
	t.Helper()
	id, err := trust.GenerateIdentity()
	if err != nil {
		t.Fatal(err)
	}
	return &Security{Identity: id, Secrets: l.get}
}

// attachedTo reports whether j hangs directly under v, seen from both ends.
func attachedTo(j, v *Node) error {
	js, vs := j.Status(), v.Status()
	if js.Up != v.Addr() || !slices.Contains(vs.Downs, j.Addr()) {
		return fmt.Errorf("joiner up=%q, vertex downs=%v", js.Up, vs.Downs)
	}
	return nil
}

// peerSecrets returns the secret each of n's links was proven with.
func peerSecrets(t *testing.T, n *Node) []secretID {
	var ids []secretID
	if err := n.do(func(*newsnet.Servant) {
		for _, p := range n.peers {
			ids = append(ids, p.secret)
		}
	}); err != nil {
		t.Fatal(err)
	}
	return ids
}

func statIs(n *Node, reason string, atLeast uint64) func() error {
	return func() error {
		if got := n.SecurityStats()[reason]; got < atLeast {
			return fmt.Errorf("%s refusals = %d, want >= %d (stats %v)", reason, got, atLeast, n.SecurityStats())
		}
		return nil
	}
}

// Two secured nodes attach and deliver both ways, with nothing refused.
func TestSecureTwoNodes(t *testing.T) {
	log := newTestLog(t)
	secrets := newSecretList([]byte("s3cret"))
	var vd, jd deliveries
	v := startNode(t, Config{Protocol: fastCore(), Logger: log, OnDeliver: vd.add, Security: newSecurity(t, secrets)})
	j := startNode(t, Config{Protocol: fastCore(v.Addr()), Logger: log, OnDeliver: jd.add, Security: newSecurity(t, secrets)})
	waitFor(t, 10*time.Second, "joiner attached", func() error { return attachedTo(j, v) })

	if err := j.Subscribe("it"); err != nil {
		t.Fatal(err)
	}
	if err := v.Subscribe("hr"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "routing sets", func() error {
		vl, _ := linkTo(v.Status(), j.Addr())
		jl, _ := linkTo(j.Status(), v.Addr())
		if !vl.Received.Equal(newsnet.CategorySet{"it"}) || !jl.Received.Equal(newsnet.CategorySet{"hr"}) {
			return fmt.Errorf("vertex received %v, joiner received %v", vl.Received, jl.Received)
		}
		return nil
	})
	down, up := newMsg("it"), newMsg("hr")
	if _, err := v.Publish(context.Background(), down); err != nil {
		t.Fatal(err)
	}
	if _, err := j.Publish(context.Background(), up); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "delivery both ways", func() error {
		if jd.count(down.ID) != 1 || vd.count(up.ID) != 1 {
			return fmt.Errorf("joiner got %d, vertex got %d", jd.count(down.ID), vd.count(up.ID))
		}
		return nil
	})
	for _, n := range []*Node{v, j} {
		if st := n.SecurityStats(); len(st) != 0 {
			t.Errorf("%s refused handshakes: %v", n.Addr(), st)
		}
	}
	want := sha256.Sum256([]byte("s3cret"))
	if got := peerSecrets(t, v); !slices.Equal(got, []secretID{want}) {
		t.Errorf("vertex links proven with %x, want the one secret", got)
	}
}

// A node with the wrong secret is refused on both ends and never attaches.
func TestSecureWrongSecretRefused(t *testing.T) {
	log := newTestLog(t)
	v := startNode(t, Config{Protocol: fastCore(), Logger: log, Security: newSecurity(t, newSecretList([]byte("right")))})
	j := startNode(t, Config{Protocol: fastCore(v.Addr()), Logger: log, Security: newSecurity(t, newSecretList([]byte("wrong")))})
	waitFor(t, 10*time.Second, "vertex refused proofs", statIs(v, refusedProof, 2))
	waitFor(t, 10*time.Second, "joiner refused proofs", statIs(j, refusedProof, 2))
	if err := attachedTo(j, v); err == nil {
		t.Fatal("joiner with the wrong secret attached")
	}
	if st := v.Status(); len(st.Downs) != 0 || len(st.Links) != 0 {
		t.Errorf("vertex has links %v, downs %v", st.Links, st.Downs)
	}
}

// A plain-TCP servant dialing a secured one is refused at TLS.
func TestSecurePlainDialerRefused(t *testing.T) {
	log := newTestLog(t)
	v := startNode(t, Config{Protocol: fastCore(), Logger: log, Security: newSecurity(t, newSecretList([]byte("s")))})
	j := startNode(t, Config{Protocol: fastCore(v.Addr()), Logger: log})
	waitFor(t, 10*time.Second, "vertex refused TLS", statIs(v, refusedTLS, 2))
	if err := attachedTo(j, v); err == nil {
		t.Fatal("plain joiner attached to a secured vertex")
	}
	if st := v.Status(); len(st.Links) != 0 {
		t.Errorf("vertex has links %v", st.Links)
	}
}

// Raw clients: TLS 1.2, TLS 1.3 without a proof, a bad proof, and stalls at
// each step are all refused, counted and closed; a stall within the
// handshake timeout.
func TestSecureRawClientsRefused(t *testing.T) {
	log := newTestLog(t)
	const hsTimeout = 500 * time.Millisecond
	v := startNode(t, Config{Protocol: fastCore(), Logger: log, handshakeTimeout: hsTimeout,
		Security: newSecurity(t, newSecretList([]byte("s")))})
	stranger, err := trust.GenerateIdentity()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]uint64{}
	check := func(what string) {
		t.Helper()
		waitFor(t, 10*time.Second, what+" counted", func() error {
			if got := v.SecurityStats(); !equalStats(got, want) {
				return fmt.Errorf("stats %v, want %v", got, want)
			}
			return nil
		})
	}

	t.Run("tls12", func(t *testing.T) {
		c := dialRaw(t, v.Addr())
		cfg := &tls.Config{MaxVersion: tls.VersionTLS12, InsecureSkipVerify: true, NextProtos: []string{trust.ALPN}}
		tc := tls.Client(c, cfg)
		tc.SetDeadline(time.Now().Add(5 * time.Second))
		if err := tc.Handshake(); err == nil {
			t.Fatalf("TLS 1.2 handshake succeeded (version %#x)", tc.ConnectionState().Version)
		}
		c.expectClosed("TLS 1.2 client")
		want[refusedTLS]++
		check("TLS 1.2")
	})
	t.Run("plain hello", func(t *testing.T) {
		c := dialRaw(t, v.Addr())
		if err := newsnet.WriteHello(c, newsnet.OwnHello("test")); err != nil {
			t.Fatal(err)
		}
		c.expectClosed("plain hello")
		want[refusedTLS]++
		check("plain hello")
	})
	// secureRaw completes TLS 1.3 as a stranger with a certificate.
	secureRaw := func(t *testing.T) (*rawConn, *tls.Conn) {
		c := dialRaw(t, v.Addr())
		tc := tls.Client(c, trust.TLSConfig(stranger, false))
		tc.SetDeadline(time.Now().Add(5 * time.Second))
		if err := tc.Handshake(); err != nil {
			t.Fatalf("TLS 1.3 handshake: %v", err)
		}
		return c, tc
	}
	t.Run("no proof", func(t *testing.T) {
		c, tc := secureRaw(t)
		tc.CloseWrite()
		c.expectClosed("client without a proof")
		want[refusedProof]++
		check("no proof")
	})
	t.Run("bad proof", func(t *testing.T) {
		c, tc := secureRaw(t)
		exporter, err := trust.ExporterValue(tc.ConnectionState())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tc.Write(trust.LinkProof([]byte("guess"), exporter, trust.RoleClient)); err != nil {
			t.Fatal(err)
		}
		c.expectClosed("client with a bad proof")
		want[refusedProof]++
		check("bad proof")
	})
	t.Run("reflected proof", func(t *testing.T) {
		// The right secret but the server's role: a proof reflected back.
		c, tc := secureRaw(t)
		exporter, err := trust.ExporterValue(tc.ConnectionState())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tc.Write(trust.LinkProof([]byte("s"), exporter, trust.RoleServer)); err != nil {
			t.Fatal(err)
		}
		c.expectClosed("client with a reflected proof")
		want[refusedProof]++
		check("reflected proof")
	})
	t.Run("stall after connect", func(t *testing.T) {
		c := dialRaw(t, v.Addr())
		start := time.Now()
		c.expectClosed("silent client")
		if d := time.Since(start); d < hsTimeout/2 {
			t.Errorf("closed after %v, before the handshake timeout %v", d, hsTimeout)
		}
		want[refusedTimeout]++
		check("stall after connect")
	})
	t.Run("stall after TLS", func(t *testing.T) {
		c, _ := secureRaw(t)
		c.expectClosed("client silent after TLS")
		want[refusedTimeout]++
		check("stall after TLS")
	})
	// None of it disturbed the node: a member still attaches.
	j := startNode(t, Config{Protocol: fastCore(v.Addr()), Logger: log, Security: newSecurity(t, newSecretList([]byte("s")))})
	waitFor(t, 10*time.Second, "member attached", func() error { return attachedTo(j, v) })
}

func equalStats(a, b map[string]uint64) bool {
	for k, v := range b {
		if a[k] != v {
			return false
		}
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// Rotation: accepting [new, old] on both ends keeps the link; once one end
// drops the old secret, Reauthenticate closes the link proven with it and
// the core re-establishes it, proven with the new one.
func TestSecureRotation(t *testing.T) {
	log := newTestLog(t)
	oldS, newS := []byte("old secret"), []byte("new secret")
	vs, js := newSecretList(oldS), newSecretList(oldS)
	v := startNode(t, Config{Protocol: fastCore(), Logger: log, Security: newSecurity(t, vs)})
	j := startNode(t, Config{Protocol: fastCore(v.Addr()), Logger: log, Security: newSecurity(t, js)})
	waitFor(t, 10*time.Second, "joiner attached", func() error { return attachedTo(j, v) })
	oldID, newID := secretID(sha256.Sum256(oldS)), secretID(sha256.Sum256(newS))
	if got := peerSecrets(t, v); !slices.Equal(got, []secretID{oldID}) {
		t.Fatalf("vertex link proven with %x, want the old secret", got)
	}

	vs.set(newS, oldS)
	js.set(newS, oldS)
	v.Reauthenticate()
	j.Reauthenticate()
	if err := attachedTo(j, v); err != nil {
		t.Fatalf("after accepting [new, old]: %v", err)
	}
	if v.SecurityStats()[reauthClosed]+j.SecurityStats()[reauthClosed] != 0 {
		t.Fatalf("links closed while the old secret is still accepted: %v %v", v.SecurityStats(), j.SecurityStats())
	}

	vs.set(newS)
	v.Reauthenticate()
	if got := v.SecurityStats()[reauthClosed]; got != 1 {
		t.Fatalf("vertex closed %d links on dropping the old secret, want 1", got)
	}
	waitFor(t, 10*time.Second, "joiner re-attached with the new secret", func() error {
		if err := attachedTo(j, v); err != nil {
			return err
		}
		if got := peerSecrets(t, v); !slices.Equal(got, []secretID{newID}) {
			return fmt.Errorf("vertex links proven with %x, want only the new secret", got)
		}
		return nil
	})
	if got := v.SecurityStats()[refusedProof] + j.SecurityStats()[refusedProof]; got != 0 {
		t.Errorf("%d proofs refused during the rotation", got)
	}
}

// A handshake that completes with a secret a rotation dropped meanwhile is
// refused when it would become a link. The vertex's Secrets answers [old]
// to the first handshake (the proof exchange) and [new] from then on, as if
// the rotation landed during it.
func TestSecureRotationDuringHandshake(t *testing.T) {
	log := newTestLog(t)
	oldS, newS := []byte("old secret"), []byte("new secret")
	var mu sync.Mutex
	calls := 0
	vsec := newSecurity(t, newSecretList())
	vsec.Secrets = func() [][]byte {
		mu.Lock()
		defer mu.Unlock()
		calls++
		if calls == 1 {
			return [][]byte{oldS}
		}
		return [][]byte{newS}
	}
	v := startNode(t, Config{Protocol: fastCore(), Logger: log, Security: vsec})
	js := newSecretList(oldS)
	j := startNode(t, Config{Protocol: fastCore(v.Addr()), Logger: log, Security: newSecurity(t, js)})
	waitFor(t, 10*time.Second, "stale link dropped", statIs(v, reauthClosed, 1))
	if err := attachedTo(j, v); err == nil {
		t.Fatal("joiner attached with a dropped secret")
	}
	// The joiner catches up with the rotation: it now attaches.
	js.set(newS, oldS)
	waitFor(t, 10*time.Second, "joiner attached with the new secret", func() error { return attachedTo(j, v) })
	if got := peerSecrets(t, v); !slices.Equal(got, []secretID{sha256.Sum256(newS)}) {
		t.Errorf("vertex links proven with %x, want the new secret", got)
	}
}

// capture is a packet capture substitute: every byte read or written on a
// dialed connection.
type capture struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (c *capture) wrap(conn net.Conn) net.Conn { return &capturedConn{Conn: conn, c: c} }

func (c *capture) bytes() []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return bytes.Clone(c.buf.Bytes())
}

type capturedConn struct {
	net.Conn
	c *capture
}

func (cc *capturedConn) Read(p []byte) (int, error) {
	n, err := cc.Conn.Read(p)
	cc.c.mu.Lock()
	cc.c.buf.Write(p[:n])
	cc.c.mu.Unlock()
	return n, err
}

// Write records p before writing it: recorded after, it could reach the
// peer and be delivered before the test looks at the capture.
func (cc *capturedConn) Write(p []byte) (int, error) {
	cc.c.mu.Lock()
	cc.c.buf.Write(p)
	cc.c.mu.Unlock()
	return cc.Conn.Write(p)
}

// A capture of a secured link shows no plaintext item; the same capture of
// a plain link does (so the capture itself works).
func TestSecureNoPlaintext(t *testing.T) {
	for _, secured := range []bool{false, true} {
		t.Run(fmt.Sprintf("secured=%v", secured), func(t *testing.T) {
			log := newTestLog(t)
			secrets := newSecretList([]byte("s"))
			sec := func() *Security {
				if !secured {
					return nil
				}
				return newSecurity(t, secrets)
			}
			var capt capture
			var vd, jd deliveries
			v := startNode(t, Config{Protocol: fastCore(), Logger: log, OnDeliver: vd.add, Security: sec()})
			j := startNode(t, Config{Protocol: fastCore(v.Addr()), Logger: log, OnDeliver: jd.add, Security: sec(), wrapDial: capt.wrap})
			waitFor(t, 10*time.Second, "joiner attached", func() error { return attachedTo(j, v) })
			if err := j.Subscribe("it"); err != nil {
				t.Fatal(err)
			}
			if err := v.Subscribe("it"); err != nil {
				t.Fatal(err)
			}
			waitFor(t, 10*time.Second, "routing set", func() error {
				if vl, _ := linkTo(v.Status(), j.Addr()); !vl.Received.Equal(newsnet.CategorySet{"it"}) {
					return fmt.Errorf("vertex received %v", vl.Received)
				}
				if jl, _ := linkTo(j.Status(), v.Addr()); !jl.Received.Equal(newsnet.CategorySet{"it"}) {
					return fmt.Errorf("joiner received %v", jl.Received)
				}
				return nil
			})
			const down, up = "Office closed: all staff work from home", "Quarterly figures are in"
			md, mu := newMsg("it"), newMsg("it")
			md.Payload, mu.Payload = []byte(down), []byte(up)
			if _, err := v.Publish(context.Background(), md); err != nil {
				t.Fatal(err)
			}
			if _, err := j.Publish(context.Background(), mu); err != nil {
				t.Fatal(err)
			}
			waitFor(t, 10*time.Second, "delivery both ways", func() error {
				if jd.count(md.ID) != 1 || vd.count(mu.ID) != 1 {
					return fmt.Errorf("joiner got %d, vertex got %d", jd.count(md.ID), vd.count(mu.ID))
				}
				return nil
			})
			got := capt.bytes()
			if len(got) < 100 {
				t.Fatalf("captured only %d bytes", len(got))
			}
			// Both titles, and the hello's magic: no protocol byte in clear.
			for _, plain := range []string{down, up, "NDSK"} {
				if in := bytes.Contains(got, []byte(plain)); in == secured {
					t.Errorf("secured=%v: %q in the capture of %d bytes: %v", secured, plain, len(got), in)
				}
			}
			t.Logf("captured %d bytes", len(got))
		})
	}
}

// Security without an identity or secrets is refused at Start; Reauthenticate
// on a plain node does nothing.
func TestSecurityConfig(t *testing.T) {
	l := newSecretList([]byte("s"))
	id, err := trust.GenerateIdentity()
	if err != nil {
		t.Fatal(err)
	}
	for _, sec := range []*Security{{Secrets: l.get}, {Identity: id}} {
		if _, err := Start(context.Background(), Config{Listen: "127.0.0.1:0", Security: sec}); err == nil || !strings.Contains(err.Error(), "security") {
			t.Errorf("Start with %+v: err = %v", sec, err)
		}
	}
	n := startNode(t, Config{Protocol: fastCore()})
	n.Reauthenticate()
	if st := n.SecurityStats(); len(st) != 0 {
		t.Errorf("plain node stats %v", st)
	}
}

// Handshake cost on loopback: TCP connect plus both ends' handshake, up to
// the point where each side would raise LinkUp.
func BenchmarkSecureHandshake(b *testing.B) {
	benchmarkHandshake(b, true)
}

func BenchmarkPlainHandshake(b *testing.B) {
	benchmarkHandshake(b, false)
}

func benchmarkHandshake(b *testing.B, secured bool) {
	l := newSecretList([]byte("bench secret"))
	cfg := func() Config {
		c := Config{Listen: "127.0.0.1:0", Protocol: fastCore()}
		if secured {
			c.Security = newSecurity(b, l)
		}
		return c
	}
	client, err := Start(context.Background(), cfg())
	if err != nil {
		b.Fatal(err)
	}
	defer client.Close()
	server, err := Start(context.Background(), cfg())
	if err != nil {
		b.Fatal(err)
	}
	defer server.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer ln.Close()

	ctx := context.Background()
	type result struct {
		h   handshaken
		err error
	}
	serverDone := make(chan result)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			h, err := server.handshake(ctx, c, time.Now().Add(5*time.Second), false)
			serverDone <- result{h, err}
		}
	}()
	b.ResetTimer()
	for b.Loop() {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			b.Fatal(err)
		}
		h, err := client.handshake(ctx, c, time.Now().Add(5*time.Second), true)
		if err != nil {
			b.Fatal(err)
		}
		s := <-serverDone
		if s.err != nil {
			b.Fatal(s.err)
		}
		h.raw.Close()
		s.h.raw.Close()
	}
}

// A member that knows the secret but whose key the network revoked is
// refused after the proof ("key"), on both sides.
func TestSecureRevokedKeyRefused(t *testing.T) {
	log := newTestLog(t)
	secrets := newSecretList([]byte("s"))
	revoked := newSecurity(t, secrets)
	refuseRevoked := func(peer ed25519.PublicKey) error {
		if peer.Equal(revoked.Identity.Public) {
			return errors.New("key revoked by the network")
		}
		return nil
	}
	vsec := newSecurity(t, secrets)
	vsec.Admit = refuseRevoked
	v := startNode(t, Config{Protocol: fastCore(), Logger: log, Security: vsec})
	j := startNode(t, Config{Protocol: fastCore(v.Addr()), Logger: log, Security: revoked})
	waitFor(t, 10*time.Second, "vertex refused the revoked key", statIs(v, refusedKey, 2))
	if err := attachedTo(j, v); err == nil {
		t.Fatal("revoked member attached")
	}
}
