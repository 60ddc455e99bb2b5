package cli

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"newsdesk/newsnet"
)

// Bad command lines fail before anything starts, with a message naming the
// flag and exit code 2.
func TestServeFlagErrors(t *testing.T) {
	data := t.TempDir()
	tests := []struct {
		name string
		args []string
		want string // substring of the error
	}{
		{"missing listen", []string{"--data", data}, "--listen HOST:PORT is required"},
		{"missing data", []string{"--listen", "127.0.0.1:0"}, "--data DIR is required"},
		{"listen without port", []string{"--listen", "nope", "--data", data}, "--listen"},
		{"listen port out of range", []string{"--listen", "127.0.0.1:99999", "--data", data}, "port must be a number"},
		{"wildcard listen without advertise", []string{"--listen", "0.0.0.0:7400", "--data", data}, "--advertise"},
		{"empty-host listen without advertise", []string{"--listen", ":7400", "--data", data}, "--advertise"},
		{"bad advertise", []string{"--listen", "0.0.0.0:7400", "--advertise", "10.0.0.1:0", "--data", data}, "--advertise"},
		{"bad seed", []string{"--listen", "127.0.0.1:0", "--data", data, "--seeds", "127.0.0.1:7400,10.0.0.1"}, "--seeds"},
		{"seed port zero", []string{"--listen", "127.0.0.1:0", "--data", data, "--seeds", "127.0.0.1:0"}, "--seeds"},
		{"control on all interfaces", []string{"--listen", "127.0.0.1:0", "--data", data, "--control", "0.0.0.0:0"}, "loopback only"},
		{"control on a LAN address", []string{"--listen", "127.0.0.1:0", "--data", data, "--control", "192.168.1.10:8080"}, "loopback only"},
		{"control on a host name", []string{"--listen", "127.0.0.1:0", "--data", data, "--control", "example.com:8080"}, "loopback only"},
		{"control without host", []string{"--listen", "127.0.0.1:0", "--data", data, "--control", ":8080"}, "loopback only"},
		{"bad subscription", []string{"--listen", "127.0.0.1:0", "--data", data, "--subscribe", "it,Sales"}, "--subscribe"},
		{"fanout too small", []string{"--listen", "127.0.0.1:0", "--data", data, "--fanout", "1"}, "--fanout"},
		{"unknown flag", []string{"--listen", "127.0.0.1:0", "--data", data, "--bogus"}, "not defined: -bogus"},
		{"stray argument", []string{"--listen", "127.0.0.1:0", "--data", data, "extra"}, `unexpected argument "extra"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stderr bytes.Buffer
			err := Serve(context.Background(), tt.args, &stderr, &stderr)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Serve(%q) = %v, want an error containing %q", tt.args, err, tt.want)
			}
			var coded interface{ ExitCode() int }
			if !errors.As(err, &coded) || coded.ExitCode() != 2 {
				t.Errorf("error %v does not carry exit code 2", err)
			}
		})
	}
}

func TestServeHelp(t *testing.T) {
	var stderr bytes.Buffer
	err := Serve(context.Background(), []string{"-h"}, &stderr, &stderr)
	if !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("Serve(-h) = %v, want flag.ErrHelp", err)
	}
	if !strings.Contains(stderr.String(), "usage: newsdesk serve") || !strings.Contains(stderr.String(), "-control") {
		t.Errorf("help text:\n%s", stderr.String())
	}
}

func TestParseServeArgs(t *testing.T) {
	cfg, err := parseServeArgs([]string{
		"--listen", "0.0.0.0:7401", "--advertise", "10.1.2.3:7401",
		"--seeds", "10.1.2.1:7400, 10.1.2.2:7400,", "--data", "/tmp/x",
		"--subscribe", "it,hr/payroll", "--fanout", "8", "--control", "[::1]:0",
	}, os.Stderr)
	if err != nil {
		t.Fatal(err)
	}
	want := serveConfig{
		listen: "0.0.0.0:7401", advertise: "10.1.2.3:7401",
		seeds: []newsnet.ServantID{"10.1.2.1:7400", "10.1.2.2:7400"}, data: "/tmp/x",
		subscribe: []string{"it", "hr/payroll"}, fanout: 8, control: "[::1]:0",
	}
	if cfg.listen != want.listen || cfg.advertise != want.advertise || !slices.Equal(cfg.seeds, want.seeds) ||
		cfg.data != want.data || !slices.Equal(cfg.subscribe, want.subscribe) || cfg.fanout != want.fanout ||
		cfg.control != want.control {
		t.Errorf("parsed %+v, want %+v", cfg, want)
	}
}

// A data directory that cannot be created is reported as such (not as a
// usage error).
func TestServeDataDirNotCreatable(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	err := Serve(context.Background(), []string{"--listen", "127.0.0.1:0", "--data", filepath.Join(file, "sub")}, &stderr, &stderr)
	if err == nil || !strings.Contains(err.Error(), "data directory") {
		t.Fatalf("Serve = %v, want a data directory error", err)
	}
}

// serve --blob-cache bounds the relay cache of pictures and files: sizes
// as --storage-limit takes them, from one attachment of the largest size
// up; anything else is a usage error.
func TestServeBlobCache(t *testing.T) {
	for v, want := range map[string]int64{"2GiB": 2 << 30, "500mb": 500 << 20, "20MiB": 20 << 20} {
		cfg, err := parseServeArgs([]string{"--listen", "127.0.0.1:0", "--data", t.TempDir(), "--blob-cache", v}, io.Discard)
		if err != nil || cfg.blobCache != want {
			t.Errorf("--blob-cache %s: %d, %v; want %d", v, cfg.blobCache, err, want)
		}
	}
	for _, bad := range []string{"19MiB", "none", "0", "-1GiB", "lots", "2PiB"} {
		if _, err := parseServeArgs([]string{"--listen", "127.0.0.1:0", "--data", t.TempDir(), "--blob-cache", bad}, io.Discard); err == nil {
			t.Errorf("--blob-cache %q accepted", bad)
		}
	}
	s := startServe(t, "--blob-cache", "64MiB")
	if code, raw := s.Call(t, "GET", "/v1/status", nil); code != http.StatusOK {
		t.Errorf("status with --blob-cache: %d %s", code, raw)
	}
}
