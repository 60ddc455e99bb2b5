package newsnet

import "math/bits"

// chunkSet is a set of a blob's chunk indexes, as a bitmap: bit i of byte
// i/8, least significant first, the layout BlobWant.Missing carries.
type chunkSet []byte

// allChunks is the set of the n chunks 0..n-1.
func allChunks(n int) chunkSet {
	s := make(chunkSet, (n+7)/8)
	for i := range n {
		s.add(i)
	}
	return s
}

func (s chunkSet) has(i int) bool { return i >= 0 && i/8 < len(s) && s[i/8]&(1<<(i%8)) != 0 }

// add puts i into s; s must be long enough (made for the blob's chunks).
func (s chunkSet) add(i int) { s[i/8] |= 1 << (i % 8) }

func (s chunkSet) remove(i int) {
	if i/8 < len(s) {
		s[i/8] &^= 1 << (i % 8)
	}
}

func (s chunkSet) len() int {
	n := 0
	for _, b := range s {
		n += bits.OnesCount8(b)
	}
	return n
}

func (s chunkSet) empty() bool {
	for _, b := range s {
		if b != 0 {
			return false
		}
	}
	return true
}

// union adds every chunk of o below n to s.
func (s chunkSet) union(o chunkSet, n int) {
	for i := 0; i < n && i/8 < len(o); i++ {
		if o.has(i) {
			s.add(i)
		}
	}
}

// minus is the chunks of s below n that are not in o, as a new set.
func (s chunkSet) minus(o chunkSet, n int) chunkSet {
	out := make(chunkSet, (n+7)/8)
	for i := range n {
		if s.has(i) && !o.has(i) {
			out.add(i)
		}
	}
	return out
}

// first is the lowest chunk in s, -1 when s is empty.
func (s chunkSet) first() int {
	for j, b := range s {
		if b != 0 {
			return j*8 + bits.TrailingZeros8(b)
		}
	}
	return -1
}

// and is the chunks below n in both s and o, lowest first.
func (s chunkSet) and(o chunkSet, n int) []int {
	var out []int
	for i := range n {
		if s.has(i) && o.has(i) {
			out = append(out, i)
		}
	}
	return out
}
