package newsnet

// verifier runs Config.Verify, the host's check of a multicast message
// (its signature, its publisher's rights), and keeps what it refused: a
// count per reason for Status, and each peer and reason noted once, so a
// peer that keeps sending what fails fills no log. A rejected message is
// not marked seen, so a forged copy cannot shadow the real one.
type verifier struct {
	rejected map[string]uint64 // per reason
	noted    map[string]bool   // peer + reason already noted
}

// check returns why m, which came from peer, is rejected, "" when it is
// not.
func (v *verifier) check(c *core, peer ServantID, m *Multicast) string {
	if c.cfg.Verify == nil {
		return ""
	}
	reason := c.cfg.Verify(m)
	if reason == "" {
		return ""
	}
	if v.rejected == nil {
		v.rejected, v.noted = map[string]uint64{}, map[string]bool{}
	}
	v.rejected[reason]++
	if key := string(peer) + "\x00" + reason; !v.noted[key] {
		v.noted[key] = true
		c.note("dropping multicast messages from %s: %s", peer, reason)
	}
	return reason
}
