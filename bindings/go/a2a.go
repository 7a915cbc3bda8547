// Package a2a is the Go binding of a2a-core, the sans-IO A2A (Agent2Agent) protocol core,
// over its C ABI (liba2a_core, include/a2a_core.h).
//
// Memory rule: the library never keeps a pointer into Go memory. Inputs are passed for the
// duration of one call only (the SSE decoder is fed through the copying batch call), and
// every view the library hands back is copied into Go memory before the next call on the
// same handle. Handles (Decoder, Tally, Outcome, ...) are freed by Close;
// a cleanup attached to each one frees it when it becomes unreachable, as a safety net
// only. A handle is not safe for concurrent use; distinct handles are independent.
//
// Linking (one build tag picks the library; see README, "Install"):
//   - -tags a2a_pkgconfig: the installed library (scripts/install), through
//     `#cgo pkg-config: a2a_core`, header included; -tags a2a_pkgconfig_static links its
//     archive (a2a_core-static), so the program needs no liba2a_core at run time.
//   - no tag (development in a checkout): <repo>/target/release, the build of
//     `cargo build -p a2a-core-ffi --release`, with the repository's header.
//   - -tags a2a_debug: <repo>/target/debug, only when asked for by name (CI does).
//   - -tags a2a_system: nothing of ours but the header; CGO_LDFLAGS says where the library is.
package a2a

/*
#include <stdlib.h>
#include "a2a_core.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"runtime"
	"unsafe"
)

// Code is an a2a_result code of the C ABI. A Code other than CodeOK is an error value:
// compare with errors.Is(err, a2a.CodeInvalidUTF8).
type Code uint32

// Result codes of the C ABI (a2a_result) that Go callers may meet.
const (
	CodeOK                    Code = C.A2A_OK
	CodeNeedMore              Code = C.A2A_NEED_MORE
	CodeNone                  Code = C.A2A_NONE
	CodeNullParameter         Code = C.A2A_NULL_PARAMETER
	CodeInvalidUTF8           Code = C.A2A_INVALID_UTF8
	CodeInvalidArgument       Code = C.A2A_INVALID_ARGUMENT
	CodeInUse                 Code = C.A2A_IN_USE // the handle is in use by another goroutine (not thread-safe)
	CodeClosed                Code = C.A2A_CLOSED // the handle is being freed (its free waits for calls in flight)
	CodeVersionMalformed      Code = C.A2A_VERSION_MALFORMED
	CodeVersionUnsupported    Code = C.A2A_VERSION_UNSUPPORTED
	CodeBindingUnknown        Code = C.A2A_BINDING_UNKNOWN
	CodeSSELineTooLong        Code = C.A2A_SSE_LINE_TOO_LONG
	CodeSSEEventTooLarge      Code = C.A2A_SSE_EVENT_TOO_LARGE
	CodeSSEIDNul              Code = C.A2A_SSE_ID_NUL
	CodeSSEEventTypeLineBreak Code = C.A2A_SSE_EVENT_TYPE_LINE_BREAK
	CodeSSEIDLineBreak        Code = C.A2A_SSE_ID_LINE_BREAK
	CodeSSELimit              Code = C.A2A_SSE_LIMIT
	CodeSSEEncode             Code = C.A2A_SSE_ENCODE
	CodePanic                 Code = C.A2A_PANIC
)

// Error returns the library's static description of the code.
func (c Code) Error() string { return goStr(C.a2a_result_describe(C.uint32_t(c))) }

// Error is a failed call: which operation, the library's code and, when the handle had
// one, its last-error message. errors.Is(err, code) matches the code.
type Error struct {
	Op     string // the Go method, e.g. "Decoder.Feed"
	Code   Code   // the a2a_result
	Detail string // the handle's last-error message, or empty
}

// Error formats the operation, the detail and the code.
func (e *Error) Error() string {
	if e.Detail != "" && e.Detail != e.Code.Error() {
		return fmt.Sprintf("a2a: %s: %s (%s)", e.Op, e.Detail, e.Code.Error())
	}
	return fmt.Sprintf("a2a: %s: %s", e.Op, e.Code.Error())
}

// Unwrap returns the code, for errors.Is.
func (e *Error) Unwrap() error { return e.Code }

// ErrClosed is returned by a method called on a handle after its Close.
var ErrClosed = errors.New("a2a: use of a closed handle")

func mkErr(op string, r C.a2a_result, detail C.struct_a2a_str) error {
	return &Error{Op: op, Code: Code(r), Detail: goStr(detail)}
}

func codeErr(op string, r C.a2a_result) error { return &Error{Op: op, Code: Code(r)} }

// LibraryVersion is the version of the loaded liba2a_core (MAJOR.MINOR.PATCH).
func LibraryVersion() string { return goStr(C.a2a_version()) }

// HeaderVersion is the version of the header this package was compiled against.
const HeaderVersion = "0.1.0"

// goStr copies a text view into a Go string ("" when absent).
func goStr(s C.struct_a2a_str) string {
	if s.ptr == nil || s.len == 0 {
		return ""
	}
	return C.GoStringN(s.ptr, C.int(s.len))
}

// goOptStr copies an optional text view: nil when absent.
func goOptStr(s C.struct_a2a_str) *string {
	if s.ptr == nil {
		return nil
	}
	v := goStr(s)
	return &v
}

// goBytes copies a byte view: nil when absent, non-nil empty when present and empty.
func goBytes(b C.struct_a2a_bytes) []byte {
	if b.ptr == nil {
		return nil
	}
	out := make([]byte, int(b.len))
	copy(out, unsafe.Slice((*byte)(unsafe.Pointer(b.ptr)), int(b.len)))
	return out
}

// cText returns (ptr, len) of a Go string for the duration of a call: the pointer refers
// to Go memory, which C reads during the call and never keeps.
func cText(s string) (*C.char, C.size_t) {
	if len(s) == 0 {
		return nil, 0
	}
	return (*C.char)(unsafe.Pointer(unsafe.StringData(s))), C.size_t(len(s))
}

// cBytes returns (ptr, len) of a Go byte slice for the duration of a call.
func cBytes(b []byte) (*C.uint8_t, C.size_t) {
	if len(b) == 0 {
		return nil, 0
	}
	return (*C.uint8_t)(unsafe.Pointer(unsafe.SliceData(b))), C.size_t(len(b))
}

// pinText stores a Go string's bytes in a C struct field pair that lives in Go memory;
// the pinner keeps the bytes in place until Unpin (cgo's rule for Go memory holding Go
// pointers passed to C).
func pinText(p *runtime.Pinner, s string) (*C.char, C.size_t) {
	if len(s) == 0 {
		return nil, 0
	}
	ptr := unsafe.StringData(s)
	p.Pin(ptr)
	return (*C.char)(unsafe.Pointer(ptr)), C.size_t(len(s))
}

func pinBytes(p *runtime.Pinner, b []byte) (*C.uint8_t, C.size_t) {
	if len(b) == 0 {
		return nil, 0
	}
	ptr := unsafe.SliceData(b)
	p.Pin(ptr)
	return (*C.uint8_t)(unsafe.Pointer(ptr)), C.size_t(len(b))
}
