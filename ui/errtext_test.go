package ui

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"testing"
	"time"

	"newsdesk/app"
	"newsdesk/categories"
	"newsdesk/imaging"
	"newsdesk/network"
	"newsdesk/news"
	"newsdesk/storage"
	"newsdesk/trust"
)

// knownErrors are errors a person can meet, as the packages below the
// interface return them (wrapped as they wrap them), one of each kind
// errorText knows.
func knownErrors() map[string]error {
	idErr := func(id string) error { return categories.ValidateNewID(id) }
	errs := map[string]error{
		"title too long":     fmt.Errorf("publishing: %w", &news.FieldError{Field: news.FieldTitle, Rule: news.RuleTooLong, Limit: news.MaxTitleRunes}),
		"title required":     &news.FieldError{Field: news.FieldTitle, Rule: news.RuleRequired},
		"title control":      &news.FieldError{Field: news.FieldTitle, Rule: news.RuleControlCharacter, At: 3},
		"body invalid UTF-8": &news.FieldError{Field: news.FieldBody, Rule: news.RuleInvalidUTF8},
		"body too long":      &news.FieldError{Field: news.FieldBody, Rule: news.RuleTooLong, Limit: 64 << 10},
		"expiry passed":      &news.FieldError{Field: news.FieldExpires, Rule: news.RulePast},
		"author":             &news.FieldError{Field: news.FieldAuthor, Rule: news.RuleControlCharacter, At: 3},
		"draft category":     app.CheckDraftCategory(nil, "Sales"),
		"system category":    app.CheckDraftCategory(nil, network.SystemCategories[0]),
		"display name long":  app.CheckDisplayName(strings.Repeat("x", news.MaxAuthorRunes+1), false),
		"display name empty": app.CheckDisplayName(" ", true),
		"display name ctrl":  app.CheckDisplayName("Ann\x1b", false),
		"seed malformed":     app.CheckSeeds([]string{"seed.example.com"}),
		"seed twice":         app.CheckSeeds([]string{"a.example.com:7400", "a.example.com:7400"}),
		"seed port":          app.CheckSeeds([]string{"a.example.com:0"}),
		"no seeds":           app.CheckSetupSeeds(app.Setup{}),
		"address":            app.CheckAddress("[::1"),
		"subscription":       fmt.Errorf("subscriptions: %w", idErr("a//b")),
		"category required":  idErr(""),
		"category long":      idErr(strings.Repeat("a", categories.MaxIDLen+1)),
		"category slash":     idErr("/a"),
		"category level":     idErr("a/-b"),
		"rate limited":       &app.LimitError{Reason: trust.RateLimited, RetryAfter: 90 * time.Second, Detail: "120 items an hour"},
		"late hour full":     &app.LimitError{Reason: trust.RateLimited, Detail: "120 items an hour"},
		"too large":          &app.LimitError{Reason: trust.TooLarge, Detail: "5 MiB"},
		"attachments large":  &app.LimitError{Reason: trust.TooLarge, Attachments: true, Limit: 5 << 20},
		"no attachments":     &app.LimitError{Reason: trust.TooLarge, Attachments: true},
		"attachments hour":   &app.LimitError{Reason: trust.RateLimited, RetryAfter: time.Minute, Attachments: true, Limit: 100 << 20},
		"not allowed":        &app.NotAllowedError{Category: "hr", Err: trust.UntrustedKey},
		"seeds unreachable":  &app.SeedsUnreachableError{Probes: []app.Probe{{Addr: "192.0.2.7:7400", Problem: "connection refused", Kind: app.ProbeRefused}}},
		"no seed":            &app.NoSeedError{Network: "acme"},
		"not authorized":     &app.NotAuthorizedError{},
		"invite code":        fmt.Errorf("%w: token: 3 bytes, want 16", trust.ErrBadInviteCode),
		"invite altered":     fmt.Errorf("%w: %w", trust.ErrBadInviteCode, trust.ErrInviteViaSignature),
		"invite unsealed":    trust.ErrInviteUnsealed,
		"empty audience":     news.ErrEmptyAudience,
		"damaged":            fmt.Errorf("opening: %w: %w", app.ErrDamagedInstallation, storage.ErrCorrupt),
		"audience malformed": audienceErr([]string{"10.1.4.0/22", "berlin"}),
		"audience too large": audienceErr(manyRanges(news.MaxAudienceRanges + 1)),
		"category no name":   categories.Category{ID: "it"}.Validate(),
		"category long name": categories.Category{ID: "it", Name: strings.Repeat("x", categories.MaxNameRunes+1)}.Validate(),
		"category title":     titlesErr(categories.Title{Lang: "de", Text: "a\tb"}),
		// Files a person chooses: a definition to import, a picture or a
		// file to attach.
		"definition missing":   definitionErr("/nonexistent-newsdesk/acme.newsdesk"),
		"definition folder":    definitionErr(os.TempDir()),
		"definition forbidden": fmt.Errorf("network definition: %w", &fs.PathError{Op: "open", Path: "/etc/acme.newsdesk", Err: fs.ErrPermission}),
		"definition not JSON":  parseErr([]byte("%PDF-1.7")),
		"definition too large": parseErr(make([]byte, trust.MaxDefinitionBytes+1)),
		"definition edited":    parseErr(bytes.Replace(signedDefinition(false), []byte(`{"network":`), []byte("{\n  \"network\": "), 1)),
		"definition signature": trust.VerifySelfSigned(mustParse(signedDefinition(true))),
		"definition outsider":  trust.VerifySelfSigned(signedByOutsider()),
		"picture format":       prepareErr([]byte("%PDF-1.7")),
		"picture damaged":      prepareErr([]byte{0xFF, 0xD8, 0xFF, 0xE0, 0, 16}),
		"picture too many":     imaging.ErrTooLarge,
		"attachment too large": &tooLargeError{Limit: maxFileRead},
	}
	for _, r := range []string{network.ReasonUnknown, network.ReasonRevoked, network.ReasonExpired, network.ReasonUsedUp,
		network.ReasonFingerprint, network.ReasonRevokedKey, network.ReasonNotAdmin, network.ReasonUnsigned,
		network.ReasonUnreachable, network.ReasonBusy, network.ReasonNoSeed} {
		errs["redeem "+r] = &network.RedeemError{Reason: r, Msg: "refused", Seed: "10.2.0.9:7400"}
	}
	for _, e := range []error{storage.ErrDiskFull, storage.ErrReadOnly, storage.ErrCorrupt, storage.ErrSchemaTooNew,
		app.ErrInUse, storage.ErrInUse, app.ErrClosed, app.ErrBusy, app.ErrTooManyScheduled, app.ErrItemNotFound,
		app.ErrNotFound, app.ErrBadItemID, app.ErrNotMustRead, app.ErrCatalogChanged, app.ErrLimitsChanged,
		app.ErrNamedAudiencesChanged, app.ErrPortInUse, app.ErrNoCensus, app.ErrNotRunning, app.ErrSeedsUnreachable,
		app.ErrNotAdmin, app.ErrUnknownInvitation, app.ErrRevokedMember, errNoNetwork, trust.ErrNotAdmin} {
		errs[e.Error()] = fmt.Errorf("doing it: %w", e)
	}
	return errs
}

