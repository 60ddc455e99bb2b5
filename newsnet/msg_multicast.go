package newsnet

// The multicast messages: routing information (JP4353827B2 Figs. 7-9),
// the items themselves with their counts and history (JP3679935B2), and
// leading edges, each with its codec.

import (
	"encoding/binary"
	"fmt"
	"net/netip"
)

// RoutingInfo is the multicast information message: the union of the
// sender's self set and the received sets of its other links (Fig. 7).
type RoutingInfo struct {
	Categories CategorySet
}

// Multicast is a message addressed to a category (multicast group).
//
// Source, Count and History are JP3679935B2's transmission source ID,
// communication count and past message ID information: the receiver finds
// gaps in Count and learns from History whether it needed what it missed.
type Multicast struct {
	ID       [16]byte // unique item ID (a UUID); used to drop copies
	Category string   // the multicast ID (the patent's message ID)
	Source   string   // the publishing installation (a persistent UUID)
	Count    uint64   // the source's communication count, from 1
	// History describes the categories of the source's messages before this
	// one, newest first, as runs of short IDs (see ShortID). A received
	// message leaves it nil and keeps the runs undecoded: read them with
	// HistoryRuns (history_wire.go).
	History     []HistoryRun
	historyWire []byte
	// Lasts lets a receiver classify a gap of any length without a request
	// (chain.go): for every category the source published under before
	// this message, and every ancestor of those ("hr" and "hr/payroll" for
	// "hr/payroll/eu"), the count of its latest message there, named by
	// ShortID and sorted by it. LastsComplete says the list misses none, so
	// a subscription not in it has no earlier message of the source;
	// without it (a copy rebuilt from a store, a publisher that lost track
	// of its own past) only the entries present count. Not signed: a relay
	// that lies about it can make a receiver skip what it needs, as a
	// relay that drops it can.
	Lasts         []LastCount
	LastsComplete bool
	Payload       []byte // opaque to the overlay: the encoded news item
	// Hops counts the relays the message passed: the publisher sends 0,
	// and each servant that forwards it adds one, so a subscriber that
	// receives it over the tree is Hops+1 links from the publisher
	// (direct.go: a hot source at least Config.DirectMinHops away may be
	// asked for direct delivery). Not signed, like the other overlay
	// fields a relay can lie about; the worst a lie does is ask for, or
	// miss, a direct link.
	Hops uint64
	// Audience, when not empty, limits the message to the servants whose
	// advertised address lies in one of these network ranges (audience.go):
	// only links that can lead there carry it, and only those servants
	// deliver it. Canonical as news writes an item's audience, and equal to
	// the signed item's (the host's Verify checks), so a relay cannot
	// change it.
	Audience []netip.Prefix
}

// LastCount is the latest count of a source under one category or
// ancestor, named by its ShortID. On the wire it travels as the distance
// back from the message's own count, which is small.
type LastCount struct {
	Short uint32
	Count uint64
}

// LatestHeader is the header of a source's latest message in Category,
// without its payload: the source's leading edge there (PGM's source path
// message, RFC 3208; this type was Edge, which read as a tree edge). A
// servant sends it on a link whose routing information newly asks for the
// category, and when it could not send a busy link every item it
// withheld; a receiver that lacks the message then asks for it, so the
// tail of a stream is repaired even when the source never sends again and
// no archive exists.
type LatestHeader struct {
	Source        string
	Category      string
	Count         uint64
	History       []HistoryRun // as Multicast's: read with HistoryRuns
	historyWire   []byte
	Lasts         []LastCount
	LastsComplete bool
}

// HistoryRun says that Len consecutive earlier messages of the source had
// categories with short ID Short.
type HistoryRun struct {
	Short uint32
	Len   uint32
}

func (m *RoutingInfo) marshal(e *encoder) { e.categories("categories", m.Categories) }

func (m *RoutingInfo) unmarshal(d *decoder) { m.Categories = d.categories("categories") }

func (m *Multicast) marshal(e *encoder) {
	e.raw16(m.ID)
	e.string("category", m.Category, MaxCategoryBytes)
	e.string("source", m.Source, MaxIDBytes)
	e.uvarint(m.Count)
	e.historyOf(m.History, m.historyWire)
	e.lasts(m.Lasts, m.LastsComplete, m.Count)
	e.bytes("payload", m.Payload)
	e.uvarint(m.Hops)
	e.audience(m.Audience)
}

