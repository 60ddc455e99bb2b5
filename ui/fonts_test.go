package ui

import (
	"image"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/japanese"
	"golang.org/x/text/encoding/korean"
	"golang.org/x/text/encoding/simplifiedchinese"
)

// notInNotoCJK are characters of the national sets that Noto Sans CJK
// JP, the subset's source, does not have either.
const notInNotoCJK = "≒∼◈"

// doubleByte returns the characters a double-byte encoding gives the
// byte pairs lead×trail.
func doubleByte(e encoding.Encoding, lead, trail [2]byte) []rune {
	var out []rune
	dec := e.NewDecoder()
	for a := int(lead[0]); a <= int(lead[1]); a++ {
		for b := int(trail[0]); b <= int(trail[1]); b++ {
			s, err := dec.Bytes([]byte{byte(a), byte(b)})
			if err != nil {
				continue
			}
			if r, n := utf8.DecodeRune(s); n == len(s) && r != utf8.RuneError && r >= 0x80 {
				out = append(out, r)
			}
		}
	}
	return out
}

// TestCJKFontCoverage: what scripts/cjkfont.py promises, read back from
// the bundled fonts, regular and bold. Every character of JIS X 0208
// (Shift JIS), GB 2312 (the EUC-CN rows of GBK) and KS X 1001 (EUC-KR) is
// in the CJK font or in Fyne's Noto Sans; the CJK font has nothing Noto
// Sans has but the spaces, so Latin text looks as it did; common emoji
// are in Fyne's emoji font.
func TestCJKFontCoverage(t *testing.T) {
	sets := map[string][]rune{
		"JIS X 0208": doubleByte(japanese.ShiftJIS, [2]byte{0x81, 0x9F}, [2]byte{0x40, 0xFC}),
		"GB 2312":    doubleByte(simplifiedchinese.GBK, [2]byte{0xA1, 0xF7}, [2]byte{0xA1, 0xFE}),
		"KS X 1001":  doubleByte(korean.EUCKR, [2]byte{0xA1, 0xFE}, [2]byte{0xA1, 0xFE}),
	}
	sets["JIS X 0208"] = append(sets["JIS X 0208"], doubleByte(japanese.ShiftJIS, [2]byte{0xE0, 0xEA}, [2]byte{0x40, 0xFC})...)
	for name, n := range map[string]int{"JIS X 0208": 6800, "GB 2312": 7400, "KS X 1001": 8000} {
		if len(sets[name]) < n {
			t.Fatalf("%s: only %d characters decoded", name, len(sets[name]))
		}
	}
	sets["samples"] = []rune("新しい勤怠システムの説明会は午後三時から会議室Aで行います。" +
		"这是一个测试，我们说中文。" + "회의는 오후 세 시에 시작합니다." + "ｶﾞｲﾄﾞ（全角）：～！" + "𠮟塡剝頰")

	for _, f := range bundledFonts(t) {
		noto, cjk := f.noto, f.cjk
		for name, chars := range sets {
			var missing []rune
			for _, r := range chars {
				if !noto(r) && !cjk(r) && !strings.ContainsRune(notInNotoCJK, r) {
					missing = append(missing, r)
				}
			}
			if len(missing) > 0 {
				t.Errorf("%s: %d characters of %s are in neither font: %q", f.name, len(missing), name, string(missing[:min(len(missing), 40)]))
			}
		}
		for r := rune(0x20); r < 0x3000; r++ {
			if noto(r) && cjk(r) && !unicode.Is(unicode.Zs, r) {
				t.Errorf("%s: %q (U+%04X) is in Noto Sans and in the CJK font", f.name, r, r)
			}
		}
	}

	emoji, err := cmapCoverage(theme.DefaultEmojiFont().Content())
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range "😀😂🙂😉😍🤔😢😮👍👎👏🙏💪🎉🎂🎄🔥⭐✨💡📅📌📎📞📧📢🔔🔒✅❌⚠❗❓☕🍕🚀🚗✈🏢💻🖨📈📉❤💙🌞🌧❄🇯🇵🇩🇪" {
		if !emoji(r) {
			t.Errorf("%q (U+%04X) is not in Fyne's emoji font", r, r)
		}
	}
}

// ink counts the pixels of img that are not its background (the colour
// of its last corner).
func ink(img image.Image) int {
	n := 0
	b := img.Bounds()
	bg := img.At(b.Max.X-1, b.Max.Y-1)
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if img.At(x, y) != bg {
				n++
			}
		}
	}
	return n
}

// TestCJKRendersWithItsBold: Japanese, Chinese and Korean text is drawn
// with glyphs of the bundled font (not the boxes of a missing glyph,
// whatever fonts the machine has), and bold Japanese is drawn bold, with
// more ink than regular.
func TestCJKRendersWithItsBold(t *testing.T) {
	test.NewTempApp(t)
	useCJKFonts(fyne.CurrentApp())
	draw := func(s string, style fyne.TextStyle) image.Image {
		txt := canvas.NewText(s, theme.Color(theme.ColorNameForeground))
		txt.TextStyle = style
		txt.TextSize = 20
		w := test.NewWindow(txt)
		defer w.Close()
		w.Resize(fyne.NewSize(200, 40))
		return w.Canvas().Capture()
	}
	notdef := ink(draw("\U000F0000\U000F0001\U000F0002", fyne.TextStyle{}))
	for _, s := range []string{"説明会", "说明会", "설명회", "かなカナ", "①㈱"} {
		if n := ink(draw(s, fyne.TextStyle{})); n == 0 || n == notdef {
			t.Errorf("%q: %d pixels of ink, as many as three boxes of a missing glyph (%d)", s, n, notdef)
		}
	}
	regular, bold := ink(draw("説明会", fyne.TextStyle{})), ink(draw("説明会", fyne.TextStyle{Bold: true}))
	if float64(bold) < 1.2*float64(regular) {
		t.Errorf("bold 説明会 has %d pixels of ink, regular %d: not bold", bold, regular)
	}
	// A space after Japanese is drawn with the Japanese font (the shaper
	// keeps it in the run before it): blank, not a box.
	for _, style := range []fyne.TextStyle{{}, {Bold: true}} {
		// (a box adds some 200 pixels; the glyphs' antialiasing moves a few)
		if spaced, solid := ink(draw("は は", style)), ink(draw("はは", style)); spaced > solid+solid/10 {
			t.Errorf("%+v: は は has %d pixels of ink, はは %d: the space is drawn", style, spaced, solid)
		}
	}
	// Lines are as high as with Noto Sans alone: (1069 + 293) / 1000 em.
	for _, s := range []string{"Ag", "説明", "A 説 g"} {
		if h := fyne.MeasureText(s, 20, fyne.TextStyle{}).Height; h < 27.2 || h > 27.3 {
			t.Errorf("%q is %v high, want 27.24", s, h)
		}
	}
}
