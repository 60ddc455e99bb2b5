package ui

import (
	"fmt"
	"image/color"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
	"github.com/google/uuid"
)

// Must-read items (news.Item.MustRead) ask each reader to confirm having
// read them. The item view shows a banner over an unconfirmed one with an
// "I have read this" button; once confirmed it says when. The item list
// marks the unconfirmed ones. One's own posts ask nothing of oneself.

func ackPrompt() string { return lang.L("Must read — please confirm you have read this") }
func ackButton() string { return lang.L("I have read this") }

// isOwn reports whether this installation published r.
func (u *UI) isOwn(r *row) bool {
	return u.status.Source != "" && r.source.String() == u.status.Source
}

// awaitsAck reports whether r is a must-read item the reader here has yet
// to confirm.
func (u *UI) awaitsAck(r *row) bool {
	return r != nil && r.mustRead && r.acknowledged.IsZero() && !r.retracted && !u.isOwn(r)
}

// confirmedText says when an item was confirmed.
func confirmedText(at time.Time) string { return fmt.Sprintf(lang.L("Confirmed %s"), fullTime(at)) }

// acknowledge confirms id in the background and calls done on the UI
// thread with the time of the confirmation, or the error, which it has
// shown in the status line.
func (u *UI) acknowledge(id uuid.UUID, done func(at time.Time, err error)) {
	u.w.Go(func() func() {
		at, err := u.b.Acknowledge(id)
		return func() {
			u.reportError(lang.L("Confirming the item failed"), err)
			done(at, err)
		}
	})
}

// ackBanner is the must-read banner of a view of one item: the prompt with
// its button, then the time of the confirmation. It is hidden for every
// other item.
type ackBanner struct {
	u       *UI
	id      uuid.UUID
	bg      *canvas.Rectangle
	text    *widget.Label
	confirm *widget.Button
	busy    bool

	content *fyne.Container
}

func newAckBanner(u *UI) *ackBanner {
	b := &ackBanner{u: u, bg: canvas.NewRectangle(color.Transparent), text: widget.NewLabel("")}
	b.bg.CornerRadius = theme.InputRadiusSize()
	b.text.Wrapping = fyne.TextWrapWord
	b.text.TextStyle.Bold = true
	b.confirm = widget.NewButtonWithIcon(ackButton(), theme.ConfirmIcon(), b.doConfirm)
	b.confirm.Importance = widget.HighImportance
	b.content = container.NewStack(b.bg, container.NewPadded(
		container.NewBorder(nil, nil, nil, container.NewCenter(b.confirm), b.text)))
	b.content.Hide()
	return b
}

// set shows the banner for r: the prompt while it awaits confirmation,
// the time once confirmed, nothing for other items.
func (b *ackBanner) set(r *row) {
	b.id = r.id
	switch {
	case b.u.awaitsAck(r):
		b.bg.FillColor = withAlpha(theme.Color(theme.ColorNameWarning), 0x40)
		b.text.SetText(ackPrompt())
		b.text.Importance = widget.WarningImportance
		b.confirm.Show()
		b.confirm.Enable()
		b.busy = false
	case r.mustRead && !r.acknowledged.IsZero() && !r.retracted:
		b.bg.FillColor = withAlpha(theme.Color(theme.ColorNameSuccess), 0x30)
		b.text.SetText(confirmedText(r.acknowledged))
		b.text.Importance = widget.SuccessImportance
		b.confirm.Hide()
	default:
		b.content.Hide()
		return
	}
	b.text.Refresh()
	b.bg.Refresh()
	b.content.Show()
}

// doConfirm is the button: the confirmation is stored, then shown.
func (b *ackBanner) doConfirm() {
	if b.busy || b.id == uuid.Nil {
		return
	}
	id := b.id
	b.busy = true
	b.confirm.Disable()
	b.u.acknowledge(id, func(at time.Time, err error) {
		if b.id != id {
			return
		}
		b.busy = false
		if err != nil {
			b.confirm.Enable() // to try again
			return
		}
		b.set(&row{id: id, mustRead: true, acknowledged: at})
	})
}

// withAlpha is c with alpha a (straight, not premultiplied).
func withAlpha(c color.Color, a uint8) color.Color {
	n := color.NRGBAModel.Convert(c).(color.NRGBA)
	n.A = a
	return n
}

// setAcknowledged shows that the open item was confirmed at at (an event
// said so: the takeover window, or the control API, confirmed it). The
// shown row may be the list's, updated in place already, so it is shown
// again whatever it says.
func (v *itemView) setAcknowledged(at time.Time) {
	if v.shown == nil || at.IsZero() {
		return
	}
	r := *v.shown
	r.acknowledged = at
	v.shown = &r
	v.ack.set(&r)
}
