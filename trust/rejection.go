package trust

import "errors"

// Rejection is the reason an item, a correction or a retraction is refused.
// The values are short camelCase words, stable, fit for JSON keys of the
// per-reason drop counters in /v1/status and for "logged once per peer and
// reason".
//
// A Rejection is an error itself, and the errors this package returns for a
// refused item wrap one, so both of these work:
//
//	errors.Is(err, trust.BadSignature)
//	counts[trust.ReasonOf(err)]++
type Rejection string

const (
	// Invalid: the item or retraction breaks its own format rules (a field
	// too long, no ID, …), so there is no canonical encoding to verify.
	Invalid Rejection = "invalid"
	// Unsigned: the item (or retraction) carries no signature.
	Unsigned Rejection = "unsigned"
	// BadSignature: the signature blob is malformed or does not verify for
	// the key it names (forged or tampered).
	BadSignature Rejection = "badSignature"
	// UntrustedKey: a valid signature by a key the network definition does
	// not list as a publisher or admin (and publishing is not open).
	UntrustedKey Rejection = "untrustedKey"
	// RevokedKey: a valid signature by a key the definition revokes.
	RevokedKey Rejection = "revokedKey"
	// CategoryNotAllowed: a trusted publisher outside its categories.
	CategoryNotAllowed Rejection = "categoryNotAllowed"
	// NotAuthorized: a correction or retraction by a key that is neither the
	// original item's publisher nor an admin.
	NotAuthorized Rejection = "notAuthorized"
	// UnknownItem: a retraction by a non-admin key of an item this servant
	// does not hold, so whether the key published it cannot be decided yet.
	// The caller may keep it and check again when the item arrives.
	UnknownItem Rejection = "unknownItem"
	// Mismatch: a correction or retraction checked against an item it does
	// not refer to (a caller error rather than an attack).
	Mismatch Rejection = "mismatch"
	// ForeignSource: a valid signature by a key that does not own the
	// item's source (SourceOwnedBy): an item labelled as another
	// installation's, whatever the key may otherwise publish.
	ForeignSource Rejection = "foreignSource"
	// AheadOfChain: a network definition signed by one of its own admins
	// but not by an admin of the definition held, with versions between
	// them not seen yet. The caller may hold it until they arrive.
	AheadOfChain Rejection = "aheadOfChain"
)

// Rejections returns every reason, for initialising counters so that a
// status report shows zeros rather than missing keys.
func Rejections() []Rejection {
	return []Rejection{Invalid, Unsigned, BadSignature, UntrustedKey, RevokedKey, CategoryNotAllowed, NotAuthorized, UnknownItem, Mismatch, ForeignSource, AheadOfChain, RateLimited, TooLarge}
}

func (r Rejection) Error() string { return string(r) }

// RejectionError is a refusal with the reason and a human-readable detail
// for the log ("key ed25519:… may not publish in \"hr\"").
type RejectionError struct {
	Reason Rejection
	Detail string
}

func (e *RejectionError) Error() string {
	if e.Detail == "" {
		return string(e.Reason)
	}
	return string(e.Reason) + ": " + e.Detail
}

// Unwrap returns the Reason, so errors.Is(err, trust.UntrustedKey) works.
func (e *RejectionError) Unwrap() error { return e.Reason }

func reject(r Rejection, detail string) error { return &RejectionError{Reason: r, Detail: detail} }

// ReasonOf returns the Rejection err carries, or "" when err is nil or not a
// refusal of this package.
func ReasonOf(err error) Rejection {
	var r Rejection
	if errors.As(err, &r) {
		return r
	}
	return ""
}
