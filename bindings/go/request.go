package a2a

/*
#include "a2a_core.h"
*/
import "C"

import (
	"runtime"
	"strconv"
)

// Method is an A2A method, independent of version and binding.
type Method uint32

// Methods (a2a_method).
const (
	MethodSendMessage          Method = C.A2A_METHOD_SEND_MESSAGE
	MethodSendStreamingMessage Method = C.A2A_METHOD_SEND_STREAMING_MESSAGE
	MethodGetTask              Method = C.A2A_METHOD_GET_TASK
	MethodListTasks            Method = C.A2A_METHOD_LIST_TASKS
	MethodCancelTask           Method = C.A2A_METHOD_CANCEL_TASK
	MethodSubscribeToTask      Method = C.A2A_METHOD_SUBSCRIBE_TO_TASK
	MethodCreatePushConfig     Method = C.A2A_METHOD_CREATE_PUSH_CONFIG
	MethodGetPushConfig        Method = C.A2A_METHOD_GET_PUSH_CONFIG
	MethodListPushConfigs      Method = C.A2A_METHOD_LIST_PUSH_CONFIGS
	MethodDeletePushConfig     Method = C.A2A_METHOD_DELETE_PUSH_CONFIG
	MethodGetExtendedAgentCard Method = C.A2A_METHOD_GET_EXTENDED_AGENT_CARD
)

// Request builder codes (4xx of a2a_result).
const (
	CodeRequestParams           Code = C.A2A_REQUEST_PARAMS
	CodeRequestNotInVersion     Code = C.A2A_REQUEST_NOT_IN_VERSION
	CodeRequestMissingID        Code = C.A2A_REQUEST_MISSING_ID
	CodeRequestNotRepresentable Code = C.A2A_REQUEST_NOT_REPRESENTABLE
	CodeRequestBadHeader        Code = C.A2A_REQUEST_BAD_HEADER
	CodeRequestReservedHeader   Code = C.A2A_REQUEST_RESERVED_HEADER
	CodeRequestBadExtension     Code = C.A2A_REQUEST_BAD_EXTENSION
	CodeRequestBody             Code = C.A2A_REQUEST_BODY
)

// JSONRPCName is the wire name of m in version v ("message/send" in 0.3, "SendMessage"
// in 1.0); "" when the method does not exist there (ListTasks in 0.3).
func (m Method) JSONRPCName(v ProtocolVersion) string {
	switch v {
	case V0_3:
		return vocabName(C.A2A_VOCAB_METHOD_JSONRPC_V0_3, uint32(m))
	case V1_0:
		return vocabName(C.A2A_VOCAB_METHOD_JSONRPC_V1_0, uint32(m))
	}
	return ""
}

// MethodFromJSONRPCName reads a JSON-RPC method name of either version.
func MethodFromJSONRPCName(name string) (Method, ProtocolVersion, bool) {
	// 1.0's names first, then 0.3's, as the core looks them up.
	if m, r := vocabParse(C.A2A_VOCAB_METHOD_JSONRPC_V1_0, name); r == C.A2A_OK {
		return Method(m), V1_0, true
	}
	if m, r := vocabParse(C.A2A_VOCAB_METHOD_JSONRPC_V0_3, name); r == C.A2A_OK {
		return Method(m), V0_3, true
	}
	return 0, 0, false
}

// Interface is where a call goes: protocol version, binding and the 1.0 tenant.
type Interface struct {
	Version ProtocolVersion
	Binding Binding
	Tenant  string // "" when unset
}

// CallOptions are the per-call parts of a request. The JSON-RPC id is required for
// JSON-RPC: set ID (a number) or IDString.
type CallOptions struct {
	ID         *int64
	IDString   *string
	Extensions []string // extension URIs to activate
	Headers    []Header // appended as given (credentials, traceparent, Idempotency-Key)
}

// BuiltRequest is a request built for an interface, copied out of the library.
type BuiltRequest struct {
	Method     Method
	HTTPMethod string   // POST, GET, DELETE
	Path       string   // "" for JSON-RPC; "/..." for HTTP+JSON, relative to the interface URL
	Headers    []Header // in order
	Body       []byte   // empty for GET and DELETE
	RPCID      string   // the JSON-RPC id the response must echo ("" for HTTP+JSON)
}

// Asked is what to tell the classifier and the tracker about this request.
func (r *BuiltRequest) Asked(iface Interface) Asked {
	a := Asked{Version: iface.Version, Binding: iface.Binding, RequestID: r.RPCID}
	if iface.Binding == JSON_RPC {
		a.Method = r.Method.JSONRPCName(iface.Version)
	} else {
		a.Method = r.HTTPMethod + " " + r.Path
	}
	return a
}

