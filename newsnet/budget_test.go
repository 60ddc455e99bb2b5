package newsnet

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// cats returns n distinct categories made by name(i).
func cats(n int, name func(i int) string) CategorySet {
	out := make([]string, n)
	for i := range out {
		out[i] = name(i)
	}
	return NewCategorySet(out...)
}

// encodes reports whether m can be encoded.
func encodes(m Message) error {
	_, err := AppendFrame(nil, m)
	return err
}

// A set too large for one RoutingInfo goes coarser, never shorter: the
// result encodes and matches every category the set matched. A set that
// fits is sent as it is.
func TestFitRoutingSet(t *testing.T) {
	long := strings.Repeat("x", 200)
	tests := []struct {
		name string
		set  CategorySet
		want CategorySet // nil: only check that it fits and covers
	}{
		{"fits", cats(MaxCategories, func(i int) string { return fmt.Sprintf("c%d", i) }), nil},
		{"too many, covered by ancestors", cats(MaxCategories, func(i int) string { return fmt.Sprintf("a/%05d", i) }).Union(CategorySet{"a", "b"}),
			CategorySet{"a", "b"}},
		{"too many, one level up", cats(2*MaxCategories, func(i int) string { return fmt.Sprintf("dept%d/team%d", i%100, i) }), nil},
		{"too many at the top", cats(MaxCategories+1, func(i int) string { return fmt.Sprintf("c%d", i) }), CategorySet{AllCategories}},
		{"too many with an archive", cats(MaxCategories+1, func(i int) string { return fmt.Sprintf("c%d", i) }).With(AllCategories), CategorySet{AllCategories}},
		{"too many bytes", cats(2000, func(i int) string { return fmt.Sprintf("top%d/%s%d", i%10, long, i) }),
			cats(10, func(i int) string { return fmt.Sprintf("top%d", i) })},
		{"too many bytes, deep", cats(2000, func(i int) string { return fmt.Sprintf("top/%d/%s/%d", i%50, long, i) }), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := fitRoutingSet(tt.set)
			if err := encodes(&RoutingInfo{Categories: got}); err != nil {
				t.Fatalf("%d categories sent as %d that do not encode: %v", len(tt.set), len(got), err)
			}
			if routingSetFits(tt.set) && !got.Equal(tt.set) {
				t.Errorf("a set that fits was changed: %d → %d categories", len(tt.set), len(got))
			}
			if tt.want != nil && !got.Equal(tt.want) {
				t.Errorf("got %.10v (%d), want %v", got, len(got), tt.want)
			}
			for _, c := range tt.set {
				if !got.Matches(c) {
					t.Fatalf("%q is lost: the set sent (%d) does not match it", c, len(got))
				}
			}
			if tt.want == nil && !routingSetFits(tt.set) && got.Has(AllCategories) {
				t.Errorf("went all the way to %q where a coarser level fits", AllCategories)
			}
		})
	}
}

// catchUpBytes is the size AppendFrame checks against MaxFrameBytes, and
// fitCatchUp keeps as many sources as fit beside the rest.
func TestFitCatchUp(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 50 {
		c := &CatchUp{
			Categories: cats(r.IntN(3000), func(j int) string { return fmt.Sprintf("cat-%d/%s", j, strings.Repeat("y", r.IntN(64))) }),
			Since:      r.Int64(),
		}
		for j := range r.IntN(MaxSources + 1) {
			c.Known = append(c.Known, SourceCount{Source: fmt.Sprintf("%08x-0000-7000-8000-%012x", i, j), Next: r.Uint64() >> r.IntN(64)})
		}
		for j := range r.IntN(MaxPathLen) {
			c.Trail = append(c.Trail, ServantID(fmt.Sprintf("10.%d.%d.%d:%d%s", i, j/256, j%256, 7400+j, strings.Repeat("h", r.IntN(200)))))
		}
		b, err := AppendFrame(nil, c)
		if err == nil && len(b)-headerLen != catchUpBytes(c) {
			t.Fatalf("case %d: catchUpBytes %d, frame %d", i, catchUpBytes(c), len(b)-headerLen)
		}
		if err == nil != (catchUpBytes(c) <= MaxFrameBytes) {
			t.Fatalf("case %d: catchUpBytes %d, encode: %v", i, catchUpBytes(c), err)
		}
		known := c.Known
		fitCatchUp(c)
		if err := encodes(c); err != nil {
			t.Fatalf("case %d: after fitCatchUp: %v", i, err)
		}
		if len(c.Known) < len(known) {
			more := *c
			more.Known = known[:len(c.Known)+1]
			if catchUpBytes(&more) <= MaxFrameBytes {
				t.Fatalf("case %d: kept %d of %d sources, one more fits", i, len(c.Known), len(known))
			}
		}
	}
}

// The hosts' check of a servant's own subscriptions.
func TestCheckSubscriptions(t *testing.T) {
	if err := CheckSubscriptions(cats(MaxCategories, func(i int) string { return fmt.Sprintf("c%d", i) })); err != nil {
		t.Errorf("%d short categories: %v", MaxCategories, err)
	}
	many := cats(MaxCategories+1, func(i int) string { return fmt.Sprintf("c%d", i) })
	if err := CheckSubscriptions(append(many, many...)); err == nil || !strings.Contains(err.Error(), "4097 categories") {
		t.Errorf("%d categories: %v", len(many), err)
	}
	big := cats(2100, func(i int) string { return fmt.Sprintf("%063d", i) })
	if err := CheckSubscriptions(big); err == nil || !strings.Contains(err.Error(), "bytes") {
		t.Errorf("%d categories of 63 bytes: %v", len(big), err)
	}
	if err := CheckSubscriptions([]string{"ok", ""}); err == nil {
		t.Error("an empty category passed")
	}
}
