package newsnet

import (
	"cmp"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/netip"
	"slices"
	"strings"
	"testing"

	"newsdesk/netrange"
)

// Every servant whose address lies in a range has an ID value inside the
// range's ID interval (so routing never cuts off a servant inside), and for
// IPv4 every value inside the interval is an address of the range (the
// interval is exact).
func TestAudienceIDRangeHoldsItsServants(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, text := range []string{"10.1.4.0/22", "10.1.4.7/32", "0.0.0.0/0", "2001:db8:4::/48", "2001:db8:4:8::/61",
		"2001:db8:4:9::/64", "2001:db8:4:9:1::/80", "2001:db8::/32"} {
		p := netip.MustParsePrefix(text)
		rg := prefixIDRange(p)
		for range 200 {
			a := randomAddrIn(r, p)
			id := ServantID(netip.AddrPortFrom(a, uint16(1+r.IntN(65535))).String())
			if v := IDValue(id); v < rg.lo || v > rg.hi {
				t.Fatalf("%s: %s has ID value %#x outside [%#x, %#x]", p, id, v, rg.lo, rg.hi)
			}
		}
		if p.Addr().Is4() {
			lo, hi := rg.lo>>16, rg.hi>>16
			last := netip.AddrFrom4([4]byte{byte(hi >> 24), byte(hi >> 16), byte(hi >> 8), byte(hi)})
			first := netip.AddrFrom4([4]byte{byte(lo >> 24), byte(lo >> 16), byte(lo >> 8), byte(lo)})
			if !p.Contains(first) || !p.Contains(last) || rg.lo&0xffff != 0 || rg.hi&0xffff != 0xffff {
				t.Errorf("%s: interval [%#x, %#x] is not exactly the range", p, rg.lo, rg.hi)
			}
		}
	}
	// A host name is never inside: no range holds its family's values.
	name := IDValue("news.example.com:7400")
	for _, text := range []string{"0.0.0.0/0", "::/0"} {
		if rg := prefixIDRange(netip.MustParsePrefix(text)); name >= rg.lo && name <= rg.hi {
			t.Errorf("%s holds a host name's ID value", text)
		}
	}
}

func randomAddrIn(r *rand.Rand, p netip.Prefix) netip.Addr {
	b := p.Addr().AsSlice()
	for i := range b {
		bit := i * 8
		switch {
		case bit >= p.Bits():
			b[i] = byte(r.IntN(256))
		case bit+8 > p.Bits():
			keep := 8 - (p.Bits() - bit)
			b[i] |= byte(r.IntN(1 << keep))
		}
	}
	a, _ := netip.AddrFromSlice(b)
	return a
}

// The uplink carries an audience message unless the audience lies inside
// our partition and holds none of our ancestors; a downlink only when its
// slot meets the audience.
func TestAudienceLinkRule(t *testing.T) {
	s := &Servant{adm: admissions{part: ComputePartition(IDValue("10.1.4.1:7400"), IDValue("10.1.4.200:7400"), 16)}}
	up := &link{peer: "10.1.1.1:7400", value: IDValue("10.1.1.1:7400")}
	s.up = up
	s.rootPath = []ServantID{"10.1.1.1:7400"}
	down := &link{value: IDValue("10.1.4.9:7400")}
	down.slot = s.adm.part.Slot(down.value)
	other := &link{value: IDValue("10.1.4.200:7400")}
	other.slot = s.adm.part.Slot(other.value)
	cases := []struct {
		audience      string
		up, down, oth bool
	}{
		{"10.1.4.0/24", false, true, true},
		{"10.1.4.9/32", false, true, false},
		{"10.1.0.0/16", true, true, true},
		{"10.1.1.1/32", true, false, false},
		{"10.9.0.0/16", true, false, false},
	}
	for _, c := range cases {
		rs := audienceIDRanges([]netip.Prefix{netip.MustParsePrefix(c.audience)})
		got := fmt.Sprint(s.audienceLink(up, rs), s.audienceLink(down, rs), s.audienceLink(other, rs))
		if want := fmt.Sprint(c.up, c.down, c.oth); got != want {
			t.Errorf("%s: up, down, other = %s, want %s (partition %v)", c.audience, got, want, s.adm.part)
		}
	}
}

// forMe is exact on the advertised address; a host name is never inside.
func TestAudienceForMe(t *testing.T) {
	m := &Multicast{Audience: []netip.Prefix{netip.MustParsePrefix("10.1.4.0/22"), netip.MustParsePrefix("2001:db8:4::/48")}}
	for id, want := range map[ServantID]bool{
		"10.1.5.3:7400": true, "10.1.8.1:7400": false, "[2001:db8:4:1::9]:7400": true,
		"[::ffff:10.1.4.1]:7400": true, "news.example.com:7400": false,
	} {
		s := &Servant{aud: audienceState{addr: advertisedAddr(id)}}
		if got := s.aud.forMe(m); got != want {
			t.Errorf("%s: forMe = %v, want %v", id, got, want)
		}
	}
}

