package ui

import (
	"errors"
	"fmt"
	"image"
	"io"
	"slices"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"newsdesk/app"
	"newsdesk/imaging"
)

// Inline pictures (issue 29): a body's references to its attachments
// (markdown_images.go) become pictureSegments, which show the picture at
// the width of the text, never larger than it is, with its alt text
// beneath; a tap opens it at full size in a window of its own. A picture
// still arriving shows a placeholder with the progress, a missing one a
// placeholder that says so. The bytes come from the backend's blobs
// (AttachmentBackend) in the reader and from the draft in Compose's
// preview; they are decoded off the UI thread and the decoded pictures
// kept by their hash in a bounded cache (imageCache).

const (
	// maxBlobRead bounds what is read of one attachment into memory.
	maxBlobRead = 64 << 20
	// maxShownPixels bounds a picture the reader decodes (a published
	// photo has at most 1600 × 1600): 4096 × 4096, 64 MB decoded.
	maxShownPixels = 4096 * 4096
	// maxInlinePictures bounds the pictures one body shows; references
	// beyond show as their alt text.
	maxInlinePictures = 64
)

// errNoBlobs: the backend does not serve attachments' bytes.
var errNoBlobs = errors.New("this installation does not hold attachments")

// readBlob reads a whole attachment from the backend (background).
func (u *UI) readBlob(a app.Attachment) ([]byte, error) {
	ab, ok := u.b.(AttachmentBackend)
	if !ok {
		return nil, errNoBlobs
	}
	r, err := ab.OpenBlob(a.Hash)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	limit := int64(maxBlobRead)
	if a.Size > 0 && a.Size < limit {
		limit = a.Size
	}
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("attachment %s: larger than %d bytes", a.Name, limit)
	}
	return data, nil
}

// picture is one reference in a body to an attachment shown inline.
type picture struct {
	att app.Attachment
	alt string
	img image.Image // decoded, upright; nil until then
	err error       // it could not be read or decoded
}

// pictures are the inline pictures of one rendering of a body: a
// pictureSet for markdownBody. segment may run in the background (with
// the body's parsing); load on the UI thread.
type pictures struct {
	u     *UI
	byRef map[string]app.Attachment
	read  func(app.Attachment) ([]byte, error) // background
	list  []*picture
	used  map[string]bool // the refs shown inline
}

func newPictures(u *UI, atts []app.Attachment, read func(app.Attachment) ([]byte, error)) *pictures {
	p := &pictures{u: u, byRef: map[string]app.Attachment{}, read: read, used: map[string]bool{}}
	for _, a := range atts {
		p.byRef[a.Ref] = a
	}
	return p
}

func (p *pictures) segment(ref, alt string) widget.RichTextSegment {
	a, ok := p.byRef[ref]
	if !ok || !a.IsImage() || len(p.list) >= maxInlinePictures {
		return nil
	}
	p.used[ref] = true
	pic := &picture{att: a, alt: alt}
	p.list = append(p.list, pic)
	return &pictureSegment{pic: pic, onTap: p.u.showPicture}
}

// load shows the pictures that are whole: from the cache, or decoded in
// the background, calling shown when the cache had some and after each
// decoded one (UI thread).
func (p *pictures) load(shown func()) {
	waiting := map[string][]*picture{}
	cached := false
	for _, pic := range p.list {
		if pic.att.State != app.BlobWhole {
			continue
		}
		if img := p.u.images.get(pic.att.Hash); img != nil {
			pic.img, cached = img, true
			continue
		}
		waiting[pic.att.Hash] = append(waiting[pic.att.Hash], pic)
	}
	if cached {
		shown()
	}
	for _, pics := range waiting {
		a := pics[0].att
		p.u.w.Go(func() func() {
			data, err := p.read(a)
			var img image.Image
			if err == nil {
				img, err = imaging.DecodeWithin(data, maxShownPixels)
			}
			return func() {
				if img != nil {
					p.u.images.put(a.Hash, img)
				}
				for _, pic := range pics {
					pic.img, pic.err = img, err
				}
				shown()
			}
		})
	}
}

// imageCache keeps decoded pictures by their hash, the most recently
// used first, within a number and a count of pixels (UI thread only).
type imageCache struct {
	hashes []string // most recent first
	imgs   map[string]image.Image
	pixels int
}

const (
	cacheImages = 24
	cachePixels = 24 << 20 // about 96 MB as RGBA
)

