// Package imaging prepares pictures for publication and decodes them for
// the reader (issue 29): a photo larger than MaxSide pixels on its long
// side is scaled down to it and re-encoded, turned upright by its EXIF
// orientation on the way; a picture that is already small enough is left
// byte for byte as it is. It knows JPEG, PNG and GIF, the formats the
// reader shows inline, and nothing of the UI.
package imaging

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/gif"
	"image/jpeg"
	"image/png"

	"golang.org/x/image/draw"
)

const (
	// MaxSide is the longest side, in pixels, of a picture Prepare
	// leaves alone: a photo of a phone or camera is scaled down to it,
	// which is plenty for a screen and a fraction of the bytes.
	MaxSide = 1600
	// JPEGQuality is the quality scaled photos are encoded with.
	JPEGQuality = 85
	// MaxPixels bounds the pictures decoded (width × height), 64
	// megapixels: a larger one would take more memory than a news
	// picture is worth, and a small file can claim a huge size.
	MaxPixels = 64 << 20
)

// Media types of the formats known here.
const (
	JPEG = "image/jpeg"
	PNG  = "image/png"
	GIF  = "image/gif"
)

var (
	// ErrFormat: the data is not a JPEG, PNG or GIF.
	ErrFormat = errors.New("not a JPEG, PNG or GIF picture")
	// ErrTooLarge: the picture has more than MaxPixels pixels.
	ErrTooLarge = errors.New("the picture has too many pixels")
	// ErrDamaged: the data starts as a JPEG, PNG or GIF but cannot be
	// read as one (cut off, or damaged). The errors matching it say in
	// their own words what the decoder found.
	ErrDamaged = errors.New("the picture is damaged")
)

// damagedError is what a decoder found wrong with a picture, in its own
// words, and an ErrDamaged.
type damagedError struct{ err error }

func (e damagedError) Error() string        { return e.err.Error() }
func (e damagedError) Unwrap() error        { return e.err }
func (e damagedError) Is(target error) bool { return target == ErrDamaged }

// Picture is a picture as it is to be published.
type Picture struct {
	Data      []byte // the bytes to publish
	MediaType string // JPEG, PNG or GIF
	// Width and Height are the pixel dimensions as the picture is shown,
	// upright.
	Width, Height int
	// Scaled reports whether Data is new (scaled, re-encoded); false:
	// Data is the input.
	Scaled bool
	// Original is the size of the input in bytes.
	Original int
}

// Size is the size of Data in bytes.
func (p Picture) Size() int { return len(p.Data) }

// MediaType returns the media type of data's format (JPEG, PNG, GIF), or
// "" for anything else.
func MediaType(data []byte) string {
	switch {
	case len(data) >= 3 && data[0] == 0xFF && data[1] == 0xD8 && data[2] == 0xFF:
		return JPEG
	case bytes.HasPrefix(data, []byte("\x89PNG\r\n\x1a\n")):
		return PNG
	case bytes.HasPrefix(data, []byte("GIF87a")) || bytes.HasPrefix(data, []byte("GIF89a")):
		return GIF
	}
	return ""
}

// config reads the format's header: the media type and the stored pixel
// dimensions, checked against MaxPixels.
func config(data []byte) (string, image.Config, error) {
	mt := MediaType(data)
	var cfg image.Config
	var err error
	switch mt {
	case JPEG:
		cfg, err = jpeg.DecodeConfig(bytes.NewReader(data))
	case PNG:
		cfg, err = png.DecodeConfig(bytes.NewReader(data))
	case GIF:
		cfg, err = gif.DecodeConfig(bytes.NewReader(data))
	default:
		return "", cfg, ErrFormat
	}
	if err != nil {
		return "", cfg, fmt.Errorf("reading the picture: %w", damagedError{err})
	}
	if cfg.Width <= 0 || cfg.Height <= 0 {
		return "", cfg, fmt.Errorf("reading the picture: %w", damagedError{fmt.Errorf("%dx%d pixels", cfg.Width, cfg.Height)})
	}
	if int64(cfg.Width)*int64(cfg.Height) > MaxPixels {
		return "", cfg, ErrTooLarge
	}
	return mt, cfg, nil
}

// Prepare readies a picture for publication. A JPEG or PNG with more than
// MaxSide pixels on its long side is turned upright (a JPEG's EXIF
// orientation), scaled down so that its long side is MaxSide, keeping
// its aspect ratio, and encoded as a JPEG of JPEGQuality; a PNG with
// transparency stays a PNG, and an opaque one becomes a JPEG only when
// that is smaller. Anything smaller, and every GIF (it may be animated),
// is returned as it is.
func Prepare(data []byte) (Picture, error) {
	mt, cfg, err := config(data)
	if err != nil {
		return Picture{}, err
	}
	o := 1
	if mt == JPEG {
		o = Orientation(data)
	}
	w, h := orientedSize(cfg.Width, cfg.Height, o)
	p := Picture{Data: data, MediaType: mt, Width: w, Height: h, Original: len(data)}
	if mt == GIF || max(w, h) <= MaxSide {
		return p, nil
	}
	var src image.Image
	if mt == JPEG {
		src, err = jpeg.Decode(bytes.NewReader(data))
	} else {
		src, err = png.Decode(bytes.NewReader(data))
	}
	if err != nil {
		return Picture{}, fmt.Errorf("decoding the picture: %w", damagedError{err})
	}
	// Scale in the stored orientation, then turn the smaller result.
	tw, th := fit(w, h, MaxSide)
	sw, sh := orientedSize(tw, th, o) // the same turn swaps back
	if _, ok := src.(*image.YCbCr); ok {
		// Converting a JPEG's colours once costs less than at each
		// of the filter's taps.
		b := src.Bounds()
		rgba := image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
		draw.Draw(rgba, rgba.Bounds(), src, b.Min, draw.Src)
		src = rgba
	}
	scaled := image.NewRGBA(image.Rect(0, 0, sw, sh))
	draw.CatmullRom.Scale(scaled, scaled.Bounds(), src, src.Bounds(), draw.Src, nil)
	out := Orient(scaled, o)

	p.Width, p.Height, p.Scaled = tw, th, true
	if mt == PNG {
		var pb bytes.Buffer
		if err := png.Encode(&pb, out); err != nil {
			return Picture{}, fmt.Errorf("encoding the picture: %w", err)
		}
		if !out.Opaque() {
			p.Data = pb.Bytes()
			return p, nil
		}
		jb, err := encodeJPEG(out)
		if err != nil {
			return Picture{}, err
		}
		if len(jb) < pb.Len() {
			p.Data, p.MediaType = jb, JPEG
		} else {
			p.Data = pb.Bytes()
		}
		return p, nil
	}
	if p.Data, err = encodeJPEG(out); err != nil {
		return Picture{}, err
	}
	return p, nil
}

