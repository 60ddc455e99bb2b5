//go:build ignore

// gen_icon draws assets/icon.png: a newspaper page with an "N" masthead on a
// blue rounded square. Run it with `go generate ./assets`.
package main

import (
	"image"
	"image/color"
	"image/png"
	"log"
	"math"
	"os"
)

const (
	size = 256
	ss   = 4 // supersamples per axis, for anti-aliased edges
)

// shape reports whether the point (x, y), in icon pixels, is inside it.
type shape func(x, y float64) bool

// layer is a shape painted with a colour that may vary with position.
type layer struct {
	in    shape
	paint func(x, y float64) color.NRGBA
}

func solid(c color.NRGBA) func(x, y float64) color.NRGBA {
	return func(float64, float64) color.NRGBA { return c }
}

// roundRect is the rectangle [x0,x1]×[y0,y1] with corners of radius r.
func roundRect(x0, y0, x1, y1, r float64) shape {
	return func(x, y float64) bool {
		if x < x0 || x > x1 || y < y0 || y > y1 {
			return false
		}
		cx := math.Max(x0+r, math.Min(x, x1-r))
		cy := math.Max(y0+r, math.Min(y, y1-r))
		return (x-cx)*(x-cx)+(y-cy)*(y-cy) <= r*r
	}
}

// convex is the convex polygon with the given vertices in clockwise order
// (y grows downwards).
func convex(pts ...[2]float64) shape {
	return func(x, y float64) bool {
		for i := range pts {
			a, b := pts[i], pts[(i+1)%len(pts)]
			if (b[0]-a[0])*(y-a[1])-(b[1]-a[1])*(x-a[0]) < 0 {
				return false
			}
		}
		return true
	}
}

func union(s ...shape) shape {
	return func(x, y float64) bool {
		for _, f := range s {
			if f(x, y) {
				return true
			}
		}
		return false
	}
}

func main() {
	var (
		blueTop    = color.NRGBA{0x3b, 0x8e, 0xf0, 0xff}
		blueBottom = color.NRGBA{0x16, 0x4f, 0xb5, 0xff}
		shadow     = color.NRGBA{0x0b, 0x2f, 0x73, 0x60}
		paper      = color.NRGBA{0xfb, 0xfc, 0xfe, 0xff}
		ink        = color.NRGBA{0x16, 0x4f, 0xb5, 0xff}
		text       = color.NRGBA{0xb4, 0xbe, 0xcc, 0xff}
	)
	gradient := func(_, y float64) color.NRGBA {
		t := y / size
		mix := func(a, b uint8) uint8 { return uint8(float64(a)*(1-t) + float64(b)*t + 0.5) }
		return color.NRGBA{mix(blueTop.R, blueBottom.R), mix(blueTop.G, blueBottom.G), mix(blueTop.B, blueBottom.B), 0xff}
	}

	// The "N" masthead: two stems and a diagonal.
	const nx0, nx1, ny0, ny1, stem = 76, 140, 66, 128, 17
	glyph := union(
		convex([2]float64{nx0, ny0}, [2]float64{nx0 + stem, ny0}, [2]float64{nx0 + stem, ny1}, [2]float64{nx0, ny1}),
		convex([2]float64{nx1 - stem, ny0}, [2]float64{nx1, ny0}, [2]float64{nx1, ny1}, [2]float64{nx1 - stem, ny1}),
		convex([2]float64{nx0, ny0}, [2]float64{nx0 + stem + 4, ny0}, [2]float64{nx1, ny1}, [2]float64{nx1 - stem - 4, ny1}),
	)
	// Lines of text: short ones beside the masthead, full ones below it.
	lines := union(
		roundRect(154, 68, 182, 77, 4.5),
		roundRect(154, 88, 182, 97, 4.5),
		roundRect(154, 108, 182, 117, 4.5),
		roundRect(76, 146, 182, 155, 4.5),
		roundRect(76, 166, 182, 175, 4.5),
		roundRect(76, 186, 150, 195, 4.5),
	)
	layers := []layer{
		{roundRect(8, 8, 248, 248, 56), gradient},
		{roundRect(62, 54, 202, 218, 12), solid(shadow)},
		{roundRect(58, 46, 198, 210, 12), solid(paper)},
		{glyph, solid(ink)},
		{lines, solid(text)},
	}

	img := image.NewNRGBA(image.Rect(0, 0, size, size))
	for py := 0; py < size; py++ {
		for px := 0; px < size; px++ {
			var r, g, b, a float64 // premultiplied accumulators
			for sy := 0; sy < ss; sy++ {
				for sx := 0; sx < ss; sx++ {
					x := float64(px) + (float64(sx)+0.5)/ss
					y := float64(py) + (float64(sy)+0.5)/ss
					var cr, cg, cb, ca float64
					for _, l := range layers {
						if !l.in(x, y) {
							continue
						}
						c := l.paint(x, y)
						al := float64(c.A) / 255
						cr = float64(c.R)*al + cr*(1-al)
						cg = float64(c.G)*al + cg*(1-al)
						cb = float64(c.B)*al + cb*(1-al)
						ca = al + ca*(1-al)
					}
					r, g, b, a = r+cr, g+cg, b+cb, a+ca
				}
			}
			n := float64(ss * ss)
			if a == 0 {
				continue
			}
			img.SetNRGBA(px, py, color.NRGBA{
				R: uint8(r/a + 0.5), G: uint8(g/a + 0.5), B: uint8(b/a + 0.5),
				A: uint8(a/n*255 + 0.5),
			})
		}
	}

	f, err := os.Create("icon.png")
	if err != nil {
		log.Fatal(err)
	}
	if err := png.Encode(f, img); err != nil {
		log.Fatal(err)
	}
	if err := f.Close(); err != nil {
		log.Fatal(err)
	}
}
