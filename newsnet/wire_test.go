package newsnet

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

// wireExamples holds at least one example of every message type (its
// sample), then empty lists and fields at their limits.
func wireExamples() []struct {
	name string
	m    Message
} {
	var samples []struct {
		name string
		m    Message
	}
	for _, m := range wireSamples() {
		samples = append(samples, struct {
			name string
			m    Message
		}{reflect.TypeOf(m).Elem().Name() + "/sample", m})
	}

	maxID := ServantID(strings.Repeat("h", MaxIDBytes))
	maxPath := make([]ServantID, MaxPathLen)
	for i := range maxPath {
		maxPath[i] = ServantID(fmt.Sprintf("10.0.%d.%d:7000", i/256, i%256))
	}
	manyCats := make([]string, MaxCategories)
	for i := range manyCats {
		manyCats[i] = fmt.Sprintf("cat/%05d", i)
	}
	payload64k := make([]byte, 64<<10)
	for i := range payload64k {
		payload64k[i] = byte(i * 7)
	}
	id := [16]byte{0x01, 0x93, 0x4f, 0x2a, 0xb0, 0x00, 0x70, 0x01, 0x80, 0x00, 0xde, 0xad, 0xbe, 0xef, 0x00, 0xff}

	return append(samples, []struct {
		name string
		m    Message
	}{
		{"JoinRequest", &JoinRequest{From: "10.0.0.1:7000"}},
		{"JoinRequest/empty", &JoinRequest{}},
		{"JoinRequest/maxID", &JoinRequest{From: maxID}},
		{"JoinRequest/reach", &JoinRequest{From: "10.0.0.1:7000", Reach: ReachUnreachable, Avoid: []ServantID{"10.0.0.2:7000", "10.0.0.3:7000"}}},
		{"JoinRequest/maxAvoid", &JoinRequest{From: "10.0.0.1:7000", Reach: ReachReachable, Avoid: maxPath[:MaxAvoid], Full: maxPath[:MaxAvoid]}},
		{"JoinAccept", &JoinAccept{Lo: 0x0a0000000000, Hi: 0x0affffffffff, Path: []ServantID{"10.0.0.1:7000", "10.0.0.2:7000"}}},
		{"JoinAccept/emptyPath", &JoinAccept{Lo: 1, Hi: 1}},
		{"JoinAccept/leaf", &JoinAccept{Lo: 1, Hi: 1, Path: []ServantID{"10.0.0.1:7000"}, Leaf: true}},
		{"JoinAccept/maxPath", &JoinAccept{Lo: 0, Hi: ^uint64(0), Path: maxPath}},
		{"JoinRedirect", &JoinRedirect{To: "[2001:db8::1]:7000"}},
		{"JoinRedirect/maxID", &JoinRedirect{To: maxID}},
		{"JoinRedirect/full", &JoinRedirect{To: "10.0.0.1:7000", Full: true}},
		{"DialBack", &DialBack{Nonce: 0x0123456789abcdef}},
		{"DialBack/zero", &DialBack{}},
		{"DialBackReply", &DialBackReply{Nonce: ^uint64(0), From: "10.0.0.5:7400"}},
		{"DialBackReply/zero", &DialBackReply{}},
		{"Reachability", &Reachability{Addr: "10.0.0.5:7400", Reachable: true}},
		{"Reachability/leaf", &Reachability{Addr: "10.0.0.5:7400", Leaf: true}},
		{"JoinRefuse", &JoinRefuse{Reason: "joiner is an ancestor"}},
		{"JoinRefuse/maxReason", &JoinRefuse{Reason: strings.Repeat("r", MaxReasonBytes)}},
		{"Siblings", &Siblings{IDs: []ServantID{"a:1", "b:2", "c:3"}}},
		{"Siblings/empty", &Siblings{}},
		{"Siblings/maxIDs", &Siblings{IDs: []ServantID{maxID, maxID}}},
		{"PartitionInfo", &PartitionInfo{Lo: 42, Hi: 1 << 47, Path: []ServantID{"news.example.com:7000"}}},
		{"PartitionInfo/emptyPath", &PartitionInfo{}},
		{"PartitionInfo/maxPath", &PartitionInfo{Lo: ^uint64(0), Hi: ^uint64(0), Path: maxPath}},
		{"Reset", &Reset{}},
		{"RoutingInfo", &RoutingInfo{Categories: NewCategorySet("sales/emea", "sales", "tech")}},
		{"RoutingInfo/empty", &RoutingInfo{}},
		{"RoutingInfo/maxCategory", &RoutingInfo{Categories: CategorySet{strings.Repeat("c", MaxCategoryBytes)}}},
		{"RoutingInfo/maxCategories", &RoutingInfo{Categories: NewCategorySet(manyCats...)}},
		{"Multicast", &Multicast{ID: id, Category: "sales/emea", Source: "hq", Payload: []byte(`{"title":"hello"}`)}},
		{"Multicast/empty", &Multicast{}},
		{"Multicast/maxFields", &Multicast{ID: id, Category: strings.Repeat("c", MaxCategoryBytes), Source: strings.Repeat("s", MaxIDBytes), Payload: []byte{0}}},
		{"Multicast/64KiB", &Multicast{ID: id, Category: "tech", Source: "10.0.0.9:7000", Payload: payload64k}},
		{"Multicast/maxFrame", maxFrameMulticast()},
		{"Multicast/history", &Multicast{ID: id, Category: "it", Source: "hq", Count: 1 << 40,
			History: []HistoryRun{{Short: ShortID("it"), Len: 3}, {Short: 1<<32 - 1, Len: 1<<32 - 1}}}},
		{"Ping", &Ping{}},
		{"Recover", &Recover{Source: "hq", Counts: []uint64{3, 4, 1 << 50}, Trail: []ServantID{"a:1", "b:2"}}},
		{"Recover/categories", &Recover{Source: "hq", Counts: []uint64{1}, CategoriesOnly: true}},
		{"Recovered/msg", &Recovered{Trail: []ServantID{"a:1"}, Source: "hq",
			Msg: &Multicast{ID: id, Category: "it", Source: "hq", Count: 7, Payload: []byte("x")}}},
		{"Recovered/categories", &Recovered{Source: "hq", Categories: []CountCategory{{Count: 5, Category: "hr"}}}},
		{"Recovered/missing", &Recovered{Source: "hq", Missing: []uint64{9}}},
		{"CatchUp", &CatchUp{Categories: NewCategorySet("it", "*"), Known: []SourceCount{{Source: "hq", Next: 12}},
			Since: 1764000000000000000, Trail: []ServantID{"a:1"}}},
		{"CatchUp/empty", &CatchUp{}},
		{"Multicast/chain", &Multicast{ID: id, Category: "hr/payroll/eu", Source: "hq", Count: 90,
			Lasts: []LastCount{{Short: 3, Count: 7}, {Short: 9, Count: 88}, {Short: 1<<32 - 1, Count: 89}}, LastsComplete: true}},
		{"LatestHeader", &LatestHeader{Source: "hq", Category: "hr/payroll", Count: 1 << 40, History: []HistoryRun{{Short: 9, Len: 2}},
			Lasts: []LastCount{{Short: 1, Count: 2}, {Short: 2, Count: 5}}, LastsComplete: true}},
		{"LatestHeader/empty", &LatestHeader{}},
		{"CatchUpDone", &CatchUpDone{Trail: []ServantID{"a:1", "b:2"}, More: true, Next: []SourceCount{{Source: "hq", Next: 257}}}},
		{"CatchUpDone/empty", &CatchUpDone{}},
	}...)
}

