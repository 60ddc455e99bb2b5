package storage

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/rivo/uniseg"
	"golang.org/x/text/cases"
	"golang.org/x/text/transform"
	"golang.org/x/text/unicode/norm"
	"golang.org/x/text/width"
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
		// No positions: the pairs of 会議室 need not be adjacent.
		{"会議室", "会議所の審議室", true},
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
		{"ไทย", "ภาษาไทย", true},
		{"ไทย", "ยาไท", false}, // the same letters, not in this order
		// Lao and Khmer, segmented like Thai.
		{"ລາວ", "ພາສາລາວ", true},
		{"ລາວ", "ວາລ", false},
		{"ខ្មែរ", "ភាសាខ្មែរ", true},
		{"ខ្មែរ", "ភាសាថៃ", false},
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

// FuzzTerms: any input gives valid UTF-8 terms of bounded length, the
// shortcuts (folding by stretches, cutting at hard separators) change
// nothing, and every term found in a text finds it as a query.
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
		tk := new(tokenizer)
		if tk.fold(s); string(tk.text) != plainFold(s) {
			t.Fatalf("fold(%q) = %q, whole-text chain %q", s, tk.text, plainFold(s))
		}
		if want := plainTerms(s); !slices.Equal(got, want) {
			t.Fatalf("terms(%q) = %q, uniseg on the whole text %q", s, got, want)
		}
		// Every term of the text is a query that finds it.
		for _, w := range got {
			if !MatchesQuery(w, s) {
				t.Fatalf("term %q does not find %q", w, s)
			}
		}
	})
}

// plainTerms is forEachWord without the shortcut for plain ASCII words:
// uniseg segments the whole folded text.
func plainTerms(s string) []string {
	var got []string
	collect := func(w []byte) bool { got = append(got, string(w)); return true }
	t := new(tokenizer)
	t.fold(s)
	b, state := t.text, -1
	for len(b) > 0 {
		var seg []byte
		seg, b, state = uniseg.FirstWord(b, state)
		t.segment(seg, collect)
	}
	t.flush(collect)
	return got
}

// TestHardSeparators: cutting text at hard separators gives the words
// uniseg gives for the whole text, on random strings of the characters
// whose word-break rules look across neighbours.
func TestHardSeparators(t *testing.T) {
	for _, c := range " -!?()/\"\t\n\r" {
		if byteClass[c] != byteHard {
			t.Errorf("%q is not a hard separator", c)
		}
	}
	for _, c := range "'.:,;_aZ0" {
		if byteClass[c] == byteHard {
			t.Errorf("%q is a hard separator", c)
		}
	}
	alphabet := []string{"a", "B", "1", "_", "'", ".", ":", ",", ";", " ", "  ", "\r", "\n", "\"", "-", "!",
		"א", "\u0301", "\u200d", "\u00ad", "カ", "ー", "会", "ก", "\u3000", "é", "Ａ", "ｶ", "ﾞ", "🇯", "🇵", "👍", "ß"}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 30000 {
		var b strings.Builder
		for range 1 + rng.IntN(12) {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		s := b.String()
		if got, want := terms(s), plainTerms(s); !slices.Equal(got, want) {
			t.Fatalf("terms(%q) = %q, uniseg on the whole text %q", s, got, want)
		}
	}
}

// BenchmarkTokenizeScripts: tokenizing about 1.5 KB of text that is not
// plain ASCII.
func BenchmarkTokenizeScripts(b *testing.B) {
	for _, c := range []struct{ name, text string }{
		{"german", "Die Straße vor dem Büro in Zürich ist ab Montag für drei Wochen gesperrt. Bitte nutzen Sie den Eingang an der Rückseite; Fahrräder können im Hof abgestellt werden. "},
		{"japanese", "新しい勤怠システムの説明会は午後三時から会議室Aで行います。参加できない方は、後日配布する資料をご確認ください。"},
		{"korean", "내일 오후 세 시에 회의실에서 새로운 근태 시스템 설명회를 엽니다. 참석하지 못하는 분은 나중에 자료를 확인해 주십시오. "},
	} {
		text := strings.Repeat(c.text, 1500/len(c.text)+1)
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				forEachWord(text, func([]byte) bool { return true })
			}
		})
	}
}

// plainFold folds the whole text in one chain, the way the model test
// does.
func plainFold(s string) string {
	s, _, err := transform.String(transform.Chain(width.Fold, cases.Fold(), norm.NFD), s)
	if err != nil {
		panic(err)
	}
	return norm.NFC.String(string(stripLatinMarks([]byte(s))))
}

// TestFoldStretches: folding stretch by stretch gives what folding the
// whole text in one chain gives.
func TestFoldStretches(t *testing.T) {
	alphabet := []string{"a", "E", "1", " ", ".", "é", "E\u0301", "\u0301", "\u0323", "ß", "ẞ", "İ", "Ａ", "ａ", "ｶ", "ﾞ", "ﾟ", "か", "\u3099",
		"Ω", "ά", "α\u0301", "й", "и\u0306", "ᄀ", "ᅡ", "ᆨ", "가", "ﬁ", "Å", "\u212b", "K", "\u212a", "ǰ", "\u0345", "Σ", "ς", "\xff", "ǖ"}
	rng := rand.New(rand.NewPCG(5, 6))
	tk := new(tokenizer)
	for range 30000 {
		var b strings.Builder
		for range 1 + rng.IntN(10) {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		s := b.String()
		tk.fold(s)
		if got, want := string(tk.text), plainFold(s); got != want {
			t.Fatalf("fold(%q) = %q, whole-text chain %q", s, got, want)
		}
	}
}
