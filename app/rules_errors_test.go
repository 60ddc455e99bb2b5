package app

import (
	"errors"
	"strings"
	"testing"

	"newsdesk/news"
	"newsdesk/newsnet"
)

// The rules of the settings and the first run say what is wrong by type,
// for the interface to word it; the messages stay as the control API and
// the command line print them.
func TestRuleErrorsTyped(t *testing.T) {
	var dn *DisplayNameError
	err := CheckDisplayName(strings.Repeat("x", news.MaxAuthorRunes+1), false)
	if !errors.As(err, &dn) || dn.Rule != news.RuleTooLong || dn.Limit != news.MaxAuthorRunes || err.Error() != "display name: longer than 100 characters" {
		t.Errorf("long display name: %v (%+v)", err, dn)
	}
	if err := CheckDisplayName("", true); !errors.As(err, &dn) || dn.Rule != news.RuleRequired || err.Error() != "display name: required" {
		t.Errorf("no display name: %v", err)
	}
	var se *SeedError
	var ae *newsnet.AddrError
	err = CheckSeeds([]string{"a:1", "b"})
	if !errors.As(err, &se) || se.Index != 2 || se.Addr != "b" || se.Twice || !errors.As(err, &ae) || !strings.HasPrefix(err.Error(), `seed 2: servant address "b"`) {
		t.Errorf("malformed seed: %v (%+v)", err, se)
	}
	err = CheckSeeds([]string{"a:1", " a:1"})
	if !errors.As(err, &se) || !se.Twice || se.Addr != "a:1" || err.Error() != "seed 2: a:1 is listed twice" {
		t.Errorf("seed twice: %v (%+v)", err, se)
	}
	if err := CheckSetupSeeds(Setup{}); !errors.Is(err, ErrNoSeeds) {
		t.Errorf("no seeds: %v", err)
	}
}
