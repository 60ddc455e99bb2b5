package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"
)

// linesLayout stacks lines of text, each overlapping the one above by
// overlap: a label's padding above and below its text is more than two
// lines of a list row need.
type linesLayout struct{ overlap float32 }

func (l *linesLayout) MinSize(objs []fyne.CanvasObject) fyne.Size {
	var s fyne.Size
	for i, o := range objs {
		m := o.MinSize()
		s.Width = max(s.Width, m.Width)
		s.Height += m.Height
		if i > 0 {
			s.Height -= l.overlap
		}
	}
	return s
}

func (l *linesLayout) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	y := float32(0)
	for _, o := range objs {
		h := o.MinSize().Height
		o.Move(fyne.NewPos(0, y))
		o.Resize(fyne.NewSize(size.Width, h))
		y += h - l.overlap
	}
}

// markerLayout centres a small marker in a fixed-width column.
type markerLayout struct{}

const markerWidth = 20

func (markerLayout) MinSize([]fyne.CanvasObject) fyne.Size { return fyne.NewSize(markerWidth, 0) }

func (markerLayout) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	for _, o := range objs {
		d := float32(9)
		if _, ok := o.(*widget.Icon); ok {
			d = 18
		}
		o.Resize(fyne.NewSquareSize(d))
		o.Move(fyne.NewPos((size.Width-d)/2+2, (size.Height-d)/2))
	}
}

// columnLayout centres its content in a column at most width wide (the
// wizard: a form stretched over a wide window reads badly).
type columnLayout struct{ width float32 }

func (c *columnLayout) MinSize(objs []fyne.CanvasObject) fyne.Size {
	var s fyne.Size
	for _, o := range objs {
		s = s.Max(o.MinSize())
	}
	return s
}

func (c *columnLayout) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	w := min(size.Width, max(c.width, c.MinSize(objs).Width))
	for _, o := range objs {
		o.Move(fyne.NewPos((size.Width-w)/2, 0))
		o.Resize(fyne.NewSize(w, size.Height))
	}
}

// fixedWidthLayout gives its content the width of a label showing sample
// (at least), centred vertically.
type fixedWidthLayout struct {
	sample string
	width  float32
}

func (f *fixedWidthLayout) MinSize(objs []fyne.CanvasObject) fyne.Size {
	if f.width == 0 {
		l := widget.NewLabel(f.sample)
		if len(objs) > 0 {
			if o, ok := objs[0].(*widget.Label); ok {
				l.SizeName = o.SizeName
			}
		}
		f.width = l.MinSize().Width
	}
	var s fyne.Size
	for _, o := range objs {
		s = s.Max(o.MinSize())
	}
	return fyne.NewSize(max(f.width, s.Width), s.Height)
}

func (f *fixedWidthLayout) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	for _, o := range objs {
		h := o.MinSize().Height
		o.Move(fyne.NewPos(0, (size.Height-h)/2))
		o.Resize(fyne.NewSize(size.Width, h))
	}
}

// cappedHeightLayout gives its content (a scroll) the height of inner, up
// to most: a list that grows scrolls rather than pushing what is around
// it out of the window.
type cappedHeightLayout struct {
	inner fyne.CanvasObject
	most  float32
}

func (c *cappedHeightLayout) MinSize([]fyne.CanvasObject) fyne.Size {
	m := c.inner.MinSize()
	return fyne.NewSize(m.Width, min(m.Height, c.most))
}

func (c *cappedHeightLayout) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	for _, o := range objs {
		o.Move(fyne.NewPos(0, 0))
		o.Resize(size)
	}
}
