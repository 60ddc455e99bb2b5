package demo

import (
	"errors"
	"io"
	"net"
	"os"
	"testing"
	"time"
)

// A pipe's writes do not wait for the reader; a read waits for data, its
// deadline or the peer's Close, after which what was written is read and
// then EOF, and writes to the closed peer fail.
func TestPipe(t *testing.T) {
	a, b := pipe()
	if _, err := a.Write([]byte("hello")); err != nil { // nobody reads yet
		t.Fatal(err)
	}
	b.SetReadDeadline(time.Now().Add(10 * time.Millisecond))
	buf := make([]byte, 16)
	if n, err := b.Read(buf); err != nil || string(buf[:n]) != "hello" {
		t.Fatalf("Read = %q, %v", buf[:n], err)
	}
	_, err := b.Read(buf)
	if ne, ok := errors.AsType[net.Error](err); !ok || !ne.Timeout() || !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("Read past the deadline: %v", err)
	}
	b.SetReadDeadline(time.Time{})
	done := make(chan error, 1)
	go func() {
		n, err := b.Read(buf)
		if err == nil && string(buf[:n]) != "again" {
			err = errors.New("read " + string(buf[:n]))
		}
		done <- err
	}()
	a.Write([]byte("again"))
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	a.Write([]byte("last"))
	a.Close()
	if rest, err := io.ReadAll(b); err != nil || string(rest) != "last" {
		t.Fatalf("after Close: %q, %v", rest, err)
	}
	if _, err := b.Write([]byte("x")); !errors.Is(err, io.ErrClosedPipe) {
		t.Fatalf("Write to a closed peer: %v", err)
	}
}