func encodeJPEG(img image.Image) ([]byte, error) {
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: JPEGQuality}); err != nil {
		return nil, fmt.Errorf("encoding the picture: %w", err)
	}
	return b.Bytes(), nil
}

// fit returns w×h scaled down so that its long side is side, rounded,
// at least one pixel each.
func fit(w, h, side int) (int, int) {
	if w >= h {
		return side, max(1, int((int64(h)*int64(side)+int64(w)/2)/int64(w)))
	}
	return max(1, int((int64(w)*int64(side)+int64(h)/2)/int64(h))), side
}

// orientedSize is the size of a w×h picture shown in orientation o: the
// sides swap for the orientations that turn it by a quarter (5 to 8).
func orientedSize(w, h, o int) (int, int) {
	if o >= 5 && o <= 8 {
		return h, w
	}
	return w, h
}

// Config returns the media type and the upright pixel dimensions of a
// picture from its header, without decoding it.
func Config(data []byte) (mediaType string, width, height int, err error) {
	mt, cfg, err := config(data)
	if err != nil {
		return "", 0, 0, err
	}
	o := 1
	if mt == JPEG {
		o = Orientation(data)
	}
	w, h := orientedSize(cfg.Width, cfg.Height, o)
	return mt, w, h, nil
}

// Decode decodes a JPEG, PNG or GIF (its first frame) for showing,
// upright: a JPEG is turned by its EXIF orientation. Pictures with more
// than MaxPixels pixels are refused before they are decoded.
func Decode(data []byte) (image.Image, error) { return DecodeWithin(data, MaxPixels) }

// DecodeWithin is Decode for pictures of at most maxPixels pixels (and
// MaxPixels): a reader decoding what others sent bounds the memory it
// spends on one.
func DecodeWithin(data []byte, maxPixels int) (image.Image, error) {
	mt, cfg, err := config(data)
	if err != nil {
		return nil, err
	}
	if int64(cfg.Width)*int64(cfg.Height) > int64(maxPixels) {
		return nil, ErrTooLarge
	}
	var img image.Image
	switch mt {
	case JPEG:
		img, err = jpeg.Decode(bytes.NewReader(data))
	case PNG:
		img, err = png.Decode(bytes.NewReader(data))
	default:
		img, err = gif.Decode(bytes.NewReader(data))
	}
	if err != nil {
		return nil, fmt.Errorf("decoding the picture: %w", damagedError{err})
	}
	if mt == JPEG {
		if o := Orientation(data); o != 1 {
			b := img.Bounds()
			rgba := image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
			draw.Draw(rgba, rgba.Bounds(), img, b.Min, draw.Src)
			img = Orient(rgba, o)
		}
	}
	return img, nil
}

// Orient returns src turned and mirrored as EXIF orientation o says a
// picture is to be shown (TIFF 6.0, tag 0x0112): 1 as stored, 2 mirrored
// left to right, 3 turned by 180°, 4 mirrored top to bottom, 5 mirrored
// along the diagonal from the top left (transposed), 6 turned a quarter
// clockwise, 7 mirrored along the other diagonal, 8 turned a quarter
// counter-clockwise. Orientation 1 and values outside 1 to 8 return src
// itself.
func Orient(src *image.RGBA, o int) *image.RGBA {
	if o < 2 || o > 8 {
		return src
	}
	b := src.Bounds()
	w, h := b.Dx(), b.Dy()
	dw, dh := orientedSize(w, h, o)
	dst := image.NewRGBA(image.Rect(0, 0, dw, dh))
	for y := 0; y < h; y++ {
		row := src.Pix[src.PixOffset(b.Min.X, b.Min.Y+y):]
		for x := 0; x < w; x++ {
			var dx, dy int
			switch o {
			case 2:
				dx, dy = w-1-x, y
			case 3:
				dx, dy = w-1-x, h-1-y
			case 4:
				dx, dy = x, h-1-y
			case 5:
				dx, dy = y, x
			case 6:
				dx, dy = h-1-y, x
			case 7:
				dx, dy = h-1-y, w-1-x
			case 8:
				dx, dy = y, w-1-x
			}
			copy(dst.Pix[dst.PixOffset(dx, dy):][:4], row[4*x:4*x+4])
		}
	}
	return dst
}
