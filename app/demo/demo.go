package demo

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
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

// Self is the demo reader's servant address.
const Self = "10.1.4.23:7946"

// demoListen is where the demo reader's settings say it listens.
const demoListen = "0.0.0.0:7946"

// Seeds are the demo network's seeds; the last one is down.
var Seeds = []string{"10.1.0.5:7946", "10.2.0.9:7946", "10.3.0.2:7946"}

// readers are the colleagues' servants, on the reader's subnet.
var readers = []string{"10.1.4.58:7946", "10.1.4.77:7946", "10.1.4.91:7946", "10.1.4.102:7946", "10.1.4.130:7946"}

// Demo is a running demo: the reader's application, the other servants'
// applications and the simulated network they run on.
type Demo struct {
	App *app.App

	root   string
	net    *simnode.Network
	others []*app.App

	stop      chan struct{}
	wg        sync.WaitGroup
	closeOnce sync.Once
	closeErr  error
}

// Open starts the demo mode of a mode (NEWSDESK_DEMO): "wizard" leaves
// the reader's installation new, so the window starts with the first-run
// wizard; "urgent" adds an urgent must-read item that came while the app
// was off and waits for confirmation, so the urgent window opens at once;
// "network" adds CrowdSize computers without an application, for the map
// of the tree (its census reaches the reader a minute or two after the
// start); any other mode is the plain data set. Close the Demo when done.
func Open(ctx context.Context, mode string) (*Demo, error) {
	root, err := os.MkdirTemp("", "newsdesk-demo-")
	if err != nil {
		return nil, err
	}
	d := &Demo{root: root, net: simnode.New(1), stop: make(chan struct{})}
	if err := d.open(ctx, mode); err != nil {
		d.Close()
		return nil, err
	}
	return d, nil
}

// open opens the reader's installation of the mode, and for any mode but
// "wizard" the other servants of the demo network.
func (d *Demo) open(ctx context.Context, mode string) (err error) {
	user := filepath.Join(d.root, "reader")
	if mode == "wizard" {
		if d.App, err = app.Open(ctx, d.options(user)); err != nil {
			return err
		}
		return saveSettings(d.App, func(*app.Settings) {})
	}

	// The reader's installation: set up as the admin of a new network,
	// then given its two weeks of news while it was off, as a store it
	// had kept.
	a, err := app.Open(ctx, d.options(user))
	if err != nil {
		return err
	}
	if err := a.Setup(app.Setup{DisplayName: "Dana Whitfield", NewNetwork: true}); err != nil {
		a.Close()
		return fmt.Errorf("demo: setup: %w", err)
	}
	err = saveSettings(a, func(s *app.Settings) {
		s.Advertise = Self
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
	own, err := fill(user, self, items)
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
			if _, err := fill(dir, uuid.Nil, own); err != nil {
				return err
			}
		}
		o := d.options(dir)
		o.Advertise, o.Network = addr, def
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
	// The reader's servant joins a tree that stands. (Its census counts
	// the whole network from the second one on, which comes down the tree
	// a minute after the first: newsnet's networkCensusPeriod.)
	d.waitAttached(d.others)
	if mode == "network" {
		if err := d.crowd(CrowdSize); err != nil {
			return err
		}
	}

	o := d.options(user)
	o.Start = true
	o.Seeds = Seeds
	o.Subscriptions = []string{"company", "hr", "it", "sales"}
	if d.App, err = app.Open(ctx, o); err != nil {
		return err
	}
	if err := d.present(now, self, items); err != nil {
		return err
	}
	d.wg.Go(func() { d.colleagues(own) })
	d.wg.Go(d.live)
	return nil
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

// options are the Open options of an installation of the demo in dir.
func (d *Demo) options(dir string) app.Options {
	return app.Options{
		Kind:             app.KindDesktop,
		DataDir:          dir,
		Advertise:        Self,
		DefaultRetention: app.DesktopRetention,
		Logger:           slog.New(slog.DiscardHandler),
		Tune:             func(c *newsnet.Config) { c.ReportPeriod = reportPeriod },
		StartServant: func(cfg node.Config) (app.Servant, error) {
			n, err := d.net.Start(context.Background(), cfg)
			if err != nil {
				return nil, err // not a typed nil in the interface
			}
			return n, nil
		},
		Probe: d.probe,
	}
}

// probe answers for the servants of the simulated network: one on the
// reader's site answers in 2 ms, one elsewhere in 14 ms.
func (d *Demo) probe(ctx context.Context, addr string) app.Probe {
	select {
	case <-time.After(300 * time.Millisecond): // a probe takes a moment
	case <-ctx.Done():
		return app.Probe{Addr: addr, Problem: ctx.Err().Error()}
	}
	if !d.net.Running(newsnet.ServantID(addr)) {
		return app.Probe{Addr: addr, Problem: "connection timed out"}
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
// else, whose items keep their counts).
func fill(dir string, self uuid.UUID, items []*news.Item) (own []*news.Item, err error) {
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
	for _, it := range items {
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
