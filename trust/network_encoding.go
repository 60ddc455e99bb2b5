package trust

import (
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/google/uuid"

	"newsdesk/categories"
)

// The canonical encoding: compact JSON, members in the order below, every
// member present (empty lists as [], never null), keys as "ed25519:…" text
// (PublicKeyString), the secret and signatures as unpadded base64url, the
// catalog as categories.Catalog.Marshal writes it. Lists are sorted as
// Validate requires, seeds are in priority order. One definition has
// exactly one encoding, and ParseSignedNetwork accepts exactly that
// encoding (plus or minus a final newline), nothing looser. The golden test
// pins it: changing it invalidates every signed definition in the field.
// After the members this release knows, a definition signed on a newer
// release may carry members it does not know, kept as received (newer.go).
//
//	{"network":{"id":…,"name":…,"version":…,"admins":[…],"seeds":[…],
//	 "catalog":{…},"publishers":[{"name":…,"key":…,"categories":[…]}],
//	 "revoked":[…],"fanout":…,"secret":…,"openPublishing":…,
//	 "audiences":[{"name":…,"ranges":[…]}],"leafCapacity":…,
//	 "publishLimits":{…},"categoryTitles":{"sales":{"de":…,"ja":…}},
//	 "attachmentLimits":{…}},
//	 "signer":"ed25519:…","signature":"…"}
//
// "audiences", "leafCapacity", "publishLimits", "categoryTitles" and
// "attachmentLimits" are left out when empty, 0 or all defaults (and
// refused when present so): definitions signed before they existed
// encode, and so verify, exactly as they did (audiences.go).
//
// The signature is over networkDomain followed by the bytes of the
// "network" member.
type networkDoc struct {
	ID             string            `json:"id"`
	Name           string            `json:"name"`
	Version        uint64            `json:"version"`
	Admins         []string          `json:"admins"`
	Seeds          []string          `json:"seeds"`
	Catalog        json.RawMessage   `json:"catalog"`
	Publishers     []publisherDoc    `json:"publishers"`
	Revoked        []string          `json:"revoked"`
	Fanout         int               `json:"fanout"`
	Secret         string            `json:"secret"`
	OpenPublishing bool              `json:"openPublishing"`
	Audiences      []namedRangeDoc   `json:"audiences,omitempty"`
	LeafCapacity   int               `json:"leafCapacity,omitempty"`
	PublishLimits  *publishLimitsDoc `json:"publishLimits,omitempty"`
	// CategoryTitles are the catalog's titles per language
	// (categories.Catalog.MarshalTitles). A member of its own, after
	// every member releases before it know, rather than a field of the
	// catalog's categories: those releases refuse a catalog with members
	// they do not know, and so would refuse the whole definition; this
	// way they keep it as a member of a newer release (newer.go), verify
	// it, pass it on and show the categories' names.
	CategoryTitles json.RawMessage `json:"categoryTitles,omitempty"`
	// AttachmentLimits are PublishLimits' attachment limits: a member of
	// their own, after every member releases before them know, for the
	// same reason as CategoryTitles (attachlimits.go).
	AttachmentLimits *attachmentLimitsDoc `json:"attachmentLimits,omitempty"`
}

type publisherDoc struct {
	Name       string   `json:"name"`
	Key        string   `json:"key"`
	Categories []string `json:"categories"`
}

type signedDoc struct {
	Network   json.RawMessage `json:"network"`
	Signer    string          `json:"signer"`
	Signature string          `json:"signature"`
}

var b64 = base64.RawURLEncoding.Strict()

func keyStrings(keys []ed25519.PublicKey) []string {
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = PublicKeyString(k)
	}
	return out
}

