// Package assets holds the resources bundled into the binary.
//
// The raw bytes live here, free of build tags, so the headless build (which
// links no Fyne) can still use them; the Fyne resources are in assets_fyne.go.
package assets

import _ "embed"

//go:generate go run gen_icon.go

// IconPNG is the application icon, a 256×256 PNG drawn by gen_icon.go.
//
//go:embed icon.png
var IconPNG []byte