// maxFrameMulticast is a Multicast whose frame is exactly MaxFrameBytes:
// type byte, ID, two empty strings (one length byte each), a zero count, an
// empty history, empty lasts and their flag, a 3-byte payload
// length, the payload, a zero hop count and an empty audience.
func maxFrameMulticast() *Multicast {
	return &Multicast{Payload: bytes.Repeat([]byte{0xa5}, MaxFrameBytes-1-16-1-1-1-1-1-1-3-1-1)}
}

func TestWireExamplesCoverEveryType(t *testing.T) {
	seen := map[msgType]bool{}
	for _, ex := range wireExamples() {
		typ, ok := typeOf(ex.m)
		if !ok {
			t.Errorf("%s: %T is not registered", ex.name, ex.m)
		}
		seen[typ] = true
	}
	for _, k := range wireKinds() {
		if !seen[k.typ] {
			t.Errorf("no example of %s: add a sample to wireSamples", k.name)
		}
	}
	if kindAt(0) != nil {
		t.Errorf("type byte 0 must stay unused")
	}
}

func TestWireRoundTripFrame(t *testing.T) {
	buf := make([]byte, MaxFrameBytes)
	for _, ex := range wireExamples() {
		t.Run(ex.name, func(t *testing.T) {
			var w bytes.Buffer
			if err := WriteFrame(&w, ex.m); err != nil {
				t.Fatalf("WriteFrame: %v", err)
			}
			frame := bytes.Clone(w.Bytes())
			if n := binary.BigEndian.Uint32(frame); int(n) != len(frame)-4 || n < 1 || n > MaxFrameBytes {
				t.Fatalf("length prefix %d, frame %d bytes", n, len(frame))
			}
			for _, b := range [][]byte{nil, buf} {
				got, err := ReadFrame(bytes.NewReader(frame), b)
				if err != nil {
					t.Fatalf("ReadFrame (buf cap %d): %v", cap(b), err)
				}
				if !reflect.DeepEqual(decodedHistory(got), ex.m) {
					t.Fatalf("ReadFrame (buf cap %d) = %s, want %s", cap(b), wireBrief(got), wireBrief(ex.m))
				}
			}
			app, err := AppendFrame([]byte("prefix"), ex.m)
			if err != nil || !bytes.Equal(app, append([]byte("prefix"), frame...)) {
				t.Fatalf("AppendFrame differs from WriteFrame (err %v)", err)
			}
		})
	}
}

