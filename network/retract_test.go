package network

import (
	"encoding/base64"
	"testing"
	"time"

	"github.com/google/uuid"

	"newsdesk/news"
	"newsdesk/trust"
)

// A retraction carrier's body never crashes the decoder.
func FuzzRetractionCarrier(f *testing.F) {
	id, _ := trust.GenerateIdentity()
	r, _ := id.SignRetraction(uuid.Must(uuid.NewV7()), "Wrong figures", time.Unix(1700000000, 0))
	bin, _ := r.MarshalBinary()
	f.Add(base64.StdEncoding.EncodeToString(bin))
	f.Add("")
	f.Add("====")
	f.Fuzz(func(t *testing.T, body string) {
		r, err := retractionOf(&news.Item{Body: body})
		if err == nil && r.ItemID == uuid.Nil {
			t.Fatal("a retraction of no item decoded")
		}
	})
}
