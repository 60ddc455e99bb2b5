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
//
// The Servant holds the tree (its role transitions, partitions and tree
// optimization) and routing, and steps sub-machines that own their state and
// rules. Each reaches the servant only through a small host interface,
// which its unit tests fake. What most hosts ask for (the clock, the
// configuration, the counters, the links, sending, the relay cache, our
// subscriptions) is core's (core.go), which Servant embeds; the rest is
// the servant's to decide. A sub-machine that reads another's state
// declares the little it reads as an interface of its own, which the
// other meets (catch-up's followedStreams, the relay's sourceArrivals,
// the census's partitionPlaces, …):
//
//	connector    connector.go: the join search of JP4353827B2 Fig. 3
//	             (targets in order, redirects, dead ends, backoff), the
//	             seed rules, and the vertex's probes of earlier seeds
//	admissions   admissions.go, leaf.go: the listener side of joins
//	             (JP4353827B2 Fig. 4): the subtree range, partition and
//	             slots, where a joiner goes, the leaves and their capacity,
//	             promotions and demotions on dial-back verdicts
//	dialBacks    dialback.go: dialing joiners and down-servants back to
//	             measure their reachability, and the verdict about us
//	opinions     opinion.go: the second opinion a seed gives on how far
//	             our streams got, and leaving an up-servant silent about one
//	sequencer    order.go, owed.go, chain.go, overtake.go: each source's
//	             sequence, gap classification (JP3679935B2), the search for
//	             the first count owed to us, and retransmission requests
//	requestRelay relay.go: retransmission requests passed toward their
//	             source along the reverse path, answered from the relay
//	             cache or the store, answers retracing their trails
//	             (JP3679935B2 with JP5458944B2)
//	catchUps     catchup.go: catching up after an absence or a new
//	             subscription, page by page, holding live items meanwhile
//	pageReads    pages.go: catch-up pages for requesters below an
//	             archive, read by the host off the loop and sent back
//	             along their trails
//	directLinks  direct.go, direct_cover.go: direct delivery for hot pairs
//	             and the exceptions that keep the tree from carrying the
//	             same items (JP5458944B2)
//	reachReports reach.go, reach_send.go, reach_census.go: reach totals
//	             aggregated toward each publisher, and the subscriber census
//	blobTransfers blobs.go: attachments' chunks pulled hop by hop toward
//	             the item's source, checked against the manifest's root,
//	             passed on as they arrive, yielding to every other frame
//
// and the state with rules of its own that the servant consults:
//
//	audienceState audience.go: whether an item is for us, the chain keys
//	             we follow, and the answers withheld outside an audience
//	leadingEdges edge.go: the latest header of each stream
//
// and per link (link.go), as magicsock keeps per-peer state in its
// endpoint, or over the links:
//
//	linkFlow     flow.go: the link's send window in the host's queue, what
//	             is withheld while it is busy, and the edges it is owed
//	downSet      downs.go: the downlinks in their one order, leaves first
//	             and members by slot (checked against a naive model)
//	linkRequests requests.go: answering the peer's requests within their
//	             rate and the link's answer budget, parking and merging
//	             the ones that wait, and its allowance of new sources
//
// Messages live beside their codecs by family (msg_tree.go,
// msg_multicast.go, msg_recover.go, msg_direct.go, msg_opinion.go,
// msg_census.go, msg_blob.go, reach_msg.go), with the type registry in registry.go and framing in
// wire.go.
package newsnet
