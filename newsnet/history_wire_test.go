package newsnet

import (
	"bytes"
	"slices"
	"testing"
)

// The quick check of a received history refuses exactly what decoding it
// refuses, with the same error, leaves the decoder at the same place, and
// keeps bytes that decode to the same runs.
func FuzzHistoryWireAgreesWithDecoding(f *testing.F) {
	var e encoder
	e.history([]HistoryRun{{Short: 7, Len: 1}, {Short: 1<<32 - 1, Len: 1<<32 - 1}, {Short: 0, Len: 300}})
	f.Add(append(e.b, 9, 9))
	f.Add([]byte{0})
	f.Add([]byte{1, 5, 0})                            // a run of length 0
	f.Add([]byte{1, 0x85, 0x00, 1})                   // a short not minimal
	f.Add([]byte{1, 0xff, 0xff, 0xff, 0xff, 0x1f, 1}) // a short over 32 bits
	f.Add([]byte{2, 1, 1})                            // truncated
	f.Fuzz(func(t *testing.T, in []byte) {
		slow, quick := decoder{b: in}, decoder{b: in}
		runs := slow.history()
		wire := quick.historyWire()
		switch {
		case (slow.err == nil) != (quick.err == nil):
			t.Fatalf("%x: decoding says %v, the quick check %v", in, slow.err, quick.err)
		case slow.err != nil:
			if slow.err.Error() != quick.err.Error() {
				t.Fatalf("%x: errors differ: %v vs %v", in, slow.err, quick.err)
			}
			return
		case len(slow.b) != len(quick.b):
			t.Fatalf("%x: decoding stops at %d, the quick check at %d", in, len(in)-len(slow.b), len(in)-len(quick.b))
		case !slices.Equal(runsOf(nil, wire), runs):
			t.Fatalf("%x: kept bytes decode to %v, want %v", in, runsOf(nil, wire), runs)
		}
		var enc encoder
		enc.historyOf(nil, wire)
		if !bytes.Equal(enc.b, in[:len(in)-len(quick.b)]) {
			t.Fatalf("%x: re-encoded as %x", in, enc.b)
		}
	})
}

// A received message relays its history unread and unchanged, and one
// payload allocation holds both: writing past the payload's end must not
// reach the history.
func TestReceivedHistoryRelaysUnchanged(t *testing.T) {
	sent := &Multicast{ID: [16]byte{1}, Category: "it", Source: "hq", Count: 9,
		History: []HistoryRun{{Short: ShortID("hr"), Len: 3}, {Short: ShortID("it"), Len: 5}}, Payload: []byte("news")}
	b, err := EncodeMessage(sent)
	if err != nil {
		t.Fatal(err)
	}
	got, err := DecodeMessage(b)
	if err != nil {
		t.Fatal(err)
	}
	m := got.(*Multicast)
	if m.History != nil || !slices.Equal(m.HistoryRuns(), sent.History) {
		t.Fatalf("received history %v / %v, want undecoded %v", m.History, m.HistoryRuns(), sent.History)
	}
	_ = append(m.Payload, "xxxxxxxx"...)
	if !slices.Equal(m.HistoryRuns(), sent.History) {
		t.Fatalf("appending to the payload changed the history: %v", m.HistoryRuns())
	}
	relayed := *m
	relayed.Hops++
	again, err := EncodeMessage(&relayed)
	if err != nil {
		t.Fatal(err)
	}
	sent.Hops++
	want, _ := EncodeMessage(sent)
	if !bytes.Equal(again, want) {
		t.Fatalf("relayed frame %x, want %x", again, want)
	}
	if e := edgeOf(m); !slices.Equal(e.HistoryRuns(), sent.History) {
		t.Fatalf("edge of a received message has history %v", e.HistoryRuns())
	}
}
