package ui

// Admin → Invitations (issue 13): the invitations this installation made,
// with their uses left and a Revoke button each, and "Invite…", which makes
// one and shows its code as text, with a copy button, and as a QR code.
// Offered to admins of a backend that is an InviteBackend.

import (
	"errors"
	"fmt"
	"image"
	"image/color"
	"slices"
	"strconv"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
	goqr "github.com/piglig/go-qr"

	"newsdesk/app"
)

// Validity choices of the Invite… dialog, in days.
func inviteValidity() []struct {
	label string
	d     time.Duration
} {
	return []struct {
		label string
		d     time.Duration
	}{
		{lang.L("1 day"), 24 * time.Hour},
		{lang.L("7 days"), 7 * 24 * time.Hour},
		{lang.L("30 days"), 30 * 24 * time.Hour},
		{lang.L("90 days"), 90 * 24 * time.Hour},
	}
}

// invitesView is the Invitations screen.
type invitesView struct {
	u       *UI
	invites []app.Invite
	list    *widget.List
	empty   *widget.Label
	problem *widget.Label
	invite  *widget.Button
	content fyne.CanvasObject

	// lastCode is the code the last Invite… dialog showed (tests).
	lastCode string
}

func newInvitesView(u *UI) *invitesView {
	v := &invitesView{u: u}
	v.list = widget.NewList(
		func() int { return len(v.invites) },
		func() fyne.CanvasObject {
			id := widget.NewLabelWithStyle("AAAAAAAAAAAA", fyne.TextAlignLeading, fyne.TextStyle{Monospace: true})
			state := widget.NewLabel(lang.L("active: 1 of 1 uses left"))
			info := widget.NewLabel("")
			info.Importance = widget.LowImportance
			info.Truncation = fyne.TextTruncateEllipsis
			revoke := widget.NewButtonWithIcon(lang.L("Revoke"), theme.CancelIcon(), nil)
			return container.NewBorder(nil, nil, container.NewHBox(id, state), revoke, info)
		},
		func(i widget.ListItemID, o fyne.CanvasObject) {
			if i >= len(v.invites) {
				return
			}
			inv := v.invites[i]
			row := o.(*fyne.Container)
			info := row.Objects[0].(*widget.Label)
			left := row.Objects[1].(*fyne.Container)
			revoke := row.Objects[2].(*widget.Button)
			left.Objects[0].(*widget.Label).SetText(inv.ID)
			state := left.Objects[1].(*widget.Label)
			state.SetText(inviteStateText(inv))
			state.Importance = widget.MediumImportance
			if inv.State != "active" {
				state.Importance = widget.LowImportance
			}
			state.Refresh()
			info.SetText(inviteInfoText(inv))
			revoke.OnTapped = func() { v.confirmRevoke(inv) }
			if inv.State == "active" {
				revoke.Enable()
			} else {
				revoke.Disable()
			}
		},
	)
	v.empty = wrappedLabel(lang.L("No invitations yet. “Invite…” makes a code that lets one person (or several) join the network: they paste it into “Join a network” when Newsdesk first starts."), widget.LowImportance)
	v.problem = wrappedLabel("", widget.DangerImportance)
	v.invite = widget.NewButtonWithIcon(lang.L("Invite…"), theme.ContentAddIcon(), v.showInviteDialog)
	v.invite.Importance = widget.HighImportance
	heading := widget.NewLabelWithStyle(lang.L("Invitations"), fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	top := container.NewVBox(container.NewBorder(nil, nil, heading, v.invite), v.empty, v.problem)
	v.content = container.NewPadded(container.NewBorder(top, nil, nil, nil, v.list))
	return v
}

func inviteStateText(inv app.Invite) string {
	if inv.State == "active" {
		return fmt.Sprintf(lang.N("active: %d of %d uses left", inv.Uses), inv.UsesLeft, inv.Uses)
	}
	return fmt.Sprintf(lang.L("%s (%d of %d used)"), inviteStateName(inv.State), inv.Used, inv.Uses)
}

// inviteStateName is app.Invite's State in words of the interface.
func inviteStateName(state string) string {
	switch state {
	case "used up":
		return lang.L("used up")
	case "expired":
		return lang.L("expired")
	case "revoked":
		return lang.L("revoked")
	}
	return state
}

func inviteInfoText(inv app.Invite) string {
	role := lang.L("member")
	if inv.Publisher {
		role = lang.L("publisher")
		if len(inv.Categories) > 0 {
			role = fmt.Sprintf(lang.L("publisher in %s"), strings.Join(inv.Categories, ", "))
		}
	}
	return fmt.Sprintf(lang.L("%s · expires %s"), role, formatTime(inv.Expires, dateClock))
}

// inviteBackend returns the backend's InviteBackend, if it has one.
func (u *UI) inviteBackend() (InviteBackend, bool) {
	ib, ok := u.b.(InviteBackend)
	return ib, ok
}

// load reads the invitations (background) and shows them.
func (v *invitesView) load() {
	ib, ok := v.u.inviteBackend()
	if !ok {
		return
	}
	v.u.w.Go(func() func() {
		l, err := ib.Invitations()
		return func() {
			if err != nil {
				v.problem.SetText(lang.L("The invitations could not be read: ") + errorText(err))
				return
			}
			slices.Reverse(l) // newest first
			v.invites = l
			if len(l) == 0 {
				v.empty.Show()
			} else {
				v.empty.Hide()
			}
			v.list.Refresh()
		}
	})
}

// confirmRevoke asks, then revokes inv.
func (v *invitesView) confirmRevoke(inv app.Invite) {
	ib, ok := v.u.inviteBackend()
	if !ok {
		return
	}
	dialog.ShowConfirm(fmt.Sprintf(lang.L("Revoke invitation %s?"), inv.ID),
		lang.L("Nobody can join with its code any more. Those who joined with it stay members."), func(yes bool) {
			if !yes {
				return
			}
			v.u.w.Go(func() func() {
				err := ib.RevokeInvitation(inv.ID)
				return func() {
					if err != nil {
						v.problem.SetText(lang.L("Not revoked: ") + errorText(err))
						return
					}
					v.problem.SetText("")
					v.load()
				}
			})
		}, v.u.win)
}

// showInviteDialog asks what the invitation allows, makes it and shows
// its code.
func (v *invitesView) showInviteDialog() {
	ib, ok := v.u.inviteBackend()
	if !ok {
		return
	}
	uses := widget.NewEntry()
	uses.SetText("1")
	uses.Validator = func(s string) error {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 || n > 1000 {
			return errors.New(lang.L("a number from 1 to 1000"))
		}
		return nil
	}
	labels := make([]string, len(inviteValidity()))
	for i, c := range inviteValidity() {
		labels[i] = c.label
	}
	valid := widget.NewSelect(labels, nil)
	valid.SetSelected("7 days")
	var catIDs []string
	if v.u.catalog != nil {
		catIDs = v.u.catalog.IDs()
	}
	cats := widget.NewCheckGroup(catIDs, nil)
	cats.Horizontal = true
	catNote := wrappedLabel(lang.L("None ticked: every category."), widget.LowImportance)
	catBox := container.NewVBox(cats, catNote)
	catBox.Hide()
	publisher := widget.NewCheck(lang.L("may publish"), func(on bool) {
		if on {
			catBox.Show()
		} else {
			catBox.Hide()
		}
	})
	items := []*widget.FormItem{
		widget.NewFormItem(lang.L("Uses"), uses),
		widget.NewFormItem(lang.L("Valid for"), valid),
		widget.NewFormItem(lang.L("Role"), publisher),
		widget.NewFormItem(lang.L("Categories"), container.NewGridWrap(fyne.NewSize(560, 120), container.NewVScroll(catBox))),
	}
	items[0].HintText = lang.L("how many installations may join with the code")
	d := dialog.NewForm(lang.L("Invite to the network"), lang.L("Create"), lang.L("Cancel"), items, func(ok bool) {
		if !ok {
			return
		}
		n, _ := strconv.Atoi(strings.TrimSpace(uses.Text))
		o := app.InviteOptions{Uses: n, Expires: 7 * 24 * time.Hour, Publisher: publisher.Checked}
		for _, c := range inviteValidity() {
			if c.label == valid.Selected {
				o.Expires = c.d
			}
		}
		if o.Publisher {
			o.Categories = slices.Clone(cats.Selected)
		}
		v.create(ib, o)
	}, v.u.win)
	d.Resize(fyne.NewSize(640, 420))
	d.Show()
}

// create makes the invitation o (in the background: the seeds are probed)
// and shows its code. When no seed answers, the admin may make it anyway.
func (v *invitesView) create(ib InviteBackend, o app.InviteOptions) {
	v.u.w.Go(func() func() {
		inv, err := ib.CreateInvitation(o)
		return func() {
			switch {
			case errors.Is(err, app.ErrSeedsUnreachable) && !o.Anyway:
				dialog.ShowConfirm(lang.L("No seed answers"), wrapText(errorText(err))+"\n\n"+lang.L("Make the invitation anyway?"), func(yes bool) {
					if yes {
						o.Anyway = true
						v.create(ib, o)
					}
				}, v.u.win)
			case err != nil:
				dialog.ShowInformation(lang.L("No invitation made"), wrapText(errorText(err)), v.u.win)
			default:
				v.showCode(inv)
				v.load()
			}
		}
	})
}

// wrapText breaks a long message into lines for an information dialog,
// whose label does not wrap by itself.
func wrapText(s string) string {
	var b strings.Builder
	n := 0
	for i, w := range strings.Fields(s) {
		if i > 0 {
			if n+len(w) > 70 {
				b.WriteString("\n")
				n = 0
			} else {
				b.WriteString(" ")
				n++
			}
		}
		b.WriteString(w)
		n += len(w)
	}
	return b.String()
}

// showCode shows a new invitation's code as text, with a copy button, and
// as a QR code.
func (v *invitesView) showCode(inv app.Invite) {
	v.lastCode = inv.Code
	// A label grows to every line of the code, where an entry of a fixed
	// number of rows cut the last one off; it can still be selected.
	code := widget.NewLabel(inv.Code)
	code.Wrapping = fyne.TextWrapBreak
	code.TextStyle = fyne.TextStyle{Monospace: true}
	code.Selectable = true
	note := wrappedLabel("", widget.LowImportance)
	copyBtn := widget.NewButtonWithIcon(lang.L("Copy code"), theme.ContentCopyIcon(), func() {
		v.u.app.Clipboard().SetContent(inv.Code)
		note.SetText(lang.L("Copied to the clipboard."))
	})
	var qr fyne.CanvasObject
	if img, err := qrImage(inv.Code); err == nil {
		im := canvas.NewImageFromImage(img)
		im.FillMode = canvas.ImageFillContain
		im.ScaleMode = canvas.ImageScalePixels
		im.SetMinSize(fyne.NewSize(260, 260))
		qr = im
	} else {
		qr = wrappedLabel(lang.L("No QR code: ")+errorText(err), widget.LowImportance)
	}
	until := formatTime(inv.Expires, dateClock)
	lets := fmt.Sprintf(lang.N("It lets %d installations join as members until %s.", inv.Uses), inv.Uses, until)
	if inv.Publisher {
		lets = fmt.Sprintf(lang.N("It lets %d installations join as publishers until %s.", inv.Uses), inv.Uses, until)
	}
	about := wrappedLabel(lang.L("Send this code to the person joining (chat, e-mail).")+" "+lets+" "+
		lang.L("They choose “Join a network” when Newsdesk first starts and paste it. Anyone who has the code can use it: send it privately, and revoke it if it leaks. It is redeemed through this computer, so keep Newsdesk running here."), widget.MediumImportance)
	left := container.NewVBox(about, code, container.NewHBox(copyBtn), note)
	content := container.NewBorder(nil, nil, nil, container.NewCenter(qr), left)
	d := dialog.NewCustom(fmt.Sprintf(lang.L("Invitation %s"), inv.ID), lang.L("Done"), content, v.u.win)
	d.Resize(fyne.NewSize(900, 420))
	d.Show()
}

// qrImage renders text as a QR code (error correction M, a quiet zone of
// 4 modules, 6 pixels per module), black on white.
func qrImage(text string) (image.Image, error) {
	q, err := goqr.EncodeText(text, goqr.Medium)
	if err != nil {
		return nil, err
	}
	const scale, quiet = 6, 4
	n := q.Size()
	side := (n + 2*quiet) * scale
	img := image.NewGray(image.Rect(0, 0, side, side))
	for i := range img.Pix {
		img.Pix[i] = 0xff
	}
	for y := range n {
		for x := range n {
			if !q.Module(x, y) {
				continue
			}
			for dy := range scale {
				for dx := range scale {
					img.SetGray((x+quiet)*scale+dx, (y+quiet)*scale+dy, color.Gray{Y: 0})
				}
			}
		}
	}
	return img, nil
}
