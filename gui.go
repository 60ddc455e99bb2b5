//go:build !headless

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"os/user"
	"syscall"

	"fyne.io/fyne/v2"
	fyneapp "fyne.io/fyne/v2/app"

	"newsdesk/app"
	appdemo "newsdesk/app/demo"
	"newsdesk/assets"
	"newsdesk/install"
	"newsdesk/ui"
)

// appID matches FyneApp.toml; Fyne keys preferences by it.
const appID = "com.newsdesk.app"

// runGUI starts the desktop app over the application in the data
// directory and returns when the app quits (window closed without a tray,
// tray Quit, or SIGINT/SIGTERM), after closing the application so that the
// servant's links close and its neighbours recover at once.
//
// NEWSDESK_DEMO=1 runs the window over the demo instead (app/demo: the
// application over a small simulated network, with a demo data set in a
// temporary directory; screenshots, trying the UI); NEWSDESK_DEMO=wizard
// starts it with the first-run wizard, and writes the codes of the demo
// network's invitations (one to join with, one revoked) to the file
// NEWSDESK_DEMO_INVITE_FILE names, if set (appdemo.Demo.WriteInvitations);
// NEWSDESK_DEMO=urgent starts it with an urgent must-read item that opens
// the urgent window. The data directory is not read or written then.
func runGUI(args []string) error {
	fs := flag.NewFlagSet("newsdesk", flag.ContinueOnError)
	dataDir := fs.String("data", "", "data `directory` (default: %LOCALAPPDATA%\\Newsdesk on Windows, else $XDG_DATA_HOME/newsdesk or ~/.local/share/newsdesk)")
	resetStore := fs.Bool("reset-store", false, "start a damaged installation (store missing or empty) with an empty store under a new source;\nthe damaged file is kept beside it")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usageError{err}
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Errorf("unexpected argument %q (the servant is `newsdesk serve`)", fs.Arg(0))}
	}
	env := install.System()
	dir := *dataDir
	if dir == "" {
		var err error
		if dir, err = install.DataDir(env); err != nil {
			return err
		}
	}

	a := fyneapp.NewWithID(appID)
	a.SetIcon(assets.Icon)

	// Quit cleanly on SIGINT/SIGTERM, so the application below gets closed.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	running := make(chan struct{})
	defer close(running)
	go func() {
		select {
		case <-ctx.Done():
			fyne.Do(a.Quit)
		case <-running:
		}
	}()

	var (
		u            *ui.UI
		closeBackend func() error
	)
	showMain := func(backend ui.Backend, closeIt func() error) {
		u, closeBackend = ui.New(a, backend), closeIt
		u.SetDataDir(dir)
		u.ShowMain()
	}
	var startErr error
	if demo := os.Getenv("NEWSDESK_DEMO"); demo != "" {
		d, err := appdemo.Open(ctx, demo)
		if err != nil {
			return fmt.Errorf("demo mode: %w", err)
		}
		if file := os.Getenv("NEWSDESK_DEMO_INVITE_FILE"); file != "" && d.Invitation != "" {
			if err := d.WriteInvitations(file); err != nil {
				d.Close()
				return fmt.Errorf("demo mode: %w", err)
			}
		}
		dir = "(demo mode: nothing is stored)"
		showMain(d.App, d.Close)
	} else if application, err := openApplication(ctx, env, dir, *resetStore); err != nil {
		startErr = err
		// A damaged installation can be started afresh from the window.
		ui.ShowStartupError(a, err, func() error {
			application, err := openApplication(ctx, env, dir, true)
			if err != nil {
				return err
			}
			startErr = nil
			showMain(application, application.Close)
			return nil
		})
	} else {
		showMain(application, application.Close)
	}
	a.Run()
	if u != nil {
		u.Close()
	}
	if closeBackend != nil {
		if err := closeBackend(); err != nil {
			return err
		}
	}
	return startErr
}

// openApplication opens the application in dir and starts its servant,
// unless the first-run wizard has yet to run (its Setup starts it). A first
// run with a preset network definition (install.PresetCandidates: the
// Windows installer's NETWORK=, network.json beside the executable,
// /etc/newsdesk/network.json) is set up from it here, so the wizard is
// skipped. Its log goes to stderr, warnings and errors only.
func openApplication(ctx context.Context, env install.Env, dir string, resetStore bool) (*app.App, error) {
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	// Windows: restrict the data directory's ACL before the key is made
	// or read. A failure leaves the ACL the directory inherits (the
	// profile's, for the default directory): worth a warning, not a
	// refusal to start.
	if err := install.ProtectDataDir(dir); err != nil {
		logger.Warn("data directory not restricted to this user", "err", err)
	}
	application, err := app.Open(ctx, app.Options{
		Kind:             app.KindDesktop,
		DataDir:          dir,
		ResetStore:       resetStore,
		Logger:           logger,
		DefaultRetention: app.DesktopRetention,
		MovePortIfTaken:  true,
	})
	if err != nil {
		return nil, fmt.Errorf("opening the data directory %s: %w", dir, err)
	}
	if p, err := install.ApplyPreset(presetTarget{application}, install.PresetCandidates(env), accountName()); err != nil {
		application.Close()
		if taken := portTaken(err); taken != nil {
			return nil, taken // the preset is fine; its first start is tried again at the next
		}
		return nil, fmt.Errorf("the network definition preset for this computer (%s) cannot be used: %w\n\n"+
			"Ask your administrator for a valid one; removing the file lets you choose the network yourself", p, err)
	} else if p != "" {
		logger.Warn("first run set up from the preset network definition", "file", p) // Warn: the level the GUI logs
	}
	if !application.NeedsSetup() { // Start does nothing when Setup started it
		if err := application.Start(); err != nil {
			application.Close()
			if taken := portTaken(err); taken != nil {
				return nil, taken
			}
			return nil, fmt.Errorf("starting the servant: %w", err)
		}
	}
	return application, nil
}

// portTaken explains a servant that could not listen (nil for any other
// error): another program has the port, or, on a computer that several
// people use, the Newsdesk of another user who is signed in. Without it, a
// first start from a preset would blame the preset.
func portTaken(err error) error {
	var op *net.OpError
	if !errors.As(err, &op) || op.Op != "listen" {
		return nil
	}
	return fmt.Errorf("starting the servant: %w\n\n"+
		"Its address %s is in use on this computer: by another program, or by the Newsdesk of another "+
		"user signed in here (Newsdesk runs for one user of a computer at a time). Start Newsdesk again "+
		"once the address is free", err, op.Addr)
}

// presetTarget lets install.ApplyPreset set up the application.
type presetTarget struct{ *app.App }

func (t presetTarget) Setup(name string, seeds []string) error {
	return t.App.Setup(app.Setup{DisplayName: name, Seeds: seeds})
}

// accountName is the display name a preset first run starts with.
func accountName() string {
	u, err := user.Current()
	if err != nil {
		return install.DisplayName("", "")
	}
	return install.DisplayName(u.Name, u.Username)
}
