//go:build !headless

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"fyne.io/fyne/v2"
	fyneapp "fyne.io/fyne/v2/app"

	"newsdesk/assets"
	"newsdesk/ui"
)

// appID matches FyneApp.toml; Fyne keys preferences and storage by it.
const appID = "com.newsdesk.app"

// runGUI starts the desktop app and returns when its last window closes or
// the process is interrupted.
func runGUI(args []string) error {
	fs := flag.NewFlagSet("newsdesk", flag.ContinueOnError)
	dataDir := fs.String("data", "", "data `directory` (default: the app's per-user storage)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usageError{err}
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Errorf("unexpected argument %q (the servant is `newsdesk serve`)", fs.Arg(0))}
	}

	a := fyneapp.NewWithID(appID)
	a.SetIcon(assets.Icon)

	dir := *dataDir
	if dir == "" {
		dir = a.Storage().RootURI().Path()
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("data directory: %w", err)
	}

	// Quit cleanly on SIGINT/SIGTERM so that deferred cleanup (and later the
	// store) gets to run.
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

	ui.New(a).ShowMain()
	a.Run()
	return nil
}
