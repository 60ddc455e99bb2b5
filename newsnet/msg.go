package newsnet

// Message is one protocol frame's payload: a pointer to one of this
// package's message types, such as *Multicast. Each message type is
// registered, with its type byte, in registry.go; its marshal/unmarshal
// pair, beside it in the msg_*.go file of its family, is its encoding
// (wire.go has the framing and the field codecs they share).
type Message interface {
	msgType() msgType
	marshal(*encoder)
	unmarshal(*decoder)
}

// Limits of a well-formed message, checked by the decoder before allocating.
const (
	MaxFrameBytes    = 256 << 10 // one frame, type byte included
	MaxIDBytes       = 255       // a servant ID or source
	MaxCategoryBytes = 255       // one category
	MaxCategories    = 4096      // one routing set
	MaxPathLen       = 256       // root paths and sibling lists
	MaxAvoid         = 16        // a joiner's Avoid list
	MaxReasonBytes   = 1024
	MaxHistoryRuns   = 4096 // runs in one message's history
	MaxCounts        = 4096 // counts in one Recover or Recovered
	MaxSources       = 4096 // sources in one CatchUp
	MaxLasts         = 4096 // entries of one message's Lasts
)

// AllCategories, as a subscription, matches every category: archive
// servants subscribe to it so that everything published reaches them.
const AllCategories = "*"