// AppendHTTP1 appends the request as HTTP/1.1 to dst: the target joins basePath (the
// interface URL's path) and the request's path; host is the Host value.
func (r *BuiltRequest) AppendHTTP1(dst []byte, basePath, host string) ([]byte, error) {
	target, err := JoinTarget(basePath, r.Path)
	if err != nil {
		return dst, err
	}
	return AppendRequest(dst, r.HTTPMethod, target, host, r.Headers, r.Body)
}

func cInterface(pin *runtime.Pinner, iface Interface) C.struct_a2a_interface {
	var ci C.struct_a2a_interface
	ci.version, ci.binding = C.uint32_t(iface.Version), C.uint32_t(iface.Binding)
	ci.tenant, ci.tenant_len = pinText(pin, iface.Tenant)
	return ci
}

func cCallOptions(pin *runtime.Pinner, o *CallOptions) *C.struct_a2a_call_options {
	if o == nil {
		return nil
	}
	out := &C.struct_a2a_call_options{}
	switch {
	case o.ID != nil:
		out.id_kind, out.id_number = C.A2A_RPC_ID_KIND_NUMBER, C.int64_t(*o.ID)
	case o.IDString != nil:
		out.id_kind = C.A2A_RPC_ID_KIND_STRING
		out.id_string, out.id_string_len = pinText(pin, *o.IDString)
	}
	if len(o.Extensions) > 0 {
		views := make([]C.struct_a2a_str, len(o.Extensions))
		for i, e := range o.Extensions {
			views[i].ptr, views[i].len = pinText(pin, e)
		}
		pin.Pin(&views[0])
		out.extensions, out.extensions_len = &views[0], C.size_t(len(views))
	}
	out.headers, out.headers_len = cHeaders(pin, o.Headers)
	return out
}

// buildWith runs one build call on a fresh request handle and copies the result out.
func buildWith(op string, fn func(*C.a2a_request, *runtime.Pinner) C.a2a_result) (*BuiltRequest, error) {
	var h *C.a2a_request
	if r := C.a2a_request_new(&h); r != C.A2A_OK {
		return nil, codeErr(op, r)
	}
	defer C.a2a_request_free(h)
	var pin runtime.Pinner
	defer pin.Unpin()
	if r := fn(h, &pin); r != C.A2A_OK {
		return nil, mkErr(op, r, C.a2a_request_last_error(h))
	}
	return readRequest(h), nil
}

func readRequest(h *C.a2a_request) *BuiltRequest {
	out := &BuiltRequest{
		HTTPMethod: goStr(C.a2a_request_http_method(h)),
		Path:       goStr(C.a2a_request_path(h)),
		Body:       goBytes(C.a2a_request_body(h)),
		RPCID:      goStr(C.a2a_request_rpc_id(h)),
	}
	var m C.a2a_method
	if C.a2a_request_a2a_method(h, &m) {
		out.Method = Method(m)
	}
	if out.Body == nil {
		out.Body = []byte{}
	}
	n := int(C.a2a_request_header_count(h))
	out.Headers = make([]Header, 0, n)
	for i := range n {
		var name, value C.struct_a2a_str
		if C.a2a_request_header(h, C.size_t(i), &name, &value) == C.A2A_OK {
			out.Headers = append(out.Headers, Header{goStr(name), goStr(value)})
		}
	}
	return out
}

// BuildRequest builds the request for method with its parameters (a JSON object in any
// version's form, read tolerantly; nil for none) on iface.
func BuildRequest(iface Interface, method Method, paramsJSON []byte, opts *CallOptions) (*BuiltRequest, error) {
	return buildWith("BuildRequest", func(h *C.a2a_request, pin *runtime.Pinner) C.a2a_result {
		ci := cInterface(pin, iface)
		pp, pn := cBytes(paramsJSON)
		r := C.a2a_request_build(h, &ci, C.uint32_t(method), pp, pn, cCallOptions(pin, opts))
		runtime.KeepAlive(paramsJSON)
		return r
	})
}

// BuildTextMessage builds a SendMessage request with one user text part; reuse messageID
// when retrying the same message.
func BuildTextMessage(iface Interface, messageID, text string, opts *CallOptions) (*BuiltRequest, error) {
	return buildWith("BuildTextMessage", func(h *C.a2a_request, pin *runtime.Pinner) C.a2a_result {
		ci := cInterface(pin, iface)
		mp, mn := cText(messageID)
		tp, tn := cText(text)
		r := C.a2a_request_build_text(h, &ci, mp, mn, tp, tn, cCallOptions(pin, opts))
		runtime.KeepAlive(messageID)
		runtime.KeepAlive(text)
		return r
	})
}

// NumberID is a convenience for CallOptions.ID.
func NumberID(id int64) *int64 { return &id }

// String formats the method with its 1.0 name.
func (m Method) String() string {
	if s := m.JSONRPCName(V1_0); s != "" {
		return s
	}
	return "Method(" + strconv.Itoa(int(m)) + ")"
}
