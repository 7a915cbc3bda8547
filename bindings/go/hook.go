package a2a

/*
#include "a2a_core.h"
*/
import "C"

import (
	"fmt"
	"runtime/cgo"
	"unsafe"
)

// HeaderSetter sets request headers from inside a HeaderHook; it is valid only during
// that call.
type HeaderSetter struct {
	s *C.struct_a2a_header_setter
}

// Set sets header name to value, replacing any header of that name. A name that is not a
// token, or a value with CR, LF or NUL, is refused (header injection). A reserved header
// (framing: Host, Content-Length, Transfer-Encoding; connection management: Connection,
// Keep-Alive, Proxy-Connection, TE, Trailer, Upgrade, Expect; protocol: A2A-Version,
// Content-Type, Accept) is refused with CodeRequestReservedHeader, and the call fails
// unsent (InvalidRequest, naming the header) even if the hook ignores the error.
func (h *HeaderSetter) Set(name, value string) error {
	if h.s == nil {
		return ErrClosed
	}
	np, nn := cText(name)
	vp, vn := cText(value)
	if r := C.a2a_header_setter_set(h.s, np, nn, vp, vn); r != C.A2A_OK {
		return codeErr("HeaderSetter.Set", r)
	}
	return nil
}

// HeaderHook is called for every A2A request a Client makes (never for the card fetch),
// with the method's name (SendMessage, GetTask, ...; MethodFromJSONRPCName reads it), to add or replace headers (credentials, traceparent,
// routing keys). It runs on the calling goroutine's thread, possibly concurrently for
// concurrent calls, and must not panic (a panic is recovered and recorded, see
// Client.HookPanics; the request then goes out with the headers set before it).
type HeaderHook func(method string, h *HeaderSetter)

// hookEntry is what a C userdata pointer leads to: the hook and its client's panic count.
type hookEntry struct {
	hook   HeaderHook
	panics *hookPanics
}

//export a2aGoHeaderHook
func a2aGoHeaderHook(userdata unsafe.Pointer, method *C.char, methodLen C.size_t, setter *C.struct_a2a_header_setter) {
	entry := cgo.Handle(*(*C.uintptr_t)(userdata)).Value().(*hookEntry)
	hs := &HeaderSetter{s: setter}
	defer func() {
		hs.s = nil // a setter kept by the hook is dead after the call
		if p := recover(); p != nil {
			entry.panics.n.Add(1)
			entry.panics.last.Store(fmt.Sprint(p))
		}
	}()
	entry.hook(C.GoStringN(method, C.int(methodLen)), hs)
}