// The wire decoder refuses audiences the encoder would not write.
func TestAudienceWireRefusals(t *testing.T) {
	for _, ps := range [][]netip.Prefix{
		{netip.MustParsePrefix("10.1.4.7/24")},
		{netip.MustParsePrefix("10.1.5.0/24"), netip.MustParsePrefix("10.1.4.0/24")},
		{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("10.1.4.0/24")},
		{netip.MustParsePrefix("::ffff:10.1.4.0/120")},
	} {
		if _, err := AppendFrame(nil, &Multicast{Category: "c", Audience: ps}); err == nil {
			t.Errorf("%v encoded", ps)
		}
	}
}

// lastForMe finds the latest count for us whichever list it walks: a
// source's few lasts against our 33 ranges, or a source with more lasts
// than that; the answer equals a check of every entry.
func TestLastForMeWalksEitherList(t *testing.T) {
	id := ServantID("10.1.4.7:7400")
	s := &Servant{aud: audienceState{addr: advertisedAddr(id)}}
	r := rand.New(rand.NewPCG(3, 4))
	mine := map[uint32]bool{}
	for bits := 0; bits <= 32; bits++ {
		p, _ := s.aud.addr.Prefix(bits)
		mine[ShortID(audienceKey(p, "hr"))] = true
	}
	for _, n := range []int{0, 1, 4, 32, 33, 34, 200} {
		for round := range 20 {
			set := map[uint32]uint64{ShortID("hr"): 5}
			for len(set) < n+1 {
				short := r.Uint32()
				if r.IntN(3) == 0 { // one of our ranges
					p, _ := s.aud.addr.Prefix(r.IntN(33))
					short = ShortID(audienceKey(p, "hr"))
				}
				set[short] = uint64(1 + r.IntN(1000))
			}
			h := header{lastsComplete: true}
			want := uint64(0)
			for short, c := range set {
				h.lasts = append(h.lasts, LastCount{Short: short, Count: c})
				if short == ShortID("hr") || mine[short] {
					want = max(want, c)
				}
			}
			slices.SortFunc(h.lasts, func(a, b LastCount) int { return cmp.Compare(a.Short, b.Short) })
			got, ok := s.aud.lastForMe(&h, "hr")
			if !ok || got != want {
				t.Fatalf("%d lasts, round %d: lastForMe = %d, %v; want %d", len(h.lasts), round, got, ok, want)
			}
		}
	}
}

// A truncated audience is this package's truncation and netrange's, and
// says so once.
func TestAudienceDecodeErrorIsBothKinds(t *testing.T) {
	b, err := EncodeMessage(&Multicast{ID: [16]byte{1}, Category: "c", Source: "s", Count: 1,
		Audience: []netip.Prefix{netip.MustParsePrefix("10.1.4.0/24"), netip.MustParsePrefix("10.2.0.0/16")}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = DecodeMessage(b[:len(b)-1])
	if !errors.Is(err, errTruncated) || !errors.Is(err, netrange.ErrTruncated) {
		t.Fatalf("error %v is not both truncations", err)
	}
	if strings.Count(err.Error(), "truncated") != 1 {
		t.Errorf("error text %q repeats itself", err)
	}
}

// The answers audienceState withholds: an item goes to a requester
// advertising an address inside its audience, and over a leaf's link only
// when the leaf's connection also comes from inside; never withheld from
// the uplink, nor in a flooding network. Each refusal is counted.
func TestAudienceStateWithholds(t *testing.T) {
	var counters Counters
	cfg := Config{ID: "10.1.4.1:7400"}
	a := newAudienceState(&cfg, &counters)
	m := &Multicast{Category: "hr", Audience: []netip.Prefix{netip.MustParsePrefix("10.1.4.0/22")}}
	if !a.forMe(m) || a.forMe(&Multicast{Audience: []netip.Prefix{netip.MustParsePrefix("10.2.0.0/16")}}) {
		t.Fatal("forMe does not follow the servant's own address")
	}
	if a.notForRequester("10.1.5.9:7400", m) || !a.notForRequester("10.9.0.1:7400", m) || !a.notForRequester("news.example.com:7400", m) {
		t.Error("notForRequester: want an answer only for a requester advertising an address inside")
	}
	if a.notForRequester("10.9.0.1:7400", &Multicast{Category: "hr"}) {
		t.Error("an item without an audience is withheld")
	}
	leafFrom := func(remote string) *link {
		l := &link{kind: linkDown, leaf: true, peer: "10.1.4.20:7400", value: IDValue("10.1.4.20:7400")}
		l.remote = netip.MustParseAddr(remote)
		return l
	}
	inside, outside := leafFrom("10.1.4.20"), leafFrom("192.0.2.7")
	up := &link{kind: linkUp, peer: "10.1.4.30:7400", value: IDValue("10.1.4.30:7400")}
	if a.withheldFrom(inside, up, m) || !a.withheldFrom(outside, up, m) || a.withheldFrom(up, up, m) {
		t.Error("withheldFrom: want only the leaf whose connection comes from outside")
	}
	if counters.AudienceWithheld != 3 {
		t.Errorf("AudienceWithheld = %d, want 3 (two requesters, one leaf)", counters.AudienceWithheld)
	}
	flood := newAudienceState(&Config{ID: cfg.ID, Flood: true}, &counters)
	if flood.notForRequester("10.9.0.1:7400", m) || flood.withheldFrom(outside, up, m) {
		t.Error("a flooding network withholds by audience")
	}
}
