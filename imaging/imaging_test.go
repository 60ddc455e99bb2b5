package imaging

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"math/rand/v2"
	"strings"
	"testing"
)

// The four colours of a test picture's quarters, as it is to be seen:
// red top left, green top right, blue bottom left, white bottom right.
var quarters = [4]color.RGBA{{255, 0, 0, 255}, {0, 255, 0, 255}, {0, 0, 255, 255}, {255, 255, 255, 255}}

// quartered returns a w×h picture of the four quarters.
func quartered(w, h int) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			i := 0
			if x >= w/2 {
				i++
			}
			if y >= h/2 {
				i += 2
			}
			img.SetRGBA(x, y, quarters[i])
		}
	}
	return img
}

// checkQuarters fails unless img shows the four quarters upright
// (sampled in the middle of each, allowing for JPEG's losses).
func checkQuarters(t *testing.T, what string, img image.Image) {
	t.Helper()
	b := img.Bounds()
	for i, at := range []image.Point{{1, 1}, {3, 1}, {1, 3}, {3, 3}} {
		x, y := b.Min.X+at.X*b.Dx()/4, b.Min.Y+at.Y*b.Dy()/4
		r, g, bl, _ := img.At(x, y).RGBA()
		want := quarters[i]
		if diff(r>>8, want.R) > 40 || diff(g>>8, want.G) > 40 || diff(bl>>8, want.B) > 40 {
			t.Errorf("%s: at (%d,%d) %d,%d,%d, want %v", what, x, y, r>>8, g>>8, bl>>8, want)
		}
	}
}

func diff(a uint32, b uint8) uint32 {
	if a > uint32(b) {
		return a - uint32(b)
	}
	return uint32(b) - a
}

// exifSegment is an APP1 segment whose IFD0 holds the orientation o,
// in the byte order bo, after an unrelated entry.
func exifSegment(bo binary.ByteOrder, o uint16) []byte {
	t := make([]byte, 8+2+2*12+4)
	if bo == binary.LittleEndian {
		copy(t, "II")
	} else {
		copy(t, "MM")
	}
	bo.PutUint16(t[2:], 42)
	bo.PutUint32(t[4:], 8)
	bo.PutUint16(t[8:], 2)
	e := t[10:]
	bo.PutUint16(e, 0x010F) // Make: ASCII, elsewhere
	bo.PutUint16(e[2:], 2)
	bo.PutUint32(e[4:], 6)
	bo.PutUint32(e[8:], 0x100)
	e = t[22:]
	bo.PutUint16(e, orientationTag)
	bo.PutUint16(e[2:], 3)
	bo.PutUint32(e[4:], 1)
	bo.PutUint16(e[8:], o)
	payload := append([]byte("Exif\x00\x00"), t...)
	seg := []byte{0xFF, 0xE1, 0, 0}
	binary.BigEndian.PutUint16(seg[2:], uint16(len(payload)+2))
	return append(seg, payload...)
}

// withEXIF inserts the segment after the JPEG's start of image.
func withEXIF(jpg, seg []byte) []byte {
	out := append([]byte{}, jpg[:2]...)
	out = append(out, seg...)
	return append(out, jpg[2:]...)
}

func encJPEG(t testing.TB, img image.Image) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: 95}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func encPNG(t testing.TB, img image.Image) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// stored returns what a camera stores for a picture to be seen as img
// with orientation o: img turned back.
func stored(img *image.RGBA, o int) *image.RGBA {
	switch o {
	case 6:
		return Orient(img, 8)
	case 8:
		return Orient(img, 6)
	}
	return Orient(img, o) // the others undo themselves
}