// marshalNetwork returns the canonical JSON of a valid definition.
func (n *Network) marshalNetwork() ([]byte, error) {
	if err := n.Validate(); err != nil {
		return nil, err
	}
	cat, err := n.Catalog.Marshal()
	if err != nil {
		return nil, fmt.Errorf("network definition: catalog: %w", err)
	}
	titles, err := n.Catalog.MarshalTitles()
	if err != nil {
		return nil, fmt.Errorf("network definition: %w", err)
	}
	pubs := make([]publisherDoc, len(n.Publishers))
	for i, p := range n.Publishers {
		cats := p.Categories
		if cats == nil {
			cats = []string{}
		}
		pubs[i] = publisherDoc{Name: p.Name, Key: PublicKeyString(p.Key), Categories: cats}
	}
	seeds := n.Seeds
	if seeds == nil {
		seeds = []string{}
	}
	doc, err := json.Marshal(networkDoc{
		ID:             n.ID.String(),
		Name:           n.Name,
		Version:        n.Version,
		Admins:         keyStrings(n.Admins),
		Seeds:          seeds,
		Catalog:        cat,
		Publishers:     pubs,
		Revoked:        keyStrings(n.Revoked),
		Fanout:         n.Fanout,
		Secret:         b64.EncodeToString(n.Secret),
		OpenPublishing: n.OpenPublishing,
		Audiences:      namedRangeDocs(n.Audiences),
		LeafCapacity:   n.LeafCapacity,
		PublishLimits:  publishLimitsDocOf(n.Limits),
		CategoryTitles: titles,

		AttachmentLimits: attachmentLimitsDocOf(n.Limits),
	})
	if err != nil {
		return nil, err
	}
	return appendNewer(doc, n.newer), nil
}

func (n *Network) signingBytes() ([]byte, error) {
	doc, err := n.marshalNetwork()
	if err != nil {
		return nil, err
	}
	return append([]byte(networkDomain), doc...), nil
}

// Marshal returns the canonical encoding of the signed definition, ending
// in a newline (it is also the definition file's content).
func (sn *SignedNetwork) Marshal() ([]byte, error) {
	doc, err := sn.marshalNetwork()
	if err != nil {
		return nil, err
	}
	if len(sn.Signer) != ed25519.PublicKeySize {
		return nil, fmt.Errorf("network definition: signer: key of %d bytes, want %d", len(sn.Signer), ed25519.PublicKeySize)
	}
	if len(sn.Signature) != ed25519.SignatureSize {
		return nil, fmt.Errorf("network definition: signature: %d bytes, want %d", len(sn.Signature), ed25519.SignatureSize)
	}
	out, err := json.Marshal(signedDoc{Network: doc, Signer: PublicKeyString(sn.Signer), Signature: b64.EncodeToString(sn.Signature)})
	if err != nil {
		return nil, fmt.Errorf("network definition: %w", err)
	}
	if len(out)+1 > MaxDefinitionBytes {
		return nil, fmt.Errorf("network definition: larger than %d bytes", MaxDefinitionBytes)
	}
	return append(out, '\n'), nil
}

// What ParseSignedNetwork's errors match (errors.Is), for a person who
// chose a file that is none: their own text says what is wrong in detail.
var (
	// ErrMalformedDefinition: the data is not a network definition in
	// newsdesk's form (not JSON, members missing or unknown, values out of
	// bounds, too large): another file, or a damaged one.
	ErrMalformedDefinition = errors.New("not a network definition")
	// ErrDefinitionTooLarge: the data is larger than MaxDefinitionBytes
	// (it matches ErrMalformedDefinition too, from ParseSignedNetwork).
	ErrDefinitionTooLarge = fmt.Errorf("larger than %d bytes", MaxDefinitionBytes)
	// ErrDefinitionEdited: a definition, but not in the one form newsdesk
	// writes: it was edited by hand, which a signed document must not be.
	ErrDefinitionEdited = errors.New("network definition: not in canonical form (a definition is written by newsdesk and must not be edited by hand)")
)

// malformedError is why data is not a definition, in its own words, and
// an ErrMalformedDefinition.
type malformedError struct{ err error }

