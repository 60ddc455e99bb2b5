//go:build wirenext

package newsnet

// A build of a next wire version, for the interoperability test only
// (interop/): it speaks versions 5 and 6, and at 6 a Ping carries one more
// field, which a servant of version 5 would refuse as trailing bytes. So a
// mixed network works only if every frame is encoded at its link's
// version.
const (
	ProtocolVersion    = 6
	MinProtocolVersion = 5
)

const pingNextSince = 6

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
