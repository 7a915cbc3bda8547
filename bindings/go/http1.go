package a2a

/*
#include "a2a_core.h"
*/
import "C"

import (
	"runtime"
	"unsafe"
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

// AppendRequest appends a whole HTTP/1.1 request to dst: the request line, Host, the
// headers in order, Content-Length (for a body, or for POST/PUT/PATCH), a blank line and
// the body. Anything that could inject a header or a second request is refused (the
// error names the offending part); Host, Content-Length and Transfer-Encoding are the
// serializer's own.
func AppendRequest(dst []byte, method, target, host string, headers []Header, body []byte) ([]byte, error) {
	var pin runtime.Pinner
	defer pin.Unpin()
	hp, hn := cHeaders(&pin, headers)
	out, err := withBuffer("AppendRequest", func(b *C.a2a_buffer) C.a2a_result {
		mp, mn := cText(method)
		tp, tn := cText(target)
		sp, sn := cText(host)
		bp, bn := cBytes(body)
		var written C.size_t
		return C.a2a_http1_write_request(b, mp, mn, tp, tn, sp, sn, hp, hn, bp, bn, &written)
	})
	runtime.KeepAlive(body)
	if err != nil {
		return dst, err
	}
	return append(dst, out...), nil
}

// AppendRequestHead is AppendRequest without the body, for a body of bodyLen bytes the
// caller writes itself right after.
func AppendRequestHead(dst []byte, method, target, host string, headers []Header, bodyLen int) ([]byte, error) {
	var pin runtime.Pinner
	defer pin.Unpin()
	hp, hn := cHeaders(&pin, headers)
	out, err := withBuffer("AppendRequestHead", func(b *C.a2a_buffer) C.a2a_result {
		mp, mn := cText(method)
		tp, tn := cText(target)
		sp, sn := cText(host)
		var written C.size_t
		return C.a2a_http1_write_request_head(b, mp, mn, tp, tn, sp, sn, hp, hn, C.size_t(bodyLen), &written)
	})
	if err != nil {
		return dst, err
	}
	return append(dst, out...), nil
}

// JoinTarget joins an interface URL's path ("/a2a/v1" or "/a2a/v1/") and a path relative
// to it ("message:send", "/tasks/t1?historyLength=2", "?q=1" or "") with exactly one "/".
func JoinTarget(basePath, relative string) (string, error) {
	out, err := withBuffer("JoinTarget", func(b *C.a2a_buffer) C.a2a_result {
		bp, bn := cText(basePath)
		rp, rn := cText(relative)
		return C.a2a_http1_join_target(b, bp, bn, rp, rn)
	})
	return string(out), err
}

// HTTP1Limits bounds the response reader. Start from DefaultHTTP1Limits.
type HTTP1Limits struct {
	MaxHeadBytes, MaxHeaders, MaxInformational, MaxChunkLine, MaxTrailerBytes int
}

// DefaultHTTP1Limits are the reader's default limits.
func DefaultHTTP1Limits() HTTP1Limits {
	var l C.struct_a2a_http1_limits
	C.a2a_http1_limits_default(&l)
	return HTTP1Limits{int(l.max_head_bytes), int(l.max_headers), int(l.max_informational),
		int(l.max_chunk_line), int(l.max_trailer_bytes)}
}

// HTTP1Event is what one Feed of the response reader produced.
type HTTP1Event uint32

// Reader events (a2a_http1_event).
const (
	HTTP1NeedMore HTTP1Event = C.A2A_HTTP1_EVENT_NEED_MORE // read more, append, feed again
	HTTP1HeadDone HTTP1Event = C.A2A_HTTP1_EVENT_HEAD      // the final head is complete
	HTTP1Body     HTTP1Event = C.A2A_HTTP1_EVENT_BODY      // body bytes (framing removed)
	HTTP1End      HTTP1Event = C.A2A_HTTP1_EVENT_END       // the response is complete
)

// HTTP1Framing says how a response body is delimited.
type HTTP1Framing uint32

// Framings (a2a_http1_framing).
const (
	FramingEmpty      HTTP1Framing = C.A2A_HTTP1_FRAMING_EMPTY
	FramingLength     HTTP1Framing = C.A2A_HTTP1_FRAMING_LENGTH
	FramingChunked    HTTP1Framing = C.A2A_HTTP1_FRAMING_CHUNKED
	FramingUntilClose HTTP1Framing = C.A2A_HTTP1_FRAMING_UNTIL_CLOSE
)

// HTTP1Step is the result of one Feed: drop Consumed bytes from the front of your buffer
// after handling the step.
type HTTP1Step struct {
	Consumed int
	Event    HTTP1Event
	Body     []byte // HTTP1Body: a sub-slice of the input fed (no copy)
}

// HeaderField is one received header or trailer field.
type HeaderField struct {
	Name  string
	Value []byte // raw bytes (obs-text possible)
}

// HTTP1Head is the final status line and headers of a response, copied.
type HTTP1Head struct {
	Status        int
	MinorVersion  int // 0: HTTP/1.0, 1: HTTP/1.1
	Reason        string
	Framing       HTTP1Framing
	ContentLength uint64 // FramingLength only
	KeepAlive     bool
	Headers       []HeaderField
}

// Get returns the first header called name (case-insensitive ASCII).
func (h *HTTP1Head) Get(name string) (string, bool) {
	for _, f := range h.Headers {
		if len(f.Name) == len(name) && asciiEqualFold(f.Name, name) {
			return string(f.Value), true
		}
	}
	return "", false
}

func asciiEqualFold(a, b string) bool {
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

// ResponseReader is an incremental HTTP/1.1 response reader: you own the buffer, feed
// every unconsumed byte and drop what each step consumed. After an error it is spent.
type ResponseReader struct {
	owned[*C.a2a_http1_response]
}

// NewResponseReader reads the response to a request sent with method (a response to HEAD
// has no body); limits nil: the defaults.
func NewResponseReader(method string, limits *HTTP1Limits) (*ResponseReader, error) {
	mp, mn := cText(method)
	var h *C.a2a_http1_response
	var r C.a2a_result
	var l C.struct_a2a_http1_limits
	if limits == nil {
		if r = C.a2a_http1_limits_default(&l); r != C.A2A_OK {
			return nil, codeErr("NewResponseReader", r)
		}
	} else {
		l = C.struct_a2a_http1_limits{C.size_t(limits.MaxHeadBytes), C.size_t(limits.MaxHeaders),
			C.size_t(limits.MaxInformational), C.size_t(limits.MaxChunkLine), C.size_t(limits.MaxTrailerBytes)}
	}
	r = C.a2a_http1_response_new_with(mp, mn, &l, &h)
	if r != C.A2A_OK {
		return nil, codeErr("NewResponseReader", r)
	}
	rr := &ResponseReader{}
	own(rr, &rr.owned, h, func(h *C.a2a_http1_response) { C.a2a_http1_response_free(h) })
	return rr, nil
}

// Reset prepares the reader for the next response on the same connection.
func (r *ResponseReader) Reset(method string) error {
	if r.h == nil {
		return ErrClosed
	}
	mp, mn := cText(method)
	if rc := C.a2a_http1_response_reset(r.h, mp, mn); rc != C.A2A_OK {
		return codeErr("ResponseReader.Reset", rc)
	}
	return nil
}

// Feed reads one step from input (every unconsumed byte so far). The library keeps no
// pointer into input; a Body step's bytes are a sub-slice of input.
func (r *ResponseReader) Feed(input []byte) (HTTP1Step, error) {
	if r.h == nil {
		return HTTP1Step{}, ErrClosed
	}
	p, n := cBytes(input)
	var st C.struct_a2a_http1_step
	rc := C.a2a_http1_response_feed(r.h, p, n, &st)
	if rc != C.A2A_OK {
		return HTTP1Step{}, mkErr("ResponseReader.Feed", rc, C.a2a_http1_response_last_error(r.h))
	}
	step := HTTP1Step{Consumed: int(st.consumed), Event: HTTP1Event(st.event)}
	if st.body.ptr != nil && st.body.len > 0 {
		off := uintptr(unsafe.Pointer(st.body.ptr)) - uintptr(unsafe.Pointer(p))
		step.Body = input[off : off+uintptr(st.body.len) : off+uintptr(st.body.len)]
	}
	return step, nil
}

// Finish tells the reader the connection reached end of file: nil for a clean end,
// otherwise CodeHTTP1ClosedBeforeResponse (a stale pooled connection),
// CodeHTTP1TruncatedHead or CodeHTTP1TruncatedBody.
func (r *ResponseReader) Finish() error {
	if r.h == nil {
		return ErrClosed
	}
	if rc := C.a2a_http1_response_finish(r.h); rc != C.A2A_OK {
		return mkErr("ResponseReader.Finish", rc, C.a2a_http1_response_last_error(r.h))
	}
	return nil
}

func fields(count int, get func(C.size_t, *C.struct_a2a_str, *C.struct_a2a_bytes) C.a2a_result) []HeaderField {
	out := make([]HeaderField, 0, count)
	for i := range count {
		var n C.struct_a2a_str
		var v C.struct_a2a_bytes
		if get(C.size_t(i), &n, &v) != C.A2A_OK {
			break
		}
		val := goBytes(v)
		if val == nil {
			val = []byte{}
		}
		out = append(out, HeaderField{Name: goStr(n), Value: val})
	}
	return out
}

// Head is the final response head with every header, copied; ok is false before the
// head is complete.
func (r *ResponseReader) Head() (head HTTP1Head, ok bool) {
	if r.h == nil {
		return HTTP1Head{}, false
	}
	var h C.struct_a2a_http1_head
	if C.a2a_http1_response_head(r.h, &h) != C.A2A_OK {
		return HTTP1Head{}, false
	}
	head = HTTP1Head{Status: int(h.status), MinorVersion: int(h.minor_version), Reason: goStr(h.reason),
		Framing: HTTP1Framing(h.framing), ContentLength: uint64(h.content_length), KeepAlive: bool(h.keep_alive)}
	head.Headers = fields(int(h.header_count), func(i C.size_t, n *C.struct_a2a_str, v *C.struct_a2a_bytes) C.a2a_result {
		return C.a2a_http1_response_header(r.h, i, n, v)
	})
	return head, true
}

// Header is the value of the first header called name (case-insensitive).
func (r *ResponseReader) Header(name string) (string, bool) {
	if r.h == nil {
		return "", false
	}
	np, nn := cText(name)
	var v C.struct_a2a_bytes
	if C.a2a_http1_response_header_get(r.h, np, nn, &v) != C.A2A_OK {
		return "", false
	}
	return string(goBytes(v)), true
}

// Trailers are the trailer fields read after a chunked body.
func (r *ResponseReader) Trailers() []HeaderField {
	if r.h == nil {
		return nil
	}
	return fields(int(C.a2a_http1_response_trailer_count(r.h)), func(i C.size_t, n *C.struct_a2a_str, v *C.struct_a2a_bytes) C.a2a_result {
		return C.a2a_http1_response_trailer(r.h, i, n, v)
	})
}

// BodyReceived is the number of body bytes handed out so far.
func (r *ResponseReader) BodyReceived() uint64 {
	if r.h == nil {
		return 0
	}
	return uint64(C.a2a_http1_response_body_received(r.h))
}

// InformationalSkipped is the number of 1xx responses skipped.
func (r *ResponseReader) InformationalSkipped() int {
	if r.h == nil {
		return 0
	}
	return int(C.a2a_http1_response_informational_skipped(r.h))
}

// IsDone reports whether the response is complete.
func (r *ResponseReader) IsDone() bool { return r.h != nil && bool(C.a2a_http1_response_is_done(r.h)) }

// Reusable reports whether the connection may carry another request.
func (r *ResponseReader) Reusable() bool {
	return r.h != nil && bool(C.a2a_http1_response_reusable(r.h))
}
