package newsnet

import (
	"math/rand/v2"
	"testing"
)

// The seen set behaves like a naive list of the last `limit` distinct IDs.
func TestSeenSetAgainstModel(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, limit := range []int{1, 2, 7, 64} {
		s := newSeenSet(limit)
		var model [][16]byte // oldest first
		for i := 0; i < 5000; i++ {
			id := [16]byte{byte(r.IntN(100))}
			inModel := false
			for _, m := range model {
				inModel = inModel || m == id
			}
			if got := s.add(id); got == inModel {
				t.Fatalf("limit %d step %d: add(%d) = %v, model has it: %v", limit, i, id[0], got, inModel)
			}
			if !inModel {
				model = append(model, id)
				if len(model) > limit {
					model = model[1:]
				}
			}
		}
	}
}
