package newsnet

import (
	"bytes"
	"encoding/hex"
	"flag"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// wireGoldenFile pins the frames of every message type, so a change to the
// codec that must not change the format (a refactoring) is checked against
// bytes the old code wrote.
const wireGoldenFile = "wire.golden"

// wireSamples holds one message of every type with every field set, small
// enough to read as hex: the golden frames and the fuzz seeds.
func wireSamples() []Message {
	id := [16]byte{0x01, 0x93, 0x4f, 0x2a, 0xb0, 0x00, 0x70, 0x01, 0x80, 0x00, 0xde, 0xad, 0xbe, 0xef, 0x00, 0xff}
	return []Message{
		&JoinRequest{From: "10.0.0.1:7000", Reach: ReachReachable, Avoid: []ServantID{"10.0.0.7:7000"},
			Full: []ServantID{"10.0.0.8:7000"}},
		&JoinAccept{Lo: 0x0a0000000000, Hi: 0x0affffffffff, Path: []ServantID{"10.0.0.1:7000", "10.0.0.2:7000"}, Leaf: true},
		&JoinRedirect{To: "[2001:db8::1]:7000", Full: true},
		&JoinRefuse{Reason: "joiner is an ancestor"},
		&Siblings{IDs: []ServantID{"a:1", "b:2", "c:3"}},
		&PartitionInfo{Lo: 42, Hi: 1 << 47, Path: []ServantID{"news.example.com:7000"}},
		&Reset{},
		&RoutingInfo{Categories: CategorySet{"sales", "sales/emea", "tech"}},
		&Multicast{ID: id, Category: "hr/payroll/eu", Source: "hq", Count: 300,
			History:       []HistoryRun{{Short: 0x1234abcd, Len: 3}, {Short: 1<<32 - 1, Len: 200}},
			Lasts:         []LastCount{{Short: 3, Count: 7}, {Short: 9, Count: 299}},
			LastsComplete: true, Payload: []byte(`{"title":"hello"}`), Hops: 3,
			Audience: []netip.Prefix{netip.MustParsePrefix("10.1.4.0/22"), netip.MustParsePrefix("2001:db8:4::/48")}},
		&Ping{},
		&Recover{Source: "hq", Counts: []uint64{3, 4, 1 << 50}, CategoriesOnly: true, Search: true,
			Trail: []ServantID{"a:1", "b:2"}},
		&Recovered{Trail: []ServantID{"a:1"}, Source: "hq",
			Msg:        &Multicast{ID: id, Category: "it", Source: "hq", Count: 7, Payload: []byte("x")},
			Categories: []CountCategory{{Count: 5, Category: "hr"}}, Missing: []uint64{9, 1 << 33}},
		&CatchUp{Categories: CategorySet{"*", "it"}, Known: []SourceCount{{Source: "hq", Next: 12}},
			Since: 1764000000000000000, Trail: []ServantID{"a:1"}},
		&LatestHeader{Source: "hq", Category: "hr/payroll", Count: 1 << 40, History: []HistoryRun{{Short: 9, Len: 2}},
			Lasts: []LastCount{{Short: 1, Count: 2}, {Short: 2, Count: 5}}, LastsComplete: true},
		&CatchUpDone{Trail: []ServantID{"a:1", "b:2"}, More: true, Next: []SourceCount{{Source: "hq", Next: 257}}},
		&DirectRequest{Source: "hq", Categories: CategorySet{"it", "sales"}, Trail: []ServantID{"a:1", "b:2"}},
		&DirectAnswer{Trail: []ServantID{"a:1"}, Source: "hq", Publisher: "10.0.0.9:7400", Categories: CategorySet{"it"},
			Refused: "budget full: 4 direct links"},
		&DirectHello{From: "10.0.0.1:7000", Source: "hq", Categories: CategorySet{"it"}},
		&DirectCover{Source: "hq", Categories: CategorySet{"it", "sales"}, From: 1 << 20},
		reachSample(id),
		&DialBack{Nonce: 0x5eed5eed5eed5eed},
		&DialBackReply{Nonce: 0x5eed5eed5eed5eed, From: "10.0.0.7:7400"},
		&Reachability{Addr: "10.0.0.7:7400", Leaf: true},
		&StreamQuery{Categories: CategorySet{"hr", "it"}},
		&StreamHeads{Heads: []StreamHead{{Source: "hq", Category: "hr", Count: 300}, {Source: "10.0.0.9:7400", Category: "it", Count: 1 << 33}}},
		&CensusQuery{ID: 7, Target: "10.0.0.2:7400", Trail: []ServantID{"10.0.0.9:7400", "10.0.0.1:7400"}},
		&CensusAnswer{ID: 7, Target: "10.0.0.2:7400", Trail: []ServantID{"10.0.0.9:7400", "10.0.0.1:7400"},
			Census: reachSample(id).Network, At: 1764000000000000000},
		&BlobWant{Hash: [32]byte{1, 2, 3}, Root: [32]byte{4, 5, 6}, Size: 3*BlobChunkSize + 17, Source: "hq", Head: true, Missing: []byte{0b1010}},
		&BlobHead{Hash: [32]byte{1, 2, 3}, Chunks: [][32]byte{{7}, {8}, {9}, {10}}},
		&BlobChunk{Hash: [32]byte{1, 2, 3}, Index: 3, Data: []byte("the last seventeen")},
		&BlobNone{Hash: [32]byte{1, 2, 3}},
	}
}

// wireSampleOf returns the sample of the message type named name.
func wireSampleOf(name string) (Message, bool) {
	for _, m := range wireSamples() {
		if reflect.TypeOf(m).Elem().Name() == name {
			return m, true
		}
	}
	return nil, false
}

// wireKind is one message type as the golden test sees it.
type wireKind struct {
	typ  msgType
	name string
	zero Message
}

// wireKinds lists every registered message type in type-byte order.
func wireKinds() []wireKind {
	var ks []wireKind
	for _, k := range messages {
		ks = append(ks, wireKind{k.typ, k.name, k.new()})
	}
	return ks
}

// wireGolden renders the golden file: for every message type, in type-byte
// order, the frame of its sample and of its zero value.
func wireGolden(t *testing.T) []byte {
	t.Helper()
	var b bytes.Buffer
	fmt.Fprintf(&b, "# newsnet frames, ProtocolVersion %d: one line per message,\n", ProtocolVersion)
	fmt.Fprintf(&b, "# \"type-byte name frame-hex\"; a frame is a 4-byte big-endian length, the\n")
	fmt.Fprintf(&b, "# type byte and the payload (wire.go). Written by\n")
	fmt.Fprintf(&b, "# go test -run TestWireGoldenFile ./newsnet/ -args -update\n")
	for _, k := range wireKinds() {
		sample, ok := wireSampleOf(k.name)
		if !ok {
			t.Errorf("no sample of %s: add one to wireSamples", k.name)
			continue
		}
		for _, s := range []struct {
			name string
			m    Message
		}{{k.name, sample}, {k.name + "/zero", k.zero}} {
			frame, err := AppendFrame(nil, s.m)
			if err != nil {
				t.Fatalf("%s: %v", s.name, err)
			}
			fmt.Fprintf(&b, "%d %s %x\n", k.typ, s.name, frame)
		}
	}
	return b.Bytes()
}

// TestWireGoldenFile compares every message type's frames with
// testdata/wire.golden and decodes each golden frame back to its message,
// so neither side of the codec can drift. A changed line is a changed wire
// format: a deployed servant can no longer read that frame, so it needs a
// ProtocolVersion bump before -update.
func TestWireGoldenFile(t *testing.T) {
	path := filepath.Join("testdata", wireGoldenFile)
	got := wireGolden(t)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -run TestWireGoldenFile ./newsnet/ -args -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		gotKeys, gotLines := goldenLines(got)
		wantKeys, wantLines := goldenLines(want)
		changed := false
		for _, key := range wantKeys {
			switch g, ok := gotLines[key]; {
			case !ok:
				changed = true
				t.Errorf("%s: gone: %s (a type byte is never removed)", path, wantLines[key])
			case g != wantLines[key]:
				changed = true
				t.Errorf("%s: changed:\n got %s\nwant %s", path, g, wantLines[key])
			}
		}
		for _, key := range gotKeys {
			if _, ok := wantLines[key]; !ok {
				t.Errorf("%s: new: %s", path, gotLines[key])
			}
		}
		if changed {
			t.Fatalf("the wire format changed; bump ProtocolVersion if that is intended, then run go test -run TestWireGoldenFile ./newsnet/ -args -update")
		}
		t.Fatalf("a new message type: run go test -run TestWireGoldenFile ./newsnet/ -args -update")
	}

	samples := map[string]Message{}
	for _, k := range wireKinds() {
		samples[k.name+"/zero"] = k.zero
	}
	for _, m := range wireSamples() {
		samples[reflect.TypeOf(m).Elem().Name()] = m
	}
	for _, line := range strings.Split(strings.TrimSpace(string(want)), "\n") {
		if strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) != 3 {
			t.Fatalf("malformed golden line %q", line)
		}
		typ, err := strconv.Atoi(f[0])
		frame, err2 := hex.DecodeString(f[2])
		if err != nil || err2 != nil || len(frame) < 5 || int(frame[4]) != typ {
			t.Fatalf("malformed golden line %q", line)
		}
		m, err := ReadFrame(bytes.NewReader(frame), nil)
		if err != nil {
			t.Errorf("%s: decoding the golden frame: %v", f[1], err)
			continue
		}
		if !reflect.DeepEqual(decodedHistory(m), samples[f[1]]) {
			t.Errorf("%s: the golden frame decodes to %s, want %s", f[1], wireBrief(m), wireBrief(samples[f[1]]))
		}
	}
}

// goldenLines splits a golden file into its lines, keyed by message name
// (comments by their text), and returns the keys in file order.
func goldenLines(b []byte) (keys []string, lines map[string]string) {
	lines = map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		key := line
		if f := strings.Fields(line); len(f) == 3 && !strings.HasPrefix(line, "#") {
			key = f[1]
		}
		keys = append(keys, key)
		lines[key] = line
	}
	return keys, lines
}
