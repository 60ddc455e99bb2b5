package newsnet

// The message registry: which messages exist, under which type byte.
//
// A message type has two lines here: its type byte (its msgType method)
// and its entry in messages. The codec derives everything else from the
// entry: the decoder's zero message, the name in errors; the golden test
// and the fuzz seeds iterate it. So adding a message is: declare its type
// with its marshal/unmarshal pair in the msg_*.go file of its family, then
// add its two lines here.
//
// The type byte is a method rather than a field of the entry because the
// encoder needs it for every frame: a method call costs a few instructions,
// finding the entry from the message's dynamic type (reflect.TypeOf and a
// map) about 180 more (callgrind), 5% of encoding and decoding a 1 KiB
// Multicast.

import (
	"fmt"
	"reflect"
)

// msgType is a frame's type byte.
type msgType byte

// messages lists every message type, in type-byte order.
var messages = [...]messageKind{
	kindOf[JoinRequest](),
	kindOf[JoinAccept](),
	kindOf[JoinRedirect](),
	kindOf[JoinRefuse](),
	kindOf[Siblings](),
	kindOf[PartitionInfo](),
	kindOf[Reset](),
	kindOf[RoutingInfo](),
	kindOf[Multicast](),
	kindOf[Ping](),
	kindOf[Recover](),
	kindOf[Recovered](),
	kindOf[CatchUp](),
	kindOf[LatestHeader](),
	kindOf[CatchUpDone](),
	kindOf[DirectRequest](),
	kindOf[DirectAnswer](),
	kindOf[DirectHello](),
	kindOf[DirectCover](),
	kindOf[ReachReport](),
	kindOf[DialBack](),
	kindOf[DialBackReply](),
	kindOf[Reachability](),
	kindOf[StreamQuery](),
	kindOf[StreamHeads](),
	kindOf[CensusQuery](),
	kindOf[CensusAnswer](),
	kindOf[BlobWant](),
	kindOf[BlobHead](),
	kindOf[BlobChunk](),
	kindOf[BlobNone](),
}

// Type bytes. Append only: a deployed servant must keep understanding every
// byte it ever knew, so a byte is never reused and a new message takes the
// next free one. Byte 0 stays unused so that a zeroed frame never decodes.
func (*JoinRequest) msgType() msgType   { return 1 }
func (*JoinAccept) msgType() msgType    { return 2 }
func (*JoinRedirect) msgType() msgType  { return 3 }
func (*JoinRefuse) msgType() msgType    { return 4 }
func (*Siblings) msgType() msgType      { return 5 }
func (*PartitionInfo) msgType() msgType { return 6 }
func (*Reset) msgType() msgType         { return 7 }
func (*RoutingInfo) msgType() msgType   { return 8 }
func (*Multicast) msgType() msgType     { return 9 }
func (*Ping) msgType() msgType          { return 10 }
func (*Recover) msgType() msgType       { return 11 }
func (*Recovered) msgType() msgType     { return 12 }
func (*CatchUp) msgType() msgType       { return 13 }
func (*LatestHeader) msgType() msgType  { return 14 }
func (*CatchUpDone) msgType() msgType   { return 15 }
func (*DirectRequest) msgType() msgType { return 16 }
func (*DirectAnswer) msgType() msgType  { return 17 }
func (*DirectHello) msgType() msgType   { return 18 }
func (*DirectCover) msgType() msgType   { return 19 }
func (*ReachReport) msgType() msgType   { return 20 }
func (*DialBack) msgType() msgType      { return 21 }
func (*DialBackReply) msgType() msgType { return 22 }
func (*Reachability) msgType() msgType  { return 23 }
func (*StreamQuery) msgType() msgType   { return 24 }
func (*StreamHeads) msgType() msgType   { return 25 }
func (*CensusQuery) msgType() msgType   { return 26 }
func (*CensusAnswer) msgType() msgType  { return 27 }
func (*BlobWant) msgType() msgType      { return 28 }
func (*BlobHead) msgType() msgType      { return 29 }
func (*BlobChunk) msgType() msgType     { return 30 }
func (*BlobNone) msgType() msgType      { return 31 }

// messageKind is one registered message type.
type messageKind struct {
	typ  msgType
	name string         // the Go type name, for errors and tests
	new  func() Message // a zero message for the decoder to fill
}

// kindOf describes message type T, whose pointer is the Message.
func kindOf[T any, P interface {
	*T
	Message
}]() messageKind {
	return messageKind{
		typ:  P(new(T)).msgType(),
		name: reflect.TypeFor[T]().Name(),
		new:  func() Message { return P(new(T)) },
	}
}

// kinds indexes messages by type byte.
var kinds = indexMessages(messages[:])

// indexMessages indexes ms by type byte. Byte 0 or a byte claimed twice is
// a programming error, caught when the package loads.
func indexMessages(ms []messageKind) *[256]*messageKind {
	var idx [256]*messageKind
	for i := range ms {
		k := &ms[i]
		switch prev := idx[k.typ]; {
		case k.typ == 0:
			panic(fmt.Sprintf("newsnet: %s has type byte 0, which stays unused", k.name))
		case prev != nil:
			panic(fmt.Sprintf("newsnet: %s and %s both have type byte %d", prev.name, k.name, k.typ))
		}
		idx[k.typ] = k
	}
	return &idx
}

// kindAt returns the message type registered under type byte t, or nil.
func kindAt(t msgType) *messageKind { return kinds[t] }

// typeOf returns m's type byte; ok is false if nothing is registered under
// it. (A type that claims another's byte without being registered itself
// is caught by TestEveryMessageTypeIsRegistered, not on every frame.)
func typeOf(m Message) (t msgType, ok bool) {
	t = m.msgType()
	return t, kinds[t] != nil
}
