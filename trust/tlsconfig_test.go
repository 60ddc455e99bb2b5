package trust

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"io"
	"math/big"
	"net"
	"testing"
	"time"
)

// tlsPair runs one handshake over loopback TCP and returns both ends with
// their handshake errors. Loopback rather than net.Pipe: in TLS 1.3 the
// client finishes before the server has checked the client's certificate,
// and the server's alert must not block on an unbuffered pipe.
func tlsPair(t testing.TB, clientCfg, serverCfg *tls.Config) (client, server *tls.Conn, clientErr, serverErr error) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	type result struct {
		c   *tls.Conn
		err error
	}
	done := make(chan result, 1)
	go func() {
		raw, err := ln.Accept()
		if err != nil {
			done <- result{nil, err}
			return
		}
		raw.SetDeadline(time.Now().Add(10 * time.Second))
		c := tls.Server(raw, serverCfg)
		done <- result{c, c.Handshake()}
	}()
	raw, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	raw.SetDeadline(time.Now().Add(10 * time.Second))
	client = tls.Client(raw, clientCfg)
	clientErr = client.Handshake()
	r := <-done
	t.Cleanup(func() {
		client.Close()
		if r.c != nil {
			r.c.Close()
		}
	})
	return client, r.c, clientErr, r.err
}

// proveLink is the exchange the runtime does after the handshake: send our
// proof, read the peer's, check it with the peer's role.
func proveLink(c *tls.Conn, secret []byte, role, peerRole string) (bool, error) {
	exp, err := ExporterValue(c.ConnectionState())
	if err != nil {
		return false, err
	}
	errc := make(chan error, 1)
	go func() {
		_, err := c.Write(LinkProof(secret, exp, role))
		errc <- err
	}()
	peer := make([]byte, LinkProofSize)
	if _, err := io.ReadFull(c, peer); err != nil {
		return false, err
	}
	if err := <-errc; err != nil {
		return false, err
	}
	return CheckLinkProof(secret, exp, peerRole, peer), nil
}

func TestTLSHandshakeExporterAndProof(t *testing.T) {
	clientID, serverID := newIdentity(t), newIdentity(t)
	c, s, cerr, serr := tlsPair(t, TLSConfig(clientID, false), TLSConfig(serverID, true))
	if cerr != nil || serr != nil {
		t.Fatalf("handshake: client %v, server %v", cerr, serr)
	}
	ccs, scs := c.ConnectionState(), s.ConnectionState()
	if ccs.Version != tls.VersionTLS13 || ccs.NegotiatedProtocol != ALPN {
		t.Fatalf("version %#x ALPN %q", ccs.Version, ccs.NegotiatedProtocol)
	}
	if ccs.DidResume || scs.DidResume {
		t.Error("session resumed")
	}
	// Each side learns the other's installation key.
	if k, err := PeerKey(ccs); err != nil || !k.Equal(serverID.Public) {
		t.Errorf("client sees server key %v, %v", k, err)
	}
	if k, err := PeerKey(scs); err != nil || !k.Equal(clientID.Public) {
		t.Errorf("server sees client key %v, %v", k, err)
	}
	ce, err := ExporterValue(ccs)
	if err != nil {
		t.Fatal(err)
	}
	se, err := ExporterValue(scs)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(ce, se) || len(ce) != ExporterSize {
		t.Fatalf("exporters differ: %x %x", ce, se)
	}
	secret := bytes.Repeat([]byte{3}, SecretSize)
	okc := make(chan bool, 1)
	go func() {
		ok, err := proveLink(s, secret, RoleServer, RoleClient)
		if err != nil {
			t.Error(err)
		}
		okc <- ok
	}()
	ok, err := proveLink(c, secret, RoleClient, RoleServer)
	if err != nil {
		t.Fatal(err)
	}
	if !ok || !<-okc {
		t.Fatal("proof with the right secret refused")
	}

	// Another session of the same two keys has another exporter, so a proof
	// recorded here is useless there.
	c2, _, cerr, serr := tlsPair(t, TLSConfig(clientID, false), TLSConfig(serverID, true))
	if cerr != nil || serr != nil {
		t.Fatal(cerr, serr)
	}
	e2, _ := ExporterValue(c2.ConnectionState())
	if bytes.Equal(e2, ce) {
		t.Fatal("two sessions share an exporter value")
	}
	if CheckLinkProof(secret, e2, RoleClient, LinkProof(secret, ce, RoleClient)) {
		t.Fatal("a proof replayed on another session checked")
	}
}

