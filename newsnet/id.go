package newsnet

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"strings"
)

// ServantID names a servant: the advertised "host:port" other servants dial.
type ServantID string

// ID values live in four value spaces of 2^62 each, named by their top two
// bits: the address families. A family's space is a partition of its own
// (PartitionFor), so servants of two families never share a slot.
const (
	familyShift = 62
	familySpace = uint64(1) << familyShift

	familyIPv4 = 0 // addr<<16 | port, below 2^48
	familyIPv6 = 2 // from 2^63
	familyName = 3 // host names (and IDs that do not parse), from 3·2^62
)

// Bits of an IPv6 ID value below its family bits: the /48 routing prefix
// folded to 18 bits, the 16-bit subnet ID as it is, and the interface ID
// and port folded to 28 bits. One /64 is an aligned block of 2^28 values
// and one /48 of 2^44 (16^7 and 16^11: whole partitions for N = 16).
const (
	ipv6SiteBits      = 18
	ipv6SubnetBits    = 16
	ipv6InterfaceBits = 28
)

// Bits of a host name's ID value: the name folded to 46 bits above the port.
const nameHostBits = 46

// ParseServantID validates a "host:port" address and returns it as a
// ServantID. The host may be an IPv4 or IPv6 literal or a host name; the port
// must be 1..65535.
// An address it refuses is an *AddrError.
func ParseServantID(s string) (ServantID, error) {
	host, portText, err := net.SplitHostPort(s)
	if err != nil {
		reason := err.Error()
		if ae, ok := err.(*net.AddrError); ok {
			reason = ae.Err
		}
		return "", &AddrError{Addr: s, Reason: reason, Err: err}
	}
	if host == "" {
		return "", &AddrError{Addr: s, Reason: "missing host"}
	}
	port, err := strconv.ParseUint(portText, 10, 16)
	if err != nil || port == 0 {
		return "", &AddrError{Addr: s, Reason: "port must be 1..65535"}
	}
	return ServantID(s), nil
}

// AddrError: an address ParseServantID refuses. Its message names the
// address and the reason (`servant address "host": address host: missing
// port in address`); Reason is the reason alone, for a caller that shows
// the address itself.
type AddrError struct {
	Addr   string
	Reason string // "missing port in address", "missing host", "port must be 1..65535", …
	Err    error  // net.SplitHostPort's error, when it refused the address
}

func (e *AddrError) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("servant address %q: %v", e.Addr, e.Err)
	}
	return fmt.Sprintf("servant address %q: %s", e.Addr, e.Reason)
}

// Unwrap returns Err.
func (e *AddrError) Unwrap() error { return e.Err }

// IDValue maps a servant ID to the unsigned integer used for partitions.
// The top two bits name the address family (see PartitionFor):
//
//   - IPv4 "a.b.c.d:port" (also written as an IPv4-mapped IPv6 address):
//     the 6-byte big-endian value addr<<16 | port, as in JP4353827B2's news
//     example, so the servants of one subnet fall into one partition and the
//     tree follows the physical network.
//   - IPv6 "[p:p:p:s:i:i:i:i]:port": 2^63 | site<<44 | subnet<<28 | iface,
//     where site is the /48 routing prefix folded to 18 bits, subnet the
//     16-bit subnet ID (bits 48-63 of the address), and iface the interface
//     ID and port folded to 28 bits. The servants of one /64 share an
//     aligned block of 2^28 values and those of one /48 a block of 2^44, so
//     a /64 falls into one partition as an IPv4 subnet does, and the /64s of
//     a site sit next to each other in subnet-ID order. The zone is ignored.
//   - Host names: 3·2^62 | name<<16 | port, where name is the lower-case
//     host folded to 46 bits. A name says nothing about the network, so
//     names get no locality beyond keeping the servants of one host
//     together; advertise an address where locality matters.
//
// Folding keeps the top bits of a SHA-256. The mapping never fails: an
// ID that does not parse is taken as a host name.
func IDValue(id ServantID) uint64 {
	host, portText, err := net.SplitHostPort(string(id))
	port, perr := strconv.ParseUint(portText, 10, 16)
	if err != nil || perr != nil {
		host, port = string(id), 0
	}
	if addr, err := netip.ParseAddr(host); err == nil {
		addr = addr.Unmap().WithZone("")
		if addr.Is4() {
			b := addr.As4()
			return uint64(b[0])<<40 | uint64(b[1])<<32 | uint64(b[2])<<24 | uint64(b[3])<<16 | port
		}
		b := addr.As16()
		site := fold(b[:6], ipv6SiteBits)
		subnet := uint64(binary.BigEndian.Uint16(b[6:8]))
		var ifc [10]byte // interface ID and port
		copy(ifc[:8], b[8:])
		binary.BigEndian.PutUint16(ifc[8:], uint16(port))
		iface := fold(ifc[:], ipv6InterfaceBits)
		return familyIPv6<<familyShift | site<<(ipv6SubnetBits+ipv6InterfaceBits) | subnet<<ipv6InterfaceBits | iface
	}
	name := strings.TrimSuffix(strings.ToLower(host), ".")
	return familyName<<familyShift | fold([]byte(name), nameHostBits)<<16 | port
}

// fold hashes b to bits bits: the top bits of its SHA-256. (FNV-1a's top
// bits barely change with the last byte, so two /48s that differ there
// would share a block.)
func fold(b []byte, bits int) uint64 {
	h := sha256.Sum256(b)
	return binary.BigEndian.Uint64(h[:8]) >> (64 - bits)
}
