//go:build headless

package main

import "errors"

// runGUI fails: a headless build links no GUI.
func runGUI([]string) error {
	return usageError{errors.New("this build has no GUI (built with -tags headless); use `newsdesk serve`")}
}
