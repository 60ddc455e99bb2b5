// Command idlewindow is the smallest Fyne window there is, one label.
// scripts/idle-cpu.sh measures what it costs while nothing happens beside
// the idle desktop app: the difference is what the app itself spends, the
// rest is Fyne's (its event loop wakes 60 times a second, shown or not).
package main

import (
	"fyne.io/fyne/v2/app"
	"fyne.io/fyne/v2/widget"
)

func main() {
	a := app.New()
	w := a.NewWindow("Newsdesk")
	w.SetContent(widget.NewLabel("Nothing happens here."))
	w.ShowAndRun()
}
