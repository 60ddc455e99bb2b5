package assets

import (
	"bytes"
	"image/png"
	"testing"
)

func TestIconIsA256PNG(t *testing.T) {
	cfg, err := png.DecodeConfig(bytes.NewReader(IconPNG))
	if err != nil {
		t.Fatalf("decode icon: %v", err)
	}
	if cfg.Width != 256 || cfg.Height != 256 {
		t.Fatalf("icon is %dx%d, want 256x256", cfg.Width, cfg.Height)
	}
}