func TestWireRoundTripEncodeDecode(t *testing.T) {
	for _, ex := range wireExamples() {
		t.Run(ex.name, func(t *testing.T) {
			enc, err := EncodeMessage(ex.m)
			if err != nil {
				t.Fatalf("EncodeMessage: %v", err)
			}
			if typ, _ := typeOf(ex.m); msgType(enc[0]) != typ {
				t.Fatalf("type byte %d, want %d", enc[0], typ)
			}
			got, err := DecodeMessage(enc)
			if err != nil {
				t.Fatalf("DecodeMessage: %v", err)
			}
			if !reflect.DeepEqual(decodedHistory(got), ex.m) {
				t.Fatalf("DecodeMessage = %s, want %s", wireBrief(got), wireBrief(ex.m))
			}
			again, err := EncodeMessage(got)
			if err != nil || !bytes.Equal(again, enc) {
				t.Fatalf("re-encoding differs (err %v)", err)
			}
		})
	}
}

// TestWireGolden pins the byte layout, so a format change cannot slip in
// through a symmetric change to encoder and decoder.
func TestWireGolden(t *testing.T) {
	tests := []struct {
		m    Message
		want string // hex of the whole frame
	}{
		{&JoinRequest{From: "a:1"}, "00000008" + "01" + "03" + "613a31" + "00" + "00" + "00"},
		{&JoinRequest{From: "a:1", Reach: ReachUnreachable, Avoid: []ServantID{"b"}, Full: []ServantID{"c"}}, "0000000c" + "01" + "03" + "613a31" + "02" + "01" + "0162" + "01" + "0163"},
		{&JoinAccept{Lo: 1, Hi: 300, Path: []ServantID{"a:1"}, Leaf: true}, "0000000a" + "02" + "01" + "ac02" + "01" + "03613a31" + "01"},
		{&JoinRedirect{To: ""}, "00000003" + "03" + "00" + "00"},
		{&DialBack{Nonce: 300}, "00000003" + "15" + "ac02"},
		{&DialBackReply{Nonce: 1, From: "a"}, "00000004" + "16" + "01" + "0161"},
		{&Reachability{Addr: "a", Reachable: true, Leaf: true}, "00000005" + "17" + "0161" + "01" + "01"},
		{&JoinRefuse{Reason: "no"}, "00000004" + "04" + "02" + "6e6f"},
		{&Siblings{IDs: []ServantID{"a", "b"}}, "00000006" + "05" + "02" + "0161" + "0162"},
		{&PartitionInfo{Lo: 0, Hi: 127}, "00000004" + "06" + "00" + "7f" + "00"},
		{&Reset{}, "00000001" + "07"},
		{&RoutingInfo{Categories: CategorySet{"a", "b/c"}}, "00000008" + "08" + "02" + "0161" + "03622f63"},
		{&Multicast{ID: [16]byte{15: 1}, Category: "c", Source: "s", Count: 2,
			History: []HistoryRun{{Short: 5, Len: 2}}, Lasts: []LastCount{{Short: 3, Count: 1}}, LastsComplete: true,
			Payload: []byte{9}, Hops: 2}, "00000021" + "09" +
			"00000000000000000000000000000001" + "0163" + "0173" + "02" + "01" + "0502" + "010301" + "01" + "0109" + "02" + "00"},
		{&Multicast{Category: "c", Source: "s", Audience: []netip.Prefix{netip.MustParsePrefix("10.1.4.0/22")}}, "00000021" + "09" +
			"00000000000000000000000000000000" + "0163" + "0173" + "00" + "00" + "00" + "00" + "00" + "00" + "01" + "0416" + "0a0104"},
		{&LatestHeader{Source: "s", Category: "c", Count: 2}, "00000009" + "0e" + "0173" + "0163" + "02" + "00" + "00" + "00"},
		{&CatchUpDone{Trail: []ServantID{"a"}, More: true, Next: []SourceCount{{Source: "s", Next: 3}}}, "00000009" + "0f" + "010161" + "01" + "01" + "0173" + "03"},
		{&Recover{Source: "s", Counts: []uint64{3}, CategoriesOnly: true, Search: true, Trail: []ServantID{"a"}}, "0000000a" + "0b" +
			"0173" + "0103" + "01" + "01" + "010161"},
		{&Ping{}, "00000001" + "0a"},
	}
	for _, tt := range tests {
		got, err := AppendFrame(nil, tt.m)
		if err != nil {
			t.Errorf("%s: %v", wireBrief(tt.m), err)
			continue
		}
		if fmt.Sprintf("%x", got) != tt.want {
			t.Errorf("%s:\n got %x\nwant %s", wireBrief(tt.m), got, tt.want)
		}
	}
}

