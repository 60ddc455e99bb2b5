package ui

import (
	"encoding/binary"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"fyne.io/fyne/v2/theme"
)

// TestGlyphsInBundledFont: every character of the program's own text (the
// string literals of the packages whose words can reach a window) is in
// the fonts the UI bundles, regular and bold: Fyne's Noto Sans and our
// CJK subset (fonts.go). A character they lack is drawn from a system
// font found at run time, and where none has it (wine without fonts; a
// locked-down Windows) as "�": the wizard's "Admin → Invitations" read
// "Admin �Invitations" under wine. Users' text (items, names) may hold
// characters beyond them, which still go through the system's fonts; see
// TestCJKFontCoverage for what the subset holds.
//
// Left out: the command line and the tools (cli, cmd, packaging), which
// print to a terminal.
func TestGlyphsInBundledFont(t *testing.T) {
	fonts := map[string]func(rune) bool{}
	for _, f := range bundledFonts(t) {
		noto, cjk := f.noto, f.cjk
		if !noto('A') || !noto('é') || noto('→') || !cjk('→') || !cjk('説') || cjk('A') {
			t.Fatalf("the cmap reader does not read the bundled %s fonts right", f.name)
		}
		fonts[f.name] = func(r rune) bool { return noto(r) || cjk(r) }
	}

	skip := []string{"cli", "cmd", "packaging", ".git", "build", "dist", "docs"}
	missing := map[rune][]string{}
	root := ".."
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			rel, _ := filepath.Rel(root, p)
			if slices.Contains(skip, strings.Split(rel, string(filepath.Separator))[0]) || d.Name() == "testdata" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING && lit.Kind != token.CHAR {
				return true
			}
			s, err := strconv.Unquote(lit.Value)
			if err != nil {
				return true
			}
			for _, r := range s {
				if r < 0x80 || r == '\uFFFD' {
					continue
				}
				for name, has := range fonts {
					if !has(r) {
						at := fmt.Sprintf("%s (%s)", fset.Position(lit.Pos()), name)
						missing[r] = append(missing[r], at)
					}
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// The translations are the program's text too, in every language.
	files, err := fs.Glob(translationFS, "translations/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no translations: %v", err)
	}
	for _, name := range files {
		b, err := translationFS.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range string(b) {
			if r < 0x80 {
				continue
			}
			for font, has := range fonts {
				if at := fmt.Sprintf("ui/%s (%s)", name, font); !has(r) && !slices.Contains(missing[r], at) {
					missing[r] = append(missing[r], at)
				}
			}
		}
	}
	for r, at := range missing {
		t.Errorf("%q (U+%04X) is not in the bundled fonts: %s", r, r, strings.Join(at, ", "))
	}
}

// cmapCoverage reads a TrueType or OpenType font's character map and
// reports which characters it maps to a glyph. It knows the two subtable
// formats that cover Unicode (4: the BMP in segments; 12: all planes in
// groups), which every font Fyne bundles has.
// bundledFont is the coverage of one weight of the bundled fonts: Fyne's
// Noto Sans and the CJK subset.
type bundledFont struct {
	name      string
	noto, cjk func(rune) bool
}

func bundledFonts(t *testing.T) []bundledFont {
	t.Helper()
	var out []bundledFont
	for _, f := range []struct {
		name      string
		noto, cjk []byte
	}{
		{"regular", theme.DefaultTextFont().Content(), cjkRegularOTF},
		{"bold", theme.DefaultTextBoldFont().Content(), cjkBoldOTF},
	} {
		noto, err := cmapCoverage(f.noto)
		if err != nil {
			t.Fatalf("the bundled %s font: %v", f.name, err)
		}
		cjk, err := cmapCoverage(f.cjk)
		if err != nil {
			t.Fatalf("the bundled %s CJK font: %v", f.name, err)
		}
		out = append(out, bundledFont{f.name, noto, cjk})
	}
	return out
}

func cmapCoverage(font []byte) (func(rune) bool, error) {
	be := binary.BigEndian
	if len(font) < 12 {
		return nil, errors.New("too short")
	}
	n := int(be.Uint16(font[4:]))
	var cmap []byte
	for i := 0; i < n; i++ {
		rec := 12 + 16*i
		if rec+16 > len(font) {
			return nil, errors.New("table directory truncated")
		}
		if string(font[rec:rec+4]) == "cmap" {
			off, size := int(be.Uint32(font[rec+8:])), int(be.Uint32(font[rec+12:]))
			if off+size > len(font) {
				return nil, errors.New("cmap truncated")
			}
			cmap = font[off : off+size]
		}
	}
	if len(cmap) < 4 {
		return nil, errors.New("no cmap table")
	}
	var sub4, sub12 []byte
	for i := 0; i < int(be.Uint16(cmap[2:])); i++ {
		rec := 4 + 8*i
		if rec+8 > len(cmap) {
			return nil, errors.New("cmap records truncated")
		}
		platform, encoding, off := be.Uint16(cmap[rec:]), be.Uint16(cmap[rec+2:]), int(be.Uint32(cmap[rec+4:]))
		unicode := platform == 0 || platform == 3 && (encoding == 1 || encoding == 10)
		if !unicode || off+2 > len(cmap) {
			continue
		}
		switch be.Uint16(cmap[off:]) {
		case 4:
			sub4 = cmap[off:]
		case 12:
			sub12 = cmap[off:]
		}
	}
	switch {
	case sub12 != nil:
		if len(sub12) < 16 {
			return nil, errors.New("format 12 subtable truncated")
		}
		groups := int(be.Uint32(sub12[12:]))
		if 16+12*groups > len(sub12) {
			return nil, errors.New("format 12 groups truncated")
		}
		return func(r rune) bool {
			for g := 0; g < groups; g++ {
				at := sub12[16+12*g:]
				first, last, glyph := rune(be.Uint32(at)), rune(be.Uint32(at[4:])), be.Uint32(at[8:])
				if first <= r && r <= last {
					return glyph+uint32(r-first) != 0
				}
			}
			return false
		}, nil
	case sub4 != nil:
		if len(sub4) < 14 {
			return nil, errors.New("format 4 subtable truncated")
		}
		segs := int(be.Uint16(sub4[6:])) / 2
		ends, starts := 14, 16+2*segs
		deltas, ranges := starts+2*segs, starts+4*segs
		if ranges+2*segs > len(sub4) {
			return nil, errors.New("format 4 segments truncated")
		}
		return func(r rune) bool {
			if r > 0xFFFF {
				return false
			}
			for s := 0; s < segs; s++ {
				end, start := rune(be.Uint16(sub4[ends+2*s:])), rune(be.Uint16(sub4[starts+2*s:]))
				if r > end {
					continue
				}
				if r < start {
					return false
				}
				delta, rangeOff := be.Uint16(sub4[deltas+2*s:]), int(be.Uint16(sub4[ranges+2*s:]))
				if rangeOff == 0 {
					return uint16(r)+delta != 0
				}
				// idRangeOffset counts from its own place in the table.
				at := ranges + 2*s + rangeOff + 2*int(r-start)
				if at+2 > len(sub4) {
					return false
				}
				glyph := be.Uint16(sub4[at:])
				return glyph != 0 && glyph+delta != 0
			}
			return false
		}, nil
	}
	return nil, errors.New("no Unicode subtable of format 4 or 12")
}
