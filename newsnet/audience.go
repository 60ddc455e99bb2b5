package newsnet

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	"newsdesk/netrange"
)

// Audiences (issue 15): a multicast message may be meant only for the
// servants whose advertised address lies in one of a few network ranges
// (Multicast.Audience). The partition tree makes that cheap: ID values
// follow addresses (id.go), and every tree link leads to a known range of
// them (a downlink to its slot of our partition, the uplink to everything
// outside our partition and to our ancestors), so a servant forwards such
// a message only over links that can lead into the audience. An
// office-only item then travels the path from its publisher into the
// office's subtree and no further.
//
// The ranges map to ID values exactly for IPv4 (addr<<16 | port). For
// IPv6 the map is a superset: a range of /48 or longer covers whole /64
// blocks of its site; a shorter one folds into the hashed site bits and
// covers the whole IPv6 space, so it is forwarded everywhere IPv6 servants
// are. A host name says nothing about the address, so a servant that
// advertises one is never inside an audience.
//
// Whether a message is for this servant is decided exactly, on its own
// advertised address. A servant outside the audience relays the message
// where the rule above sends it but never delivers it, and its gap
// classification treats it as foreign: the publisher's chains (chain.go)
// record an audience message not under its category but under one key per
// range ("@10.1.4.0~22/hr"), and a receiver follows, beside each
// subscription, the keys of the ranges that hold its own address. So the
// servants inside ask for an audience message they missed, and those
// outside do not.

// MaxAudience bounds the ranges of one message's audience, as news bounds
// an item's (both are netrange's limit).
const MaxAudience = netrange.MaxRanges

// idRange is an inclusive range of ID values.
type idRange struct{ lo, hi uint64 }

// audienceIDRanges returns the ID values an audience's servants can have,
// sorted and merged. Empty for an empty audience.
func audienceIDRanges(ps []netip.Prefix) []idRange {
	rs := make([]idRange, 0, len(ps))
	for _, p := range ps {
		rs = append(rs, prefixIDRange(p))
	}
	slices.SortFunc(rs, func(a, b idRange) int { return cmp.Compare(a.lo, b.lo) })
	merged := rs[:0]
	for _, r := range rs {
		if n := len(merged); n > 0 && r.lo <= merged[n-1].hi {
			merged[n-1].hi = max(merged[n-1].hi, r.hi)
			continue
		}
		merged = append(merged, r)
	}
	return merged
}

// prefixIDRange maps one range to the ID values its servants can have (see
// IDValue): exact for IPv4, a superset for IPv6.
func prefixIDRange(p netip.Prefix) idRange {
	p = p.Masked()
	if p.Addr().Is4() {
		lo := ipv4Value(p.Addr())
		span := uint64(1)<<(32-p.Bits()) - 1 // addresses in the range, less one
		return idRange{lo << 16, (lo+span)<<16 | 0xffff}
	}
	const v6 = uint64(familyIPv6) << familyShift
	if p.Bits() < 48 {
		// The site is hashed: any IPv6 value may be inside.
		return idRange{v6, v6 + familySpace - 1}
	}
	b := p.Addr().As16()
	site := fold(b[:6], ipv6SiteBits)
	subnet := uint64(binary.BigEndian.Uint16(b[6:8]))
	free := 64 - min(p.Bits(), 64) // subnet bits the range leaves open
	base := v6 | site<<(ipv6SubnetBits+ipv6InterfaceBits)
	lo := base | subnet<<ipv6InterfaceBits
	hi := base | (subnet|(uint64(1)<<free-1))<<ipv6InterfaceBits | (uint64(1)<<ipv6InterfaceBits - 1)
	return idRange{lo, hi}
}

func ipv4Value(a netip.Addr) uint64 {
	b := a.As4()
	return uint64(binary.BigEndian.Uint32(b[:]))
}

// intersects reports whether any of rs meets [lo, hi].
func intersects(rs []idRange, lo, hi uint64) bool {
	for _, r := range rs {
		if r.lo <= hi && lo <= r.hi {
			return true
		}
	}
	return false
}

// containsValue reports whether v lies in one of rs.
func containsValue(rs []idRange, v uint64) bool { return intersects(rs, v, v) }

