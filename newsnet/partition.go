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

// SlotRange returns the inclusive bounds of slot i. The last slot of a
// partition cut off at the end of the value space, or of a family's space
// (PartitionFor), ends with the partition.
func (p Partition) SlotRange(i int) (lo, hi uint64) {
	lo = p.Lo + uint64(i)*p.SlotWidth
	if p.Hi-lo < p.SlotWidth-1 {
		return lo, p.Hi
	}
	return lo, lo + (p.SlotWidth - 1)
}

// StrictlyInside reports whether p lies inside outer and differs from it.
// JP4353827B2 (tree optimization, S407): an equal partition counts as "not
// included".
func (p Partition) StrictlyInside(outer Partition) bool {
	return outer.Lo <= p.Lo && p.Hi <= outer.Hi && (p.Lo != outer.Lo || p.Hi != outer.Hi)
}

func (p Partition) String() string { return fmt.Sprintf("[%d,%d]", p.Lo, p.Hi) }

// PartitionFor is the partition a servant uses for its subtree range
// [vmin, vmax] (see IDValue for the value spaces of the address families):
//
//   - Within one family it is ComputePartition of the values relative to
//     the family's space, capped at the end of that space. IPv4 values lie
//     at the start of the first space, so for them it is ComputePartition
//     itself: the patent's partitions and slots, unchanged.
//   - A range over several families is split by family first: the whole
//     value space in four slots of 2^62, one per family. With N < 4 the
//     split is binary, as every level must have at most N slots: the whole
//     space in two halves of 2^63 (IPv4 below, IPv6 and names above), and a
//     range within the upper half in its two family spaces.
//
// So the slots of a servant never mix families: all IPv4 servants below a
// servant whose range also holds IPv6 or names go into one slot and, below
// its holder, into the partitions and slots of an IPv4-only network; and
// likewise for IPv6. Partitions stay nested, as tree optimization needs: a
// range inside another gets a partition inside the other's.
func PartitionFor(vmin, vmax uint64, n int) Partition {
	fmin, fmax := vmin>>familyShift, vmax>>familyShift
	if fmin == fmax {
		base := fmin << familyShift
		p := ComputePartition(vmin-base, vmax-base, n)
		p.Hi = min(p.Hi, familySpace-1)
		p.Lo += base
		p.Hi += base
		return p
	}
	if n >= 4 {
		return Partition{Lo: 0, Hi: math.MaxUint64, SlotWidth: familySpace, N: 4}
	}
	if fmin>>1 == fmax>>1 {
		lo := fmin >> 1 << (familyShift + 1)
		return Partition{Lo: lo, Hi: lo + (2*familySpace - 1), SlotWidth: familySpace, N: 2}
	}
	return Partition{Lo: 0, Hi: math.MaxUint64, SlotWidth: 2 * familySpace, N: 2}
}
