package newsnet

import (
	"fmt"
	"math"
	"math/bits"
)

// Partition is the aligned range of ID values a servant manages for its
// subtree (JP4353827B2, "Partition and slot"): for the subtree range
// [vmin, vmax] it is [N^x·y, N^x·(y+1) − 1] for the smallest x ≥ 1 with
// ⌊vmin/N^x⌋ = ⌊vmax/N^x⌋ = y, split into N slots of width N^(x−1).
//
// When N^x exceeds the 64-bit value space the partition is the whole space
// and y = 0; every computation below is overflow-safe.
type Partition struct {
	Lo, Hi    uint64 // inclusive bounds
	SlotWidth uint64 // N^(x-1)
	N         int    // number of slots
}

// ComputePartition returns the partition of the range [vmin, vmax] for a
// fanout of n (n ≥ 2). It panics on vmin > vmax or n < 2: both are bugs.
func ComputePartition(vmin, vmax uint64, n int) Partition {
	if vmin > vmax || n < 2 {
		panic(fmt.Sprintf("newsnet: bad partition input [%d,%d] n=%d", vmin, vmax, n))
	}
	base := uint64(n)
	slot := uint64(1) // N^(x-1), starting at x = 1
	for {
		hi, width := bits.Mul64(slot, base) // width = N^x
		if hi != 0 {
			// N^x > 2^64-1: every value shares y = 0.
			return Partition{Lo: 0, Hi: math.MaxUint64, SlotWidth: slot, N: n}
		}
		if vmin/width == vmax/width {
			lo := vmin / width * width
			return Partition{Lo: lo, Hi: lo + (width - 1), SlotWidth: slot, N: n}
		}
		slot = width
	}
}

// Width is Hi-Lo+1, saturating at MaxUint64 for the whole space.
func (p Partition) Width() uint64 {
	if p.Lo == 0 && p.Hi == math.MaxUint64 {
		return math.MaxUint64
	}
	return p.Hi - p.Lo + 1
}

// Contains reports whether v lies in the partition.
func (p Partition) Contains(v uint64) bool { return p.Lo <= v && v <= p.Hi }

// Slot returns the index (0..N-1) of the slot holding v, which must lie in
// the partition.
func (p Partition) Slot(v uint64) int { return int((v - p.Lo) / p.SlotWidth) }

// SlotRange returns the inclusive bounds of slot i.
func (p Partition) SlotRange(i int) (lo, hi uint64) {
	lo = p.Lo + uint64(i)*p.SlotWidth
	return lo, lo + (p.SlotWidth - 1)
}

// StrictlyInside reports whether p lies inside outer and differs from it.
// JP4353827B2 (tree optimization, S407): an equal partition counts as "not
// included".
func (p Partition) StrictlyInside(outer Partition) bool {
	return outer.Lo <= p.Lo && p.Hi <= outer.Hi && (p.Lo != outer.Lo || p.Hi != outer.Hi)
}

func (p Partition) String() string { return fmt.Sprintf("[%d,%d]", p.Lo, p.Hi) }