func (c *imageCache) get(hash string) image.Image {
	img, ok := c.imgs[hash]
	if ok {
		c.touch(hash)
	}
	return img
}

func (c *imageCache) touch(hash string) {
	if i := slices.Index(c.hashes, hash); i > 0 {
		copy(c.hashes[1:i+1], c.hashes[:i])
		c.hashes[0] = hash
	}
}

func pixelsOf(img image.Image) int { return img.Bounds().Dx() * img.Bounds().Dy() }

func (c *imageCache) put(hash string, img image.Image) {
	if c.imgs == nil {
		c.imgs = map[string]image.Image{}
	}
	if _, ok := c.imgs[hash]; ok {
		c.touch(hash)
		return
	}
	c.imgs[hash] = img
	c.hashes = slices.Insert(c.hashes, 0, hash)
	c.pixels += pixelsOf(img)
	for len(c.hashes) > 1 && (len(c.hashes) > cacheImages || c.pixels > cachePixels) {
		last := c.hashes[len(c.hashes)-1]
		c.pixels -= pixelsOf(c.imgs[last])
		delete(c.imgs, last)
		c.hashes = c.hashes[:len(c.hashes)-1]
	}
}

// pictureSegment shows a picture in a markdownText, as wide as the text's
// lines (which mdtext.go's lineFlow sets) or the picture, whichever is
// narrower.
type pictureSegment struct {
	pic   *picture
	width float32 // of the text's lines; 0 before the first layout
	onTap func(*picture)
}

func (s *pictureSegment) Inline() bool    { return false }
func (s *pictureSegment) Textual() string { return s.pic.alt }
func (s *pictureSegment) Visual() fyne.CanvasObject {
	v := &pictureView{}
	v.ExtendBaseWidget(v)
	v.update(s)
	return v
}
func (s *pictureSegment) Update(o fyne.CanvasObject) {
	if v, ok := o.(*pictureView); ok {
		v.update(s)
	}
}
func (s *pictureSegment) Select(_, _ fyne.Position) {}
func (s *pictureSegment) SelectedText() string      { return "" }
func (s *pictureSegment) Unselect()                 {}

// pictureView is a pictureSegment's visual: the picture and its alt
// text, or a placeholder while it is not here.
type pictureView struct {
	widget.BaseWidget
	seg *pictureSegment

	image    *canvas.Image
	caption  *widget.Label
	box      *canvas.Rectangle // the placeholder's frame
	note     *widget.Label     // what the placeholder says
	progress *widget.ProgressBar
	holder   *fyne.Container // the placeholder: frame, note and progress
}

// placeholderWidth is the widest a placeholder is.
const placeholderWidth = 360

func (v *pictureView) update(s *pictureSegment) {
	v.seg = s
	if v.image == nil {
		v.image = canvas.NewImageFromImage(nil)
		v.image.FillMode = canvas.ImageFillContain
		v.image.ScaleMode = canvas.ImageScaleSmooth
		v.caption = widget.NewLabel("")
		v.caption.Wrapping = fyne.TextWrapWord
		v.caption.Alignment = fyne.TextAlignCenter
		v.caption.Importance = widget.LowImportance
		v.box = canvas.NewRectangle(theme.Color(theme.ColorNameInputBackground))
		v.box.StrokeColor = theme.Color(theme.ColorNameInputBorder)
		v.box.StrokeWidth = 1
		v.box.CornerRadius = theme.InputRadiusSize()
		v.note = widget.NewLabel("")
		v.note.Wrapping = fyne.TextWrapWord
		v.progress = widget.NewProgressBar()
		v.holder = container.NewStack(v.box, container.NewPadded(container.NewVBox(v.note, v.progress)))
	}
	pic := s.pic
	v.caption.SetText(pic.alt)
	v.caption.Hidden = pic.alt == "" || pic.img == nil // a placeholder names it
	v.image.Image = pic.img
	v.image.Hidden = pic.img == nil
	v.holder.Hidden = pic.img != nil
	v.progress.Hide()
	switch {
	case pic.img != nil:
		v.image.Refresh()
	case pic.att.State == app.BlobArriving:
		v.note.SetText(fmt.Sprintf(lang.L("The picture “%s” is arriving: %s of %s."), pictureName(pic), formatBytes(pic.att.Received), formatBytes(pic.att.Size)))
		v.progress.Max = float64(max(pic.att.Size, 1))
		v.progress.SetValue(float64(min(pic.att.Received, pic.att.Size)))
		v.progress.Show()
	case pic.att.State == app.BlobMissing:
		v.note.SetText(fmt.Sprintf(lang.L("The picture “%s” is missing: it has not reached this computer."), pictureName(pic)))
	case pic.err != nil:
		v.note.SetText(fmt.Sprintf(lang.L("The picture “%s” could not be shown: %s"), pictureName(pic), errorText(pic.err)))
	default:
		v.note.SetText(lang.L("Loading…"))
	}
	v.Refresh()
}

