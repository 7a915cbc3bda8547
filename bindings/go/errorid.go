package a2a

/*
#include "a2a_core.h"
*/
import "C"

import (
	"runtime"
	"time"
	"unsafe"
)

// subString turns a view the library returned INTO s back into a substring of s.
func subString(s string, v C.struct_a2a_str) string {
	if v.ptr == nil || v.len == 0 {
		return ""
	}
	off := uintptr(unsafe.Pointer(v.ptr)) - uintptr(unsafe.Pointer(unsafe.StringData(s)))
	return s[off : off+uintptr(v.len)]
}

// ExtractErrorID finds the first ADK error id (twelve lowercase hex digits after
// `error_id: `, `error_id=` or `[error_id=...]`) in text. The result is a substring of
// text; ok is false when there is none (or text is not UTF-8).
func ExtractErrorID(text string) (id string, ok bool) {
	p, n := cText(text)
	var out C.struct_a2a_str
	r := C.a2a_extract_error_id(p, n, &out)
	if r != C.A2A_OK {
		return "", false
	}
	id = subString(text, out)
	runtime.KeepAlive(text)
	return id, true
}

// LeakedException detects exception detail a debug setting appended to a failure text
// (`...: java.lang.IllegalStateException: boom`); ok is false when there is none.
func LeakedException(text string) (class, message string, ok bool) {
	p, n := cText(text)
	var c, m C.struct_a2a_str
	if C.a2a_leaked_exception(p, n, &c, &m) != C.A2A_OK {
		return "", "", false
	}
	class, message = subString(text, c), subString(text, m)
	runtime.KeepAlive(text)
	return class, message, true
}

// ParseRetryAfter reads a Retry-After value in delta-seconds ("3"); ok is false for an
// HTTP-date (which needs a clock) or garbage.
func ParseRetryAfter(value string) (d time.Duration, ok bool) {
	// The library reads Retry-After in one place, the classifier: an HTTP error with no
	// body and this header, classified without a clock, carries exactly its delta-seconds.
	o, err := Classify(Response{Status: 503, RetryAfter: value})
	if err != nil {
		return 0, false
	}
	defer o.Close()
	if o.RetryAfter == nil {
		return 0, false
	}
	return *o.RetryAfter, true
}

// IsEventStream reports whether a Content-Type value is text/event-stream.
func IsEventStream(contentType string) bool {
	p, n := cText(contentType)
	return bool(C.a2a_is_event_stream(p, n))
}