func TestOrientation(t *testing.T) {
	jpg := encJPEG(t, quartered(8, 8))
	for o := uint16(1); o <= 8; o++ {
		for _, bo := range []binary.ByteOrder{binary.LittleEndian, binary.BigEndian} {
			if got := Orientation(withEXIF(jpg, exifSegment(bo, o))); got != int(o) {
				t.Errorf("%v orientation %d: read %d", bo, o, got)
			}
		}
	}
	seg := exifSegment(binary.BigEndian, 6)
	for _, c := range []struct {
		what string
		data []byte
	}{
		{"no EXIF", jpg},
		{"empty", nil},
		{"not a JPEG", []byte("GIF89a…")},
		{"orientation 0", withEXIF(jpg, exifSegment(binary.BigEndian, 0))},
		{"orientation 9", withEXIF(jpg, exifSegment(binary.LittleEndian, 9))},
		{"cut in the IFD", append([]byte{0xFF, 0xD8}, seg[:len(seg)-10]...)},
		{"segment longer than the file", append([]byte{0xFF, 0xD8}, seg[:20]...)},
		{"IFD offset past the end", func() []byte {
			s := bytes.Clone(seg)
			binary.BigEndian.PutUint32(s[4+6+4:], 1<<31)
			return withEXIF(jpg, s)
		}()},
		{"entry count past the end", func() []byte {
			s := bytes.Clone(seg)
			binary.BigEndian.PutUint16(s[4+6+8:], 0xFFFF)
			binary.BigEndian.PutUint16(s[4+6+10+12:], 0x0110) // the orientation is another tag now
			return withEXIF(jpg, s)
		}()},
		{"not a short", func() []byte {
			s := bytes.Clone(seg)
			binary.BigEndian.PutUint16(s[4+6+22+2:], 4)
			return withEXIF(jpg, s)
		}()},
		{"after the image data", append(bytes.Clone(jpg[:len(jpg)-2]), seg...)},
	} {
		if got := Orientation(c.data); got != 1 {
			t.Errorf("%s: read %d, want 1", c.what, got)
		}
	}
}

// TestOrient checks each orientation on a 3×2 picture, pixel by pixel:
// the stored picture
//
//	a b c
//	d e f
//
// shown as the orientation says.
func TestOrient(t *testing.T) {
	src := image.NewRGBA(image.Rect(0, 0, 3, 2))
	for i, p := range "abcdef" {
		src.Pix[4*i] = uint8(p)
		src.Pix[4*i+3] = 255
	}
	for o, want := range map[int][]string{
		1: {"abc", "def"},
		2: {"cba", "fed"},
		3: {"fed", "cba"},
		4: {"def", "abc"},
		5: {"ad", "be", "cf"},
		6: {"da", "eb", "fc"},
		7: {"fc", "eb", "da"},
		8: {"cf", "be", "ad"},
	} {
		got := Orient(src, o)
		var rows []string
		for y := range got.Bounds().Dy() {
			var row []byte
			for x := range got.Bounds().Dx() {
				row = append(row, got.RGBAAt(x, y).R)
			}
			rows = append(rows, string(row))
		}
		if len(rows) != len(want) || func() bool {
			for i := range rows {
				if rows[i] != want[i] {
					return true
				}
			}
			return false
		}() {
			t.Errorf("orientation %d: %q, want %q", o, rows, want)
		}
	}
}

// TestPrepareScalesAndTurns: a photo larger than MaxSide is scaled down
// to it, keeping its aspect ratio, turned upright by each EXIF
// orientation, and encoded as a JPEG.
func TestPrepareScalesAndTurns(t *testing.T) {
	seen := quartered(2000, 1250)
	for o := 1; o <= 8; o++ {
		data := withEXIF(encJPEG(t, stored(seen, o)), exifSegment(binary.LittleEndian, uint16(o)))
		p, err := Prepare(data)
		if err != nil {
			t.Fatalf("orientation %d: %v", o, err)
		}
		if !p.Scaled || p.MediaType != JPEG || p.Width != 1600 || p.Height != 1000 || p.Original != len(data) {
			t.Errorf("orientation %d: scaled %v, %s %d×%d, was %d", o, p.Scaled, p.MediaType, p.Width, p.Height, p.Original)
		}
		img, err := jpeg.Decode(bytes.NewReader(p.Data))
		if err != nil {
			t.Fatal(err)
		}
		if b := img.Bounds(); b.Dx() != 1600 || b.Dy() != 1000 {
			t.Errorf("orientation %d: encoded %v", o, b)
		}
		if Orientation(p.Data) != 1 {
			t.Errorf("orientation %d: the result still carries one", o)
		}
		checkQuarters(t, "prepared", img)
	}
	// Portrait: the long side is the height.
	p, err := Prepare(encJPEG(t, quartered(900, 3000)))
	if err != nil || p.Width != 480 || p.Height != 1600 {
		t.Errorf("portrait: %d×%d, %v", p.Width, p.Height, err)
	}
}

