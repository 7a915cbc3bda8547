package a2a

/*
#include "a2a_core.h"
*/
import "C"

import (
	"crypto/rand"
	"runtime"
	"time"
	"unsafe"
)

// Server-side codes (8xx of a2a_result).
const (
	CodeServerRefused   Code = C.A2A_SERVER_REFUSED   // answer with RefusalResponse
	CodeServerReply     Code = C.A2A_SERVER_REPLY     // the reply JSON is not the method's shape
	CodeServerStreaming Code = C.A2A_SERVER_STREAMING // a streaming method: write frames
	CodeServerErrorID   Code = C.A2A_SERVER_ERROR_ID  // an error id that is not 12 lowercase hex
)

// ServerOptions says which protocol versions a server speaks and which Host it answers
// for (nil: both versions, no Host check; a non-nil ServerOptions serves only the versions
// it sets).
type ServerOptions struct {
	V0_3, V1_0 bool
	// Deprecated: use V0_3 (either one set means 0.3 is served).
	V03 bool
	// Deprecated: use V1_0 (either one set means 1.0 is served).
	V10 bool
	// BoundAddr is the address the listener is bound to ("127.0.0.1:8080", "[::1]:8080";
	// ListenerAddr(r) under net/http), "" for no Host check. A loopback address turns on the
	// DNS-rebinding defence: a Host other than a loopback address or localhost on this port,
	// or one of HostNames, is refused (421; 400 when missing or malformed). Pass the Host in
	// the headers (RequestHeaders(r) does).
	BoundAddr string
	// HostNames are extra names the server answers for ("agent.example.com": any port;
	// "agent.example.com:8443": that port); listing one turns the check on for any
	// BoundAddr. Needs BoundAddr.
	HostNames []string
}

// cServerOptions is o for C; the pinner keeps the strings it points to in place.
func cServerOptions(pin *runtime.Pinner, o *ServerOptions) *C.struct_a2a_server_options {
	if o == nil {
		return nil
	}
	out := &C.struct_a2a_server_options{v0_3: C.bool(o.V0_3 || o.V03), v1_0: C.bool(o.V1_0 || o.V10)}
	out.bound_addr, out.bound_addr_len = pinText(pin, o.BoundAddr)
	if len(o.HostNames) > 0 {
		views := make([]C.struct_a2a_str, len(o.HostNames))
		for i, n := range o.HostNames {
			views[i].ptr, views[i].len = pinText(pin, n)
		}
		pin.Pin(&views[0])
		out.host_names, out.host_names_len = &views[0], C.size_t(len(views))
	}
	pin.Pin(out)
	return out
}

// ServerRequestInfo is what a parsed request asks.
type ServerRequestInfo struct {
	Version    ProtocolVersion // answers are written in the same
	Binding    Binding
	Method     Method
	Streaming  bool   // answer with frames, not a response
	RPCID      string // "" for HTTP+JSON
	Tenant     string
	Extensions []string // extension URIs the client asked for
	// Traceparent is the caller's W3C traceparent when it sent a valid one ("" otherwise).
	Traceparent string
	// IdempotencyKey is the caller's Idempotency-Key, trimmed ("" when none): the same key
	// means the same operation, so answer a repeat with the first result.
	IdempotencyKey string
}

// ServerRequest is one A2A request read by a server.
type ServerRequest struct {
	owned[*C.a2a_server_request]
}

// ServerResponse is a complete response to write, copied out of the library.
type ServerResponse struct {
	Status  int
	Headers []Header
	Body    []byte
	Served  Served
}

// Served says what a response answered, for the server's own tally.
type Served struct {
	Channel Channel // what a client classifying the response will see
	Code    string  // tally code: error name, task state, or "message"
	Method  string  // the method's 1.0 name, or "unknown"
}

func newServerRequest() (*ServerRequest, error) {
	var h *C.a2a_server_request
	if r := C.a2a_server_request_new(&h); r != C.A2A_OK {
		return nil, codeErr("ServerRequest", r)
	}
	s := &ServerRequest{}
	own(s, &s.owned, h, func(h *C.a2a_server_request) { C.a2a_server_request_free(h) })
	return s, nil
}

