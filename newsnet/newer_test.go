package newsnet

import (
	"math/rand/v2"
	"testing"
)

// nextOnly is a frame of a wire version after this one.
type nextOnly struct{ Ping }

func (nextOnly) since() uint16 { return ProtocolVersion + 1 }

// A frame newer than a link's wire version is never sent on it, and is
// counted; on a link at its version it goes out.
func TestFrameNewerThanLinkNotSent(t *testing.T) {
	cfg := DefaultConfig("10.0.0.1:7400")
	cfg.Rand = rand.New(rand.NewPCG(1, 1))
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	s.Step(Start{})
	s.Step(LinkUp{Link: 1, Inbound: true, Version: ProtocolVersion, Release: "0.1.0"})
	s.Step(LinkUp{Link: 2, Inbound: true, Version: ProtocolVersion + 1})
	s.send(s.links[1], &nextOnly{})
	s.send(s.links[2], &nextOnly{})
	var sent []LinkID
	for _, a := range s.out {
		if snd, ok := a.(Send); ok {
			sent = append(sent, snd.Link)
		}
	}
	if len(sent) != 1 || sent[0] != 2 {
		t.Errorf("sent on links %v, want only 2", sent)
	}
	if s.counters.TooNew != 1 {
		t.Errorf("TooNew = %d, want 1", s.counters.TooNew)
	}
	if l := s.links[1]; l.release != "0.1.0" || l.version != ProtocolVersion {
		t.Errorf("link 1: version %d release %q", l.version, l.release)
	}
}
