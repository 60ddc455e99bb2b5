//go:build !unix

package main

import "time"

// cpuTime is not measured here; the security table then prints n/a.
func cpuTime() (time.Duration, bool) { return 0, false }
