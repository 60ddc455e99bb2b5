package storage

import (
	"slices"
	"sync"

	"go.etcd.io/bbolt"
)

// SetMigrations replaces the migration list for a test and returns the
// function that restores it.
func SetMigrations(m []func(tx *bbolt.Tx) error) (restore func()) {
	old := migrations
	migrations = m
	return func() { migrations = old }
}

// Migrations returns a copy of the migration list, for a test that appends
// to it.
func Migrations() []func(tx *bbolt.Tx) error { return slices.Clone(migrations) }

// BucketMeta and KeySchema let external tests edit the schema version.
var BucketMeta, KeySchema = bucketMeta, keySchema

// BucketRetracted lets external tests damage or remove retraction records.
var BucketRetracted = bucketRetracted

// BucketOwnLast lets external tests make a store of an older schema.
var BucketOwnLast = bucketOwnLast

// BucketExpiring and BucketExpired: the buckets schema 4 added.
var BucketExpiring, BucketExpired = bucketExpiring, bucketExpired

// BucketScheduled: the bucket schema 5 added.
var BucketScheduled = bucketScheduled

// BucketAcks: the bucket schema 6 added.
var BucketAcks = bucketAcks

// BucketReach: the bucket schema 7 added.
var BucketReach = bucketReach

// BucketKept: the bucket schema 8 added.
var BucketKept = bucketKept

// BucketConfirmed: the bucket schema 11 added.
var BucketConfirmed = bucketConfirmed

// BucketPending: the other bucket schema 11 added.
var BucketPending = bucketPending

// SetBuildChunk changes how many items the search index build reads per
// transaction, so a test can interleave writes with a build of a small store.
func SetBuildChunk(n int) (restore func()) {
	old := buildChunk
	buildChunk = n
	return func() { buildChunk = old }
}

// HoldBuild makes search index builds wait until release is called.
func HoldBuild() (release func()) {
	gate := make(chan struct{})
	buildGate.Store(&gate)
	var once sync.Once
	return func() {
		once.Do(func() {
			buildGate.Store(nil)
			close(gate)
		})
	}
}

// SetSearchPlan forces the search planner: 0 by cost, 1 posting lists only,
// 2 text checks for every query word.
// budget sets how many items a text-checking query reads before it falls
// back to the posting lists.
func SetSearchPlan(mode, budget int) (restore func()) {
	oldMode, oldBudget := searchPlan, verifyBudget
	searchPlan, verifyBudget = mode, budget
	return func() { searchPlan, verifyBudget = oldMode, oldBudget }
}

// SetIndexThresholds lowers the document counts at which posting lists turn
// into bitsets and tombstones get compacted, so small tests reach both.
func SetIndexThresholds(dense, compact int) (restore func()) {
	oldDense, oldCompact := denseMin, compactMin
	denseMin, compactMin = dense, compact
	return func() { denseMin, compactMin = oldDense, oldCompact }
}

// SetPurgeChunk changes how many by-received entries one purge transaction
// looks at, so a small test crosses chunk boundaries.
func SetPurgeChunk(n int) (restore func()) {
	old := purgeChunk
	purgeChunk = n
	return func() { purgeChunk = old }
}

// CheckPages is the page walk Open runs on an existing file.
func CheckPages(path string) error { return checkPages(path) }

// BucketBlobs and BucketBlobRefs: the buckets schema 12 added.
var BucketBlobs, BucketBlobRefs = bucketBlobs, bucketBlobRefs

// WithEvictHook runs fn in the blob cache's eviction between the read that
// chooses the blobs to remove and the write that removes them, with blobMu
// held, so a test can store an item in that window.
func WithEvictHook(fn func()) Option {
	return func(o *options) { o.evictHook = fn }
}

// BlobUseNoted reports whether the store holds a read of a blob in memory
// for the cache's order (touchBlob).
func (s *Store) BlobUseNoted(hash [32]byte) bool {
	s.usedMu.Lock()
	defer s.usedMu.Unlock()
	_, ok := s.blobUsed[hash]
	return ok
}

// DropDamagedBlob is what a chunk read does on finding a whole blob's file
// damaged, for a test that changes the record before it.
func (s *Store) DropDamagedBlob(hash [32]byte) { s.dropDamagedBlob(hash) }
