package newsnet

// The direct-delivery messages (JP5458944B2, direct.go), each with its
// codec.

// DirectRequest asks a source for direct delivery (direct.go,
// JP5458944B2's P2P subscription request): its items in Categories, sent
// to the requester over a link of their own, outside the tree. It travels
// toward the source along the reverse path (reverse.go); Trail lists the
// servants it passed, the requester first, so the answer can retrace it.
type DirectRequest struct {
	Source     string
	Categories CategorySet
	Trail      []ServantID
}

// DirectAnswer is the source's answer to a DirectRequest, travelling back
// along Trail (each hop removes itself from the end). Refused is empty
// when the source accepts: the requester then dials Publisher, the
// source's servant, and opens the link with a DirectHello. Otherwise it
// says why ("budget full: 4 direct links").
type DirectAnswer struct {
	Trail      []ServantID
	Source     string
	Publisher  ServantID
	Categories CategorySet
	Refused    string
}

// DirectHello is the first frame on a direct link, from the subscriber
// that dialed: the source's servant takes the link as direct if it
// accepted From's request for Source (and refuses it otherwise).
type DirectHello struct {
	From       ServantID
	Source     string
	Categories CategorySet
}

// DirectCover installs an exception (JP5458944B2's exception node list)
// on the tree link it arrives over: everyone beyond that link who needs
// Source's items in Categories receives those from count From on
// directly, so the receiver stops forwarding them there. It travels toward
// the source, hop by hop, as far as the claim holds (direct.go). It
// replaces the previous cover of the same source on that link; an empty
// Categories withdraws it.
type DirectCover struct {
	Source     string
	Categories CategorySet
	From       uint64
}

func (m *DirectRequest) marshal(e *encoder) {
	e.string("source", m.Source, MaxIDBytes)
	e.categories("categories", m.Categories)
	e.ids("trail", m.Trail)
}

func (m *DirectRequest) unmarshal(d *decoder) {
	m.Source = d.string("source", MaxIDBytes)
	m.Categories = d.categories("categories")
	m.Trail = d.ids("trail")
}

func (m *DirectAnswer) marshal(e *encoder) {
	e.ids("trail", m.Trail)
	e.string("source", m.Source, MaxIDBytes)
	e.id("publisher", m.Publisher)
	e.categories("categories", m.Categories)
	e.string("refused", m.Refused, MaxReasonBytes)
}

func (m *DirectAnswer) unmarshal(d *decoder) {
	m.Trail = d.ids("trail")
	m.Source = d.string("source", MaxIDBytes)
	m.Publisher = d.id("publisher")
	m.Categories = d.categories("categories")
	m.Refused = d.string("refused", MaxReasonBytes)
}

func (m *DirectHello) marshal(e *encoder) {
	e.id("from", m.From)
	e.string("source", m.Source, MaxIDBytes)
	e.categories("categories", m.Categories)
}

func (m *DirectHello) unmarshal(d *decoder) {
	m.From = d.id("from")
	m.Source = d.string("source", MaxIDBytes)
	m.Categories = d.categories("categories")
}

func (m *DirectCover) marshal(e *encoder) {
	e.string("source", m.Source, MaxIDBytes)
	e.categories("categories", m.Categories)
	e.uvarint(m.From)
}

func (m *DirectCover) unmarshal(d *decoder) {
	m.Source = d.string("source", MaxIDBytes)
	m.Categories = d.categories("categories")
	m.From = d.uvarint("from")
}
