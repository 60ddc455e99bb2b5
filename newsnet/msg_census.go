package newsnet

// Census queries (netcensus_query.go): an admin's servant asks the
// servant at the top of a partition for its census, to look further down
// the map than the network's census goes.

// CensusQuery asks Target for the census of its subtree. It travels up
// the tree until a servant's partition holds Target's ID, then down
// toward it; each hop adds itself to Trail. ID is the asker's, to match
// the answer.
type CensusQuery struct {
	ID     uint64
	Target ServantID
	Trail  []ServantID
}

// CensusAnswer answers a CensusQuery, travelling back along Trail (each
// hop removes itself from the end): Target's subtree census with two
// levels of its partitions, and when it was made (Unix ns).
type CensusAnswer struct {
	ID     uint64
	Target ServantID
	Trail  []ServantID
	Census *NetCensus
	At     int64
}

func (*CensusQuery) since() uint16  { return censusPartsSince }
func (*CensusAnswer) since() uint16 { return censusPartsSince }

func (m *CensusQuery) marshal(e *encoder) {
	e.uvarint(m.ID)
	e.id("target", m.Target)
	e.ids("trail", m.Trail)
}

func (m *CensusQuery) unmarshal(d *decoder) {
	m.ID = d.uvarint("id")
	m.Target = d.id("target")
	m.Trail = d.ids("trail")
}

func (m *CensusAnswer) marshal(e *encoder) {
	e.uvarint(m.ID)
	e.id("target", m.Target)
	e.ids("trail", m.Trail)
	e.netCensus(m.Census)
	e.uvarint(uint64(m.At))
}

func (m *CensusAnswer) unmarshal(d *decoder) {
	m.ID = d.uvarint("id")
	m.Target = d.id("target")
	m.Trail = d.ids("trail")
	m.Census = d.netCensus()
	m.At = int64(d.uvarint("at"))
}
