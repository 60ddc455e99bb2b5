package trust

import (
	"bytes"
	"testing"
)

func TestLinkProof(t *testing.T) {
	secret := bytes.Repeat([]byte{7}, SecretSize)
	exporter := bytes.Repeat([]byte{9}, ExporterSize)
	proof := LinkProof(secret, exporter, RoleClient)
	if len(proof) != LinkProofSize {
		t.Fatalf("proof of %d bytes", len(proof))
	}
	if !CheckLinkProof(secret, exporter, RoleClient, proof) {
		t.Fatal("right secret refused")
	}
	flip := func(b []byte, i int) []byte { c := bytes.Clone(b); c[i] ^= 1; return c }
	for name, ok := range map[string]bool{
		"wrong secret":         CheckLinkProof(flip(secret, 0), exporter, RoleClient, proof),
		"wrong exporter":       CheckLinkProof(secret, flip(exporter, 31), RoleClient, proof),
		"wrong role (reflect)": CheckLinkProof(secret, exporter, RoleServer, proof),
		"tampered proof":       CheckLinkProof(secret, exporter, RoleClient, flip(proof, 5)),
		"short proof":          CheckLinkProof(secret, exporter, RoleClient, proof[:31]),
		"empty proof":          CheckLinkProof(secret, exporter, RoleClient, nil),
		"empty secret":         CheckLinkProof(nil, exporter, RoleClient, LinkProof(nil, exporter, RoleClient)),
		"empty exporter":       CheckLinkProof(secret, nil, RoleClient, LinkProof(secret, nil, RoleClient)),
	} {
		if ok {
			t.Errorf("%s: accepted", name)
		}
	}
	// Role and exporter cannot be traded: "client"+X differs from
	// "clien"+"t"+X.
	if bytes.Equal(LinkProof(secret, exporter, RoleClient), LinkProof(secret, append([]byte("t"), exporter...), "clien")) {
		t.Fatal("role/exporter boundary is ambiguous")
	}
}
