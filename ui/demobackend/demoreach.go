package demobackend

import (
	"cmp"
	"crypto/ed25519"
	"crypto/sha256"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"newsdesk/app"
	"newsdesk/trust"
)

// presetDemoReach gives the demo's own posts the reach a network of some
// 1,200 servants would report: most subscribers have each post, many read
// it, and the must-read fire drill has a few dozen readers who have not
// confirmed it yet.
func (m *Backend) presetDemoReach() {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, it := range m.items {
		if it.Source != m.source {
			continue
		}
		var r app.Reach
		switch {
		case strings.HasPrefix(it.Title, "Newsletter"):
			r = app.Reach{Subscribers: 214, Delivered: 211, Read: 163}
		case strings.HasPrefix(it.Title, "Reminder"):
			r = app.Reach{Subscribers: 1240, Delivered: 1236, Read: 871}
		case strings.HasPrefix(it.Title, "Volunteering"):
			r = app.Reach{Subscribers: 388, Delivered: 385, Read: 97}
		case it.MustRead:
			r = app.Reach{Subscribers: 1240, Delivered: 1229, Read: 1196, Acknowledged: 1187}
			for range r.Delivered - r.Acknowledged {
				r.Pending = append(r.Pending, demoReader(rng))
			}
		default:
			continue
		}
		slices.SortFunc(r.Pending, func(x, y app.Reader) int { return cmp.Or(cmp.Compare(x.Name, y.Name), cmp.Compare(x.Key, y.Key)) })
		r.At = it.Created.Add(90 * time.Minute) // the last report came 90 minutes after the post
		m.PresetReach(it.ID, r)
	}
}

var (
	demoFirstNames = []string{"Aiko", "Ben", "Carla", "Deniz", "Elena", "Farid", "Grace", "Hugo", "Ines", "Jonas", "Kofi", "Lena", "Mateo", "Nora", "Omar", "Priya"}
	demoLastNames  = []string{"Andersen", "Baptiste", "Costa", "Dubois", "Eriksen", "Fischer", "Garcia", "Haddad", "Ito", "Jansen", "Kowalski", "Lindqvist", "Moreau", "Nakamura", "Okafor", "Petrov"}
)

// demoReader is a made-up reader with a made-up installation key.
func demoReader(rng *rand.Rand) app.Reader {
	name := demoFirstNames[rng.IntN(len(demoFirstNames))] + " " + demoLastNames[rng.IntN(len(demoLastNames))]
	seed := sha256.Sum256([]byte(name + string(rune(rng.IntN(1<<20)))))
	key := ed25519.NewKeyFromSeed(seed[:]).Public().(ed25519.PublicKey)
	return app.Reader{Name: name, Key: trust.PublicKeyString(key)}
}
