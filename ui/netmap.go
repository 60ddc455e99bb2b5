package ui

import (
	"fmt"
	"image/color"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"newsdesk/app"
)

// netMap draws the map of the tree from the network's census (issue 30):
// the partitions below the vertex as boxes sized by their computers, each
// holding the partitions below it, coloured by health. It stays readable
// at any size of network: the census holds at most 32 × 33 partitions,
// and a box too small for its label shows none. Tapping a box selects it.
type netMap struct {
	widget.BaseWidget
	parts    []app.MapPart
	newest   uint64 // the newest wire version in the network: older is flagged
	selected []int  // the selected box: its index, and its sub-box's
	onSelect func([]int)
	hits     []mapHit // the boxes as last laid out, deepest last
}

// mapHit is a laid-out box and the path to its partition.
type mapHit struct {
	box  mapBox
	path []int
}

// mapBox is a rectangle of the map.
type mapBox struct{ x, y, w, h float32 }

func (b mapBox) contains(p fyne.Position) bool {
	return p.X >= b.x && p.X < b.x+b.w && p.Y >= b.y && p.Y < b.y+b.h
}

func newNetMap(onSelect func([]int)) *netMap {
	m := &netMap{onSelect: onSelect}
	m.ExtendBaseWidget(m)
	return m
}

// set shows parts; newest is the newest wire version the census saw. A
// selection whose box is gone is dropped.
func (m *netMap) set(parts []app.MapPart, newest uint64) {
	m.parts, m.newest = parts, newest
	if m.partAt(m.selected) == nil {
		m.selected = nil
	}
	m.Refresh()
}

// partAt is the partition at path, nil when there is none.
func (m *netMap) partAt(path []int) *app.MapPart {
	parts := m.parts
	var p *app.MapPart
	for _, i := range path {
		if i < 0 || i >= len(parts) {
			return nil
		}
		p = &parts[i]
		parts = p.Parts
	}
	return p
}

// Tapped selects the deepest box under the pointer.
func (m *netMap) Tapped(ev *fyne.PointEvent) {
	for i := len(m.hits) - 1; i >= 0; i-- {
		if m.hits[i].box.contains(ev.Position) {
			m.selected = m.hits[i].path
			m.Refresh()
			if m.onSelect != nil {
				m.onSelect(m.selected)
			}
			return
		}
	}
}

func (m *netMap) MinSize() fyne.Size {
	m.ExtendBaseWidget(m)
	return fyne.NewSize(320, 240)
}

func (m *netMap) CreateRenderer() fyne.WidgetRenderer {
	return &netMapRenderer{m: m}
}

// partHealth is how a partition fares: lost items, then old releases or
// mostly undialable computers, else fine.
func partHealth(p app.MapPart, newest uint64) fyne.ThemeColorName {
	switch {
	case p.Lost > 0:
		return theme.ColorNameError
	case p.MinProtocol < newest || p.Leaves*2 > p.Servants:
		return theme.ColorNameWarning
	}
	return theme.ColorNameSuccess
}

type netMapRenderer struct {
	m       *netMap
	objects []fyne.CanvasObject
	size    fyne.Size
}

func (r *netMapRenderer) Layout(size fyne.Size) {
	r.size = size
	r.build()
}

func (r *netMapRenderer) MinSize() fyne.Size { return r.m.MinSize() }

func (r *netMapRenderer) Refresh() {
	r.build()
	canvas.Refresh(r.m)
}

func (r *netMapRenderer) Objects() []fyne.CanvasObject { return r.objects }

func (r *netMapRenderer) Destroy() {}

// build lays the boxes out anew: the partitions squarified in the whole
// area, each one's own below a line for its label.
func (r *netMapRenderer) build() {
	m := r.m
	r.objects, m.hits = r.objects[:0], m.hits[:0]
	if r.size.Width <= 0 || r.size.Height <= 0 {
		return
	}
	textSize := theme.CaptionTextSize()
	line := textSize * 1.6
	tops := treemap(partSizes(m.parts), mapBox{0, 0, r.size.Width, r.size.Height})
	for i, b := range tops {
		p := m.parts[i]
		b = inset(b, 1.5)
		r.box(b, p, []int{i}, false)
		if b.h > line+8 && b.w > 24 {
			r.label(b, fmt.Sprintf("%s · %d", p.Root, p.Servants), textSize, true)
		}
		inner := mapBox{b.x + 3, b.y + line, b.w - 6, b.h - line - 3}
		if inner.w < 6 || inner.h < 6 || len(p.Parts) == 0 {
			continue
		}
		for j, sb := range treemap(partSizes(p.Parts), inner) {
			sb = inset(sb, 1)
			r.box(sb, p.Parts[j], []int{i, j}, true)
			if sb.h > line && sb.w > 28 {
				r.label(sb, fmt.Sprint(p.Parts[j].Servants), textSize*0.9, false)
			}
		}
	}
}

