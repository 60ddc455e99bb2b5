package app

import (
	"encoding/json"
	"errors"
	"fmt"

	"newsdesk/categories"
)

// Catalog returns the category catalog (categories.Default until one is
// stored).
func (a *App) Catalog() *categories.Catalog {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.catalog
}

func (a *App) loadCatalog() (*categories.Catalog, error) {
	v, ok, err := a.store.Setting(keyCatalog)
	if err != nil {
		return nil, err
	}
	if !ok {
		return categories.Default(), nil
	}
	c, err := categories.Parse([]byte(v))
	if err != nil {
		return nil, fmt.Errorf("stored catalog: %w", err)
	}
	return a.loadCatalogTitles(c), nil
}

// storedTitles is the value of keyCatalogTitles.
type storedTitles struct {
	Version uint64          `json:"version"`
	Titles  json.RawMessage `json:"titles"`
}

// loadCatalogTitles returns c with the stored titles when they are c's.
// Titles are for display only: ones that do not fit (written for another
// catalog version, damaged) are logged and left out, and the network
// definition brings them again.
func (a *App) loadCatalogTitles(c *categories.Catalog) *categories.Catalog {
	v, ok, err := a.store.Setting(keyCatalogTitles)
	if err != nil || !ok {
		return c
	}
	var st storedTitles
	if err := json.Unmarshal([]byte(v), &st); err != nil {
		a.log.Warn("stored catalog titles left out", "err", err)
		return c
	}
	if st.Version != c.Version() {
		return c
	}
	t, err := c.WithTitles(st.Titles)
	if err != nil {
		a.log.Warn("stored catalog titles left out", "err", err)
		return c
	}
	return t
}

// storeCatalog stores c: the catalog document under keyCatalog, which
// every release reads, and its titles with its version under
// keyCatalogTitles, which releases before titles do not read (a store
// opened by one of those keeps working). The titles go first: if the
// catalog is not written after them, their version is not the stored
// catalog's and they are left out.
func (a *App) storeCatalog(c *categories.Catalog) error {
	doc, err := c.Marshal()
	if err != nil {
		return err
	}
	titles, err := c.MarshalTitles()
	if err != nil {
		return err
	}
	if titles == nil {
		err = a.store.DeleteSetting(keyCatalogTitles)
	} else {
		var b []byte
		if b, err = json.Marshal(storedTitles{Version: c.Version(), Titles: titles}); err == nil {
			err = a.store.SetSetting(keyCatalogTitles, string(b))
		}
	}
	if err != nil {
		return err
	}
	return a.store.SetSetting(keyCatalog, string(doc))
}

// SetCatalog stores a catalog that is at least as new as the current one
// (same or higher version).
func (a *App) SetCatalog(c *categories.Catalog) error {
	if c == nil {
		return errors.New("catalog: nil")
	}
	if cur := a.Catalog(); c.Version() < cur.Version() {
		return fmt.Errorf("catalog: version %d is older than the current version %d", c.Version(), cur.Version())
	}
	if err := a.storeCatalog(c); err != nil {
		return err
	}
	a.mu.Lock()
	a.catalog = c
	a.mu.Unlock()
	a.events.emit(Event{Kind: CatalogChanged})
	return nil
}