// TestDecodeTurns: a small JPEG is published as it is, with its EXIF
// orientation, and the reader's Decode turns it upright.
func TestDecodeTurns(t *testing.T) {
	seen := quartered(40, 20)
	for o := 1; o <= 8; o++ {
		data := withEXIF(encJPEG(t, stored(seen, o)), exifSegment(binary.BigEndian, uint16(o)))
		p, err := Prepare(data)
		if err != nil {
			t.Fatal(err)
		}
		if p.Scaled || !bytes.Equal(p.Data, data) || p.Width != 40 || p.Height != 20 {
			t.Errorf("orientation %d: scaled %v, %d×%d", o, p.Scaled, p.Width, p.Height)
		}
		img, err := Decode(data)
		if err != nil {
			t.Fatal(err)
		}
		if b := img.Bounds(); b.Dx() != 40 || b.Dy() != 20 {
			t.Errorf("orientation %d: decoded %v", o, b)
		}
		checkQuarters(t, "decoded", img)
	}
}

// TestPrepareKeepsSmall: pictures within MaxSide, and every GIF, stay
// byte for byte as they are.
func TestPrepareKeepsSmall(t *testing.T) {
	var gb bytes.Buffer
	pal := image.NewPaletted(image.Rect(0, 0, 2000, 100), []color.Color{color.Black, color.White})
	if err := gif.Encode(&gb, pal, nil); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		what, mt string
		data     []byte
		w, h     int
	}{
		{"JPEG", JPEG, encJPEG(t, quartered(1600, 900)), 1600, 900},
		{"PNG", PNG, encPNG(t, quartered(300, 1600)), 300, 1600},
		{"large GIF", GIF, gb.Bytes(), 2000, 100},
	} {
		p, err := Prepare(c.data)
		if err != nil {
			t.Fatalf("%s: %v", c.what, err)
		}
		if p.Scaled || !bytes.Equal(p.Data, c.data) || p.MediaType != c.mt || p.Width != c.w || p.Height != c.h || p.Size() != len(c.data) {
			t.Errorf("%s: scaled %v, %s %d×%d", c.what, p.Scaled, p.MediaType, p.Width, p.Height)
		}
	}
}

// TestPreparePNG: a large PNG stays a PNG when it has transparency, and
// becomes a JPEG when it has none and the JPEG is smaller.
func TestPreparePNG(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 2))
	photo := image.NewRGBA(image.Rect(0, 0, 2400, 1800))
	for i := range photo.Pix {
		photo.Pix[i] = uint8(rnd.IntN(256))
		if i%4 == 3 {
			photo.Pix[i] = 255
		}
	}
	p, err := Prepare(encPNG(t, photo))
	if err != nil || p.MediaType != JPEG || !p.Scaled || p.Width != 1600 || p.Height != 1200 {
		t.Errorf("opaque photo: %s %d×%d, %v", p.MediaType, p.Width, p.Height, err)
	}

	clear := image.NewNRGBA(image.Rect(0, 0, 2400, 600))
	for i := range clear.Pix {
		if i%4 == 3 {
			clear.Pix[i] = uint8(i / 4 % 256)
		} else {
			clear.Pix[i] = 200
		}
	}
	p, err = Prepare(encPNG(t, clear))
	if err != nil || p.MediaType != PNG || !p.Scaled || p.Width != 1600 || p.Height != 400 {
		t.Fatalf("transparent: %s %d×%d, %v", p.MediaType, p.Width, p.Height, err)
	}
	img, err := png.Decode(bytes.NewReader(p.Data))
	if err != nil {
		t.Fatal(err)
	}
	if img.(interface{ Opaque() bool }).Opaque() {
		t.Error("the transparency was lost")
	}
}

