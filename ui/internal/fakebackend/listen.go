package fakebackend

import (
	"cmp"
	"context"
	"fmt"
	"net"
	"strconv"

	"newsdesk/app"
)

// Ports taken by other programs on this computer are what a test presets
// (PresetPortTaken); the application's tests bind real ports.

// PresetPortTaken makes ports ("7400") count as in use by another program,
// for ProposeListen, Setup and JoinByInvitation.
func (b *Backend) PresetPortTaken(ports ...string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.taken == nil {
		b.taken = map[string]bool{}
	}
	for _, p := range ports {
		b.taken[p] = true
	}
}

// ProposeListen proposes listen (the settings' when "") or, when its port
// is taken (PresetPortTaken), the next port that is not, as the
// application does.
func (b *Backend) ProposeListen(listen string) (string, bool) {
	listen = cmp.Or(listen, b.Settings().Listen)
	host, port, err := net.SplitHostPort(listen)
	p, err2 := strconv.Atoi(port)
	if err != nil || err2 != nil || b.portTaken(port) == nil {
		return listen, false
	}
	for q := p + 1; q <= 65535; q++ {
		if b.portTaken(strconv.Itoa(q)) == nil {
			return net.JoinHostPort(host, strconv.Itoa(q)), true
		}
	}
	return listen, true
}

// Setup refuses a listen address whose port is taken as the application
// does; the rest is the application's.
func (b *Backend) Setup(s app.Setup) error {
	if err := b.checkListen(s); err != nil {
		return err
	}
	return b.App.Setup(s)
}

// JoinByInvitation refuses a taken port as Setup does; the rest is the
// application's.
func (b *Backend) JoinByInvitation(ctx context.Context, code string, s app.Setup) error {
	if err := b.checkListen(s); err != nil {
		return err
	}
	return b.App.JoinByInvitation(ctx, code, s)
}

// checkListen is the application's first check of a first run (the
// display name), then whether the listen address's port is taken.
func (b *Backend) checkListen(s app.Setup) error {
	if err := app.CheckDisplayName(s.DisplayName, true); err != nil {
		return err
	}
	if s.Listen == "" {
		return nil
	}
	if _, err := app.CheckHostPort(s.Listen); err != nil {
		return fmt.Errorf("listen address: %w", err)
	}
	_, port, _ := net.SplitHostPort(s.Listen)
	return b.portTaken(port)
}

// portTaken is nil unless port counts as in use, then an error matching
// app.ErrPortInUse.
func (b *Backend) portTaken(port string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.taken[port] {
		return fmt.Errorf("%w: port %s is taken, perhaps by another Newsdesk on this computer; choose another port", app.ErrPortInUse, port)
	}
	return nil
}
