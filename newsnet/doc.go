// Package newsnet is the Newsdesk overlay: the partition-based tree of
// JP4353827B2 with category multicast, as a deterministic state machine.
//
// A Servant takes one Event at a time through Step and returns the Actions
// the host must perform (dial, send, close, deliver). It does no IO, starts
// no goroutines, reads no clock and has no randomness of its own, so the TCP
// runtime (newsnet/node) and the simulator
// (newsnet/sim) drive the very same code.
//
// Roles (status.go) and how a servant moves between them:
//
//	          Start, seed list empty or we are the first seed
//	  idle ──────────────────────────────────────────────► vertex
//	    │ Start                                              │  ▲
//	    ▼                                                    │  │ every earlier seed
//	connecting ◄── uplink lost / reset / redirected ──┐      │  │ failed (seeds only)
//	    │  ▲        cycle / root silent                │      │  │
//	    │  │ round failed: back off (non-seeds)        │      │  │
//	    │  └───────────────────────────────────────────┘      │  │
//	    │ JoinAccept                      probe of an earlier │  │
//	    ▼                                 seed accepted       ▼  │
//	attached ◄──────────────────────────────────────────────────┘
//
// A servant without an uplink (vertex or connecting) is the root of its
// fragment: it originates the periodic partition message. An attached
// servant that hears none for Config.RootSilence is orphaned or in a cycle
// and reconnects through the seeds.
package newsnet
