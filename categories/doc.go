// Package categories is the category catalog of a Newsdesk network and its
// mapping to the overlay's multicast IDs.
//
// A category ID is a slug such as "sales/emea": lower-case letters, digits
// and '-', with '/' separating the levels of a hierarchy. The ID is also the
// category's multicast ID (the "category" of JP4353827B2's news example), so
// the mapping is the identity and needs no table that could drift between
// installations. Subscribing to a parent subscribes to every category under
// it, present and future: "sales" covers "sales/emea" and any "sales/…" an
// admin adds later, because the overlay matches an item's category against a
// subscription set by walking the item's '/'-ancestors.
//
// The catalog itself (names and descriptions for display) travels as a
// canonical JSON document (see Marshal and Parse) that admin tooling signs
// and distributes; a higher Version supersedes a lower one. A category's
// titles in other languages travel beside it, in a document of their own
// (titles.go), so that releases before titles keep reading the catalog.
package categories
