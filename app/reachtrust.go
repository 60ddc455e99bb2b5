package app

import (
	"context"
	"crypto/sha256"
	"errors"
	"sync"
	"time"

	"newsdesk/trust"
)

// Reach you can trust (issue 32, part 4). The identity and confirmation
// blobs this installation's reader is listed under prove themselves
// (trust/member.go): signed by the installation key for the one item,
// carrying the membership certificate an admin's servant signed for it
// (network/certify.go). Every servant checks the blobs its tree links
// report (newsnet Config.VerifyReachBlob, verifyReachBlob here) and drops
// those that fail, so junk never reaches the lists the overlay passes on;
// the publisher counts as acknowledged only the distinct keys whose
// confirmations verify, and keeps the relays' numbers beside them as
// "reported by relays".
//
// An installation without a certificate that the definition does not
// admit itself (an admin or a listed publisher) makes version-1 blobs,
// as older releases do: they travel and count as reported by relays,
// never as verified. It asks for a certificate when it joins, and on
// start when it has none (certifyLoop).

// Settings keys of the membership certificate (trust.MemberCert text) and
// of the admin's servant that issued it, asked again when the certificate
// no longer verifies. MemberCertSetting is exported for tests and tools
// that prepare a data directory.
const (
	MemberCertSetting = "membership-certificate"
	keyMemberCert     = MemberCertSetting
	keyMemberVia      = "membership-via"
)

// certifyRetry is how long the app waits before it asks again for a
// certificate no admin's servant gave.
const certifyRetry = time.Hour

// memberCert returns the installation's certificate, nil when it holds
// none that admits it to the current definition.
func (a *App) memberCert() *trust.MemberCert {
	if c := a.cert.Load(); c != nil && a.Network().VerifyMemberCert(c) == nil {
		return c
	}
	return nil
}

// loadMemberCert reads the stored certificate (Open).
func (a *App) loadMemberCert() {
	v, ok, err := a.store.Setting(keyMemberCert)
	if err != nil || !ok || v == "" {
		return
	}
	c, err := trust.ParseMemberCert(v)
	if err != nil || !c.Key.Equal(a.identity.Public) {
		a.log.Warn("the stored membership certificate is not this installation's; it asks again", "err", err)
		return
	}
	a.cert.Store(c)
}

// Certify asks the admin's servants at addrs, in order, for this
// installation's membership certificate and keeps the first one given
// (with the address that gave it). An installation the definition admits
// itself needs none and asks nobody.
func (a *App) Certify(ctx context.Context, addrs []string) error {
	sn := a.Network()
	if sn.Admitted(a.identity.Public) {
		return nil
	}
	secrets := a.net.Secrets()
	if len(secrets) == 0 {
		return errors.New("no network secret")
	}
	var errs []error
	for _, addr := range addrs {
		c, err := a.opts.DialInvite.Certify(ctx, addr, a.identity, sn, secrets[0])
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if err := a.adoptMemberCert(c, addr); err != nil {
			return err
		}
		a.log.Info("membership certificate received", "from", addr)
		return nil
	}
	return errors.Join(errs...)
}

