//go:build !unix

package node

import "time"

// cpuTime is 0 where the process's CPU time is not read: the benchmark's
// CPU figures are then 0.
func cpuTime() time.Duration { return 0 }
