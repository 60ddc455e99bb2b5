package fakebackend

import "newsdesk/app"

// Named ranges (issue 15), held in the fake's network definition as the
// application holds them in its own.

// NamedAudiences returns the named ranges of the definition held.
func (m *Backend) NamedAudiences() []app.NamedAudience {
	var out []app.NamedAudience
	for _, r := range m.Network().Audiences {
		out = append(out, app.NamedAudience{Name: r.Name, Ranges: append(r.Ranges[:0:0], r.Ranges...)})
	}
	return out
}

// SetNamedAudiences publishes the next version of the definition with the
// named ranges now, as the application does (app.NamedAudiencesEdit).
func (m *Backend) SetNamedAudiences(was, now []app.NamedAudience) (uint64, error) {
	cur := m.Network()
	next, err := app.NamedAudiencesEdit(cur, m.identity, was, now)
	if err != nil {
		return 0, err
	}
	if next == nil {
		return cur.Version, nil
	}
	if err := m.PublishNetwork(next); err != nil {
		return 0, err
	}
	return next.Version, nil
}