// certifyLoop asks for a certificate while the installation has none that
// the current definition accepts: at the admin's servant it joined through,
// else at the seeds (an admin's servant is often one), once at the start
// and then every certifyRetry. Members that joined before certificates
// existed get theirs this way, if their admin's servant still has them on
// record.
func (a *App) certifyLoop() {
	defer a.bg.Done()
	t := time.NewTimer(5 * time.Second)
	defer t.Stop()
	for {
		select {
		case <-a.stop:
			return
		case <-t.C:
		}
		if a.currentNode() != nil && a.memberCert() == nil && !a.Network().Admitted(a.identity.Public) && !a.opts.Archive {
			var addrs []string
			if via, ok, _ := a.store.Setting(keyMemberVia); ok && via != "" {
				addrs = append(addrs, via)
			}
			for _, s := range a.Seeds() {
				if s != a.Addr() {
					addrs = append(addrs, s)
				}
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			go func() {
				select {
				case <-a.stop:
				case <-ctx.Done():
				}
				cancel()
			}()
			if err := a.Certify(ctx, addrs); err != nil {
				a.log.Info("no membership certificate yet: confirmations of must-read items count as reported by relays", "err", err)
			}
			cancel()
		}
		if a.currentNode() == nil {
			t.Reset(10 * time.Second) // not started (yet): the wizard, or stopped
		} else {
			t.Reset(certifyRetry)
		}
	}
}

// adoptMemberCert keeps c as the installation's certificate.
func (a *App) adoptMemberCert(c *trust.MemberCert, via string) error {
	if !c.Key.Equal(a.identity.Public) {
		return errors.New("the certificate names another key")
	}
	if err := a.store.SetSetting(keyMemberCert, c.String()); err != nil {
		return err
	}
	if via != "" {
		if err := a.store.SetSetting(keyMemberVia, via); err != nil {
			return err
		}
	}
	a.cert.Store(c)
	return nil
}

// reachBlob is the identity (ack false) or confirmation blob of must-read
// item by this installation's reader: format 2 when admitted (by
// certificate or by the definition), else version 1.
func (a *App) reachBlob(item [16]byte, ack bool) []byte {
	name := a.settings().DisplayName
	sn := a.Network()
	cert := a.memberCert()
	if cert == nil && !sn.Admitted(a.identity.Public) {
		if ack {
			return trust.SignAck(a.identity, item, name)
		}
		return trust.ReaderIdentity(a.identity, name)
	}
	return trust.SignReachBlob(a.identity, sn.ID, cert, item, name, ack)
}

// Bounds of the verdicts kept: each generation holds at most this many,
// two generations are kept.
const (
	blobVerdicts = 8192
	// blobReplaceAfter: a reader's blob for an item (its display name
	// changed) replaces the one it had only after this long, so a member
	// cannot fill a list with one key under many names.
	blobReplaceAfter = time.Minute
)

// blobVerifier checks reach blobs once each (verifyReachBlob), and keeps
// one blob per reader key, item and kind. Safe for concurrent use.
type blobVerifier struct {
	now func() time.Time

	mu sync.Mutex
	// verdicts by blobDigest; a new generation starts when cur is full.
	cur, prev map[[32]byte]blobVerdict
	// current: the blob accepted per (item, key, kind), two generations.
	curKey, prevKey map[[32]byte]currentBlob
	// the definition the verdicts hold for: another clears them.
	def *trust.SignedNetwork
}

type blobVerdict struct {
	reader trust.Reader
	err    error // nil: verified; ErrLegacyReachBlob; other: bad
}

type currentBlob struct {
	digest [32]byte
	since  time.Time
}

func newBlobVerifier() *blobVerifier {
	return &blobVerifier{now: time.Now}
}

func blobDigest(item [16]byte, blob []byte, ack bool) [32]byte {
	h := sha256.New()
	h.Write(item[:])
	if ack {
		h.Write([]byte{1})
	} else {
		h.Write([]byte{0})
	}
	h.Write(blob)
	var d [32]byte
	h.Sum(d[:0])
	return d
}

func readerSlot(item [16]byte, key []byte, ack bool) [32]byte {
	return blobDigest(item, key, ack)
}

// verify returns the verdict on blob under sn, from the cache when it
// was checked before.
func (v *blobVerifier) verify(sn *trust.SignedNetwork, item [16]byte, blob []byte, ack bool) blobVerdict {
	d := blobDigest(item, blob, ack)
	v.mu.Lock()
	if v.def != sn {
		v.def, v.cur, v.prev = sn, nil, nil
	}
	if r, ok := v.cur[d]; ok {
		v.mu.Unlock()
		return r
	}
	if r, ok := v.prev[d]; ok {
		v.put(d, r)
		v.mu.Unlock()
		return r
	}
	v.mu.Unlock()
	r, err := sn.VerifyReachBlob(item, blob, ack)
	verdict := blobVerdict{reader: r, err: err}
	v.mu.Lock()
	if v.def == sn {
		v.put(d, verdict)
	}
	v.mu.Unlock()
	return verdict
}

// put keeps a verdict. Under mu.
func (v *blobVerifier) put(d [32]byte, r blobVerdict) {
	if v.cur == nil || len(v.cur) >= blobVerdicts {
		v.prev, v.cur = v.cur, make(map[[32]byte]blobVerdict)
	}
	v.cur[d] = r
}

// accept is the relay's check (Config.VerifyReachBlob): a blob that
// verifies, and is its reader's one blob for the item and kind; or a
// version-1 blob that parses (and, a confirmation, whose signature
// verifies), from an older release, which the publisher counts only as
// reported by relays. A second blob of one key for one item and kind
// (another name) replaces the first only blobReplaceAfter after the
// first was taken; before, it is refused.
func (v *blobVerifier) accept(sn *trust.SignedNetwork, item [16]byte, blob []byte, ack bool) bool {
	r := v.verify(sn, item, blob, ack)
	switch {
	case errors.Is(r.err, trust.ErrLegacyReachBlob):
		return true
	case r.err != nil:
		return false
	}
	slot := readerSlot(item, r.reader.Key, ack)
	d := blobDigest(item, blob, ack)
	now := v.now()
	v.mu.Lock()
	defer v.mu.Unlock()
	c, ok := v.curKey[slot]
	if !ok {
		c, ok = v.prevKey[slot]
	}
	switch {
	case ok && c.digest == d:
	case ok && now.Sub(c.since) < blobReplaceAfter:
		return false
	default:
		c = currentBlob{digest: d, since: now}
	}
	if v.curKey == nil || len(v.curKey) >= blobVerdicts {
		v.prevKey, v.curKey = v.curKey, make(map[[32]byte]currentBlob)
	}
	v.curKey[slot] = c
	return true
}

// verifyReachBlob is Config.VerifyReachBlob.
func (a *App) verifyReachBlob(id [16]byte, blob []byte, ack bool) bool {
	return a.blobs.accept(a.Network(), id, blob, ack)
}
