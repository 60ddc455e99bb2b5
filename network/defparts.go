package network

// Definitions larger than one item. An item body holds at most 64 KiB, and
// a definition may be up to trust.MaxDefinitionBytes (a network with
// thousands of publishers), so a large one travels as numbered parts: items
// of NetworkCategory whose body is a header line naming the part, the
// number of parts and the SHA-256 of the whole document, then a slice of
// the document. Receivers collect the parts and, once all are there and
// the hash matches, treat the document like one that came whole.
//
// A part cannot be checked against the admin signature before the rest
// arrives, so Verify checks only its carrier and header; the document is
// checked when complete, and refused then like any other.

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"newsdesk/news"
	"newsdesk/trust"
)

// partHeaderPrefix starts the body of a part; a whole definition starts
// with "{" (canonical JSON).
const partHeaderPrefix = "newsdesk-definition-part v1 "

// partChunkBytes is the largest slice of the document in one part: the body
// limit less room for the header.
const partChunkBytes = news.MaxBodyBytes - 256

// maxDefinitionParts bounds the parts of one document.
const maxDefinitionParts = (trust.MaxDefinitionBytes + partChunkBytes - 1) / partChunkBytes

// definitionPart is one parsed part.
type definitionPart struct {
	index, total int // 1-based index
	sum          [sha256.Size]byte
	chunk        string
}

// splitDefinition returns the bodies of the parts of doc (one body, the
// document itself, when it fits). Cuts fall between characters, so every
// body is valid UTF-8.
func splitDefinition(doc []byte) ([]string, error) {
	if len(doc) <= news.MaxBodyBytes {
		return []string{string(doc)}, nil
	}
	if len(doc) > trust.MaxDefinitionBytes {
		return nil, fmt.Errorf("network definition of %d bytes: larger than %d", len(doc), trust.MaxDefinitionBytes)
	}
	var chunks [][]byte
	for rest := doc; len(rest) > 0; {
		n := min(partChunkBytes, len(rest))
		for n < len(rest) && n > 0 && !utf8.RuneStart(rest[n]) {
			n--
		}
		chunks = append(chunks, rest[:n])
		rest = rest[n:]
	}
	sum := sha256.Sum256(doc)
	bodies := make([]string, len(chunks))
	for i, c := range chunks {
		bodies[i] = fmt.Sprintf("%s%d/%d %x\n%s", partHeaderPrefix, i+1, len(chunks), sum, c)
	}
	return bodies, nil
}

// parseDefinitionPart parses a part's body; ok is false for a body that is
// not a part (a whole definition). A malformed part is an error.
func parseDefinitionPart(body string) (p definitionPart, ok bool, err error) {
	rest, found := strings.CutPrefix(body, partHeaderPrefix)
	if !found {
		return p, false, nil
	}
	header, chunk, found := strings.Cut(rest, "\n")
	if !found {
		return p, true, fmt.Errorf("definition part: no header line")
	}
	fields := strings.Fields(header)
	if len(fields) != 2 {
		return p, true, fmt.Errorf("definition part: header %q", header)
	}
	num, total, found := strings.Cut(fields[0], "/")
	if !found {
		return p, true, fmt.Errorf("definition part: header %q", header)
	}
	if p.index, err = strconv.Atoi(num); err != nil {
		return p, true, fmt.Errorf("definition part: index %q", num)
	}
	if p.total, err = strconv.Atoi(total); err != nil {
		return p, true, fmt.Errorf("definition part: total %q", total)
	}
	if p.total < 2 || p.total > maxDefinitionParts || p.index < 1 || p.index > p.total {
		return p, true, fmt.Errorf("definition part %d of %d: out of range", p.index, p.total)
	}
	sum, err := hex.DecodeString(fields[1])
	if err != nil || len(sum) != sha256.Size {
		return p, true, fmt.Errorf("definition part: hash %q", fields[1])
	}
	copy(p.sum[:], sum)
	if chunk == "" || len(chunk) > partChunkBytes {
		return p, true, fmt.Errorf("definition part: %d bytes of document", len(chunk))
	}
	p.chunk = chunk
	return p, true, nil
}

// maxAssemblies bounds the documents being collected at once.
const maxAssemblies = 16

// definitionAssembler collects the parts of large definitions, per
// announcer: the key that signed the parts' carriers. Parts from another
// key cannot spoil an announcer's document by claiming its hash.
type definitionAssembler struct {
	mu    sync.Mutex
	docs  map[assemblyKey]*assembly
	order []assemblyKey // oldest first, for the bound
}

type assemblyKey struct {
	announcer string // the carriers' signing key
	sum       [sha256.Size]byte
}

type assembly struct {
	chunks []string // by index-1; "" while missing
	have   int
}

// add records a part announced by announcer and returns the whole document
// once every part of it is there and its hash matches (nil otherwise). A
// document whose parts do not hash to the sum they name is dropped.
func (d *definitionAssembler) add(announcer ed25519.PublicKey, p definitionPart) ([]byte, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.docs == nil {
		d.docs = make(map[assemblyKey]*assembly)
	}
	key := assemblyKey{announcer: string(announcer), sum: p.sum}
	as := d.docs[key]
	if as == nil {
		as = &assembly{chunks: make([]string, p.total)}
		d.docs[key] = as
		d.order = append(d.order, key)
		for len(d.order) > maxAssemblies {
			delete(d.docs, d.order[0])
			d.order = d.order[1:]
		}
	}
	if len(as.chunks) != p.total {
		return nil, fmt.Errorf("definition part %d of %d: earlier parts said %d", p.index, p.total, len(as.chunks))
	}
	if as.chunks[p.index-1] != "" {
		return nil, nil // a duplicate
	}
	as.chunks[p.index-1] = p.chunk
	as.have++
	if as.have < p.total {
		return nil, nil
	}
	d.forget(key)
	var doc bytes.Buffer
	for _, c := range as.chunks {
		doc.WriteString(c)
	}
	if sha256.Sum256(doc.Bytes()) != p.sum {
		return nil, fmt.Errorf("definition parts do not add up to the document they name")
	}
	return doc.Bytes(), nil
}

// forget drops a document's parts (mu held).
func (d *definitionAssembler) forget(key assemblyKey) {
	delete(d.docs, key)
	for i, s := range d.order {
		if s == key {
			d.order = append(d.order[:i], d.order[i+1:]...)
			return
		}
	}
}

// loadDefinitionParts reads the stored parts back after a restart, so a
// document whose last parts arrive later is still completed. A complete
// one goes through receiving again: it may have been held ahead of its
// chain, or the process stopped before adopting it (adopted ones are
// passed over as not newer).
func (k *Keeper) loadDefinitionParts() error {
	return k.eachStored(NetworkCategory, func(it *news.Item) {
		p, ok, err := parseDefinitionPart(it.Body)
		if !ok || err != nil {
			return
		}
		signer, err := trust.ItemSigner(it)
		if err != nil {
			return
		}
		if doc, _ := k.parts.add(signer, p); doc != nil {
			k.receiveDefinitionDoc(doc)
		}
	})
}
