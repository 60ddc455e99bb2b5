//go:build !headless

package assets

import "fyne.io/fyne/v2"

// Icon is the application icon as a Fyne resource.
var Icon = fyne.NewStaticResource("icon.png", IconPNG)
