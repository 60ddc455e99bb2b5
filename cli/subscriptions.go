package cli

import (
	"net/http"
)

func (c *control) subscriptions(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, strs(c.a.Status().Subscriptions))
}

func (c *control) setSubscriptions(w http.ResponseWriter, r *http.Request) {
	var cats []string
	if !readJSON(w, r, &cats) {
		return
	}
	if err := c.a.CheckNewSubscriptions(cats); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	if err := c.a.SetSubscriptions(cats); err != nil {
		writeError(w, http.StatusServiceUnavailable, err.Error())
		return
	}
	c.log.Info("subscriptions changed", "categories", cats)
	w.WriteHeader(http.StatusNoContent)
}