func (e malformedError) Error() string        { return e.err.Error() }
func (e malformedError) Unwrap() error        { return e.err }
func (e malformedError) Is(target error) bool { return target == ErrMalformedDefinition }

// ParseSignedNetwork decodes a signed definition. It checks form only:
// unknown or missing members, trailing data, bad sizes, invalid fields
// (errors matching ErrMalformedDefinition) and any encoding other than the
// canonical one (ErrDefinitionEdited) are errors. It does NOT check the
// signature or who signed: call Accept (a definition received while
// holding one) or VerifySelfSigned (the first one, imported) before using
// the result.
func ParseSignedNetwork(data []byte) (*SignedNetwork, error) {
	sn, err := parseSignedNetwork(data)
	if err != nil {
		return nil, fmt.Errorf("network definition: %w", malformedError{err})
	}
	canon, err := sn.Marshal()
	if err != nil {
		return nil, err
	}
	if !bytes.Equal(data, canon) && !bytes.Equal(data, canon[:len(canon)-1]) {
		return nil, ErrDefinitionEdited
	}
	return sn, nil
}

// strictDecode decodes exactly one JSON value into v, refusing unknown
// members and anything after the value.
func strictDecode(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return errors.New("trailing data after the document")
	}
	return nil
}

func parseSignedNetwork(data []byte) (*SignedNetwork, error) {
	if len(data) > MaxDefinitionBytes {
		return nil, ErrDefinitionTooLarge
	}
	var outer struct {
		Network   *json.RawMessage `json:"network"`
		Signer    *string          `json:"signer"`
		Signature *string          `json:"signature"`
	}
	if err := strictDecode(data, &outer); err != nil {
		return nil, err
	}
	if outer.Network == nil || outer.Signer == nil || outer.Signature == nil {
		return nil, errors.New("network, signer and signature: required")
	}
	var sn SignedNetwork
	var err error
	if sn.Signer, err = ParsePublicKey(*outer.Signer); err != nil {
		return nil, fmt.Errorf("signer: %w", err)
	}
	if sn.Signature, err = b64.DecodeString(*outer.Signature); err != nil || len(sn.Signature) != ed25519.SignatureSize {
		return nil, fmt.Errorf("signature: want %d bytes in unpadded base64url", ed25519.SignatureSize)
	}
	n, err := parseNetwork(*outer.Network)
	if err != nil {
		return nil, err
	}
	sn.Network = *n
	return &sn, nil
}