func (s *ServerRequest) parsed(op string, r C.a2a_result) (*ServerRequest, error) {
	switch r {
	case C.A2A_OK:
		return s, nil
	case C.A2A_SERVER_REFUSED:
		return s, mkErr(op, r, C.a2a_server_request_last_error(s.h))
	default:
		err := mkErr(op, r, C.a2a_server_request_last_error(s.h))
		s.Close()
		return nil, err
	}
}

// ParseJSONRPC reads a JSON-RPC request (a POST body) with its headers. When the request
// must be refused (a Host not served: 421; a body not declared application/json or
// application/a2a+json: 415; a batch; wrong version, unknown method, bad params, ...) it
// returns the request AND an error matching CodeServerRefused: answer with
// req.RefusalResponse(). Options that do not parse (BoundAddr, HostNames) are an error
// matching CodeInvalidArgument, with no request.
func ParseJSONRPC(headers []Header, body []byte, opts *ServerOptions) (*ServerRequest, error) {
	s, err := newServerRequest()
	if err != nil {
		return nil, err
	}
	var pin runtime.Pinner
	defer pin.Unpin()
	hp, hn := cHeaders(&pin, headers)
	bp, bn := cBytes(body)
	r := C.a2a_server_parse_jsonrpc(s.h, hp, hn, bp, bn, cServerOptions(&pin, opts))
	runtime.KeepAlive(body)
	return s.parsed("ParseJSONRPC", r)
}

// ParseREST reads an HTTP+JSON request: verb, target relative to the interface URL
// (e.g. "/tasks/t-1?historyLength=5"), headers and body. Refusals as for ParseJSONRPC (a
// known path with the wrong verb is refused with 405; a task id, config id or tenant that
// decodes to one with "/" or a control character, or to "." or "..", with 400).
func ParseREST(verb, target string, headers []Header, body []byte, opts *ServerOptions) (*ServerRequest, error) {
	s, err := newServerRequest()
	if err != nil {
		return nil, err
	}
	var pin runtime.Pinner
	defer pin.Unpin()
	hp, hn := cHeaders(&pin, headers)
	vp, vn := cText(verb)
	tp, tn := cText(target)
	bp, bn := cBytes(body)
	r := C.a2a_server_parse_rest(s.h, vp, vn, tp, tn, hp, hn, bp, bn, cServerOptions(&pin, opts))
	runtime.KeepAlive(verb)
	runtime.KeepAlive(target)
	runtime.KeepAlive(body)
	return s.parsed("ParseREST", r)
}

// Info is what the request asks; ok is false when it was refused.
func (s *ServerRequest) Info() (ServerRequestInfo, bool) {
	if s.h == nil {
		return ServerRequestInfo{}, false
	}
	var i C.struct_a2a_server_request_info
	if C.a2a_server_request_get_info(s.h, &i) != C.A2A_OK {
		return ServerRequestInfo{}, false
	}
	info := ServerRequestInfo{Version: ProtocolVersion(i.version), Binding: Binding(i.binding),
		Method: Method(i.method), Streaming: bool(i.streaming), RPCID: goStr(i.rpc_id), Tenant: goStr(i.tenant),
		Traceparent:    goStr(C.a2a_server_request_traceparent(s.h)),
		IdempotencyKey: goStr(C.a2a_server_request_idempotency_key(s.h))}
	for k := range int(i.extension_count) {
		var e C.struct_a2a_str
		if C.a2a_server_request_extension(s.h, C.size_t(k), &e) == C.A2A_OK {
			info.Extensions = append(info.Extensions, goStr(e))
		}
	}
	return info, true
}

// Params are the call's params as one JSON object in A2A 1.0 ProtoJSON, whatever version
// the request was spoken in ("{}" for methods without params; nil when refused).
func (s *ServerRequest) Params() []byte {
	if s.h == nil {
		return nil
	}
	return goBytes(C.a2a_server_request_params(s.h))
}

