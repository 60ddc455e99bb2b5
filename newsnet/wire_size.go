package newsnet

// SizeOf estimates the bytes of m's frame. Flow control counts queued
// frames with it on both sides (the core when it sends, the host when it
// reports them written), so it only needs to be cheap, deterministic and
// close: payloads, paths and lists are counted exactly, small fixed fields
// roughly.
func SizeOf(m Message) int {
	const frame = headerLen + 1 + 8 // length prefix, type byte, a few small fields
	switch m := m.(type) {
	case *Multicast:
		return frame + multicastSize(m)
	case *Recovered:
		n := frame + pathSize(m.Trail) + len(m.Source) + 5*len(m.Missing)
		if m.Msg != nil {
			n += multicastSize(m.Msg)
		}
		for _, cc := range m.Categories {
			n += len(cc.Category) + 6
		}
		return n
	case *Recover:
		return frame + len(m.Source) + 5*len(m.Counts) + pathSize(m.Trail)
	case *CatchUp:
		n := frame + pathSize(m.Trail) + catSetSize(m.Categories)
		for _, k := range m.Known {
			n += len(k.Source) + 6
		}
		return n
	case *CatchUpDone:
		n := frame + pathSize(m.Trail)
		for _, k := range m.Next {
			n += len(k.Source) + 6
		}
		return n
	case *LatestHeader:
		return frame + len(m.Source) + len(m.Category) + historySize(m.History, m.historyWire) + 6*len(m.Lasts)
	case *RoutingInfo:
		return frame + catSetSize(m.Categories)
	case *PartitionInfo:
		return frame + 16 + pathSize(m.Path)
	case *JoinAccept:
		return frame + 16 + pathSize(m.Path)
	case *Siblings:
		return frame + pathSize(m.IDs)
	case *DirectRequest:
		return frame + len(m.Source) + catSetSize(m.Categories) + pathSize(m.Trail)
	case *DirectAnswer:
		return frame + len(m.Source) + len(m.Publisher) + len(m.Refused) + catSetSize(m.Categories) + pathSize(m.Trail)
	case *DirectHello:
		return frame + len(m.From) + len(m.Source) + catSetSize(m.Categories)
	case *DirectCover:
		return frame + len(m.Source) + catSetSize(m.Categories)
	case *ReachReport:
		return frame + reachReportSize(m)
	case *BlobWant:
		return frame + 64 + 10 + len(m.Source) + 1 + 1 + len(m.Missing)
	case *BlobHead:
		return frame + 32 + 3 + 32*len(m.Chunks)
	case *BlobChunk:
		return frame + 32 + 3 + 3 + len(m.Data)
	case *CensusQuery:
		return frame + len(m.Target) + pathSize(m.Trail)
	case *CensusAnswer:
		return frame + len(m.Target) + pathSize(m.Trail) + 1 + netCensusSize(m.Census) + 10
	}
	return frame + 64
}

func multicastSize(m *Multicast) int {
	return 16 + 10 + len(m.Category) + len(m.Source) + len(m.Payload) + historySize(m.History, m.historyWire) + 6*len(m.Lasts) + 18*len(m.Audience)
}

func pathSize(p []ServantID) int {
	n := 1
	for _, id := range p {
		n += len(id) + 1
	}
	return n
}

func catSetSize(cs CategorySet) int {
	n := 1
	for _, c := range cs {
		n += len(c) + 1
	}
	return n
}
