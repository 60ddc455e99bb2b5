package ui

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"time"

	"fyne.io/fyne/v2/lang"

	"newsdesk/app"
	"newsdesk/categories"
	"newsdesk/imaging"
	"newsdesk/network"
	"newsdesk/news"
	"newsdesk/newsnet"
	"newsdesk/storage"
	"newsdesk/trust"
)

// Errors reach people in their language: the packages below the interface
// (app, news, network, storage, trust, categories) say what went wrong in
// English, for logs, the command line and the control API, and give the
// errors a person can meet an identity (a sentinel, or a typed error with
// its values). errorText turns those into a sentence of the interface's
// language; every error the interface shows goes through it. An error it
// does not know reads as a translated sentence with the English detail,
// so that nothing is lost, and errtext_test.go checks that each known one
// reads in every language without English.

// errorText says err in the interface's language: a sentence, with a
// capital letter and a full stop, fit to follow "Not published: ". A
// category it names is named by its ID: where the interface holds the
// catalog, catalogErrorText names it as the reader knows it.
func errorText(err error) string { return catalogErrorText(err, nil) }

// catalogErrorText is errorText naming a category by its title in cat in
// the interface's language (categoryName, with the catalog's fallback to
// the name), as every other screen names it; by its ID when cat is nil or
// does not hold the category.
func catalogErrorText(err error, cat *categories.Catalog) string {
	if err == nil {
		return ""
	}
	if text, ok := knownErrorText(err, cat); ok {
		return text
	}
	if e, ok := errors.AsType[shownError](err); ok {
		return string(e)
	}
	if e, ok := errors.AsType[*editConflict](err); ok {
		return e.Error() // the problems, worded by the editor
	}
	return fmt.Sprintf(lang.L("An unexpected problem occurred (details in English: %s)."), err.Error())
}