// definitionErr is the error of reading path as the wizard does.
func definitionErr(path string) error {
	_, err := app.ReadNetworkFile(path)
	return err
}

// parseErr is the error of a definition file holding data, as
// app.ReadNetworkFile returns it.
func parseErr(data []byte) error {
	if _, err := trust.ParseSignedNetwork(data); err != nil {
		return fmt.Errorf("network definition acme.newsdesk: %w", err)
	}
	return nil
}

// signedDefinition is a network definition as an admin saves it;
// tampered, with a seed added after signing.
func signedDefinition(tampered bool) []byte {
	admin, err := trust.GenerateIdentity()
	if err != nil {
		panic(err)
	}
	sn, err := trust.NewNetwork("acme", admin, []string{"10.0.0.1:7400"}, false)
	if err != nil {
		panic(err)
	}
	if tampered {
		sn.Seeds = append(sn.Seeds, "192.0.2.66:7400")
	}
	data, err := sn.Marshal()
	if err != nil {
		panic(err)
	}
	return data
}

// signedByOutsider is a definition whose signer is none of its admins:
// its admin's network, signed by another key.
func signedByOutsider() *trust.SignedNetwork {
	sn := mustParse(signedDefinition(false))
	outsider, err := trust.GenerateIdentity()
	if err != nil {
		panic(err)
	}
	forged, err := outsider.SignNetwork(sn.Network.Clone())
	if err != nil {
		panic(err)
	}
	return forged
}

