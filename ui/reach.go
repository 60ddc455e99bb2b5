package ui

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"image/color"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
	"github.com/google/uuid"

	"newsdesk/app"
)

// Reach of one's posts in My posts (app/reach.go): each post shows its
// latest counts as a picture, a bar per count, updated when the network
// reports (app.ReachChanged); a must-read post has a button that lists who
// has not confirmed it, with an export to CSV.

// ReachBackend is the part of Backend for the reach of one's posts.
type ReachBackend interface {
	// Reach returns the latest reach of the own post id; app.ErrNotFound
	// for an item that is not this installation's post.
	Reach(id uuid.UUID) (app.Reach, error)
}

// postReach holds the reach of the posts My posts has shown, fetched in
// the background the first time a row needs one and again when the
// network reports a change. Owned by the UI thread.
type postReach struct {
	u       *UI
	known   map[uuid.UUID]app.Reach
	loading map[uuid.UUID]bool
	// shown is called on the UI thread when the reach of id arrived.
	shown func(id uuid.UUID)
}

func newPostReach(u *UI, shown func(uuid.UUID)) *postReach {
	return &postReach{u: u, known: map[uuid.UUID]app.Reach{}, loading: map[uuid.UUID]bool{}, shown: shown}
}

// get returns the reach of id if it is known, and fetches it if not.
func (r *postReach) get(id uuid.UUID) (app.Reach, bool) {
	v, ok := r.known[id]
	if !ok {
		r.fetch(id)
	}
	return v, ok
}

func (r *postReach) fetch(id uuid.UUID) {
	if r.loading[id] {
		return
	}
	r.loading[id] = true
	r.u.w.Go(func() func() {
		v, err := r.u.b.Reach(id)
		return func() {
			delete(r.loading, id)
			if err != nil {
				return // not a post of ours (any more): no picture
			}
			r.known[id] = v
			r.shown(id)
		}
	})
}

// changed re-reads the reach of ids that were shown; nil: of all.
func (r *postReach) changed(ids []uuid.UUID) {
	if ids == nil {
		for id := range r.known {
			r.fetch(id)
		}
		return
	}
	for _, id := range ids {
		if _, ok := r.known[id]; ok {
			r.fetch(id)
		}
	}
}

// reachCounts names the counts of a reach picture, in order.
func reachCounts() [4]string {
	return [...]string{lang.L("Subscribers"), lang.L("Delivered"), lang.X("reach.read", "Read"), lang.L("Confirmed")}
}

// reachPicture draws a post's reach: one bar per count, scaled to the
// larger of subscribers and delivered, each with its name and number. A
// post that is not must-read has no confirmations: its last bar is empty
// and its number "–".
type reachPicture struct {
	widget.BaseWidget
	reach app.Reach
	known bool
}

func newReachPicture() *reachPicture {
	p := &reachPicture{}
	p.ExtendBaseWidget(p)
	return p
}

// set shows r; known false shows that nothing is known yet.
func (p *reachPicture) set(r app.Reach, known bool) {
	p.reach, p.known = r, known
	p.Refresh()
}

// values returns the counts and their texts as drawn.
func (p *reachPicture) values() (counts [4]uint64, texts [4]string) {
	r := p.reach
	counts = [4]uint64{r.Subscribers, r.Delivered, r.Read, r.Acknowledged}
	for i, c := range counts {
		texts[i] = formatNumber(int64(c))
	}
	if !p.known {
		texts = [4]string{"…", "…", "…", "…"}
	}
	if !r.MustRead {
		texts[3] = "–"
	}
	return counts, texts
}

func (p *reachPicture) CreateRenderer() fyne.WidgetRenderer {
	r := &reachRenderer{p: p}
	for i := range reachCounts() {
		r.names[i] = canvas.NewText(reachCounts()[i], theme.Color(theme.ColorNameForeground))
		r.tracks[i] = canvas.NewRectangle(theme.Color(theme.ColorNameInputBackground))
		r.bars[i] = canvas.NewRectangle(theme.Color(theme.ColorNamePrimary))
		r.numbers[i] = canvas.NewText("", theme.Color(theme.ColorNameForeground))
		r.numbers[i].Alignment = fyne.TextAlignTrailing
		r.objects = append(r.objects, r.names[i], r.tracks[i], r.bars[i], r.numbers[i])
	}
	r.Refresh()
	return r
}

