// Command newsdesk is the Newsdesk desktop app and, as `newsdesk serve`, its
// headless servant.
//
//	newsdesk [--data DIR]     the desktop app
//	newsdesk serve [flags]    a servant without a window (seeds, archives, tests)
//	newsdesk network init --name NAME --out FILE [--seeds A,B] [--fanout N] [--open-publishing]
//	newsdesk key --data DIR   prints this installation's public key
//	newsdesk invite create|list|revoke --data DIR …   invitation codes (admins)
//	newsdesk join CODE --data DIR                    joins a network with a code
//	newsdesk version          the release and the wire versions it speaks
//
// This file is wiring only: the GUI lives in package ui (started from gui.go),
// the command line and the control API in package cli, the application in
// package app.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"newsdesk/cli"
)

func main() {
	os.Exit(run(os.Args[1:]))
}

// run runs newsdesk with args (os.Args without the program name) and returns
// the process exit code.
func run(args []string) int {
	var err error
	cmd := ""
	if len(args) > 0 {
		cmd = args[0]
	}
	switch cmd {
	case "serve":
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		err = cli.Serve(ctx, args[1:], os.Stdout, os.Stderr)
		stop()
	case "network":
		err = cli.NetworkCommand(args[1:], os.Stdout, os.Stderr)
	case "key":
		err = cli.KeyCommand(args[1:], os.Stdout, os.Stderr)
	case "invite":
		err = cli.InviteCommand(context.Background(), args[1:], os.Stdout, os.Stderr)
	case "version":
		fmt.Fprintln(os.Stdout, cli.VersionText())
	case "join":
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		err = cli.JoinCommand(ctx, args[1:], os.Stdout, os.Stderr)
		stop()
	default:
		err = runGUI(args)
	}
	return exitCode(err)
}

// exitCode reports err on stderr and maps it to an exit code: 0 for none or
// a help request, the error's own ExitCode() if it has one (2 for usage
// errors), and 1 otherwise.
func exitCode(err error) int {
	if err == nil || errors.Is(err, flag.ErrHelp) {
		return 0
	}
	fmt.Fprintf(os.Stderr, "newsdesk: %v\n", err)
	var coded interface{ ExitCode() int }
	if errors.As(err, &coded) {
		return coded.ExitCode()
	}
	return 1
}

// usageError marks a bad command line; it exits with status 2 like the flag
// package does.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }
func (e usageError) ExitCode() int { return 2 }
