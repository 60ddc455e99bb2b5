package ui

import (
	"context"
	"errors"
	"fmt"
	"fyne.io/fyne/v2/lang"
	"time"

	"newsdesk/app"
	"newsdesk/newsnet"
)

// probeTimeout bounds one reachability test.
const probeTimeout = 5 * time.Second

// prober tests seed addresses in the background and remembers the
// answers, for the wizard and the seed editor. UI thread only.
type prober struct {
	u        *UI
	results  map[string]app.Probe
	pending  map[string]bool
	onChange func()
}

func newProber(u *UI, onChange func()) *prober {
	return &prober{u: u, results: map[string]app.Probe{}, pending: map[string]bool{}, onChange: onChange}
}

// probe tests addr unless a test of it is running.
func (p *prober) probe(addr string) {
	if p.pending[addr] {
		return
	}
	p.pending[addr] = true
	delete(p.results, addr)
	b := p.u.b
	p.u.w.Go(func() func() {
		ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
		defer cancel()
		r := b.Probe(ctx, addr)
		return func() {
			delete(p.pending, addr)
			p.results[addr] = r
			p.onChange()
		}
	})
}

// known reports whether addr has been tested or is being tested.
func (p *prober) known(addr string) bool {
	_, ok := p.results[addr]
	return ok || p.pending[addr]
}

// text describes what is known of addr: "checking…", "reachable (2 ms)",
// "unreachable: connection refused", or "" if it was never tested.
func (p *prober) text(addr string) string {
	if p.pending[addr] {
		return lang.L("checking…")
	}
	r, ok := p.results[addr]
	switch {
	case !ok:
		return ""
	case r.OK:
		return fmt.Sprintf(lang.L("reachable (%s)"), rttText(r.RTT))
	case r.Problem != "" || r.Kind != app.ProbeOther:
		return fmt.Sprintf(lang.L("unreachable: %s"), probeProblemText(r))
	}
	return lang.L("unreachable")
}

// probeProblemText says what a failed probe met, in the interface's
// language and short enough to follow an address in a list: the kind,
// not the English Problem, which only a kind the interface has no words
// for shows, as details.
func probeProblemText(p app.Probe) string {
	switch p.Kind {
	case app.ProbeBadAddress:
		return lang.L("not a host:port address")
	case app.ProbeRefused:
		return lang.L("connection refused")
	case app.ProbeNoSuchHost:
		return lang.L("host name not found")
	case app.ProbeTimedOut:
		return lang.L("no answer (the computer is off, or a firewall blocks the port)")
	case app.ProbeNoRoute:
		return lang.L("no route to this address")
	case app.ProbeNotNewsdesk:
		return lang.L("something other than Newsdesk answers")
	case app.ProbeHandshake:
		return lang.L("no Newsdesk answers (or one of an older release)")
	case app.ProbeOtherNetwork:
		return lang.L("a Newsdesk of another network answers")
	case app.ProbeClosed:
		return lang.L("the other side closed the connection")
	case app.ProbeIncompatible:
		return lang.L("a Newsdesk of a release this one cannot link with answers")
	case app.ProbeBroken:
		return lang.L("the connection broke off")
	}
	return fmt.Sprintf(lang.L("cannot connect (details in English: %s)"), p.Problem)
}

func rttText(d time.Duration) string {
	if d < time.Millisecond {
		return "<1 ms"
	}
	return fmt.Sprintf(lang.L("%d ms"), d.Round(time.Millisecond)/time.Millisecond)
}

// addrProblem is the reason an address was refused, without the address
// repeated ("missing port in address").
func addrProblem(err error) string {
	if ae, ok := errors.AsType[*app.AddrError](err); ok {
		return addrReasonText(ae.Reason)
	}
	if ae, ok := errors.AsType[*newsnet.AddrError](err); ok {
		return addrReasonText(ae.Reason)
	}
	return errorText(err)
}
