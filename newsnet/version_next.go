//go:build wirenext

package newsnet

// A build of a next wire version, for the interoperability test only
// (interop/): it speaks versions 5 to 9, and at 9 a Ping carries one more
// field, which a servant of version 8 would refuse as trailing bytes. So a
// mixed network works only if every frame is encoded at its link's
// version.
const (
	ProtocolVersion    = 9
	MinProtocolVersion = 5
)

const pingNextSince = 9

func marshalPingNext(e *encoder) {
	if e.version >= pingNextSince {
		e.uvarint(pingNextSince)
	}
}

func unmarshalPingNext(d *decoder) {
	if d.version >= pingNextSince {
		d.uvarint("next")
	}
}
