//! `a2a_result`: the one result type of the C ABI.
//!
//! `A2A_OK` is 0 so every binding can test success the same way. Codes are grouped by
//! module in ranges of one hundred; a number, once published, is never reused or
//! renumbered (retired codes stay below as comments). C compilers before C23 see the type
//! as `uint32_t`, so bindings treat it as an unsigned 32-bit integer.
//!
//! | range | group |
//! |-------|-------|
//! | 0–99 | success and non-error statuses |
//! | 100–199 | arguments and call order |
//! | 200–299 | shared vocabulary: versions, bindings, outcomes |
//! | 300–399 | SSE decoder and encoder |
//! | 400–499 | request builders (envelope) and model text |
//! | 500–599 | HTTP/1.1 serialization and response reader |
//! | 600–699 | classify, error_id, stream tracker, tally |
//! | 700–799 | agent cards |
//! | 800–899 | server side |
//! | 900–998 | resilience |
//! | 999 | panic |
//! | 1000–1099 | the reference driver (feature `driver`) |
//! | 1100–1199 | the answer |
//! | 1200–1299 | the client machine |
//! | 1300–1399 | trust: signed cards, push notifications, webhooks, OAuth 2.0 (feature `trust`) |

/// The result of a fallible call. `A2A_OK` (0) is success; everything else says what went
/// wrong (or, below 100, a non-error status such as "need more input").
///
/// cbindgen:prefix-with-name=false
#[repr(u32)]
#[allow(non_camel_case_types)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum a2a_result {
    /// Success.
    A2A_OK = 0,
    /// Not an error: nothing (more) to hand out until more input is fed.
    A2A_NEED_MORE = 1,
    /// Not an error: the value looked for is absent (not found, not yet due).
    A2A_NONE = 2,

    // --- 100–199: arguments and call order ---
    /// A required pointer argument was NULL (or a `(NULL, len > 0)` input pair).
    A2A_NULL_PARAMETER = 100,
    /// A text argument was not valid UTF-8.
    A2A_INVALID_UTF8 = 101,
    /// An argument is out of range: an unknown enum number, a length above `SIZE_MAX / 2`,
    /// a limit of zero.
    A2A_INVALID_ARGUMENT = 102,
    /// The caller's output buffer is too small; the size needed was written to the call's
    /// `written` out-parameter (the one output written on an error).
    A2A_INSUFFICIENT_SIZE = 103,
    /// The handle is in use by another thread: a call that changes it is running, and this
    /// handle is not thread-safe. Nothing was done; call again once the other call returned
    /// (better: give each thread its own handle, or serialise the calls).
    A2A_IN_USE = 104,
    /// The handle is being freed: its `_free` has started and is waiting for the calls in
    /// flight. Nothing was done, and the handle must not be used again.
    A2A_CLOSED = 105,

    // --- 200–299: shared vocabulary ---
    /// A protocol version string is not `MAJOR.MINOR[.PATCH]` in ASCII digits.
    A2A_VERSION_MALFORMED = 200,
    /// A protocol version is well-formed but not one this core speaks (0.3 and 1.x).
    A2A_VERSION_UNSUPPORTED = 201,
    /// A binding name is neither JSON-RPC nor HTTP+JSON (e.g. `GRPC`).
    A2A_BINDING_UNKNOWN = 202,
    /// Traceparent must be 55 characters: 00-<32 hex>-<16 hex>-<2 hex>.
    A2A_TRACEPARENT_LENGTH = 203,
    /// Traceparent fields must be separated by '-'.
    A2A_TRACEPARENT_SEPARATOR = 204,
    /// Traceparent fields must be lower-case hex.
    A2A_TRACEPARENT_HEX = 205,
    /// Traceparent version ff is invalid.
    A2A_TRACEPARENT_VERSION = 206,
    /// Traceparent trace id is all zero.
    A2A_TRACEPARENT_ZERO_TRACE_ID = 207,
    /// Traceparent parent id is all zero.
    A2A_TRACEPARENT_ZERO_PARENT_ID = 208,

    // --- 300–399: SSE ---
    /// An SSE line was longer than the decoder's `max_line`; the event was discarded.
    A2A_SSE_LINE_TOO_LONG = 300,
    /// An SSE event's data grew larger than the decoder's `max_event`; it was discarded.
    A2A_SSE_EVENT_TOO_LARGE = 301,
    /// An SSE id contains NUL (a decoder would ignore the whole `id` field).
    A2A_SSE_ID_NUL = 302,
    /// An SSE event type to write contains CR or LF.
    A2A_SSE_EVENT_TYPE_LINE_BREAK = 303,
    /// An SSE id to write contains CR or LF.
    A2A_SSE_ID_LINE_BREAK = 304,
    /// An SSE limit error of a kind newer than this header (see the last error message).
    A2A_SSE_LIMIT = 305,
    /// An SSE value that cannot be written, of a kind newer than this header.
    A2A_SSE_ENCODE = 306,

    // --- 400–499: request builders ---
    // (No call returns these any more: the request builder `a2a_request_*` left the C ABI;
    // a call the machine cannot build ends with an outcome. The numbers stay reserved.)
    /// Request: the call's params are not JSON or not of the method's shape.
    A2A_REQUEST_PARAMS = 400,
    /// Request: the method does not exist in the interface's protocol version.
    A2A_REQUEST_NOT_IN_VERSION = 401,
    /// Request: a JSON-RPC request needs an id.
    A2A_REQUEST_MISSING_ID = 402,
    /// Request: a field of the call cannot travel in this version or binding.
    A2A_REQUEST_NOT_REPRESENTABLE = 403,
    /// Request: a caller header has a bad name or value.
    A2A_REQUEST_BAD_HEADER = 404,
    /// Request: a caller header would override one the builder sets.
    A2A_REQUEST_RESERVED_HEADER = 405,
    /// Request: an extension URI contains a comma or a character a header cannot carry.
    A2A_REQUEST_BAD_EXTENSION = 406,
    /// Request: the request body cannot be written in the interface's form.
    A2A_REQUEST_BODY = 407,

    // --- 500–599: HTTP/1.1 ---
    // (No call returns these any more: the HTTP/1.1 serializer and reader `a2a_http1_*` left
    // the C ABI. The numbers stay reserved.)
    /// HTTP/1.1: HTTP method is empty or not a token.
    A2A_HTTP1_METHOD = 500,
    /// HTTP/1.1: request target is not origin-form or absolute http(s), or holds invalid bytes.
    A2A_HTTP1_TARGET = 501,
    /// HTTP/1.1: Host value is empty or holds characters that cannot appear in an authority.
    A2A_HTTP1_HOST = 502,
    /// HTTP/1.1: a request header name is empty or not a token.
    A2A_HTTP1_HEADER_NAME = 503,
    /// HTTP/1.1: a request header value holds CR, LF, NUL or another control character.
    A2A_HTTP1_HEADER_VALUE = 504,
    /// HTTP/1.1: Host, Content-Length and Transfer-Encoding are written by the serializer.
    A2A_HTTP1_RESERVED_HEADER = 505,
    /// HTTP/1.1: the request cannot be serialized (a reason newer than this header).
    A2A_HTTP1_REQUEST_INVALID = 506,
    /// HTTP/1.1: malformed response status line or header.
    A2A_HTTP1_MALFORMED = 520,
    /// HTTP/1.1: response head larger than the limit.
    A2A_HTTP1_HEAD_TOO_LARGE = 521,
    /// HTTP/1.1: response has more headers than the limit.
    A2A_HTTP1_TOO_MANY_HEADERS = 522,
    /// HTTP/1.1: too many 1xx informational responses.
    A2A_HTTP1_TOO_MANY_INFORMATIONAL = 523,
    /// HTTP/1.1: unexpected 101 Switching Protocols.
    A2A_HTTP1_UNEXPECTED_UPGRADE = 524,
    /// HTTP/1.1: invalid Content-Length value.
    A2A_HTTP1_INVALID_CONTENT_LENGTH = 525,
    /// HTTP/1.1: conflicting Content-Length values.
    A2A_HTTP1_CONFLICTING_CONTENT_LENGTH = 526,
    /// HTTP/1.1: both Transfer-Encoding and Content-Length present.
    A2A_HTTP1_CONTENT_LENGTH_WITH_TRANSFER_ENCODING = 527,
    /// HTTP/1.1: unsupported Transfer-Encoding (only a single chunked).
    A2A_HTTP1_UNSUPPORTED_TRANSFER_CODING = 528,
    /// HTTP/1.1: invalid chunk-size line.
    A2A_HTTP1_INVALID_CHUNK_SIZE = 529,
    /// HTTP/1.1: chunk-size line longer than the limit.
    A2A_HTTP1_CHUNK_LINE_TOO_LONG = 530,
    /// HTTP/1.1: chunk data not followed by CRLF.
    A2A_HTTP1_MISSING_CHUNK_TERMINATOR = 531,
    /// HTTP/1.1: malformed trailer section.
    A2A_HTTP1_MALFORMED_TRAILERS = 532,
    /// HTTP/1.1: trailer section larger than the limit.
    A2A_HTTP1_TRAILERS_TOO_LARGE = 533,
    /// HTTP/1.1: more trailer fields than the limit.
    A2A_HTTP1_TOO_MANY_TRAILERS = 534,
    /// HTTP/1.1: connection closed before any response byte arrived.
    A2A_HTTP1_CLOSED_BEFORE_RESPONSE = 535,
    /// HTTP/1.1: connection closed in the middle of the response head.
    A2A_HTTP1_TRUNCATED_HEAD = 536,
    /// HTTP/1.1: connection closed before the body was complete.
    A2A_HTTP1_TRUNCATED_BODY = 537,
    /// HTTP/1.1: the response cannot be read (a reason newer than this header).
    A2A_HTTP1_RESPONSE_INVALID = 538,

    // --- 700–799: agent cards ---
    /// Card: agent card is not valid JSON.
    A2A_CARD_JSON = 700,
    /// Card: agent card is not a JSON object.
    A2A_CARD_NOT_AN_OBJECT = 701,
    /// Card: an agent card field has the wrong type.
    A2A_CARD_INVALID_FIELD = 702,
    /// Card: an agent card interface entry is malformed.
    A2A_CARD_INVALID_INTERFACE = 703,
    /// Card: no card interface matches the client's versions and bindings.
    A2A_CARD_NO_USABLE_INTERFACE = 704,
    /// Card: a card URL does not parse.
    A2A_CARD_INVALID_URL = 705,
    /// Card: a card URL carries userinfo (user@), which hides the real host.
    A2A_CARD_USERINFO_IN_URL = 706,
    /// Card: plain http refused (allow it explicitly for local development).
    A2A_CARD_PLAIN_HTTP = 707,
    /// Card: unsupported URL scheme (only https, and http when allowed).
    A2A_CARD_UNSUPPORTED_SCHEME = 708,
    /// Card: card URL drift: the interface points at a local or private address while the card came from a public host.
    A2A_CARD_URL_DRIFT = 709,
    /// Card: the interface origin is not the card's origin and not in the allow-list.
    A2A_CARD_HOST_MISMATCH = 710,
    /// Card: the card cannot be used (a reason newer than this header).
    A2A_CARD_INVALID = 711,

    // --- 800–899: server side ---
    /// Server: the request is refused: answer it with a2a_server_refusal_response.
    A2A_SERVER_REFUSED = 800,
    /// Server: the reply or event JSON is not the method's result shape or cannot be written.
    A2A_SERVER_REPLY = 801,
    /// Server: a streaming method answers with event frames, not a response.
    A2A_SERVER_STREAMING = 802,
    /// Server: an error_id must be exactly 12 lower-case hex digits.
    A2A_SERVER_ERROR_ID = 803,

    // --- 900–998: resilience ---
    /// Retry configuration: `max_attempts` is 0 (the first attempt counts).
    A2A_CONFIG_ZERO_MAX_ATTEMPTS = 900,
    /// Retry configuration: `base_delay_ms` is larger than `max_delay_ms`.
    A2A_CONFIG_BASE_DELAY_ABOVE_CAP = 901,
    /// Breaker configuration: `failure_threshold` and `failure_rate_percent` are both 0.
    A2A_CONFIG_NO_OPENING_RULE = 902,
    /// Breaker configuration: `failure_rate_percent` is above 100.
    A2A_CONFIG_RATE_OUT_OF_RANGE = 903,
    /// Breaker configuration: `window_ms` is 0.
    A2A_CONFIG_ZERO_WINDOW = 904,
    /// Breaker configuration: `buckets` is 0 or above 1000.
    A2A_CONFIG_BUCKETS_OUT_OF_RANGE = 905,
    /// Breaker configuration: `half_open_trials` is 0.
    A2A_CONFIG_ZERO_HALF_OPEN_TRIALS = 906,
    /// A configuration value out of range, of a kind newer than this header.
    A2A_CONFIG_INVALID = 907,
    /// Key derivation: no part, or every part empty (every call would share one key).
    A2A_KEY_EMPTY_INPUT = 910,
    /// Key derivation failed for a reason newer than this header.
    A2A_KEY_INVALID = 911,

    // --- 999: panic ---
    /// A bug inside the library panicked; the panic was caught at the C boundary. The handle
    /// the call was made on (if any) may only be freed afterwards.
    A2A_PANIC = 999,

    // --- 1000–1099: the reference driver ---
    /// The client could not resolve the agent card (the outcome says why). No C function
    /// returns it since the typed client left the C ABI (a card fetch ends with a
    /// `CardResolution` outcome); bindings name their own card errors with it.
    A2A_CLIENT_CARD_RESOLUTION = 1000,
    /// A call failed in transport (connect, timeout, reset, idle cut, abort, body over the
    /// limit): the outcome says how. No C function returns it since the raw exchange left
    /// the C ABI (a machine call ends with its transport outcome); bindings name their own
    /// transport errors with it.
    A2A_CLIENT_TRANSPORT = 1001,

    // --- 1100–1199: the answer ---
    /// The agent's answer could not be read (see the last error: what and where).
    A2A_ANSWER_UNREADABLE = 1100,
    /// A message to send is not the canonical `{"parts":[...],"metadata":{...}}` shape (no
    /// part, an unknown kind, file bytes not base64, ...). No C function returns it since
    /// the typed client left the C ABI (`a2a_call_new` refuses bad params as
    /// `A2A_REQUEST_PARAMS`); bindings name their own message errors with it.
    A2A_ANSWER_MESSAGE = 1101,

    // --- 1200–1299: the client machine (`a2a_call`) ---
    /// An input about a request the call no longer waits for (given up, or never handed
    /// out): drop that request; the input changed nothing.
    A2A_CALL_STALE = 1200,
    /// A body or end of body before the response head.
    A2A_CALL_NO_HEAD = 1201,
    /// A second response head for the same request.
    A2A_CALL_HEAD_TWICE = 1202,
    /// The call is finished: it takes no more inputs.
    A2A_CALL_FINISHED = 1203,
    /// The call is not of the kind this function needs (e.g. a state from a card fetch
    /// that did not resolve, or whose `FINISHED` event was not polled yet).
    A2A_CALL_WRONG_KIND = 1204,

    // --- 1300–1399: trust (feature `trust`) ---
    /// Trust: the input is not the JSON it should be (a card, a push policy); the report
    /// buffer says why.
    A2A_TRUST_JSON = 1300,
    /// Trust: a key (PEM, JWK, JWK Set) cannot be read or used.
    A2A_TRUST_KEY = 1301,
    /// Trust: the card's signatures do not verify (or there are none, or its `jku` is
    /// refused); the report buffer says why, per signature.
    A2A_CARD_SIGNATURE = 1302,
    /// Trust: a push notification failed a check; the verdict buffer names the reason.
    A2A_PUSH_REJECTED = 1303,
    /// Trust: the webhook URL, or an address it resolves to, is refused.
    A2A_WEBHOOK_REFUSED = 1304,
    /// Trust: the OAuth 2.0 token endpoint refused, failed or answered nonsense.
    A2A_OAUTH2_REFUSED = 1305,
}

