package a2a

/*
#include "a2a_core.h"
*/
import "C"

import (
	"net/http"
	"runtime"
)

// HTTP/1.1 error codes (5xx of a2a_result).
const (
	CodeHTTP1Method               Code = C.A2A_HTTP1_METHOD
	CodeHTTP1Target               Code = C.A2A_HTTP1_TARGET
	CodeHTTP1Host                 Code = C.A2A_HTTP1_HOST
	CodeHTTP1HeaderName           Code = C.A2A_HTTP1_HEADER_NAME
	CodeHTTP1HeaderValue          Code = C.A2A_HTTP1_HEADER_VALUE
	CodeHTTP1ReservedHeader       Code = C.A2A_HTTP1_RESERVED_HEADER
	CodeHTTP1Malformed            Code = C.A2A_HTTP1_MALFORMED
	CodeHTTP1HeadTooLarge         Code = C.A2A_HTTP1_HEAD_TOO_LARGE
	CodeHTTP1TooManyHeaders       Code = C.A2A_HTTP1_TOO_MANY_HEADERS
	CodeHTTP1ConflictingLength    Code = C.A2A_HTTP1_CONFLICTING_CONTENT_LENGTH
	CodeHTTP1InvalidChunkSize     Code = C.A2A_HTTP1_INVALID_CHUNK_SIZE
	CodeHTTP1ClosedBeforeResponse Code = C.A2A_HTTP1_CLOSED_BEFORE_RESPONSE
	CodeHTTP1TruncatedHead        Code = C.A2A_HTTP1_TRUNCATED_HEAD
	CodeHTTP1TruncatedBody        Code = C.A2A_HTTP1_TRUNCATED_BODY
)

// Header is one request header field.
type Header struct{ Name, Value string }

// withBuffer runs fn with a fresh library buffer and returns a copy of what it appended.
func withBuffer(op string, fn func(*C.a2a_buffer) C.a2a_result) ([]byte, error) {
	var b *C.a2a_buffer
	if r := C.a2a_buffer_new(&b); r != C.A2A_OK {
		return nil, codeErr(op, r)
	}
	defer C.a2a_buffer_free(b)
	if r := fn(b); r != C.A2A_OK {
		return nil, mkErr(op, r, C.a2a_buffer_last_error(b))
	}
	out := goBytes(C.a2a_buffer_bytes(b))
	if out == nil {
		out = []byte{}
	}
	return out, nil
}

// cHeaders lays headers out as the C ABI's a2a_header array, pinned by pin (nil, 0 when
// there are none).
func cHeaders(pin *runtime.Pinner, headers []Header) (*C.struct_a2a_header, C.size_t) {
	if len(headers) == 0 {
		return nil, 0
	}
	hs := make([]C.struct_a2a_header, len(headers))
	for i, h := range headers {
		hs[i].name, hs[i].name_len = pinText(pin, h.Name)
		hs[i].value, hs[i].value_len = pinText(pin, h.Value)
	}
	pin.Pin(&hs[0])
	return &hs[0], C.size_t(len(hs))
}

// cHTTPHeaders is cHeaders of a net/http header map: one entry per value.
func cHTTPHeaders(pin *runtime.Pinner, h http.Header) (*C.struct_a2a_header, C.size_t) {
	var hs []C.struct_a2a_header
	for k, vs := range h {
		for _, v := range vs {
			var ch C.struct_a2a_header
			ch.name, ch.name_len = pinText(pin, k)
			ch.value, ch.value_len = pinText(pin, v)
			hs = append(hs, ch)
		}
	}
	if len(hs) == 0 {
		return nil, 0
	}
	pin.Pin(&hs[0])
	return &hs[0], C.size_t(len(hs))
}
