package ui

import (
	_ "embed"

	"fyne.io/fyne/v2"
)

// Japanese, Chinese and Korean come from a font of our own: a subset of
// Noto Sans CJK JP, regular and bold, made by scripts/cjkfont.py (which
// says what it holds; the README why and what it costs).
//
// Fyne draws each character from the first font of its list that has it:
// the theme's font, Fyne's Noto Sans, its emoji font, then a system font
// for the system's language, then one found for the character. On a
// system with no CJK font (a minimal Linux, wine) Japanese showed as
// boxes; and the font found per character is always the regular one, so
// bold Japanese showed regular. With the theme's font the subset, which
// has no character Noto Sans has, Latin text looks as before and CJK text
// has its glyphs, and its bold, everywhere.

var (
	//go:embed fonts/NotoSansCJKjp-Newsdesk-Regular.otf
	cjkRegularOTF []byte
	//go:embed fonts/NotoSansCJKjp-Newsdesk-Bold.otf
	cjkBoldOTF []byte

	cjkRegular = fyne.NewStaticResource("NotoSansCJKjp-Newsdesk-Regular.otf", cjkRegularOTF)
	cjkBold    = fyne.NewStaticResource("NotoSansCJKjp-Newsdesk-Bold.otf", cjkBoldOTF)
)

// cjkTheme is a theme with the CJK fonts first.
type cjkTheme struct{ fyne.Theme }

// Font is the CJK font of the style's weight; Fyne adds its own font of
// the style after it. Symbols (Fyne's icons in text) keep theirs.
func (t cjkTheme) Font(s fyne.TextStyle) fyne.Resource {
	switch {
	case s.Symbol:
		return t.Theme.Font(s)
	case s.Bold:
		return cjkBold
	}
	return cjkRegular
}

// useCJKFonts puts the CJK fonts into a's theme.
func useCJKFonts(a fyne.App) {
	if _, done := a.Settings().Theme().(cjkTheme); !done {
		a.Settings().SetTheme(cjkTheme{a.Settings().Theme()})
	}
}