// pngHeader is a PNG's signature and header claiming w×h pixels, with
// nothing after it.
func pngHeader(w, h uint32) []byte {
	ihdr := make([]byte, 4+13)
	copy(ihdr, "IHDR")
	binary.BigEndian.PutUint32(ihdr[4:], w)
	binary.BigEndian.PutUint32(ihdr[8:], h)
	ihdr[12], ihdr[13] = 8, 6 // 8 bits, RGBA
	out := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\x0d")
	out = append(out, ihdr...)
	return binary.BigEndian.AppendUint32(out, crc32.ChecksumIEEE(ihdr))
}

func TestPrepareRefuses(t *testing.T) {
	if _, err := Prepare([]byte("%PDF-1.7")); !errors.Is(err, ErrFormat) {
		t.Errorf("PDF: %v", err)
	}
	if _, err := Prepare(pngHeader(20000, 20000)); !errors.Is(err, ErrTooLarge) {
		t.Errorf("400 megapixels: %v", err)
	}
	if _, err := Decode(pngHeader(20000, 20000)); !errors.Is(err, ErrTooLarge) {
		t.Errorf("decoding 400 megapixels: %v", err)
	}
	if _, err := DecodeWithin(pngHeader(4000, 4000), 4000*4000-1); !errors.Is(err, ErrTooLarge) {
		t.Errorf("decoding beyond the bound: %v", err)
	}
	if _, err := Prepare(pngHeader(2000, 2000)); !errors.Is(err, ErrDamaged) {
		t.Errorf("a PNG with no pixel data: %v", err)
	}
	if _, err := Prepare(encJPEG(t, quartered(8, 8))[:12]); !errors.Is(err, ErrDamaged) || !strings.HasPrefix(err.Error(), "reading the picture: ") {
		t.Errorf("a JPEG cut off in its header: %v", err)
	}
}

// FuzzOrientation: any input reads as an orientation from 1 to 8,
// without panicking.
func FuzzOrientation(f *testing.F) {
	jpg := encJPEG(f, quartered(8, 8))
	f.Add(jpg)
	f.Add(withEXIF(jpg, exifSegment(binary.LittleEndian, 6)))
	f.Add(withEXIF(jpg, exifSegment(binary.BigEndian, 3)))
	f.Add(exifSegment(binary.BigEndian, 8))
	f.Fuzz(func(t *testing.T, data []byte) {
		if o := Orientation(data); o < 1 || o > 8 {
			t.Fatalf("orientation %d", o)
		}
		// The same segment anywhere in a JPEG's header.
		if o := Orientation(append([]byte{0xFF, 0xD8}, data...)); o < 1 || o > 8 {
			t.Fatalf("orientation %d", o)
		}
	})
}

// FuzzConfig: reading a picture's header never panics, and what it
// accepts is within MaxPixels.
func FuzzConfig(f *testing.F) {
	f.Add(encPNG(f, quartered(4, 4)))
	f.Add(pngHeader(20000, 20000))
	f.Fuzz(func(t *testing.T, data []byte) {
		if _, w, h, err := Config(data); err == nil && (w <= 0 || h <= 0 || int64(w)*int64(h) > MaxPixels) {
			t.Fatalf("%d×%d accepted", w, h)
		}
	})
}

// BenchmarkPrepare scales a 4000×3000 photo (12 megapixels) to
// 1600×1200.
func BenchmarkPrepare(b *testing.B) {
	rnd := rand.New(rand.NewPCG(3, 4))
	img := quartered(4000, 3000)
	for i := 0; i < len(img.Pix); i += 4 * 97 {
		img.Pix[i] = uint8(rnd.IntN(256))
	}
	data := encJPEG(b, img)
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for b.Loop() {
		if _, err := Prepare(data); err != nil {
			b.Fatal(err)
		}
	}
}
