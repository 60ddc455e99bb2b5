package app

import (
	"cmp"
	"encoding/json"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Keys of the store's settings bucket. Values are strings; lists are JSON.
const (
	keyDisplayName   = "display-name"
	keyListen        = "listen"
	keyAdvertise     = "advertise"
	keyNotify        = "notify"            // "true" / "false"; unset is true
	keyNotifyCats    = "notify-categories" // JSON list of category IDs
	keyCatalog       = "catalog"           // canonical catalog JSON (categories.Catalog.Marshal)
	keyCatalogTitles = "catalog-titles"    // {"version","titles"}: the titles of that catalog version (storeCatalog)
	keyLastAttached  = "last-attached"     // RFC 3339 with nanoseconds
	keySetupDone     = "setup-done"        // "true" once the first-run wizard succeeded
	keyLanguage      = "language"          // BCP 47 tag; unset follows the system
)

// settings reads the settings, with defaults for what is not set. A store
// error is logged and gives the defaults.
func (a *App) settings() Settings {
	m, err := a.store.Settings()
	if err != nil {
		a.log.Warn("reading settings failed", "err", err)
	}
	s := Settings{
		DisplayName: m[keyDisplayName],
		Listen:      m[keyListen],
		Advertise:   m[keyAdvertise],
		Notify:      m[keyNotify] != "false",
		Language:    m[keyLanguage],
	}
	if v := m[keyNotifyCats]; v != "" {
		if err := json.Unmarshal([]byte(v), &s.NotifyCategories); err != nil {
			a.log.Warn("setting "+keyNotifyCats+" is malformed; ignored", "err", err)
		}
	}
	return s
}

// Settings returns the user's preferences. Listen is DefaultListen when not
// set.
func (a *App) Settings() Settings {
	s := a.settings()
	if s.Listen == "" {
		s.Listen = DefaultListen
	}
	var err error
	if s.Retention, err = a.store.Retention(); err != nil {
		a.log.Warn("reading the retention failed", "err", err)
	}
	s.StorageQuota = a.storageQuota()
	return s
}

// SaveSettings validates and stores the preferences. A changed listen or
// advertised address applies at once: a running servant restarts under
// it, and its seed entry follows (listen.go); its port must then be free
// on this computer (ErrPortInUse, and nothing is stored).
func (a *App) SaveSettings(s Settings) error {
	if err := CheckSettings(s); err != nil {
		return err
	}
	old := a.Settings()
	if s.Listen != old.Listen && a.currentNode() != nil {
		// The servant restarts under it at once; a stopped one takes it
		// at its next start, which finds the port as it is then.
		if err := a.checkNewListen(s.Listen); err != nil {
			return err
		}
	}
	cats, err := json.Marshal(normalizeSubs(s.NotifyCategories))
	if err != nil {
		return err
	}
	for k, v := range map[string]string{
		keyDisplayName: strings.TrimSpace(s.DisplayName),
		keyListen:      s.Listen,
		keyAdvertise:   s.Advertise,
		keyNotify:      strconv.FormatBool(s.Notify),
		keyNotifyCats:  string(cats),
		keyLanguage:    s.Language,
	} {
		if err := a.store.SetSetting(k, v); err != nil {
			return err
		}
	}
	if err := a.saveRetention(s.Retention); err != nil {
		return err
	}
	if err := a.saveStorageQuota(s.StorageQuota); err != nil {
		return err
	}
	moved := s.Listen != old.Listen && a.opts.Listen == "" || s.Advertise != old.Advertise && a.opts.Advertise == ""
	if n := a.currentNode(); moved && n != nil {
		// The seed entry moves before the servant does, while its links
		// still carry the new definition to the members: afterwards
		// they would look for it at the old address only.
		_, next := a.addresses(a.Seeds())
		a.followOwnAddress(string(n.Addr()), cmp.Or(next, s.Listen))
		a.log.Info("the listen or advertised address changed; restarting the servant under it", "listen", s.Listen, "advertise", s.Advertise)
		a.restartInBackground("the new address")
	}
	return nil
}

// restartInBackground restarts the servant on a goroutine of its own (the
// caller may hold what a restart waits for, or must not wait), unless the
// App is closing.
func (a *App) restartInBackground(why string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		return
	}
	a.bg.Add(1)
	go func() {
		defer a.bg.Done()
		if err := a.restart(); err != nil {
			a.log.Error("restarting the servant for "+why+" failed", "err", err)
		}
	}()
}

// CheckHostPort checks a listen address: a host (possibly empty) and a
// numeric port 0..65535. It returns the host.
func CheckHostPort(addr string) (string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", err
	}
	if _, err := strconv.ParseUint(port, 10, 16); err != nil {
		return "", fmt.Errorf("address %q: port must be a number 0..65535", addr)
	}
	return host, nil
}

// NeedsSetup is true until Setup has succeeded once in this data directory.
func (a *App) NeedsSetup() bool {
	v, _, err := a.store.Setting(keySetupDone)
	return err == nil && v != "true"
}

// Setup stores what the first-run wizard collected and starts the servant.
// A new network makes this computer its seed: the seed list becomes the
// servant's own advertised address. Joining stores the given seeds (at
// least one, each "host:port"). A Listen whose port is in use is refused
// (ErrPortInUse) before anything is stored.
func (a *App) Setup(s Setup) error {
	if err := a.checkSetup(s); err != nil {
		return err
	}
	if err := CheckSetupSeeds(s); err != nil {
		return err
	}
	if err := a.store.SetSetting(keyDisplayName, strings.TrimSpace(s.DisplayName)); err != nil {
		return err
	}
	if s.Listen != "" {
		if err := a.store.SetSetting(keyListen, s.Listen); err != nil {
			return err
		}
	}
	seeds := s.Seeds
	if s.NewNetwork {
		seeds = []string{} // the vertex of its own network, until its address is known
	}
	if err := a.store.SetSeeds(seeds); err != nil {
		return err
	}
	if n := a.currentNode(); n != nil {
		if err := a.applySeeds(seeds, false); err != nil {
			return err
		}
	} else if err := a.Start(); err != nil {
		return err
	}
	if s.NewNetwork {
		if addr := a.Addr(); addr != "" {
			if err := a.becomeSeed(addr); err != nil {
				return err
			}
		}
	}
	if err := a.store.SetSetting(keySetupDone, "true"); err != nil {
		return err
	}
	a.events.emit(Event{Kind: StatusChanged})
	return nil
}

