package ui

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"newsdesk/app"
	"newsdesk/news"
	"newsdesk/trust"
)

// The ways to start. Importing is offered when the backend holds network
// definitions (TrustBackend).
func choiceNew() string    { return lang.L("Start a new network on this computer") }
func choiceJoin() string   { return lang.L("Join a network") }
func choiceImport() string { return lang.L("Import a network definition file") }

// probeDelay is how long typing in the seed list must pause before the
// seeds are tested.
const probeDelay = 600 * time.Millisecond

// wizard is the first-run screen: the display name, then either a new
// network (this computer becomes its seed and works alone at once) or
// joining one through its seed list, checked line by line and tested for
// reachability while it is typed.
type wizard struct {
	u        *UI
	name     *widget.Entry
	mode     *widget.RadioGroup
	seeds    *widget.Entry
	seedInfo *fyne.Container // one label per seed line
	joinBox  *fyne.Container

	// Joining with an invitation code (issue 13), when the backend is an
	// InviteBackend: the seed list is then not offered (the network needs
	// a membership proof, which only an invitation or a file brings).
	invites  InviteBackend
	code     *widget.Entry
	codeInfo *widget.Label

	// Importing a definition file (what an IT department deploys).
	path       *widget.Entry
	browse     *widget.Button
	load       *widget.Button
	importInfo *widget.Label
	importBox  *fyne.Container
	imported   *trust.SignedNetwork // the file last loaded, for importPath
	importPath string
	finish     *widget.Button
	problem    *widget.Label

	// The port other computers connect to (issue 26): proposed free (a
	// second profile on this computer cannot take 7400 too), and said so.
	port       *widget.Entry
	portInfo   *widget.Label
	listenHost string // the host part of the listen address, kept as it is
	probes     *prober
	probeDeb   debouncer
	busy       bool
	onDone     func()
	content    fyne.CanvasObject
}

