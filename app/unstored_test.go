package app

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"newsdesk/news"
)

// mountTmpfs mounts a tmpfs of the given size on dir for the test.
func mountTmpfs(t *testing.T, dir, size string) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root to mount a tmpfs")
	}
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size, "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs: %v %s", err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v %s", dir, err, out)
		}
	})
}

// fillDisk writes a file in dir until the file system is full and returns
// its path.
func fillDisk(t *testing.T, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "filler")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	chunk := make([]byte, 4096)
	for {
		if _, err := f.Write(chunk); err != nil {
			return path
		}
	}
}

// Issue 11, defect 6: items that arrive while the disk is full are kept
// and stored once there is room again, without a restart; the status says
// "disk full" meanwhile. With the memory bound reached, the items let go
// are fetched again (the servant restarts from the store, whose counts
// stayed below them).
func TestItemsArrivingOnAFullDiskAreStoredLater(t *testing.T) {
	for _, tc := range []struct {
		name  string
		limit int // bytes held in memory
	}{
		{"held in memory", 0},
		{"beyond the memory bound", 16 << 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bDir := filepath.Join(t.TempDir(), "b")
			os.Mkdir(bDir, 0o700)
			mountTmpfs(t, bDir, "4m") // outside the bubble: the umount runs after it
			simTest(t, func(t *testing.T, sn *simNet) {
				net := testNetwork(t)
				a := sn.open(t, Options{Start: true, Network: net})
				b := sn.open(t, Options{DataDir: bDir, Start: true, Network: net, Seeds: []string{a.Addr()},
					Subscriptions: []string{"it"}, unstoredLimit: tc.limit})
				a.waitRouted(t, "it")
				filler := fillDisk(t, bDir)
				servant := b.currentNode()

				const n = 300
				body := strings.Repeat("The printer on the second floor is fixed. ", 24) // ~1 KiB
				ids := make([]uuid.UUID, 0, n)
				for i := range n {
					r, err := a.Publish(Draft{Category: "it", Title: fmt.Sprintf("Item %d", i), Body: body})
					if err != nil {
						t.Fatal(err)
					}
					ids = append(ids, r.ID)
				}
				// Every item reaches b before the disk has room again
				// (those that found space in the store's free pages are
				// stored).
				waitFor(t, "b to report the full disk, every item arrived", func() error {
					stored := 0
					for _, id := range ids {
						if _, err := b.Item(id); err == nil {
							stored++
						}
					}
					if st := b.Status(); st.StoreProblem != "disk full" || st.Unstored == 0 || stored+st.Unstored != n {
						return fmt.Errorf("status problem %q, %d unstored, %d stored", st.StoreProblem, st.Unstored, stored)
					}
					return nil
				})
				if err := os.Remove(filler); err != nil {
					t.Fatal(err)
				}
				waitForUpTo(t, 30*time.Second, "every item stored on b", func() error {
					missing := 0
					for _, id := range ids {
						if _, err := b.Item(id); err != nil {
							missing++
						}
					}
					if missing > 0 {
						return fmt.Errorf("%d of %d missing, status %+v", missing, n, b.Status().Unstored)
					}
					return nil
				})
				waitFor(t, "the status to clear", func() error {
					if st := b.Status(); st.StoreProblem != "" || st.Unstored != 0 || st.Lost != 0 {
						return fmt.Errorf("problem %q, %d unstored, %d lost", st.StoreProblem, st.Unstored, st.Lost)
					}
					return nil
				})
				if restarted := b.currentNode() != servant; restarted != (tc.limit > 0) {
					t.Errorf("servant restarted: %v; want a restart only to fetch items let go", restarted)
				}
			})
		})
	}
}

// The counts b stores stay below an item that waits for the store, so a
// restart with the item still unstored asks for it again.
func TestUnstoredFloor(t *testing.T) {
	var u unstored
	src := uuid.New()
	mk := func(count uint64) heldItem {
		return heldItem{it: itemWithSource(src, count), size: 100}
	}
	for _, c := range []uint64{7, 5, 9} {
		h := mk(c)
		u.hold(h.it, h.size, nil)
	}
	if f, ok := u.floor(src.String()); !ok || f != 5 {
		t.Fatalf("floor = %d, %v; want 5", f, ok)
	}
	if _, ok := u.floor(uuid.NewString()); ok {
		t.Fatal("floor of a source with nothing held")
	}
	u.limit = 350
	h := mk(3)
	u.hold(h.it, h.size, nil) // beyond the bound: let go, still the floor
	if len(u.items) != 3 || u.waiting() != 4 {
		t.Fatalf("%d held, %d waiting; want 3, 4", len(u.items), u.waiting())
	}
	if f, _ := u.floor(src.String()); f != 3 {
		t.Fatalf("floor = %d after letting 3 go, want 3", f)
	}
	u.take()
	if f, _ := u.floor(src.String()); f != 3 || !u.pending() {
		t.Fatalf("floor = %d once the held ones are stored; want 3 until fetched", f)
	}
	u.fetched()
	if u.pending() || u.problem() != "" {
		t.Fatal("still pending after everything was stored and fetched")
	}
}

func itemWithSource(src uuid.UUID, count uint64) *news.Item {
	it, err := news.NewItem("it", "t", "", "", src, time.Now())
	if err != nil {
		panic(err)
	}
	it.SourceCount = count
	return it
}
