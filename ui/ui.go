// Package ui holds the Fyne views of Newsdesk.
//
// The views show what the application (a Backend) holds and never
// block on the network or the disk in a callback: backend calls run in the
// background through a worker and their results are applied on the UI
// thread with fyne.Do. Change notifications reach the views through one
// bridge goroutine (bridge.go).
//
// The UI talks to the application through view types, never storage's or
// newsnet's: Backend's items, cursors and servant status are app's
// (app/views.go lists them; app owns them because ui imports app and App fills them,
// and the demo backend and the conformance suite share them). One
// exception, kept narrow on purpose: the signed network definition. An
// admin's editors (seeds, catalog, publishers: admin_*.go), the roles it
// gives (roles.go) and importing a definition file in the wizard work on
// trust.SignedNetwork through TrustBackend, and describe merge conflicts
// from trust.Conflict (admin_merge.go), because the definition, its
// signing and its three-way merge are trust's, and a mirror of them here
// would be a second copy of the document to keep in step.
package ui

import (
	"net/url"
	"slices"
	"sync"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/theme"

	"newsdesk/app"
	"newsdesk/categories"

	// Before Fyne works out the locale: a C locale reads as English, not
	// as an error at every start (clocale's doc says how).
	_ "clocale"
)

const mainTitle = "Newsdesk"

var mainSize = fyne.NewSize(1200, 760)

// UI owns the window of one Fyne application over one Backend.
type UI struct {
	app fyne.App
	b   Backend
	w   worker
	now func() time.Time
	win fyne.Window

	opts      options
	done      chan struct{} // closed by Close: stops the bridge and the ticker
	closeOnce sync.Once
	running   bool // startMain ran
	dataDir   string
	started   time.Time

	// What the backend last said; UI thread only.
	catalog  *categories.Catalog
	subs     []string
	settings app.Settings
	status   app.NetStatus
	census   *app.Census // the whole network, for admins (census.go); nil without one
	roles    roles

	tabs      *container.AppTabs
	readTab   *container.TabItem
	newsTab   *container.TabItem
	adminTab  *container.TabItem // offered when it holds more than the network view (roles.go)
	newsTabs  *container.AppTabs
	adminTabs *container.AppTabs

	// The newsroom's screens; newsTabs holds them, and Limits for a
	// publisher who is no admin.
	composeTab, postsTab *container.TabItem
	// The admin screens; which of them adminTabs holds follows the roles.
	seedsTab, catalogTab, publishersTab, networkTab *container.TabItem
	invitesTab                                      *container.TabItem // issue 13 (invite.go)
	audiencesTab                                    *container.TabItem // named ranges (admin_audiences.go)
	reportsTab                                      *container.TabItem // must-read reports (reports.go)
	// limitsTab is Admin → Limits for admins, Newsroom → Limits (read-only)
	// for other publishers (admin_limits.go, roles.go).
	limitsTab *container.TabItem

	reader      *reader
	subsView    *subscriptionsView
	compose     *composer
	posts       *myPosts
	seeds       *seedEditor
	catalogEd   *catalogEditor
	publishers  *publishersEditor
	invites     *invitesView
	reports     *reportsView
	audiencesEd *audiencesEditor
	limitsEd    *limitsEditor
	network     *networkView
	prefs       *settingsView
	statusBar   *statusLine
	tray        *tray
	notifier    *notifier
	takeover    *takeover // urgent items' window (takeover.go)
	wizard      *wizard

	images        imageCache  // decoded pictures by hash (pictures.go)
	pictureWindow fyne.Window // the last picture opened at full size
	tempDir       string      // attachments opened with other programs (attachments.go); "" until one is

	statusRef, catalogRef, rolesRef *refresher
	detailsOpen                     bool // the network view shows in a window of its own
}

// options are what tests change: a worker that runs on the test
// goroutine, no bridge goroutine or ticker, a fixed clock, and a tray
// check.
type options struct {
	worker  worker
	bridge  bool // start the event bridge and the ticker
	now     func() time.Time
	trayOK  func() bool   // whether a system tray can be used
	desktop desktop.App   // the tray's app; nil: the fyne.App if it is one
	tick    time.Duration // status refresh period
	// openURL opens links (links.go); nil: the current fyne.App's OpenURL.
	openURL func(*url.URL) error
}

// New returns the UI of a over b, with no window shown yet, in the
// language of b's settings (the system's unless the reader chose one).
func New(a fyne.App, b Backend) *UI {
	UseLanguage(b.Settings().Language)
	return newUI(a, b, options{worker: goWorker{}, bridge: true, now: time.Now, trayOK: trayAvailable, tick: statusEvery})
}

// statusEvery is how often a shown network view re-reads the
// servant's status besides StatusChanged events.
const statusEvery = 3 * time.Second

