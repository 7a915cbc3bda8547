package a2a

/*
#include "a2a_core.h"
*/
import "C"

// vocabName is the library's name of number v in vocabulary vocab (an A2A_VOCAB_* value,
// through a2a_vocab_name); "" when v has no name there.
func vocabName(vocab C.uint32_t, v uint32) string {
	return goStr(C.a2a_vocab_name(vocab, C.uint32_t(v)))
}

// vocabParse is the number s names in vocabulary vocab (a2a_vocab_parse), with the
// library's result code (anything but A2A_OK: no number).
func vocabParse(vocab C.uint32_t, s string) (uint32, C.a2a_result) {
	p, n := cText(s)
	var out C.uint32_t
	r := C.a2a_vocab_parse(vocab, p, n, &out)
	return uint32(out), r
}

// Channel is the one channel of an outcome.
type Channel uint32

// Channels (a2a_channel).
const (
	ChannelTransport Channel = C.A2A_CHANNEL_TRANSPORT // no HTTP response
	ChannelHTTP      Channel = C.A2A_CHANNEL_HTTP      // non-2xx without a protocol error
	ChannelProtocol  Channel = C.A2A_CHANNEL_PROTOCOL  // a JSON-RPC or HTTP+JSON error
	ChannelTask      Channel = C.A2A_CHANNEL_TASK      // a task or status update came back
	ChannelMessage   Channel = C.A2A_CHANNEL_MESSAGE   // a direct message reply
	ChannelMalformed Channel = C.A2A_CHANNEL_MALFORMED // a 2xx body of no known shape
)

// String is the lowercase name used in JSON output ("transport", "task", ...).
func (c Channel) String() string { return vocabName(C.A2A_VOCAB_CHANNEL, uint32(c)) }

// TaskState is a task state normalized across protocol versions.
type TaskState uint32

// Task states (a2a_task_state; the numbers of the A2A 1.0 TaskState enum).
const (
	StateUnknown       TaskState = C.A2A_TASK_STATE_UNKNOWN
	StateSubmitted     TaskState = C.A2A_TASK_STATE_SUBMITTED
	StateWorking       TaskState = C.A2A_TASK_STATE_WORKING
	StateCompleted     TaskState = C.A2A_TASK_STATE_COMPLETED
	StateFailed        TaskState = C.A2A_TASK_STATE_FAILED
	StateCanceled      TaskState = C.A2A_TASK_STATE_CANCELED
	StateInputRequired TaskState = C.A2A_TASK_STATE_INPUT_REQUIRED
	StateRejected      TaskState = C.A2A_TASK_STATE_REJECTED
	StateAuthRequired  TaskState = C.A2A_TASK_STATE_AUTH_REQUIRED
)

// String is the kebab-case name ("input-required", "canceled", ...).
func (s TaskState) String() string { return vocabName(C.A2A_VOCAB_TASK_STATE, uint32(s)) }

// IsTerminal reports completed, canceled, failed and rejected.
func (s TaskState) IsTerminal() bool {
	return C.a2a_task_state_classify(C.uint32_t(s)) == C.A2A_TASK_STATE_CLASS_TERMINAL
}

// IsInterrupted reports input-required and auth-required.
func (s TaskState) IsInterrupted() bool {
	return C.a2a_task_state_classify(C.uint32_t(s)) == C.A2A_TASK_STATE_CLASS_INTERRUPTED
}

// ParseTaskState reads every spelling deployed peers use (0.3 kebab-case, ProtoJSON names,
// enum numbers as text); unknown spellings are StateUnknown.
func ParseTaskState(s string) (TaskState, error) {
	out, r := vocabParse(C.A2A_VOCAB_TASK_STATE, s)
	if r != C.A2A_OK {
		return StateUnknown, codeErr("ParseTaskState", r)
	}
	return TaskState(out), nil
}

// Retry is what the caller should do about an outcome.
type Retry uint32

// Retry advice (a2a_retry).
const (
	RetryNone           Retry = C.A2A_RETRY_NONE            // success
	RetryNever          Retry = C.A2A_RETRY_NEVER           // the request itself is wrong
	RetryNewTask        Retry = C.A2A_RETRY_NEW_TASK        // terminal: retry means a new task
	RetryResubscribe    Retry = C.A2A_RETRY_RESUBSCRIBE     // stream dropped: resubscribe or poll
	RetryPoll           Retry = C.A2A_RETRY_POLL            // poll with get-task
	RetryBackoff        Retry = C.A2A_RETRY_BACKOFF         // later, honouring Retry-After
	RetryUnknownOutcome Retry = C.A2A_RETRY_UNKNOWN_OUTCOME // only with the same messageId/key
	RetryReauthenticate Retry = C.A2A_RETRY_REAUTHENTICATE  // credentials missing or refused
	RetryFixVersion     Retry = C.A2A_RETRY_FIX_VERSION     // protocol version mismatch
)

