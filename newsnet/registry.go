package newsnet

// The message registry: the one place a wire message is declared.
//
// The encoder finds a message's type byte here, the decoder the message to
// fill for a type byte, errors the message's name; the golden test and the
// fuzz seeds iterate it. So adding a message is: declare its type with a
// marshal/unmarshal pair (msg.go, wire.go), then add one entry to messages.

import (
	"fmt"
	"reflect"
)

// msgType is a frame's type byte.
type msgType byte

// messages is every message type, indexed by its type byte. Append only: a
// deployed servant must keep understanding every type byte it ever knew, so
// an entry is never removed, moved or reused, and a new message takes the
// next free byte. The index being the type byte, the compiler rejects a byte
// given twice. Byte 0 stays unused so that a zeroed frame never decodes.
var messages = [...]messageKind{
	1:  kindOf[JoinRequest](),
	2:  kindOf[JoinAccept](),
	3:  kindOf[JoinRedirect](),
	4:  kindOf[JoinRefuse](),
	5:  kindOf[Siblings](),
	6:  kindOf[PartitionInfo](),
	7:  kindOf[Reset](),
	8:  kindOf[RoutingInfo](),
	9:  kindOf[Multicast](),
	10: kindOf[Ping](),
	11: kindOf[Recover](),
	12: kindOf[Recovered](),
	13: kindOf[CatchUp](),
	14: kindOf[Edge](),
	15: kindOf[CatchUpDone](),
}

// messageKind is one registered message type. Its zero value is an unused
// type byte.
type messageKind struct {
	name string         // the Go type name, for errors and tests
	new  func() Message // a zero message for the decoder to fill
	ptr  reflect.Type   // *T, the dynamic type of the Message
}

// kindOf describes message type T, whose pointer is the Message, as the
// decoder creates it.
func kindOf[T any, P interface {
	*T
	Message
}]() messageKind {
	return messageKind{
		name: reflect.TypeFor[T]().Name(),
		new:  func() Message { return P(new(T)) },
		ptr:  reflect.TypeFor[P](),
	}
}

// typeBytes inverts messages for the encoder, which holds a Message and
// needs its type byte.
var typeBytes = indexMessages(messages[:])

// indexMessages maps every registered type to its type byte. A type
// registered twice would make its type byte ambiguous: that is a
// programming error caught when the package loads.
func indexMessages(kinds []messageKind) map[reflect.Type]msgType {
	idx := make(map[reflect.Type]msgType, len(kinds))
	for t, k := range kinds {
		if k.new == nil {
			continue
		}
		if prev, dup := idx[k.ptr]; dup {
			panic(fmt.Sprintf("newsnet: %s registered as type %d and %d", k.name, prev, t))
		}
		idx[k.ptr] = msgType(t)
	}
	return idx
}

// typeOf returns m's type byte; ok is false if m's type is not registered.
func typeOf(m Message) (t msgType, ok bool) {
	t, ok = typeBytes[reflect.TypeOf(m)]
	return t, ok
}

// kindAt returns the message type registered under type byte t, or nil.
func kindAt(t msgType) *messageKind {
	if int(t) >= len(messages) || messages[t].new == nil {
		return nil
	}
	return &messages[t]
}
