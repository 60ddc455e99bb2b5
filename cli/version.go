package cli

import (
	"fmt"

	"newsdesk/app"
	"newsdesk/newsnet"
)

// VersionText is what `newsdesk version` prints: the release and the wire
// versions it speaks ("Newsdesk 0.1.0, protocol 5-5"), as RELEASES lists
// them.
func VersionText() string {
	return fmt.Sprintf("Newsdesk %s, protocol %d-%d", app.Release, newsnet.MinProtocolVersion, newsnet.ProtocolVersion)
}