impl a2a_result {
    /// Every code, for tests and for `a2a_result_describe`.
    pub(crate) const ALL: &'static [a2a_result] = &[
        a2a_result::A2A_OK,
        a2a_result::A2A_NEED_MORE,
        a2a_result::A2A_NONE,
        a2a_result::A2A_NULL_PARAMETER,
        a2a_result::A2A_INVALID_UTF8,
        a2a_result::A2A_INVALID_ARGUMENT,
        a2a_result::A2A_INSUFFICIENT_SIZE,
        a2a_result::A2A_IN_USE,
        a2a_result::A2A_CLOSED,
        a2a_result::A2A_VERSION_MALFORMED,
        a2a_result::A2A_VERSION_UNSUPPORTED,
        a2a_result::A2A_BINDING_UNKNOWN,
        a2a_result::A2A_TRACEPARENT_LENGTH,
        a2a_result::A2A_TRACEPARENT_SEPARATOR,
        a2a_result::A2A_TRACEPARENT_HEX,
        a2a_result::A2A_TRACEPARENT_VERSION,
        a2a_result::A2A_TRACEPARENT_ZERO_TRACE_ID,
        a2a_result::A2A_TRACEPARENT_ZERO_PARENT_ID,
        a2a_result::A2A_SSE_LINE_TOO_LONG,
        a2a_result::A2A_SSE_EVENT_TOO_LARGE,
        a2a_result::A2A_SSE_ID_NUL,
        a2a_result::A2A_SSE_EVENT_TYPE_LINE_BREAK,
        a2a_result::A2A_SSE_ID_LINE_BREAK,
        a2a_result::A2A_SSE_LIMIT,
        a2a_result::A2A_SSE_ENCODE,
        a2a_result::A2A_REQUEST_PARAMS,
        a2a_result::A2A_REQUEST_NOT_IN_VERSION,
        a2a_result::A2A_REQUEST_MISSING_ID,
        a2a_result::A2A_REQUEST_NOT_REPRESENTABLE,
        a2a_result::A2A_REQUEST_BAD_HEADER,
        a2a_result::A2A_REQUEST_RESERVED_HEADER,
        a2a_result::A2A_REQUEST_BAD_EXTENSION,
        a2a_result::A2A_REQUEST_BODY,
        a2a_result::A2A_HTTP1_METHOD,
        a2a_result::A2A_HTTP1_TARGET,
        a2a_result::A2A_HTTP1_HOST,
        a2a_result::A2A_HTTP1_HEADER_NAME,
        a2a_result::A2A_HTTP1_HEADER_VALUE,
        a2a_result::A2A_HTTP1_RESERVED_HEADER,
        a2a_result::A2A_HTTP1_REQUEST_INVALID,
        a2a_result::A2A_HTTP1_MALFORMED,
        a2a_result::A2A_HTTP1_HEAD_TOO_LARGE,
        a2a_result::A2A_HTTP1_TOO_MANY_HEADERS,
        a2a_result::A2A_HTTP1_TOO_MANY_INFORMATIONAL,
        a2a_result::A2A_HTTP1_UNEXPECTED_UPGRADE,
        a2a_result::A2A_HTTP1_INVALID_CONTENT_LENGTH,
        a2a_result::A2A_HTTP1_CONFLICTING_CONTENT_LENGTH,
        a2a_result::A2A_HTTP1_CONTENT_LENGTH_WITH_TRANSFER_ENCODING,
        a2a_result::A2A_HTTP1_UNSUPPORTED_TRANSFER_CODING,
        a2a_result::A2A_HTTP1_INVALID_CHUNK_SIZE,
        a2a_result::A2A_HTTP1_CHUNK_LINE_TOO_LONG,
        a2a_result::A2A_HTTP1_MISSING_CHUNK_TERMINATOR,
        a2a_result::A2A_HTTP1_MALFORMED_TRAILERS,
        a2a_result::A2A_HTTP1_TRAILERS_TOO_LARGE,
        a2a_result::A2A_HTTP1_TOO_MANY_TRAILERS,
        a2a_result::A2A_HTTP1_CLOSED_BEFORE_RESPONSE,
        a2a_result::A2A_HTTP1_TRUNCATED_HEAD,
        a2a_result::A2A_HTTP1_TRUNCATED_BODY,
        a2a_result::A2A_HTTP1_RESPONSE_INVALID,
        a2a_result::A2A_CARD_JSON,
        a2a_result::A2A_CARD_NOT_AN_OBJECT,
        a2a_result::A2A_CARD_INVALID_FIELD,
        a2a_result::A2A_CARD_INVALID_INTERFACE,
        a2a_result::A2A_CARD_NO_USABLE_INTERFACE,
        a2a_result::A2A_CARD_INVALID_URL,
        a2a_result::A2A_CARD_USERINFO_IN_URL,
        a2a_result::A2A_CARD_PLAIN_HTTP,
        a2a_result::A2A_CARD_UNSUPPORTED_SCHEME,
        a2a_result::A2A_CARD_URL_DRIFT,
        a2a_result::A2A_CARD_HOST_MISMATCH,
        a2a_result::A2A_CARD_INVALID,
        a2a_result::A2A_SERVER_REFUSED,
        a2a_result::A2A_SERVER_REPLY,
        a2a_result::A2A_SERVER_STREAMING,
        a2a_result::A2A_SERVER_ERROR_ID,
        a2a_result::A2A_CONFIG_ZERO_MAX_ATTEMPTS,
        a2a_result::A2A_CONFIG_BASE_DELAY_ABOVE_CAP,
        a2a_result::A2A_CONFIG_NO_OPENING_RULE,
        a2a_result::A2A_CONFIG_RATE_OUT_OF_RANGE,
        a2a_result::A2A_CONFIG_ZERO_WINDOW,
        a2a_result::A2A_CONFIG_BUCKETS_OUT_OF_RANGE,
        a2a_result::A2A_CONFIG_ZERO_HALF_OPEN_TRIALS,
        a2a_result::A2A_CONFIG_INVALID,
        a2a_result::A2A_KEY_EMPTY_INPUT,
        a2a_result::A2A_KEY_INVALID,
        a2a_result::A2A_PANIC,
        a2a_result::A2A_CLIENT_CARD_RESOLUTION,
        a2a_result::A2A_CLIENT_TRANSPORT,
        a2a_result::A2A_ANSWER_UNREADABLE,
        a2a_result::A2A_ANSWER_MESSAGE,
        a2a_result::A2A_CALL_STALE,
        a2a_result::A2A_CALL_NO_HEAD,
        a2a_result::A2A_CALL_HEAD_TWICE,
        a2a_result::A2A_CALL_FINISHED,
        a2a_result::A2A_CALL_WRONG_KIND,
        a2a_result::A2A_TRUST_JSON,
        a2a_result::A2A_TRUST_KEY,
        a2a_result::A2A_CARD_SIGNATURE,
        a2a_result::A2A_PUSH_REJECTED,
        a2a_result::A2A_WEBHOOK_REFUSED,
        a2a_result::A2A_OAUTH2_REFUSED,
    ];

    /// Static description of the code.
    #[allow(
        clippy::too_many_lines,
        reason = "one arm per result code: the description table"
    )]
    pub(crate) fn describe(self) -> &'static str {
        match self {
            a2a_result::A2A_OK => "ok",
            a2a_result::A2A_NEED_MORE => "nothing more until more input is fed",
            a2a_result::A2A_NONE => "no value: not found or not yet due",
            a2a_result::A2A_NULL_PARAMETER => "a required pointer argument was NULL",
            a2a_result::A2A_INVALID_UTF8 => "a text argument was not valid UTF-8",
            a2a_result::A2A_INVALID_ARGUMENT => "an argument was out of range",
            a2a_result::A2A_INSUFFICIENT_SIZE => "the output buffer is too small",
            a2a_result::A2A_IN_USE => {
                "the handle is in use by another thread (it is not thread-safe); nothing was done"
            }
            a2a_result::A2A_CLOSED => {
                "the handle is being freed (its free is waiting for calls in flight); nothing was done"
            }
            a2a_result::A2A_VERSION_MALFORMED => {
                "malformed protocol version: expected MAJOR.MINOR such as \"1.0\" or \"0.3\""
            }
            a2a_result::A2A_VERSION_UNSUPPORTED => {
                "unsupported protocol version: this core speaks 0.3 and 1.x"
            }
            a2a_result::A2A_BINDING_UNKNOWN => "unknown binding: expected JSONRPC or HTTP+JSON",
            a2a_result::A2A_TRACEPARENT_LENGTH => {
                "traceparent must be 55 characters: 00-<32 hex>-<16 hex>-<2 hex>"
            }
            a2a_result::A2A_TRACEPARENT_SEPARATOR => "traceparent fields must be separated by '-'",
            a2a_result::A2A_TRACEPARENT_HEX => "traceparent fields must be lower-case hex",
            a2a_result::A2A_TRACEPARENT_VERSION => "traceparent version ff is invalid",
            a2a_result::A2A_TRACEPARENT_ZERO_TRACE_ID => "traceparent trace id is all zero",
            a2a_result::A2A_TRACEPARENT_ZERO_PARENT_ID => "traceparent parent id is all zero",
            a2a_result::A2A_SSE_LINE_TOO_LONG => {
                "SSE line longer than the decoder's max_line; the event was discarded"
            }
            a2a_result::A2A_SSE_EVENT_TOO_LARGE => {
                "SSE event data larger than the decoder's max_event; the event was discarded"
            }
            a2a_result::A2A_SSE_ID_NUL => "SSE id contains NUL",
            a2a_result::A2A_SSE_EVENT_TYPE_LINE_BREAK => "SSE event type contains a line break",
            a2a_result::A2A_SSE_ID_LINE_BREAK => "SSE id contains a line break",
            a2a_result::A2A_SSE_LIMIT => "SSE input went over a decoder limit",
            a2a_result::A2A_SSE_ENCODE => "SSE value cannot be written as it is",
            a2a_result::A2A_REQUEST_PARAMS => {
                "the call's params are not JSON or not of the method's shape"
            }
            a2a_result::A2A_REQUEST_NOT_IN_VERSION => {
                "the method does not exist in the interface's protocol version"
            }
            a2a_result::A2A_REQUEST_MISSING_ID => "a JSON-RPC request needs an id",
            a2a_result::A2A_REQUEST_NOT_REPRESENTABLE => {
                "a field of the call cannot travel in this version or binding"
            }
            a2a_result::A2A_REQUEST_BAD_HEADER => "a caller header has a bad name or value",
            a2a_result::A2A_REQUEST_RESERVED_HEADER => {
                "a caller header would override one the builder sets"
            }
            a2a_result::A2A_REQUEST_BAD_EXTENSION => {
                "an extension URI contains a comma or a character a header cannot carry"
            }
            a2a_result::A2A_REQUEST_BODY => {
                "the request body cannot be written in the interface's form"
            }
            a2a_result::A2A_HTTP1_METHOD => "HTTP method is empty or not a token",
            a2a_result::A2A_HTTP1_TARGET => {
                "request target is not origin-form or absolute http(s), or holds invalid bytes"
            }
            a2a_result::A2A_HTTP1_HOST => {
                "Host value is empty or holds characters that cannot appear in an authority"
            }
            a2a_result::A2A_HTTP1_HEADER_NAME => "a request header name is empty or not a token",
            a2a_result::A2A_HTTP1_HEADER_VALUE => {
                "a request header value holds CR, LF, NUL or another control character"
            }
            a2a_result::A2A_HTTP1_RESERVED_HEADER => {
                "Host, Content-Length and Transfer-Encoding are written by the serializer"
            }
            a2a_result::A2A_HTTP1_REQUEST_INVALID => {
                "the request cannot be serialized (a reason newer than this header)"
            }
            a2a_result::A2A_HTTP1_MALFORMED => "malformed response status line or header",
            a2a_result::A2A_HTTP1_HEAD_TOO_LARGE => "response head larger than the limit",
            a2a_result::A2A_HTTP1_TOO_MANY_HEADERS => "response has more headers than the limit",
            a2a_result::A2A_HTTP1_TOO_MANY_INFORMATIONAL => "too many 1xx informational responses",
            a2a_result::A2A_HTTP1_UNEXPECTED_UPGRADE => "unexpected 101 Switching Protocols",
            a2a_result::A2A_HTTP1_INVALID_CONTENT_LENGTH => "invalid Content-Length value",
            a2a_result::A2A_HTTP1_CONFLICTING_CONTENT_LENGTH => "conflicting Content-Length values",
            a2a_result::A2A_HTTP1_CONTENT_LENGTH_WITH_TRANSFER_ENCODING => {
                "both Transfer-Encoding and Content-Length present"
            }
            a2a_result::A2A_HTTP1_UNSUPPORTED_TRANSFER_CODING => {
                "unsupported Transfer-Encoding (only a single chunked)"
            }
            a2a_result::A2A_HTTP1_INVALID_CHUNK_SIZE => "invalid chunk-size line",
            a2a_result::A2A_HTTP1_CHUNK_LINE_TOO_LONG => "chunk-size line longer than the limit",
            a2a_result::A2A_HTTP1_MISSING_CHUNK_TERMINATOR => "chunk data not followed by CRLF",
            a2a_result::A2A_HTTP1_MALFORMED_TRAILERS => "malformed trailer section",
            a2a_result::A2A_HTTP1_TRAILERS_TOO_LARGE => "trailer section larger than the limit",
            a2a_result::A2A_HTTP1_TOO_MANY_TRAILERS => "more trailer fields than the limit",
            a2a_result::A2A_HTTP1_CLOSED_BEFORE_RESPONSE => {
                "connection closed before any response byte arrived"
            }
            a2a_result::A2A_HTTP1_TRUNCATED_HEAD => {
                "connection closed in the middle of the response head"
            }
            a2a_result::A2A_HTTP1_TRUNCATED_BODY => {
                "connection closed before the body was complete"
            }
            a2a_result::A2A_HTTP1_RESPONSE_INVALID => {
                "the response cannot be read (a reason newer than this header)"
            }
            a2a_result::A2A_CARD_JSON => "agent card is not valid JSON",
            a2a_result::A2A_CARD_NOT_AN_OBJECT => "agent card is not a JSON object",
            a2a_result::A2A_CARD_INVALID_FIELD => "an agent card field has the wrong type",
            a2a_result::A2A_CARD_INVALID_INTERFACE => "an agent card interface entry is malformed",
            a2a_result::A2A_CARD_NO_USABLE_INTERFACE => {
                "no card interface matches the client's versions and bindings"
            }
            a2a_result::A2A_CARD_INVALID_URL => "a card URL does not parse",
            a2a_result::A2A_CARD_USERINFO_IN_URL => {
                "a card URL carries userinfo (user@), which hides the real host"
            }
            a2a_result::A2A_CARD_PLAIN_HTTP => {
                "plain http refused (allow it explicitly for local development)"
            }
            a2a_result::A2A_CARD_UNSUPPORTED_SCHEME => {
                "unsupported URL scheme (only https, and http when allowed)"
            }
            a2a_result::A2A_CARD_URL_DRIFT => {
                "card URL drift: the interface points at a local or private address while the card came from a public host"
            }
            a2a_result::A2A_CARD_HOST_MISMATCH => {
                "the interface origin is not the card's origin and not in the allow-list"
            }
            a2a_result::A2A_CARD_INVALID => {
                "the card cannot be used (a reason newer than this header)"
            }
            a2a_result::A2A_SERVER_REFUSED => {
                "the request is refused: answer it with a2a_server_refusal_response"
            }
            a2a_result::A2A_SERVER_REPLY => {
                "the reply or event JSON is not the method's result shape or cannot be written"
            }
            a2a_result::A2A_SERVER_STREAMING => {
                "a streaming method answers with event frames, not a response"
            }
            a2a_result::A2A_SERVER_ERROR_ID => {
                "an error_id must be exactly 12 lower-case hex digits"
            }
            a2a_result::A2A_CONFIG_ZERO_MAX_ATTEMPTS => {
                "max_attempts must be at least 1 (the first attempt counts)"
            }
            a2a_result::A2A_CONFIG_BASE_DELAY_ABOVE_CAP => "base_delay must not exceed max_delay",
            a2a_result::A2A_CONFIG_NO_OPENING_RULE => {
                "failure_threshold and failure_rate_percent are both 0: the breaker could never open"
            }
            a2a_result::A2A_CONFIG_RATE_OUT_OF_RANGE => "failure_rate_percent is above 100",
            a2a_result::A2A_CONFIG_ZERO_WINDOW => "window must be at least 1 ms",
            a2a_result::A2A_CONFIG_BUCKETS_OUT_OF_RANGE => "buckets is outside 1..=1000",
            a2a_result::A2A_CONFIG_ZERO_HALF_OPEN_TRIALS => "half_open_trials must be at least 1",
            a2a_result::A2A_CONFIG_INVALID => "a configuration value is out of range",
            a2a_result::A2A_KEY_EMPTY_INPUT => {
                "no stable input: every part is empty, so every call would share one key"
            }
            a2a_result::A2A_KEY_INVALID => "the key could not be derived",
            a2a_result::A2A_CLIENT_CARD_RESOLUTION => {
                "the agent card could not be fetched, parsed or validated"
            }
            a2a_result::A2A_CLIENT_TRANSPORT => {
                "the exchange failed in transport (connect, timeout, reset, abort)"
            }
            a2a_result::A2A_PANIC => "internal error: a panic was caught at the C boundary",
            a2a_result::A2A_ANSWER_UNREADABLE => {
                "the agent's answer could not be read (the last error says what and where)"
            }
            a2a_result::A2A_ANSWER_MESSAGE => {
                "the message to send is not {\"parts\":[...],\"metadata\":{...}} with known part kinds"
            }
            a2a_result::A2A_CALL_STALE => {
                "the input is about a request the call no longer waits for (drop that request)"
            }
            a2a_result::A2A_CALL_NO_HEAD => "body input before the response head",
            a2a_result::A2A_CALL_HEAD_TWICE => "the response head was already given",
            a2a_result::A2A_CALL_FINISHED => "the call is finished",
            a2a_result::A2A_CALL_WRONG_KIND => "the call is not of the kind this function needs",
            a2a_result::A2A_TRUST_JSON => "the input is not the JSON it should be (card, policy)",
            a2a_result::A2A_TRUST_KEY => "a key (PEM, JWK, JWK Set) cannot be read or used",
            a2a_result::A2A_CARD_SIGNATURE => {
                "the card's signatures do not verify (or there are none, or its jku is refused)"
            }
            a2a_result::A2A_PUSH_REJECTED => "the push notification failed a check",
            a2a_result::A2A_WEBHOOK_REFUSED => {
                "the webhook URL (or an address it resolves to) is refused"
            }
            a2a_result::A2A_OAUTH2_REFUSED => {
                "the OAuth 2.0 token endpoint refused, failed or answered nonsense"
            }
        }
    }
}

