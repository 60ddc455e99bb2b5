// Package storage keeps an installation's news items and local state in one
// bbolt file per data directory (DIR/newsdesk.db).
//
// One Store owns one *bbolt.DB. Every query is one View, every change one
// Update; values are copied out before a transaction ends, because bbolt
// hands out slices of its memory map that are only valid inside it.
//
// # Buckets
//
// Keys are chosen so that each query is a seek plus a short cursor walk:
//
//	meta           "magic" → "newsdesk-store", "schema" → uint32, "retention" → int64 ns,
//	               "lost-total" → uint64 (needed items no servant could retransmit, all runs)
//	items          id (16-byte UUIDv7, sorts by creation time) → value (see items.go)
//	by-category    category + 0x00 + id → ""        newest-N of a category: seek, walk back
//	by-source      source + count (8, BE) + id → ""  catch-up: items of a source after a count
//	by-received    received ns (8, BE) + id → ""     retention purge: walk from the oldest
//	read           id → 1                            read state; absent = unread
//	unread-counts  category → uint64                 unread per exact category, kept in step
//	item-counts    category → uint64                 items per exact category; lists the
//	                                                 categories that exist for set queries
//	subscriptions  category → ""
//	settings       key → value (strings)
//	seeds          index (4, BE) → address           ordered seed list
//	source-counts  source → uint64                   highest communication count per source
//	outbox         sequence (8, BE) → encoded item   own publications not yet sent, in order
//	retracted      id → format + at (8) + reason     retractions, kept forever (retract.go)
//	own-last       category → uint64                 count of the latest own publication there
//	reach          own item id → latest reach report  totals and pending readers (reach.go)
//	kept           id → ""                           items the reader keeps: never purged (kept.go)
//	confirmed      own item id + reader key → at, name  verified confirmations (confirmed.go)
//	pending        own item id + reader key → at, name  readers listed as not confirmed, last listed at
//
// Counters are changed in the same transaction as the keys they count, so an
// unread count is never a scan and never drifts; Check verifies them.
//
// An item hidden by a retraction keeps its items, by-source and by-received
// keys but has no by-category key and is not counted (retract.go).
//
// # Writes
//
// Items from the network go through Ingest: one goroutine drains a queue and
// commits everything that arrived while the previous commit ran in a single
// transaction (group commit), then reports each item as durable. bbolt's own
// Batch only coalesces concurrent callers; the network delivers items from one
// goroutine, so the store groups them itself. This installation's own
// publications take the same path (PublishOwn, publish.go): a numbered batch,
// read, queued in the outbox, the source's count and own-last advanced, all
// in the transaction the received items share.
//
// # Damaged files
//
// bbolt trusts its file: a flipped byte in a page number or a key size
// makes it read outside its memory map (SIGSEGV, which recover cannot
// catch) or slice past a page, in whichever goroutine reads. So Open
// refuses a damaged file before anything reads it through bbolt: checkFile
// reads the meta pages and the file's length, checkPages walks every page
// with plain reads (pagecheck.go), and checkStartup decodes the small
// buckets the application reads as it starts. Every decoder of stored keys
// and values checks lengths and returns ErrCorrupt (fuzzed in
// decode_fuzz_test.go), so damage the walk cannot see fails the query that
// meets it. A refused file is never written to.
//
// # Search
//
// Search uses an in-memory inverted word index (searchindex.go), built in the
// background after Open from short read transactions and updated after every
// commit. A scan of 100,000 items takes most of a second; the index answers
// in 1-5 ms. cmd/storebench measures both.
package storage
