package newsnet

// freshChunks keeps the chunks received last, so that passing one on does
// not read it back from the host's store before the host stored it. It is
// bounded in bytes; beyond, the oldest go and are read from the store.
type freshChunks struct {
	limit, bytes int
	data         map[chunkKey][]byte
	order        []chunkKey
}

type chunkKey struct {
	hash  [32]byte
	index int
}

func (f *freshChunks) put(hash [32]byte, i int, data []byte) {
	if f.data == nil {
		f.data = map[chunkKey][]byte{}
	}
	k := chunkKey{hash, i}
	if _, ok := f.data[k]; ok {
		return
	}
	f.data[k] = data
	f.order = append(f.order, k)
	f.bytes += len(data)
	for f.bytes > f.limit && len(f.order) > 0 {
		old := f.order[0]
		f.order = f.order[1:]
		f.bytes -= len(f.data[old])
		delete(f.data, old)
	}
}

func (f *freshChunks) get(hash [32]byte, i int) []byte { return f.data[chunkKey{hash, i}] }

func (f *freshChunks) forget(hash [32]byte) {
	kept := f.order[:0]
	for _, k := range f.order {
		if k.hash == hash {
			f.bytes -= len(f.data[k])
			delete(f.data, k)
			continue
		}
		kept = append(kept, k)
	}
	f.order = kept
}