// knownErrorText is catalogErrorText for the errors it knows; false for
// others. The most specific comes first: an item's field error may wrap a
// category ID's, a seed's an address's.
func knownErrorText(err error, cat *categories.Catalog) (string, bool) {
	if fe, ok := errors.AsType[*news.FieldError](err); ok {
		if p, ok := fieldProblem(fe); ok {
			return p.text, true
		}
	}
	if e, ok := errors.AsType[*app.DisplayNameError](err); ok {
		return displayNameText(e.Rule, e.Limit), true
	}
	if e, ok := errors.AsType[*app.SeedError](err); ok {
		if e.Twice {
			return fmt.Sprintf(lang.L("Seed %d (%s) is listed twice."), e.Index, e.Addr), true
		}
		return fmt.Sprintf(lang.L("Seed %d: %s is not a host:port address: %s."), e.Index, e.Addr, addrProblem(e.Err)), true
	}
	if e, ok := errors.AsType[*categories.IDError](err); ok {
		return categoryIDText(e), true
	}
	if e, ok := errors.AsType[*categories.TextError](err); ok {
		return categoryTextText(e), true
	}
	if e, ok := errors.AsType[*app.AddrError](err); ok {
		return fmt.Sprintf(lang.L("%s is not a host:port address: %s."), e.Addr, addrReasonText(e.Reason)), true
	}
	if e, ok := errors.AsType[*newsnet.AddrError](err); ok {
		return fmt.Sprintf(lang.L("%s is not a host:port address: %s."), e.Addr, addrReasonText(e.Reason)), true
	}
	if e, ok := errors.AsType[*news.RangeError](err); ok {
		return fmt.Sprintf(lang.L("%q is not a network range such as 10.1.4.0/24."), e.Range), true
	}
	if _, ok := errors.AsType[*news.AudienceSizeError](err); ok {
		return fmt.Sprintf(lang.N("An audience names at most %d network ranges.", news.MaxAudienceRanges), news.MaxAudienceRanges), true
	}
	if e, ok := errors.AsType[*app.LimitError](err); ok {
		switch {
		case e.Attachments && e.Reason == trust.TooLarge && e.Limit == 0:
			return lang.L("The network allows no attachments in this category: remove them."), true
		case e.Attachments && e.Reason == trust.TooLarge:
			return fmt.Sprintf(lang.L("The attachments are larger than the network allows in this category: at most %s in all. Remove some."), formatBytes(e.Limit)), true
		case e.Attachments && e.RetryAfter > 0:
			return fmt.Sprintf(lang.L("This computer has published the network's limit of attachments for this hour (%s): try again in %s."), formatBytes(e.Limit), waitText(e.RetryAfter)), true
		case e.Reason == trust.TooLarge:
			return lang.L("The item is larger than the network allows in this category: shorten it."), true
		case e.RetryAfter == 0:
			return lang.L("The network's publishing limit for this hour is reached: publish it later."), true
		}
		return fmt.Sprintf(lang.L("This computer has reached the network's publishing limit: try again in %s."), waitText(e.RetryAfter)), true
	}
	if e, ok := errors.AsType[*app.NotAllowedError](err); ok {
		return fmt.Sprintf(lang.L("This installation may not publish in “%s”: an admin has to add its key to the network's publishers."), categoryName(cat, e.Category)), true
	}
	if e, ok := errors.AsType[*app.SeedsUnreachableError](err); ok && len(e.Probes) > 0 {
		tried := make([]string, len(e.Probes))
		for i, p := range e.Probes {
			tried[i] = p.Addr + " (" + probeProblemText(p) + ")"
		}
		return fmt.Sprintf(lang.L("No seed of the network answers (tried %s), so whoever joins would wait alone. Start a seed, or correct the seed list under Admin › Seeds."), strings.Join(tried, ", ")), true
	}
	if e, ok := errors.AsType[*network.RedeemError](err); ok {
		if text := redeemText(e.Reason); text != "" && e.Seed != "" {
			return fmt.Sprintf(lang.L("%s (Newsdesk asked %s.)"), text, e.Seed), true
		} else if text != "" {
			return text, true
		}
	}
	if _, ok := errors.AsType[*app.NotAuthorizedError](err); ok {
		return lang.L("You may not retract this item: only its publisher or an admin may."), true
	}
	if e, ok := errors.AsType[*tooLargeError](err); ok {
		return fmt.Sprintf(lang.L("The file is larger than %s, the most Newsdesk reads to attach it."), formatBytes(e.Limit)), true
	}
	for _, s := range sentinelTexts() {
		if errors.Is(err, s.err) {
			return s.text, true
		}
	}
	// Last: a file chosen by name (a definition to import, a file to
	// attach) that is not there or not readable. Newsdesk's own files
	// fail as the store's errors above.
	if e, ok := errors.AsType[*fs.PathError](err); ok {
		switch {
		case errors.Is(e, fs.ErrNotExist):
			return fmt.Sprintf(lang.L("There is no file %s."), e.Path), true
		case errors.Is(e, fs.ErrPermission):
			return fmt.Sprintf(lang.L("Newsdesk may not read the file %s."), e.Path), true
		case errors.Is(e, app.ErrFolder):
			return fmt.Sprintf(lang.L("%s is a folder: choose a file in it."), e.Path), true
		}
	}
	return "", false
}