// pictureName is how the placeholders name a picture: its alt text, or
// its file name.
func pictureName(pic *picture) string {
	if pic.alt != "" {
		return pic.alt
	}
	return pic.att.Name
}

// imageSize is the size the picture shows at in width w (0: its own):
// its own size, or narrower to fit, keeping its aspect ratio.
func (v *pictureView) imageSize(w float32) fyne.Size {
	b := v.seg.pic.img.Bounds()
	iw, ih := float32(b.Dx()), float32(b.Dy())
	if w <= 0 || w > iw {
		w = iw
	}
	return fyne.NewSize(w, w*ih/max(iw, 1))
}

func (v *pictureView) MinSize() fyne.Size {
	return v.sizeFor(v.seg.width)
}

// sizeFor is the view's height (and narrowest width) in lines of width w.
func (v *pictureView) sizeFor(w float32) fyne.Size {
	if v.seg.pic.img == nil {
		width := float32(placeholderWidth)
		if w > 0 {
			width = min(width, w)
		}
		// The note wraps: its height is that at the placeholder's width.
		inner := width - 4*theme.Padding()
		v.note.Resize(fyne.NewSize(inner, v.note.MinSize().Height))
		v.progress.Resize(fyne.NewSize(inner, v.progress.MinSize().Height))
		return fyne.NewSize(width, v.holder.MinSize().Height)
	}
	s := v.imageSize(w)
	if !v.caption.Hidden {
		s.Height += v.caption.MinSize().Height
	}
	return s
}

func (v *pictureView) CreateRenderer() fyne.WidgetRenderer {
	return &pictureRenderer{v: v}
}

// Tapped opens the picture at full size.
func (v *pictureView) Tapped(*fyne.PointEvent) {
	if v.seg.pic.img != nil && v.seg.onTap != nil {
		v.seg.onTap(v.seg.pic)
	}
}

type pictureRenderer struct{ v *pictureView }

func (r *pictureRenderer) Layout(size fyne.Size) {
	v := r.v
	if v.seg.pic.img == nil {
		w := min(size.Width, placeholderWidth)
		v.holder.Move(fyne.NewPos((size.Width-w)/2, 0))
		v.holder.Resize(fyne.NewSize(w, v.holder.MinSize().Height))
		return
	}
	is := v.imageSize(size.Width)
	v.image.Move(fyne.NewPos((size.Width-is.Width)/2, 0))
	v.image.Resize(is)
	v.caption.Move(fyne.NewPos(0, is.Height))
	v.caption.Resize(fyne.NewSize(size.Width, v.caption.MinSize().Height))
}

func (r *pictureRenderer) MinSize() fyne.Size { return r.v.MinSize() }

func (r *pictureRenderer) Refresh() {
	r.v.box.FillColor = theme.Color(theme.ColorNameInputBackground)
	r.v.box.StrokeColor = theme.Color(theme.ColorNameInputBorder)
	r.Layout(r.v.Size())
	canvas.Refresh(r.v)
}

func (r *pictureRenderer) Objects() []fyne.CanvasObject {
	return []fyne.CanvasObject{r.v.holder, r.v.image, r.v.caption}
}

func (r *pictureRenderer) Destroy() {}

// showPicture opens a picture at its full size in a window of its own,
// scrolled when it is larger than the screen allows.
func (u *UI) showPicture(pic *picture) {
	if pic.img == nil {
		return
	}
	title := pictureName(pic)
	if title == "" {
		title = lang.L("Picture")
	}
	img := canvas.NewImageFromImage(pic.img)
	img.FillMode = canvas.ImageFillOriginal
	img.ScaleMode = canvas.ImageScaleSmooth
	w := u.app.NewWindow(title)
	w.SetContent(container.NewScroll(img))
	b := pic.img.Bounds()
	w.Resize(fyne.NewSize(min(float32(b.Dx()), 1200), min(float32(b.Dy()), 900)))
	u.pictureWindow = w
	w.Show()
}
