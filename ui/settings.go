package ui

import (
	"errors"
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"newsdesk/app"
)

// settingsView edits the user's preferences: display name, the addresses
// the servant listens on and advertises, and which categories notify. The
// data directory is shown, not edited (it is chosen with --data DIR), and
// the theme follows the system.
type settingsView struct {
	u         *UI
	name      *widget.Entry
	listen    *widget.Entry
	advertise *widget.Entry
	dataDir   *widget.Label
	key       *widget.Label // this installation's public key
	copyKey   *widget.Button
	keyRow    *fyne.Container
	notify    *widget.Check
	retention *widget.Select
	quota     *widget.Select
	language  *widget.Select // labels of languageChoices()
	evicted   *widget.Label  // what the storage limit removed last
	cats      *widget.CheckGroup
	catIDs    []string // parallel to cats.Options
	save      *widget.Button
	problem   *widget.Label
	note      *widget.Label
	content   fyne.CanvasObject
}

func newSettingsView(u *UI) *settingsView {
	v := &settingsView{
		u: u, name: widget.NewEntry(), listen: widget.NewEntry(), advertise: widget.NewEntry(),
		dataDir: widget.NewLabel(""), problem: widget.NewLabel(""), note: widget.NewLabel(""),
	}
	v.listen.SetPlaceHolder(lang.L("0.0.0.0:7400 (every interface, port 7400)"))
	v.advertise.SetPlaceHolder(lang.L("the listen address, or this computer's address when listening on all interfaces"))
	v.dataDir.Wrapping = fyne.TextWrapBreak
	v.dataDir.TextStyle.Monospace = true
	v.key = widget.NewLabel("")
	v.key.TextStyle.Monospace = true
	v.key.Wrapping = fyne.TextWrapBreak
	v.copyKey = widget.NewButtonWithIcon(lang.L("Copy"), theme.ContentCopyIcon(), v.doCopyKey)
	keyNote := widget.NewLabel(lang.L("Send this key to an administrator to be made a publisher."))
	keyNote.Importance = widget.LowImportance
	v.keyRow = container.NewVBox(container.NewBorder(nil, nil, nil, v.copyKey, v.key), keyNote)
	v.notify = widget.NewCheck(lang.L("Notify me of every new item in these categories:"), func(on bool) {
		if on {
			v.cats.Enable()
		} else {
			v.cats.Disable()
		}
	})
	v.cats = widget.NewCheckGroup(nil, nil)
	v.save = widget.NewButtonWithIcon(lang.L("Save"), theme.DocumentSaveIcon(), v.doSave)
	v.save.Importance = widget.HighImportance
	v.problem.Importance = widget.DangerImportance
	v.problem.Wrapping = fyne.TextWrapWord
	v.note.Wrapping = fyne.TextWrapWord
	urgent := widget.NewLabel(lang.L("Urgent items always notify."))
	urgent.Importance = widget.LowImportance
	themeNote := widget.NewLabel(lang.L("Light or dark follows the system setting."))
	themeNote.Importance = widget.LowImportance
	dataNote := widget.NewLabel(lang.L("Start Newsdesk with --data DIR to use another directory."))
	dataNote.Importance = widget.LowImportance
	v.retention = widget.NewSelect(retentionLabels(), nil)
	keepNote := wrappedLabel(lang.L("Items you keep (Keep, above an item's title) and must-read items you have not confirmed stay, whatever their age."), widget.LowImportance)
	v.quota = widget.NewSelect(quotaLabels(), nil)
	quotaNote := wrappedLabel(lang.L("When the items take more, the oldest go first; items you keep and must-read items you have not confirmed stay."), widget.LowImportance)
	v.evicted = wrappedLabel("", widget.WarningImportance)
	v.evicted.Hide()
	v.language = widget.NewSelect(languageLabels(), nil)
	languageNote := wrappedLabel(lang.L("Dates and numbers follow the language too. A new language shows after Newsdesk restarts."), widget.LowImportance)

	form := widget.NewForm(
		widget.NewFormItem(lang.L("Display name"), v.name),
		widget.NewFormItem(lang.L("Listen address"), v.listen),
		widget.NewFormItem(lang.L("Advertised address"), v.advertise),
		widget.NewFormItem(lang.L("Data directory"), container.NewVBox(v.dataDir, dataNote)),
		widget.NewFormItem(lang.L("Public key"), v.keyRow),
		widget.NewFormItem(lang.L("Language"), container.NewVBox(
			container.NewHBox(container.NewGridWrap(fyne.NewSize(260, v.language.MinSize().Height), v.language)), languageNote)),
		// Before the notifications, whose list of categories is as long
		// as the catalog and would push them out of sight.
		widget.NewFormItem(lang.L("Keep items"), container.NewVBox(
			container.NewHBox(container.NewGridWrap(fyne.NewSize(260, v.retention.MinSize().Height), v.retention)), keepNote)),
		widget.NewFormItem(lang.L("Storage limit"), container.NewVBox(
			container.NewHBox(container.NewGridWrap(fyne.NewSize(260, v.quota.MinSize().Height), v.quota)), quotaNote, v.evicted)),
		widget.NewFormItem(lang.L("Notifications"), container.NewVBox(v.notify, v.cats, urgent)),
		widget.NewFormItem(lang.L("Theme"), themeNote),
	)
	v.setKey("")
	v.content = container.NewVScroll(container.NewPadded(container.NewVBox(
		form, container.NewBorder(nil, nil, v.save, nil, v.note), v.problem,
	)))
	return v
}