func TestWireEncodeLimits(t *testing.T) {
	long := func(n int) string { return strings.Repeat("x", n) }
	tests := []struct {
		name string
		m    Message
		want error
	}{
		{"long from", &JoinRequest{From: ServantID(long(MaxIDBytes + 1))}, errTooLong},
		{"long to", &JoinRedirect{To: ServantID(long(MaxIDBytes + 1))}, errTooLong},
		{"long reason", &JoinRefuse{Reason: long(MaxReasonBytes + 1)}, errTooLong},
		{"long path element", &JoinAccept{Path: []ServantID{"a:1", ServantID(long(MaxIDBytes + 1))}}, errTooLong},
		{"long path", &PartitionInfo{Path: make([]ServantID, MaxPathLen+1)}, errTooMany},
		{"many siblings", &Siblings{IDs: make([]ServantID, MaxPathLen+1)}, errTooMany},
		{"many categories", &RoutingInfo{Categories: make(CategorySet, MaxCategories+1)}, errTooMany},
		{"long category in set", &RoutingInfo{Categories: CategorySet{long(MaxCategoryBytes + 1)}}, errTooLong},
		{"unsorted categories", &RoutingInfo{Categories: CategorySet{"b", "a"}}, errUnsortedCatSet},
		{"duplicate categories", &RoutingInfo{Categories: CategorySet{"a", "a"}}, errDuplicateCatSet},
		{"empty category in set", &RoutingInfo{Categories: CategorySet{"", "a"}}, errEmptyCategory},
		{"long category", &Multicast{Category: long(MaxCategoryBytes + 1)}, errTooLong},
		{"long source", &Multicast{Source: long(MaxIDBytes + 1)}, errTooLong},
		{"frame one byte too large", &Multicast{Payload: make([]byte, len(maxFrameMulticast().Payload)+1)}, errFrameTooLarge},
		{"huge payload", &Multicast{Payload: make([]byte, 4*MaxFrameBytes)}, errFrameTooLarge},
		{"nil interface", nil, errNilMessage},
		{"nil pointer", (*Multicast)(nil), errNilMessage},
		{"nil Reset", (*Reset)(nil), errNilMessage},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := EncodeMessage(tt.m); !errors.Is(err, tt.want) {
				t.Errorf("EncodeMessage error = %v, want %v", err, tt.want)
			}
			dst := []byte("keep")
			out, err := AppendFrame(dst, tt.m)
			if !errors.Is(err, tt.want) {
				t.Errorf("AppendFrame error = %v, want %v", err, tt.want)
			}
			if string(out) != "keep" {
				t.Errorf("AppendFrame left %q after an error, want dst unchanged", out)
			}
			var w bytes.Buffer
			if err := WriteFrame(&w, tt.m); !errors.Is(err, tt.want) || w.Len() != 0 {
				t.Errorf("WriteFrame error = %v after writing %d bytes, want %v and nothing written", err, w.Len(), tt.want)
			}
		})
	}
}

func TestWireErrorsNameTheMessageType(t *testing.T) {
	_, err := EncodeMessage(&JoinRefuse{Reason: strings.Repeat("x", MaxReasonBytes+1)})
	if err == nil || !strings.Contains(err.Error(), "JoinRefuse") || !strings.Contains(err.Error(), "reason") {
		t.Errorf("encode error %q should name the type and the field", err)
	}
	_, err = DecodeMessage(wireCat(&Multicast{}, []byte{1, 2}))
	if err == nil || !strings.Contains(err.Error(), "Multicast") || !strings.Contains(err.Error(), "id") {
		t.Errorf("decode error %q should name the type and the field", err)
	}
}

// wireUv returns the minimal uvarint encoding of v.
func wireUv(v uint64) []byte { return binary.AppendUvarint(nil, v) }

// wireCat concatenates byte slices and strings into one message encoding;
// a Message stands for its type byte.
func wireCat(parts ...any) []byte {
	var b []byte
	for _, p := range parts {
		switch p := p.(type) {
		case []byte:
			b = append(b, p...)
		case string:
			b = append(b, p...)
		case Message:
			t, ok := typeOf(p)
			if !ok {
				panic(fmt.Sprintf("wireCat: %T is not registered", p))
			}
			b = append(b, byte(t))
		default:
			panic(fmt.Sprintf("wireCat: %T", p))
		}
	}
	return b
}