type reachRenderer struct {
	p       *reachPicture
	names   [4]*canvas.Text
	tracks  [4]*canvas.Rectangle
	bars    [4]*canvas.Rectangle
	numbers [4]*canvas.Text
	objects []fyne.CanvasObject
}

// Measures of the picture, in the caption text size.
const (
	reachBarWidth = 120 // the longest bar
	reachNumbers  = "000000"
)

func (r *reachRenderer) textSize() float32 { return theme.Size(theme.SizeNameCaptionText) }

func (r *reachRenderer) columns() (name, number, line float32) {
	size := r.textSize()
	for _, n := range reachCounts() {
		name = max(name, fyne.MeasureText(n, size, fyne.TextStyle{}).Width)
	}
	m := fyne.MeasureText(reachNumbers, size, fyne.TextStyle{})
	return name, m.Width, m.Height
}

func (r *reachRenderer) MinSize() fyne.Size {
	name, number, line := r.columns()
	pad := theme.Padding()
	return fyne.NewSize(name+pad+reachBarWidth+pad+number, 4*line)
}

func (r *reachRenderer) Layout(size fyne.Size) {
	name, number, line := r.columns()
	pad := theme.Padding()
	track := max(size.Width-name-number-2*pad, 0)
	top := (size.Height - 4*line) / 2
	counts, _ := r.p.values()
	scale := max(counts[0], counts[1], 1)
	for i := range reachCounts() {
		y := top + float32(i)*line
		r.names[i].Move(fyne.NewPos(0, y))
		r.names[i].Resize(fyne.NewSize(name, line))
		barH := line * 0.6
		barY := y + (line-barH)/2
		r.tracks[i].Move(fyne.NewPos(name+pad, barY))
		r.tracks[i].Resize(fyne.NewSize(track, barH))
		w := track * float32(min(counts[i], scale)) / float32(scale)
		if !r.p.known || i == 3 && !r.p.reach.MustRead {
			w = 0
		}
		r.bars[i].Move(fyne.NewPos(name+pad, barY))
		r.bars[i].Resize(fyne.NewSize(w, barH))
		r.numbers[i].Move(fyne.NewPos(name+pad+track+pad, y))
		r.numbers[i].Resize(fyne.NewSize(number, line))
	}
}

func (r *reachRenderer) Refresh() {
	_, texts := r.p.values()
	fg := theme.Color(theme.ColorNameForeground)
	for i := range reachCounts() {
		for _, t := range []*canvas.Text{r.names[i], r.numbers[i]} {
			t.TextSize, t.Color = r.textSize(), fg
		}
		r.numbers[i].Text = texts[i]
		r.tracks[i].FillColor = theme.Color(theme.ColorNameInputBackground)
		r.bars[i].FillColor = barColor(i)
	}
	r.Layout(r.p.Size())
	for _, o := range r.objects {
		o.Refresh()
	}
}

// barColor: the counts toward the reader in the primary colour, the
// confirmations in the success colour.
func barColor(i int) color.Color {
	if i == 3 {
		return theme.Color(theme.ColorNameSuccess)
	}
	return theme.Color(theme.ColorNamePrimary)
}

func (r *reachRenderer) Objects() []fyne.CanvasObject { return r.objects }
func (r *reachRenderer) Destroy()                     {}

// pendingLabel is the text of a must-read post's button to its pending
// list: the relays' count when it goes beyond the names known, else
// "256+" when the network listed as many readers as a report names and
// the relays did not count (older releases).
func pendingLabel(r app.Reach) string {
	switch {
	case unnamedPending(r) > 0:
		return fmt.Sprintf(lang.L("Not confirmed (%d)…"), r.ReportedPending)
	case uncountedPending(r):
		return fmt.Sprintf(lang.L("Not confirmed (%d+)…"), len(r.Pending))
	}
	return fmt.Sprintf(lang.L("Not confirmed (%d)…"), len(r.Pending))
}

