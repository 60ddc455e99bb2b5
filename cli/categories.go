package cli

// GET and PUT /v1/categories: the category catalog with each category's
// titles per language (categories.Titles).
//
//	GET /v1/categories → {"version","categories":[{"id","name","description","titles":{"de":…}}]}
//	PUT /v1/categories {"version","categories":[…as GET…]} → {"version","definition"}: the
//	                   catalog replaced (admins only), as the next catalog version in the next
//	                   definition, signed with this installation's key and published; "version"
//	                   is the catalog version the edit started from (409 when the network holds
//	                   another by now), "titles" may be left out. 403 for a servant that is not
//	                   an admin, 400 for a catalog the rules refuse.

import (
	"errors"
	"net/http"

	"newsdesk/app"
	"newsdesk/categories"
)

const categoriesPath = "/v1/categories"

// maxCatalogRequestBytes bounds a PUT of the catalog: the catalog document
// and its titles, each bounded on their own, with room for JSON escapes.
const maxCatalogRequestBytes = 4 * categories.MaxDocumentBytes

// categoryJSON is a category as the API shows and takes it.
type categoryJSON struct {
	ID          string            `json:"id"`
	Name        string            `json:"name"`
	Description string            `json:"description"`
	Titles      map[string]string `json:"titles"` // language tag → title; {} when none
}

type catalogJSON struct {
	Version    uint64         `json:"version"`
	Categories []categoryJSON `json:"categories"`
}

func catalogJSONOf(c *categories.Catalog) catalogJSON {
	out := catalogJSON{Version: c.Version(), Categories: []categoryJSON{}}
	for _, cat := range c.All() {
		titles := map[string]string{}
		for _, t := range cat.Titles.All() {
			titles[t.Lang] = t.Text
		}
		out.Categories = append(out.Categories, categoryJSON{ID: cat.ID, Name: cat.Name, Description: cat.Description, Titles: titles})
	}
	return out
}

// getCategories answers the catalog this servant uses.
func (c *control) getCategories(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, catalogJSONOf(c.a.Catalog()))
}

func (c *control) setCategories(w http.ResponseWriter, r *http.Request) {
	var req catalogJSON
	if !readJSONUpTo(w, r, &req, maxCatalogRequestBytes) {
		return
	}
	if req.Version == 0 {
		writeError(w, http.StatusBadRequest, "version: required (the catalog version the edit started from)")
		return
	}
	if len(req.Categories) > categories.MaxCategories {
		writeError(w, http.StatusBadRequest, "categories: more than the catalog holds")
		return
	}
	cats := make([]categories.Category, len(req.Categories))
	for i, in := range req.Categories {
		ts := make([]categories.Title, 0, len(in.Titles))
		for lang, text := range in.Titles {
			ts = append(ts, categories.Title{Lang: lang, Text: text})
		}
		titles, err := categories.NewTitles(ts)
		if err != nil {
			writeError(w, http.StatusBadRequest, "category "+in.ID+": "+err.Error())
			return
		}
		cats[i] = categories.Category{ID: in.ID, Name: in.Name, Description: in.Description, Titles: titles}
	}
	cv, dv, err := c.a.SetNetworkCatalog(req.Version, cats)
	switch {
	case errors.Is(err, app.ErrNotAdmin):
		writeError(w, http.StatusForbidden, "only an admin of the network may change its catalog")
	case errors.Is(err, app.ErrCatalogChanged):
		writeError(w, http.StatusConflict, err.Error())
	case err != nil:
		writeError(w, http.StatusBadRequest, err.Error())
	default:
		writeJSON(w, http.StatusOK, map[string]uint64{"version": cv, "definition": dv})
	}
}