// setKey shows this installation's public key ("" hides the row: the
// backend has no key).
func (v *settingsView) setKey(key string) {
	v.key.SetText(key)
	if key == "" {
		v.keyRow.Hide()
	} else {
		v.keyRow.Show()
	}
}

// doCopyKey puts the public key on the clipboard.
func (v *settingsView) doCopyKey() {
	if v.key.Text == "" {
		return
	}
	v.u.app.Clipboard().SetContent(v.key.Text)
	v.note.SetText(lang.L("Public key copied to the clipboard."))
}

// load shows the backend's settings.
func (v *settingsView) load() {
	s := v.u.settings
	v.name.SetText(s.DisplayName)
	v.listen.SetText(s.Listen)
	v.advertise.SetText(s.Advertise)
	v.dataDir.SetText(v.u.dataDir)
	if v.u.dataDir == "" {
		v.dataDir.SetText(lang.L("(held by the application)"))
	}
	v.notify.SetChecked(s.Notify)
	v.retention.Options = retentionLabels()
	if l := retentionLabel(s.Retention); !slices.Contains(v.retention.Options, l) {
		v.retention.Options = append(v.retention.Options, l) // set elsewhere: kept unless changed
	}
	v.retention.SetSelected(retentionLabel(s.Retention))
	v.quota.Options = quotaLabels()
	if l := quotaLabel(s.StorageQuota); !slices.Contains(v.quota.Options, l) {
		v.quota.Options = append(v.quota.Options, l) // set elsewhere: kept unless changed
	}
	v.quota.SetSelected(quotaLabel(s.StorageQuota))
	v.language.Options = languageLabels()
	v.language.SetSelected(languageLabel(s.Language))
	if e := v.u.b.Status().Evicted; e != nil {
		v.evicted.SetText(evictionText(e) + ".")
		v.evicted.Show()
	} else {
		v.evicted.Hide()
	}
	v.setCatalog()
}

// quotaChoices are the storage limits offered, smallest first, in the
// interface's language.
func quotaChoices() []struct {
	label string
	n     int64
} {
	return []struct {
		label string
		n     int64
	}{
		{formatBytes(1 << 30), 1 << 30},
		{fmt.Sprintf(lang.L("%s (recommended)"), formatBytes(app.DefaultStorageQuota)), app.DefaultStorageQuota},
		{formatBytes(16 << 30), 16 << 30},
		{formatBytes(64 << 30), 64 << 30},
		{lang.L("No limit"), app.NoStorageQuota},
	}
}

func quotaLabels() []string {
	choices := quotaChoices()
	out := make([]string, len(choices))
	for i, c := range choices {
		out[i] = c.label
	}
	return out
}

// quotaLabel names n among the choices; a limit set elsewhere is named
// in its size (0, the default, as the default).
func quotaLabel(n int64) string {
	if n == 0 {
		n = app.DefaultStorageQuota
	}
	for _, c := range quotaChoices() {
		if c.n == n {
			return c.label
		}
	}
	return formatBytes(n)
}