// maxPendingListed is the most readers one report names (the overlay's
// newsnet.MaxReachIdentities; the UI does not import newsnet). With more
// the reports name them in turns, every one within about half an hour.
const maxPendingListed = 256

// unnamedPending is how many readers the relays count as pending beyond
// those named so far.
func unnamedPending(r app.Reach) uint64 {
	return r.ReportedPending - min(r.ReportedPending, uint64(len(r.Pending)))
}

// uncountedPending reports whether more readers may be pending than
// named, without a count: relays of older releases name at most
// maxPendingListed and count no more.
func uncountedPending(r app.Reach) bool {
	return r.ReportedPending == 0 && len(r.Pending) >= maxPendingListed
}

// pendingPartial reports whether more readers may be pending than named.
func pendingPartial(r app.Reach) bool { return unnamedPending(r) > 0 || uncountedPending(r) }

// reachNote says what of a must-read post's reach is not verified (issue
// 32): the relays' count of confirmations when it is not the verified
// one, and readers of older releases, which prove no membership; "" when
// everything shown is verified.
func reachNote(r app.Reach) string {
	if !r.MustRead {
		return ""
	}
	var parts []string
	if r.ReportedAcknowledged != r.Acknowledged {
		parts = append(parts, fmt.Sprintf(lang.L("%d confirmed, verified; relays report %d"), r.Acknowledged, r.ReportedAcknowledged))
	}
	if n := r.UnverifiedAcknowledged + r.UnverifiedPending; n > 0 {
		parts = append(parts, fmt.Sprintf(lang.L("%d confirmed and %d pending by older versions, not verified"), r.UnverifiedAcknowledged, r.UnverifiedPending))
	}
	return strings.Join(parts, " · ")
}

// showPending shows who has the must-read post title and has not
// confirmed it, with "Export CSV…" of everyone who has it, confirmed or
// not.
func (u *UI) showPending(title string, r app.Reach) {
	text := fmt.Sprintf(lang.N("%d readers have “%s” and have not confirmed it.", len(r.Pending)), len(r.Pending), title)
	switch {
	case unnamedPending(r) > 0:
		n := int(r.ReportedPending)
		text = fmt.Sprintf(lang.N("%d readers have “%s” and have not confirmed it, as relays count them; %d of them named so far.", n), n, title, len(r.Pending)) +
			" " + fmt.Sprintf(lang.L("The network names %d at a time: the others come within about half an hour."), maxPendingListed)
	case uncountedPending(r):
		text = fmt.Sprintf(lang.L("At least %d readers have “%s” and have not confirmed it; older versions in the network name at most %d."), len(r.Pending), title, maxPendingListed)
	case len(r.Pending) == 0 && r.UnverifiedPending == 0 && len(r.Offline) == 0:
		text = fmt.Sprintf(lang.L("Everyone who has “%s” has confirmed it."), title)
	}
	pending := r.Pending
	offline := r.Offline
	if len(offline) > 0 {
		text += "\n" + fmt.Sprintf(lang.N("%d more not in the network now: not confirmed, last seen as shown.", len(offline)), len(offline))
	}
	// The confirmations once: as kept here (also of readers away now),
	// else as the note has them when relays count otherwise (the post's
	// row in My posts shows that note too).
	if n := len(r.Confirmed); n > 0 {
		text += "\n" + fmt.Sprintf(lang.L("%d confirmed, also those not in the network now."), n)
	} else if note := reachNote(r); note != "" {
		text += "\n" + fmt.Sprintf(lang.L("%s. Delivered and read are as relays report them."), note)
	}
	if len(pending)+len(offline)+len(r.Confirmed) > 0 {
		text += "\n" + lang.L("Export CSV… saves everyone who has it, confirmed or not, with the time.")
	}
	intro := widget.NewLabel(text)
	intro.Wrapping = fyne.TextWrapWord
	now := time.Now()
	list := widget.NewList(
		func() int { return len(pending) + len(offline) },
		func() fyne.CanvasObject {
			name, key := widget.NewLabel("Name"), widget.NewLabel("ed25519:key")
			name.TextStyle.Bold = true
			key.Truncation = fyne.TextTruncateEllipsis
			key.SizeName = theme.SizeNameCaptionText
			return container.NewBorder(nil, nil, name, nil, key)
		},
		func(i widget.ListItemID, o fyne.CanvasObject) {
			c := o.(*fyne.Container)
			key, name := c.Objects[0].(*widget.Label), c.Objects[1].(*widget.Label)
			if i < len(pending) {
				name.SetText(readerName(pending[i]))
				key.SetText(pending[i].Key)
				return
			}
			off := offline[i-len(pending)]
			name.SetText(readerName(off.Reader))
			key.SetText(fmt.Sprintf(lang.L("not confirmed, last seen %s"), relTime(off.LastSeen, now)) + " · " + off.Key)
		},
	)
	export := widget.NewButtonWithIcon(lang.L("Export CSV…"), theme.DocumentSaveIcon(), func() { u.exportPending(r) })
	if len(pending)+len(offline)+len(r.Confirmed) == 0 {
		export.Disable()
	}
	body := container.NewBorder(intro, container.NewHBox(export), nil, nil, list)
	d := dialog.NewCustom(lang.L("Not confirmed"), lang.L("Close"), body, u.win)
	d.Resize(fyne.NewSize(640, 520))
	d.Show()
}

