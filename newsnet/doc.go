// Package newsnet is the Newsdesk overlay: the partition-based tree of
// JP4353827B2 with category multicast, as a deterministic state machine.
//
// A Servant takes one Event at a time through Step and returns the Actions
// the host must perform (dial, send, close, deliver). It does no IO, starts
// no goroutines, reads no clock and has no randomness of its own, so the TCP
// runtime (newsnet/node) and the simulator
// (newsnet/sim) drive the very same code.
//
// Roles (status.go) and the transitions between them:
//
//	idle ──Start──┬── no seed before us (or no seeds) ──────────────► vertex
//	              └── seeds to try ──► connecting                      │  ▲
//	                                    │  ▲   │ every earlier seed    │  │
//	                          JoinAccept│  │   └─failed (seeds only)──►┘  │
//	                                    ▼  │                              │
//	                                 attached                             │
//	   uplink lost, Reset, redirect ────┘  ▲  probe of an earlier seed     │
//	   by the up-servant, cycle, root      └──── accepted ─────────────────┘
//	   silent, root not an earlier seed
//
// A connecting non-seed whose round of targets failed backs off (jittered,
// doubling up to Config.BackoffMax) and tries the seeds again.
//
// A servant without an uplink (vertex or connecting) is the root of its
// fragment: it originates the periodic partition message. An attached
// servant that hears none for Config.RootSilence is orphaned or in a cycle
// and reconnects through the seeds.
package newsnet
