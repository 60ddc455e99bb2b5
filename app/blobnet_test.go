package app

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"testing"

	"newsdesk/newsnet"
	"newsdesk/newsnet/sim"
)

// Over the (simulated) network: a picture published with an item reaches
// the subscriber with it, whole and verified; a large file stays behind
// until the reader opens it (FetchBlob), then arrives too.
func TestAttachmentsCrossTheNetwork(t *testing.T) {
	simTest(t, func(t *testing.T, sn *simNet) {
		a := sn.open(t, Options{Start: true})
		b := sn.open(t, Options{DataDir: t.TempDir(), Start: true, Seeds: []string{a.Addr()}, Subscriptions: []string{"it"}})
		waitFor(t, "a to learn b's subscription", func() error {
			for _, l := range a.Status().Links {
				if l.Peer == b.Addr() && slices.Equal(l.Received, newsnet.CategorySet{"it"}) {
					return nil
				}
			}
			return fmt.Errorf("a's links: %+v", a.Status().Links)
		})
		r := rand.New(rand.NewPCG(3, 4))
		png := append([]byte("\x89PNG\r\n\x1a\n"), make([]byte, 300<<10)...)
		big := make([]byte, 2<<20+5) // beyond eagerBytes: fetched when opened
		for i := range big {
			big[i] = byte(r.Uint32())
		}
		res, err := a.Publish(Draft{Category: "it", Title: "The new office", Body: "![the office][att:1]",
			Attachments: []DraftAttachment{{Name: "office.png", Data: png}, {Name: "plan.bin", MediaType: "application/octet-stream", Data: big}}})
		if err != nil || res.Outcome != Delivered {
			t.Fatalf("publish = %+v, %v", res, err)
		}
		waitFor(t, "the picture on b", func() error {
			e, err := b.Item(res.ID)
			if err != nil {
				return err
			}
			if len(e.Attachments) != 2 || e.Attachments[0].State != BlobWhole {
				return fmt.Errorf("attachments %+v", e.Attachments)
			}
			return nil
		})
		e, _ := b.Item(res.ID)
		if e.Attachments[1].State == BlobWhole {
			t.Fatal("the 2 MiB file came without being opened")
		}
		if got := readBlob(t, b, e.Attachments[0].Hash); !bytes.Equal(got, png) {
			t.Fatalf("b's picture has %d bytes, want the %d published", len(got), len(png))
		}
		if err := b.FetchBlob(e.Attachments[1].Hash); err != nil {
			t.Fatal(err)
		}
		// The reader hears of it, by the item's name, as it comes.
		waitEvent(t, b, "the file's progress or arrival", func(ev Event) bool {
			return ev.Kind == ItemsChanged && slices.Contains(ev.Items, res.ID)
		})
		waitFor(t, "the file on b once opened", func() error {
			e, err := b.Item(res.ID)
			if err != nil || e.Attachments[1].State != BlobWhole {
				return fmt.Errorf("attachment %+v, %v", e.Attachments[1], err)
			}
			return nil
		})
		if got := readBlob(t, b, e.Attachments[1].Hash); !bytes.Equal(got, big) {
			t.Fatalf("b's file has %d bytes, want the %d published", len(got), len(big))
		}
		if b.BlobsLost() != 0 {
			t.Errorf("b counts %d attachments lost", b.BlobsLost())
		}
	})
}

func readBlob(t *testing.T, a *App, hash string) []byte {
	t.Helper()
	f, err := a.OpenBlob(hash)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b, err := io.ReadAll(f)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A picture that had not arrived whole when the subscriber stopped is
// asked for again when it starts.
func TestAttachmentFetchedAgainAfterRestart(t *testing.T) {
	simTest(t, func(t *testing.T, sn *simNet) {
		a := sn.open(t, Options{Start: true})
		dir := t.TempDir()
		b := sn.open(t, Options{DataDir: dir, Start: true, Seeds: []string{a.Addr()}, Subscriptions: []string{"it"}})
		bAddr := newsnet.ServantID(b.Addr())
		waitFor(t, "a to learn b's subscription", func() error {
			for _, l := range a.Status().Links {
				if l.Peer == string(bAddr) && slices.Equal(l.Received, newsnet.CategorySet{"it"}) {
					return nil
				}
			}
			return fmt.Errorf("a's links: %+v", a.Status().Links)
		})
		sn.w.Do(func(n *sim.Network) {
			n.Filter = func(_, to newsnet.ServantID, m newsnet.Message) bool {
				_, chunk := m.(*newsnet.BlobChunk)
				return !chunk || to != bAddr
			}
		})
		png := append([]byte("\x89PNG\r\n\x1a\n"), bytes.Repeat([]byte{9}, 200<<10)...)
		res, err := a.Publish(Draft{Category: "it", Title: "Cut short", Body: "![x][att:1]",
			Attachments: []DraftAttachment{{Name: "x.png", Data: png}}})
		if err != nil {
			t.Fatal(err)
		}
		waitFor(t, "the item on b without its picture", func() error {
			e, err := b.Item(res.ID)
			if err != nil || len(e.Attachments) != 1 {
				return fmt.Errorf("%+v, %v", e.Attachments, err)
			}
			if e.Attachments[0].State == BlobWhole {
				t.Fatal("the picture arrived through the filter")
			}
			return nil
		})
		if err := b.Close(); err != nil {
			t.Fatal(err)
		}
		sn.w.Do(func(n *sim.Network) { n.Filter = nil })
		b2 := sn.open(t, Options{DataDir: dir, Start: true, Seeds: []string{a.Addr()}, Subscriptions: []string{"it"}})
		waitFor(t, "the picture on b after its restart", func() error {
			e, err := b2.Item(res.ID)
			if err != nil || len(e.Attachments) != 1 || e.Attachments[0].State != BlobWhole {
				return fmt.Errorf("%+v, %v", e.Attachments, err)
			}
			return nil
		})
		e, _ := b2.Item(res.ID)
		if got := readBlob(t, b2, e.Attachments[0].Hash); !bytes.Equal(got, png) {
			t.Fatal("b's picture differs from the one published")
		}
	})
}
