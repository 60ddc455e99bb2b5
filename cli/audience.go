package cli

import (
	"net/netip"

	"newsdesk/news"
)

// audience parses the request's "audience": absent (or null) is everyone;
// a list must hold at least one range, each an IPv4 or IPv6 range in CIDR
// notation ("10.1.4.0/24"). The error names the bad range, or says that
// the list is empty, for a 400.
func (req *publishRequest) audience() ([]netip.Prefix, error) {
	if req.Audience == nil {
		return nil, nil
	}
	return news.ParseAudience(*req.Audience)
}
