package storage_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"newsdesk/news"
	"newsdesk/storage"
	"newsdesk/storage/storagetest"
)

// scriptTexts are item titles and bodies in the scripts search must handle,
// each with words in the middle of a sentence.
var scriptTexts = []struct{ title, body string }{
	{"勤怠システム", "新しい勤怠システムの説明会は午後三時から会議室Aで行います。"},
	{"预算会议", "我们明天在北京开会讨论预算。"},
	{"근태 시스템", "내일 회의실에서 예산을 논의합니다."},
	{"ประกาศ", "พรุ่งนี้เราจะประชุมที่ห้องใหญ่"},
	{"Straßensperrung", "Die Straße vor dem Büro von Herrn Müller ist gesperrt."},
	{"ＡＢＣ社のお知らせ", "ｶﾞｲﾄﾞﾗｲﾝを更新しました"},
	{"Parking", "The car park is closed on Monday."},
}

// scriptQueries: query → indexes into scriptTexts of the items it finds,
// newest (highest index) first.
var scriptQueries = []struct {
	q    string
	want []int
}{
	{"会議室", []int{0}},
	{"行います", []int{0}},
	{"説明会", []int{0}},
	{"システム", []int{0}},
	{"会社", nil},
	{"会議所", nil},
	{"北京", []int{1}},
	{"讨论预算", []int{1}},
	{"上海", nil},
	{"회의실", []int{2}},
	{"시스템", []int{2}},
	{"회사", nil},
	{"ประชุม", []int{3}},
	{"ห้องใหญ่", []int{3}},
	{"โรงเรียน", nil},
	{"strasse", []int{4}},
	{"STRASSE", []int{4}},
	{"muller", []int{4}},
	{"müller", []int{4}},
	{"buro", []int{4}},
	{"miller", nil},
	{"abc", []int{5}},
	{"ＡＢＣ", []int{5}},
	{"ガイドライン", []int{5}},
	{"ｶﾞｲﾄﾞ", []int{5}},
	{"かいど", nil},
	{"park monday", []int{6}},
	{"park 会議室", nil},
}

func putScriptItems(t *testing.T, s *storage.Store) []*news.Item {
	t.Helper()
	src := uuid.New()
	base := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)
	var items []*news.Item
	for i, c := range scriptTexts {
		it, err := news.NewItem("company", c.title, c.body, "Author", src, base.Add(time.Duration(i)*time.Minute))
		if err != nil {
			t.Fatal(err)
		}
		it.SourceCount = uint64(i + 1)
		it.Received = it.Created
		if err := s.Put(context.Background(), it); err != nil {
			t.Fatal(err)
		}
		items = append(items, it)
	}
	return items
}

func checkScriptQueries(t *testing.T, s *storage.Store, items []*news.Item) {
	t.Helper()
	for _, c := range scriptQueries {
		got, _, err := s.Search(context.Background(), c.q, nil, 10, "")
		if err != nil {
			t.Fatal(err)
		}
		var want []uuid.UUID
		for _, i := range slices.Backward(c.want) {
			want = append(want, items[i].ID)
		}
		if !slices.Equal(ids(got), want) {
			t.Errorf("search %q: %d results %v, want items %v", c.q, len(got), ids(got), c.want)
		}
	}
}

// TestSearchScripts: through the store, by the posting lists alone and by
// checking item text, words in the middle of sentences are found in
// Japanese, Chinese, Korean, Thai, German and full-width text, and nothing
// unrelated is.
func TestSearchScripts(t *testing.T) {
	for _, plan := range []int{1, 2} {
		restore := storage.SetSearchPlan(plan, 2000)
		s := mustOpen(t)
		items := putScriptItems(t, s)
		checkScriptQueries(t, s, items)
		restore()
	}
}

// TestSearchOlderStore: a store that an earlier release wrote, when words
// were split at non-letters, holds no index (it lives in memory), so the
// new terms need no migration: Open builds the index in the background
// as always, other queries do not wait for it, and once it is built
// Japanese words in the middle of a sentence are found. The file keeps its
// schema number, so a read-only open works too.
func TestSearchOlderStore(t *testing.T) {
	dir := t.TempDir()
	s := storagetest.MustOpenDir(t, dir)
	items := putScriptItems(t, s)
	storagetest.CheckAndClose(t, s, dir)

	release := storage.HoldBuild()
	t.Cleanup(release)
	s = storagetest.MustOpenDir(t, dir)
	// The build is held: reads answer, Search waits for the index.
	page, _, err := s.Newest(nil, 10, "")
	if err != nil || len(page) != len(items) {
		t.Fatalf("newest during the build: %d items, %v", len(page), err)
	}
	select {
	case <-s.SearchReady():
		t.Fatal("index ready while its build is held")
	default:
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := s.Search(ctx, "会議室", nil, 10, ""); !errors.Is(err, context.Canceled) {
		t.Fatalf("search during the build: %v, want it to wait for the index", err)
	}
	release()
	<-s.SearchReady()
	checkScriptQueries(t, s, items)
	storagetest.CheckAndClose(t, s, dir)

	r, err := storage.Open(dir, storage.ReadOnly())
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	checkScriptQueries(t, r, items)
}
