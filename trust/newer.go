package trust

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
)

// Definitions from a newer release.
//
// A company upgrades one computer at a time, and an admin on a newer
// release may sign a definition with members this release does not know.
// Refusing it would leave this servant on the old definition (old seeds,
// old secret: cut off after a rotation) until it is upgraded. So a
// definition may carry, after every member this release knows, members it
// does not know. They are kept as received, byte for byte, and passed on
// unchanged: the signature covers them, so they verify here as they do on
// the newer release. What this release does with the definition is
// unchanged: it reads the members it knows. Editing such a definition is
// refused (SignNetwork): this release could not keep what it does not
// understand consistent with an edit.
//
// Why this is safe: the signature is checked over the bytes as received,
// and only an admin of the current definition can sign; the members this
// release reads are exactly those it would read without the newer ones;
// and a newer release only ever adds members after the existing ones, so
// the known part keeps its canonical form and order.

// MaxNewerMembers bounds the members of a newer release one definition
// may carry.
const MaxNewerMembers = 16

// rawMember is one member of a newer release, as received.
type rawMember struct {
	name  string
	value json.RawMessage
}

// knownMembers are the members of networkDoc, in canonical order.
var knownMembers = func() []string {
	t := reflect.TypeFor[networkDoc]()
	names := make([]string, t.NumField())
	for i := range names {
		names[i], _, _ = strings.Cut(t.Field(i).Tag.Get("json"), ",")
	}
	return names
}()

// NewerMembers lists the members of a newer release that the definition
// carries (see newer.go), nil when none.
func (n *Network) NewerMembers() []string {
	var names []string
	for _, m := range n.newer {
		names = append(names, m.name)
	}
	return names
}

// splitNewer splits a definition's "network" object into the part this
// release knows (an object of its members, as they were) and the members
// after it that it does not know. Known members after an unknown one, and
// any member twice, are errors: the encoding would not be canonical.
func splitNewer(data []byte) (known []byte, newer []rawMember, err error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, nil, errors.New("not a JSON object")
	}
	var buf bytes.Buffer
	buf.WriteByte('{')
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, nil, err
		}
		name, _ := tok.(string)
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return nil, nil, err
		}
		if seen[name] {
			return nil, nil, fmt.Errorf("%q: twice", name)
		}
		seen[name] = true
		if !slices.Contains(knownMembers, name) {
			if len(newer) == MaxNewerMembers {
				return nil, nil, fmt.Errorf("more than %d members of a newer release", MaxNewerMembers)
			}
			newer = append(newer, rawMember{name: name, value: value})
			continue
		}
		if len(newer) > 0 {
			return nil, nil, fmt.Errorf("%q after %q, a member of a newer release: not in canonical order", name, newer[0].name)
		}
		if buf.Len() > 1 {
			buf.WriteByte(',')
		}
		key, _ := json.Marshal(name)
		buf.Write(key)
		buf.WriteByte(':')
		buf.Write(value)
	}
	if _, err := dec.Token(); err != nil {
		return nil, nil, err
	}
	buf.WriteByte('}')
	return buf.Bytes(), newer, nil
}

// appendNewer appends the newer members to doc, the canonical object of
// the known ones.
func appendNewer(doc []byte, newer []rawMember) []byte {
	if len(newer) == 0 {
		return doc
	}
	out := slices.Clone(doc[:len(doc)-1])
	for _, m := range newer {
		key, _ := json.Marshal(m.name)
		out = append(out, ',')
		out = append(out, key...)
		out = append(out, ':')
		out = append(out, m.value...)
	}
	return append(out, '}')
}
