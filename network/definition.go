package network

// The network definition held (issue 6).
//
// Every data directory holds the signed definition of the network it
// belongs to, stored in the settings bucket in its canonical encoding. The
// definition is the root of trust: it names the admins, the publishers,
// the catalog, the seeds, the fanout and the network secret. A data
// directory gets its first definition from an import (`serve --network
// FILE`, Config.Import), or creates a new one-computer network whose admin
// is this installation; later versions replace it only through
// trust.SignedNetwork.Accept (spread.go).

import (
	"bytes"
	"crypto/ed25519"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"newsdesk/news"
	"newsdesk/newsnet"
	"newsdesk/storage"
	"newsdesk/trust"
)

// keyNetwork is the settings key of the current signed network definition
// (trust.SignedNetwork.Marshal, canonical JSON).
const keyNetwork = "network"

// ErrNoDefinition: the store holds no network definition yet.
var ErrNoDefinition = errors.New("no network definition stored")

// Definition returns the network definition held. It is never nil; treat
// it as immutable.
func (k *Keeper) Definition() *trust.SignedNetwork { return k.def.Load() }

// StoredDefinition returns the definition kept in st, checked as a
// self-consistent admin-signed document (ErrNoDefinition when none is
// kept).
func StoredDefinition(st *storage.Store) (*trust.SignedNetwork, error) {
	v, ok, err := st.Setting(keyNetwork)
	if err != nil {
		return nil, err
	}
	if !ok || v == "" {
		return nil, ErrNoDefinition
	}
	sn, err := trust.ParseSignedNetwork([]byte(v))
	if err != nil {
		return nil, fmt.Errorf("stored network definition: %w", err)
	}
	if err := trust.VerifySelfSigned(sn); err != nil {
		return nil, fmt.Errorf("stored network definition: %w", err)
	}
	return sn, nil
}

func (k *Keeper) save(sn *trust.SignedNetwork) error {
	doc, err := sn.Marshal()
	if err != nil {
		return err
	}
	return k.store.SetSetting(keyNetwork, string(doc))
}

// SameDefinition reports whether x and y are the same signed document.
func SameDefinition(x, y *trust.SignedNetwork) bool {
	bx, err1 := x.Marshal()
	by, err2 := y.Marshal()
	return err1 == nil && err2 == nil && bytes.Equal(bx, by)
}

// initDefinition loads, imports (Config.Import) or creates the network
// definition, in New.
func (k *Keeper) initDefinition(imp *trust.SignedNetwork, keepSeeds bool) error {
	cur, err := StoredDefinition(k.store)
	if err != nil && !errors.Is(err, ErrNoDefinition) {
		return err
	}
	imported := false
	switch {
	case imp != nil && cur == nil:
		if err := trust.VerifySelfSigned(imp); err != nil {
			return fmt.Errorf("refusing to import the network definition: %w", err)
		}
		cur, imported = imp, true
	case imp != nil && imp.ID != cur.ID:
		return fmt.Errorf("refusing the network definition %q (%s): %w: this data directory belongs to %q (%s); "+
			"join the other network with a fresh data directory", imp.Name, imp.ID, trust.ErrOtherNetwork, cur.Name, cur.ID)
	case imp != nil && !SameDefinition(cur, imp):
		if err := cur.Accept(imp); err != nil {
			return fmt.Errorf("refusing the network definition %q version %d: %w (this data directory holds %q version %d; "+
				"a new version must be signed by one of its admins)", imp.Name, imp.Version, err, cur.Name, cur.Version)
		}
		cur, imported = imp, true
		k.imported = imp
	case cur == nil:
		if cur, err = k.newOwnNetwork(); err != nil {
			return err
		}
		k.log.Info("created a new one-computer network", "name", cur.Name, "id", cur.ID.String(),
			"admin", trust.PublicKeyString(k.identity.Public))
		if seeds, _ := k.store.Seeds(); len(seeds) > 0 {
			k.log.Warn("this data directory had no network definition, so it started a network of its own: "+
				"servants of another network refuse its links; to join one, start with --network FILE "+
				"(from `newsdesk network init`) on a fresh data directory", "seeds", fmt.Sprint(seeds))
		}
		imported = true
	}
	if imported {
		if err := k.save(cur); err != nil {
			return err
		}
		if !keepSeeds && len(cur.Seeds) > 0 {
			// The definition's seeds are used when none are given.
			if err := k.host.StoreSeeds(cur.Seeds); err != nil {
				return err
			}
		}
	}
	k.def.Store(cur)
	return k.host.ApplyCatalog(cur)
}

// newOwnNetwork creates the definition of a new one-computer network: this
// installation is its only admin (and so a publisher in every category);
// its seeds are the stored seeds when they are valid for a definition.
func (k *Keeper) newOwnNetwork() (*trust.SignedNetwork, error) {
	name := "Newsdesk"
	if h, err := os.Hostname(); err == nil && h != "" {
		name = "Newsdesk on " + h
	}
	name = oneLine(name, trust.MaxNetworkNameRunes)
	seeds, err := k.store.Seeds()
	if err != nil {
		return nil, err
	}
	sn, err := trust.NewNetwork(name, k.identity, seeds, false)
	if err == nil {
		err = sn.Validate()
	}
	if err != nil && len(seeds) > 0 {
		// Seeds a definition cannot hold (say, port 0): start without.
		sn, err = trust.NewNetwork(name, k.identity, nil, false)
	}
	if err != nil {
		return nil, fmt.Errorf("creating a network: %w", err)
	}
	return sn, nil
}