// respond runs fn on a fresh response handle and copies the response out.
func (s *ServerRequest) respond(op string, fn func(*C.a2a_server_response) C.a2a_result) (*ServerResponse, error) {
	if s.h == nil {
		return nil, ErrClosed
	}
	var h *C.a2a_server_response
	if r := C.a2a_server_response_new(&h); r != C.A2A_OK {
		return nil, codeErr(op, r)
	}
	defer C.a2a_server_response_free(h)
	switch r := fn(h); r {
	case C.A2A_OK:
	case C.A2A_NONE:
		return nil, &Error{Op: op, Code: CodeNone, Detail: "no request was parsed (or, for a refusal, it was not refused)"}
	default:
		return nil, mkErr(op, r, C.a2a_server_request_last_error(s.h))
	}
	var info C.struct_a2a_server_response_info
	if r := C.a2a_server_response_get_info(h, &info); r != C.A2A_OK {
		return nil, codeErr(op, r)
	}
	out := &ServerResponse{Status: int(info.status), Body: goBytes(info.body)}
	if out.Body == nil {
		out.Body = []byte{}
	}
	for i := range int(info.header_count) {
		var n, v C.struct_a2a_str
		if C.a2a_server_response_header(h, C.size_t(i), &n, &v) == C.A2A_OK {
			out.Headers = append(out.Headers, Header{goStr(n), goStr(v)})
		}
	}
	sv := info.served
	out.Served = Served{Channel: Channel(sv.channel), Code: goStr(sv.code), Method: goStr(sv.method)}
	return out, nil
}

// RefusalResponse is the error response to a refused request (JSON-RPC errors are HTTP
// 200; HTTP+JSON errors carry the mapped status).
func (s *ServerRequest) RefusalResponse() (*ServerResponse, error) {
	return s.respond("ServerRequest.RefusalResponse", func(h *C.a2a_server_response) C.a2a_result {
		return C.a2a_server_refusal_response(s.h, h)
	})
}

// ResultResponse is the success response: replyJSON is the method's result in A2A 1.0
// ProtoJSON ({"task":...} or {"message":...} for SendMessage, a Task for GetTask, ...),
// rewritten in the request's version and binding.
func (s *ServerRequest) ResultResponse(replyJSON []byte) (*ServerResponse, error) {
	return s.respond("ServerRequest.ResultResponse", func(h *C.a2a_server_response) C.a2a_result {
		p, n := cBytes(replyJSON)
		r := C.a2a_server_result_response(s.h, p, n, h)
		runtime.KeepAlive(replyJSON)
		return r
	})
}

// ErrorResponse is the error response to a request that failed in the handler (name: a
// protocol error name; others become Internal; message "" for the standard one).
func (s *ServerRequest) ErrorResponse(name ErrorName, message string) (*ServerResponse, error) {
	return s.respond("ServerRequest.ErrorResponse", func(h *C.a2a_server_response) C.a2a_result {
		p, n := cText(message)
		r := C.a2a_server_error_response(s.h, C.uint32_t(name), p, n, h)
		runtime.KeepAlive(message)
		return r
	})
}

// frame runs fn on a fresh buffer and returns a copy of what it appended.
func (s *ServerRequest) frame(op string, fn func(*C.a2a_buffer) C.a2a_result) ([]byte, error) {
	if s.h == nil {
		return nil, ErrClosed
	}
	return withBuffer(op, fn)
}

// EventFrame is the SSE frame of one stream event (a StreamResponse in 1.0 ProtoJSON:
// {"task":...}, {"statusUpdate":...}, {"artifactUpdate":...} or {"message":...}) in the
// request's version and binding.
func (s *ServerRequest) EventFrame(eventJSON []byte) ([]byte, error) {
	return s.frame("ServerRequest.EventFrame", func(b *C.a2a_buffer) C.a2a_result {
		p, n := cBytes(eventJSON)
		r := C.a2a_server_event_frame(s.h, p, n, b)
		runtime.KeepAlive(eventJSON)
		return r
	})
}

