package ui

import (
	"fmt"
	"runtime"
	"strings"
	"unicode/utf8"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/lang"
	"github.com/google/uuid"

	"newsdesk/app"
	"newsdesk/categories"
	"newsdesk/news"
)

// Notifications: a desktop notification for each item that arrives from
// the network in the categories chosen in the settings, and for every
// urgent one. A burst of more than maxNotes items becomes one summary.
// Nothing else notifies: not one's own posts, not read-state changes, not
// retractions (app.ItemsArrived is the only event the notifier hears).
const (
	maxNotes   = 3
	maxChecked = 100 // items looked at per batch of events
	snippetLen = 140
)

// notifier decides which arrivals to announce. The events say what
// arrived and which of it is urgent; the notifier reads the items for
// their category and text, and leaves out those that are no news by the
// time it looks: read or retracted meanwhile, received before the window
// opened (queued while the UI started; they wait unread in the list), or
// announced before (a copy fetched again after a restart).
type notifier struct {
	u    *UI
	seen map[uuid.UUID]bool
}

func newNotifier(u *UI) *notifier {
	return &notifier{u: u, seen: map[uuid.UUID]bool{}}
}

// arrived considers items that arrived from the network, in the order
// they came: at most maxChecked of them per batch, and besides those the
// urgent ones (up to as many again), which always notify, also in a burst
// too long to name its items.
func (n *notifier) arrived(ids, urgent []uuid.UUID) {
	var check []uuid.UUID
	look := func(ids []uuid.UUID, limit int) {
		for _, id := range ids {
			if !n.seen[id] && len(check) < limit {
				n.seen[id] = true
				check = append(check, id)
			}
		}
	}
	look(ids, maxChecked)
	look(urgent, len(check)+maxChecked)
	if len(check) == 0 {
		return
	}
	s, since := n.u.settings, n.u.started
	cat := n.u.catalog
	b, a := n.u.b, n.u.app
	n.u.w.Go(func() func() {
		var notes []*news.Item
		for _, id := range check {
			e, err := b.Item(id)
			if err != nil || e.Retracted != nil || e.Item.Received.Before(since) {
				continue
			}
			if notifies(s, e) {
				notes = append(notes, e.Item)
			}
		}
		// Sending talks to the desktop over D-Bus: not on the UI thread.
		for _, note := range notifications(notes, cat) {
			if runtime.GOOS == "windows" {
				note = toastSafe(note)
			}
			a.SendNotification(note)
		}
		return nil
	})
}

// notifies reports whether an arrival is announced. An urgent item always
// is: no setting mutes it (notifications off, its category not chosen),
// and it counts even when read already, as the takeover window may have
// shown it first. Any other item is announced while notifications are on
// and its category is chosen, unless it was read meanwhile.
func notifies(s app.Settings, e app.Entry) bool {
	if e.Item.Urgent {
		return true
	}
	return !e.Read && s.Notify && categories.CoveredByAny(s.NotifyCategories, e.Item.Category)
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
		title := fmt.Sprintf(lang.N("%d new items", len(items)), len(items))
		if urgent > 0 {
			title += fmt.Sprintf(lang.L(", %d urgent"), urgent)
		}
		return []*fyne.Notification{fyne.NewNotification(title, fmt.Sprintf(lang.L("In %s"), strings.Join(list, ", ")))}
	}
	var out []*fyne.Notification
	for _, it := range items {
		title := categoryName(cat, it.Category) + ": " + it.Title
		if it.Urgent {
			title = fmt.Sprintf(lang.L("Urgent: %s"), it.Title)
		}
		body := snippet(it.Body)
		if it.Author != "" {
			body = it.Author + " — " + body
		}
		out = append(out, fyne.NewNotification(title, body))
	}
	return out
}

// snippet is the start of a Markdown body as plain text. Its lines are
// joined as the reader shows them: with a space, but for a line break
// between two Japanese or Chinese characters, which is nothing
// (breakSpace, markdown_spaces.go).
func snippet(body string) string {
	r := strings.NewReplacer("#", "", "*", "", "_", "", "`", "", ">", "", "[", "", "]", "")
	// Pictures by their alt text, and no manifest (markdown_images.go).
	body = attPicture.ReplaceAllString(stripManifest(body), "$1")
	var b strings.Builder
	for i, line := range strings.Split(r.Replace(body), "\n") {
		line = strings.Join(strings.Fields(line), " ")
		if line == "" {
			continue
		}
		if i > 0 && b.Len() > 0 {
			before, _ := utf8.DecodeLastRuneInString(b.String())
			after, _ := utf8.DecodeRuneInString(line)
			b.WriteString(breakSpace(before, after))
		}
		b.WriteString(line)
	}
	text := b.String()
	if utf8.RuneCountInString(text) <= snippetLen {
		return text
	}
	runes := []rune(text)
	return strings.TrimSpace(string(runes[:snippetLen])) + "…"
}

// toastSafe returns n with text that Fyne's Windows notifications carry as
// it is. Fyne shows a toast by writing the title and the text into
// double-quoted strings of a PowerShell script, which it runs; it escapes
// " and ` there, but not $, so an item titled "$(…)" would have PowerShell
// run what the parentheses hold, on every reader's computer that shows the
// notification; and PowerShell also ends a double-quoted string at the
// typographic quotes “ ” „, which Fyne leaves as they are. toastSafe puts
// a word joiner (U+2060, which shows as nothing) after every $, so that
// PowerShell takes the $ as a plain character, and turns the typographic
// double quotes into ", which Fyne escapes.
func toastSafe(n *fyne.Notification) *fyne.Notification {
	r := strings.NewReplacer("$", "$\u2060", "\u201c", `"`, "\u201d", `"`, "\u201e", `"`)
	return fyne.NewNotification(r.Replace(n.Title), r.Replace(n.Content))
}
