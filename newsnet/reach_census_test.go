package newsnet

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestCensusCountsEachSubscriberOnce checks the census entry against the
// obvious definition: for random subscriptions with parents, children and
// "*", the entry summed over an item category's chain (as subscribers
// does) is 1 exactly when the subscriptions match the category, and 0
// otherwise, however many of them match.
func TestCensusCountsEachSubscriberOnce(t *testing.T) {
	cats := []string{"*", "hr", "hr/payroll", "hr/payroll/eu", "sales", "sales/emea", "it"}
	items := []string{"hr", "hr/payroll", "hr/payroll/eu", "hr/jobs", "sales/emea", "sales/apac", "it", "eng"}
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		var self CategorySet
		for _, c := range cats {
			if r.IntN(3) == 0 {
				self = self.With(c)
			}
		}
		own := ownCensus(self)
		for _, item := range items {
			n := own[AllCategories]
			for c := item; ; {
				n += own[c]
				i := strings.LastIndexByte(c, '/')
				if i < 0 {
					break
				}
				c = c[:i]
			}
			want := uint64(0)
			if self.Matches(item) {
				want = 1
			}
			if n != want {
				t.Fatalf("subscriptions %v, item %q: counted %d times, want %d (entry %v)", self, item, n, want, own)
			}
		}
	}
}