func TestDecodeMessageRejects(t *testing.T) {
	str := func(s string) []byte { return wireCat(wireUv(uint64(len(s))), s) }
	long := func(n int) []byte { return str(strings.Repeat("x", n)) }
	var id16 [16]byte
	tests := []struct {
		name  string
		frame []byte
		want  error
	}{
		{"empty", nil, errEmptyFrame},
		{"unknown type 0", []byte{0}, errUnknownType},
		{"unknown type 200", []byte{200, 1, 2, 3}, errUnknownType},
		{"too large", make([]byte, MaxFrameBytes+1), errFrameTooLarge},
		{"trailing after Ping", wireCat(&Ping{}, "x"), errTrailingBytes},
		{"trailing after Reset", wireCat(&Reset{}, []byte{0}), errTrailingBytes},
		{"trailing after JoinRequest", wireCat(&JoinRequest{}, str("a:1"), wireUv(0), wireUv(0), wireUv(0), "junk"), errTrailingBytes},
		{"reach out of range", wireCat(&JoinRequest{}, str("a:1"), wireUv(3), wireUv(0)), errBadReach},
		{"too many avoided", wireCat(&JoinRequest{}, str("a:1"), wireUv(0), wireUv(MaxAvoid+1)), errTooMany},
		{"too many full", wireCat(&JoinRequest{}, str("a:1"), wireUv(0), wireUv(0), wireUv(MaxAvoid+1)), errTooMany},
		{"leaf flag not 0 or 1", wireCat(&JoinAccept{}, wireUv(1), wireUv(1), wireUv(0), wireUv(2)), errBadFlag},
		{"trailing after Multicast", wireCat(&Multicast{}, id16[:], str("c"), str("s"), []byte{1, 0, 0, 0}, str("p"), []byte{0, 0, 0}), errTrailingBytes},
		{"lasts not ascending", wireCat(&Multicast{}, id16[:], str("c"), str("s"), []byte{9, 0, 2, 5, 1, 5, 2, 0}, str("p")), errUnsortedLasts},
		{"last not before the message", wireCat(&Multicast{}, id16[:], str("c"), str("s"), []byte{2, 0, 1, 5, 2, 0}, str("p")), errBadLast},
		{"last at the message itself", wireCat(&LatestHeader{}, str("s"), str("c"), []byte{2, 0, 1, 5, 0, 0}), errBadLast},
		{"lasts flag not 0 or 1", wireCat(&Multicast{}, id16[:], str("c"), str("s"), []byte{1, 0, 0, 2}, str("p")), errBadFlag},
		{"too many lasts", wireCat(&LatestHeader{}, str("s"), str("c"), []byte{1, 0}, wireUv(MaxLasts+1)), errTooMany},
		{"CatchUpDone more flag 2", wireCat(&CatchUpDone{}, []byte{0, 2, 0}), errBadFlag},
		{"history run of 0", wireCat(&Multicast{}, id16[:], str("c"), str("s"), []byte{1, 1, 5, 0}, str("p")), errEmptyRun},
		{"history short over 32 bits", wireCat(&Multicast{}, id16[:], str("c"), str("s"), []byte{1, 1}, wireUv(1<<32), []byte{1}, str("p")), errTooLong},
		{"flag 2", wireCat(&Recover{}, str("s"), []byte{0, 2, 0}), errBadFlag},
		{"too many counts", wireCat(&Recover{}, str("s"), wireUv(MaxCounts+1)), errTooMany},
		{"long ID", wireCat(&JoinRequest{}, long(MaxIDBytes+1)), errTooLong},
		{"long ID claimed, not present", wireCat(&JoinRedirect{}, wireUv(1<<40)), errTooLong},
		{"long reason", wireCat(&JoinRefuse{}, long(MaxReasonBytes+1)), errTooLong},
		{"long path element", wireCat(&JoinAccept{}, wireUv(1), wireUv(2), wireUv(1), long(MaxIDBytes+1)), errTooLong},
		{"long category", wireCat(&Multicast{}, id16[:], long(MaxCategoryBytes+1), str("s"), str("")), errTooLong},
		{"long source", wireCat(&Multicast{}, id16[:], str("c"), long(MaxIDBytes+1), str("")), errTooLong},
		{"too many path elements", wireCat(&PartitionInfo{}, wireUv(0), wireUv(0), wireUv(MaxPathLen+1), bytes.Repeat([]byte{0}, MaxPathLen+1)), errTooMany},
		{"too many siblings", wireCat(&Siblings{}, wireUv(MaxPathLen+1), bytes.Repeat([]byte{0}, MaxPathLen+1)), errTooMany},
		{"too many categories", wireCat(&RoutingInfo{}, wireUv(MaxCategories+1)), errTooMany},
		{"huge category count", wireCat(&RoutingInfo{}, wireUv(1<<62)), errTooMany},
		{"count exceeds bytes left", wireCat(&Siblings{}, wireUv(100), str("a"), str("b")), errTruncated},
		{"category count exceeds bytes left", wireCat(&RoutingInfo{}, wireUv(MaxCategories), str("a")), errTruncated},
		{"unsorted categories", wireCat(&RoutingInfo{}, wireUv(2), str("b"), str("a")), errUnsortedCatSet},
		{"duplicate categories", wireCat(&RoutingInfo{}, wireUv(2), str("a"), str("a")), errDuplicateCatSet},
		{"empty category", wireCat(&RoutingInfo{}, wireUv(1), str("")), errEmptyCategory},
		{"payload longer than frame", wireCat(&Multicast{}, id16[:], str("c"), str("s"), wireUv(10), "abc"), errTruncated},
		{"payload length past the limit", wireCat(&Multicast{}, id16[:], str("c"), str("s"), []byte{1, 0, 0, 0}, wireUv(1<<40)), errTooLong},
		{"short ID array", wireCat(&Multicast{}, id16[:15]), errTruncated},
		{"non-minimal uvarint", wireCat(&PartitionInfo{}, []byte{0x80, 0x00}, wireUv(0), wireUv(0)), errNonCanonical},
		{"non-minimal length", wireCat(&JoinRequest{}, []byte{0x81, 0x00}, "a"), errNonCanonical},
		{"uvarint overflow", wireCat(&JoinAccept{}, bytes.Repeat([]byte{0xff}, 10), []byte{1}, wireUv(0), wireUv(0)), errBadVarint},
		{"uvarint too long", wireCat(&JoinAccept{}, bytes.Repeat([]byte{0x80}, 11), []byte{1}), errBadVarint},
		{"uvarint cut", wireCat(&JoinAccept{}, []byte{0x80}), errTruncated},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := DecodeMessage(tt.frame)
			if !errors.Is(err, tt.want) {
				t.Fatalf("DecodeMessage = %v, %v; want error %v", wireBrief(m), err, tt.want)
			}
			if m != nil {
				t.Errorf("DecodeMessage returned %s with an error", wireBrief(m))
			}
		})
	}
}