// audienceLink reports whether a message for the audience rs may cross
// tree link l: a downlink only when its slot of our partition meets the
// audience; the uplink unless the audience lies inside our partition and
// holds none of our ancestors (everything else is above us). A message
// without an audience crosses every link.
func (s *Servant) audienceLink(l *link, rs []idRange) bool {
	if len(rs) == 0 || s.cfg.Flood {
		return true
	}
	if l != s.up && l.leaf {
		// Nothing lies beyond a leaf, and nobody dialed it at the address
		// it advertises: where its connection comes from must be inside
		// too.
		return containsValue(rs, l.value) && containsValue(rs, l.seenValue())
	}
	if l != s.up {
		lo, hi := s.adm.part.SlotRange(l.slot)
		return intersects(rs, lo, hi) || containsValue(rs, l.value)
	}
	for _, r := range rs {
		if r.lo < s.adm.part.Lo || r.hi > s.adm.part.Hi {
			return true
		}
	}
	if containsValue(rs, l.value) {
		return true
	}
	for _, a := range s.rootPath {
		if containsValue(rs, IDValue(a)) {
			return true
		}
	}
	return false
}

// audienceState decides what audiences mean for this servant: whether a
// message is for it, which chain keys it follows, and which answers it
// withholds from a requester outside an item's audience. Which tree links
// an audience message crosses is routing, and stays with the servant
// (audienceLink).
type audienceState struct {
	addr     netip.Addr          // our advertised address; invalid for a host name
	mine     map[string][]uint32 // subscription → shorts, ascending
	flood    bool                // a flooding network has no audiences (Config.Flood)
	counters *Counters
}

func newAudienceState(cfg *Config, counters *Counters) audienceState {
	return audienceState{addr: advertisedAddr(cfg.ID), flood: cfg.Flood, counters: counters}
}

// forMe reports whether m is for this servant: it has no audience, or our
// advertised address lies in one of its ranges (exactly, not by ID value).
func (a *audienceState) forMe(m *Multicast) bool {
	return len(m.Audience) == 0 || a.inside(m.Audience)
}

// inside reports whether our advertised address lies in one of the ranges
// ps: never for a host name or an empty audience.
func (a *audienceState) inside(ps []netip.Prefix) bool {
	if !a.addr.IsValid() {
		return false
	}
	for _, p := range ps {
		if p.Contains(a.addr) {
			return true
		}
	}
	return false
}

// advertisedAddr returns the IP address of a servant ID, or the zero Addr
// for a host name.
func advertisedAddr(id ServantID) netip.Addr {
	host, _, err := net.SplitHostPort(string(id))
	if err != nil {
		return netip.Addr{}
	}
	a, err := netip.ParseAddr(host)
	if err != nil {
		return netip.Addr{}
	}
	return a.Unmap().WithZone("")
}

// audienceKey is the chain key of an audience message's category c under
// range p: "@10.1.4.0~22/hr". '~' stands for the prefix's '/', which
// would split it into ancestors.
func audienceKey(p netip.Prefix, c string) string {
	return "@" + p.Addr().String() + "~" + strconv.Itoa(p.Bits()) + "/" + c
}

// chainKeys returns the keys a message is recorded under in its source's
// chains: its category, or for an audience message one key per range.
func chainKeys(m *Multicast) []string {
	if len(m.Audience) == 0 {
		return []string{m.Category}
	}
	keys := make([]string, len(m.Audience))
	for i, p := range m.Audience {
		keys[i] = audienceKey(p, m.Category)
	}
	return keys
}

// addChains records m in the publisher's chains.
func (o *Chains) addMessage(m *Multicast) {
	for _, k := range chainKeys(m) {
		o.Add(k, m.Count)
	}
}

// shorts returns the ShortIDs of the chain keys that an audience message
// under subscription sub has when it is for us: one per range that holds
// our address (33 for IPv4, 129 for IPv6, none for a host name),
// ascending. Computed once per subscription.
func (a *audienceState) shorts(sub string) []uint32 {
	if !a.addr.IsValid() {
		return nil
	}
	if shorts, ok := a.mine[sub]; ok {
		return shorts
	}
	if a.mine == nil {
		a.mine = map[string][]uint32{}
	}
	var shorts []uint32
	for bits := 0; bits <= a.addr.BitLen(); bits++ {
		p, _ := a.addr.Prefix(bits)
		shorts = append(shorts, ShortID(audienceKey(p, sub)))
	}
	slices.Sort(shorts)
	a.mine[sub] = shorts
	return shorts
}

// lastForMe returns the source's latest count before h among its messages
// under sub that are for us: those without audience, and those whose
// audience holds our address. ok is false when h does not tell.
func (a *audienceState) lastForMe(h *header, sub string) (last uint64, ok bool) {
	last, ok = h.lastUnder(sub)
	if !ok {
		return 0, false
	}
	// Every message of every servant asks this once per subscription, so
	// the shorter list is walked and the longer one searched: a source's
	// lasts are usually a few entries against our 33 or 129 ranges.
	shorts := a.shorts(sub)
	if len(h.lasts) < len(shorts) {
		for _, l := range h.lasts {
			if _, found := slices.BinarySearch(shorts, l.Short); found {
				last = max(last, l.Count)
			}
		}
		return last, true
	}
	for _, short := range shorts {
		if i, found := findLast(h.lasts, short); found {
			last = max(last, h.lasts[i].Count)
		}
	}
	return last, true
}