// String is the snake_case advice word ("backoff", "unknown_outcome", ...).
func (r Retry) String() string { return vocabName(C.A2A_VOCAB_RETRY, uint32(r)) }

// RequestSent says, for a transport outcome, whether the request may have reached the
// server. The zero value means "not a transport outcome".
type RequestSent uint32

// Request-sent values (a2a_request_sent).
const (
	RequestSentNo      RequestSent = C.A2A_REQUEST_SENT_NO      // provably never left
	RequestSentUnknown RequestSent = C.A2A_REQUEST_SENT_UNKNOWN // may have been received
)

// String is "no" or "unknown" ("" for the zero value).
func (r RequestSent) String() string { return vocabName(C.A2A_VOCAB_REQUEST_SENT, uint32(r)) }

// ErrorName is the typed name of an error outcome; the zero value means "no error".
type ErrorName uint32

// Error names (a2a_error_name): protocol 1-99, http 101-199, transport 201-299.
const (
	NameParseError                     ErrorName = C.A2A_ERROR_NAME_PARSE_ERROR
	NameInvalidRequest                 ErrorName = C.A2A_ERROR_NAME_INVALID_REQUEST
	NameMethodNotFound                 ErrorName = C.A2A_ERROR_NAME_METHOD_NOT_FOUND
	NameInvalidParams                  ErrorName = C.A2A_ERROR_NAME_INVALID_PARAMS
	NameInternal                       ErrorName = C.A2A_ERROR_NAME_INTERNAL
	NameTaskNotFound                   ErrorName = C.A2A_ERROR_NAME_TASK_NOT_FOUND
	NameTaskNotCancelable              ErrorName = C.A2A_ERROR_NAME_TASK_NOT_CANCELABLE
	NamePushNotificationNotSupported   ErrorName = C.A2A_ERROR_NAME_PUSH_NOTIFICATION_NOT_SUPPORTED
	NameUnsupportedOperation           ErrorName = C.A2A_ERROR_NAME_UNSUPPORTED_OPERATION
	NameContentTypeNotSupported        ErrorName = C.A2A_ERROR_NAME_CONTENT_TYPE_NOT_SUPPORTED
	NameInvalidAgentResponse           ErrorName = C.A2A_ERROR_NAME_INVALID_AGENT_RESPONSE
	NameExtendedAgentCardNotConfigured ErrorName = C.A2A_ERROR_NAME_EXTENDED_AGENT_CARD_NOT_CONFIGURED
	NameExtensionSupportRequired       ErrorName = C.A2A_ERROR_NAME_EXTENSION_SUPPORT_REQUIRED
	NameVersionNotSupported            ErrorName = C.A2A_ERROR_NAME_VERSION_NOT_SUPPORTED
	NameOther                          ErrorName = C.A2A_ERROR_NAME_OTHER
	NameUnauthenticated                ErrorName = C.A2A_ERROR_NAME_UNAUTHENTICATED
	NameForbidden                      ErrorName = C.A2A_ERROR_NAME_FORBIDDEN
	NameNotFound                       ErrorName = C.A2A_ERROR_NAME_NOT_FOUND
	NamePayloadTooLarge                ErrorName = C.A2A_ERROR_NAME_PAYLOAD_TOO_LARGE
	NameRateLimited                    ErrorName = C.A2A_ERROR_NAME_RATE_LIMITED
	NameRedirect                       ErrorName = C.A2A_ERROR_NAME_REDIRECT
	NameBadGateway                     ErrorName = C.A2A_ERROR_NAME_BAD_GATEWAY
	NameUnavailable                    ErrorName = C.A2A_ERROR_NAME_UNAVAILABLE
	NameGatewayTimeout                 ErrorName = C.A2A_ERROR_NAME_GATEWAY_TIMEOUT
	NameHTTP                           ErrorName = C.A2A_ERROR_NAME_HTTP
	NameConnectFailed                  ErrorName = C.A2A_ERROR_NAME_CONNECT_FAILED
	NameDNS                            ErrorName = C.A2A_ERROR_NAME_DNS
	NameTimeout                        ErrorName = C.A2A_ERROR_NAME_TIMEOUT
	NameReset                          ErrorName = C.A2A_ERROR_NAME_RESET
	NameCircuitOpen                    ErrorName = C.A2A_ERROR_NAME_CIRCUIT_OPEN
	NameCardResolution                 ErrorName = C.A2A_ERROR_NAME_CARD_RESOLUTION
	NameResponseTooLarge               ErrorName = C.A2A_ERROR_NAME_RESPONSE_TOO_LARGE
	NameTLS                            ErrorName = C.A2A_ERROR_NAME_TLS
	NameProxy                          ErrorName = C.A2A_ERROR_NAME_PROXY
	NameAddressRefused                 ErrorName = C.A2A_ERROR_NAME_ADDRESS_REFUSED
	NameCapabilityNotDeclared          ErrorName = C.A2A_ERROR_NAME_CAPABILITY_NOT_DECLARED
)