// ErrorFrame is the frame of an error after the stream started.
func (s *ServerRequest) ErrorFrame(name ErrorName, message string) ([]byte, error) {
	return s.frame("ServerRequest.ErrorFrame", func(b *C.a2a_buffer) C.a2a_result {
		p, n := cText(message)
		r := C.a2a_server_error_frame(s.h, C.uint32_t(name), p, n, b)
		runtime.KeepAlive(message)
		return r
	})
}

// FailedFrame is the frame of a task's final FAILED status update with the ADK-style
// text "Agent execution failed. (error_id: <id>)" (then debugDetail, only in debug
// deployments: it may leak internals). errorID: 12 lowercase hex digits (NewErrorID).
func (s *ServerRequest) FailedFrame(taskID, contextID, messageID, errorID, debugDetail string) ([]byte, error) {
	return s.frame("ServerRequest.FailedFrame", func(b *C.a2a_buffer) C.a2a_result {
		tp, tn := cText(taskID)
		cp, cn := cText(contextID)
		mp, mn := cText(messageID)
		ep, en := cText(errorID)
		dp, dn := cText(debugDetail)
		r := C.a2a_server_failed_frame(s.h, tp, tn, cp, cn, mp, mn, ep, en, dp, dn, b)
		runtime.KeepAlive(taskID)
		runtime.KeepAlive(contextID)
		runtime.KeepAlive(messageID)
		runtime.KeepAlive(errorID)
		runtime.KeepAlive(debugDetail)
		return r
	})
}

// FailureText is the ADK-style FAILED status text, for servers writing their own task
// JSON.
func FailureText(errorID, debugDetail string) (string, error) {
	out, err := withBuffer("FailureText", func(b *C.a2a_buffer) C.a2a_result {
		ep, en := cText(errorID)
		dp, dn := cText(debugDetail)
		return C.a2a_server_failure_text(ep, en, dp, dn, b)
	})
	return string(out), err
}

// ErrorIDFromRandom is the 12-hex error id of 6 random bytes.
func ErrorIDFromRandom(random [6]byte) string {
	var out [12]byte
	C.a2a_server_error_id_from_random((*C.uint8_t)(unsafe.Pointer(&random[0])), (*C.uint8_t)(unsafe.Pointer(&out[0])))
	return string(out[:])
}

// NewErrorID is a fresh error id from crypto/rand (log it beside the real cause).
func NewErrorID() (string, error) {
	var random [6]byte
	if _, err := rand.Read(random[:]); err != nil {
		return "", err
	}
	return ErrorIDFromRandom(random), nil
}

// StreamHeaders are the headers a streaming response starts with (Content-Type:
// text/event-stream, no caching, no proxy buffering).
func StreamHeaders() []Header {
	var out []Header
	for i := C.size_t(0); ; i++ {
		var n, v C.struct_a2a_str
		if C.a2a_server_stream_header(i, &n, &v) != C.A2A_OK {
			return out
		}
		out = append(out, Header{goStr(n), goStr(v)})
	}
}

// KeepAliveDue says whether a keep-alive comment (KeepAliveComment) is due on a quiet
// stream at now, given its last write (event or comment) on the caller's clock, and how long
// the caller may sleep before the next one. interval 0 is the default, 15 s. After writing a
// comment, pass now as the last write.
func KeepAliveDue(interval, now, lastWrite time.Duration) (due bool, wait time.Duration) {
	var w C.uint64_t
	due = bool(C.a2a_server_keepalive_due(durMS(interval), durMS(now), durMS(lastWrite), &w, nil))
	return due, time.Duration(w) * time.Millisecond
}

// KeepAliveComment is the comment to write on a quiet stream (an SSE comment line and a
// blank line).
func KeepAliveComment() []byte {
	// A 1 ms interval a whole millisecond after the last write: always due, so the core
	// hands out its comment.
	var comment C.struct_a2a_bytes
	C.a2a_server_keepalive_due(1, 1, 0, nil, &comment)
	return goBytes(comment)
}