func TestDecodeMessageUnknownTypeText(t *testing.T) {
	_, err := DecodeMessage([]byte{77})
	if err == nil || !strings.Contains(err.Error(), "unknown message type 77") {
		t.Errorf("err = %v, want it to say \"unknown message type 77\"", err)
	}
}

func TestDecodeMessageLargestValues(t *testing.T) {
	m, err := DecodeMessage(wireCat(&PartitionInfo{}, wireUv(^uint64(0)), wireUv(^uint64(0)-1), wireUv(0)))
	if err != nil {
		t.Fatal(err)
	}
	if want := (&PartitionInfo{Lo: ^uint64(0), Hi: ^uint64(0) - 1}); !reflect.DeepEqual(m, want) {
		t.Errorf("got %s, want %s", wireBrief(m), wireBrief(want))
	}
}

// TestWireTruncatedFrames cuts every example's frame at every byte offset:
// each prefix must be an error, never a panic and never a shorter message.
// DecodeMessage sees every prefix of every frame. ReadFrame copies the prefix
// each time, which is quadratic, so inside frames over 8 KiB it samples the
// middle (the body of one long payload or list) and covers the first and
// last 4 KiB byte by byte.
func TestWireTruncatedFrames(t *testing.T) {
	for _, ex := range wireExamples() {
		frame, err := AppendFrame(nil, ex.m)
		if err != nil {
			t.Fatalf("%s: %v", ex.name, err)
		}
		t.Run(ex.name, func(t *testing.T) {
			t.Parallel()
			buf := make([]byte, MaxFrameBytes)
			for i := 0; i < len(frame); i = nextCut(i, len(frame)) {
				m, err := ReadFrame(bytes.NewReader(frame[:i]), buf)
				switch {
				case err == nil:
					t.Fatalf("ReadFrame of %d/%d bytes = %s, want an error", i, len(frame), wireBrief(m))
				case i == 0 && err != io.EOF:
					t.Fatalf("ReadFrame of nothing = %v, want io.EOF", err)
				case i > 0 && !errors.Is(err, io.ErrUnexpectedEOF):
					t.Fatalf("ReadFrame of %d/%d bytes = %v, want io.ErrUnexpectedEOF", i, len(frame), err)
				}
			}
			msg := frame[4:]
			for i := range len(msg) {
				if m, err := DecodeMessage(msg[:i]); err == nil {
					t.Fatalf("DecodeMessage of %d/%d bytes = %s, want an error", i, len(msg), wireBrief(m))
				}
			}
		})
	}
}

// nextCut returns the truncation point after i in a frame of n bytes.
func nextCut(i, n int) int {
	const edge, stride = 4 << 10, 509
	if n <= 2*edge || i < edge || i >= n-edge {
		return i + 1
	}
	return min(i+stride, n-edge)
}

func TestReadFrameLengthLimits(t *testing.T) {
	tests := []struct {
		name string
		n    uint32
		want error
	}{
		{"zero", 0, errEmptyFrame},
		{"one over", MaxFrameBytes + 1, errFrameTooLarge},
		{"1 GiB", 1 << 30, errFrameTooLarge},
		{"4 GiB", ^uint32(0), errFrameTooLarge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &wireHeaderOnly{hdr: binary.BigEndian.AppendUint32(nil, tt.n)}
			if _, err := ReadFrame(r, nil); !errors.Is(err, tt.want) {
				t.Fatalf("ReadFrame error = %v, want %v", err, tt.want)
			}
			if r.bodyReads != 0 {
				t.Errorf("ReadFrame read %d times past the header of a bad length", r.bodyReads)
			}
		})
	}
}