func newUI(a fyne.App, b Backend, o options) *UI {
	if o.desktop == nil {
		o.desktop, _ = a.(desktop.App)
	}
	useCJKFonts(a) // fonts.go
	u := &UI{
		app: a, b: b, w: o.worker, now: o.now, opts: o,
		done: make(chan struct{}), catalog: categories.Default(),
	}
	u.started = u.now()
	u.statusRef = &refresher{w: u.w, load: u.loadStatus}
	u.catalogRef = &refresher{w: u.w, load: u.loadCatalog}
	u.rolesRef = &refresher{w: u.w, load: u.loadRoles}
	_, u.roles.trusted = b.(TrustBackend)
	return u
}

// SetDataDir tells the settings screen where the data lives (shown
// read-only). Call it before ShowMain.
func (u *UI) SetDataDir(dir string) { u.dataDir = dir }

// ShowMain shows the main window: the first-run wizard while the backend
// needs setting up, then the reader.
func (u *UI) ShowMain() {
	if u.win == nil {
		u.win = u.app.NewWindow(mainTitle)
		u.win.Resize(mainSize)
		u.win.SetMaster()
		if u.b.NeedsSetup() {
			u.wizard = newWizard(u, u.startMain)
			u.win.SetContent(u.wizard.content)
			u.win.Canvas().Focus(u.wizard.name)
		} else {
			u.startMain()
		}
	}
	u.win.Show()
}

// Close stops the UI's goroutines. The caller closes the backend after
// the app's Run has returned.
func (u *UI) Close() {
	u.closeOnce.Do(func() {
		close(u.done)
		u.removeTempFiles()
	})
}

// quit ends the application (tray menu, or closing the window without a
// tray).
func (u *UI) quit() { u.app.Quit() }

// startMain builds the main screens and loads what they show.
func (u *UI) startMain() {
	if u.running {
		return
	}
	u.running = true
	u.wizard = nil
	u.reader = newReader(u)
	u.subsView = newSubscriptionsView(u)
	u.compose = newComposer(u)
	u.posts = newMyPosts(u)
	u.seeds = newSeedEditor(u)
	u.catalogEd = newCatalogEditor(u)
	u.publishers = newPublishersEditor(u)
	u.invites = newInvitesView(u)
	u.reports = newReportsView(u)
	u.audiencesEd = newAudiencesEditor(u)
	u.limitsEd = newLimitsEditor(u)
	u.network = newNetworkView(u)
	u.prefs = newSettingsView(u)
	u.statusBar = newStatusLine(u)
	u.notifier = newNotifier(u)
	u.takeover = newTakeover(u)

	u.composeTab = container.NewTabItemWithIcon(lang.L("Compose"), theme.DocumentCreateIcon(), u.compose.content)
	u.postsTab = container.NewTabItemWithIcon(lang.L("My posts"), theme.ListIcon(), u.posts.content)
	u.newsTabs = container.NewAppTabs(u.composeTab, u.postsTab)
	u.seedsTab = container.NewTabItemWithIcon(lang.L("Seeds"), theme.ComputerIcon(), u.seeds.content)
	u.catalogTab = container.NewTabItemWithIcon(lang.L("Categories"), theme.FolderIcon(), u.catalogEd.content)
	u.publishersTab = container.NewTabItemWithIcon(lang.L("Publishers"), theme.AccountIcon(), u.publishers.content)
	u.networkTab = container.NewTabItemWithIcon(lang.L("Network"), theme.GridIcon(), u.network.content)
	u.invitesTab = container.NewTabItemWithIcon(lang.L("Invitations"), theme.MailSendIcon(), u.invites.content)
	u.audiencesTab = container.NewTabItemWithIcon(lang.L("Named ranges"), theme.HomeIcon(), u.audiencesEd.content)
	u.reportsTab = container.NewTabItemWithIcon(lang.L("Reports"), theme.DocumentIcon(), u.reports.content)
	u.limitsTab = container.NewTabItemWithIcon(lang.L("Limits"), theme.StorageIcon(), u.limitsEd.content)
	u.adminTabs = container.NewAppTabs(u.seedsTab, u.catalogTab, u.networkTab)
	u.adminTabs.OnSelected = func(*container.TabItem) { u.tabShown() }
	u.newsTabs.OnSelected = func(*container.TabItem) { u.tabShown() }
	u.readTab = container.NewTabItemWithIcon(lang.L("Read"), theme.MailComposeIcon(), u.reader.content)
	u.newsTab = container.NewTabItemWithIcon(lang.L("Newsroom"), theme.DocumentCreateIcon(), u.newsTabs)
	u.adminTab = container.NewTabItemWithIcon(lang.L("Admin"), theme.SettingsIcon(), u.adminTabs)
	u.tabs = container.NewAppTabs(
		u.readTab,
		container.NewTabItemWithIcon(lang.L("Subscriptions"), theme.CheckButtonCheckedIcon(), u.subsView.content),
		u.newsTab,
		u.adminTab,
		container.NewTabItemWithIcon(lang.L("Settings"), theme.AccountIcon(), u.prefs.content),
	)
	u.tabs.OnSelected = func(*container.TabItem) { u.tabShown() }
	u.win.SetContent(container.NewBorder(nil, u.statusBar.content, nil, nil, u.tabs))
	u.addMenu()
	u.rolesChanged() // until the backend has said: no restricted screen
	u.win.Canvas().Focus(u.reader.list)

	u.w.Go(func() func() {
		cat, subs, st, ns := u.b.Catalog(), u.b.Subscriptions(), u.b.Settings(), u.b.Status()
		return func() {
			if cat != nil {
				u.catalog = cat
			}
			u.subs, u.settings, u.status = subs, st, ns
			u.catalogChanged()
			u.reader.start()
			u.statusChanged()
			u.prefs.load()
		}
	})
	u.rolesRef.trigger()
	u.posts.reload()
	u.seeds.load()
	u.setupTray()
	if u.opts.bridge {
		go u.bridge()
		go u.ticker()
	}
}