func newWizard(u *UI, onDone func()) *wizard {
	z := &wizard{u: u, onDone: onDone, problem: widget.NewLabel("")}
	z.probes = newProber(u, z.showSeeds)
	z.probeDeb = debouncer{w: u.w, delay: probeDelay}
	z.name = widget.NewEntry()
	z.name.SetPlaceHolder(lang.L("Your name, as readers see it on your posts"))
	z.name.OnChanged = func(string) { z.problem.SetText("") }
	z.seeds = widget.NewMultiLineEntry()
	z.seeds.SetPlaceHolder(lang.L("One seed per line, host:port, most important first:\n10.1.0.5:7400\n10.2.0.9:7400"))
	z.seeds.SetMinRowsVisible(5)
	z.seeds.OnChanged = func(string) {
		z.problem.SetText("")
		z.showSeeds()
		z.probeDeb.call(z.probeSeeds)
	}
	z.seedInfo = container.NewVBox()
	z.joinBox = container.NewVBox(
		widget.NewLabel(lang.L("Paste the seed list your administrator gave you:")),
		z.seeds, z.seedInfo,
	)
	newNote := wrappedLabel(lang.L("This computer becomes the network's first seed and works on its own at once; others join by listing its address as their seed."), widget.LowImportance)
	if ib, ok := u.inviteBackend(); ok {
		z.invites = ib
		z.code = widget.NewMultiLineEntry()
		z.code.Wrapping = fyne.TextWrapBreak
		z.code.TextStyle = fyne.TextStyle{Monospace: true}
		z.code.SetPlaceHolder(lang.L("newsdesk:join?net=…"))
		z.code.SetMinRowsVisible(5) // a whole code, none of its lines cut off
		z.codeInfo = wrappedLabel("", widget.LowImportance)
		z.code.OnChanged = func(string) {
			z.problem.SetText("")
			z.showCode()
		}
		z.joinBox = container.NewVBox(
			wrappedLabel(lang.L("Paste the invitation code an administrator sent you (it starts with newsdesk:join?):"), widget.MediumImportance),
			z.code, z.codeInfo,
		)
		newNote.SetText(lang.L("This computer becomes the network's first seed and works on its own at once. Others join with an invitation code you make under Admin › Invitations."))
	}
	z.joinBox.Hide()
	z.path = widget.NewEntry()
	z.path.SetPlaceHolder(lang.L("/path/to/network.json"))
	z.path.OnChanged = func(string) { z.problem.SetText("") }
	z.path.OnSubmitted = func(string) { z.loadImport() }
	z.browse = widget.NewButtonWithIcon(lang.L("Browse…"), theme.FolderOpenIcon(), z.doBrowse)
	z.load = widget.NewButtonWithIcon(lang.L("Load"), theme.DocumentIcon(), z.loadImport)
	z.importInfo = wrappedLabel("", widget.MediumImportance)
	z.importBox = container.NewVBox(
		widget.NewLabel(lang.L("Choose the network definition file your administrator gave you:")),
		container.NewBorder(nil, nil, nil, container.NewHBox(z.browse, z.load), z.path),
		z.importInfo,
	)
	z.importBox.Hide()
	choices := []string{choiceNew(), choiceJoin()}
	if _, ok := u.trustBackend(); ok {
		choices = append(choices, choiceImport())
	}
	z.mode = widget.NewRadioGroup(choices, func(choice string) {
		z.problem.SetText("")
		newNote.Hide()
		z.joinBox.Hide()
		z.importBox.Hide()
		switch choice {
		case choiceJoin():
			z.joinBox.Show()
		case choiceImport():
			z.importBox.Show()
		default:
			newNote.Show()
		}
	})
	z.mode.SetSelected(choiceNew())
	z.port = widget.NewEntry()
	z.port.SetPlaceHolder("7400")
	z.port.OnChanged = func(string) {
		z.problem.SetText("")
		z.portInfo.Hide()
	}
	z.portInfo = wrappedLabel("", widget.WarningImportance)
	z.portInfo.Hide() // shown with a note, so no empty line takes room
	z.listenHost = "0.0.0.0"
	portRow := container.NewHBox(widget.NewLabel(lang.L("Other computers connect to this one on port")),
		container.NewGridWrap(fyne.NewSize(110, z.port.MinSize().Height), z.port))
	z.finish = widget.NewButtonWithIcon(lang.L("Start Newsdesk"), theme.NavigateNextIcon(), z.doFinish)
	z.finish.Importance = widget.HighImportance
	z.problem.Importance = widget.DangerImportance
	z.problem.Wrapping = fyne.TextWrapWord

	title := widget.NewLabelWithStyle(lang.L("Welcome to Newsdesk"), fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	title.SizeName = theme.SizeNameHeadingText
	intro := wrappedLabel(lang.L("Newsdesk brings the company's news to your desktop. There is no server: each computer passes news on to its neighbours. Two questions, once."), widget.MediumImportance)
	form := container.NewVBox(
		title, intro, widget.NewSeparator(),
		widget.NewLabelWithStyle(lang.L("1. Your display name"), fyne.TextAlignLeading, fyne.TextStyle{Bold: true}),
		z.name,
		widget.NewLabelWithStyle(lang.L("2. The network"), fyne.TextAlignLeading, fyne.TextStyle{Bold: true}),
		z.mode, newNote, z.joinBox, z.importBox,
		portRow, z.portInfo,
		widget.NewSeparator(),
		container.NewBorder(nil, nil, nil, z.finish, z.problem),
	)
	z.content = container.NewVScroll(container.New(&columnLayout{width: 680}, container.NewPadded(form)))
	z.proposePort()
	return z
}

// proposePort fills in the port of the settings' listen address, or a free
// one when another program (another Newsdesk profile) holds it, and says
// so (background).
func (z *wizard) proposePort() {
	z.u.w.Go(func() func() {
		proposal, taken := z.u.b.ProposeListen("")
		wanted := z.u.b.Settings().Listen
		return func() {
			host, port, err := net.SplitHostPort(proposal)
			if err != nil || z.port.Text != "" {
				return // typed meanwhile
			}
			z.listenHost = host
			z.port.SetText(port)
			if taken {
				_, was, _ := net.SplitHostPort(wanted)
				z.portInfo.SetText(fmt.Sprintf(lang.L("Port %s is in use on this computer, perhaps by another Newsdesk: this one will use port %s."), was, port))
				z.portInfo.Show()
			}
		}
	})
}

// proposeAfterTaken fills in a free port after the one chosen turned out
// taken (another Newsdesk started meanwhile), so Start works the next
// time, and says so beside the refusal (background).
func (z *wizard) proposeAfterTaken() {
	listen, _ := z.listen()
	z.u.w.Go(func() func() {
		proposal, taken := z.u.b.ProposeListen(listen)
		return func() {
			_, port, err := net.SplitHostPort(proposal)
			if err != nil || !taken || z.busy {
				return
			}
			was, refusal := strings.TrimSpace(z.port.Text), z.problem.Text
			z.port.SetText(port) // clears the refusal (OnChanged): put back
			z.problem.SetText(refusal)
			z.portInfo.SetText(fmt.Sprintf(lang.L("Port %s is in use on this computer, perhaps by another Newsdesk: this one will use port %s. Press Start again."), was, port))
			z.portInfo.Show()
		}
	})
}

// listen is the listen address the port entry makes, or the problem with
// it.
func (z *wizard) listen() (string, string) {
	p := strings.TrimSpace(z.port.Text)
	if p == "" {
		return "", "" // the settings' address
	}
	if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
		return "", lang.L("The port must be a number from 1 to 65535.")
	}
	return net.JoinHostPort(z.listenHost, p), ""
}

