package fakebackend

import (
	"cmp"
	"fmt"
	"net"
	"strconv"

	"newsdesk/app"
)

// PresetPortTaken makes ports ("7400") count as in use by another program,
// for ProposeListen, Setup and JoinByInvitation.
func (m *Backend) PresetPortTaken(ports ...string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, p := range ports {
		m.takenPorts[p] = true
	}
}

// ProposeListen proposes listen (the settings' when "") or, when its port
// is taken (PresetPortTaken), the next port that is not, as the
// application does.
func (m *Backend) ProposeListen(listen string) (string, bool) {
	listen = cmp.Or(listen, m.Settings().Listen)
	host, port, err := net.SplitHostPort(listen)
	p, err2 := strconv.Atoi(port)
	if err != nil || err2 != nil || m.portTaken(port) == nil {
		return listen, false
	}
	for q := p + 1; q <= 65535; q++ {
		if m.portTaken(strconv.Itoa(q)) == nil {
			return net.JoinHostPort(host, strconv.Itoa(q)), true
		}
	}
	return listen, true
}

// portTaken is nil unless port counts as in use, then an error matching
// app.ErrPortInUse.
func (m *Backend) portTaken(port string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.takenPorts[port] {
		return fmt.Errorf("%w: port %s is taken, perhaps by another Newsdesk on this computer; choose another port", app.ErrPortInUse, port)
	}
	return nil
}

// checkListen checks a listen address of a first run: a host and a port,
// not taken.
func (m *Backend) checkListen(listen string) error {
	if listen == "" {
		return nil
	}
	if _, err := app.CheckHostPort(listen); err != nil {
		return fmt.Errorf("listen address: %w", err)
	}
	_, port, _ := net.SplitHostPort(listen)
	return m.portTaken(port)
}