func TestTLSWrongSecretRefused(t *testing.T) {
	c, s, cerr, serr := tlsPair(t, TLSConfig(newIdentity(t), false), TLSConfig(newIdentity(t), true))
	if cerr != nil || serr != nil {
		t.Fatal(cerr, serr)
	}
	okc := make(chan bool, 1)
	go func() {
		ok, _ := proveLink(s, bytes.Repeat([]byte{1}, SecretSize), RoleServer, RoleClient)
		okc <- ok
	}()
	ok, err := proveLink(c, bytes.Repeat([]byte{2}, SecretSize), RoleClient, RoleServer)
	if err != nil {
		t.Fatal(err)
	}
	if ok || <-okc {
		t.Fatal("a peer with another secret was accepted")
	}
}

func TestTLS12ClientRefused(t *testing.T) {
	cfg := TLSConfig(newIdentity(t), false)
	cfg.MinVersion, cfg.MaxVersion = tls.VersionTLS12, tls.VersionTLS12
	_, _, cerr, serr := tlsPair(t, cfg, TLSConfig(newIdentity(t), true))
	if cerr == nil || serr == nil {
		t.Fatalf("TLS 1.2 client: client %v, server %v", cerr, serr)
	}
	t.Logf("client: %v; server: %v", cerr, serr)
}

func TestTLS12ServerRefused(t *testing.T) {
	cfg := TLSConfig(newIdentity(t), true)
	cfg.MinVersion, cfg.MaxVersion = tls.VersionTLS12, tls.VersionTLS12
	_, _, cerr, _ := tlsPair(t, TLSConfig(newIdentity(t), false), cfg)
	if cerr == nil {
		t.Fatal("client accepted a TLS 1.2 server")
	}
}

func TestTLSClientWithoutCertificateRefused(t *testing.T) {
	cfg := &tls.Config{MinVersion: tls.VersionTLS13, InsecureSkipVerify: true, NextProtos: []string{ALPN}}
	c, _, _, serr := tlsPair(t, cfg, TLSConfig(newIdentity(t), true))
	if serr == nil {
		t.Fatal("server accepted a client without a certificate")
	}
	// The client learns it at its first read.
	if _, err := c.Read(make([]byte, 1)); err == nil {
		t.Fatal("client could read")
	}
}

func TestTLSClientWithoutALPNRefused(t *testing.T) {
	cfg := TLSConfig(newIdentity(t), false)
	cfg.NextProtos = nil
	_, _, cerr, serr := tlsPair(t, cfg, TLSConfig(newIdentity(t), true))
	if cerr == nil && serr == nil {
		t.Fatal("a client not announcing newsdesk/1 was accepted")
	}
}

func TestTLSNonEd25519PeerRefused(t *testing.T) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), NotAfter: time.Now().Add(time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cfg := TLSConfig(newIdentity(t), false)
	cfg.GetClientCertificate = func(*tls.CertificateRequestInfo) (*tls.Certificate, error) {
		return &tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, nil
	}
	_, _, _, serr := tlsPair(t, cfg, TLSConfig(newIdentity(t), true))
	if serr == nil {
		t.Fatal("server accepted an ECDSA client certificate")
	}
	contains(t, serr, "want Ed25519")
}

func TestSelfSignedCertificate(t *testing.T) {
	id := newIdentity(t)
	a, err := SelfSignedCertificate(id)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := SelfSignedCertificate(id)
	leaf := a.Leaf
	if k, ok := leaf.PublicKey.(ed25519.PublicKey); !ok || !k.Equal(id.Public) {
		t.Fatal("certificate is not for the identity key")
	}
	if err := leaf.CheckSignature(leaf.SignatureAlgorithm, leaf.RawTBSCertificate, leaf.Signature); err != nil {
		t.Fatalf("not self-signed: %v", err)
	}
	if leaf.SerialNumber.Cmp(b.Leaf.SerialNumber) == 0 {
		t.Error("two certificates share a serial")
	}
	if leaf.NotAfter.Year() != 9999 || leaf.Subject.CommonName != PublicKeyString(id.Public) {
		t.Errorf("not after %v, CN %q", leaf.NotAfter, leaf.Subject.CommonName)
	}
}

func TestExporterValueNeedsCompletedTLS13(t *testing.T) {
	if _, err := ExporterValue(tls.ConnectionState{}); err == nil {
		t.Fatal("exporter of an incomplete handshake")
	}
}

func BenchmarkTLSHandshake(b *testing.B) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer ln.Close()
	serverCfg := TLSConfig(newIdentity(b), true)
	clientCfg := TLSConfig(newIdentity(b), false)
	served := make(chan error)
	go func() {
		for {
			raw, err := ln.Accept()
			if err != nil {
				return
			}
			c := tls.Server(raw, serverCfg)
			err = c.Handshake()
			c.Close()
			served <- err
		}
	}()
	b.ReportAllocs()
	for b.Loop() {
		raw, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			b.Fatal(err)
		}
		c := tls.Client(raw, clientCfg)
		if err := c.Handshake(); err != nil {
			b.Fatal(err)
		}
		if err := <-served; err != nil {
			b.Fatal(err)
		}
		c.Close()
	}
}