// seedLine is one line of the seed list with its verdict.
type seedLine struct {
	addr string
	err  error
}

func parseSeedLines(text string) []seedLine {
	var out []seedLine
	seen := map[string]bool{}
	for _, l := range strings.Split(text, "\n") {
		l = strings.TrimSpace(l)
		if l == "" {
			continue
		}
		s := seedLine{addr: l}
		if err := app.CheckAddress(l); err != nil {
			s.err = err
		} else if seen[l] {
			s.err = shownError(lang.L("listed twice"))
		}
		seen[l] = true
		out = append(out, s)
	}
	return out
}

// showSeeds shows each line's verdict: invalid with the reason, or what the
// reachability test found.
func (z *wizard) showSeeds() {
	z.seedInfo.Objects = z.seedInfo.Objects[:0]
	for _, s := range parseSeedLines(z.seeds.Text) {
		l := widget.NewLabel("")
		l.Wrapping = fyne.TextWrapWord // a verdict is shown in full, never cut off
		switch r, ok := z.probes.results[s.addr]; {
		case s.err != nil:
			l.SetText("× " + s.addr + ": " + addrProblem(s.err))
			l.Importance = widget.DangerImportance
		case ok && r.OK:
			l.SetText(s.addr + ": " + z.probes.text(s.addr))
			l.Importance = widget.SuccessImportance
		case ok:
			l.SetText("! " + s.addr + ": " + z.probes.text(s.addr))
			l.Importance = widget.WarningImportance
		default:
			t := z.probes.text(s.addr)
			if t == "" {
				t = lang.L("not tested yet")
			}
			l.SetText("· " + s.addr + ": " + t)
			l.Importance = widget.LowImportance
		}
		z.seedInfo.Objects = append(z.seedInfo.Objects, l)
	}
	z.seedInfo.Refresh()
}

// probeSeeds tests every valid line not tested yet.
func (z *wizard) probeSeeds() {
	for _, s := range parseSeedLines(z.seeds.Text) {
		if s.err == nil && !z.probes.known(s.addr) {
			z.probes.probe(s.addr)
		}
	}
	z.showSeeds()
}

