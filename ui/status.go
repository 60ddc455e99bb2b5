package ui

import (
	"fmt"
	"net"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"newsdesk/app"
)

// messageFor is how long a message (a failed action) stays in the status
// line.
const messageFor = 15 * time.Second

// statusLine is the bar at the bottom of the window: whether this computer
// is connected to the company network, in an employee's words, with the
// details (the network view) one click away, and the last problem worth
// telling.
type statusLine struct {
	u       *UI
	icon    *widget.Icon
	text    *widget.Label
	msg     *widget.Label
	details *widget.Button
	msgGen  int
	shown   string // the text and icon last set, to skip identical redraws
	content fyne.CanvasObject
}

func newStatusLine(u *UI) *statusLine {
	s := &statusLine{u: u, icon: widget.NewIcon(theme.MediaRecordIcon()), text: widget.NewLabel(lang.L("Starting…")), msg: widget.NewLabel("")}
	s.msg.Importance = widget.DangerImportance
	s.msg.Truncation = fyne.TextTruncateEllipsis
	s.details = widget.NewButton(lang.L("Details…"), u.showNetworkDetails)
	s.details.Importance = widget.LowImportance
	s.content = container.NewVBox(widget.NewSeparator(), container.NewBorder(nil, nil, container.NewHBox(s.icon, s.text), s.details, s.msg))
	return s
}

// statusText is the status line's sentence for st: what an employee needs
// to know (connected, alone, or not), with the protocol's terms left to
// the network details.
func statusText(st app.NetStatus) string {
	var s string
	switch st.Role {
	case app.RoleAttached:
		s = lang.L("Connected to the company network")
	case app.RoleVertex:
		switch {
		case st.Alone != nil:
			s = aloneText(st.Alone)
		case len(st.Downs) > 0 || len(st.Leaves) > 0:
			s = lang.L("Connected to the company network")
		default:
			s = lang.L("Only this computer so far")
		}
	case app.RoleConnecting:
		s = lang.L("Connecting to the company network…")
	case app.RoleStopped:
		s = lang.L("Stopped")
	case app.RoleIdle:
		s = lang.L("Not started")
	default:
		s = lang.L("Starting…")
	}
	if m := st.PortMoved; m != nil {
		s += " · " + portMovedText(m)
	}
	if st.Leaf {
		s += " · " + leafNotice(st)
	}
	if st.Lost > 0 {
		s += " · " + lostText(st.Lost)
	}
	if st.StoreProblem != "" {
		s += " · " + unstoredText(st)
	}
	if e := st.Evicted; e.Recent(time.Now()) {
		s += " · " + evictionText(e)
	}
	return s
}

// portMovedText says that the start found the port taken and moved on.
func portMovedText(m *app.PortMove) string {
	_, from, _ := net.SplitHostPort(m.From)
	_, to, _ := net.SplitHostPort(m.To)
	return fmt.Sprintf(lang.L("port %s was in use on this computer, perhaps by another Newsdesk, so this one uses port %s"), from, to)
}

// aloneText says that the servant runs as a network of its own although
// it should not, and why.
func aloneText(al *app.Alone) string {
	if len(al.Seeds) == 0 {
		return lang.L("Not connected: the company network lists no computer to connect to, so news from others does not arrive; ask an admin for a new invitation")
	}
	return fmt.Sprintf(lang.L("Not connected: the company network does not answer at %s, so news from others does not arrive until it does"), strings.Join(al.Seeds, ", "))
}

// unstoredText is how the status line says that delivered items wait for
// the store ("Disk full: 300 items wait to be stored").
func unstoredText(st app.NetStatus) string {
	p := strings.ToUpper(st.StoreProblem[:1]) + st.StoreProblem[1:]
	return p + ": " + fmt.Sprintf(lang.N("%d items wait to be stored", st.Unstored), st.Unstored)
}

// lostText is how the status line and the network view say that needed
// items could not be recovered (over every run of this installation).
func lostText(n uint64) string {
	return fmt.Sprintf(lang.N("%d items could not be recovered", int(n)), n)
}

// set shows st, and redraws nothing when it reads as before: the status
// is re-read every few seconds, and a redraw of the window is the costliest
// thing an idle desktop does (software rendering).
func (s *statusLine) set(st app.NetStatus) {
	text := statusText(st)
	var icon fyne.Resource
	switch {
	case st.Alone != nil:
		icon = theme.NewWarningThemedResource(theme.MediaRecordIcon())
	case st.Role == app.RoleAttached, st.Role == app.RoleVertex:
		icon = theme.NewSuccessThemedResource(theme.MediaRecordIcon())
	case st.Role == app.RoleConnecting:
		icon = theme.NewWarningThemedResource(theme.MediaRecordIcon())
	default:
		icon = theme.NewDisabledResource(theme.MediaRecordIcon())
	}
	if shown := text + "\x00" + icon.Name(); shown != s.shown {
		s.shown = shown
		s.text.SetText(text)
		s.icon.SetResource(icon)
	}
}

// message shows text on the right for a while.
func (s *statusLine) message(text string) {
	s.msg.SetText(text)
	s.msgGen++
	gen := s.msgGen
	s.u.w.After(messageFor, func() {
		if gen == s.msgGen {
			s.msg.SetText("")
		}
	})
}