// sentinelTexts are the texts of the errors that carry no values, in the
// order errorText tries them (a damaged installation wraps the store's
// error).
func sentinelTexts() []struct {
	err  error
	text string
} {
	return []struct {
		err  error
		text string
	}{
		{app.ErrDamagedInstallation, lang.L("Newsdesk's store is damaged or missing: restore it from a backup, or start with an empty store.")},
		{storage.ErrDiskFull, lang.L("The disk is full: free some space on this computer, then try again.")},
		{storage.ErrReadOnly, lang.L("Newsdesk's data directory is read-only, so nothing can be saved.")},
		{storage.ErrCorrupt, lang.L("Newsdesk's store is damaged: restore it from a backup.")},
		{storage.ErrSchemaTooNew, lang.L("Newsdesk's store was written by a newer version of Newsdesk: install that version again.")},
		{app.ErrInUse, lang.L("Another Newsdesk uses this data directory already: close it first.")},
		{storage.ErrInUse, lang.L("Another Newsdesk uses this data directory already: close it first.")},
		{app.ErrClosed, lang.L("Newsdesk is shutting down.")},
		{storage.ErrClosed, lang.L("Newsdesk is shutting down.")},
		{app.ErrBusy, lang.L("Newsdesk is busy, and nothing was stored: try again in a moment.")},
		{app.ErrTooManyScheduled, fmt.Sprintf(lang.N("%d posts wait for their time already: cancel some, or publish now.", app.MaxScheduled), app.MaxScheduled)},
		{app.ErrItemNotFound, lang.L("This item is not here any more.")},
		{app.ErrNotFound, lang.L("This item is not here any more.")},
		{app.ErrBadItemID, lang.L("That is not the ID of an item.")},
		{app.ErrNotMustRead, lang.L("This item asks nobody to confirm it.")},
		{app.ErrCatalogChanged, lang.L("Another admin changed the catalog meanwhile: look at their changes, then save again.")},
		{app.ErrLimitsChanged, lang.L("Another admin changed the publishing limits meanwhile: look at their changes, then save again.")},
		{app.ErrNamedAudiencesChanged, lang.L("Another admin changed the named ranges meanwhile: look at their changes, then save again.")},
		{app.ErrPortInUse, lang.L("The port is in use on this computer, perhaps by another Newsdesk: choose another port.")},
		{app.ErrNoCensus, lang.L("The network's census has not reached this computer yet: try again in a minute.")},
		{app.ErrNotRunning, lang.L("This computer's servant is not running, so nobody could join through it: wait until it runs, then try again.")},
		{app.ErrNoSeed, lang.L("The network lists no seed, so whoever joins would have nowhere to connect: add one under Admin › Seeds.")},
		{app.ErrSeedsUnreachable, lang.L("No seed of the network answers, so whoever joins would wait alone. Start a seed, or correct the seed list under Admin › Seeds.")},
		{app.ErrNoSeeds, lang.L("Enter at least one seed, or start a new network.")},
		{app.ErrNotAdmin, lang.L("Only an admin of the network can manage invitations.")},
		{app.ErrUnknownInvitation, lang.L("There is no such invitation.")},
		{app.ErrRevokedMember, lang.L("This installation's key is revoked in the network.")},
		{errNoNetwork, lang.L("This installation holds no network definition yet.")},
		{trust.ErrSignedByOutsider, lang.L("The network definition is signed by someone who is not one of its admins: ask your administrator for the file again.")},
		{trust.ErrNotAdmin, lang.L("This installation is not an admin of the network (any more).")},
		{network.ErrSystemCategory, lang.L("That is a system group of the network, not a news category: nobody may publish there.")},
		{news.ErrEmptyAudience, lang.L("The audience names no network range: leave it empty to reach everyone.")},
		{trust.ErrInviteViaSignature, lang.L("The invitation code was altered: the admin who made it did not sign its addresses. Ask an admin for a new invitation.")},
		{trust.ErrInviteSeal, lang.L("The invitation code was altered: the admin who made it did not sign its addresses. Ask an admin for a new invitation.")},
		{trust.ErrInviteViaNotAdmin, lang.L("The invitation was not made by an admin of this network. Ask an admin for a new invitation.")},
		{trust.ErrInviteUnsealed, lang.L("The invitation code is cut off, or was made by an older Newsdesk. Ask an admin for a new invitation.")},
		{trust.ErrBadInviteCode, fmt.Sprintf(lang.L("This is not a Newsdesk invitation code (those start with %s): paste the whole code."), trust.InviteScheme)},
		{trust.ErrDefinitionTooLarge, lang.L("The file is larger than a network definition can be: choose the definition file your administrator gave you.")},
		{trust.ErrMalformedDefinition, lang.L("The file is not a Newsdesk network definition, or it is damaged: choose the definition file your administrator gave you.")},
		{trust.ErrDefinitionEdited, lang.L("The network definition was edited by hand, which its signature forbids: ask your administrator for the file again.")},
		{trust.ErrBadSignature, lang.L("The network definition's signature does not match its content: it was changed after an admin signed it. Ask your administrator for the file again.")},
		{imaging.ErrFormat, lang.L("Newsdesk shows JPEG, PNG and GIF pictures only: attach this one as a file instead.")},
		{imaging.ErrTooLarge, fmt.Sprintf(lang.L("The picture has more than %d megapixels: make it smaller first."), imaging.MaxPixels>>20)},
		{imaging.ErrDamaged, lang.L("The picture is damaged or cut off, so it cannot be read.")},
	}
}

