package newsnet

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

func TestHelloRoundTrip(t *testing.T) {
	var w bytes.Buffer
	own := OwnHello("0.1.0")
	if err := WriteHello(&w, own); err != nil {
		t.Fatal(err)
	}
	want := "NDSK" + string([]byte{0, MinProtocolVersion, 0, ProtocolVersion, 5}) + "0.1.0"
	if got := w.String(); got != want {
		t.Fatalf("hello = %q, want %q", got, want)
	}
	h, err := ReadHello(&w)
	if err != nil || h != own {
		t.Fatalf("ReadHello = %+v, %v; want %+v", h, err, own)
	}
	if w.Len() != 0 {
		t.Errorf("ReadHello left %d bytes", w.Len())
	}
}

// The link runs at the highest version both speak; ranges that do not
// meet are refused with both ranges and what to do.
func TestNegotiateVersion(t *testing.T) {
	for _, tt := range []struct {
		own, peer Hello
		want      uint16
	}{
		{Hello{Min: 5, Max: 5}, Hello{Min: 5, Max: 5}, 5},
		{Hello{Min: 5, Max: 6}, Hello{Min: 5, Max: 5}, 5},
		{Hello{Min: 5, Max: 5}, Hello{Min: 5, Max: 6}, 5},
		{Hello{Min: 4, Max: 6}, Hello{Min: 5, Max: 7}, 6},
	} {
		if v, err := NegotiateVersion(tt.own, tt.peer); err != nil || v != tt.want {
			t.Errorf("%v with %v: %d, %v; want %d", tt.own, tt.peer, v, err, tt.want)
		}
	}
	_, err := NegotiateVersion(Hello{Min: 4, Max: 5, Release: "0.1.0"}, Hello{Min: 2, Max: 3, Release: "0.0.9"})
	if !errors.Is(err, errBadVersion) ||
		!strings.Contains(err.Error(), "peer speaks protocol 2–3 (Newsdesk 0.0.9), this servant protocol 4–5 (Newsdesk 0.1.0): update one of them") {
		t.Errorf("refusal = %v", err)
	}
}

func TestHelloRefusals(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want error
	}{
		{"GET / HTTP/1.1\r\n", errBadMagic},
		{"NDSX\x00\x05\x00\x05\x00", errBadMagic},
		{"NDSK\x00\x06\x00\x05\x00", errBadHello},                           // min above max
		{"NDSK\x00\x00\x00\x05\x00", errBadHello},                           // version 0
		{"NDSK\x00\x05\x00\x05\x21" + strings.Repeat("1", 33), errBadHello}, // release too long
		{"NDSK\x00\x05\x00\x05\x03a b", errBadHello},                        // not printable
		{"NDSK\x00\x05\x00\x05\x03" + "0.1", nil},                           // fine
	} {
		_, err := ReadHello(strings.NewReader(tt.in))
		if !errors.Is(err, tt.want) && !(tt.want == nil && err == nil) {
			t.Errorf("ReadHello(%q) = %v, want %v", tt.in, err, tt.want)
		}
	}
	full := "NDSK\x00\x05\x00\x05\x030.1"
	for i := range len(full) {
		if _, err := ReadHello(strings.NewReader(full[:i])); err == nil {
			t.Fatalf("ReadHello of %d bytes succeeded", i)
		}
	}
	if err := WriteHello(wireFailWriter{}, OwnHello("")); err == nil {
		t.Error("WriteHello ignored a write error")
	}
	if err := WriteHello(&bytes.Buffer{}, OwnHello("a b")); err == nil {
		t.Error("WriteHello wrote a release with a space")
	}
}

// FuzzReadHello: ReadHello never panics, and what it accepts writes back
// to the same bytes.
func FuzzReadHello(f *testing.F) {
	var b bytes.Buffer
	WriteHello(&b, OwnHello("0.1.0"))
	f.Add(b.Bytes())
	f.Add([]byte("NDSK\x00\x05\x00\x06\x00"))
	f.Fuzz(func(t *testing.T, in []byte) {
		r := bytes.NewReader(in)
		h, err := ReadHello(r)
		if err != nil {
			return
		}
		var out bytes.Buffer
		if err := WriteHello(&out, h); err != nil {
			t.Fatalf("an accepted hello does not write: %v", err)
		}
		if consumed := in[:len(in)-r.Len()]; !bytes.Equal(out.Bytes(), consumed) {
			t.Fatalf("hello %q wrote back as %q", consumed, out.Bytes())
		}
	})
}
