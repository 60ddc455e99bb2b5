package newsnet

import (
	"fmt"
	"testing"
)

// The reverse-path lists on their own (core): the most recent tree link a
// source's originals came over is the way toward it, a repair answer
// counts for requests but not for the originals' path, a move of the
// originals is reported (the reach reports follow it), and a link
// forgets the source it heard of longest ago beyond maxLinkSources.
func TestReversePathLists(t *testing.T) {
	up, down := &link{id: 1, kind: linkUp}, &link{id: 2, kind: linkDown}
	c := &core{cfg: Config{Source: "me"}, links: map[LinkID]*link{1: up, 2: down}, up: up, downs: downSet{down}}
	if !c.noteArrival(up, "pub", true) || c.noteArrival(up, "pub", true) {
		t.Fatal("the first arrival of pub's originals is a move, the second is not")
	}
	if c.noteArrival(down, "pub", false) || c.listedToward("pub", nil, true) != up || c.listedToward("pub", nil, false) != down {
		t.Fatal("a repair answer over down: the originals' path must stay up, any traffic's become down")
	}
	if !c.noteArrival(down, "pub", true) || c.listedToward("pub", nil, true) != down || c.listedToward("pub", down, true) != up {
		t.Fatal("originals over down: a move toward down, with up left as the way except down")
	}
	if c.noteArrival(up, "me", true) || c.noteArrival(&link{kind: linkDirect}, "pub", true) {
		t.Error("our own items or a link outside the tree made a reverse path")
	}
	for i := range maxLinkSources {
		c.noteArrival(up, fmt.Sprint("s", i), true)
	}
	if len(up.sources) != maxLinkSources || up.sources["pub"] != (arrivalStamps{}) || c.listedToward("s1", nil, true) != up {
		t.Errorf("at the bound: %d sources, pub kept %v; want %d, the oldest (pub) forgotten", len(up.sources), up.sources["pub"], maxLinkSources)
	}
}
