package a2a

import "fmt"

// String() for the enums whose names the library does not give (the others call the
// library's a2a_vocab_name). An unknown value prints as Type(n), as go vet's stringer would.

func enumName(names map[uint32]string, typ string, v uint32) string {
	if s, ok := names[v]; ok {
		return s
	}
	return fmt.Sprintf("%s(%d)", typ, v)
}

// String names the card shape.
func (s CardShape) String() string {
	return enumName(map[uint32]string{uint32(CardV1_0): "v1.0", uint32(CardV0_3): "v0.3", uint32(CardHybrid): "hybrid"}, "CardShape", uint32(s))
}

// String names the card's interface list.
func (l InterfaceList) String() string {
	return enumName(map[uint32]string{uint32(ListSupportedInterfaces): "supportedInterfaces",
		uint32(ListPreferredURL): "url", uint32(ListAdditionalInterfaces): "additionalInterfaces"}, "InterfaceList", uint32(l))
}

// String names the selection order.
func (o SelectionOrder) String() string {
	return enumName(map[uint32]string{uint32(ClientFirst): "client-first", uint32(CardFirst): "card-first"}, "SelectionOrder", uint32(o))
}

// String names the address class.
func (a AddressClass) String() string {
	return enumName(map[uint32]string{uint32(AddressPublic): "public", uint32(AddressLocalhostName): "localhost-name",
		uint32(AddressLoopback): "loopback", uint32(AddressPrivate): "private", uint32(AddressSharedAddressSpace): "shared-address-space",
		uint32(AddressLinkLocal): "link-local", uint32(AddressUniqueLocal): "unique-local", uint32(AddressUnspecified): "unspecified",
		uint32(AddressMulticast): "multicast", uint32(AddressOther): "other"}, "AddressClass", uint32(a))
}

// String names the decoder item kind.
func (k EventKind) String() string {
	return enumName(map[uint32]string{uint32(KindEvent): "event", uint32(KindComment): "comment", uint32(KindRetry): "retry"}, "EventKind", uint32(k))
}

// String names the stream event kind.
func (k ClientStreamEventKind) String() string {
	return enumName(map[uint32]string{uint32(StreamEventItem): "item", uint32(StreamEventResubscribing): "resubscribing",
		uint32(StreamEventEnd): "end"}, "ClientStreamEventKind", uint32(k))
}

// String describes the result code (as Error does).
func (c Code) String() string { return c.Error() }
