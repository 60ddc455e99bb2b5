package cli

import (
	"errors"
	"net/http"
	"time"

	"newsdesk/app"
)

// reportsPath lists the latest report of every must-read post that
// reached this admin's servant (app.NetworkReports; admins only):
//
//	GET /v1/reports → {"reports":[{"post","title","category","author","published","publisher","at",
//	                   "cut", and the fields of GET /v1/reach}]}
//
// Newest report first. "publisher" is the key that signed the post and
// its report; "cut": names were left out to fit the report, the counts
// are whole. 403 for a servant that is not an admin's.
const reportsPath = "/v1/reports"

// reportJSON is one post's report.
type reportJSON struct {
	Post      string    `json:"post"`
	Title     string    `json:"title"`
	Category  string    `json:"category"`
	Author    string    `json:"author"`
	Published time.Time `json:"published"`
	Publisher string    `json:"publisher"`
	At        time.Time `json:"at"`
	Cut       bool      `json:"cut"`
	reachResponse
}

func (c *control) reports(w http.ResponseWriter, _ *http.Request) {
	rs, err := c.a.NetworkReports()
	switch {
	case errors.Is(err, app.ErrNotAdmin):
		writeError(w, http.StatusForbidden, "only an admin of the network may read the reports of must-read posts")
		return
	case err != nil:
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	out := struct {
		Reports []reportJSON `json:"reports"`
	}{Reports: make([]reportJSON, 0, len(rs))}
	for _, r := range rs {
		out.Reports = append(out.Reports, reportJSON{Post: r.Post.String(), Title: r.Title, Category: r.Category, Author: r.Author,
			Published: r.Published.UTC(), Publisher: r.Publisher, At: r.Reach.At.UTC(), Cut: r.Cut, reachResponse: reachJSON(r.Reach)})
	}
	writeJSON(w, http.StatusOK, out)
}
