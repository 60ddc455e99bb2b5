//go:build !wirenext

package newsnet

// The wire versions this code speaks (hello.go): a link runs at the highest
// version both sides speak. A release speaks its own version and at least
// the one before it, so that a company can upgrade one computer at a time
// (docs/protocol.md, "Mixed versions").
const (
	ProtocolVersion    = 8 // the newest: 8 adds attachments' blobs (blobs.go, msg_blob.go)
	MinProtocolVersion = 5 // the oldest: 5 is the first released wire version (0.1.0)
)

// The next version's fields, written and read only on links that run at
// it. This version has none; the build tagged wirenext (version_next.go)
// has one, for the interoperability test.
func marshalPingNext(*encoder)   {}
func unmarshalPingNext(*decoder) {}