func oneLine(s string, maxRunes int) string {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, s)
	if utf8.RuneCountInString(s) > maxRunes {
		s = string([]rune(s)[:maxRunes])
	}
	return s
}

// Replace makes sn, a definition of another network, the one held (the
// first-run wizard's import, before setup is done): it is stored, its
// catalog applies, and its seeds replace the stored ones. The caller has
// checked it (trust.VerifySelfSigned) and restarts the servant.
func (k *Keeper) Replace(sn *trust.SignedNetwork) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if err := k.save(sn); err != nil {
		return err
	}
	k.def.Store(sn)
	if err := k.host.ApplyCatalog(sn); err != nil {
		return err
	}
	if len(sn.Seeds) > 0 {
		return k.host.StoreSeeds(sn.Seeds)
	}
	return nil
}

// Verify is the servant's newsnet.Config.Verify: it checks every multicast
// message that arrives before it is relayed, delivered or cached, and
// returns "" or the trust.Rejection that drops it; last, an item beyond its
// publisher's limits is trust.RateLimited (limits.go). It runs on the
// node's loop goroutine, so it reads no more of an item than it checks:
// the header (news.ParseHeader), the header against the message, the
// signature over the bytes as they arrived, the key's rights and its
// count (and, for a correction, one read of the local store). Only the
// system groups' items, which carry signed documents, are decoded whole.
// An item of a newer release's format is checked as far as its envelope
// allows (news.Header.Newer) and passed on: see docs/protocol.md.
// The subscriber that stores an item decodes it once (news.Decode).
func (k *Keeper) Verify(m *newsnet.Multicast) string {
	sn := k.Definition()
	h, key, reason := k.verify(sn, m)
	if reason != "" {
		return reason
	}
	return k.checkLimits(sn, h, key, len(m.Payload))
}

// verify is Verify but for the publishing limits (limits.go): the item's
// header and signing key, or the reason to drop it.
func (k *Keeper) verify(sn *trust.SignedNetwork, m *newsnet.Multicast) (*news.Header, ed25519.PublicKey, string) {
	h, err := news.ParseHeader(m.Payload)
	if err != nil {
		return nil, nil, string(trust.Invalid)
	}
	if h.ID != uuid.UUID(m.ID) || h.Category != m.Category || h.Source.String() != m.Source || h.Count != m.Count ||
		!slices.Equal(h.Audience, m.Audience) {
		return nil, nil, string(trust.Mismatch)
	}
	switch h.Category {
	case NetworkCategory, RetractionCategory, ReportsCategory:
		if h.Newer() {
			return nil, nil, string(trust.Invalid) // documents this release cannot read
		}
		it := new(news.Item)
		if err := it.UnmarshalBinary(m.Payload); err != nil {
			return nil, nil, string(trust.Invalid)
		}
		// The carrier's signature is checked once, here; each kind's
		// check then reads the document it carries.
		reason := VerifyCarrier(sn, it)
		if reason == "" {
			switch h.Category {
			case NetworkCategory:
				reason = k.verifyDefinition(sn, it)
			case RetractionCategory:
				reason = k.verifyRetraction(sn, it)
			default:
				reason = checkReport(sn, it)
			}
		}
		return h, trust.SignatureKey(it), reason
	}
	key, err := trust.EncodedSigner(h, m.Payload)
	if err == nil {
		err = sn.MayPublish(key, h.Category)
	}
	if err == nil && h.Supersedes != uuid.Nil {
		// A correction: of an original held here, only its publisher or
		// an admin may publish one; without the original it is a plain
		// item, and hides nothing.
		if orig, gerr := k.store.Get(h.Supersedes); gerr == nil && orig.Item != nil {
			err = sn.MayCorrect(key, h.ID, orig.Item)
		}
	}
	if err == nil {
		return h, key, ""
	}
	if r := trust.ReasonOf(err); r != "" {
		return nil, nil, string(r)
	}
	return nil, nil, string(trust.Invalid)
}

// Secrets is node.Security.Secrets: the current network secret first,
// then, for SecretGrace after a rotation, the one it replaced (so links to
// servants that have not heard of the rotation yet stay up).
func (k *Keeper) Secrets() [][]byte {
	cur := k.Definition().Secret
	out := [][]byte{cur}
	if r := k.prevSecret.Load(); r != nil && time.Now().Before(r.until) && !bytes.Equal(r.secret, cur) {
		out = append(out, r.secret)
	}
	return out
}

// SecretGrace is how long the previous network secret stays accepted after
// a new definition rotated it: long enough for the new definition to reach
// every servant, after which links still proven with the old one close.
const SecretGrace = 10 * time.Minute

// rotation is the secret a new definition replaced, accepted until until.
type rotation struct {
	secret []byte
	until  time.Time
}
