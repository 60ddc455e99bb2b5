package demo

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"newsdesk/app"
	"newsdesk/news"
	"newsdesk/newsnet"
	"newsdesk/newsnet/node"
	"newsdesk/newsnet/sim/simnode"
	"newsdesk/storage"
	"newsdesk/trust"
)

// The demo mode runs the real application (*app.App) over a small
// simulated network (newsnet/sim/simnode) in real time, through the
// servant seam (app.Options.StartServant): the same rules as a real
// installation, no sockets, and data directories in a temporary directory
// that Close removes. The reader, Dana Whitfield, is the admin of a new
// network; the other servants of the simulated network are two of its
// three seeds (the third is down; the first is the newsroom, which
// publishes an item every 90 seconds) and a few colleagues' computers,
// which read her posts and confirm her must-read post, so that My posts
// shows their reach.
//
// In the "wizard" mode the reader is someone new instead, whose
// installation is new, so the window starts with the first-run wizard.
// Dana Whitfield's installation runs as another servant of the simulated
// network (at Admin) and has made two invitations before the window
// opens: Invitation, whose code the wizard redeems over the simulated
// network (the reader joins, gets the network's definition and a
// membership certificate, and the news arrives), and Revoked, which Dana
// revoked, so the wizard shows the application's real refusal. The
// newsroom is an archive seed then, holding the data set signed (the
// newsroom's items by the newsroom, Dana's posts by her), so that the new
// member catches up on the last week's news of each category it
// subscribes to once it has joined. The program writes the codes to the
// file NEWSDESK_DEMO_INVITE_FILE names (WriteInvitations; gui.go), where
// scripts/screenshots.sh reads them to type into the wizard. The
// redemptions connect through the app's invitation dialer
// (app.Options.DialInvite: Demo.dial), which hands each connection to the
// invitation handler of the simulated servant it is for, over TLS as on
// TCP.

// Self is the demo reader's servant address.
const Self = "10.1.4.23:7946"

// demoListen is where the demo reader's settings say it listens.
const demoListen = "0.0.0.0:7946"

// Seeds are the demo network's seeds; the last one is down.
var Seeds = []string{"10.1.0.5:7946", "10.2.0.9:7946", "10.3.0.2:7946"}

// Admin is the address of Dana Whitfield's servant in the wizard mode,
// where the reader is someone new.
const Admin = "10.1.4.12:7946"

// readers are the colleagues' servants, on the reader's subnet.
var readers = []string{"10.1.4.58:7946", "10.1.4.77:7946", "10.1.4.91:7946", "10.1.4.102:7946", "10.1.4.130:7946"}

// Demo is a running demo: the reader's application, the other servants'
// applications and the simulated network they run on.
type Demo struct {
	App *app.App

	// The wizard mode's invitation codes (Open's doc): Invitation joins
	// the demo network, Revoked is refused as revoked. "" in other modes.
	Invitation, Revoked string

	root   string
	net    *simnode.Network
	others []*app.App

	// The invitation handlers of the servants started (dial), by address;
	// serving counts the connections handed to them, which Close waits
	// for; closing refuses new ones.
	mu      sync.Mutex
	invite  map[string]func(*tls.Conn)
	idents  map[string]*trust.Identity
	serving sync.WaitGroup
	closing bool

	stop      chan struct{}
	wg        sync.WaitGroup
	closeOnce sync.Once
	closeErr  error
}

// Open starts the demo mode of a mode (NEWSDESK_DEMO): "wizard" leaves
// the reader's installation new, so the window starts with the first-run
// wizard, and makes the invitations it can redeem (Invitation, Revoked);
// "urgent" adds an urgent must-read item that came while the app was off
// and waits for confirmation, so the urgent window opens at once;
// "network" adds CrowdSize computers without an application, for the map
// of the tree (its census reaches the reader a minute or two after the
// start); any other mode is the plain data set. Close the Demo when done.
func Open(ctx context.Context, mode string) (*Demo, error) {
	root, err := os.MkdirTemp("", "newsdesk-demo-")
	if err != nil {
		return nil, err
	}
	d := &Demo{root: root, net: simnode.New(1), stop: make(chan struct{}),
		invite: map[string]func(*tls.Conn){}, idents: map[string]*trust.Identity{}}
	if err := d.open(ctx, mode); err != nil {
		d.Close()
		return nil, err
	}
	return d, nil
}

