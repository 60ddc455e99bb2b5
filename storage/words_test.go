package storage

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func terms(s string) []string {
	var got []string
	forEachWord(s, func(w []byte) bool { got = append(got, string(w)); return true })
	return got
}

// TestTermsScripts: what the tokenizer makes of each kind of script.
func TestTermsScripts(t *testing.T) {
	for _, c := range []struct {
		text string
		want []string
	}{
		// Japanese: one run of bigrams per stretch of Han and kana, broken
		// by the Latin letter and the full stop.
		{"説明会は会議室Aで。", []string{"説明", "明会", "会は", "は会", "会議", "議室", "a", "で"}},
		// A lone ideograph is a unigram.
		{"第 3 章", []string{"第", "3", "章"}},
		// Katakana with the prolonged sound mark, half-width katakana
		// folded to full width (ｶﾞ is カ and a voiced mark, composed to ガ).
		{"コーヒー", []string{"コー", "ーヒ", "ヒー"}},
		{"ｶﾞｲﾄﾞ", []string{"ガイ", "イド"}},
		// Voiced kana keep their mark.
		{"がか", []string{"がか"}},
		{"회의실에서 만나요", []string{"회의", "의실", "실에", "에서", "만나", "나요"}},
		{"ภาษาไทย", []string{"ภา", "าษ", "ษา", "าไ", "ไท", "ทย"}},
		// Case, width and Latin diacritics fold; UAX #29 keeps "can't"
		// and "3.14" whole, and splits at the hyphen.
		{"STRASSE Straße MÜLLER ＡＢＣ１２ can't 3.14 E-Mail", []string{"strasse", "strasse", "muller", "abc12", "can't", "3.14", "e", "mail"}},
		{"İstanbul ǰ ﬁle", []string{"istanbul", "j", "file"}},
		// Marks on other scripts stay: й is not и.
		{"Йошкар-Ола", []string{"йошкар", "ола"}},
		// ExtendNumLet joins Latin and katakana into one segment; the
		// katakana part still becomes bigrams.
		{"abc_カナ", []string{"abc_", "カナ"}},
	} {
		if got := terms(c.text); !slices.Equal(got, c.want) {
			t.Errorf("terms(%q) = %q\nwant %q", c.text, got, c.want)
		}
	}
}

// TestMatchesQueryScripts: words in the middle of a sentence are found in
// every script, and nothing unrelated is.
func TestMatchesQueryScripts(t *testing.T) {
	const ja = "新しい勤怠システムの説明会は午後三時から会議室Aで行います。"
	for _, c := range []struct {
		query, text string
		want        bool
	}{
		{"説明会", ja, true},
		{"会議室", ja, true},
		{"行います", ja, true},
		{"勤怠システム", ja, true},
		{"システム", ja, true},
		{"三時", ja, true},
		{"会議室A", ja, true},
		{"室", ja, true},
		{"会社", ja, false},
		{"会議所", ja, false},
		{"行きます", ja, false},
		{"が", "かき", false},
		{"か", "がき", false},
		// Chinese.
		{"北京", "我们明天在北京开会讨论预算。", true},
		{"讨论预算", "我们明天在北京开会讨论预算。", true},
		{"上海", "我们明天在北京开会讨论预算。", false},
		// Korean: a stem inside a word with its particle.
		{"회의실", "내일 회의실에서 예산을 논의합니다.", true},
		{"예산", "내일 회의실에서 예산을 논의합니다.", true},
		{"회사", "내일 회의실에서 예산을 논의합니다.", false},
		// Thai, written without spaces.
		{"ประชุม", "พรุ่งนี้เราจะประชุมที่ห้องใหญ่", true},
		{"ห้องใหญ่", "พรุ่งนี้เราจะประชุมที่ห้องใหญ่", true},
		{"โรงเรียน", "พรุ่งนี้เราจะประชุมที่ห้องใหญ่", false},
		// German.
		{"strasse", "Die Straße ist gesperrt", true},
		{"STRASSE", "Die Straße ist gesperrt", true},
		{"Straße", "DIE STRASSE IST GESPERRT", true},
		{"muller", "Herr Müller kommt", true},
		{"müller", "Herr Müller kommt", true},
		{"MULLER", "Herr Müller kommt", true},
		{"Müller", "Herr Muller kommt", true},
		{"miller", "Herr Müller kommt", false},
		{"uber", "Über uns", true},
		// Full width.
		{"ＡＢＣ", "abc corp", true},
		{"abc", "ＡＢＣ社", true},
		{"ｶﾞｲﾄﾞ", "ガイドライン", true},
		{"ガイド", "ｶﾞｲﾄﾞﾗｲﾝ", true},
		{"ｶｲﾄ", "ガイドライン", false},
		{"ＡＢＤ", "abc corp", false},
	} {
		if got := MatchesQuery(c.query, c.text); got != c.want {
			t.Errorf("MatchesQuery(%q, %q) = %v", c.query, c.text, got)
		}
	}
}

// FuzzTerms: any input gives valid UTF-8 terms of bounded length, and the
// query path agrees with the index path on it.
func FuzzTerms(f *testing.F) {
	for _, s := range []string{
		"", "Hello, WORLD!", "新しい勤怠システムの説明会は午後三時から会議室Aで行います。",
		"ｶﾞｲﾄﾞ ＡＢＣ", "ภาษาไทย", "회의실에서", "nai\u0308ve", "abc_カナ", "\xff\xfe", "a\u0301\u0301\u0301",
		strings.Repeat("é", 100), "\u3099\u309a", "ー", "İ",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := terms(s)
		for _, w := range got {
			if w == "" || len(w) > maxTermBytes || !utf8.ValidString(w) {
				t.Fatalf("term %q of %q", w, s)
			}
		}
		// Every term of the text is a query that finds it.
		for _, w := range got {
			if !MatchesQuery(w, s) {
				t.Fatalf("term %q does not find %q", w, s)
			}
		}
	})
}
