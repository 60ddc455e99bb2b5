package ui

import (
	"net/netip"
	"slices"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"newsdesk/app"
	"newsdesk/news"
)

// audiencePicker offers Compose the ranges the admin named, as a check per
// name beside the typed audience field. The field stays what the draft's
// audience is made of: ticking a name adds its ranges to the field,
// unticking removes them, and a name is ticked whenever the field covers
// all of its ranges, however they got there. So the audience is the union
// of the names ticked and the ranges typed.
type audiencePicker struct {
	field   *widget.Entry
	named   []app.NamedAudience
	checks  *widget.CheckGroup
	syncing bool // the picker is changing the field or the checks itself

	content *fyne.Container
}

func newAudiencePicker(field *widget.Entry) *audiencePicker {
	p := &audiencePicker{field: field}
	p.checks = widget.NewCheckGroup(nil, p.checksChanged)
	p.checks.Horizontal = true
	p.content = container.NewVBox(p.checks)
	p.content.Hide()
	return p
}

// setNamed takes the named ranges of the definition held.
func (p *audiencePicker) setNamed(named []app.NamedAudience) {
	p.named = named
	opts := make([]string, len(named))
	for i, n := range named {
		opts[i] = n.Name
	}
	if slices.Equal(opts, p.checks.Options) {
		p.fieldChanged()
		return
	}
	p.checks.Options = opts
	p.checks.Refresh()
	if len(opts) == 0 {
		p.content.Hide()
	} else {
		p.content.Show()
	}
	p.fieldChanged()
}

// fieldChanged ticks the names the field covers (the field's OnChanged).
func (p *audiencePicker) fieldChanged() {
	if p == nil || p.syncing {
		return
	}
	ps, _ := parseAudienceField(p.field.Text)
	var sel []string
	for _, n := range p.named {
		if len(ps) > 0 && !slices.ContainsFunc(n.Ranges, func(r netip.Prefix) bool { return !coveredBy(r, ps) }) {
			sel = append(sel, n.Name)
		}
	}
	if slices.Equal(sel, p.checks.Selected) {
		return
	}
	p.syncing = true
	p.checks.SetSelected(sel)
	p.syncing = false
}

// checksChanged adds the ranges of names ticked to the field and takes
// those of names unticked out of it.
func (p *audiencePicker) checksChanged(selected []string) {
	if p.syncing {
		return
	}
	typed := audienceRanges(p.field.Text)
	var ps []netip.Prefix
	for _, r := range typed {
		if q, err := netip.ParsePrefix(r); err == nil {
			ps = append(ps, q)
		}
	}
	if len(ps) < len(typed) {
		return // the field has a problem of its own to fix first; Compose shows it
	}
	for _, n := range p.named {
		if slices.Contains(selected, n.Name) {
			ps = append(ps, n.Ranges...)
		} else if !slices.ContainsFunc(n.Ranges, func(r netip.Prefix) bool { return !coveredBy(r, news.CanonicalAudience(ps)) }) {
			ps = slices.DeleteFunc(ps, func(q netip.Prefix) bool { return slices.Contains(n.Ranges, q.Masked()) })
		}
	}
	p.syncing = true
	p.field.SetText(audienceText(news.CanonicalAudience(ps)))
	p.syncing = false
	p.fieldChanged()
}

// coveredBy reports whether every address of r lies in one of ps.
func coveredBy(r netip.Prefix, ps []netip.Prefix) bool {
	return slices.ContainsFunc(ps, func(q netip.Prefix) bool { return q.Bits() <= r.Bits() && q.Contains(r.Addr()) })
}