// checkDisplayName applies the author rules of a news item.
func checkDisplayName(name string) string {
	switch {
	case strings.TrimSpace(name) == "":
		return lang.L("Enter your display name.")
	case len([]rune(name)) > news.MaxAuthorRunes:
		return fmt.Sprintf(lang.L("The display name is too long: at most %d characters."), news.MaxAuthorRunes)
	case strings.ContainsFunc(name, func(r rune) bool { return r < ' ' || r == 0x7f }):
		return lang.L("The display name cannot contain control characters.")
	}
	return ""
}

// setup is what the form says, or the problem with it.
func (z *wizard) setup() (app.Setup, string) {
	s := app.Setup{DisplayName: strings.TrimSpace(z.name.Text), NewNetwork: z.mode.Selected == choiceNew()}
	if p := checkDisplayName(s.DisplayName); p != "" {
		return s, p
	}
	var p string
	if s.Listen, p = z.listen(); p != "" {
		return s, p
	}
	if s.NewNetwork {
		return s, ""
	}
	if z.mode.Selected == choiceImport() {
		if strings.TrimSpace(z.path.Text) == "" {
			return s, lang.L("Choose the network definition file.")
		}
		return s, "" // the seeds come from the file
	}
	if z.invites != nil {
		if strings.TrimSpace(z.code.Text) == "" {
			return s, lang.L("Paste the invitation code, or start a new network.")
		}
		if _, err := app.ParseInviteCode(z.code.Text); err != nil {
			return s, lang.L("Correct the invitation code: ") + errorText(err)
		}
		return s, "" // the seeds come with the network
	}
	lines := parseSeedLines(z.seeds.Text)
	if len(lines) == 0 {
		return s, lang.L("Enter at least one seed, or start a new network.")
	}
	for _, l := range lines {
		if l.err != nil {
			return s, fmt.Sprintf(lang.L("Correct the seed list: %s: %s."), l.addr, addrProblem(l.err))
		}
		s.Seeds = append(s.Seeds, l.addr)
	}
	return s, ""
}

func (z *wizard) doFinish() {
	if z.busy {
		return
	}
	s, problem := z.setup()
	if problem != "" {
		z.problem.SetText(problem)
		return
	}
	z.busy = true
	z.finish.Disable()
	z.problem.SetText("")
	importing := z.mode.Selected == choiceImport()
	inviting := z.mode.Selected == choiceJoin() && z.invites != nil
	path := strings.TrimSpace(z.path.Text)
	tb, _ := z.u.trustBackend()
	code := ""
	if inviting {
		code = strings.TrimSpace(z.code.Text)
		z.codeInfo.SetText(lang.L("Asking the network…"))
	}
	z.u.w.Go(func() func() {
		var err error
		if inviting {
			ctx, cancel := context.WithTimeout(context.Background(), joinTimeout)
			err = z.invites.JoinByInvitation(ctx, code, s)
			cancel()
		} else if importing {
			var sn *trust.SignedNetwork
			if sn, err = readDefinition(path); err == nil {
				if err = tb.ImportNetwork(sn); err == nil {
					s.Seeds = slices.Clone(sn.Seeds)
					err = z.u.b.Setup(s)
				}
			}
		} else {
			err = z.u.b.Setup(s)
		}
		return func() {
			z.busy = false
			z.finish.Enable()
			if err != nil {
				if inviting {
					z.codeInfo.SetText("") // no tick beside a refusal
				}
				z.problem.SetText(z.failure(err, inviting))
				if errors.Is(err, app.ErrPortInUse) {
					z.proposeAfterTaken()
				}
				return
			}
			z.onDone()
		}
	})
}

