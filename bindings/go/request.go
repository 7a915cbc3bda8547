package a2a

/*
#include "a2a_core.h"
*/
import "C"

import "strconv"

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

// Request codes (4xx of a2a_result): a header hook's HeaderSetter.Set returns
// CodeRequestReservedHeader and CodeRequestBadHeader.
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

// String formats the method with its 1.0 name.
func (m Method) String() string {
	if s := m.JSONRPCName(V1_0); s != "" {
		return s
	}
	return "Method(" + strconv.Itoa(int(m)) + ")"
}
