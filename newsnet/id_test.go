package newsnet

import (
	"errors"
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"testing"
)

// The ID value of an IPv4 servant is the 6-byte integer addr<<16 | port.
// Reference: JP4353827B2, news example ("the IP address and port number of
// the servant ID are directly used as 6-byte integers").
func TestIDValueIPv4(t *testing.T) {
	for id, want := range map[ServantID]uint64{
		"127.0.0.1:7401":    139637976800489,
		"0.0.0.0:91":        91,
		"192.168.12.4:7400": 192<<40 | 168<<32 | 12<<24 | 4<<16 | 7400,
	} {
		if got := IDValue(id); got != want {
			t.Errorf("IDValue(%s) = %d, want %d", id, got, want)
		}
	}
}

// Other address forms map above every IPv4 value, deterministically: IPv6
// from 2^63, host names (and what does not parse) from 3·2^62.
func TestIDValueOtherForms(t *testing.T) {
	for id, family := range map[ServantID]uint64{"[::1]:7400": 2, "news.example.com:7400": 3, "garbage": 3} {
		v := IDValue(id)
		if v>>62 != family {
			t.Errorf("IDValue(%s) = %#x, want family %d (top two bits)", id, v, family)
		}
		if IDValue(id) != v {
			t.Errorf("IDValue(%s) not deterministic", id)
		}
	}
}

// The servants of one IPv6 /64 share an aligned block of 2^28 ID values and
// the /64s of one /48 a block of 2^44, in subnet-ID order; an IPv4-mapped
// address is its IPv4 address, and the zone does not count.
// Reference: issue 11, defect 7.
func TestIDValueIPv6Subnets(t *testing.T) {
	lan := []ServantID{"[2001:db8:1:1::10]:7400", "[2001:db8:1:1::10]:7401", "[2001:db8:1:1::11]:7400",
		"[2001:db8:1:1:abcd:ef01:2345:6789]:7400", "[2001:db8:1:1:ffff:ffff:ffff:ffff]:65535"}
	seen := map[uint64]ServantID{}
	block := IDValue(lan[0]) >> 28
	for _, id := range lan {
		v := IDValue(id)
		if v>>62 != 2 {
			t.Errorf("IDValue(%s) = %#x: not in the IPv6 space", id, v)
		}
		if v>>28 != block {
			t.Errorf("IDValue(%s) = %#x: not in the /64's block %#x", id, v, block<<28)
		}
		if other, dup := seen[v]; dup {
			t.Errorf("%s and %s share the ID value %#x", id, other, v)
		}
		seen[v] = id
		// Two servants of the /64 get a partition inside its block.
		if p := PartitionFor(min(v, IDValue(lan[0])), max(v, IDValue(lan[0])), 16); p.Lo>>28 != block || p.Hi>>28 != block {
			t.Errorf("partition of %s and %s = %v, outside the /64", id, lan[0], p)
		}
	}
	v11, v12 := IDValue("[2001:db8:1:1::10]:7400"), IDValue("[2001:db8:1:2::10]:7400")
	if v11>>28 == v12>>28 || v11>>44 != v12>>44 || (v11>>28)&0xffff != 1 || (v12>>28)&0xffff != 2 {
		t.Errorf("/64s 1 and 2 of 2001:db8:1::/48: %#x, %#x; want one /48 block, subnet IDs 1 and 2", v11, v12)
	}
	if other := IDValue("[2001:db8:2:1::10]:7400"); other>>44 == v11>>44 {
		t.Errorf("2001:db8:1::/48 and 2001:db8:2::/48 share the block %#x", v11>>44<<44)
	}
	if got, want := IDValue("[::ffff:192.168.12.4]:7400"), IDValue("192.168.12.4:7400"); got != want {
		t.Errorf("IPv4-mapped address: %#x, want the IPv4 value %#x", got, want)
	}
	if got, want := IDValue("[fe80::1%eth0]:7400"), IDValue("[fe80::1]:7400"); got != want {
		t.Errorf("zone: %#x, want %#x", got, want)
	}
}

// A host name is taken case-insensitively, and the servants of one host
// sit next to each other, ordered by port.
func TestIDValueNames(t *testing.T) {
	a, b := IDValue("news.example.com:7400"), IDValue("News.Example.COM.:7401")
	if b != a+1 {
		t.Errorf("news.example.com:7400 = %#x, News.Example.COM.:7401 = %#x; want consecutive values", a, b)
	}
}

// randomOf returns a random ID value of family f (0 IPv4, 2 IPv6, 3 names).
func randomOf(r *rand.Rand, f uint64) uint64 {
	if f == 0 {
		return r.Uint64() >> (16 + r.IntN(48))
	}
	return f<<62 | r.Uint64()>>(2+r.IntN(62))
}