// failure says why the wizard could not finish, and what to do.
func (z *wizard) failure(err error, inviting bool) string {
	if errors.Is(err, app.ErrPortInUse) {
		text := fmt.Sprintf(lang.L("Port %s is in use on this computer, perhaps by another Newsdesk. Choose another port above."), strings.TrimSpace(z.port.Text))
		if inviting {
			text += lang.L(" The invitation was not used.")
		}
		return text
	}
	if inviting {
		return lang.L("Newsdesk could not join with this invitation: ") + errorText(err)
	}
	return lang.L("Newsdesk could not be set up: ") + errorText(err)
}

// joinTimeout bounds a redemption as the wizard waits for it.
const joinTimeout = 45 * time.Second

// showCode says what the pasted invitation code is, or what is wrong with
// it, as it is typed.
func (z *wizard) showCode() {
	text := strings.TrimSpace(z.code.Text)
	if text == "" {
		z.codeInfo.SetText("")
		return
	}
	c, err := app.ParseInviteCode(text)
	if err != nil {
		z.codeInfo.Importance = widget.DangerImportance
		z.codeInfo.SetText("× " + errorText(err))
		return
	}
	z.codeInfo.Importance = widget.SuccessImportance
	at := c.Via
	if len(c.Seeds) > 0 {
		at = c.Seeds[0]
	}
	z.codeInfo.SetText(fmt.Sprintf(lang.L("The code is complete (invitation %s). When you start, Newsdesk asks the network at %s to let this computer in."), c.ID, at))
}

// readDefinition reads a network definition file for the wizard
// (background): it must parse and list at least one seed to join through.
func readDefinition(path string) (*trust.SignedNetwork, error) {
	sn, err := app.ReadNetworkFile(path)
	if err != nil {
		return nil, err
	}
	if len(sn.Seeds) == 0 {
		return nil, shownErrorf(lang.L("the definition of %q lists no seeds to connect to; ask your administrator for one that does"), sn.Name)
	}
	return sn, nil
}

// doBrowse picks the definition file with the file dialog and loads it.
func (z *wizard) doBrowse() {
	d := dialog.NewFileOpen(func(r fyne.URIReadCloser, err error) {
		if err != nil {
			z.problem.SetText(lang.L("The file could not be opened: ") + errorText(err))
			return
		}
		if r == nil {
			return // cancelled
		}
		path := r.URI().Path()
		r.Close()
		z.path.SetText(path)
		z.loadImport()
	}, z.u.win)
	d.Show()
}

// loadImport reads the chosen file in the background and shows what it
// defines.
func (z *wizard) loadImport() {
	path := strings.TrimSpace(z.path.Text)
	if path == "" {
		z.problem.SetText(lang.L("Choose the network definition file."))
		return
	}
	z.importInfo.SetText(lang.L("Reading…"))
	z.u.w.Go(func() func() {
		sn, err := readDefinition(path)
		return func() {
			if strings.TrimSpace(z.path.Text) != path {
				return // another file was chosen meanwhile
			}
			z.imported, z.importPath = sn, path
			if err != nil {
				z.importInfo.SetText("")
				z.problem.SetText(lang.L("This file cannot be used: ") + errorText(err))
				return
			}
			z.problem.SetText("")
			z.importInfo.SetText(describeDefinition(sn))
		}
	})
}

// describeDefinition says what a network definition holds, in words.
func describeDefinition(sn *trust.SignedNetwork) string {
	open := ""
	if sn.OpenPublishing {
		open = lang.L(" Every member may publish.")
	}
	admins, publishers, cats := len(sn.Admins), len(sn.Publishers), len(sn.Catalog.IDs())
	counts := fmt.Sprintf(lang.L("%s, %s, %s."), fmt.Sprintf(lang.N("%d admins", admins), admins),
		fmt.Sprintf(lang.N("%d publishers", publishers), publishers), fmt.Sprintf(lang.N("%d categories", cats), cats))
	return fmt.Sprintf(lang.L("Network “%s”, version %d.\nSeeds: %s.\n%s%s"),
		sn.Name, sn.Version, strings.Join(sn.Seeds, ", "), counts, open)
}