func mustParse(data []byte) *trust.SignedNetwork {
	sn, err := trust.ParseSignedNetwork(data)
	if err != nil {
		panic(err)
	}
	return sn
}

func prepareErr(data []byte) error {
	_, err := imaging.Prepare(data)
	return err
}

func audienceErr(ranges []string) error {
	_, err := news.ParseAudience(ranges)
	return err
}

func manyRanges(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("10.%d.%d.0/24", i>>8, i&255)
	}
	return out
}

func titlesErr(ts ...categories.Title) error {
	_, err := categories.NewTitles(ts)
	return err
}

// TestErrorTextKnown: every known error reads as a sentence of its own in
// each language, not as the generic one, and German and Japanese read no
// English: a translation missing would show the English text.
func TestErrorTextKnown(t *testing.T) {
	errs := knownErrors()
	english := map[string]string{}
	for name, err := range errs {
		if err == nil {
			t.Fatalf("%s: the example is no error", name)
		}
		text, ok := knownErrorText(err, nil)
		if !ok {
			t.Errorf("%s: %v is not known", name, err)
			continue
		}
		if text == "" || strings.Contains(text, err.Error()) {
			t.Errorf("%s: %q says the error's own English", name, text)
		}
		english[name] = text
	}
	for _, code := range []string{"de", "ja"} {
		t.Run(code, func(t *testing.T) {
			inLanguage(t, code)
			for name, err := range errs {
				text, ok := knownErrorText(err, nil)
				if !ok || text == "" || text == english[name] {
					t.Errorf("%s: %q in %s, in English %q", name, text, code, english[name])
				}
			}
		})
	}
}

// TestErrorTextUnknown: an error errorText does not know reads as a
// translated sentence with the English detail; the interface's own words
// (shownError) stay as they are.
func TestErrorTextUnknown(t *testing.T) {
	err := errors.New("disk on fire")
	for code, want := range map[string]string{
		"en": "An unexpected problem occurred (details in English: disk on fire).",
		"de": "Ein unerwartetes Problem ist aufgetreten (Einzelheiten auf Englisch: disk on fire).",
		"ja": "予期しない問題が発生しました（英語での詳細: disk on fire）。",
	} {
		inLanguage(t, code)
		if got := errorText(err); got != want {
			t.Errorf("%s: %q, want %q", code, got, want)
		}
	}
	if got := errorText(fmt.Errorf("saving: %w", shownError("Schon da."))); got != "Schon da." {
		t.Errorf("the interface's own words read %q", got)
	}
	if errorText(nil) != "" {
		t.Error("no error reads as something")
	}
}

