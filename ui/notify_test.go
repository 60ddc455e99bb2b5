package ui

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"fyne.io/fyne/v2"

	"newsdesk/categories"
	"newsdesk/news"
)

// fyneToastEscape is what Fyne's Windows SendNotification does to a title
// or text before writing it between double quotes in its PowerShell script
// (fyne.io/fyne/v2/app/app_windows.go, escapeNotificationString).
func fyneToastEscape(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "`", "``"), `"`, "`\"")
}

// psDoubleQuote reports whether r ends a PowerShell double-quoted string:
// PowerShell's tokenizer takes the typographic double quotes for ".
func psDoubleQuote(r rune) bool {
	return r == '"' || r == '\u201c' || r == '\u201d' || r == '\u201e'
}

// psScan reads a PowerShell double-quoted string whose opening quote is
// already read, as PowerShell's tokenizer does, and returns the byte
// offset of its closing quote (-1 when there is none) and the first thing
// in it that PowerShell would evaluate rather than show: a subexpression
// $(…), a braced variable ${…} or a variable $name. A backtick escapes the
// next character; two quotes in a row are one literal quote; a $ before
// anything else is a plain $.
func psScan(s string) (end int, evaluated string) {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '`':
			_, m := utf8.DecodeRuneInString(s[i+n:])
			i += n + m
			continue
		case psDoubleQuote(r):
			next, m := utf8.DecodeRuneInString(s[i+n:])
			if i+n < len(s) && psDoubleQuote(next) {
				i += n + m
				continue
			}
			return i, evaluated
		case r == '$' && evaluated == "":
			next, _ := utf8.DecodeRuneInString(s[i+n:])
			if next == '(' || next == '{' || next == '_' || next == '?' || next == '^' || next == '$' || next == ':' ||
				unicode.IsLetter(next) || unicode.IsDigit(next) {
				evaluated = s[i:]
			}
		}
		i += n
	}
	return -1, evaluated
}

// TestToastSafe: on Windows a notification's text goes into a PowerShell
// script that Fyne writes and runs. After toastSafe and Fyne's own
// escaping, every title stays one string that PowerShell shows as it is:
// it ends at the script's closing quote, and nothing in it is evaluated.
// Without toastSafe, the model finds the command a title could run.
func TestToastSafe(t *testing.T) {
	titles := []string{
		"Fire drill at 11:00 $(Start-Process calc.exe)",
		"Price: $5, $env:USERNAME, ${env:COMPUTERNAME}, $$ and $? and $^",
		"Canteen closed “today” and „tomorrow“",
		"Quote ends here” ; Start-Process calc.exe ; “",
		"Backtick ` then $(x) and `$(y) and ``$(z)",
		`Plain "quotes" and a trailing $`,
		"Nothing special: 10:00 — Room 4.1",
	}
	unsafe := 0
	for _, title := range titles {
		n := toastSafe(fyne.NewNotification(title, "Body: "+title))
		for _, text := range []string{n.Title, n.Content} {
			script := fyneToastEscape(text) + `"`
			if end, evaluated := psScan(script); end != len(script)-1 || evaluated != "" {
				t.Errorf("%q: PowerShell would end the string at %d of %d and evaluate %q", text, end, len(script)-1, evaluated)
			}
		}
		shown := strings.ReplaceAll(n.Title, "\u2060", "")
		want := strings.NewReplacer("“", `"`, "”", `"`, "„", `"`).Replace(title)
		if shown != want {
			t.Errorf("toastSafe(%q) shows %q, want %q", title, shown, want)
		}
		raw := fyneToastEscape(title) + `"`
		if end, evaluated := psScan(raw); end != len(raw)-1 || evaluated != "" {
			unsafe++
		}
	}
	if unsafe != 5 {
		t.Errorf("without toastSafe %d of the titles are unsafe in the model, want 5", unsafe)
	}
	if n := toastSafe(fyne.NewNotification("IT: Printers", "Ann — new printers")); n.Title != "IT: Printers" || n.Content != "Ann — new printers" {
		t.Errorf("toastSafe changed a plain text: %+v", n)
	}
}

// TestNotificationJapanese: a notification's text is the body's start as
// the reader shows it: emphasis marks gone, no space where a line breaks
// inside Japanese, one where it breaks between English words, and cut
// after whole characters.
func TestNotificationJapanese(t *testing.T) {
	for _, c := range []struct{ body, want string }{
		{"本文の**説明会**を\n開催します。", "本文の説明会を開催します。"},
		{"Printers are\nback **today**.", "Printers are back today."},
		{"한국어\n문장", "한국어 문장"},
		{strings.Repeat("説明会", 100), strings.Repeat("説明会", 100)[:snippetLen*3] + "…"},
	} {
		if got := snippet(c.body); got != c.want {
			t.Errorf("snippet(%q) = %q, want %q", c.body, got, c.want)
		}
	}
	it := &news.Item{Category: "it", Title: "説明会のお知らせ", Body: "本文の**説明会**を\n開催します。", Author: "山田"}
	n := notifications([]*news.Item{it}, categories.Default())[0]
	if n.Title != "IT: 説明会のお知らせ" || n.Content != "山田 — 本文の説明会を開催します。" {
		t.Errorf("notification %q / %q", n.Title, n.Content)
	}
}