// displayNameText says what is wrong with a display name: the item rule
// it breaks, with the limit of RuleTooLong in characters.
func displayNameText(rule news.Rule, limit int) string {
	switch rule {
	case news.RuleRequired:
		return lang.L("Enter your display name.")
	case news.RuleTooLong:
		return fmt.Sprintf(lang.L("The display name is too long: at most %d characters."), limit)
	case news.RuleInvalidUTF8:
		return lang.L("The display name is not valid text: type it again.")
	case news.RuleControlCharacter:
		return lang.L("The display name cannot contain control characters.")
	}
	return lang.L("The display name is not valid.")
}

// categoryIDText says what is wrong with a category ID.
func categoryIDText(e *categories.IDError) string {
	switch e.Problem {
	case categories.IDRequired:
		return lang.L("Enter a category ID.")
	case categories.IDTooLong:
		return fmt.Sprintf(lang.N("The category ID is too long: at most %d characters.", categories.MaxIDLen), categories.MaxIDLen)
	case categories.IDLeadingSlash, categories.IDTrailingSlash:
		return fmt.Sprintf(lang.L("The category ID “%s” may not start or end with “/”."), e.ID)
	case categories.IDEmptyLevel:
		return fmt.Sprintf(lang.L("The category ID “%s” has an empty level (“//”)."), e.ID)
	case categories.IDInvalidCharacter:
		return fmt.Sprintf(lang.L("The category ID “%s” may not hold “%c”: use the small letters a to z, digits, “-” and “/” between levels."), e.ID, rune(e.ID[e.At]))
	case categories.IDLevelStart:
		return fmt.Sprintf(lang.L("Each level of the category ID “%s” must start with a letter or a digit."), e.ID)
	}
	return fmt.Sprintf(lang.L("“%s” is not a valid category ID."), e.ID)
}

// addrReasonText is why an address was refused (newsnet's AddrError's
// Reason: Go's net package's words, or newsnet's), in the interface's
// language; a reason it does not know stays as it is.
func addrReasonText(reason string) string {
	switch reason {
	case "missing port in address":
		return lang.L("missing port in address")
	case "too many colons in address":
		return lang.L("too many colons in address (write an IPv6 address in brackets: [2001:db8::1]:7600)")
	case "missing ']' in address", "unexpected '[' in address", "unexpected ']' in address":
		return lang.L("the brackets around the IPv6 address do not match")
	case "missing host":
		return lang.L("missing host")
	case "port must be 1..65535":
		return lang.L("the port must be a number from 1 to 65535")
	}
	return reason
}

// redeemText says why an invitation was refused, for the joiner; "" for a
// reason that only the log can explain.
func redeemText(reason string) string {
	switch reason {
	case network.ReasonUnknown, network.ReasonWrongToken:
		return lang.L("The network does not know this invitation. Ask an admin for a new invitation.")
	case network.ReasonRevoked:
		return lang.L("An admin revoked this invitation. Ask an admin for a new invitation.")
	case network.ReasonExpired:
		return lang.L("This invitation has expired. Ask an admin for a new invitation.")
	case network.ReasonUsedUp:
		return lang.L("This invitation has been used as often as it may be. Ask an admin for a new invitation.")
	case network.ReasonFingerprint:
		return lang.L("The seed of this invitation belongs to another network now. Ask an admin for a new invitation.")
	case network.ReasonRevokedKey:
		return lang.L("This installation's key is revoked in the network.")
	case network.ReasonNotAdmin, network.ReasonViaUnsigned:
		return lang.L("The invitation was not made by an admin of this network. Ask an admin for a new invitation.")
	case network.ReasonUnsigned:
		return lang.L("The invitation code was altered: the admin who made it did not sign its addresses. Ask an admin for a new invitation.")
	case network.ReasonUnreachable:
		return lang.L("The seed cannot reach the servant of the admin who made the invitation: try again later.")
	case network.ReasonBusy:
		return lang.L("The network is busy with other newcomers: try again in a minute.")
	case network.ReasonNoSeed:
		return lang.L("No computer of the invitation answers: check this computer's network connection, or try again later.")
	}
	return ""
}