// open opens the demo network of the mode: Dana Whitfield's installation,
// the reader's unless the mode is "wizard", and the other servants.
func (d *Demo) open(ctx context.Context, mode string) (err error) {
	wizard := mode == "wizard"
	user := filepath.Join(d.root, "reader")
	dana, danaAddr := user, Self
	if wizard {
		dana, danaAddr = filepath.Join(d.root, "admin"), Admin
	}

	// Dana's installation: set up as the admin of a new network, then
	// given its two weeks of news while it was off, as a store it had
	// kept.
	a, err := app.Open(ctx, d.options(dana, danaAddr))
	if err != nil {
		return err
	}
	if err := a.Setup(app.Setup{DisplayName: "Dana Whitfield", NewNetwork: true}); err != nil {
		a.Close()
		return fmt.Errorf("demo: setup: %w", err)
	}
	err = saveSettings(a, func(s *app.Settings) {
		s.Advertise = danaAddr
		s.Notify = true
		s.NotifyCategories = []string{"company"}
		s.Retention = app.DesktopRetention
	})
	if err != nil {
		a.Close()
		return fmt.Errorf("demo: settings: %w", err)
	}
	// The definition names the network's seeds, as invitations carry
	// them, and the newsroom (the first seed) as a publisher.
	newsroomDir := filepath.Join(d.root, "servant1")
	newsroom, err := trust.LoadOrCreateIdentity(newsroomDir)
	if err != nil {
		a.Close()
		return err
	}
	next := a.Network().Network.Clone()
	next.Seeds = Seeds
	next.Publishers = append(next.Publishers, trust.Publisher{Name: "Newsroom", Key: newsroom.Public})
	slices.SortFunc(next.Publishers, func(a, b trust.Publisher) int { return bytes.Compare(a.Key, b.Key) })
	next.Version++
	signed, err := a.Identity().SignNetwork(next)
	if err == nil {
		err = a.PublishNetwork(signed)
	}
	if err != nil {
		a.Close()
		return fmt.Errorf("demo: the network's seeds: %w", err)
	}
	self, def, admin := a.Source(), a.Network(), a.Identity()
	if err := a.Close(); err != nil {
		return err
	}
	now := time.Now()
	items := Items(now, self)
	if mode == "urgent" {
		items = append(items, UrgentMustRead(now))
	}
	var sign func(*news.Item) error
	if wizard {
		// The news comes to the new member over the network, where only
		// signed items pass: the newsroom's under a source of its key,
		// Dana's own posts under hers.
		src, err := trust.NewSource(newsroom.Public)
		if err != nil {
			return err
		}
		for _, it := range items {
			if it.Source != self {
				it.Source = src
			}
		}
		sign = func(it *news.Item) error {
			if it.Source == self {
				return trust.SignItem(admin, it)
			}
			return trust.SignItem(newsroom, it)
		}
	}
	own, err := fill(dana, self, items, sign)
	if err != nil {
		return err
	}

	// The other servants: seeds and the colleagues' computers, which have
	// the reader's posts and membership certificates from her, as
	// installations that joined by invitation have.
	others := append(slices.Clone(Seeds[:len(Seeds)-1]), readers...)
	for i, addr := range others {
		dir := filepath.Join(d.root, fmt.Sprintf("servant%d", i+1))
		name := "Seed " + addr
		if i == 0 {
			name = "Newsroom"
		}
		if i >= len(Seeds)-1 {
			name = colleagues[(i-len(Seeds)+1)%len(colleagues)]
			if err := member(dir, def, admin, now); err != nil {
				return err
			}
			if _, err := fill(dir, uuid.Nil, own, nil); err != nil {
				return err
			}
		}
		o := d.options(dir, addr)
		o.Network = def
		if wizard && i == 0 {
			// The newsroom is the network's archive, as a first seed
			// often is: a new member catches up on the last week from it.
			if _, err := fill(dir, uuid.Nil, items, nil); err != nil {
				return err
			}
			o.Archive, o.Kind = true, app.KindHeadless
		}
		o.Subscriptions = []string{"company", "hr", "it", "sales", "facilities", "sales/emea"}
		other, err := app.Open(ctx, o)
		if err != nil {
			return fmt.Errorf("demo: servant %s: %w", addr, err)
		}
		d.others = append(d.others, other)
		if err := other.Setup(app.Setup{DisplayName: name, Seeds: Seeds}); err != nil {
			return fmt.Errorf("demo: servant %s: %w", addr, err)
		}
	}
	// Dana's servant joins a tree that stands. (Its census counts the
	// whole network from the second one on, which comes down the tree a
	// minute after the first: newsnet's networkCensusPeriod.)
	d.waitAttached(d.others)
	if mode == "network" {
		if err := d.crowd(CrowdSize); err != nil {
			return err
		}
	}

	o := d.options(dana, danaAddr)
	o.Start = true
	o.Seeds = Seeds
	o.Subscriptions = readerSubscriptions
	if a, err = app.Open(ctx, o); err != nil {
		return err
	}
	if wizard {
		d.others = append(d.others, a)
		if err := d.invitations(a); err != nil {
			return err
		}
		// The reader's installation: new, subscribed to nothing yet.
		if d.App, err = app.Open(ctx, d.options(user, Self)); err != nil {
			return err
		}
		if err := saveSettings(d.App, func(*app.Settings) {}); err != nil {
			return err
		}
		d.wg.Go(d.live)
		return nil
	}
	d.App = a
	if err := d.present(now, self, items); err != nil {
		return err
	}
	d.wg.Go(func() { d.colleagues(own) })
	d.wg.Go(d.live)
	return nil
}

