package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strings"
	"sync"
)

// stressProfilePath names the CPU profile of one stress run: base with
// "-<mode>-<run>" before its extension, or "" (no profile) when base is "".
func stressProfilePath(base string, m stressMode, run int) string {
	if base == "" {
		return ""
	}
	mode := "burst"
	switch {
	case m.Pace > 0 && m.Secure:
		mode = "paced-tls"
	case m.Pace > 0:
		mode = "paced"
	}
	ext := filepath.Ext(base)
	return fmt.Sprintf("%s-%s-%d%s", strings.TrimSuffix(base, ext), mode, run, ext)
}

// startProfile starts a CPU profile into path and returns the function that
// stops it, safe to call more than once; with path "" it does nothing.
func startProfile(path string) (stop func(), err error) {
	if path == "" {
		return func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("cpu profile: %w (is -cpuprofile set too?)", err)
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			pprof.StopCPUProfile()
			f.Close()
		})
	}, nil
}
