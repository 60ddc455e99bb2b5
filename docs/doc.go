// Package docs holds Newsdesk's documentation, one Markdown file per
// reader, beside the README at the repository's top. It has no code: its
// test (docs_test.go) runs the shell blocks of the documents that are
// marked to run, so that the commands the documents show keep working.
//
// A block runs when the line before its fence is the marker
//
//	<!-- doctest -->
//
// (or <!-- doctest timeout=2m --> for a longer limit than a minute) and
// the fence is ```sh or ```bash. See development.md, "The documents".
package docs