// audience encodes Multicast.Audience in the encoding of package netrange,
// which news shares for an item's audience: the header must carry the
// signed item's list byte for byte. The encoder refuses what the decoder
// would refuse.
func (e *encoder) audience(ps []netip.Prefix) {
	if e.err != nil {
		return
	}
	if err := netrange.Check(ps); err != nil {
		e.fail(audienceError(err))
		return
	}
	e.b = netrange.Append(e.b, ps)
}

// audience decodes Multicast.Audience; a count of 0 is a message without
// one (nil).
func (d *decoder) audience() []netip.Prefix {
	if d.err != nil {
		return nil
	}
	ps, rest, err := netrange.Decode(d.b)
	if err != nil {
		d.fail(audienceError(err))
		return nil
	}
	d.b = rest
	return ps
}

// audienceError is a netrange error as the wire errors of this package:
// a truncated list, too many ranges or a bad count also wrap
// errTruncated, errTooMany or errBadVarint, as those of every other field
// do.
func audienceError(err error) error {
	for _, k := range [...]struct{ from, to error }{
		{netrange.ErrTruncated, errTruncated},
		{netrange.ErrTooMany, errTooMany},
		{netrange.ErrBadCount, errBadVarint},
	} {
		if errors.Is(err, k.from) {
			return wireAudienceError{kind: k.to, err: err}
		}
	}
	return fmt.Errorf("audience: %w", err)
}

// wireAudienceError reads as netrange's error, once, and is also the
// package's own kind of wire error.
type wireAudienceError struct{ kind, err error }

func (e wireAudienceError) Error() string   { return "audience: " + e.err.Error() }
func (e wireAudienceError) Unwrap() []error { return []error{e.kind, e.err} }

// seenValue is the ID value of a downlink's peer at the address its
// connection came from (link.remote) and the port it advertises; its
// advertised value when the host did not say where it came from.
func (l *link) seenValue() uint64 {
	if !l.remote.IsValid() {
		return l.value
	}
	_, port, err := net.SplitHostPort(string(l.peer))
	if err != nil {
		return l.value
	}
	p, err := strconv.ParseUint(port, 10, 16)
	if err != nil {
		return l.value
	}
	return IDValue(ServantID(netip.AddrPortFrom(l.remote, uint16(p)).String()))
}

// requesterInside reports whether requester advertises an address inside
// m's audience.
func requesterInside(requester ServantID, m *Multicast) bool {
	addr := advertisedAddr(requester)
	if !addr.IsValid() {
		return false
	}
	for _, p := range m.Audience {
		if p.Contains(addr) {
			return true
		}
	}
	return false
}

// notForRequester reports whether m has an audience that requester, the
// servant a retransmission request or a catch-up came from, does not
// advertise an address in: it is answered with notForYou instead of the
// item. A flooding network has no audiences.
func (a *audienceState) notForRequester(requester ServantID, m *Multicast) bool {
	if len(m.Audience) == 0 || a.flood || requesterInside(requester, m) {
		return false
	}
	a.counters.AudienceWithheld++
	return true
}

// notForYou is the category an answer gives for an item whose audience
// the requester is outside of: its first range ("@10.1.4.0~22"), which is
// no category, so the requester skips the count as foreign (an archive,
// which follows every category, too) and learns nothing of the item.
func notForYou(m *Multicast) string {
	p := m.Audience[0]
	return "@" + p.Addr().String() + "~" + strconv.Itoa(p.Bits())
}

// isNotForYou reports whether an answer's category is notForYou's.
func isNotForYou(c string) bool { return strings.HasPrefix(c, "@") }

// withheldFrom reports whether m must not go over l, which is not the
// uplink up, although it was asked for: l leads to a leaf that advertises an address inside m's audience
// while its connection comes from outside it (audienceLink). Such a leaf
// takes itself to be inside and asks for what it missed; an answer would
// hand it what the tree withholds. Leaves that advertise an address
// outside never need the item, and are answered as before (their probes
// for the counts a source starts at must not wait for nothing).
func (a *audienceState) withheldFrom(l, up *link, m *Multicast) bool {
	if len(m.Audience) == 0 || l == up || !l.leaf || a.flood {
		return false
	}
	rs := audienceIDRanges(m.Audience)
	if containsValue(rs, l.value) && !containsValue(rs, l.seenValue()) {
		a.counters.AudienceWithheld++
		return true
	}
	return false
}
