package newsnet

import (
	"fmt"
	"hash/fnv"
	"net"
	"net/netip"
	"strconv"
)

// ServantID names a servant: the advertised "host:port" other servants dial.
type ServantID string

// ipv6Base is where ID values of non-IPv4 servants start, above every IPv4
// value (48 bits), so the two address families never share a partition slot
// by accident.
const ipv6Base = uint64(1) << 48

// ParseServantID validates a "host:port" address and returns it as a
// ServantID. The host may be an IPv4 or IPv6 literal or a host name; the port
// must be 1..65535.
func ParseServantID(s string) (ServantID, error) {
	host, portText, err := net.SplitHostPort(s)
	if err != nil {
		return "", fmt.Errorf("servant address %q: %v", s, err)
	}
	if host == "" {
		return "", fmt.Errorf("servant address %q: missing host", s)
	}
	port, err := strconv.ParseUint(portText, 10, 16)
	if err != nil || port == 0 {
		return "", fmt.Errorf("servant address %q: port must be 1..65535", s)
	}
	return ServantID(s), nil
}

// IDValue maps a servant ID to the unsigned integer used for partitions.
//
//   - IPv4 "a.b.c.d:port": the 6-byte big-endian value addr<<16 | port, as in
//     JP4353827B2's news example, so the servants of one subnet fall into one
//     partition and the tree follows the physical network.
//   - IPv6 literals and host names: 2^48 + (FNV-1a 64 of the ID mod 2^63),
//     which keeps them above every IPv4 value. They get no subnet locality;
//     advertise an IPv4 address where locality matters.
//
// The mapping never fails: an ID that does not parse is hashed like a name.
func IDValue(id ServantID) uint64 {
	host, portText, err := net.SplitHostPort(string(id))
	if err == nil {
		port, perr := strconv.ParseUint(portText, 10, 16)
		if addr, aerr := netip.ParseAddr(host); perr == nil && aerr == nil && addr.Is4() {
			b := addr.As4()
			return uint64(b[0])<<40 | uint64(b[1])<<32 | uint64(b[2])<<24 | uint64(b[3])<<16 | port
		}
	}
	h := fnv.New64a()
	h.Write([]byte(id))
	return ipv6Base + h.Sum64()%(uint64(1)<<63)
}
