package newsnet

import "fmt"

// A received message keeps its history (JP3679935B2's past message ID
// information) in wire form, undecoded. Every hop of every item used to
// decode some hundred numbers into a fresh slice, about a tenth of a
// burst's CPU, while only a gap in a source's counts (or its first message)
// ever reads them, and relaying sends the same bytes on. So the decoder
// only checks the runs, exactly as strictly as decoding them, and keeps
// their bytes; HistoryRuns decodes them when asked, and the encoder writes
// them back unchanged (the encoding is canonical, so the bytes are those
// History would encode to).

// HistoryRuns returns m's history: History when set, else the runs m
// carried when it was received, decoded now (each call decodes again:
// a received message may be read by several goroutines).
func (m *Multicast) HistoryRuns() []HistoryRun { return runsOf(m.History, m.historyWire) }

// HistoryRuns is Multicast.HistoryRuns for an edge.
func (e *LatestHeader) HistoryRuns() []HistoryRun { return runsOf(e.History, e.historyWire) }

func runsOf(runs []HistoryRun, wire []byte) []HistoryRun {
	if runs != nil || wire == nil {
		return runs
	}
	d := decoder{b: wire}
	return d.history() // checked when received: cannot fail
}

// historyOf encodes a history given either way.
func (e *encoder) historyOf(runs []HistoryRun, wire []byte) {
	if runs == nil && wire != nil {
		e.b = append(e.b, wire...)
		return
	}
	e.history(runs)
}

// historySize estimates a history's encoded size for queue accounting.
func historySize(runs []HistoryRun, wire []byte) int {
	if runs == nil {
		return len(wire)
	}
	return 6 * len(runs)
}

// historyWire reads a history without decoding it and returns its encoding
// (the count and the runs), aliasing the decoder's input; nil for an empty
// one. It refuses exactly what history refuses, with history's errors.
func (d *decoder) historyWire() []byte {
	start := d.b
	n := d.count("history", MaxHistoryRuns)
	if d.err != nil || n == 0 {
		return nil
	}
	end := runsEnd(d.b, n)
	if end < 0 {
		d.b = start
		d.history() // the checked path, for its precise error
		if d.err == nil {
			d.fail(fmt.Errorf("history: the quick check refused runs that decode")) // unreachable: FuzzHistoryWireAgreesWithDecoding
		}
		return nil
	}
	d.b = d.b[end:]
	return start[:len(start)-len(d.b)]
}

// runsEnd returns the length of the n history runs at the start of b, or
// -1 unless all n are there and well formed: a short and a non-zero run
// length, each a minimal uvarint of at most 32 bits.
func runsEnd(b []byte, n int) int {
	i := 0
	for range n {
		k := uvarint32Len(b[i:])
		if k == 0 {
			return -1
		}
		i += k
		if i >= len(b) || b[i] == 0 { // a run of length 0
			return -1
		}
		if k = uvarint32Len(b[i:]); k == 0 {
			return -1
		}
		i += k
	}
	return i
}

// uvarint32Len is the length of the minimal uvarint of at most 32 bits at
// the start of b, or 0 when there is none (as uvarint32 decides).
func uvarint32Len(b []byte) int {
	for j := range min(len(b), 5) {
		c := b[j]
		if c >= 0x80 {
			continue
		}
		if j > 0 && c == 0 || j == 4 && c > 0x0f {
			return 0
		}
		return j + 1
	}
	return 0
}

// payloadAndHistory copies a received message's payload and history wire
// out of the frame in one allocation; nil for an empty one.
func payloadAndHistory(payload, history []byte) (p, h []byte) {
	if len(payload)+len(history) == 0 {
		return nil, nil
	}
	buf := make([]byte, len(payload)+len(history))
	copy(buf, payload)
	copy(buf[len(payload):], history)
	if len(payload) > 0 {
		p = buf[:len(payload):len(payload)]
	}
	if len(history) > 0 {
		h = buf[len(payload):]
	}
	return p, h
}
