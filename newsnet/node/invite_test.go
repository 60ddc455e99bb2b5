package node

import (
	"crypto/tls"
	"io"
	"net"
	"testing"
	"time"

	"newsdesk/trust"
)

// A secured node with Security.Invitations hands a connection that asks
// for trust.InviteALPN to it, neither counted nor logged as a refusal,
// while links go on as before; a node without it refuses such a
// connection at TLS.
func TestInvitationConnectionsHandedOver(t *testing.T) {
	log := newTestLog(t)
	secrets := newSecretList([]byte("s3cret"))
	served := make(chan string, 1)
	sec := newSecurity(t, secrets)
	sec.Invitations = func(c *tls.Conn) {
		c.SetDeadline(time.Now().Add(5 * time.Second))
		b := make([]byte, 5)
		if _, err := io.ReadFull(c, b); err != nil {
			served <- "read: " + err.Error()
			return
		}
		c.Write([]byte("olleh"))
		served <- string(b)
	}
	v := startNode(t, Config{Protocol: fastCore(), Logger: log, Security: sec})
	j := startNode(t, Config{Protocol: fastCore(v.Addr()), Logger: log, Security: newSecurity(t, secrets)})
	waitFor(t, 10*time.Second, "joiner attached", func() error { return attachedTo(j, v) })

	joiner, err := trust.GenerateIdentity()
	if err != nil {
		t.Fatal(err)
	}
	conn, err := tls.DialWithDialer(&net.Dialer{Timeout: 5 * time.Second}, "tcp", string(v.Addr()), trust.TLSConfigFor(joiner, false, trust.InviteALPN))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := conn.Write([]byte("hello")); err != nil {
		t.Fatal(err)
	}
	answer := make([]byte, 5)
	if _, err := io.ReadFull(conn, answer); err != nil || string(answer) != "olleh" {
		t.Fatalf("answer %q, %v", answer, err)
	}
	if got := <-served; got != "hello" {
		t.Fatalf("handler got %q", got)
	}
	if st := v.SecurityStats(); len(st) != 0 {
		t.Errorf("refusals counted: %v", st)
	}
	if err := attachedTo(j, v); err != nil {
		t.Errorf("the link suffered: %v", err)
	}

	// j serves no invitations: the redemption fails at TLS.
	c2, err := tls.DialWithDialer(&net.Dialer{Timeout: 5 * time.Second}, "tcp", string(j.Addr()), trust.TLSConfigFor(joiner, false, trust.InviteALPN))
	if err == nil {
		c2.SetDeadline(time.Now().Add(5 * time.Second))
		_, err = c2.Read(make([]byte, 1))
		c2.Close()
	}
	if err == nil {
		t.Fatal("a node without Invitations accepted a redemption")
	}
	waitFor(t, 10*time.Second, "refused at TLS", statIs(j, refusedTLS, 1))
}
