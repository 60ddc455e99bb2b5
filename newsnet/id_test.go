package newsnet

import (
	"math"
	"math/big"
	"math/rand/v2"
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

// Other address forms hash above every IPv4 value, deterministically.
func TestIDValueOtherForms(t *testing.T) {
	for _, id := range []ServantID{"[::1]:7400", "news.example.com:7400", "garbage"} {
		v := IDValue(id)
		if v < 1<<48 {
			t.Errorf("IDValue(%s) = %d, want ≥ 2^48", id, v)
		}
		if IDValue(id) != v {
			t.Errorf("IDValue(%s) not deterministic", id)
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