// checkSetup checks what Setup and JoinByInvitation can check before they
// change anything: the display name, and that the servant will be able to
// listen (the address chosen, or the settings').
func (a *App) checkSetup(s Setup) error {
	if err := CheckDisplayName(s.DisplayName, true); err != nil {
		return err
	}
	if s.Listen == "" && a.opts.Listen == "" && a.opts.MovePortIfTaken {
		return nil // the start moves off a taken port (movePortIfTaken)
	}
	// Options.Listen (serve --listen, tests) wins over what is stored.
	return a.checkNewListen(cmp.Or(a.opts.Listen, s.Listen, a.Settings().Listen))
}

// lastAttached returns the persisted time this servant was last attached.
func (a *App) lastAttached() (time.Time, bool) {
	v, ok, err := a.store.Setting(keyLastAttached)
	if err != nil || !ok {
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339Nano, v)
	return t, err == nil
}

func (a *App) saveLastAttached(t time.Time) {
	if err := a.store.SetSetting(keyLastAttached, t.UTC().Format(time.RFC3339Nano)); err != nil {
		a.log.Warn("storing the time of attachment failed", "err", err)
	}
}

// Settings are the user's preferences.
type Settings struct {
	DisplayName string
	Listen      string // "host:port" to accept servant links on
	Advertise   string // "host:port" others dial; "" for the listen address
	// NotifyCategories get a desktop notification for every new item;
	// urgent items always notify.
	NotifyCategories []string
	Notify           bool
	// Retention is how long items are kept after they arrived; 0 keeps
	// them forever. Kept items and must-read items not yet confirmed
	// stay whatever their age.
	Retention time.Duration
	// StorageQuota bounds the bytes the received items take (quota.go):
	// beyond it the oldest go first, kept and unconfirmed must-read items
	// stay. 0 is the default (DefaultStorageQuota), NoStorageQuota none.
	StorageQuota int64
	// Language is the desktop interface's language as a BCP 47 tag
	// ("de", "ja"); "" follows the system's. The UI knows which it
	// offers; the application only keeps the choice.
	Language string
}

// Probe is the result of a reachability test of one seed address.
type Probe struct {
	Addr    string
	OK      bool
	RTT     time.Duration
	Problem string // when not OK, in English words, for logs and the API
	// Kind is what went wrong when not OK, for the interface to say in
	// the reader's language: Problem is English and may carry details
	// (Go's error texts) no translation can hold.
	Kind ProbeKind
}

// ProbeKind is the kind of problem a probe met: what a person can act on
// (start the servant, fix the address, open the firewall, ask for the
// right network), not every error the connection can return.
type ProbeKind uint8

const (
	// ProbeOther: none of the kinds below; Problem says what happened.
	ProbeOther ProbeKind = iota
	// ProbeBadAddress: the text is not a host:port address.
	ProbeBadAddress
	// ProbeRefused: the computer answers, but nothing listens on the port.
	ProbeRefused
	// ProbeNoSuchHost: the host name is not found.
	ProbeNoSuchHost
	// ProbeTimedOut: nothing answered in time (the computer is off, or a
	// firewall drops the connection).
	ProbeTimedOut
	// ProbeNoRoute: this computer has no route to the address.
	ProbeNoRoute
	// ProbeNotNewsdesk: something else listens there: no TLS or hello
	// answer in time, or another protocol.
	ProbeNotNewsdesk
	// ProbeHandshake: the TLS handshake failed (not a newsdesk servant,
	// or one of an older release).
	ProbeHandshake
	// ProbeOtherNetwork: a newsdesk servant of another network answers (or
	// the network's secret changed).
	ProbeOtherNetwork
	// ProbeClosed: the other side closed the connection before its hello
	// (not a newsdesk servant, or one shutting down).
	ProbeClosed
	// ProbeIncompatible: a newsdesk servant answers, but of a release this
	// one cannot link with.
	ProbeIncompatible
	// ProbeBroken: the connection broke off during the exchange.
	ProbeBroken
)

// Setup is what the first-run wizard collects.
type Setup struct {
	DisplayName string
	// NewNetwork starts a new network with this computer as its seed
	// (Seeds is then ignored); otherwise Seeds lists the network's seeds.
	NewNetwork bool
	Seeds      []string
	// Listen, when not "", is the "host:port" to accept servant links on
	// (the first run's port choice, App.ProposeListen); it must be free on
	// this computer. "" keeps the settings' address.
	Listen string
}

// checkLanguage accepts "" and the shape of a BCP 47 tag: up to 35 letters,
// digits and hyphens (RFC 5646's longest well-formed tags fit), starting
// with a letter. Which languages exist is the UI's business.
func checkLanguage(tag string) error {
	if tag == "" {
		return nil
	}
	ok := len(tag) <= 35 && unicode.IsLetter(rune(tag[0]))
	for _, r := range tag {
		ok = ok && r < utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-')
	}
	if !ok {
		return fmt.Errorf("language %q is not a language tag such as \"de\" or \"ja\"", tag)
	}
	return nil
}