// otherFieldText says an item rule a draft breaks for the fields and rules
// Compose has no words of its own for.
func otherFieldText(fe *news.FieldError) string {
	if fe.Err != nil && (fe.Rule == news.RuleInvalidCategory || fe.Rule == news.RuleInvalidRange) {
		return errorText(fe.Err)
	}
	if fe.Field == news.FieldAuthor {
		return displayNameText(fe.Rule, fe.Limit)
	}
	field := fieldName(fe.Field)
	if text, ok := textRuleText(field, fe.Rule, fe.Limit, fe.At); ok {
		return text
	}
	switch fe.Rule {
	case news.RuleInvalidCategory:
		return lang.L("Choose a category.")
	case news.RuleInvalidRange:
		return fmt.Sprintf(lang.L("%s: not a list of network ranges."), field)
	case news.RuleNotAfter:
		return fmt.Sprintf(lang.L("%s: too early."), field)
	case news.RulePast:
		return fmt.Sprintf(lang.L("%s: the time has passed."), field)
	}
	// Rules a draft cannot break (an ID, a signature).
	return fmt.Sprintf(lang.L("An unexpected problem occurred (details in English: %s)."), fe.Error())
}

// textRuleText says the rules every text breaks the same way, with the
// name of the field (Title): empty, too long (at most limit characters),
// not UTF-8, a control character at byte at; false for other rules.
func textRuleText(field string, rule news.Rule, limit, at int) (string, bool) {
	switch rule {
	case news.RuleRequired:
		return fmt.Sprintf(lang.L("%s: required."), field), true
	case news.RuleTooLong:
		return fmt.Sprintf(lang.N("%s: too long, at most %d characters.", limit), field, limit), true
	case news.RuleInvalidUTF8:
		return fmt.Sprintf(lang.L("%s: not valid text (it holds bytes that are no characters)."), field), true
	case news.RuleControlCharacter:
		return fmt.Sprintf(lang.L("%s: a control character (a tab or a line break) at byte %d."), field, at), true
	}
	return "", false
}

// categoryTextText says what is wrong with a category's name,
// description or title.
func categoryTextText(e *categories.TextError) string {
	field := e.Field
	switch {
	case field == "name":
		field = lang.L("Name")
	case field == "description":
		field = lang.L("Description")
	case strings.HasPrefix(field, "title (") && strings.HasSuffix(field, ")"):
		field = fmt.Sprintf(lang.L("Title in %s"), strings.TrimSuffix(strings.TrimPrefix(field, "title ("), ")"))
	}
	rule := map[categories.TextProblem]news.Rule{
		categories.TextRequired: news.RuleRequired, categories.TextTooLong: news.RuleTooLong,
		categories.TextInvalidUTF8: news.RuleInvalidUTF8, categories.TextControlCharacter: news.RuleControlCharacter,
	}[e.Problem]
	if text, ok := textRuleText(field, rule, e.Limit, e.At); ok {
		return text
	}
	return fmt.Sprintf(lang.L("An unexpected problem occurred (details in English: %s)."), e.Error())
}

// fieldName is how the interface names an item's field.
func fieldName(f news.Field) string {
	switch f {
	case news.FieldCategory:
		return lang.L("Category")
	case news.FieldTitle:
		return lang.L("Title")
	case news.FieldBody:
		return lang.L("Text")
	case news.FieldAuthor:
		return lang.L("Display name")
	case news.FieldAt:
		return lang.L("Publish at")
	case news.FieldExpires:
		return lang.L("Expires")
	case news.FieldAudience:
		return lang.L("Audience")
	}
	return f.String()
}

// waitText is how long to wait, rounded up to a second, a minute or an
// hour.
func waitText(d time.Duration) string {
	switch {
	case d <= time.Minute:
		n := max(1, int((d+time.Second-1)/time.Second))
		return fmt.Sprintf(lang.N("%d seconds", n), n)
	case d <= time.Hour:
		n := int((d + time.Minute - 1) / time.Minute)
		return fmt.Sprintf(lang.N("%d minutes", n), n)
	}
	n := int((d + time.Hour - 1) / time.Hour)
	return fmt.Sprintf(lang.N("%d hours", n), n)
}

// shownError is an error the interface made and worded itself, in the
// interface's language: errorText shows it as it is.
type shownError string

func (e shownError) Error() string { return string(e) }

// shownErrorf is fmt.Errorf for an error the interface words itself:
// format is a translation (lang.L).
func shownErrorf(format string, args ...any) error {
	return shownError(fmt.Sprintf(format, args...))
}
