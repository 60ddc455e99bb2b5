package trust

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
)

// A reader admitted by an admin's certificate makes identity and
// confirmation blobs any servant verifies with the definition alone; an
// admin or listed publisher needs no certificate. Blobs of keys the
// network never admitted (random keys, a certificate a member signed for
// itself, another network's certificate, a revoked key) do not count,
// whatever their signature; a blob is for one item and one kind; a
// version-1 blob is legacy, never verified.
func TestReachBlobsProveMembership(t *testing.T) {
	sn := signedExample(t)
	n := &sn.Network
	item := [16]byte{7}
	now := time.Unix(1_800_000_000, 0)
	member := newIdentity(t)
	cert := adminID.SignMemberCert(n.ID, member.Public, now)
	if err := n.VerifyMemberCert(cert); err != nil {
		t.Fatal(err)
	}
	back, err := ParseMemberCert(cert.String())
	if err != nil || n.VerifyMemberCert(back) != nil {
		t.Fatalf("certificate round trip: %v", err)
	}

	for _, ack := range []bool{false, true} {
		b := SignReachBlob(member, n.ID, cert, item, "Bo", ack)
		if len(b) > MaxReachBlob || b[0] >= 1 {
			t.Fatalf("blob of %d bytes starting %d", len(b), b[0])
		}
		r, err := n.VerifyReachBlob(item, b, ack)
		if err != nil || r.Name != "Bo" || !r.Key.Equal(member.Public) {
			t.Fatalf("ack %v: %v %v", ack, r, err)
		}
		if _, err := n.VerifyReachBlob([16]byte{8}, b, ack); !errors.Is(err, ErrBadReachBlob) {
			t.Errorf("ack %v: another item: %v", ack, err)
		}
		if _, err := n.VerifyReachBlob(item, b, !ack); !errors.Is(err, ErrBadReachBlob) {
			t.Errorf("ack %v: the other kind: %v", ack, err)
		}
		if _, err := n.VerifyReachBlob(item, SignReachBlob(newsroomID, n.ID, nil, item, "Newsroom", ack), ack); err != nil {
			t.Errorf("ack %v: a listed publisher without a certificate: %v", ack, err)
		}

		other := uuid.New()
		notAdmitted := map[string][]byte{
			"random key, no certificate": SignReachBlob(newIdentity(t), n.ID, nil, item, "X", ack),
			"self-signed certificate":    SignReachBlob(member, n.ID, member.SignMemberCert(n.ID, member.Public, now), item, "X", ack),
			"another network's":          SignReachBlob(member, n.ID, adminID.SignMemberCert(other, member.Public, now), item, "X", ack),
			"another key's certificate":  SignReachBlob(newIdentity(t), n.ID, cert, item, "X", ack),
			"revoked key":                SignReachBlob(revokedID, n.ID, adminID.SignMemberCert(n.ID, revokedID.Public, now), item, "X", ack),
		}
		for name, b := range notAdmitted {
			if _, err := n.VerifyReachBlob(item, b, ack); err == nil {
				t.Errorf("ack %v: %s verifies", ack, name)
			}
		}
		tampered := SignReachBlob(member, n.ID, cert, item, "Bo", ack)
		tampered[len(tampered)-1] = 'x'
		if _, err := n.VerifyReachBlob(item, tampered, ack); !errors.Is(err, ErrBadReachBlob) {
			t.Errorf("ack %v: renamed: %v", ack, err)
		}
	}
	long := SignReachBlob(member, n.ID, cert, item, strings.Repeat("é", 200), true)
	if r, err := n.VerifyReachBlob(item, long, true); err != nil || len(long) > MaxReachBlob || len(r.Name) > MaxReachName2 || MaxReachName2 != 77 {
		t.Errorf("a long name: %d bytes, name of %d: %v", len(long), len(r.Name), err)
	}
	if _, err := n.VerifyReachBlob(item, SignAck(member, item, "Bo"), true); !errors.Is(err, ErrLegacyReachBlob) {
		t.Errorf("version-1 confirmation: %v", err)
	}
	if _, err := n.VerifyReachBlob(item, ReaderIdentity(member, "Bo"), false); !errors.Is(err, ErrLegacyReachBlob) {
		t.Errorf("version-1 identity: %v", err)
	}
}