// PartitionFor is ComputePartition for IPv4 values, whatever N. Over
// several families it has at most N slots, and its slots never hold two
// families (with N < 4: never IPv4 and another); and it nests: the values
// of one of its slots (wider than one value) get a partition inside that
// slot, which tree optimization needs (a subtree's partition
// strictly inside its up-servant's).
// Reference: issue 11, defect 7.
func TestPartitionForFamilies(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 20000; i++ {
		n := 2 + r.IntN(1023)
		if i%4 == 0 {
			n = []int{2, 3, 4, 10, 16}[i/4%5]
		}
		a, b := randomOf(r, 0), randomOf(r, 0)
		if a > b {
			a, b = b, a
		}
		if got, want := PartitionFor(a, b, n), ComputePartition(a, b, n); got != want {
			t.Fatalf("IPv4 [%d,%d] n=%d: PartitionFor %v/%d, ComputePartition %v/%d", a, b, n, got, got.SlotWidth, want, want.SlotWidth)
		}
		var vs []uint64
		for range 2 + r.IntN(6) {
			vs = append(vs, randomOf(r, []uint64{0, 2, 3}[r.IntN(3)]))
		}
		lo, hi := slices.Min(vs), slices.Max(vs)
		p := PartitionFor(lo, hi, n)
		if p.N > n || p.Slot(hi) >= n {
			t.Fatalf("%v n=%d: %d slots, slot of %d is %d", p, n, p.N, hi, p.Slot(hi))
		}
		slotFamily := map[int]uint64{}
		inSlot := map[int][]uint64{}
		for _, v := range vs {
			if !p.Contains(v) {
				t.Fatalf("%v n=%d does not contain %d", p, n, v)
			}
			s := p.Slot(v)
			if f, ok := slotFamily[s]; ok && f != v>>62 && (n >= 4 || f == 0 || v>>62 == 0) {
				t.Fatalf("%v n=%d: slot %d holds families %d and %d", p, n, s, f, v>>62)
			}
			slotFamily[s] = v >> 62
			inSlot[s] = append(inSlot[s], v)
		}
		for s, vals := range inSlot {
			if p.SlotWidth == 1 {
				break // x = 1: a slot of one value has no partition of its own
			}
			sp := PartitionFor(slices.Min(vals), slices.Max(vals), n)
			slo, shi := p.SlotRange(s)
			if sp.Lo < slo || sp.Hi > shi || !sp.StrictlyInside(p) {
				t.Fatalf("%v n=%d: values %v of slot %d [%d,%d] get the partition %v", p, n, vals, s, slo, shi, sp)
			}
		}
	}
}

func TestParseServantID(t *testing.T) {
	for _, bad := range []string{"", "host", ":7400", "1.2.3.4:0", "1.2.3.4:70000", "1.2.3.4:x"} {
		if _, err := ParseServantID(bad); err == nil {
			t.Errorf("ParseServantID(%q) accepted", bad)
		}
	}
	for _, good := range []string{"1.2.3.4:7400", "[::1]:1", "seed.corp:65535"} {
		if _, err := ParseServantID(good); err != nil {
			t.Errorf("ParseServantID(%q): %v", good, err)
		}
	}
}

// An address ParseServantID refuses is an *AddrError with the reason alone
// and the message it always had.
func TestParseServantIDError(t *testing.T) {
	cases := []struct{ addr, reason, msg string }{
		{"host", "missing port in address", `servant address "host": address host: missing port in address`},
		{"a:b:c", "too many colons in address", `servant address "a:b:c": address a:b:c: too many colons in address`},
		{":7400", "missing host", `servant address ":7400": missing host`},
		{"1.2.3.4:0", "port must be 1..65535", `servant address "1.2.3.4:0": port must be 1..65535`},
		{"h: 1", "port must be 1..65535", `servant address "h: 1": port must be 1..65535`},
	}
	for _, c := range cases {
		_, err := ParseServantID(c.addr)
		var ae *AddrError
		if !errors.As(err, &ae) || ae.Addr != c.addr || ae.Reason != c.reason || err.Error() != c.msg {
			t.Errorf("ParseServantID(%q) = %#v (%v), want reason %q, message %q", c.addr, err, err, c.reason, c.msg)
		}
	}
}

