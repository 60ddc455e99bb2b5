package newsnet

// The blob-transfer sub-machine (blobs.go) on its own: a few servants, each
// a blobTransfers with a fake host, joined by links whose frames a test
// loop carries. The transfers over a real tree are in the simulator's
// tests.

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// memBlobs is a host's store of blobs in memory.
type memBlobs struct {
	lists  map[[32]byte][][32]byte
	chunks map[chunkKey][]byte
}

func newMemBlobs() *memBlobs {
	return &memBlobs{lists: map[[32]byte][][32]byte{}, chunks: map[chunkKey][]byte{}}
}

// put stores a whole blob, as a publisher's store has it, and returns its
// reference.
func (m *memBlobs) put(data []byte) BlobRef {
	ref, list := blobOf(data)
	m.lists[ref.Hash] = list
	for i := range list {
		m.chunks[chunkKey{ref.Hash, i}] = data[i*BlobChunkSize : min(len(data), (i+1)*BlobChunkSize)]
	}
	return ref
}

func (m *memBlobs) BlobChunks(hash [32]byte) ([][32]byte, []bool) {
	list := m.lists[hash]
	have := make([]bool, len(list))
	for i := range list {
		_, have[i] = m.chunks[chunkKey{hash, i}]
	}
	return list, have
}

func (m *memBlobs) BlobChunk(hash [32]byte, i int) []byte { return m.chunks[chunkKey{hash, i}] }

// whole returns the blob's bytes if every chunk is here.
func (m *memBlobs) whole(hash [32]byte) []byte {
	list := m.lists[hash]
	if list == nil {
		return nil
	}
	var out []byte
	for i := range list {
		c, ok := m.chunks[chunkKey{hash, i}]
		if !ok {
			return nil
		}
		out = append(out, c...)
	}
	return out
}

func blobOf(data []byte) (BlobRef, [][32]byte) {
	var list [][32]byte
	for off := 0; off < len(data); off += BlobChunkSize {
		list = append(list, sha256.Sum256(data[off:min(len(data), off+BlobChunkSize)]))
	}
	return BlobRef{Hash: sha256.Sum256(data), Root: BlobRoot(list), Size: uint64(len(data))}, list
}

// blobNet is a handful of servants and the links between them.
type blobNet struct {
	t     *testing.T
	now   time.Time
	nodes map[string]*blobNode
	queue []blobFrame
	// tamper, when set, may change a frame on its way; drop drops it.
	tamper func(f *blobFrame) (drop bool)
	// carried counts the chunk frames each link carried, by "from>to".
	carried map[string]int
}

type blobFrame struct {
	from, to string
	m        Message
}

type blobNode struct {
	net   *blobNet
	name  string
	store *memBlobs
	cfg   BlobConfig
	xfers *blobTransfers
	links map[LinkID]*link
	peer  map[LinkID]string // the node at the other end
	// toward is the link a blob of any source is asked over first;
	// queued the chunk frames in flight per link.
	toward LinkID
	queued map[LinkID]int
	acts   []Action
	notes  []string
}

func newBlobNet(t *testing.T) *blobNet {
	return &blobNet{t: t, now: time.Unix(1_700_000_000, 0), nodes: map[string]*blobNode{}, carried: map[string]int{}}
}

func (n *blobNet) node(name string) *blobNode {
	if nd := n.nodes[name]; nd != nil {
		return nd
	}
	nd := &blobNode{net: n, name: name, store: newMemBlobs(), links: map[LinkID]*link{}, peer: map[LinkID]string{}, queued: map[LinkID]int{}}
	nd.cfg = DefaultBlobConfig()
	nd.cfg.Store = nd.store
	nd.xfers = newBlobTransfers(&nd.cfg)
	n.nodes[name] = nd
	return nd
}