// box adds the rectangle of partition p at path.
func (r *netMapRenderer) box(b mapBox, p app.MapPart, path []int, inner bool) {
	m := r.m
	fill := theme.Color(partHealth(p, m.newest))
	alpha := uint8(0x38)
	if inner {
		alpha = 0x50
	}
	rgba := color.NRGBAModel.Convert(fill).(color.NRGBA)
	rgba.A = alpha
	rect := canvas.NewRectangle(rgba)
	rect.StrokeColor = theme.Color(theme.ColorNameForeground)
	rect.StrokeWidth = 0.5
	if sameWay(path, m.selected) {
		rect.StrokeColor = theme.Color(theme.ColorNamePrimary)
		rect.StrokeWidth = 3
	}
	rect.Move(fyne.NewPos(b.x, b.y))
	rect.Resize(fyne.NewSize(b.w, b.h))
	r.objects = append(r.objects, rect)
	m.hits = append(m.hits, mapHit{box: b, path: path})
}

// label writes s at the top left of b, cut to fit.
func (r *netMapRenderer) label(b mapBox, s string, size float32, bold bool) {
	t := canvas.NewText(s, theme.Color(theme.ColorNameForeground))
	t.TextSize = size
	t.TextStyle.Bold = bold
	for len(s) > 1 && fyne.MeasureText(t.Text, size, t.TextStyle).Width > b.w-6 {
		s = s[:len(s)-1]
		t.Text = s + "…"
	}
	t.Move(fyne.NewPos(b.x+3, b.y+2))
	r.objects = append(r.objects, t)
}

func sameWay(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func inset(b mapBox, d float32) mapBox {
	return mapBox{b.x + d, b.y + d, max(b.w-2*d, 0), max(b.h-2*d, 0)}
}

// partSizes are the partitions' areas: their computers, at least one.
func partSizes(ps []app.MapPart) []float64 {
	out := make([]float64, len(ps))
	for i, p := range ps {
		out[i] = float64(max(p.Servants, 1))
	}
	return out
}

// treemap lays sizes (largest first) out in r as a squarified treemap
// (Bruls, Huizing and van Wijk): rows along the shorter side, each grown
// while that keeps its boxes closer to squares. Areas are proportional
// to sizes; the boxes tile r.
func treemap(sizes []float64, r mapBox) []mapBox {
	out := make([]mapBox, len(sizes))
	var total float64
	for _, s := range sizes {
		total += s
	}
	if total <= 0 || r.w <= 0 || r.h <= 0 {
		return out
	}
	scale := float64(r.w) * float64(r.h) / total
	area := make([]float64, len(sizes))
	for i, s := range sizes {
		area[i] = s * scale
	}
	worst := func(row []float64, side float64) float64 {
		var sum, lo, hi float64
		lo = row[0]
		for _, a := range row {
			sum += a
			lo, hi = min(lo, a), max(hi, a)
		}
		return max(side*side*hi/(sum*sum), sum*sum/(side*side*lo))
	}
	for i := 0; i < len(area); {
		side := float64(min(r.w, r.h))
		j := i + 1
		for j < len(area) && worst(area[i:j+1], side) <= worst(area[i:j], side) {
			j++
		}
		var sum float64
		for _, a := range area[i:j] {
			sum += a
		}
		if r.w >= r.h { // a column at the left
			w := float32(sum / float64(r.h))
			y := r.y
			for k := i; k < j; k++ {
				h := float32(area[k] / float64(w))
				out[k] = mapBox{r.x, y, w, h}
				y += h
			}
			r = mapBox{r.x + w, r.y, r.w - w, r.h}
		} else { // a row at the top
			h := float32(sum / float64(r.w))
			x := r.x
			for k := i; k < j; k++ {
				w := float32(area[k] / float64(h))
				out[k] = mapBox{x, r.y, w, h}
				x += w
			}
			r = mapBox{r.x, r.y + h, r.w, r.h - h}
		}
		i = j
	}
	return out
}