// TestErrorTextValues: the values of an error are in its sentence, in
// the plural the count needs.
func TestErrorTextValues(t *testing.T) {
	for _, c := range []struct {
		code string
		err  error
		want string
	}{
		{"en", &app.LimitError{Reason: trust.RateLimited, RetryAfter: 61 * time.Second}, "try again in 2 minutes."},
		{"en", &app.LimitError{Reason: trust.RateLimited, RetryAfter: time.Second}, "try again in 1 second."},
		{"de", &app.LimitError{Reason: trust.RateLimited, RetryAfter: 90 * time.Minute}, "Versuchen Sie es in 2 Stunden noch einmal."},
		{"de", &app.LimitError{Reason: trust.RateLimited, RetryAfter: time.Minute}, "in 60 Sekunden"},
		{"ja", &app.LimitError{Reason: trust.RateLimited, RetryAfter: 5 * time.Minute}, "5 分後に"},
		{"en", &app.LimitError{Reason: trust.TooLarge, Attachments: true, Limit: 5 << 20}, "at most 5 MiB in all"},
		{"de", &app.LimitError{Reason: trust.TooLarge, Attachments: true, Limit: 5 << 20}, "höchstens 5 MiB insgesamt"},
		{"en", &app.LimitError{Reason: trust.RateLimited, RetryAfter: time.Hour, Attachments: true, Limit: 100 << 20}, "for this hour (100 MiB): try again in 60 minutes."},
		{"en", app.ErrTooManyScheduled, fmt.Sprintf("%d posts wait", app.MaxScheduled)},
		{"de", app.CheckSeeds([]string{"a:1", "b", "a:1"}), "Seed 2: b ist keine Adresse der Form host:port: der Port fehlt."},
		{"de", app.CheckSeeds([]string{"a:1", "a:1"}), "Seed 2 (a:1) steht zweimal in der Liste."},
		{"ja", categories.ValidateNewID("Sales"), "カテゴリ ID「Sales」に「S」は使えません。"},
		{"de", titlesErr(categories.Title{Lang: "de", Text: "a\tb"}), "Bezeichnung in de: ein Steuerzeichen (ein Tabulator oder ein Zeilenumbruch) bei Byte 1."},
		{"en", audienceErr([]string{"berlin"}), `"berlin" is not a network range such as 10.1.4.0/24.`},
		{"de", app.CheckDisplayName(strings.Repeat("x", news.MaxAuthorRunes+1), false), fmt.Sprintf("höchstens %d Zeichen", news.MaxAuthorRunes)},
		{"de", &app.NotAllowedError{Category: "hr", Err: trust.RevokedKey}, "in „hr“ veröffentlichen"},
		{"en", &network.RedeemError{Reason: network.ReasonUnreachable, Msg: "the admin's servant cannot be reached", Seed: "10.2.0.9:7400"},
			"The seed cannot reach the servant of the admin who made the invitation: try again later. (Newsdesk asked 10.2.0.9:7400.)"},
		{"de", &network.RedeemError{Reason: network.ReasonExpired, Seed: "10.2.0.9:7400"}, "Diese Einladung ist abgelaufen. Bitten Sie einen Admin um eine neue Einladung. (Newsdesk hat 10.2.0.9:7400 gefragt.)"},
	} {
		inLanguage(t, c.code)
		if got := errorText(c.err); !strings.Contains(got, c.want) {
			t.Errorf("%s: %v reads %q, want %q in it", c.code, c.err, got, c.want)
		}
	}
}

// A draft the network refuses reads in German when the interface speaks
// German, in the outcome and at its field; and so does a rule Compose
// checks itself.
func TestRefusedDraftInGerman(t *testing.T) {
	inLanguage(t, "de")
	b := newFake(t)
	h, c := composeHarness(t, b)
	chooseCategory(c, "it")
	h.typeInto(c.title, "Wartung")
	h.typeInto(c.body, "Heute Abend.")

	b.publishErr = fmt.Errorf("publishing: %w", &app.LimitError{Reason: trust.TooLarge, Detail: "5 MiB"})
	h.tap(c.publish)
	if want := "Nicht veröffentlicht: Die Meldung ist größer, als das Netzwerk in dieser Kategorie erlaubt: Kürzen Sie sie."; c.outcome.Text != want {
		t.Errorf("outcome %q, want %q", c.outcome.Text, want)
	}

	b.publishErr = fmt.Errorf("publishing: %w", &news.FieldError{Field: news.FieldCategory, Rule: news.RuleInvalidCategory,
		Err: categories.ValidateNewID("it/-x")})
	h.tap(c.publish)
	want := "Jede Ebene der Kategorie-ID „it/-x“ muss mit einem Buchstaben oder einer Ziffer beginnen."
	if c.outcome.Text != "Nicht veröffentlicht: "+want || !hasLabel(h.win.Content(), want) {
		t.Errorf("outcome %q, labels %q", c.outcome.Text, labels(h.win.Content()))
	}

	b.publishErr = nil
	refused := len(b.drafts)
	c.title.SetText(strings.Repeat("x", news.MaxTitleRunes+1))
	h.tap(c.publish)
	if want := fmt.Sprintf("Der Titel ist zu lang: höchstens %d Zeichen.", news.MaxTitleRunes); !hasLabel(h.win.Content(), want) {
		t.Errorf("no %q in %q", want, labels(h.win.Content()))
	}
	if len(b.drafts) != refused {
		t.Errorf("a title too long was published")
	}
}
