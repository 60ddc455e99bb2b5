package trust_test

import (
	"fmt"
	"time"

	"newsdesk/news"
	"newsdesk/trust"
)

// The life of a network: an admin creates it, a publisher is added in a new
// version that servants accept, and the publisher's items verify while an
// outsider's do not.
func Example() {
	admin, _ := trust.GenerateIdentity()
	newsroom, _ := trust.GenerateIdentity()
	stranger, _ := trust.GenerateIdentity()

	v1, _ := trust.NewNetwork("Acme", admin, []string{"seed1.acme.example:7400"}, false)
	fmt.Println("imported:", trust.VerifySelfSigned(v1))

	n := v1.Network.Clone()
	n.Version++
	n.Publishers = append(n.Publishers, trust.Publisher{Name: "Newsroom", Key: newsroom.Public, Categories: []string{"company"}})
	v2, _ := admin.SignNetwork(n)
	fmt.Println("v2 accepted:", v1.Accept(v2))
	fmt.Println("v1 again:", v2.Accept(v1))

	// An installation publishes under a source its key owns.
	source, _ := trust.NewSource(newsroom.Public)
	it, _ := news.NewItem("company", "Office closed on Friday", "Enjoy the long weekend.", "Comms", source, time.Now())
	trust.SignItem(newsroom, it)
	_, err := v2.VerifyItem(it)
	fmt.Println("newsroom item:", err)

	trust.SignItem(stranger, it)
	_, err = v2.VerifyItem(it)
	fmt.Println("stranger item:", trust.ReasonOf(err))

	strangerSource, _ := trust.NewSource(stranger.Public)
	it.Source = strangerSource
	trust.SignItem(stranger, it)
	_, err = v2.VerifyItem(it)
	fmt.Println("stranger item, own source:", trust.ReasonOf(err))
	// Output:
	// imported: <nil>
	// v2 accepted: <nil>
	// v1 again: network definition: version 1 is not newer than 2
	// newsroom item: <nil>
	// stranger item: foreignSource
	// stranger item, own source: untrustedKey
}