// showing reports whether content is the screen on show.
func (u *UI) showing(content fyne.CanvasObject) bool {
	if u.tabs == nil {
		return false
	}
	switch sel := u.tabs.Selected(); {
	case sel == nil:
		return false
	case sel == u.newsTab:
		return u.newsTabs.Selected().Content == content
	case sel.Content == u.adminTabs:
		return u.adminTabs.Selected().Content == content
	default:
		return sel.Content == content
	}
}

// tabShown refreshes what a newly shown screen needs.
func (u *UI) tabShown() {
	if u.tabs.Selected() == u.readTab {
		u.win.Canvas().Focus(u.reader.list) // the keys move in the list at once
	}
	if u.showing(u.posts.content) {
		u.posts.shown()
	}
	if u.showing(u.network.content) {
		u.statusRef.trigger()
	}
	if u.showing(u.seeds.content) {
		u.seeds.shown()
	}
	if u.showing(u.invites.content) {
		u.invites.load()
	}
	if u.showing(u.reports.content) {
		u.reports.load()
	}
}

// showNetworkDetails shows the network view (the status line's Details…):
// as Admin → Network where the Admin tab is offered, else in a window of
// its own.
func (u *UI) showNetworkDetails() {
	u.statusRef.trigger()
	if slices.Contains(u.tabs.Items, u.adminTab) {
		u.tabs.Select(u.adminTab)
		u.adminTabs.Select(u.networkTab)
		return
	}
	d := dialog.NewCustom(lang.L("Network details"), lang.L("Close"), u.network.content, u.win)
	d.Resize(fyne.NewSize(mainSize.Width*0.85, mainSize.Height*0.8))
	d.SetOnClosed(func() { u.detailsOpen = false })
	u.detailsOpen = true
	d.Show()
}

// showRead switches to the reading screen.
func (u *UI) showRead() { u.tabs.Select(u.readTab) }

// showWindow brings the window back (tray menu).
func (u *UI) showWindow() {
	u.win.Show()
	u.win.RequestFocus()
}

// reportError shows a failed background action in the status line.
func (u *UI) reportError(what string, err error) {
	if err != nil && u.statusBar != nil {
		u.statusBar.message(what + ": " + errorText(err))
	}
}

// loadStatus reads the servant's status, and the network's census when
// the backend gives admins one (background).
func (u *UI) loadStatus() func() {
	st := u.b.Status()
	var census *app.Census
	if cb, ok := u.b.(CensusBackend); ok {
		if c, err := cb.NetworkCensus(); err == nil {
			census = &c
		}
	}
	return func() {
		u.status, u.census = st, census
		u.statusChanged()
	}
}

func (u *UI) statusChanged() {
	u.statusBar.set(u.status)
	u.network.set(u.status, u.census)
	u.seeds.setAdvice(u.census)
}

// loadCatalog reads the catalog and subscriptions (background).
func (u *UI) loadCatalog() func() {
	cat, subs := u.b.Catalog(), u.b.Subscriptions()
	return func() {
		if cat != nil {
			u.catalog = cat
		}
		u.subs = subs
		u.catalogChanged()
	}
}

func (u *UI) catalogChanged() {
	u.reader.subscriptionsChanged()
	u.subsView.refresh()
	u.compose.setCatalog()
	u.catalogEd.setCatalog(u.catalog)
	u.limitsEd.setCategories()
	u.prefs.setCatalog()
}

// unreadChanged is told the total unread count.
func (u *UI) unreadChanged(total uint64) {
	u.tray.setUnread(total)
}