// readerName is a pending reader's name as listed: a headless servant has
// none.
func readerName(r app.Reader) string {
	if r.Name == "" {
		return lang.L("(no name)")
	}
	return r.Name
}

// pendingCSV is a must-read post's readers as CSV, for a compliance
// record: a header line "name,key,status,time", then a line per reader:
// "not confirmed" (in the network now, time empty), "not confirmed,
// offline" (time: when last seen) and "confirmed" (time: when the
// publisher learned of it), times in RFC 3339; a partial list ends with
// a line that says so.
func pendingCSV(r app.Reach) []byte {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	_ = w.Write([]string{"name", "key", "status", "time"}) // a bytes.Buffer does not fail
	for _, p := range r.Pending {
		_ = w.Write([]string{p.Name, p.Key, "not confirmed", ""})
	}
	for _, o := range r.Offline {
		_ = w.Write([]string{o.Name, o.Key, "not confirmed, offline", o.LastSeen.UTC().Format(time.RFC3339)})
	}
	for _, c := range r.Confirmed {
		_ = w.Write([]string{c.Name, c.Key, "confirmed", c.At.UTC().Format(time.RFC3339)})
	}
	switch {
	case unnamedPending(r) > 0:
		_ = w.Write([]string{fmt.Sprintf("(partial list: %d more readers not confirmed and not named yet)", unnamedPending(r)), "", "", ""})
	case uncountedPending(r):
		_ = w.Write([]string{fmt.Sprintf("(partial list: older versions in the network name at most %d readers not confirmed)", maxPendingListed), "", "", ""})
	}
	w.Flush()
	return b.Bytes()
}

// exportPending asks where to save the readers of a must-read post and
// writes them there,
// off the UI thread.
func (u *UI) exportPending(r app.Reach) {
	data := pendingCSV(r)
	d := dialog.NewFileSave(func(w fyne.URIWriteCloser, err error) {
		if err != nil {
			u.reportError(lang.L("The list could not be saved"), err)
			return
		}
		if w == nil {
			return // cancelled
		}
		u.w.Go(func() func() {
			_, werr := w.Write(data)
			cerr := w.Close()
			return func() {
				if werr == nil {
					werr = cerr
				}
				if werr != nil {
					u.reportError(lang.L("The list could not be saved"), werr)
				}
			}
		})
	}, u.win)
	d.SetFileName("confirmations.csv")
	d.Show()
}
