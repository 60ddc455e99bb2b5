package ui

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"fyne.io/fyne/v2"
	"github.com/google/uuid"

	"newsdesk/categories"
	"newsdesk/news"
)

// Notifications: a desktop notification for each new item in the
// categories chosen in the settings, and for every urgent item. A burst of
// more than maxNotes items becomes one summary.
const (
	maxNotes   = 3
	maxChecked = 100 // items looked at per batch of events
	snippetLen = 140
)

// notifier decides which arriving items to announce. Events do not say
// whether an item arrived or only changed its read state, so an item is
// new when it is unread, was received after the UI started, is not this
// installation's own, and has not been looked at before.
type notifier struct {
	u    *UI
	seen map[uuid.UUID]bool
}

func newNotifier(u *UI) *notifier {
	return &notifier{u: u, seen: map[uuid.UUID]bool{}}
}

func (n *notifier) itemsArrived(ids []uuid.UUID) {
	var check []uuid.UUID
	for _, id := range ids {
		if !n.seen[id] && len(check) < maxChecked {
			n.seen[id] = true
			check = append(check, id)
		}
	}
	if len(check) == 0 {
		return
	}
	s, self, since := n.u.settings, n.u.status.Source, n.u.started
	cat := n.u.catalog
	b, a := n.u.b, n.u.app
	n.u.w.Go(func() func() {
		var notes []*news.Item
		for _, id := range check {
			e, err := b.Item(id)
			if err != nil || e.Read || e.Retracted != nil {
				continue
			}
			it := e.Item
			if it.Received.Before(since) || (self != "" && it.Source.String() == self) {
				continue
			}
			if it.Urgent || s.Notify && categories.CoveredByAny(s.NotifyCategories, it.Category) {
				notes = append(notes, it)
			}
		}
		// Sending talks to the desktop over D-Bus: not on the UI thread.
		for _, note := range notifications(notes, cat) {
			a.SendNotification(note)
		}
		return nil
	})
}

// notifications turns items into notifications: one each, or a summary.
func notifications(items []*news.Item, cat *categories.Catalog) []*fyne.Notification {
	if len(items) == 0 {
		return nil
	}
	if len(items) > maxNotes {
		urgent := 0
		names := map[string]bool{}
		var list []string
		for _, it := range items {
			if it.Urgent {
				urgent++
			}
			if name := categoryName(cat, it.Category); !names[name] {
				names[name] = true
				list = append(list, name)
			}
		}
		title := fmt.Sprintf("%d new items", len(items))
		if urgent > 0 {
			title += fmt.Sprintf(", %d urgent", urgent)
		}
		return []*fyne.Notification{fyne.NewNotification(title, "In "+strings.Join(list, ", "))}
	}
	var out []*fyne.Notification
	for _, it := range items {
		title := categoryName(cat, it.Category) + ": " + it.Title
		if it.Urgent {
			title = "Urgent: " + it.Title
		}
		body := snippet(it.Body)
		if it.Author != "" {
			body = it.Author + " — " + body
		}
		out = append(out, fyne.NewNotification(title, body))
	}
	return out
}

// snippet is the start of a Markdown body as plain text.
func snippet(body string) string {
	r := strings.NewReplacer("#", "", "*", "", "_", "", "`", "", ">", "", "[", "", "]", "")
	text := strings.Join(strings.Fields(r.Replace(body)), " ")
	if utf8.RuneCountInString(text) <= snippetLen {
		return text
	}
	runes := []rune(text)
	return strings.TrimSpace(string(runes[:snippetLen])) + "…"
}
