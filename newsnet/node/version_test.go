package node

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"newsdesk/newsnet"
)

// A peer whose wire versions do not meet ours is refused at the hello,
// counted, and the log says both ranges and what to do; a peer that also
// speaks ours links at the highest version both speak, and the status
// shows its release.
func TestHelloVersionRanges(t *testing.T) {
	log := &testLog{}
	n := startNode(t, Config{Protocol: fastCore(), Logger: slog.New(slog.NewTextHandler(log, &slog.HandlerOptions{Level: slog.LevelDebug})), Release: "0.1.0"})

	old := dialRaw(t, n.Addr())
	old.SetDeadline(time.Now().Add(5 * time.Second))
	if err := newsnet.WriteHello(old, newsnet.Hello{Min: 2, Max: 3, Release: "0.0.9"}); err != nil {
		t.Fatal(err)
	}
	h, err := newsnet.ReadHello(old)
	if err != nil || h.Release != "0.1.0" || h.Max != newsnet.ProtocolVersion {
		t.Fatalf("node's hello %+v, %v", h, err)
	}
	if _, err := old.Read(make([]byte, 1)); !errors.Is(err, io.EOF) {
		t.Errorf("after the versions did not meet: read %v, want the link closed", err)
	}
	waitFor(t, 5*time.Second, "the refusal counted", func() error {
		if got := n.SecurityStats()[refusedVersion]; got != 1 {
			return fmt.Errorf("%d version refusals", got)
		}
		return nil
	})
	want := fmt.Sprintf("peer speaks protocol 2–3 (Newsdesk 0.0.9), this servant %v: update one of them", newsnet.OwnHello("0.1.0"))
	waitFor(t, 5*time.Second, "the refusal logged", func() error {
		log.mu.Lock()
		defer log.mu.Unlock()
		if !strings.Contains(log.buf.String(), want) {
			return fmt.Errorf("log lacks %q", want)
		}
		return nil
	})

	next := dialRaw(t, n.Addr())
	next.SetDeadline(time.Now().Add(5 * time.Second))
	if err := newsnet.WriteHello(next, newsnet.Hello{Min: newsnet.ProtocolVersion, Max: newsnet.ProtocolVersion + 1, Release: "0.2.0"}); err != nil {
		t.Fatal(err)
	}
	if _, err := newsnet.ReadHello(next); err != nil {
		t.Fatal(err)
	}
	next.join("127.0.0.1:9")
	st := n.Status()
	if len(st.Links) != 1 || st.Links[0].Version != newsnet.ProtocolVersion || st.Links[0].Release != "0.2.0" {
		t.Errorf("links %+v, want one at version %d with release 0.2.0", st.Links, newsnet.ProtocolVersion)
	}
}