// String is the name as in JSON output ("TaskNotFound", "BadGateway", ...); "" for none.
func (e ErrorName) String() string { return vocabName(C.A2A_VOCAB_ERROR_NAME, uint32(e)) }

// ParseErrorName reads a name as written by String (exact, case-sensitive).
func ParseErrorName(s string) (ErrorName, error) {
	out, r := vocabParse(C.A2A_VOCAB_ERROR_NAME, s)
	if r != C.A2A_OK {
		return 0, codeErr("ParseErrorName", r)
	}
	return ErrorName(out), nil
}

// ErrorNameOfCode names a JSON-RPC / A2A error code (unknown codes are NameOther).
func ErrorNameOfCode(code int64) ErrorName {
	return ErrorName(C.a2a_error_name_of_code(C.int64_t(code)))
}

// ProtocolVersion is one of the two protocol shapes; the zero value means "unknown"
// (detect from the body).
type ProtocolVersion uint32

// Protocol versions (a2a_protocol_version), named V<major>_<minor> in every binding (Rust
// ProtocolVersion::V1_0, C A2A_PROTOCOL_VERSION_V1_0, Python and Java ProtocolVersion.V1_0).
const (
	V0_3 ProtocolVersion = C.A2A_PROTOCOL_VERSION_V0_3 // 0.3: message/send, kind discriminators
	V1_0 ProtocolVersion = C.A2A_PROTOCOL_VERSION_V1_0 // 1.x: SendMessage, A2A-Version: 1.0
)

// Names before the V<major>_<minor> scheme.
const (
	// Deprecated: use V0_3.
	V03 = V0_3
	// Deprecated: use V1_0.
	V10 = V1_0
)

// String is "0.3" or "1.0" ("" for the zero value).
func (v ProtocolVersion) String() string {
	return vocabName(C.A2A_VOCAB_PROTOCOL_VERSION, uint32(v))
}

// HeaderValue is the A2A-Version header value a client sends ("" for 0.3: no header).
func (v ProtocolVersion) HeaderValue() string {
	return vocabName(C.A2A_VOCAB_VERSION_HEADER, uint32(v))
}

// ParseProtocolVersion reads "0.3", "0.3.0", "1.0", "1.2" (surrounding whitespace ignored).
func ParseProtocolVersion(s string) (ProtocolVersion, error) {
	out, r := vocabParse(C.A2A_VOCAB_PROTOCOL_VERSION, s)
	if r != C.A2A_OK {
		return 0, codeErr("ParseProtocolVersion", r)
	}
	return ProtocolVersion(out), nil
}

// ProtocolVersionFromHeader is what a server assumes from an A2A-Version header value
// ("" when absent means 0.3).
func ProtocolVersionFromHeader(value string) (ProtocolVersion, error) {
	out, r := vocabParse(C.A2A_VOCAB_VERSION_HEADER, value)
	if r != C.A2A_OK {
		return 0, codeErr("ProtocolVersionFromHeader", r)
	}
	return ProtocolVersion(out), nil
}

// ParseVersionNumber reads MAJOR.MINOR[.PATCH] without deciding whether the core speaks it.
func ParseVersionNumber(s string) (major, minor uint32, err error) {
	p, n := cText(s)
	var ma, mi C.uint32_t
	if r := C.a2a_version_number_parse(p, n, &ma, &mi); r != C.A2A_OK {
		return 0, 0, codeErr("ParseVersionNumber", r)
	}
	return uint32(ma), uint32(mi), nil
}

// Binding is the HTTP binding of a call; the zero value means "unknown".
type Binding uint32

// Bindings (a2a_binding), named JSON_RPC and HTTP_JSON in every binding (Rust
// Binding::JsonRpc, C A2A_BINDING_JSON_RPC, Python and Java Binding.JSON_RPC).
const (
	JSON_RPC  Binding = C.A2A_BINDING_JSON_RPC  // JSON-RPC 2.0 over HTTP POST
	HTTP_JSON Binding = C.A2A_BINDING_HTTP_JSON // HTTP+JSON ("REST")
)

// Names before the JSON_RPC / HTTP_JSON scheme.
const (
	// Deprecated: use JSON_RPC.
	JSONRPC = JSON_RPC
	// Deprecated: use HTTP_JSON.
	HTTPJSON = HTTP_JSON
)

// String is the card transport name, "JSONRPC" or "HTTP+JSON" ("" for the zero value).
func (b Binding) String() string { return vocabName(C.A2A_VOCAB_BINDING, uint32(b)) }

// ParseBinding reads a binding name case-insensitively (JSONRPC, json-rpc, HTTP+JSON, rest).
func ParseBinding(s string) (Binding, error) {
	out, r := vocabParse(C.A2A_VOCAB_BINDING, s)
	if r != C.A2A_OK {
		return 0, codeErr("ParseBinding", r)
	}
	return Binding(out), nil
}