// quotaOf is the limit a label names; ok is false for none.
func quotaOf(label string) (int64, bool) {
	for _, c := range quotaChoices() {
		if c.label == label {
			return c.n, true
		}
	}
	return 0, false
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// retentionChoices are the retention choices of the settings, shortest
// first, in the interface's language.
func retentionChoices() []struct {
	label string
	d     time.Duration
} {
	return []struct {
		label string
		d     time.Duration
	}{
		{daysText(30), 30 * day},
		{daysText(90), 90 * day},
		{fmt.Sprintf(lang.N("%d months", 6), 6), 182 * day},
		{lang.L("1 year (recommended)"), app.DesktopRetention},
		{fmt.Sprintf(lang.N("%d years", 2), 2), 2 * 365 * day},
		{lang.L("Forever"), 0},
	}
}

// daysText is "30 days".
func daysText(n int) string { return fmt.Sprintf(lang.N("%d days", n), n) }

const day = 24 * time.Hour

func retentionLabels() []string {
	choices := retentionChoices()
	out := make([]string, len(choices))
	for i, c := range choices {
		out[i] = c.label
	}
	return out
}

// retentionLabel names d among the choices; a retention set elsewhere (an
// archive's, a data directory moved from a server) is named in days.
func retentionLabel(d time.Duration) string {
	for _, c := range retentionChoices() {
		if c.d == d {
			return c.label
		}
	}
	return daysText(int(d / day))
}

// retentionOf is the retention a label names; ok is false for none.
func retentionOf(label string) (time.Duration, bool) {
	for _, c := range retentionChoices() {
		if c.label == label {
			return c.d, true
		}
	}
	// A retention set elsewhere, as retentionLabel names it.
	var n int
	if _, err := fmt.Sscanf(label, "%d", &n); err == nil && daysText(n) == label {
		return time.Duration(n) * day, true
	}
	return 0, false
}

// setCatalog offers the catalog's categories for notifications.
func (v *settingsView) setCatalog() {
	chosen := v.chosen()
	if len(chosen) == 0 {
		chosen = v.u.settings.NotifyCategories
	}
	v.catIDs = v.u.catalog.IDs()
	opts := make([]string, len(v.catIDs))
	for i, id := range v.catIDs {
		opts[i] = categoryName(v.u.catalog, id)
	}
	v.cats.Options = opts
	var sel []string
	for i, id := range v.catIDs {
		if slices.Contains(chosen, id) {
			sel = append(sel, opts[i])
		}
	}
	v.cats.SetSelected(sel)
	v.cats.Refresh()
	if v.notify.Checked {
		v.cats.Enable()
	} else {
		v.cats.Disable()
	}
}

// chosen returns the category IDs ticked for notifications.
func (v *settingsView) chosen() []string {
	var out []string
	for i, name := range v.cats.Options {
		if slices.Contains(v.cats.Selected, name) && i < len(v.catIDs) {
			out = append(out, v.catIDs[i])
		}
	}
	return out
}

// checkListen validates a listen address: a host (empty for every
// interface) and a port.
func checkListen(addr string) error {
	_, port, err := net.SplitHostPort(addr)
	if ae, ok := errors.AsType[*net.AddrError](err); ok {
		return shownError(addrReasonText(ae.Err))
	} else if err != nil {
		return err
	}
	if n, err := strconv.ParseUint(port, 10, 16); err != nil || n == 0 {
		return shownError(lang.L("port must be 1..65535"))
	}
	return nil
}

// settings is what the form says, or the problem with it.
func (v *settingsView) settings() (app.Settings, string) {
	s := app.Settings{
		DisplayName: strings.TrimSpace(v.name.Text),
		Listen:      strings.TrimSpace(v.listen.Text),
		Advertise:   strings.TrimSpace(v.advertise.Text),
		Notify:      v.notify.Checked,
		Language:    languageOf(v.language.Selected),
	}
	s.NotifyCategories = v.chosen()
	if p := checkDisplayName(s.DisplayName); p != "" {
		return s, p
	}
	d, ok := retentionOf(v.retention.Selected)
	if !ok {
		d = v.u.settings.Retention // nothing chosen: unchanged
	}
	s.Retention = d
	if n, ok := quotaOf(v.quota.Selected); ok {
		s.StorageQuota = n
	} else {
		s.StorageQuota = v.u.settings.StorageQuota // nothing chosen, or set elsewhere: unchanged
	}
	if s.Listen != "" {
		if err := checkListen(s.Listen); err != nil {
			return s, fmt.Sprintf(lang.L("Listen address %q: %v."), s.Listen, errorText(err))
		}
	}
	if s.Advertise != "" {
		if err := app.CheckAddress(s.Advertise); err != nil {
			return s, fmt.Sprintf(lang.L("Advertised address: %v."), addrProblem(err))
		}
	}
	return s, ""
}

func (v *settingsView) doSave() {
	s, problem := v.settings()
	v.problem.SetText(problem)
	if problem != "" {
		return
	}
	v.save.Disable()
	v.note.SetText(lang.L("Saving…"))
	moved := s.Listen != v.u.settings.Listen || s.Advertise != v.u.settings.Advertise
	relabel := s.Language != v.u.settings.Language
	v.u.w.Go(func() func() {
		err := v.u.b.SaveSettings(s)
		return func() {
			v.save.Enable()
			if err != nil {
				v.note.SetText("")
				v.problem.SetText(fmt.Sprintf(lang.L("The settings were not saved: %v"), errorText(err)))
				return
			}
			v.u.settings = s
			text := savedText(moved, v.u.roles.isAdmin())
			if relabel {
				text += " " + lang.L("The new language shows after you restart Newsdesk.")
			}
			v.note.SetText(text)
		}
	})
}

// savedText is what the settings say once saved: a new address applies at
// once (the servant restarts under it, no restart of Newsdesk needed), and
// an admin's invitations made before name the old one.
func savedText(moved, admin bool) string {
	if !moved {
		return lang.L("Saved.")
	}
	text := lang.L("Saved. Newsdesk reconnects under the new address now; there is no need to restart it.")
	if admin {
		text += " " + lang.L("Invitations made before name the old address: make new ones.")
	}
	return text
}

// languageLabels are the Settings' language choices: the system's, then
// each language in its own name.
func languageLabels() []string {
	out := []string{lang.L("System")}
	for _, l := range Languages {
		out = append(out, l.Name)
	}
	return out
}

// languageLabel names a stored language choice; one the interface does
// not offer reads as the system's.
func languageLabel(code string) string {
	for _, l := range Languages {
		if l.Code == code {
			return l.Name
		}
	}
	return lang.L("System")
}

// languageOf is the code a choice names, "" for the system's.
func languageOf(label string) string {
	for _, l := range Languages {
		if l.Name == label {
			return l.Code
		}
	}
	return ""
}