// readerSubscriptions are the categories the demo's reader subscribes to.
var readerSubscriptions = []string{"company", "hr", "it", "sales"}

// invitations has admin's installation make the wizard mode's invitations:
// one that the reader redeems, and one it revoked.
func (d *Demo) invitations(admin *app.App) error {
	inv, err := admin.CreateInvitation(app.InviteOptions{Uses: 1, Expires: 7 * 24 * time.Hour})
	if err != nil {
		return fmt.Errorf("demo: invitation: %w", err)
	}
	revoked, err := admin.CreateInvitation(app.InviteOptions{Uses: 10, Expires: 7 * 24 * time.Hour})
	if err != nil {
		return fmt.Errorf("demo: invitation: %w", err)
	}
	if err := admin.RevokeInvitation(revoked.ID); err != nil {
		return fmt.Errorf("demo: revoking an invitation: %w", err)
	}
	d.Invitation, d.Revoked = inv.Code, revoked.Code
	return nil
}

// WriteInvitations writes the wizard mode's invitation codes to the file
// path, for a script to type into the wizard: a line "invitation CODE"
// and a line "revoked CODE". The file appears whole (it is renamed into
// place) and is not removed by Close. Other modes have no codes to write.
func (d *Demo) WriteInvitations(path string) error {
	if d.Invitation == "" {
		return errors.New("demo: only the wizard mode makes invitations")
	}
	tmp := path + ".tmp"
	text := "invitation " + d.Invitation + "\nrevoked " + d.Revoked + "\n"
	if err := os.WriteFile(tmp, []byte(text), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// live has the newsroom publish an item now and then, as a newsroom does.
func (d *Demo) live() {
	t := time.NewTicker(90 * time.Second)
	defer t.Stop()
	rng := rand.New(rand.NewPCG(7, 7))
	for n := uint64(1); ; n++ {
		select {
		case <-d.stop:
			return
		case now := <-t.C:
			it := LiveItem(rng, now, n, uuid.Nil)
			d.others[0].Publish(app.Draft{Category: it.Category, Title: it.Title, Body: it.Body})
		}
	}
}

// saveSettings saves a's settings as edit changes them, listening on
// demoListen unless another program holds that port on this computer (the
// application checks a new listen address with a socket, although the
// demo's servants have none).
func saveSettings(a *app.App, edit func(*app.Settings)) error {
	s := a.Settings()
	edit(&s)
	was := s.Listen
	s.Listen = demoListen
	err := a.SaveSettings(s)
	if errors.Is(err, app.ErrPortInUse) {
		s.Listen = was
		err = a.SaveSettings(s)
	}
	return err
}

// reportPeriod is how often the demo's servants report reach and census
// up the tree: a small network, reported at once.
const reportPeriod = time.Second

// colleagues are the display names of the colleagues' installations.
var colleagues = []string{"Aiko Tanaka", "Ben Dubois", "Jonas Weber", "Priya Raman", "Luis Ortega"}

// member prepares the data directory of a colleague's installation: its
// key, and a membership certificate of the network signed by admin.
func member(dir string, def *trust.SignedNetwork, admin *trust.Identity, now time.Time) error {
	id, err := trust.LoadOrCreateIdentity(dir)
	if err != nil {
		return err
	}
	c := admin.SignMemberCert(def.ID, id.Public, now)
	st, err := storage.Open(dir)
	if err != nil {
		return err
	}
	return errors.Join(st.SetSetting(app.MemberCertSetting, c.String()), st.Close())
}

// waitAttached waits until every one of apps is attached to the tree, or
// until the demo closes; at most 10 seconds.
func (d *Demo) waitAttached(apps []*app.App) {
	deadline := time.Now().Add(10 * time.Second)
	for _, a := range apps {
		for !a.Status().Connected && time.Now().Before(deadline) {
			select {
			case <-d.stop:
				return
			case <-time.After(50 * time.Millisecond):
			}
		}
	}
}

// options are the Open options of an installation of the demo in dir,
// whose servant is at addr.
func (d *Demo) options(dir, addr string) app.Options {
	return app.Options{
		Kind:             app.KindDesktop,
		DataDir:          dir,
		Advertise:        addr,
		DefaultRetention: app.DesktopRetention,
		Logger:           slog.New(slog.DiscardHandler),
		Tune:             func(c *newsnet.Config) { c.ReportPeriod = reportPeriod },
		StartServant: func(cfg node.Config) (app.Servant, error) {
			n, err := d.net.Start(context.Background(), cfg)
			if err != nil {
				return nil, err // not a typed nil in the interface
			}
			if sec := cfg.Security; sec != nil && sec.Invitations != nil {
				d.mu.Lock()
				d.invite[string(n.Addr())], d.idents[string(n.Addr())] = sec.Invitations, sec.Identity
				d.mu.Unlock()
			}
			return n, nil
		},
		Probe:      d.probe,
		DialInvite: d.dial,
	}
}

// dial connects to the servant at addr for the invitation protocol, as
// network.Dialer: the simulated servants have no sockets, so the
// connection is a pipe whose other end runs the TLS handshake with the
// servant's key and goes to its invitation handler (node.Security's
// Invitations), as the TCP node hands it an accepted connection. A
// servant that is not running is refused, as a closed port is.
func (d *Demo) dial(ctx context.Context, addr string) (net.Conn, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	serve, id := d.invite[addr], d.idents[addr]
	if d.closing || serve == nil || !d.net.Running(newsnet.ServantID(addr)) {
		return nil, &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connection refused")}
	}
	client, server := pipe()
	d.serving.Go(func() {
		defer server.Close()
		// The node's bound on a handshake; the handler sets its own
		// deadlines after it.
		server.SetDeadline(time.Now().Add(5 * time.Second))
		tc := tls.Server(server, trust.TLSConfigFor(id, true, trust.ALPN, trust.InviteALPN))
		if tc.Handshake() != nil || tc.ConnectionState().NegotiatedProtocol != trust.InviteALPN {
			return
		}
		serve(tc)
	})
	return client, nil
}

// probe answers for the servants of the simulated network: one on the
// reader's site answers in 2 ms, one elsewhere in 14 ms.
func (d *Demo) probe(ctx context.Context, addr string) app.Probe {
	select {
	case <-time.After(300 * time.Millisecond): // a probe takes a moment
	case <-ctx.Done():
		return app.Probe{Addr: addr, Problem: ctx.Err().Error(), Kind: app.ProbeTimedOut}
	}
	if !d.net.Running(newsnet.ServantID(addr)) {
		return app.Probe{Addr: addr, Problem: "connection timed out", Kind: app.ProbeTimedOut}
	}
	rtt := 14 * time.Millisecond
	switch {
	case addr == Self:
		rtt = time.Millisecond / 5
	case strings.HasPrefix(addr, "10.1."):
		rtt = 2 * time.Millisecond
	}
	return app.Probe{Addr: addr, OK: true, RTT: rtt}
}

// fill stores items in the store of dir, as received, and returns those
// of source self, its own posts, with the counts its store gave them in
// the order they were made (none for self uuid.Nil: a store of someone
// else, whose items keep their counts). sign, if set, signs each item
// once its count is final.
func fill(dir string, self uuid.UUID, items []*news.Item, sign func(*news.Item) error) (own []*news.Item, err error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	st, err := storage.Open(dir)
	if err != nil {
		return nil, err
	}
	defer func() { err = errors.Join(err, st.Close()) }()
	for _, it := range items {
		if it.Source == self {
			own = append(own, it)
		}
	}
	slices.SortFunc(own, func(a, b *news.Item) int { return a.Created.Compare(b.Created) })
	for _, it := range own {
		if it.SourceCount, err = st.NextSourceCount(self); err != nil {
			return nil, err
		}
	}
	for _, b := range demoBlobs() {
		if _, err := st.PutBlob(bytes.NewReader(b.data), b.att.Name, b.att.MediaType); err != nil {
			return nil, fmt.Errorf("demo: storing %s: %w", b.att.Name, err)
		}
	}
	for _, it := range items {
		if sign != nil {
			if err := sign(it); err != nil {
				return nil, err
			}
		}
		if err := st.Put(context.Background(), it); err != nil {
			return nil, fmt.Errorf("demo: storing %q: %w", it.Title, err)
		}
	}
	return own, nil
}

// present sets the reader's installation as the screens show it: older
// items read, the last day's mostly not, one's own posts read; one post
// retracted; invitations made earlier, one revoked.
func (d *Demo) present(now time.Time, self uuid.UUID, items []*news.Item) error {
	a := d.App
	var read []uuid.UUID
	var retract uuid.UUID
	for _, it := range items {
		if now.Sub(it.Created) > 30*time.Hour || it.Source == self {
			read = append(read, it.ID)
		}
		if it.Source == self && strings.HasPrefix(it.Title, "Volunteering day") {
			retract = it.ID
		}
	}
	if err := a.MarkRead(read...); err != nil {
		return err
	}
	if err := a.Retract(retract, "Date moved: a new sign-up sheet follows"); err != nil {
		return fmt.Errorf("demo: retracting: %w", err)
	}
	if _, err := a.CreateInvitation(app.InviteOptions{Uses: 1, Expires: 7 * 24 * time.Hour}); err != nil {
		return fmt.Errorf("demo: invitation: %w", err)
	}
	if _, err := a.CreateInvitation(app.InviteOptions{Uses: 1, Expires: 30 * 24 * time.Hour, Publisher: true, Categories: []string{"sales"}}); err != nil {
		return fmt.Errorf("demo: invitation: %w", err)
	}
	revoked, err := a.CreateInvitation(app.InviteOptions{Uses: 10, Expires: 24 * time.Hour})
	if err != nil {
		return fmt.Errorf("demo: invitation: %w", err)
	}
	return a.RevokeInvitation(revoked.ID)
}

// colleagues read the reader's posts once their servants are attached,
// and most of them confirm her must-read post, as colleagues do: their
// reach reports reach her servant over the simulated tree.
func (d *Demo) colleagues(own []*news.Item) {
	d.waitAttached([]*app.App{d.App})
	for i, o := range d.others[len(Seeds)-1:] {
		for j, it := range own {
			if (i+j)%3 == 2 { // not everyone reads everything
				continue
			}
			if it.MustRead && i%4 != 3 {
				o.Acknowledge(it.ID)
			} else {
				o.MarkRead(it.ID)
			}
		}
	}
}

// Close closes the applications, stops the simulated network and removes
// the demo's data directories. It is safe to call more than once.
func (d *Demo) Close() error {
	d.closeOnce.Do(func() {
		close(d.stop)
		d.wg.Wait()
		d.mu.Lock()
		d.closing = true
		d.mu.Unlock()
		d.serving.Wait()
		var errs []error
		if d.App != nil {
			errs = append(errs, d.App.Close())
		}
		for _, o := range d.others {
			errs = append(errs, o.Close())
		}
		d.net.Close()
		errs = append(errs, os.RemoveAll(d.root))
		d.closeErr = errors.Join(errs...)
	})
	return d.closeErr
}
