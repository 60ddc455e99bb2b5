package newsnet

import "time"

// allowance is a token bucket: up to burst at once, refilled at rate per
// second, starting full. The budgets that bound what a peer may ask of a
// servant (requests, reach reports, new sources) are all of this kind.
type allowance struct {
	tokens float64
	at     time.Time // when tokens was last brought up to date; zero: never
}

// fill brings a up to now.
func (a *allowance) fill(now time.Time, burst, rate float64) {
	if a.at.IsZero() {
		a.tokens, a.at = burst, now
	}
	a.tokens = min(burst, a.tokens+rate*now.Sub(a.at).Seconds())
	a.at = now
}

// take reports whether one token is left at now, and takes it.
func (a *allowance) take(now time.Time, burst, rate float64) bool {
	a.fill(now, burst, rate)
	if a.tokens < 1 {
		return false
	}
	a.tokens--
	return true
}