func parseNetwork(data []byte) (*Network, error) {
	var doc struct {
		ID         *string          `json:"id"`
		Name       *string          `json:"name"`
		Version    *uint64          `json:"version"`
		Admins     *[]string        `json:"admins"`
		Seeds      *[]string        `json:"seeds"`
		Catalog    *json.RawMessage `json:"catalog"`
		Publishers *[]struct {
			Name       *string   `json:"name"`
			Key        *string   `json:"key"`
			Categories *[]string `json:"categories"`
		} `json:"publishers"`
		Revoked        *[]string        `json:"revoked"`
		Fanout         *int             `json:"fanout"`
		Secret         *string          `json:"secret"`
		OpenPublishing *bool            `json:"openPublishing"`
		Audiences      *[]namedRangeIn  `json:"audiences"`
		LeafCapacity   *int             `json:"leafCapacity"`
		PublishLimits  *publishLimitsIn `json:"publishLimits"`
		CategoryTitles *json.RawMessage `json:"categoryTitles"`

		AttachmentLimits *attachmentLimitsIn `json:"attachmentLimits"`
	}
	known, newer, err := splitNewer(data)
	if err != nil {
		return nil, err
	}
	if err := strictDecode(known, &doc); err != nil {
		return nil, err
	}
	switch {
	case doc.ID == nil:
		return nil, errors.New("id: required")
	case doc.Name == nil:
		return nil, errors.New("name: required")
	case doc.Version == nil:
		return nil, errors.New("version: required")
	case doc.Admins == nil:
		return nil, errors.New("admins: required")
	case doc.Seeds == nil:
		return nil, errors.New("seeds: required")
	case doc.Catalog == nil:
		return nil, errors.New("catalog: required")
	case doc.Publishers == nil:
		return nil, errors.New("publishers: required")
	case doc.Revoked == nil:
		return nil, errors.New("revoked: required")
	case doc.Fanout == nil:
		return nil, errors.New("fanout: required")
	case doc.Secret == nil:
		return nil, errors.New("secret: required")
	case doc.OpenPublishing == nil:
		return nil, errors.New("openPublishing: required")
	}
	n := &Network{Name: *doc.Name, Version: *doc.Version, Seeds: *doc.Seeds, Fanout: *doc.Fanout, OpenPublishing: *doc.OpenPublishing,
		newer: newer}
	if n.ID, err = uuid.Parse(*doc.ID); err != nil {
		return nil, fmt.Errorf("id: %w", err)
	}
	if n.Admins, err = parseKeys("admins", *doc.Admins, MaxAdmins); err != nil {
		return nil, err
	}
	if n.Revoked, err = parseKeys("revoked", *doc.Revoked, MaxRevoked); err != nil {
		return nil, err
	}
	if n.Catalog, err = categories.Parse(*doc.Catalog); err != nil {
		return nil, err
	}
	if doc.CategoryTitles != nil {
		// WithTitles refuses "{}", null and any other encoding than
		// the canonical one: no titles are written by leaving it out.
		if n.Catalog, err = n.Catalog.WithTitles(*doc.CategoryTitles); err != nil {
			return nil, fmt.Errorf("categoryTitles: %w", err)
		}
	}
	if len(*doc.Publishers) > MaxPublishers {
		return nil, fmt.Errorf("publishers: more than %d", MaxPublishers)
	}
	n.Publishers = make([]Publisher, 0, len(*doc.Publishers))
	for _, p := range *doc.Publishers {
		if p.Name == nil || p.Key == nil || p.Categories == nil {
			return nil, errors.New("publishers: name, key and categories: required")
		}
		k, err := ParsePublicKey(*p.Key)
		if err != nil {
			return nil, fmt.Errorf("publishers: %w", err)
		}
		n.Publishers = append(n.Publishers, Publisher{Name: *p.Name, Key: k, Categories: *p.Categories})
	}
	if n.Secret, err = b64.DecodeString(*doc.Secret); err != nil {
		return nil, fmt.Errorf("secret: not unpadded base64url")
	}
	if n.Audiences, err = parseNamedRanges(doc.Audiences); err != nil {
		return nil, err
	}
	if doc.LeafCapacity != nil {
		if *doc.LeafCapacity == 0 {
			// The default is encoded by leaving the member out: one
			// definition, one encoding.
			return nil, errors.New("leafCapacity: 0 is written by leaving it out")
		}
		n.LeafCapacity = *doc.LeafCapacity
	}
	if n.Limits, err = parsePublishLimits(doc.PublishLimits); err != nil {
		return nil, err
	}
	if err := parseAttachmentLimits(doc.AttachmentLimits, &n.Limits); err != nil {
		return nil, err
	}
	n.Seeds = nilIfEmpty(n.Seeds)
	n.Revoked = nilIfEmpty(n.Revoked)
	n.Publishers = nilIfEmpty(n.Publishers)
	for i := range n.Publishers {
		n.Publishers[i].Categories = nilIfEmpty(n.Publishers[i].Categories)
	}
	if err := n.validate(); err != nil {
		return nil, err
	}
	return n, nil
}

func parseKeys(field string, in []string, max int) ([]ed25519.PublicKey, error) {
	if len(in) > max {
		return nil, fmt.Errorf("%s: more than %d keys", field, max)
	}
	out := make([]ed25519.PublicKey, len(in))
	for i, s := range in {
		k, err := ParsePublicKey(s)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", field, err)
		}
		out[i] = k
	}
	return out, nil
}
