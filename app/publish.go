package app

import (
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"net/netip"
	"newsdesk/news"
	"newsdesk/trust"
)

// Publish publishes a draft as this installation, with the display name of
// the settings as its author. A draft that breaks an item rule returns the
// validation error, a *news.FieldError naming the field and the rule (an
// invalid display name is the author field's), and nothing is stored or
// sent. The system groups take no drafts (network.ErrSystemCategory).
// Attachments are stored as blobs and their manifest appended to the body
// (PrepareAttachments): beyond the limits of an item they are an
// ErrTooLarge, beyond the network's attachment cap in the category a
// *LimitError (TooLarge).
func (a *App) Publish(d Draft) (PublishResult, error) {
	if err := CheckDraftCategory(a.Catalog(), d.Category); err != nil {
		return PublishResult{}, err
	}
	body, atts, err := PrepareAttachments(d.Body, d.Attachments)
	if err != nil {
		return PublishResult{}, err
	}
	// The network's cap before the blobs are stored; PublishItem checks
	// again, against the definition held then.
	if err := a.CheckAttachmentLimit(d.Category, atts); err != nil {
		return PublishResult{}, err
	}
	it, err := a.newItem(d.Category, d.Title, body)
	if err != nil {
		return PublishResult{}, err
	}
	it.Urgent, it.Supersedes = d.Urgent, d.Supersedes
	it.Expires, it.At = d.Expires, d.At
	it.MustRead = d.MustRead
	it.Audience = news.CanonicalAudience(d.Audience)
	if err := CheckSchedule(it, a.now()); err != nil {
		return PublishResult{}, err
	}
	if err := it.Validate(); err != nil {
		return PublishResult{}, err
	}
	if err := a.MayPublish(it.Category); err != nil {
		return PublishResult{}, &NotAllowedError{Category: it.Category, Err: err}
	}
	// The blobs are stored before the item that names them, so that a
	// reader here, and the transport, find them whole once it is.
	if err := a.storeAttachments(d.Attachments, atts); err != nil {
		return PublishResult{}, err
	}
	if !it.At.IsZero() {
		return a.ScheduleItem(it)
	}
	return a.PublishItem(it)
}

// CheckSchedule checks the times of a new item against the clock: a
// publication time (At) must not lie in the past, and one within
// ScheduleTolerance of now is dropped, so that the item goes out now
// (schedule.go); an expiry must lie after now (and after the publication
// time, which Validate checks). The error is a *news.FieldError
// (news.RulePast).
func CheckSchedule(it *news.Item, now time.Time) error {
	if err := checkAt(it, now); err != nil {
		return err
	}
	if !it.Expires.IsZero() && !it.Expires.After(now) {
		return &news.FieldError{Field: news.FieldExpires, Rule: news.RulePast}
	}
	return nil
}

// newItem is a new item of this installation, written now, with the
// display name of the settings as its author.
func (a *App) newItem(category, title, body string) (*news.Item, error) {
	now := a.now()
	id, err := news.NewID(now)
	if err != nil {
		return nil, err
	}
	return &news.Item{ID: id, Category: category, Title: title, Body: body,
		Author: a.settings().DisplayName, Source: a.source, Created: now}, nil
}

// NotAllowedError: the network definition does not let this installation
// publish in the category (it is not a publisher there, or its key is
// revoked). Reason is the trust.Rejection ("untrustedKey",
// "categoryNotAllowed", "revokedKey").
type NotAllowedError struct {
	Category string
	Err      error
}

func (e *NotAllowedError) Error() string {
	return fmt.Sprintf("this installation may not publish in %q: %v (an admin adds its key, shown by `newsdesk key`, to the network's publishers)", e.Category, e.Err)
}

func (e *NotAllowedError) Unwrap() error { return e.Err }

// Reason returns the short reason, a trust.Rejection.
func (e *NotAllowedError) Reason() string { return string(trust.ReasonOf(e.Err)) }