// TestReadFrameHugeLengthDoesNotAllocate: a length header claiming 1 GiB is
// refused immediately, before any buffer of that size exists.
func TestReadFrameHugeLengthDoesNotAllocate(t *testing.T) {
	hdr := binary.BigEndian.AppendUint32(nil, 1<<30)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	// AllocsPerRun runs with GOMAXPROCS 1, which keeps other goroutines'
	// allocations out of the measurement.
	testing.AllocsPerRun(100, func() {
		if _, err := ReadFrame(&wireHeaderOnly{hdr: hdr}, nil); !errors.Is(err, errFrameTooLarge) {
			t.Fatalf("ReadFrame error = %v, want errFrameTooLarge", err)
		}
	})
	runtime.ReadMemStats(&after)
	// A single 1 GiB buffer would blow far past this bound; the process's
	// other allocations (the test runner, the GC) stay far below it.
	if got := after.TotalAlloc - before.TotalAlloc; got > 64<<20 {
		t.Errorf("100 refused 1 GiB headers allocated %d bytes", got)
	}
}

// wireHeaderOnly yields a 4-byte header, then fails every later read: a peer that
// announced a frame and never sent it.
type wireHeaderOnly struct {
	hdr       []byte
	bodyReads int
}

func (r *wireHeaderOnly) Read(p []byte) (int, error) {
	if len(r.hdr) > 0 {
		n := copy(p, r.hdr)
		r.hdr = r.hdr[n:]
		return n, nil
	}
	r.bodyReads++
	return 0, errors.New("wireHeaderOnly: no body")
}

// TestReadFrameDoesNotAliasBuf: after ReadFrame returns, the caller may
// overwrite buf with the next frame.
func TestReadFrameDoesNotAliasBuf(t *testing.T) {
	for _, ex := range wireExamples() {
		frame, err := AppendFrame(nil, ex.m)
		if err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, len(frame))
		got, err := ReadFrame(bytes.NewReader(frame), buf)
		if err != nil {
			t.Fatalf("%s: %v", ex.name, err)
		}
		for i := range buf {
			buf[i] = 0xee
		}
		if !reflect.DeepEqual(decodedHistory(got), ex.m) {
			t.Fatalf("%s: message changed when buf was overwritten", ex.name)
		}
	}
}

func TestReadFrameSequence(t *testing.T) {
	var w bytes.Buffer
	exs := wireExamples()
	for _, ex := range exs {
		if err := WriteFrame(&w, ex.m); err != nil {
			t.Fatal(err)
		}
	}
	buf := make([]byte, 64)
	for _, ex := range exs {
		got, err := ReadFrame(&w, buf)
		if err != nil {
			t.Fatalf("%s: %v", ex.name, err)
		}
		if !reflect.DeepEqual(decodedHistory(got), ex.m) {
			t.Fatalf("%s: got %s", ex.name, wireBrief(got))
		}
	}
	if _, err := ReadFrame(&w, buf); err != io.EOF {
		t.Errorf("ReadFrame at the end = %v, want io.EOF", err)
	}
}

func TestFrameWriteError(t *testing.T) {
	if err := WriteFrame(wireFailWriter{}, &Ping{}); err == nil {
		t.Error("WriteFrame ignored a write error")
	}
}

type wireFailWriter struct{}

func (wireFailWriter) Write([]byte) (int, error) { return 0, errors.New("broken pipe") }

// FuzzDecodeMessage: DecodeMessage never panics, and whatever it accepts is
// canonical: it re-encodes to the same bytes and decodes to an equal
// message. The seeds start from the registry, the sample and the zero value
// of every message type, so a message is fuzzed as soon as it is
// registered.
func FuzzDecodeMessage(f *testing.F) {
	for _, k := range wireKinds() {
		seeds := []Message{k.zero}
		if m, ok := wireSampleOf(k.name); ok {
			seeds = append(seeds, m)
		}
		for _, m := range seeds {
			enc, err := EncodeMessage(m)
			if err != nil {
				f.Fatalf("%s: %v", k.name, err)
			}
			f.Add(enc)
		}
	}
	for _, ex := range wireExamples() {
		enc, err := EncodeMessage(ex.m)
		if err != nil {
			f.Fatalf("%s: %v", ex.name, err)
		}
		if len(enc) <= 1<<10 { // large seeds slow the mutator and minimizer down
			f.Add(enc)
		}
	}
	f.Add([]byte{})
	f.Add([]byte{0})
	f.Add([]byte{255})
	f.Add(wireCat(&RoutingInfo{}, wireUv(2), wireUv(1), "b", wireUv(1), "a"))
	f.Add(wireCat(&PartitionInfo{}, []byte{0x80, 0x00}, wireUv(0), wireUv(0)))
	f.Fuzz(func(t *testing.T, in []byte) {
		m, err := DecodeMessage(in)
		if err != nil {
			if m != nil {
				t.Fatalf("DecodeMessage returned %s and error %v", wireBrief(m), err)
			}
			return
		}
		// Encoded from decoded runs, not the kept history bytes: an
		// accepted non-canonical history would show.
		enc, err := EncodeMessage(decodedHistory(m))
		if err != nil {
			t.Fatalf("decoded %s but cannot encode it: %v", wireBrief(m), err)
		}
		if !bytes.Equal(enc, in) {
			t.Fatalf("non-canonical input accepted:\n  in %x\n enc %x", in, enc)
		}
		m2, err := DecodeMessage(enc)
		if err != nil {
			t.Fatalf("cannot decode own encoding %x: %v", enc, err)
		}
		if !reflect.DeepEqual(m, m2) {
			t.Fatalf("round trip changed the message: %s vs %s", wireBrief(m), wireBrief(m2))
		}
		enc2, err := EncodeMessage(m2)
		if err != nil || !bytes.Equal(enc2, enc) {
			t.Fatalf("re-encoding differs (err %v)", err)
		}
		frame, err := AppendFrame(nil, m)
		if err != nil {
			t.Fatalf("AppendFrame: %v", err)
		}
		m3, err := ReadFrame(bytes.NewReader(frame), nil)
		if err != nil || !reflect.DeepEqual(decodedHistory(m3), decodedHistory(m)) {
			t.Fatalf("frame round trip: %s, %v", wireBrief(m3), err)
		}
	})
}

