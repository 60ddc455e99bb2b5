package node

import (
	"math/bits"
	"sync"
	"sync/atomic"
)

// frame is one encoded frame, length prefix included. The loop encodes a
// message once per step and pushes the same frame onto every link it goes
// out on; refs counts the holders (the loop's per-step cache and every
// queue entry or writer batch holding it), and the last release returns the
// buffer to its pool.
type frame struct {
	b     []byte
	refs  atomic.Int32
	class int8 // pool index, or -1: not pooled
}

// Frame buffers are pooled by size class, powers of two from 64 bytes to
// 64 KiB, so a buffer is never more than twice the frame it holds (the
// queue's cap counts buffer capacity, not frame length). Larger frames, up
// to newsnet.MaxFrameBytes, are rare and allocated exactly.
const (
	minFrameClassBits = 6
	maxFrameClassBits = 16
)

var framePools [maxFrameClassBits - minFrameClassBits + 1]sync.Pool

// newFrame returns a frame holding a copy of b, with one reference.
func newFrame(b []byte) *frame {
	var f *frame
	class := max(bits.Len(uint(len(b)-1)), minFrameClassBits) - minFrameClassBits
	if len(b) > 0 && class < len(framePools) {
		if v := framePools[class].Get(); v != nil {
			f = v.(*frame)
		} else {
			f = &frame{b: make([]byte, 0, 1<<(class+minFrameClassBits)), class: int8(class)}
		}
	} else {
		f = &frame{b: make([]byte, 0, len(b)), class: -1}
	}
	f.b = append(f.b[:0], b...)
	f.refs.Store(1)
	return f
}

func (f *frame) retain() { f.refs.Add(1) }

func (f *frame) release() {
	switch n := f.refs.Add(-1); {
	case n == 0 && f.class >= 0:
		framePools[f.class].Put(f)
	case n < 0:
		panic("node: frame released more often than retained")
	}
}

// queued is one entry of a send queue.
type queued struct {
	frame *frame
	size  int // newsnet.SizeOf of the message: the unit of Written
	off   int // bytes of the frame the loop already wrote (see claimDirect)
	// bulk marks an attachment's chunk: it waits in the queue's second
	// lane, which the writer takes from only when the first is empty, so
	// an item queued after chunks still goes out before them.
	bulk bool
}

// queuedOverhead is what an entry costs beyond its frame buffer, for the
// queue's byte count.
const queuedOverhead = 64

// sendQueue is a link's FIFO of encoded frames between the loop and the
// link's writer. The loop pushes without ever waiting; the writer takes
// batches and reports what it wrote. It is bounded in bytes by the cap the
// loop passes to push (see queueCap); in normal operation the core's own
// flow control (Protocol.LinkBuffer) keeps it far below that.
type sendQueue struct {
	mu    sync.Mutex
	items []queued // FIFO from head
	head  int
	// bulkItems is the second lane (queued.bulk), FIFO from bulkHead.
	bulkItems []queued
	bulkHead  int
	bytes     int  // buffer bytes of items[head:], plus queuedOverhead each
	ended     bool // the loop ended the queue: write what is queued, then stop
	dead      bool // dropped: nothing more is written, pushes are refused
	// writing is set while the writer holds a batch it took; direct while
	// the loop writes to the socket itself (claimDirect). At most one of
	// them writes at a time, so frames reach the socket in queue order.
	writing, direct bool
	ready           chan struct{}

	// written is the SizeOf bytes the writer has written (or dropped) and
	// the loop has not yet reported to the core. The writer wakes the loop
	// when it reaches wakeAt; the loop also collects it on every tick.
	written atomic.Int64
	wakeAt  int64 // set before the writer starts
}

func (q *sendQueue) init() { q.ready = make(chan struct{}, 1) }

// pushResult says what became of a pushed frame.
type pushResult int

const (
	pushed  pushResult = iota
	dropped            // the queue is dead: the frame was not queued
	overCap            // queueing it would pass the cap: not queued
)

// push queues e (taking over one reference to its frame when pushed) and
// wakes the writer. Loop only.
func (q *sendQueue) push(e queued, limit int) pushResult {
	cost := cap(e.frame.b) + queuedOverhead
	q.mu.Lock()
	switch {
	case q.dead:
		q.mu.Unlock()
		return dropped
	case q.bytes+cost > limit:
		q.mu.Unlock()
		return overCap
	}
	if e.bulk {
		q.bulkItems, q.bulkHead = appendCompacting(q.bulkItems, q.bulkHead, e)
	} else {
		q.items, q.head = appendCompacting(q.items, q.head, e)
	}
	q.bytes += cost
	q.mu.Unlock()
	q.signal()
	return pushed
}

// appendCompacting appends e to the FIFO items[head:], first moving what
// is left to the front when the slice is full and at least half taken.
func appendCompacting(items []queued, head int, e queued) ([]queued, int) {
	if len(items) == cap(items) && head > 0 && head >= len(items)/2 {
		n := copy(items, items[head:])
		clear(items[n:])
		items, head = items[:n], 0
	}
	return append(items, e), head
}