/// Converts an error code into a function's return type: itself for `a2a_result`, the
/// NULL default for everything else.
pub(crate) trait FromResult {
    /// The value to return for `code`.
    fn from_result(code: a2a_result) -> Self;
}

impl FromResult for a2a_result {
    fn from_result(code: a2a_result) -> Self {
        code
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::a2a_result_describe;
    use std::collections::HashSet;

    #[test]
    fn codes_are_unique_and_described() {
        let mut seen = HashSet::new();
        for r in a2a_result::ALL {
            assert!(seen.insert(*r as u32), "duplicate code {}", *r as u32);
            let d = unsafe { a2a_result_describe(*r as u32).as_str() }.unwrap();
            assert!(!d.is_empty());
            assert_ne!(d, "unknown result code");
        }
        assert_eq!(a2a_result::A2A_OK as u32, 0);
        assert_eq!(a2a_result::A2A_PANIC as u32, 999);
    }

    #[test]
    fn unknown_code_has_a_description() {
        let d = unsafe { a2a_result_describe(12345).as_str() }.unwrap();
        assert_eq!(d, "unknown result code");
    }

    /// Every `a2a_result` constant the committed header declares has its own description
    /// (so a code added to the enum but missing from `ALL` is caught), numbers unique.
    #[test]
    fn every_header_code_is_described() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../include/a2a_core.h");
        let header = std::fs::read_to_string(path).expect("header exists");
        let start = header.find("enum a2a_result").expect("a2a_result declared");
        let end = start + header[start..].find("};").expect("end of enum");
        let mut seen = HashSet::new();
        for line in header[start..end].lines() {
            let Some((name, value)) = line.trim().split_once(" = ") else {
                continue;
            };
            let value: u32 = value.trim_end_matches(',').parse().expect("numeric code");
            assert!(seen.insert(value), "{name}: number {value} used twice");
            let d = unsafe { a2a_result_describe(value).as_str() }.unwrap();
            assert_ne!(
                d, "unknown result code",
                "{name} ({value}) has no description"
            );
        }
        assert_eq!(seen.len(), a2a_result::ALL.len(), "header and ALL disagree");
    }
}
