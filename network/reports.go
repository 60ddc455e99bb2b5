package network

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"newsdesk/news"
	"newsdesk/storage"
	"newsdesk/trust"
)

// Reach reports for admins. A must-read post's reach travels to its
// publisher alone (newsnet/reach.go); a compliance officer or an admin
// needs it too, without asking a laptop that cannot be dialled. So the
// publisher's application puts a signed summary of each such post's
// latest reach into ReportsCategory, a system group that only admins'
// servants join: the tree routes it to them (and to archives, which keep
// every category), and catch-up brings what an admin missed while away.
// A summary is an ordinary signed item whose body is the JSON of a
// ReachSummary. It is about a post of the key that signed it: the
// summary names that key, and a summary naming another is refused, so a
// member can report only on its own posts, and only a key that may
// publish at all reports.

// ReportsCategory carries the reach summaries of must-read posts.
const ReportsCategory = "newsdesk-reports"

// AdminCategories lists the system groups that only admins' servants
// join (and archives, which keep every category). Do not modify it.
var AdminCategories = []string{ReportsCategory}

// ReachSummary is what a publisher reports of one must-read post.
type ReachSummary struct {
	// Post is the item, with what an admin who does not hold it needs to
	// recognise it; Publisher is the key that signed it (trust
	// PublicKeyString), the key that signs the summary.
	Post      uuid.UUID `json:"post"`
	Title     string    `json:"title"`
	Category  string    `json:"category"`
	Author    string    `json:"author,omitempty"`
	Published time.Time `json:"published"`
	Publisher string    `json:"publisher"`
	// At is when the network last reported the post's reach to its
	// publisher.
	At time.Time `json:"at"`
	// The counts as the publisher shows them (app.Reach).
	Subscribers            uint64 `json:"subscribers"`
	Delivered              uint64 `json:"delivered"`
	Read                   uint64 `json:"read"`
	Acknowledged           uint64 `json:"acknowledged"`
	ReportedAcknowledged   uint64 `json:"reportedAcknowledged"`
	ReportedPending        uint64 `json:"reportedPending"`
	UnverifiedAcknowledged uint64 `json:"unverifiedAcknowledged"`
	UnverifiedPending      uint64 `json:"unverifiedPending"`
	// Pending, Offline and Confirmed name the readers; Time is when an
	// offline reader was last seen, when a confirmation was learned.
	Pending   []SummaryReader `json:"pending,omitempty"`
	Offline   []SummaryReader `json:"offline,omitempty"`
	Confirmed []SummaryReader `json:"confirmed,omitempty"`
	// Cut: names left out to fit one item (news.MaxBodyBytes); the
	// counts above are whole.
	Cut bool `json:"cut,omitempty"`
}

// SummaryReader is one reader named in a summary.
type SummaryReader struct {
	Name string    `json:"n"`
	Key  string    `json:"k"`
	Time time.Time `json:"t,omitzero"`
}

// reportRate is the relays' budget for the summaries of one key: a
// publisher sends one per must-read post at most every five minutes while
// its reach changes (app/reports.go), so 240 an hour is 20 posts changing
// all hour; 16 MiB is 256 summaries of the largest size.
var reportRate = trust.Rate{ItemsPerHour: 240, BurstItems: 120, BytesPerHour: 16 << 20, BurstBytes: 16 << 20}

// ErrBadSummary: a body that is not a reach summary.
var ErrBadSummary = errors.New("not a reach summary")

// MarshalSummary encodes s for an item's body, leaving names out from the
// end of the lists (confirmed first, then offline, then pending) until it
// fits, and marking it Cut when it did.
func MarshalSummary(s ReachSummary) (string, error) {
	for {
		b, err := json.Marshal(s)
		if err != nil {
			return "", err
		}
		if len(b) <= news.MaxBodyBytes {
			return string(b), nil
		}
		s.Cut = true
		over := len(b) - news.MaxBodyBytes
		// Each named reader costs about 80 bytes: cut enough at once.
		drop := max(over/60, 1)
		switch {
		case len(s.Confirmed) > 0:
			s.Confirmed = s.Confirmed[:max(len(s.Confirmed)-drop, 0)]
		case len(s.Offline) > 0:
			s.Offline = s.Offline[:max(len(s.Offline)-drop, 0)]
		case len(s.Pending) > 0:
			s.Pending = s.Pending[:max(len(s.Pending)-drop, 0)]
		default:
			return "", fmt.Errorf("a reach summary without names is %d bytes", len(b))
		}
	}
}

// ParseSummary decodes an item's body as a reach summary.
func ParseSummary(body string) (ReachSummary, error) {
	var s ReachSummary
	d := json.NewDecoder(bytes.NewReader([]byte(body)))
	if err := d.Decode(&s); err != nil {
		return ReachSummary{}, fmt.Errorf("%w: %v", ErrBadSummary, err)
	}
	if s.Post == uuid.Nil || s.Publisher == "" || !utf8.ValidString(s.Title) {
		return ReachSummary{}, fmt.Errorf("%w: no post or publisher", ErrBadSummary)
	}
	return s, nil
}

// verifyReport checks a stored item of ReportsCategory as Verify does: its
// carrier, then checkReport.
func verifyReport(sn *trust.SignedNetwork, it *news.Item) string {
	if r := VerifyCarrier(sn, it); r != "" {
		return r
	}
	return checkReport(sn, it)
}

// checkReport is Verify for an item of ReportsCategory whose carrier
// passed VerifyCarrier: a summary that parses, signed by a key that may
// publish, about a post of that key.
func checkReport(sn *trust.SignedNetwork, it *news.Item) string {
	s, err := ParseSummary(it.Body)
	if err != nil {
		return string(trust.Invalid)
	}
	// VerifyCarrier checked the signature: the key it names signed it.
	signer := trust.SignatureKey(it)
	if !mayPublishAnywhere(sn, signer) || s.Publisher != trust.PublicKeyString(signer) {
		return string(trust.NotAuthorized)
	}
	return ""
}

// AnnounceReport publishes s as an item of ReportsCategory.
func (k *Keeper) AnnounceReport(s ReachSummary) error {
	body, err := MarshalSummary(s)
	if err != nil {
		return err
	}
	if _, err := k.host.Announce(ReportsCategory, "Reach of "+s.Post.String(), body); err != nil {
		return fmt.Errorf("announcing the reach of %s: %w", s.Post, err)
	}
	return nil
}

// Reports returns the latest stored summary of each post, newest report
// first, at most limit of them, checked against the definition held now
// (a publisher revoked since reports nothing).
func (k *Keeper) Reports(limit int) ([]ReachSummary, error) {
	sn := k.Definition()
	seen := map[uuid.UUID]bool{}
	var out []ReachSummary
	var cur storage.Cursor
	for len(out) < limit {
		page, next, err := k.store.Newest([]string{ReportsCategory}, 512, cur)
		if err != nil {
			return nil, err
		}
		for _, e := range page {
			if len(out) == limit || verifyReport(sn, e.Item) != "" {
				continue
			}
			s, err := ParseSummary(e.Item.Body)
			if err != nil || seen[s.Post] {
				continue
			}
			seen[s.Post] = true
			out = append(out, s)
		}
		if next == "" {
			break
		}
		cur = next
	}
	return out, nil
}
