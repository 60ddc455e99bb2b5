package app

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.etcd.io/bbolt"

	"newsdesk/storage"
)

// TestOpenDamagedStore: the two crashes of issue 11, made on purpose in a
// store this installation wrote. Key sizes in a by-source page that reach
// past the page made the servant's restoreOwnHistory (ItemsAfter, through
// the archive) panic with "slice bounds out of range" as it started; a page
// number in the items bucket's branch page beyond the file made the search
// index build die of "fatal error: fault [signal SIGSEGV]", which no
// recover catches. A by-source key cut short went unnoticed. Now Open, started as
// `newsdesk serve` starts it, refuses all three with an error that wraps
// storage.ErrCorrupt, names the file and says the way out, and leaves the
// file exactly as it was.
func TestOpenDamagedStore(t *testing.T) {
	dir := t.TempDir()
	a, err := Open(context.Background(), Options{DataDir: dir, Listen: "127.0.0.1:0", Network: testNetwork(t), Start: true})
	if err != nil {
		t.Fatal(err)
	}
	body := strings.Repeat("The canteen opens at eight; the menu is on the intranet. ", 25)
	for i := range 40 {
		if _, err := a.Publish(Draft{Category: "it", Title: fmt.Sprintf("Notice %d", i), Body: body}); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, storage.FileName)
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		bucket []byte
		damage func(t *testing.T, file []byte, page, pageSize uint64)
	}{
		{"by-source key sizes past the page", []byte("by-source"), func(t *testing.T, file []byte, page, ps uint64) {
			// bbolt slices every key of the leaf past the page as soon as a
			// seek reaches it (issue 11's first crash).
			leaf := firstLeaf(t, file, page, ps)
			for i := range uint64(binary.NativeEndian.Uint16(file[leaf*ps+10:])) {
				binary.NativeEndian.PutUint32(file[leaf*ps+16+16*i+8:], 0x80000010)
			}
		}},
		{"items child page past the file", []byte("items"), func(t *testing.T, file []byte, page, ps uint64) {
			p := file[page*ps:]
			if binary.NativeEndian.Uint16(p[8:]) != 0x01 {
				t.Fatalf("items root page %d is not a branch page", page)
			}
			binary.NativeEndian.PutUint64(p[16+16+8:], 1<<30) // element 1's child: 4 TiB into the map
		}},
		{"by-source key cut short", []byte("by-source"), func(t *testing.T, file []byte, page, ps uint64) {
			// The first key keeps its source and loses count and ID: no
			// query of today meets it, but ItemsAfter would slice it.
			leaf := firstLeaf(t, file, page, ps)
			binary.NativeEndian.PutUint32(file[leaf*ps+16+8:], 16)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bad := bytes.Clone(good)
			root, ps := bucketRoot(t, path, tc.bucket)
			tc.damage(t, bad, root, ps)
			if err := os.WriteFile(path, bad, 0o600); err != nil {
				t.Fatal(err)
			}
			a, err := Open(context.Background(), Options{DataDir: dir, Listen: "127.0.0.1:0", Start: true})
			if err == nil {
				<-a.Store().SearchReady() // on old code, the build crashed here
				a.Close()
				t.Fatal("Open accepted a damaged store")
			}
			if !errors.Is(err, storage.ErrCorrupt) {
				t.Errorf("Open = %v, want storage.ErrCorrupt", err)
			}
			for _, want := range []string{path, "restore it from a backup", "--reset-store"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error does not say %q: %v", want, err)
				}
			}
			if after, _ := os.ReadFile(path); !bytes.Equal(after, bad) {
				t.Error("the damaged file was changed")
			}
			if !errors.Is(err, ErrDamagedInstallation) {
				t.Errorf("Open = %v, want ErrDamagedInstallation (the desktop app offers a reset for it)", err)
			}
			t.Log(err)

			// --reset-store sets it aside, unchanged, and starts afresh
			// under a new source.
			idFile := filepath.Join(dir, InstallationIDFile)
			oldID, _ := os.ReadFile(idFile)
			a, err = Open(context.Background(), Options{DataDir: dir, Listen: "127.0.0.1:0", Network: testNetwork(t), ResetStore: true})
			if err != nil {
				t.Fatalf("Open with ResetStore: %v", err)
			}
			if a.Source().String()+"\n" == string(oldID) {
				t.Error("the reset kept the source")
			}
			a.Close()
			aside, _ := filepath.Glob(path + ".damaged-*")
			if len(aside) != 1 {
				t.Fatalf("set aside: %v", aside)
			}
			if kept, _ := os.ReadFile(aside[0]); !bytes.Equal(kept, bad) {
				t.Error("the damaged file set aside is not the file as it was")
			}
			os.Remove(aside[0])
			os.WriteFile(idFile, oldID, 0o600)
			if err := os.WriteFile(path, good, 0o600); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// bucketRoot returns the root page of a top-level bucket and the page size.
func bucketRoot(t *testing.T, path string, name []byte) (root, pageSize uint64) {
	t.Helper()
	db, err := bbolt.Open(path, 0o600, &bbolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	err = db.View(func(tx *bbolt.Tx) error {
		b := tx.Bucket(name)
		if b == nil {
			return fmt.Errorf("no bucket %q", name)
		}
		root = uint64(b.RootPage())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if root == 0 {
		t.Fatalf("bucket %q is inline", name)
	}
	return root, uint64(db.Info().PageSize)
}

// firstLeaf follows the first children from page down to a leaf page.
func firstLeaf(t *testing.T, file []byte, page, ps uint64) uint64 {
	t.Helper()
	for {
		switch flags := binary.NativeEndian.Uint16(file[page*ps+8:]); flags {
		case 0x02:
			return page
		case 0x01:
			page = binary.NativeEndian.Uint64(file[page*ps+16+8:])
		default:
			t.Fatalf("page %d has flags %#x", page, flags)
		}
	}
}
