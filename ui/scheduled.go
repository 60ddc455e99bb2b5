package ui

import (
	"errors"
	"fmt"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
	"github.com/google/uuid"

	"newsdesk/app"
	"newsdesk/categories"
	"newsdesk/news"
)

// ScheduleBackend is the part of Backend for scheduled publications: a
// draft with a "Publish at" time (app.Draft.At) waits, seen by nobody else,
// until then (app/schedule.go).
type ScheduleBackend interface {
	// Scheduled lists this installation's publications waiting for their
	// time, the first due first.
	Scheduled() ([]app.ScheduledPost, error)
	// CancelScheduled takes one off the list: it is never sent.
	// app.ErrNotFound when it is not waiting (it went out meanwhile, or
	// was cancelled already).
	CancelScheduled(id uuid.UUID) error
}

// scheduledPosts is the top of My posts: the posts waiting for their
// time, each with when it goes out and a Cancel button. Hidden when there
// are none. The list is short (app.MaxScheduled at most, a handful in
// practice), so it is a plain box, not a virtualized list.
type scheduledPosts struct {
	u       *UI
	gen     int
	posts   []app.ScheduledPost
	rows    *fyne.Container
	problem *widget.Label // why the list could not be read
	content *fyne.Container
}

func newScheduledPosts(u *UI) *scheduledPosts {
	s := &scheduledPosts{u: u, rows: container.NewVBox(), problem: wrappedLabel("", widget.DangerImportance)}
	s.problem.Hide()
	heading := widget.NewLabelWithStyle(lang.L("Scheduled: only you see these until they go out"), fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	s.content = container.NewVBox(heading, s.problem, s.rows, widget.NewSeparator())
	s.content.Hide()
	return s
}

// reload reads the list again in the background.
func (s *scheduledPosts) reload() {
	s.gen++
	gen := s.gen
	s.u.w.Go(func() func() {
		posts, err := s.u.b.Scheduled()
		return func() {
			if gen != s.gen {
				return
			}
			s.show(posts, err)
		}
	})
}

func (s *scheduledPosts) show(posts []app.ScheduledPost, err error) {
	s.posts = posts
	s.rows.RemoveAll()
	if err != nil {
		s.problem.SetText(lang.L("Your scheduled posts could not be read: ") + errorText(err))
		s.problem.Show()
		s.content.Show()
		return
	}
	s.problem.Hide()
	for _, p := range posts {
		s.rows.Add(s.row(p))
	}
	s.content.Hidden = len(posts) == 0
	s.content.Refresh()
}

// row is one scheduled post: its title, when it goes out, and Cancel.
func (s *scheduledPosts) row(p app.ScheduledPost) fyne.CanvasObject {
	it := p.Item
	title := widget.NewLabel(it.Title)
	title.Truncation = fyne.TextTruncateEllipsis
	title.TextStyle.Bold = true
	meta := widget.NewLabel(scheduledMeta(p, s.u.catalog, s.u.now()))
	meta.Truncation = fyne.TextTruncateEllipsis
	meta.SizeName = theme.SizeNameCaptionText
	meta.Importance = widget.LowImportance
	if p.Problem != "" {
		meta.Importance = widget.DangerImportance
	}
	cancel := widget.NewButtonWithIcon(lang.L("Cancel…"), theme.CancelIcon(), func() { s.confirmCancel(it.ID, it.Title) })
	cancel.Importance = widget.LowImportance
	return container.NewBorder(nil, nil, nil, container.NewCenter(cancel),
		container.New(&linesLayout{overlap: 2 * theme.InnerPadding()}, title, meta))
}

// scheduledMeta is a scheduled post's second line: when it goes out, in
// which category (named from cat), and what keeps it back if it is late.
func scheduledMeta(p app.ScheduledPost, cat *categories.Catalog, now time.Time) string {
	it := p.Item
	meta := fmt.Sprintf(lang.L("Goes out %s (%s)"), fullTime(it.At), untilTime(it.At, now)) + " · " + categoryName(cat, it.Category)
	if it.Urgent {
		meta = lang.L("URGENT") + " · " + meta
	}
	if !it.Expires.IsZero() {
		meta += " · " + fmt.Sprintf(lang.L("expires %s"), fullTime(it.Expires))
	}
	switch {
	case p.Err != nil:
		meta += " · " + fmt.Sprintf(lang.L("not sent yet: %s"), catalogErrorText(p.Err, cat))
	case p.Problem != "":
		meta += " · " + fmt.Sprintf(lang.L("not sent yet: %s"), p.Problem)
	}
	return meta
}

// untilTime says how far t lies ahead of now, roughly.
func untilTime(t, now time.Time) string {
	d := t.Sub(now)
	switch {
	case d < time.Minute:
		return lang.L("due now")
	case d < time.Hour:
		return fmt.Sprintf(lang.L("in %d min"), int(d/time.Minute))
	case d < 48*time.Hour:
		return fmt.Sprintf(lang.L("in %d h"), int(d/time.Hour))
	}
	return fmt.Sprintf(lang.L("in %d days"), int(d/(24*time.Hour)))
}

// confirmCancel asks before cancelling a scheduled post, then cancels it
// in the background and reloads My posts.
func (s *scheduledPosts) confirmCancel(id uuid.UUID, title string) {
	dialog.ShowCustomConfirm(lang.L("Cancel this scheduled post?"), lang.L("Cancel the post"), lang.L("Keep it"),
		wrappedLabel(fmt.Sprintf(lang.L("“%s” will not be published. Nobody else has seen it."), title), widget.MediumImportance),
		func(ok bool) {
			if !ok {
				return
			}
			s.u.w.Go(func() func() {
				err := s.u.b.CancelScheduled(id)
				return func() {
					if errors.Is(err, app.ErrNotFound) {
						dialog.ShowInformation(lang.L("Not cancelled"), fmt.Sprintf(lang.L("“%s” is no longer scheduled: it went out already (retract it from My posts instead), or was cancelled."), title), s.u.win)
					} else if err != nil {
						dialog.ShowInformation(lang.L("Not cancelled"), errorText(err), s.u.win)
					}
					s.u.posts.reload()
				}
			})
		}, s.u.win)
}

// sentLateNote is what My posts adds to a post that went out late: the
// app was not running at its time.
func sentLateNote(at time.Time) string {
	return fmt.Sprintf(lang.L("Sent late (the app was not running at %s)"), fullTime(at))
}

// atFormatProblem is the Publish at field's problem when it does not parse.
func atFormatProblem(now time.Time) string {
	return fmt.Sprintf(lang.L("Type the publication time as %s (for example %s), or leave it empty to publish now."), whenHint, now.Add(24*time.Hour).Format(whenLayout))
}

// atProblem says what is wrong with a draft's publication time.
func atProblem(fe *news.FieldError) string {
	if fe.Rule == news.RulePast {
		return lang.L("The publication time has passed: choose a later time, or leave it empty to publish now.")
	}
	return otherFieldText(fe)
}

// scheduledOutcome is Compose's answer to a scheduled publication.
func scheduledOutcome(what string, at time.Time) string {
	return fmt.Sprintf(lang.L("Scheduled “%s” for %s. Until then only you see it, under My posts, where you can cancel it."), what, fullTime(at))
}
