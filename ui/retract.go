package ui

import (
	"errors"
	"fyne.io/fyne/v2/lang"
	"strings"

	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"
	"github.com/google/uuid"

	"newsdesk/app"
)

// mayRetract reports whether the retract action is offered for r: admins
// may retract any item, publishers their own. The backend checks again
// with the network definition; this only keeps the button away from those
// who would be refused.
func (u *UI) mayRetract(r *row) bool {
	if r == nil || r.retracted || !u.roles.trusted {
		return false
	}
	if _, ok := u.trustBackend(); !ok {
		return false
	}
	return u.roles.admin || u.status.Source != "" && r.source.String() == u.status.Source
}

// confirmRetract asks for a reason and retracts the item, then calls
// retracted on the UI thread; a refusal is shown in a dialog. Cancelling
// does nothing.
func (u *UI) confirmRetract(id uuid.UUID, title string, retracted func()) {
	tb, ok := u.trustBackend()
	if !ok {
		return
	}
	reason := widget.NewEntry()
	reason.SetPlaceHolder(lang.L("Why, in one line (shown instead of the item; may be empty)"))
	reason.Validator = func(s string) error {
		if strings.ContainsAny(s, "\n\r") {
			return errors.New(lang.L("one line only"))
		}
		if n := len([]rune(s)); n > app.MaxRetractionReason {
			return errors.New(lang.L("too long"))
		}
		return nil
	}
	items := []*widget.FormItem{
		widget.NewFormItem(lang.L("Item"), widget.NewLabel("“"+title+"”")),
		widget.NewFormItem(lang.L("Reason"), reason),
	}
	d := dialog.NewForm(lang.L("Retract this item everywhere?"), lang.L("Retract"), lang.L("Cancel"), items, func(ok bool) {
		if !ok {
			return
		}
		u.retract(tb, id, reason.Text, func(err error) {
			if err != nil {
				dialog.ShowInformation(lang.L("Not retracted"), retractProblem(err), u.win)
				return
			}
			retracted()
		})
	}, u.win)
	d.Resize(d.MinSize().AddWidthHeight(160, 0))
	d.Show()
	u.win.Canvas().Focus(reason) // type the reason at once
}

// retract retracts the item in the background and calls done with the
// outcome on the UI thread.
func (u *UI) retract(tb TrustBackend, id uuid.UUID, reason string, done func(error)) {
	u.w.Go(func() func() {
		err := tb.Retract(id, reason)
		return func() { done(err) }
	})
}

// retractProblem says why a retraction failed, for a person.
func retractProblem(err error) string {
	var na *app.NotAuthorizedError
	switch {
	case errors.As(err, &na):
		return lang.L("You may not retract this item: only its publisher or an admin may.")
	case errors.Is(err, app.ErrItemNotFound):
		return lang.L("This item is not here any more.")
	}
	return lang.L("The item was not retracted: ") + errorText(err)
}
