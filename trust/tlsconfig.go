package trust

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strings"
	"time"
)

// ALPN is the application protocol both ends announce. A TLS client of
// another protocol that offers ALPN is refused in the handshake; the
// verification below also refuses a peer that announces none.
const ALPN = "newsdesk/1"

// The TLS exporter that binds a link proof to its session (RFC 8446
// section 7.5).
const (
	exporterLabel = "newsdesk link proof"
	ExporterSize  = 32
)

// SelfSignedCertificate returns a fresh X.509 certificate for id's Ed25519
// key, signed by that key: subject CN is the key's text form, a random
// 128-bit serial, valid from an hour ago to 9999-12-31 (nobody checks the
// dates: peers are not verified against a CA; membership is the link proof,
// and possession of the key is proven by TLS's CertificateVerify).
func SelfSignedCertificate(id *Identity) (tls.Certificate, error) {
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 128))
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("certificate: serial: %w", err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: PublicKeyString(id.Public)},
		NotBefore:             time.Now().Add(-time.Hour).UTC().Truncate(time.Second),
		NotAfter:              time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC),
		KeyUsage:              x509.KeyUsageDigitalSignature,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
		BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, id.Public, id.private)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("certificate: %w", err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("certificate: %w", err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: id.private, Leaf: leaf}, nil
}

// certificate returns id's certificate, made once per Identity.
func (id *Identity) certificate() (*tls.Certificate, error) {
	id.certOnce.Do(func() { id.cert, id.certErr = SelfSignedCertificate(id) })
	if id.certErr != nil {
		return nil, id.certErr
	}
	return &id.cert, nil
}

// TLSConfig returns the TLS configuration of one end of a link: TLS 1.3
// only, id's self-signed certificate, each side requiring the other's
// certificate (the server with RequireAnyClientCert, the client with
// InsecureSkipVerify: there is no CA) and checking in VerifyConnection that
// it is a single certificate for an Ed25519 key and that ALPN is
// "newsdesk/1". Session tickets are off, so every link does a full
// handshake and a fresh exporter. The certificate is created on first use;
// if that fails, the handshake fails with the error.
//
// TLS here gives confidentiality and the peer's key; it does not decide
// membership. After the handshake both ends exchange LinkProof over the
// ExporterValue, and the caller refuses a peer whose proof does not check.
// Deadlines (a stalled handshake) are the caller's: set one on the conn.
// The caller may wrap VerifyConnection to refuse revoked keys (PeerKey).
func TLSConfig(id *Identity, server bool) *tls.Config { return TLSConfigFor(id, server, ALPN) }

// TLSConfigFor is TLSConfig for the application protocols protos (ALPN,
// InviteALPN) in place of ALPN alone: a server offering several takes the
// first the client announces, and the peer must agree on one of them.
func TLSConfigFor(id *Identity, server bool, protos ...string) *tls.Config {
	protos = slices.Clone(protos)
	cfg := &tls.Config{
		MinVersion:             tls.VersionTLS13,
		MaxVersion:             tls.VersionTLS13,
		NextProtos:             protos,
		SessionTicketsDisabled: true,
		VerifyConnection:       func(cs tls.ConnectionState) error { return verifyPeer(cs, protos) },
	}
	if server {
		cfg.ClientAuth = tls.RequireAnyClientCert
		cfg.GetCertificate = func(*tls.ClientHelloInfo) (*tls.Certificate, error) { return id.certificate() }
	} else {
		cfg.InsecureSkipVerify = true // no CA: see verifyPeer and LinkProof
		cfg.GetClientCertificate = func(*tls.CertificateRequestInfo) (*tls.Certificate, error) { return id.certificate() }
	}
	return cfg
}

func verifyPeer(cs tls.ConnectionState, protos []string) error {
	if cs.Version != tls.VersionTLS13 {
		return fmt.Errorf("newsdesk link: TLS version %#x, want TLS 1.3", cs.Version)
	}
	if !slices.Contains(protos, cs.NegotiatedProtocol) {
		return fmt.Errorf("newsdesk link: peer does not speak %s (ALPN %q)", strings.Join(protos, " or "), cs.NegotiatedProtocol)
	}
	_, err := PeerKey(cs)
	return err
}

// PeerKey returns the Ed25519 key of the peer's certificate: the peer's
// installation key, for logs, status and revocation checks.
func PeerKey(cs tls.ConnectionState) (ed25519.PublicKey, error) {
	if len(cs.PeerCertificates) != 1 {
		return nil, fmt.Errorf("newsdesk link: peer sent %d certificates, want 1", len(cs.PeerCertificates))
	}
	key, ok := cs.PeerCertificates[0].PublicKey.(ed25519.PublicKey)
	if !ok {
		return nil, fmt.Errorf("newsdesk link: peer certificate has a %T key, want Ed25519", cs.PeerCertificates[0].PublicKey)
	}
	return key, nil
}

// ExporterValue returns the session's keying material for the link proof:
// cs.ExportKeyingMaterial("newsdesk link proof", nil, 32). Both ends of one
// TLS 1.3 session get the same value; no other session does.
func ExporterValue(cs tls.ConnectionState) ([]byte, error) {
	if !cs.HandshakeComplete {
		return nil, errors.New("newsdesk link: exporter before the handshake completed")
	}
	if cs.Version != tls.VersionTLS13 {
		return nil, fmt.Errorf("newsdesk link: TLS version %#x, want TLS 1.3", cs.Version)
	}
	return cs.ExportKeyingMaterial(exporterLabel, nil, ExporterSize)
}
