package demo

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"math"
	"sync"

	"newsdesk/news"
)

// The demo's attachments (issue 29): a photo of the new office, drawn
// here so that the data set needs no image file, and the floor plan as a
// small PDF. The reader's store holds both whole.

// blob is an attachment's bytes with its manifest entry.
type blob struct {
	data []byte
	att  news.Attachment
}

var demoBlobs = sync.OnceValue(func() []blob {
	var out []blob
	for _, f := range []struct {
		name, mediaType string
		data            []byte
	}{
		{"lisbon-office.jpg", "image/jpeg", officePhoto()},
		{"floor-plan.pdf", "application/pdf", floorPlan()},
	} {
		att, err := news.NewAttachment(bytes.NewReader(f.data), f.name, f.mediaType)
		if err != nil {
			panic(fmt.Sprintf("demo: attachment %s: %v", f.name, err))
		}
		out = append(out, blob{f.data, att})
	}
	return out
})

// officePhoto draws a building against an evening sky, 1200 × 800.
func officePhoto() []byte {
	const w, h = 1200, 800
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		t := float64(y) / h
		sky := color.RGBA{uint8(40 + 170*t), uint8(90 + 90*t), uint8(170 - 40*t), 255}
		for x := range w {
			img.Set(x, y, sky)
		}
	}
	sunX, sunY := 930.0, 560.0
	for y := 420; y < 700; y++ {
		for x := 790; x < 1070; x++ {
			if d := math.Hypot(float64(x)-sunX, float64(y)-sunY); d < 110 {
				img.Set(x, y, color.RGBA{255, uint8(200 - d/2), 120, 255})
			}
		}
	}
	fill := func(x0, y0, x1, y1 int, c color.RGBA) {
		for y := y0; y < y1; y++ {
			for x := x0; x < x1; x++ {
				img.Set(x, y, c)
			}
		}
	}
	fill(0, 700, w, h, color.RGBA{70, 80, 70, 255})           // the square
	fill(240, 230, 760, 700, color.RGBA{225, 215, 195, 255})  // the building
	fill(240, 200, 760, 230, color.RGBA{150, 60, 45, 255})    // its roof
	fill(450, 580, 550, 700, color.RGBA{90, 60, 40, 255})     // the door
	fill(60, 520, 200, 700, color.RGBA{60, 110, 70, 255})     // a tree
	fill(820, 600, 1160, 700, color.RGBA{190, 180, 160, 255}) // the next house
	for row := range 4 {
		for col := range 5 {
			x, y := 275+col*96, 260+row*78
			if row == 3 && col >= 2 && col <= 3 {
				continue
			}
			fill(x, y, x+56, y+52, color.RGBA{250, 220, 120, 255}) // lit windows
		}
	}
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: 85}); err != nil {
		panic(err)
	}
	return b.Bytes()
}

// floorPlan is a one-page PDF.
func floorPlan() []byte {
	const text = "Lisbon office, floor plan: reception and meeting rooms on the ground floor, desks on floors 1 and 2."
	stream := fmt.Sprintf("BT /F1 14 Tf 60 760 Td (%s) Tj ET", text)
	objs := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
		fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(stream), stream),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
	}
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n")
	offsets := make([]int, len(objs))
	for i, o := range objs {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, xref)
	return b.Bytes()
}

// officeBody is the text of the item that shows the photo.
func officeBody() string {
	atts := make([]news.Attachment, 0, 2)
	for _, b := range demoBlobs() {
		atts = append(atts, b.att)
	}
	return news.AppendManifest("Our new office in **Lisbon** opens on Monday, five minutes from Cais do Sodré station.\n\n"+
		"![The Lisbon office at dusk][att:1]\n\n"+
		"Desks are on floors 1 and 2, meeting rooms on the ground floor: the floor plan is attached.", atts)
}