// join links a below b (b is a's way toward the source).
func (n *blobNet) join(a, b string) {
	na, nb := n.node(a), n.node(b)
	id := LinkID(len(n.carried) + len(na.links) + len(nb.links) + 100*len(n.nodes))
	for na.links[id] != nil || nb.links[id] != nil {
		id++
	}
	na.links[id] = &link{id: id, kind: linkUp, peer: ServantID(b), version: blobsSince}
	nb.links[id] = &link{id: id, kind: linkDown, peer: ServantID(a), version: blobsSince}
	na.peer[id], nb.peer[id] = b, a
	na.toward = id
}

// cut closes the link between a and b at both ends.
func (n *blobNet) cut(a, b string) {
	na, nb := n.nodes[a], n.nodes[b]
	for id, p := range na.peer {
		if p == b {
			delete(na.links, id)
			delete(nb.links, id)
			delete(na.peer, id)
			delete(nb.peer, id)
			if na.toward == id {
				na.toward = 0
			}
			if nb.toward == id {
				nb.toward = 0
			}
			na.xfers.linkDown(na, id)
			nb.xfers.linkDown(nb, id)
		}
	}
}

// run carries frames until none are left, advancing the clock by the
// step between rounds of ticks, at most rounds times.
func (n *blobNet) run(step time.Duration, rounds int) {
	for r := 0; r < rounds; r++ {
		for len(n.queue) > 0 {
			f := n.queue[0]
			n.queue = n.queue[1:]
			n.deliver(f)
		}
		n.now = n.now.Add(step)
		for _, name := range slices.Sorted(maps.Keys(n.nodes)) {
			nd := n.nodes[name]
			nd.xfers.tick(nd)
		}
		if len(n.queue) == 0 && r > 0 && !n.pending() {
			return
		}
	}
}

func (n *blobNet) pending() bool {
	for _, nd := range n.nodes {
		if len(nd.xfers.xfers) > 0 {
			return true
		}
	}
	return false
}

func (n *blobNet) deliver(f blobFrame) {
	from, to := n.nodes[f.from], n.nodes[f.to]
	var id LinkID
	for lid, p := range to.peer {
		if p == f.from {
			id = lid
		}
	}
	l := to.links[id]
	if _, ok := f.m.(*BlobChunk); ok && from.links[id] != nil {
		from.queued[id]--
		defer from.xfers.pump(from, from.links[id]) // written: room again
	}
	if l == nil {
		return // the link was cut meanwhile
	}
	if n.tamper != nil && n.tamper(&f) {
		return
	}
	// A frame goes through its encoding, as on a real link.
	frame, err := AppendFrame(nil, f.m)
	if err != nil {
		n.t.Fatalf("encode %T: %v", f.m, err)
	}
	m, err := DecodeMessage(frame[4:])
	if err != nil {
		n.t.Fatalf("decode %T: %v", f.m, err)
	}
	switch m := m.(type) {
	case *BlobWant:
		to.xfers.want(to, l, m)
	case *BlobHead:
		to.xfers.head(to, l, m)
	case *BlobChunk:
		n.carried[f.from+">"+f.to]++
		to.xfers.chunk(to, l, m)
	case *BlobNone:
		to.xfers.none(to, l, m)
	}
}

func (nd *blobNode) clock() time.Time { return nd.net.now }
func (nd *blobNode) note(f string, args ...any) {
	nd.notes = append(nd.notes, fmt.Sprintf(f, args...))
}
func (nd *blobNode) send(l *link, m Message) {
	if _, ok := m.(*BlobChunk); ok {
		nd.queued[l.id]++
	}
	nd.net.queue = append(nd.net.queue, blobFrame{nd.name, nd.peer[l.id], m})
}
func (nd *blobNode) act(a Action) {
	nd.acts = append(nd.acts, a)
	switch a := a.(type) {
	case StoreBlobHead:
		nd.store.lists[a.Ref.Hash] = a.Chunks
	case StoreBlobChunk:
		nd.store.chunks[chunkKey{a.Hash, a.Index}] = a.Data
	}
}
func (nd *blobNode) linkByID(id LinkID) *link { return nd.links[id] }
func (nd *blobNode) misbehaved(l *link, reason string, _ float64) {
	nd.notes = append(nd.notes, fmt.Sprintf("misbehaved: %s %s", nd.peer[l.id], reason))
}
func (nd *blobNode) chunkRoom(l *link) bool {
	return nd.queued[l.id]*BlobChunkSize < nd.cfg.Window
}
func (nd *blobNode) blobPath(source string, avoid func(*link) bool) *link {
	if l := nd.links[nd.toward]; l != nil && !avoid(l) && l.version >= blobsSince {
		return l
	}
	for _, id := range slices.Sorted(maps.Keys(nd.links)) {
		if l := nd.links[id]; !avoid(l) && l.version >= blobsSince {
			return l
		}
	}
	return nil
}