func (q *sendQueue) signal() {
	select {
	case q.ready <- struct{}{}:
	default:
	}
}

// take appends to dst the oldest queued entries, at least one and no more
// than max frame bytes in all, waiting while the queue is empty: from the
// first lane while it holds any, else from the bulk lane. It returns false
// once the queue is dead, or ended and empty. The writer calls idle once it
// has written what it took. Writer only.
func (q *sendQueue) take(dst []queued, max int) ([]queued, bool) {
	for {
		q.mu.Lock()
		if q.dead {
			q.mu.Unlock()
			return dst, false
		}
		if q.head < len(q.items) || q.bulkHead < len(q.bulkItems) {
			if q.head < len(q.items) {
				dst, q.items, q.head = q.takeLane(dst, max, q.items, q.head)
			} else {
				dst, q.bulkItems, q.bulkHead = q.takeLane(dst, max, q.bulkItems, q.bulkHead)
			}
			q.writing = true
			q.mu.Unlock()
			return dst, true
		}
		ended := q.ended
		q.mu.Unlock()
		if ended {
			return dst, false
		}
		<-q.ready
	}
}

// takeLane moves the oldest entries of one lane to dst, at least one and
// no more than max frame bytes. q.mu is held.
func (q *sendQueue) takeLane(dst []queued, max int, items []queued, head int) ([]queued, []queued, int) {
	n := 0
	for head < len(items) {
		e := items[head]
		if len(dst) > 0 && n+len(e.frame.b) > max {
			break
		}
		dst = append(dst, e)
		n += len(e.frame.b)
		q.bytes -= cap(e.frame.b) + queuedOverhead
		items[head] = queued{}
		head++
	}
	if head == len(items) {
		items, head = items[:0], 0
	}
	return dst, items, head
}

// idle tells the queue the writer is done with the batch it took: the
// loop may write to the socket itself again. Writer only.
func (q *sendQueue) idle() {
	q.mu.Lock()
	q.writing = false
	q.mu.Unlock()
}

// claimDirect lets the loop write a frame to the socket itself, without
// waking the writer, when nothing is queued or being written before it and
// the queue is still open. Once it returns true, the loop must call
// endDirect. Loop only.
func (q *sendQueue) claimDirect() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.dead || q.ended || q.writing || q.direct || q.head < len(q.items) || q.bulkHead < len(q.bulkItems) {
		return false
	}
	q.direct = true
	return true
}

// endDirect ends the loop's direct write. rest is what the socket did not
// take at once, in order: it is queued first (taking over the loop's
// references to its frames) for the writer, which waits for the socket.
// It reports overCap, having queued rest all the same, when that took the
// queue past limit: the caller closes the link. On a dead queue, rest is
// released and reported as written (dropped with the link), as drop does.
// Loop only.
func (q *sendQueue) endDirect(rest []queued, limit int) pushResult {
	q.mu.Lock()
	q.direct = false
	if len(rest) == 0 {
		q.mu.Unlock()
		return pushed
	}
	if q.dead {
		q.mu.Unlock()
		q.discard(rest)
		return dropped
	}
	for _, e := range rest {
		q.items = append(q.items, e)
		q.bytes += cap(e.frame.b) + queuedOverhead
	}
	over := q.bytes > limit
	q.mu.Unlock()
	q.signal()
	if over {
		return overCap
	}
	return pushed
}

// end lets the writer finish what is queued and stop. Loop only.
func (q *sendQueue) end() {
	q.mu.Lock()
	q.ended = true
	q.mu.Unlock()
	q.signal()
}

// drop kills the queue: queued frames are released and reported as
// written (dropped with the link), later pushes are refused, and the
// writer stops. Any goroutine; idempotent.
func (q *sendQueue) drop() {
	q.mu.Lock()
	q.dead = true
	items := append(q.items[q.head:], q.bulkItems[q.bulkHead:]...)
	q.items, q.head, q.bytes = nil, 0, 0
	q.bulkItems, q.bulkHead = nil, 0
	q.mu.Unlock()
	q.discard(items)
	q.signal()
}

// discard releases frames that will never be written and reports them as
// written, so the core's count of bytes in flight on the link drains.
func (q *sendQueue) discard(es []queued) {
	size := 0
	for _, e := range es {
		size += e.size
		e.frame.release()
	}
	q.report(size)
}

func (q *sendQueue) isDead() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.dead
}

// report adds SizeOf bytes written or dropped, for the loop to pass on,
// and reports whether that brought the unreported bytes to wakeAt: then
// the loop should be woken to pass them on now rather than at the next
// tick.
func (q *sendQueue) report(size int) (wake bool) {
	if size <= 0 {
		return false
	}
	n := q.written.Add(int64(size))
	return n >= q.wakeAt && n-int64(size) < q.wakeAt || q.wakeAt <= 0
}

// takeWritten returns the bytes reported since the last call. Loop only.
func (q *sendQueue) takeWritten() int { return int(q.written.Swap(0)) }
