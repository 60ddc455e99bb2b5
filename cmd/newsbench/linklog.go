package main

import (
	"context"
	"log/slog"
	"maps"
	"strings"
	"sync"
)

// linkLog is the servants' slog handler: it counts the links closed or
// lost while counting is on, by reason, from the node's "closing link"
// (the core closed it), "link lost" (the connection failed) and
// "closing link: …" (the runtime closed it) records. Everything else is
// discarded.
type linkLog struct {
	mu      sync.Mutex
	on      bool
	tooSlow int
	other   map[string]int
}

func (h *linkLog) count(on bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.on = on
	if on {
		h.tooSlow, h.other = 0, map[string]int{}
	}
}

func (h *linkLog) result() (int, map[string]int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.tooSlow, maps.Clone(h.other)
}

func (h *linkLog) Enabled(context.Context, slog.Level) bool { return true }
func (h *linkLog) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h *linkLog) WithGroup(string) slog.Handler            { return h }

func (h *linkLog) Handle(_ context.Context, r slog.Record) error {
	var reason string
	switch {
	case r.Message == "closing link", r.Message == "link lost":
		r.Attrs(func(a slog.Attr) bool {
			if a.Key == "reason" {
				reason = a.Value.String()
				return false
			}
			return true
		})
	case strings.HasPrefix(r.Message, "closing link: "):
		// The runtime's own closes: a send queue over its hard cap (and,
		// before flow control, "peer too slow" when a queue filled).
		reason = strings.TrimPrefix(r.Message, "closing link: ")
	default:
		return nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.on {
		return nil
	}
	switch {
	case strings.Contains(reason, "too slow"), strings.Contains(reason, "hard cap"), strings.Contains(reason, "over its cap"),
		strings.HasPrefix(reason, "write:"):
		h.tooSlow++
	case reason == "closed by peer", strings.HasPrefix(reason, "read:"):
		// The far end of a link its peer closed: counted there.
	default:
		h.other[reason]++
	}
	return nil
}