func BenchmarkEncodeDecodeMulticast(b *testing.B) {
	m := &Multicast{
		ID:       [16]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16},
		Category: "sales/emea",
		Source:   "10.0.0.1:7000",
		Payload:  bytes.Repeat([]byte("n"), 1<<10),
	}
	buf := make([]byte, 0, 2<<10)
	b.ReportAllocs()
	b.SetBytes(int64(len(m.Payload)))
	for b.Loop() {
		var err error
		buf, err = AppendFrame(buf[:0], m)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := DecodeMessage(buf[4:]); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEncodeDecodeSmall is a frame whose fields cost little, so the
// per-frame work (finding the codec, checking the message, the type byte)
// shows.
func BenchmarkEncodeDecodeSmall(b *testing.B) {
	m := &JoinRequest{From: "10.0.0.1:7000"}
	buf := make([]byte, 0, 64)
	b.ReportAllocs()
	for b.Loop() {
		var err error
		buf, err = AppendFrame(buf[:0], m)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := DecodeMessage(buf[4:]); err != nil {
			b.Fatal(err)
		}
	}
}

// wireBrief prints a message for test failures without dumping large payloads.
func wireBrief(m Message) string {
	if m == nil {
		return "<nil>"
	}
	s := fmt.Sprintf("%+v", m)
	if len(s) > 200 {
		s = s[:200] + fmt.Sprintf("... (%d chars)", len(s))
	}
	return fmt.Sprintf("%T%s", m, strings.TrimPrefix(s, "&"))
}

// BenchmarkDecodeMulticastPaced decodes a multicast as a paced stream's
// relays see it: 1 KiB of payload and the patent's history of 64 earlier
// messages over four categories (some 48 runs), decoded on every hop.
func BenchmarkDecodeMulticastPaced(b *testing.B) {
	m := &Multicast{
		ID:       [16]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16},
		Category: "sales",
		Source:   "0190f5d2-6a4b-7c3d-8e9f-0a1b2c3d4e5f",
		Count:    1500,
		Payload:  bytes.Repeat([]byte("n"), 1<<10),
	}
	for i := range 48 {
		m.History = append(m.History, HistoryRun{Short: uint32(i*2654435761) >> 4, Len: uint32(1 + i%3)})
	}
	buf, err := AppendFrame(nil, m)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(buf)))
	for b.Loop() {
		if _, err := DecodeMessage(buf[4:]); err != nil {
			b.Fatal(err)
		}
	}
}

// decodedHistory returns m with a received history decoded into History,
// as a message built by hand has it (history_wire.go), so that the two
// compare equal.
func decodedHistory(m Message) Message {
	switch x := m.(type) {
	case *Multicast:
		c := *x
		c.History, c.historyWire = x.HistoryRuns(), nil
		return &c
	case *LatestHeader:
		c := *x
		c.History, c.historyWire = x.HistoryRuns(), nil
		return &c
	}
	return m
}

// CheckFrame refuses what AppendFrame refuses, without copying the
// payload: a message just within the frame limit passes, one byte more
// does not.
func TestCheckFrameAgreesWithAppendFrame(t *testing.T) {
	m := &Multicast{ID: [16]byte{1}, Category: "it", Source: "src", Count: 1}
	b, err := AppendFrame(nil, m)
	if err != nil {
		t.Fatal(err)
	}
	overhead := len(b) - headerLen       // without a payload (its length takes 1 byte)
	fits := MaxFrameBytes - overhead - 2 // the payload's length takes 3 bytes
	for _, n := range []int{0, 1000, fits, fits + 1, MaxFrameBytes} {
		m.Payload = make([]byte, n)
		_, appendErr := AppendFrame(nil, m)
		checkErr := CheckFrame(m)
		if (appendErr == nil) != (checkErr == nil) || (checkErr == nil) != (n <= fits) {
			t.Errorf("payload %d (fits %d): AppendFrame %v, CheckFrame %v", n, fits, appendErr, checkErr)
		}
	}
	m.Payload = nil
	m.Lasts = []LastCount{{Short: 2, Count: 1}, {Short: 1, Count: 1}} // unsorted
	if CheckFrame(m) == nil {
		t.Error("unsorted lasts passed CheckFrame")
	}
}
