package a2a

/*
#include <stdbool.h>
#include "a2a_core.h"
*/
import "C"

import (
	"runtime"
)

// CardBuilder writes a server's agent card with the core's card builder: the 1.0
// supportedInterfaces in the order added, and the 0.3 fields (url, preferredTransport,
// additionalInterfaces) from the first 0.3 interface, so clients of both versions can pick an
// interface. Not safe for concurrent use.
type CardBuilder struct {
	owned[*C.a2a_card_builder]
}

// NewCardBuilder starts a card for the agent name, its description and its own version.
func NewCardBuilder(name, description, version string) (*CardBuilder, error) {
	var h *C.a2a_card_builder
	np, nn := cText(name)
	dp, dn := cText(description)
	vp, vn := cText(version)
	r := C.a2a_card_builder_new(np, nn, dp, dn, vp, vn, &h)
	runtime.KeepAlive(name)
	runtime.KeepAlive(description)
	runtime.KeepAlive(version)
	if r != C.A2A_OK {
		return nil, codeErr("NewCardBuilder", r)
	}
	b := &CardBuilder{}
	own(b, &b.owned, h, func(h *C.a2a_card_builder) { C.a2a_card_builder_free(h) })
	return b, nil
}

// AddInterface adds an interface (an absolute http(s) URL); the first added is the most
// preferred.
func (b *CardBuilder) AddInterface(url string, v ProtocolVersion, binding Binding) error {
	if b.h == nil {
		return ErrClosed
	}
	up, un := cText(url)
	r := C.a2a_card_builder_add_interface(b.h, up, un, C.uint32_t(v), C.uint32_t(binding))
	runtime.KeepAlive(url)
	if r != C.A2A_OK {
		return codeErr("CardBuilder.AddInterface", r)
	}
	return nil
}

// SetCapabilities sets capabilities.streaming and capabilities.pushNotifications.
func (b *CardBuilder) SetCapabilities(streaming, pushNotifications bool) error {
	if b.h == nil {
		return ErrClosed
	}
	if r := C.a2a_card_builder_set_capabilities(b.h, C.bool(streaming), C.bool(pushNotifications)); r != C.A2A_OK {
		return codeErr("CardBuilder.SetCapabilities", r)
	}
	return nil
}

func cStrs(pin *runtime.Pinner, items []string) (*C.struct_a2a_str, C.size_t) {
	if len(items) == 0 {
		return nil, 0
	}
	vs := make([]C.struct_a2a_str, len(items))
	for i, s := range items {
		vs[i].ptr, vs[i].len = pinText(pin, s)
	}
	pin.Pin(&vs[0])
	return &vs[0], C.size_t(len(vs))
}

// SetModes replaces the default input and output media types (text/plain both).
func (b *CardBuilder) SetModes(input, output []string) error {
	if b.h == nil {
		return ErrClosed
	}
	var pin runtime.Pinner
	defer pin.Unpin()
	ip, in := cStrs(&pin, input)
	op, on := cStrs(&pin, output)
	if r := C.a2a_card_builder_set_modes(b.h, ip, in, op, on); r != C.A2A_OK {
		return codeErr("CardBuilder.SetModes", r)
	}
	return nil
}

// AddSkill adds a skill (id, name and description must not be empty).
func (b *CardBuilder) AddSkill(id, name, description string, tags, examples []string) error {
	if b.h == nil {
		return ErrClosed
	}
	var pin runtime.Pinner
	defer pin.Unpin()
	s := &C.struct_a2a_card_skill{}
	s.id.ptr, s.id.len = pinText(&pin, id)
	s.name.ptr, s.name.len = pinText(&pin, name)
	s.description.ptr, s.description.len = pinText(&pin, description)
	s.tags, s.tags_len = cStrs(&pin, tags)
	s.examples, s.examples_len = cStrs(&pin, examples)
	pin.Pin(s)
	if r := C.a2a_card_builder_add_skill(b.h, s); r != C.A2A_OK {
		return codeErr("CardBuilder.AddSkill", r)
	}
	return nil
}

// Build is the card as compact JSON; an unusable card (no interface, an empty text, a URL
// that is not absolute http(s)) is an error saying why.
func (b *CardBuilder) Build() ([]byte, error) {
	if b.h == nil {
		return nil, ErrClosed
	}
	return withBuffer("CardBuilder.Build", func(buf *C.a2a_buffer) C.a2a_result {
		return C.a2a_card_builder_build(b.h, buf)
	})
}

// HintPair is one key=value of a stable hint.
type HintPair struct{ Key, Value string }

// HintText is the stable hint "[retryable=<r>; key=value; ...]" in the core's grammar
// (retryable nil: none); append it to a FAILED text or an error message after a space.
func HintText(retryable *bool, pairs []HintPair) (string, error) {
	var pin runtime.Pinner
	defer pin.Unpin()
	hs := make([]Header, len(pairs))
	for i, p := range pairs {
		hs[i] = Header{p.Key, p.Value}
	}
	hp, hn := cHeaders(&pin, hs)
	var flag *C.bool
	if retryable != nil {
		v := C.bool(*retryable) // Go memory without Go pointers: C may read it during the call
		flag = &v
	}
	out, err := withBuffer("HintText", func(b *C.a2a_buffer) C.a2a_result {
		return C.a2a_server_hint_text(flag, hp, hn, b)
	})
	return string(out), err
}

// AdmissionStatus is the CANCELED TaskStatus (A2A 1.0 ProtoJSON) of a request refused
// before it ran: its text names the reason and its metadata marks the cancel "admission",
// which the core's client classifier reads.
func AdmissionStatus(taskID, contextID, messageID, reason string) ([]byte, error) {
	return withBuffer("AdmissionStatus", func(b *C.a2a_buffer) C.a2a_result {
		tp, tn := cText(taskID)
		cp, cn := cText(contextID)
		mp, mn := cText(messageID)
		rp, rn := cText(reason)
		r := C.a2a_server_admission_status(tp, tn, cp, cn, mp, mn, rp, rn, b)
		runtime.KeepAlive(taskID)
		runtime.KeepAlive(contextID)
		runtime.KeepAlive(messageID)
		runtime.KeepAlive(reason)
		return r
	})
}
