package ui

import (
	"fmt"
	"testing"
	"time"

	"fyne.io/fyne/v2/lang"

	"newsdesk/app"
)

// Tuesday 10 March 2026, 12:00 local time.
var formatNow = time.Date(2026, 3, 10, 12, 0, 0, 0, time.Local)

func TestFormatTimeInEachLanguage(t *testing.T) {
	at := time.Date(2026, 3, 2, 9, 5, 0, 0, time.Local) // a Monday
	for _, c := range []struct {
		code  string
		style timeStyle
		want  string
	}{
		{"en", fullDateTime, "Mon 2 Mar 2026, 09:05"},
		{"en", dayMonth, "2 Mar"},
		{"en", weekday, "Monday"},
		{"de", fullDateTime, "Mo., 2. März 2026, 09:05"},
		{"de", dayMonth, "2. März"},
		{"de", dateClock, "2. März 2026, 09:05"},
		{"de", weekday, "Montag"},
		{"ja", fullDateTime, "2026年3月2日(月) 09:05"},
		{"ja", dayMonth, "3月2日"},
		{"ja", date, "2026年3月2日"},
		{"ja", weekday, "月曜日"},
		{"ja", clockTime, "09:05"},
	} {
		inLanguage(t, c.code)
		if got := formatTime(at, c.style); got != c.want {
			t.Errorf("%s, style %d: %q, want %q", c.code, c.style, got, c.want)
		}
	}
}

func TestRelTimeInEachLanguage(t *testing.T) {
	for _, c := range []struct {
		code string
		ago  time.Duration
		want string
	}{
		{"en", 30 * time.Second, "just now"},
		{"en", time.Minute, "1 min ago"},
		{"en", 5 * time.Hour, "5 h ago"},
		{"en", 24 * time.Hour, "yesterday"},
		{"en", 3 * 24 * time.Hour, "Saturday"},
		{"de", 30 * time.Second, "gerade eben"},
		{"de", 5 * time.Minute, "vor 5 Min."},
		{"de", 24 * time.Hour, "gestern"},
		{"de", 3 * 24 * time.Hour, "Samstag"},
		{"de", 20 * 24 * time.Hour, "18. Feb."},
		{"ja", 5 * time.Minute, "5 分前"},
		{"ja", 2 * time.Hour, "2 時間前"},
		{"ja", 24 * time.Hour, "昨日"},
		{"ja", 3 * 24 * time.Hour, "土曜日"},
		{"ja", 400 * 24 * time.Hour, "2025年2月3日"},
	} {
		inLanguage(t, c.code)
		if got := relTime(formatNow.Add(-c.ago), formatNow); got != c.want {
			t.Errorf("%s, %v ago: %q, want %q", c.code, c.ago, got, c.want)
		}
	}
}

func TestNumbersInEachLanguage(t *testing.T) {
	for _, c := range []struct {
		code         string
		n            int64
		bytes        int64
		want, wantSz string
	}{
		{"en", 12345, 3 << 29, "12,345", "1.5 GiB"},
		{"de", 12345, 3 << 29, "12.345", "1,5 GiB"},
		{"ja", 12345, 3 << 29, "12,345", "1.5 GiB"},
		{"de", 999, 4 << 30, "999", "4 GiB"},
	} {
		inLanguage(t, c.code)
		if got := formatNumber(c.n); got != c.want {
			t.Errorf("%s: formatNumber(%d) = %q, want %q", c.code, c.n, got, c.want)
		}
		if got := formatBytes(c.bytes); got != c.wantSz {
			t.Errorf("%s: formatBytes(%d) = %q, want %q", c.code, c.bytes, got, c.wantSz)
		}
	}
}

// The sentence issue 31 names: one reader is one, in each language, and
// Japanese has one form for all counts.
func TestPluralsInEachLanguage(t *testing.T) {
	const key = "%d readers have “%s” and have not confirmed it."
	for _, c := range []struct {
		code string
		n    int
		want string
	}{
		{"en", 1, "1 reader has “Memo” and has not confirmed it."},
		{"en", 2, "2 readers have “Memo” and have not confirmed it."},
		{"de", 1, "1 Leser hat „Memo“ erhalten und noch nicht bestätigt."},
		{"de", 0, "0 Leser haben „Memo“ erhalten und noch nicht bestätigt."},
		{"ja", 1, "1 人の読者が「Memo」を受け取り、まだ確認していません。"},
		{"ja", 5, "5 人の読者が「Memo」を受け取り、まだ確認していません。"},
	} {
		inLanguage(t, c.code)
		if got := fmt.Sprintf(lang.N(key, c.n), c.n, "Memo"); got != c.want {
			t.Errorf("%s, %d: %q, want %q", c.code, c.n, got, c.want)
		}
	}
}

// What the storage limit removed, as Settings and the status line say it.
func TestEvictionTextInEachLanguage(t *testing.T) {
	e := &app.Eviction{At: time.Date(2026, 3, 2, 9, 5, 0, 0, time.Local), Items: 120, Bytes: 3 << 19, Quota: 4 << 30}
	one := &app.Eviction{At: e.At, Items: 1, Bytes: 2048, Quota: 4 << 30}
	for _, c := range []struct {
		code string
		e    *app.Eviction
		want string
	}{
		{"en", e, "Storage limit of 4 GiB reached: the 120 oldest items (1.5 MiB) were removed on 2 Mar 09:05"},
		{"en", one, "Storage limit of 4 GiB reached: 1 item, the oldest (2 KiB), was removed on 2 Mar 09:05"},
		{"de", e, "Speicherlimit von 4 GiB erreicht: Die 120 ältesten Meldungen (1,5 MiB) wurden am 2. März, 09:05 entfernt"},
		{"ja", e, "保存容量の上限 4 GiB に達したため、古い記事 120 件（1.5 MiB）を 3月2日 09:05 に削除しました"},
	} {
		inLanguage(t, c.code)
		if got := evictionText(c.e); got != c.want {
			t.Errorf("%s: %q, want %q", c.code, got, c.want)
		}
	}
}
