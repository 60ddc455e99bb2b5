package ui

import (
	"strings"
	"testing"

	"newsdesk/app"
)

// probeKinds are the kinds of problem a probe reports (all of app's, in
// its order, the unclassified ProbeOther left out).
var probeKinds = []app.ProbeKind{app.ProbeBadAddress, app.ProbeRefused, app.ProbeNoSuchHost, app.ProbeTimedOut,
	app.ProbeNoRoute, app.ProbeNotNewsdesk, app.ProbeHandshake, app.ProbeOtherNetwork, app.ProbeClosed,
	app.ProbeIncompatible, app.ProbeBroken}

// TestProbeProblemText: each kind of probe problem reads as words of its
// own in each language, without the English Problem, which serves logs
// and the API; German and Japanese read no English. A problem of no kind
// shows the English as details.
func TestProbeProblemText(t *testing.T) {
	const english = "connected, but sending the hello failed: write: broken pipe"
	inEnglish := map[app.ProbeKind]string{}
	for _, code := range []string{"en", "de", "ja"} {
		inLanguage(t, code)
		seen := map[string]app.ProbeKind{}
		for _, k := range probeKinds {
			text := probeProblemText(app.Probe{Addr: "10.1.0.5:7400", Problem: english, Kind: k})
			if text == "" || strings.Contains(text, english) {
				t.Errorf("%s: kind %d reads %q", code, k, text)
			}
			if other, ok := seen[text]; ok {
				t.Errorf("%s: kinds %d and %d both read %q", code, other, k, text)
			}
			seen[text] = k
			if code == "en" {
				inEnglish[k] = text
			} else if text == inEnglish[k] {
				t.Errorf("%s: kind %d reads English %q", code, k, text)
			}
		}
		if other := probeProblemText(app.Probe{Problem: "TLS: no exporter"}); !strings.Contains(other, "TLS: no exporter") {
			t.Errorf("%s: a problem of no kind reads %q, without its details", code, other)
		}
	}
}

// The seed editor and the wizard say a seed's probe problem in the
// interface's language, and so does the question when no seed answers
// an invitation.
func TestProbeProblemInLanguages(t *testing.T) {
	refused := &app.SeedsUnreachableError{Probes: []app.Probe{
		{Addr: "192.0.2.7:7400", Problem: "connection refused: nothing listens on 192.0.2.7:7400", Kind: app.ProbeRefused},
		{Addr: "seed.example.com:7400", Problem: "host name not found: seed.example.com", Kind: app.ProbeNoSuchHost},
	}}
	for _, c := range []struct{ code, list, unreachable string }{
		{"de", "nicht erreichbar: Verbindung abgelehnt", "192.0.2.7:7400 (Verbindung abgelehnt), seed.example.com:7400 (Hostname nicht gefunden)"},
		{"ja", "到達不能: 接続を拒否されました", "192.0.2.7:7400 (接続を拒否されました), seed.example.com:7400 (ホスト名が見つかりません)"},
	} {
		t.Run(c.code, func(t *testing.T) {
			inLanguage(t, c.code)
			_, _, s := openSeedEditor(t, "10.0.0.1:7400", "192.0.2.7:7400")
			if got := s.probes.text("192.0.2.7:7400"); got != c.list {
				t.Errorf("the refused seed reads %q, want %q", got, c.list)
			}
			if !hasLabel(s.list, c.list) {
				t.Errorf("not in the list: %q", labels(s.list))
			}
			if got := errorText(refused); !strings.Contains(got, c.unreachable) || strings.Contains(got, "nothing listens") {
				t.Errorf("no seed answers reads %q, want %q in it", got, c.unreachable)
			}
		})
	}
}
