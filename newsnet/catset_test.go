package newsnet

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// Union gives the sorted set of both sides' members, whether one side
// holds the other (returned as it is, without a copy) or not.
func TestCategorySetUnionOfRandomSets(t *testing.T) {
	universe := []string{"company", "eng", "hr", "it", "sales", "sales/apac", "sales/emea", "z"}
	r := rand.New(rand.NewPCG(3, 4))
	pick := func() CategorySet {
		var cs []string
		for _, c := range universe {
			if r.IntN(3) == 0 {
				cs = append(cs, c)
			}
		}
		return NewCategorySet(cs...)
	}
	for range 2000 {
		s, o := pick(), pick()
		if r.IntN(4) == 0 {
			o = NewCategorySet(slices.DeleteFunc(slices.Clone(s), func(string) bool { return r.IntN(2) == 0 })...)
		}
		sBefore, oBefore := slices.Clone(s), slices.Clone(o)
		want := NewCategorySet(append(slices.Clone(s), o...)...)
		if got := s.Union(o); !slices.Equal(got, want) {
			t.Fatalf("%v ∪ %v = %v, want %v", s, o, got, want)
		}
		if !slices.Equal(s, sBefore) || !slices.Equal(o, oBefore) {
			t.Fatalf("union changed its operands: %v, %v", s, o)
		}
	}
}