// ErrBusy: a publication was not stored in time because the servant is
// far behind (its backlog of stored publications is full) or the disk is
// stuck. Nothing of it is stored; try again later.
var ErrBusy = errors.New("publish: the servant is busy; nothing was stored, try again")

// PublishItem publishes a valid item this installation built itself
// (the control API's /v1/publish, the system groups' announcements),
// without Publish's checks of a draft: it gives the item the next
// communication count, stores it, and sends it, through the publishing pipeline
// (publisher.go). It returns once the item is stored and numbered: the
// count was taken durably together with the item (listed in My posts, marked
// read, able to answer retransmission requests) and its outbox entry. The
// outcome says what the servant did with it. When the servant is backlogged
// and has not taken the item within publishWait, the outcome is Queued: the
// item goes out in count order once the servant catches up (or, after a
// restart, from the outbox).
//
// A publication the pipeline could not take within publishBusyWait returns
// ErrBusy and is not stored. One beyond the network's publishing limits
// returns a *LimitError and is not stored either (entrylimit.go).
func (a *App) PublishItem(it *news.Item) (PublishResult, error) {
	if err := a.checkLimits(it, a.now()); err != nil {
		return PublishResult{}, err
	}
	if publishVia != nil {
		return publishVia(a, it)
	}
	r := &pubReq{it: it, stored: make(chan error, 1), out: make(chan Outcome, 1)}
	if err := a.pub.submit(r); err != nil {
		return PublishResult{}, err
	}
	wait := time.NewTimer(publishBusyWait)
	defer wait.Stop()
	var err error
	select {
	case err = <-r.stored:
	case <-wait.C:
		if a.pub.withdraw(r) {
			return PublishResult{}, ErrBusy
		}
		err = <-r.stored // taken meanwhile: storing is bounded by the disk
	}
	if err != nil {
		return PublishResult{}, err
	}
	res := PublishResult{ID: it.ID}
	wait.Reset(publishWait)
	select {
	case res.Outcome = <-r.out:
	case <-wait.C:
		res.Outcome = Queued
		a.log.Info("publication stored; the servant is backlogged and sends it in turn",
			"id", it.ID, "count", it.SourceCount, "waited", publishWait)
	}
	return res, nil
}

// publishVia, when set, replaces the publishing pipeline: a benchmark
// compares the pipeline with the way publications were made before it.
// Never set outside tests.
var publishVia func(a *App, it *news.Item) (PublishResult, error)

// Draft is an item a newsroom user is about to publish.
type Draft struct {
	Category   string
	Title      string
	Body       string // Markdown
	Urgent     bool
	Supersedes uuid.UUID // the item this one corrects, or uuid.Nil
	// Expires, when set, hides the item everywhere from then on; it must
	// lie in the future.
	Expires time.Time
	// At, when set, publishes the item at that time instead of now
	// (schedule.go): it must not lie in the past, and Expires must come
	// after it.
	At time.Time
	// MustRead asks every reader to confirm having read it (Acknowledge).
	MustRead bool
	// Audience, when set, limits the item to servants whose advertised
	// address lies in one of these network ranges (news.ParseAudience).
	Audience []netip.Prefix
	// Attachments are the draft's pictures and files (attachments.go).
	Attachments []DraftAttachment
}

// Outcome says what became of a publication.
type Outcome int

func (o Outcome) String() string {
	switch o {
	case Delivered:
		return "delivered"
	case Queued:
		return "queued until connected"
	case Suppressed:
		return "no subscribers"
	case Scheduled:
		return "scheduled"
	}
	return "unknown"
}

// PublishResult is the answer to a publication.
type PublishResult struct {
	ID      uuid.UUID
	Outcome Outcome
}

const (
	// Delivered: sent into the tree toward at least one subscriber.
	Delivered Outcome = iota
	// Queued: this servant is not attached to the tree; the item waits in
	// the outbox (kept across restarts) and goes out on attachment.
	Queued
	// Suppressed: nobody subscribes to the category, so nothing was sent.
	Suppressed
)
