package ui

import (
	"fmt"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"newsdesk/app"
)

// messageFor is how long a message (a failed action) stays in the status
// line.
const messageFor = 15 * time.Second

// statusLine is the bar at the bottom of the window: where this servant is
// in the tree, and the last problem worth telling.
type statusLine struct {
	u       *UI
	icon    *widget.Icon
	text    *widget.Label
	msg     *widget.Label
	msgGen  int
	content fyne.CanvasObject
}

func newStatusLine(u *UI) *statusLine {
	s := &statusLine{u: u, icon: widget.NewIcon(theme.MediaRecordIcon()), text: widget.NewLabel("Starting…"), msg: widget.NewLabel("")}
	s.msg.Importance = widget.DangerImportance
	s.msg.Truncation = fyne.TextTruncateEllipsis
	s.content = container.NewVBox(widget.NewSeparator(), container.NewBorder(nil, nil, container.NewHBox(s.icon, s.text), nil, s.msg))
	return s
}

// statusText is the status line's sentence for st.
func statusText(st app.NetStatus) string {
	downs := len(st.Downs)
	var s string
	switch st.Role {
	case app.RoleAttached:
		s = fmt.Sprintf("Attached to %s", st.Up)
		if downs > 0 {
			s += " with " + plural(downs, "downlink", "downlinks")
		}
	case app.RoleVertex:
		if st.Alone != nil {
			s = aloneText(st.Alone)
		} else if downs == 0 {
			s = "Vertex of the network, alone"
		} else {
			s = "Vertex of the network with " + plural(downs, "downlink", "downlinks")
		}
	case app.RoleConnecting:
		s = "Reconnecting…"
	case app.RoleStopped:
		s = "Stopped"
	case app.RoleIdle:
		s = "Not started"
	default:
		s = "Starting…"
	}
	if st.ID != "" {
		s += " · this servant " + st.ID
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
	return s
}

// aloneText says that the servant runs as a network of its own although
// it should not, and why.
func aloneText(al *app.Alone) string {
	if len(al.Seeds) == 0 {
		return "Alone: the network lists no seed to connect to, so news from others does not arrive; ask an admin for a new invitation"
	}
	return "Alone: no seed answers (" + strings.Join(al.Seeds, ", ") + "), so news from others does not arrive until one does"
}

// unstoredText is how the status line says that delivered items wait for
// the store ("Disk full: 300 items wait to be stored").
func unstoredText(st app.NetStatus) string {
	p := strings.ToUpper(st.StoreProblem[:1]) + st.StoreProblem[1:]
	return fmt.Sprintf("%s: %s to be stored", p, plural(st.Unstored, "item waits", "items wait"))
}

// lostText is how the status line and the network view say that needed
// items could not be recovered (over every run of this installation).
func lostText(n uint64) string {
	return plural(int(n), "item", "items") + " could not be recovered"
}

func (s *statusLine) set(st app.NetStatus) {
	s.text.SetText(statusText(st))
	switch {
	case st.Alone != nil:
		s.icon.SetResource(theme.NewWarningThemedResource(theme.MediaRecordIcon()))
	case st.Role == app.RoleAttached, st.Role == app.RoleVertex:
		s.icon.SetResource(theme.NewSuccessThemedResource(theme.MediaRecordIcon()))
	case st.Role == app.RoleConnecting:
		s.icon.SetResource(theme.NewWarningThemedResource(theme.MediaRecordIcon()))
	default:
		s.icon.SetResource(theme.NewDisabledResource(theme.MediaRecordIcon()))
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