func (m *Multicast) unmarshal(d *decoder) {
	m.ID = d.raw16("id")
	m.Category = d.string("category", MaxCategoryBytes)
	m.Source = d.string("source", MaxIDBytes)
	m.Count = d.uvarint("count")
	history := d.historyWire() // history_wire.go
	m.Lasts, m.LastsComplete = d.lasts(m.Count)
	payload := d.span("payload", MaxFrameBytes)
	m.Hops = d.uvarint("hops")
	m.Audience = d.audience()
	if d.err == nil {
		m.Payload, m.historyWire = payloadAndHistory(payload, history)
	}
}

func (m *LatestHeader) marshal(e *encoder) {
	e.string("source", m.Source, MaxIDBytes)
	e.string("category", m.Category, MaxCategoryBytes)
	e.uvarint(m.Count)
	e.historyOf(m.History, m.historyWire)
	e.lasts(m.Lasts, m.LastsComplete, m.Count)
}

func (m *LatestHeader) unmarshal(d *decoder) {
	m.Source = d.string("source", MaxIDBytes)
	m.Category = d.string("category", MaxCategoryBytes)
	m.Count = d.uvarint("count")
	m.History = d.history()
	m.Lasts, m.LastsComplete = d.lasts(m.Count)
}

func (e *encoder) history(h []HistoryRun) {
	if len(h) > MaxHistoryRuns {
		e.fail(fmt.Errorf("history: %w: %d > %d", errTooMany, len(h), MaxHistoryRuns))
		return
	}
	e.uvarint(uint64(len(h)))
	for _, r := range h {
		if r.Len == 0 {
			e.fail(fmt.Errorf("history: %w", errEmptyRun))
			return
		}
		e.uvarint(uint64(r.Short))
		e.uvarint(uint64(r.Len))
	}
}

// lasts encodes a Lasts list, strictly ascending by Short, each count as
// its distance back from count (at least 1: it is an earlier message), and
// the completeness flag.
func (e *encoder) lasts(ls []LastCount, complete bool, count uint64) {
	if len(ls) > MaxLasts {
		e.fail(fmt.Errorf("lasts: %w: %d > %d", errTooMany, len(ls), MaxLasts))
		return
	}
	e.uvarint(uint64(len(ls)))
	for i, l := range ls {
		switch {
		case i > 0 && l.Short <= ls[i-1].Short:
			e.fail(fmt.Errorf("lasts: %w", errUnsortedLasts))
			return
		case l.Count == 0 || l.Count >= count:
			e.fail(fmt.Errorf("lasts: %w: %d for count %d", errBadLast, l.Count, count))
			return
		}
		e.uvarint(uint64(l.Short))
		e.uvarint(count - l.Count)
	}
	e.flag(complete)
}

func (d *decoder) history() []HistoryRun {
	n := d.count("history", MaxHistoryRuns)
	if n == 0 {
		return nil
	}
	h := make([]HistoryRun, n)
	// Every hop decodes some hundred of these numbers per item: a tight
	// loop over well-formed ones, and the checked path (with its precise
	// error) from the first that is not.
	b, done := d.b, 0
	for done < len(h) {
		short, k := uvarint32(b)
		if k == 0 {
			break
		}
		run, l := uvarint32(b[k:])
		if l == 0 || run == 0 {
			break
		}
		h[done] = HistoryRun{Short: short, Len: run}
		b = b[k+l:]
		done++
	}
	d.b = b
	for i := done; i < len(h); i++ {
		h[i] = HistoryRun{Short: d.uint32("history short"), Len: d.uint32("history run")}
		if d.err == nil && h[i].Len == 0 {
			d.fail(fmt.Errorf("history: %w", errEmptyRun))
		}
		if d.err != nil {
			return nil
		}
	}
	return h
}

// uvarint32 decodes a minimal uvarint of at most 32 bits from the start of
// b and returns it with its length; length 0 when b does not start with
// one (truncated, too long, not minimal), for the checked path to report.
func uvarint32(b []byte) (uint32, int) {
	v, n := binary.Uvarint(b)
	if n <= 0 || n > 1 && b[n-1] == 0 || v > 1<<32-1 {
		return 0, 0
	}
	return uint32(v), n
}

func (d *decoder) lasts(count uint64) ([]LastCount, bool) {
	n := d.count("lasts", MaxLasts)
	var ls []LastCount
	if n > 0 {
		ls = make([]LastCount, n)
		for i := range ls {
			short, back := d.uint32("last short"), d.uvarint("last distance")
			switch {
			case d.err != nil:
			case i > 0 && short <= ls[i-1].Short:
				d.fail(fmt.Errorf("lasts: %w", errUnsortedLasts))
			case back == 0 || back >= count:
				d.fail(fmt.Errorf("lasts: %w: %d back from count %d", errBadLast, back, count))
			}
			if d.err != nil {
				return nil, false
			}
			ls[i] = LastCount{Short: short, Count: count - back}
		}
	}
	return ls, d.flag("lastsComplete")
}
