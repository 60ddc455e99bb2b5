package ui

import (
	"context"
	"fmt"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/widget"

	"newsdesk/app"
)

// networkView shows this servant as the overlay sees it: its IDs, its
// place in the tree, its partition and slots, the routing sets of every
// link and its counters. It is rebuilt on StatusChanged and every few
// seconds (ui.go), only when something shown changed.
type networkView struct {
	u      *UI
	lost   *widget.Label   // "N items could not be recovered", hidden at 0
	whole  *fyne.Container // the whole network (census.go), for admins; hidden without a census
	census *fyne.Container // form layout of the census
	health *fyne.Container // what needs an admin's attention
	tree   *fyne.Container // the map of the tree and the selected partition (netmap.go); hidden without one
	netMap *netMap
	part   *fyne.Container // form layout of the selected partition
	mapOf  *app.Census     // the census the map shows
	// The partitions looked inside (lookInside), the innermost last, with
	// the censuses their servants answered; empty: the whole network.
	inside   []string
	insideOf []app.Census
	where    *widget.Label   // which part of the network the map shows
	mapNote  *widget.Label   // a question under way, or why it failed
	look     *widget.Button  // look inside the selected partition
	up       *widget.Button  // back to the map one level up
	servant  *fyne.Container // form layout: label, value
	links    *fyne.Container
	counts   *fyne.Container
	shown    string // the text last shown, to skip identical rebuilds
	content  fyne.CanvasObject
}

