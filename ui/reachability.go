package ui

import (
	"fmt"
	"fyne.io/fyne/v2/lang"
	"net"

	"newsdesk/app"
)

// leafNotice is the status line's words for a computer that others cannot
// connect to: it still receives everything, as a leaf.
func leafNotice(st app.NetStatus) string {
	return fmt.Sprintf(lang.L("Others cannot connect to this computer (port %s blocked?); news still arrives through its own connection"), reachPort(st))
}

// reachabilityText is the network view's account of the last dial-back to
// this computer, with what IT can do when it failed.
func reachabilityText(st app.NetStatus) string {
	switch st.Reach {
	case "reachable":
		return fmt.Sprintf(lang.L("yes: another computer connected back to %s"), st.ReachAddr)
	case "unreachable":
		return fmt.Sprintf(lang.L("no: nobody could connect back to %s. This computer receives and publishes news as a leaf, through the connection it opened itself, and takes no others below it. To change that, IT can allow inbound TCP port %s for Newsdesk in the firewall (the Windows installer adds that rule) or advertise an address others can reach."),
			st.ReachAddr, reachPort(st))
	}
	return lang.L("not checked yet")
}

// movedText says whether this computer's address changed while it ran:
// it moved to another network, and the servant took the new one.
func movedText(st app.NetStatus) string {
	m := st.Moved
	if m == nil {
		return lang.L("unchanged since the start")
	}
	return fmt.Sprintf(lang.L("changed from %s to %s at %s (this computer moved to another network)"), m.From, m.To, m.At.Local().Format("15:04"))
}

// reachPort is the port of the address that was dialed back, or of this
// servant's ID.
func reachPort(st app.NetStatus) string {
	addr := st.ReachAddr
	if addr == "" {
		addr = st.ID
	}
	if _, port, err := net.SplitHostPort(addr); err == nil {
		return port
	}
	return "7400"
}