func (nd *blobNode) fetch(ref BlobRef) { nd.xfers.fetch(nd, ref, "pub") }

func (nd *blobNode) count(kind string) int {
	n := 0
	for _, a := range nd.acts {
		if fmt.Sprintf("%T", a) == "newsnet."+kind {
			n++
		}
	}
	return n
}

func randomBlob(seed uint64, size int) []byte {
	r := rand.New(rand.NewPCG(seed, 1))
	b := make([]byte, size)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// A tree: pub at the top, relay r below it, subscribers a and b below r,
// and c below a. Every subscriber gets the blob whole, each link carries
// each chunk once, and r, which wants nothing itself, keeps nothing of the
// transfer once it passed everything on.
func TestBlobTransferAlongTree(t *testing.T) {
	n := newBlobNet(t)
	data := randomBlob(1, 5*BlobChunkSize+123)
	ref := n.node("pub").store.put(data)
	n.join("r", "pub")
	n.join("a", "r")
	n.join("b", "r")
	n.join("c", "a")
	for _, s := range []string{"a", "b", "c"} {
		n.node(s).fetch(ref)
	}
	n.run(time.Second, 5)
	for _, s := range []string{"a", "b", "c"} {
		if got := n.nodes[s].store.whole(ref.Hash); !bytes.Equal(got, data) {
			t.Errorf("%s holds %d bytes of the blob, want all %d", s, len(got), len(data))
		}
		if d := n.nodes[s].count("BlobDone"); d != 1 {
			t.Errorf("%s said BlobDone %d times, want 1", s, d)
		}
	}
	for hop, chunks := range n.carried {
		if chunks != 6 {
			t.Errorf("link %s carried %d chunk frames, want each of the 6 chunks once", hop, chunks)
		}
	}
	if len(n.carried) != 4 {
		t.Errorf("chunks crossed %d links, want the 4 of the tree: %v", len(n.carried), n.carried)
	}
	for name, nd := range n.nodes {
		if len(nd.xfers.xfers) != 0 {
			t.Errorf("%s still tracks %d transfers after all were done", name, len(nd.xfers.xfers))
		}
	}
}

// A servant that wants nothing is sent nothing: only askers and the relays
// toward them carry chunks.
func TestBlobTransferOnlyToAskers(t *testing.T) {
	n := newBlobNet(t)
	ref := n.node("pub").store.put(randomBlob(2, 3*BlobChunkSize))
	n.join("r", "pub")
	n.join("a", "r")
	n.join("idle", "r")
	n.join("far", "pub")
	n.node("a").fetch(ref)
	n.run(time.Second, 5)
	for hop := range n.carried {
		if hop != "pub>r" && hop != "r>a" {
			t.Errorf("chunks crossed %s, which leads to no asker", hop)
		}
	}
	if n.nodes["idle"].store.whole(ref.Hash) != nil || n.nodes["far"].store.whole(ref.Hash) != nil {
		t.Error("a servant that asked for nothing holds the blob")
	}
}

// A relay that corrupts a chunk: the receiver refuses it, asks again, and
// ends with the right bytes.
func TestBlobTransferRefusesCorruptChunk(t *testing.T) {
	n := newBlobNet(t)
	data := randomBlob(3, 4*BlobChunkSize)
	ref := n.node("pub").store.put(data)
	n.join("r", "pub")
	n.join("a", "r")
	corrupted := 0
	n.tamper = func(f *blobFrame) bool {
		if c, ok := f.m.(*BlobChunk); ok && f.from == "r" && c.Index == 2 && corrupted == 0 {
			corrupted++
			bad := slices.Clone(c.Data)
			bad[100] ^= 0xff
			f.m = &BlobChunk{Hash: c.Hash, Index: c.Index, Data: bad}
		}
		return false
	}
	n.node("a").fetch(ref)
	n.run(time.Second, 30)
	if corrupted != 1 {
		t.Fatalf("the test relay corrupted %d chunks, want 1", corrupted)
	}
	if got := n.nodes["a"].store.whole(ref.Hash); !bytes.Equal(got, data) {
		t.Fatalf("a holds %d bytes after the corrupt chunk, want the whole blob", len(got))
	}
	if n.nodes["a"].xfers.counters.Refused != 1 {
		t.Errorf("a refused %d chunks, want 1", n.nodes["a"].xfers.counters.Refused)
	}
	if !slices.Contains(n.nodes["a"].notes, "misbehaved: r forged") {
		t.Errorf("the spoiled chunk was not counted against r: %q", n.nodes["a"].notes)
	}
}

// A forged chunk list (one that does not hash to the manifest's root) is
// refused, and the true one asked for again.
func TestBlobTransferRefusesForgedList(t *testing.T) {
	n := newBlobNet(t)
	data := randomBlob(4, 2*BlobChunkSize+5)
	ref := n.node("pub").store.put(data)
	n.join("a", "pub")
	forged := false
	n.tamper = func(f *blobFrame) bool {
		if h, ok := f.m.(*BlobHead); ok && !forged {
			forged = true
			list := slices.Clone(h.Chunks)
			list[0][0] ^= 1
			f.m = &BlobHead{Hash: h.Hash, Chunks: list}
		}
		return false
	}
	n.node("a").fetch(ref)
	n.run(time.Second, 30)
	if got := n.nodes["a"].store.whole(ref.Hash); !bytes.Equal(got, data) {
		t.Fatalf("a holds %d bytes after a forged list, want the whole blob", len(got))
	}
	if n.nodes["a"].xfers.counters.Refused == 0 {
		t.Error("the forged list was not counted refused")
	}
}

// The link toward the source is cut mid-transfer: the asker asks again over
// another path and completes, without asking again for what it holds.
func TestBlobTransferSurvivesCut(t *testing.T) {
	n := newBlobNet(t)
	data := randomBlob(5, 8*BlobChunkSize)
	ref := n.node("pub").store.put(data)
	n.node("r2").store.put(data) // another holder, e.g. an archive
	n.join("r1", "pub")
	n.join("a", "r1")
	n.join("a", "r2") // a's second tree link
	n.nodes["a"].toward = n.linkBetween("a", "r1")
	chunks := 0
	n.tamper = func(f *blobFrame) bool {
		if _, ok := f.m.(*BlobChunk); ok && f.to == "a" {
			chunks++
			if chunks == 3 {
				n.cut("a", "r1")
				return true
			}
		}
		return false
	}
	n.node("a").fetch(ref)
	n.run(time.Second, 30)
	if got := n.nodes["a"].store.whole(ref.Hash); !bytes.Equal(got, data) {
		t.Fatalf("a holds %d bytes after the cut, want the whole blob", len(got))
	}
	if got := n.carried["r2>a"]; got > 8-2 {
		t.Errorf("the second path carried %d chunks, want only the %d missing", got, 8-2)
	}
}

func (n *blobNet) linkBetween(a, b string) LinkID {
	for id, p := range n.nodes[a].peer {
		if p == b {
			return id
		}
	}
	n.t.Fatalf("no link %s-%s", a, b)
	return 0
}

// Nobody holds the blob: the asker gives up after its attempts, counts the
// blob lost once, and the relay tells the asker behind it.
func TestBlobTransferGivesUp(t *testing.T) {
	n := newBlobNet(t)
	ref, _ := blobOf(randomBlob(6, BlobChunkSize+1))
	n.join("r", "pub") // pub does not hold it either
	n.join("a", "r")
	n.nodes["a"].cfg.Lost = 4
	n.nodes["a"].xfers.lost = 4
	n.node("a").fetch(ref)
	n.run(10*time.Second, 200)
	a := n.nodes["a"]
	var lost []BlobLost
	for _, act := range a.acts {
		if l, ok := act.(BlobLost); ok {
			lost = append(lost, l)
		}
	}
	if len(lost) != 1 || lost[0].Total != 5 || lost[0].Hash != ref.Hash {
		t.Fatalf("a reported %v, want one BlobLost of the blob with Total 5", lost)
	}
	for name, nd := range n.nodes {
		if len(nd.xfers.xfers) != 0 {
			t.Errorf("%s still tracks the blob it gave up on", name)
		}
	}
}

// Chunks wait while the link has no room: at most BlobConfig.Window bytes
// of chunks are queued on a link at any time.
func TestBlobTransferKeepsToWindow(t *testing.T) {
	n := newBlobNet(t)
	ref := n.node("pub").store.put(randomBlob(7, 20*BlobChunkSize))
	n.join("a", "pub")
	pub := n.nodes["pub"]
	most := 0
	n.tamper = func(f *blobFrame) bool {
		for _, q := range pub.queued {
			most = max(most, q)
		}
		return false
	}
	n.node("a").fetch(ref)
	n.run(time.Second, 5)
	if n.nodes["a"].store.whole(ref.Hash) == nil {
		t.Fatal("a did not get the blob")
	}
	if most*BlobChunkSize > pub.cfg.Window {
		t.Errorf("up to %d chunks were queued on the link, more than the window of %d bytes", most, pub.cfg.Window)
	}
}

// A servant running MaxTransfers refuses another want with BlobNone.
func TestBlobTransferBusy(t *testing.T) {
	n := newBlobNet(t)
	n.join("a", "pub")
	pub := n.nodes["pub"]
	pub.cfg.MaxTransfers = 1
	r1, _ := blobOf(randomBlob(8, 10))
	r2, _ := blobOf(randomBlob(9, 10))
	n.node("a").fetch(r1)
	n.node("a").fetch(r2)
	for len(n.queue) > 0 {
		f := n.queue[0]
		n.queue = n.queue[1:]
		n.deliver(f)
	}
	if pub.xfers.counters.Busy != 1 {
		t.Errorf("pub refused %d wants as busy, want 1", pub.xfers.counters.Busy)
	}
}

// One neighbour asking for many blobs nobody holds fills at most an eighth
// of the transfers: another neighbour's want is still taken.
func TestBlobTransferBoundsOneAsker(t *testing.T) {
	n := newBlobNet(t)
	n.join("r", "pub")
	n.join("greedy", "r")
	n.join("a", "r")
	r := n.nodes["r"]
	r.cfg.MaxTransfers = 16
	for i := range 10 {
		ref, _ := blobOf(randomBlob(uint64(100+i), 10))
		n.node("greedy").fetch(ref)
	}
	real := n.node("pub").store.put(randomBlob(99, 3*BlobChunkSize))
	n.node("a").fetch(real)
	n.run(time.Second, 5)
	if r.xfers.counters.Busy != 8 {
		t.Errorf("r refused %d of greedy's 10 wants, want 8 (it may wait on 2)", r.xfers.counters.Busy)
	}
	if n.nodes["a"].store.whole(real.Hash) == nil {
		t.Error("a did not get its blob while greedy's wants were pending")
	}
}