func newNetworkView(u *UI) *networkView {
	v := &networkView{
		u:       u,
		lost:    widget.NewLabel(""),
		census:  container.New(layout.NewFormLayout()),
		health:  container.NewVBox(),
		servant: container.New(layout.NewFormLayout()),
		links:   container.NewVBox(),
		counts:  container.New(layout.NewFormLayout()),
	}
	heading := func(s string) *widget.Label {
		return widget.NewLabelWithStyle(s, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	}
	v.lost.Importance = widget.DangerImportance
	v.lost.Wrapping = fyne.TextWrapWord
	v.lost.Hide()
	v.netMap = newNetMap(func([]int) { v.showPart() })
	v.part = container.New(layout.NewFormLayout())
	v.where = widget.NewLabel("")
	v.mapNote = widget.NewLabel("")
	v.mapNote.Wrapping = fyne.TextWrapWord
	v.mapNote.Hide()
	v.look = widget.NewButton(lang.L("Look inside"), v.lookInside)
	v.up = widget.NewButton(lang.L("Up one level"), v.upOneLevel)
	v.tree = container.NewVBox(heading(lang.L("Map of the tree")), container.NewHBox(v.where, layout.NewSpacer(), v.up, v.look),
		v.netMap, v.mapNote, v.part)
	v.tree.Hide()
	v.whole = container.NewVBox(heading(lang.L("The whole network")), v.census, v.tree, v.health, widget.NewSeparator())
	v.whole.Hide()
	left := container.NewVScroll(container.NewPadded(container.NewVBox(v.lost, v.whole, heading(lang.L("This servant")), v.servant)))
	right := container.NewVScroll(container.NewPadded(container.NewVBox(
		heading(lang.L("Links: routing sets, direct links")), v.links,
		widget.NewSeparator(), heading(lang.L("Counters")), v.counts,
	)))
	split := container.NewHSplit(left, right)
	split.Offset = 0.5
	v.content = split
	return v
}

// field is one line of the view.
type field struct{ name, value string }

func setFields(c *fyne.Container, fields []field) {
	c.Objects = c.Objects[:0]
	for _, f := range fields {
		name := widget.NewLabelWithStyle(f.name, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
		value := widget.NewLabel(f.value)
		value.Wrapping = fyne.TextWrapWord
		c.Objects = append(c.Objects, name, value)
	}
	c.Refresh()
}

func ids(s []string) string {
	if len(s) == 0 {
		return lang.L("none")
	}
	return strings.Join(s, ", ")
}

// networkFields lays out st.
func networkFields(st app.NetStatus) (servant []field, links [][]field, counters []field) {
	or := func(s, dflt string) string {
		if s == "" {
			return dflt
		}
		return s
	}
	role := string(st.Role)
	if role == "" {
		role = lang.L("unknown")
	}
	if st.Leaf {
		role += lang.L(", as a leaf")
	}
	servant = []field{
		{lang.L("Servant ID"), or(st.ID, lang.L("not known yet"))},
		{lang.L("ID value"), idValueText(st.IDValue)},
		{lang.L("Role"), role},
		{lang.L("Listening on"), or(st.Listen, "—")},
		{lang.L("Installation"), or(st.Source, "—")},
		{lang.L("Up-servant"), or(st.Up, lang.L("none"))},
		{lang.L("Down-servants"), ids(st.Downs)},
		{lang.L("Leaves below"), ids(st.Leaves)},
		{lang.L("Reachable"), reachabilityText(st)},
		{lang.L("Address"), movedText(st)},
		{lang.L("Release"), releaseText(st)},
		{lang.L("Subtree range"), fmt.Sprintf("%s – %s", idValueText(st.Range[0]), idValueText(st.Range[1]))},
	}
	p := st.Partition
	if p.N > 0 {
		servant = append(servant,
			field{lang.L("Partition"), fmt.Sprintf("%s – %s", idValueText(p.Lo), idValueText(p.Hi))},
			field{lang.L("Slots"), fmt.Sprintf(lang.L("%d slots of width %d"), p.N, p.SlotWidth)},
		)
		var held []string
		if p.Contains(st.IDValue) {
			held = append(held, fmt.Sprintf(lang.L("slot %d: this servant"), p.Slot(st.IDValue)))
		}
		for _, l := range st.Links {
			if !l.Up && !l.Leaf {
				held = append(held, fmt.Sprintf(lang.L("slot %d: %s"), l.Slot, l.Peer))
			}
		}
		servant = append(servant, field{lang.L("Slots held"), or(strings.Join(held, "\n"), lang.L("none"))})
	}
	path := ids(st.RootPath)
	if st.Role == app.RoleVertex {
		path = lang.L("this servant is the vertex")
	}
	servant = append(servant,
		field{lang.L("Path from the vertex"), path},
		field{lang.L("Siblings"), ids(st.Siblings)},
		field{lang.L("Subscribed (self)"), ids(st.Subscriptions)},
	)
	for _, l := range st.Links {
		dir := fmt.Sprintf(lang.L("down-servant %s, slot %d"), l.Peer, l.Slot)
		switch {
		case l.Up:
			dir = fmt.Sprintf(lang.L("up-servant %s"), l.Peer)
		case l.Leaf:
			dir = fmt.Sprintf(lang.L("leaf %s (others cannot connect to it)"), l.Peer)
		}
		links = append(links, []field{
			{lang.L("Link"), dir},
			{lang.L("Runs"), peerReleaseText(l)},
			{lang.L("Received"), ids(l.Received)},
			{lang.L("Sent"), ids(l.Sent)},
		})
	}
	for _, d := range st.Direct {
		dir := fmt.Sprintf(lang.L("direct, from %s (outside the tree)"), d.Peer)
		items := fmt.Sprintf(lang.L("%d received directly"), d.Delivered)
		if d.Role == app.DirectPublisher {
			dir = fmt.Sprintf(lang.L("direct, to %s (outside the tree)"), d.Peer)
			items = fmt.Sprintf(lang.L("%d sent directly"), d.Delivered)
		}
		links = append(links, []field{
			{lang.L("Link"), dir},
			{lang.L("Source"), d.Source},
			{lang.L("Categories"), ids(d.Categories)},
			{lang.L("Items"), items},
		})
	}
	c := st.Counters
	counters = []field{
		{lang.L("Items relayed"), fmt.Sprint(c.Relayed)},
		{lang.L("Suppressed"), fmt.Sprintf(lang.L("%d (published with no subscriber on any link)"), c.Suppressed)},
		{lang.L("Lost"), fmt.Sprintf(lang.L("%d (needed, and no servant could retransmit them)"), max(c.Lost, st.Lost))},
		{lang.L("Published"), fmt.Sprint(c.Published)},
		{lang.L("Delivered here"), fmt.Sprint(c.Delivered)},
		{lang.L("Duplicates dropped"), fmt.Sprint(c.Duplicates)},
		{lang.L("Resets sent"), fmt.Sprint(c.Resets)},
		{lang.L("Frames sent"), fmt.Sprintf(lang.L("%d multicast, %d periodic, %d control"), c.MulticastFrames, c.PeriodicFrames, c.ControlFrames)},
		{lang.L("Direct delivery"), fmt.Sprintf(lang.L("%d items sent, %d received over direct links"), c.DirectSent, c.DirectReceived)},
	}
	return servant, links, counters
}

// lostNotice is the network view's warning about items that could not be
// recovered, or "" when there are none.
func lostNotice(st app.NetStatus) string {
	n := max(st.Lost, st.Counters.Lost)
	if n == 0 {
		return ""
	}
	return lostText(n) + lang.L(": this servant needed them, and no servant that held them could send them again. The count covers every run of this installation.")
}

func (v *networkView) set(st app.NetStatus, census *app.Census) {
	servant, links, counters := networkFields(st)
	notice := lostNotice(st)
	var whole []field
	var health []string
	if census != nil {
		whole, health = censusFields(*census, time.Now()), healthNotes(*census, st.Release)
	}
	var parts []app.MapPart
	if census != nil {
		parts = census.Parts
	}
	sig := fmt.Sprint(notice, servant, links, counters, whole, health, parts)
	if sig == v.shown {
		return
	}
	v.shown = sig
	v.lost.SetText(notice)
	if notice == "" {
		v.lost.Hide()
	} else {
		v.lost.Show()
	}
	v.setCensus(whole, health)
	v.setMap(census)
	setFields(v.servant, servant)
	v.links.Objects = v.links.Objects[:0]
	if len(links) == 0 {
		none := widget.NewLabel(lang.L("No tree links."))
		none.Importance = widget.LowImportance
		v.links.Objects = append(v.links.Objects, none)
	}
	for i, l := range links {
		if i > 0 {
			v.links.Objects = append(v.links.Objects, widget.NewSeparator())
		}
		c := container.New(layout.NewFormLayout())
		setFields(c, l)
		v.links.Objects = append(v.links.Objects, c)
	}
	v.links.Refresh()
	setFields(v.counts, counters)
}

// setCensus shows the whole network's figures and health notes, or hides
// them without a census (not an admin, or none has come yet).
func (v *networkView) setCensus(whole []field, health []string) {
	if whole == nil {
		v.whole.Hide()
		return
	}
	setFields(v.census, whole)
	v.health.Objects = v.health.Objects[:0]
	if len(health) == 0 {
		ok := widget.NewLabel(lang.L("Nothing needs attention."))
		ok.Importance = widget.SuccessImportance
		v.health.Objects = append(v.health.Objects, ok)
	}
	for _, h := range health {
		l := widget.NewLabel("• " + h)
		l.Wrapping = fyne.TextWrapWord
		l.Importance = widget.WarningImportance
		v.health.Objects = append(v.health.Objects, l)
	}
	v.health.Refresh()
	v.whole.Show()
}

// setMap shows the map of the tree from the census, or hides it when the
// census has none (no census, or the servants at the top of the tree run
// an older release).
func (v *networkView) setMap(c *app.Census) {
	if c == nil || len(c.Parts) == 0 {
		v.inside, v.insideOf = nil, nil
		v.mapOf = c
		v.tree.Hide()
		return
	}
	if n := len(v.insideOf); n > 0 {
		c = &v.insideOf[n-1] // looking inside a partition: its census, until Up
	}
	v.showMap(c)
	v.tree.Show()
}

// showMap draws c's map and says where in the network it lies.
func (v *networkView) showMap(c *app.Census) {
	v.mapOf = c
	v.netMap.set(c.Parts, c.MaxProtocol)
	where := lang.L("The whole network")
	for _, root := range v.inside {
		where += " › " + fmt.Sprintf(lang.L("below %s"), root)
	}
	v.where.SetText(where)
	if len(v.inside) == 0 {
		v.up.Disable()
	} else {
		v.up.Enable()
	}
	v.showPart()
}

// lookInside asks the servant at the top of the selected partition for its
// census, and maps the partition with two more levels below it.
func (v *networkView) lookInside() {
	p := v.netMap.partAt(v.netMap.selected)
	cb, ok := v.u.b.(CensusBackend)
	if p == nil || !ok {
		return
	}
	root := p.Root
	v.look.Disable()
	v.mapNote.SetText(fmt.Sprintf(lang.L("Asking %s for its part of the network…"), root))
	v.mapNote.Importance = widget.LowImportance
	v.mapNote.Show()
	v.u.w.Go(func() func() {
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer cancel()
		c, err := cb.PartitionCensus(ctx, root)
		return func() {
			if err != nil {
				v.mapNote.SetText(fmt.Sprintf(lang.L("%s did not answer. It may have left the network, or the tree is changing; try again in a moment."), root) + " " + errorText(err))
				v.mapNote.Importance = widget.WarningImportance
				v.mapNote.Refresh()
				v.showPart()
				return
			}
			v.mapNote.Hide()
			v.inside, v.insideOf = append(v.inside, root), append(v.insideOf, c)
			v.netMap.selected = nil
			v.showMap(&v.insideOf[len(v.insideOf)-1])
		}
	})
}

// upOneLevel goes back to the map that holds the partition looked inside.
func (v *networkView) upOneLevel() {
	n := len(v.inside)
	if n == 0 {
		return
	}
	v.inside, v.insideOf = v.inside[:n-1], v.insideOf[:n-1]
	v.netMap.selected = nil
	v.mapNote.Hide()
	if n > 1 {
		v.showMap(&v.insideOf[n-2])
	} else if c := v.u.census; c != nil {
		v.showMap(c)
	}
}

// showPart lays out the figures of the partition selected on the map.
func (v *networkView) showPart() {
	p := v.netMap.partAt(v.netMap.selected)
	if p == nil || p.Servants <= 1 {
		v.look.Disable()
	} else {
		v.look.Enable()
	}
	if p == nil || v.mapOf == nil {
		setFields(v.part, []field{{lang.L("Partition"), lang.L("Tap a box for its figures. Green: fine; yellow: older protocol versions, or most computers cannot be dialled; red: lost items.")}})
		return
	}
	setFields(v.part, partFields(*v.mapOf, *p))
}

// partFields are the figures of partition p of census c.
func partFields(c app.Census, p app.MapPart) []field {
	fields := []field{{lang.L("Partition"), fmt.Sprintf(lang.L("below %s"), p.Root)}}
	if a := p.Addresses(); a != "" {
		fields = append(fields, field{lang.L("Addresses"), a})
	}
	fields = append(fields,
		field{lang.L("Computers"), fmt.Sprintf(lang.L("%d, of which %s"), p.Servants, fmt.Sprintf(lang.N("%d leaves (cannot be dialled)", int(p.Leaves)), int(p.Leaves)))},
		field{lang.L("Tree"), fmt.Sprintf(lang.N("%d levels", int(p.Depth)), int(p.Depth))},
	)
	if p.MinProtocol == p.MaxProtocol {
		fields = append(fields, field{lang.L("Protocol"), fmt.Sprintf(lang.L("every computer speaks version %d"), p.MaxProtocol)})
	} else {
		fields = append(fields, field{lang.L("Protocol"), fmt.Sprintf(lang.L("versions %d to %d"), p.MinProtocol, p.MaxProtocol)})
	}
	lost := lang.L("none")
	if p.Lost > 0 {
		lost = fmt.Sprintf(lang.L("%s on %s"), fmt.Sprintf(lang.N("%d items", int(p.Lost)), int(p.Lost)), fmt.Sprintf(lang.N("%d computers", int(p.LostServants)), int(p.LostServants)))
		for _, l := range c.LostIn(p) {
			lost += "\n" + fmt.Sprintf("%s: %s", l.Servant, fmt.Sprintf(lang.N("%d items", int(l.Lost)), int(l.Lost)))
		}
	}
	fields = append(fields, field{lang.L("Lost items"), lost})
	if n := len(p.Parts); n > 0 {
		fields = append(fields, field{lang.L("Below it"), fmt.Sprintf(lang.N("%d partitions", n), n)})
	}
	return fields
}