// naivePartition is the definition, in big integers: the smallest x ≥ 1
// with ⌊vmin/N^x⌋ = ⌊vmax/N^x⌋.
func naivePartition(vmin, vmax uint64, n int) (lo, hi, slot *big.Int) {
	bn := big.NewInt(int64(n))
	a, b := new(big.Int).SetUint64(vmin), new(big.Int).SetUint64(vmax)
	w := new(big.Int).Set(bn)
	for x := 1; ; x++ {
		if new(big.Int).Div(a, w).Cmp(new(big.Int).Div(b, w)) == 0 {
			y := new(big.Int).Div(a, w)
			lo = new(big.Int).Mul(w, y)
			hi = new(big.Int).Sub(new(big.Int).Add(lo, w), big.NewInt(1))
			return lo, hi, new(big.Int).Div(w, bn)
		}
		w.Mul(w, bn)
	}
}

// The partition computation agrees with the definition for any ID values,
// including ones where N^x passes 2^64.
func TestPartitionAgainstDefinition(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	maxU := new(big.Int).SetUint64(math.MaxUint64)
	for i := 0; i < 20000; i++ {
		n := 2 + r.IntN(30)
		if i%3 == 0 {
			n = 16
		}
		a, b := r.Uint64()>>r.IntN(64), r.Uint64()>>r.IntN(64)
		if a > b {
			a, b = b, a
		}
		p := ComputePartition(a, b, n)
		lo, hi, slot := naivePartition(a, b, n)
		if hi.Cmp(maxU) > 0 {
			// The definition's partition runs past the value space: clamp.
			hi = maxU
		}
		if p.Lo != lo.Uint64() || p.Hi != hi.Uint64() || p.SlotWidth != slot.Uint64() {
			t.Fatalf("partition of [%d,%d] n=%d = %v/%d, want [%v,%v]/%v", a, b, n, p, p.SlotWidth, lo, hi, slot)
		}
		if s := p.Slot(a); s < 0 || s >= n {
			t.Fatalf("slot of %d in %v = %d", a, p, s)
		}
	}
	whole := ComputePartition(0, math.MaxUint64, 16)
	if whole.Lo != 0 || whole.Hi != math.MaxUint64 || whole.Slot(math.MaxUint64) != 15 {
		t.Fatalf("whole space: %v slot width %d", whole, whole.SlotWidth)
	}
}

func TestPartitionStrictlyInside(t *testing.T) {
	outer := ComputePartition(0, 99, 10)
	if outer.StrictlyInside(outer) {
		t.Error("an equal partition counts as inside; JP4353827B2 S407 says it does not")
	}
	if !ComputePartition(10, 19, 10).StrictlyInside(outer) {
		t.Error("[10,19] not inside [0,99]")
	}
	if outer.StrictlyInside(Partition{Lo: 0, Hi: 99}) {
		t.Error("equal bounds with another slot width count as inside")
	}
	if ComputePartition(90, 120, 10).StrictlyInside(outer) {
		t.Error("[0,999] inside [0,99]")
	}
}

func TestCategorySetMatchesParents(t *testing.T) {
	s := NewCategorySet("sales", "it", "it")
	if len(s) != 2 {
		t.Fatalf("duplicates kept: %v", s)
	}
	for c, want := range map[string]bool{"sales": true, "sales/emea": true, "sales/emea/uk": true, "salesforce": false, "hr": false, "it": true} {
		if s.Matches(c) != want {
			t.Errorf("%v.Matches(%q) = %v", s, c, !want)
		}
	}
	u := s.Union(NewCategorySet("hr", "it"))
	if !u.Equal(CategorySet{"hr", "it", "sales"}) || !u.Without("it").Equal(CategorySet{"hr", "sales"}) {
		t.Errorf("union/without: %v", u)
	}
}

func TestConfigValidation(t *testing.T) {
	good := DefaultConfig("127.0.0.1:7400")
	good.Rand = rand.New(rand.NewPCG(1, 1))
	if err := good.Validate(); err != nil {
		t.Fatalf("default config: %v", err)
	}
	for name, mutate := range map[string]func(*Config){
		"no id":           func(c *Config) { c.ID = "" },
		"bad id":          func(c *Config) { c.ID = "nope" },
		"bad seed":        func(c *Config) { c.Seeds = []ServantID{"x:0"} },
		"fanout 1":        func(c *Config) { c.Fanout = 1 },
		"short timeout":   func(c *Config) { c.LinkTimeout = c.HeartbeatInterval },
		"no rand":         func(c *Config) { c.Rand = nil },
		"backoff min>max": func(c *Config) { c.BackoffMin = 2 * c.BackoffMax },
		"root silence":    func(c *Config) { c.RootSilence = c.PartitionInterval },
	} {
		c := good
		mutate(&c)
		if err := c.Validate(); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if d := DefaultConfig("a:1"); d.LinkTimeout+d.TickInterval > 5e9 {
		t.Errorf("default failure detection %v exceeds 5s", d.LinkTimeout+d.TickInterval)
	}
}
