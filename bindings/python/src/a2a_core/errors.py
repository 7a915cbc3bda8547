"""Typed exceptions for the library's `a2a_result` codes.

Every failed call raises a subclass of `A2AError` carrying the numeric `code`, the code's
C name (`A2A_VERSION_MALFORMED`) and the library's own message (the handle's last error
when it has one, else the library's description of the code).
"""

from __future__ import annotations

from . import _lib


class A2AError(Exception):
    """A call into liba2a_core failed. `code` is the `a2a_result` number."""

    code: int
    name: str

    def __init__(self, code: int, message: str | None = None) -> None:
        self.code = code
        self.name = RESULT_NAMES.get(code, f'A2A_RESULT_{code}')
        self.message = message or describe(code)
        super().__init__(f'{self.message} ({self.name})')


class NullParameterError(A2AError, ValueError):
    """A2A_NULL_PARAMETER: a required argument was missing (a bug in this binding)."""


class InvalidUtf8Error(A2AError, ValueError):
    """A2A_INVALID_UTF8: a text argument was not valid UTF-8."""


class InvalidArgumentError(A2AError, ValueError):
    """A2A_INVALID_ARGUMENT: an argument was out of range."""


class InUseError(A2AError, RuntimeError):
    """A2A_IN_USE, or an object of this package used from two threads at once: the object
    (an SseDecoder, a stream tracker, ...) is not thread-safe and another thread is inside a
    call on it. Nothing was done: give each thread its own object, or serialise the calls."""


class ClosedError(A2AError, ValueError):
    """A2A_CLOSED, or a call on an object after its `close()`: the object is closed (or
    being closed) and cannot be used any more."""


class VersionError(A2AError, ValueError):
    """A protocol version string was malformed or is not spoken by this core."""


class VersionMalformedError(VersionError):
    """A2A_VERSION_MALFORMED: not `MAJOR.MINOR[.PATCH]`."""


class VersionUnsupportedError(VersionError):
    """A2A_VERSION_UNSUPPORTED: well-formed but neither 0.3 nor 1.x."""


class BindingUnknownError(A2AError, ValueError):
    """A2A_BINDING_UNKNOWN: neither JSON-RPC nor HTTP+JSON."""


class SseError(A2AError):
    """An SSE decoder or encoder error."""


class SseLimitError(SseError):
    """Input went over a decoder limit (`limit` bytes); not fatal, decoding went on."""

    limit: int | None = None


class SseLineTooLongError(SseLimitError):
    """A2A_SSE_LINE_TOO_LONG."""


class SseEventTooLargeError(SseLimitError):
    """A2A_SSE_EVENT_TOO_LARGE."""


class SseValueError(SseError, ValueError):
    """A value cannot be written or set (NUL or line break in an id or event type)."""


class TraceparentError(A2AError, ValueError):
    """A2A_TRACEPARENT_*: a `traceparent` value is malformed (or has an all-zero id)."""


class RequestError(A2AError, ValueError):
    """A2A_REQUEST_*: a request cannot be built (params, method not in the version, ...)."""


class CardResolutionError(A2AError):
    """A2A_CLIENT_CARD_RESOLUTION: the client could not fetch or validate the agent card;
    `outcome` is the transport outcome (CardResolution) with the library's advice."""

    outcome: object = None


class ConfigError(A2AError, ValueError):
    """A2A_CONFIG_*: a retry or breaker configuration field is out of range."""


class KeyInputError(A2AError, ValueError):
    """A2A_KEY_*: the inputs of a key derivation are refused (e.g. all parts empty)."""


class CardError(A2AError, ValueError):
    """A2A_CARD_*: an agent card could not be read, or no interface of it is usable.
    `kind` is the core's stable word (`no_usable_interface`, `plain_http`, ...)."""

    @property
    def kind(self) -> str:
        """The stable snake_case kind of the error (as in bindings/fixtures/cards.json)."""
        return CARD_KINDS.get(self.code, 'invalid')


class Http1Error(A2AError, ValueError):
    """A2A_HTTP1_*: HTTP/1.1 framing errors (not bound by this package)."""


class PanicError(A2AError):
    """A2A_PANIC: a bug inside the library was caught; the handle is unusable."""


CARD_KINDS: dict[int, str] = {
    700: 'json',
    701: 'not_an_object',
    702: 'invalid_field',
    703: 'invalid_interface',
    704: 'no_usable_interface',
    705: 'invalid_url',
    706: 'userinfo_in_url',
    707: 'plain_http',
    708: 'unsupported_scheme',
    709: 'card_url_drift',
    710: 'host_mismatch',
}

RESULT_NAMES: dict[int, str] = {
    0: 'A2A_OK',
    1: 'A2A_NEED_MORE',
    2: 'A2A_NONE',
    100: 'A2A_NULL_PARAMETER',
    101: 'A2A_INVALID_UTF8',
    102: 'A2A_INVALID_ARGUMENT',
    103: 'A2A_INSUFFICIENT_SIZE',
    104: 'A2A_IN_USE',
    105: 'A2A_CLOSED',
    200: 'A2A_VERSION_MALFORMED',
    201: 'A2A_VERSION_UNSUPPORTED',
    202: 'A2A_BINDING_UNKNOWN',
    203: 'A2A_TRACEPARENT_LENGTH',
    204: 'A2A_TRACEPARENT_SEPARATOR',
    205: 'A2A_TRACEPARENT_HEX',
    206: 'A2A_TRACEPARENT_VERSION',
    207: 'A2A_TRACEPARENT_ZERO_TRACE_ID',
    208: 'A2A_TRACEPARENT_ZERO_PARENT_ID',
    300: 'A2A_SSE_LINE_TOO_LONG',
    301: 'A2A_SSE_EVENT_TOO_LARGE',
    302: 'A2A_SSE_ID_NUL',
    303: 'A2A_SSE_EVENT_TYPE_LINE_BREAK',
    304: 'A2A_SSE_ID_LINE_BREAK',
    305: 'A2A_SSE_LIMIT',
    306: 'A2A_SSE_ENCODE',
    400: 'A2A_REQUEST_PARAMS',
    401: 'A2A_REQUEST_NOT_IN_VERSION',
    402: 'A2A_REQUEST_MISSING_ID',
    403: 'A2A_REQUEST_NOT_REPRESENTABLE',
    404: 'A2A_REQUEST_BAD_HEADER',
    405: 'A2A_REQUEST_RESERVED_HEADER',
    406: 'A2A_REQUEST_BAD_EXTENSION',
    407: 'A2A_REQUEST_BODY',
    500: 'A2A_HTTP1_METHOD',
    501: 'A2A_HTTP1_TARGET',
    502: 'A2A_HTTP1_HOST',
    503: 'A2A_HTTP1_HEADER_NAME',
    504: 'A2A_HTTP1_HEADER_VALUE',
    505: 'A2A_HTTP1_RESERVED_HEADER',
    506: 'A2A_HTTP1_REQUEST_INVALID',
    520: 'A2A_HTTP1_MALFORMED',
    521: 'A2A_HTTP1_HEAD_TOO_LARGE',
    522: 'A2A_HTTP1_TOO_MANY_HEADERS',
    523: 'A2A_HTTP1_TOO_MANY_INFORMATIONAL',
    524: 'A2A_HTTP1_UNEXPECTED_UPGRADE',
    525: 'A2A_HTTP1_INVALID_CONTENT_LENGTH',
    526: 'A2A_HTTP1_CONFLICTING_CONTENT_LENGTH',
    527: 'A2A_HTTP1_CONTENT_LENGTH_WITH_TRANSFER_ENCODING',
    528: 'A2A_HTTP1_UNSUPPORTED_TRANSFER_CODING',
    529: 'A2A_HTTP1_INVALID_CHUNK_SIZE',
    530: 'A2A_HTTP1_CHUNK_LINE_TOO_LONG',
    531: 'A2A_HTTP1_MISSING_CHUNK_TERMINATOR',
    532: 'A2A_HTTP1_MALFORMED_TRAILERS',
    533: 'A2A_HTTP1_TRAILERS_TOO_LARGE',
    534: 'A2A_HTTP1_TOO_MANY_TRAILERS',
    535: 'A2A_HTTP1_CLOSED_BEFORE_RESPONSE',
    536: 'A2A_HTTP1_TRUNCATED_HEAD',
    537: 'A2A_HTTP1_TRUNCATED_BODY',
    538: 'A2A_HTTP1_RESPONSE_INVALID',
    700: 'A2A_CARD_JSON',
    701: 'A2A_CARD_NOT_AN_OBJECT',
    702: 'A2A_CARD_INVALID_FIELD',
    703: 'A2A_CARD_INVALID_INTERFACE',
    704: 'A2A_CARD_NO_USABLE_INTERFACE',
    705: 'A2A_CARD_INVALID_URL',
    706: 'A2A_CARD_USERINFO_IN_URL',
    707: 'A2A_CARD_PLAIN_HTTP',
    708: 'A2A_CARD_UNSUPPORTED_SCHEME',
    709: 'A2A_CARD_URL_DRIFT',
    710: 'A2A_CARD_HOST_MISMATCH',
    711: 'A2A_CARD_INVALID',
    800: 'A2A_SERVER_REFUSED',
    801: 'A2A_SERVER_REPLY',
    802: 'A2A_SERVER_STREAMING',
    803: 'A2A_SERVER_ERROR_ID',
    900: 'A2A_CONFIG_ZERO_MAX_ATTEMPTS',
    901: 'A2A_CONFIG_BASE_DELAY_ABOVE_CAP',
    902: 'A2A_CONFIG_NO_OPENING_RULE',
    903: 'A2A_CONFIG_RATE_OUT_OF_RANGE',
    904: 'A2A_CONFIG_ZERO_WINDOW',
    905: 'A2A_CONFIG_BUCKETS_OUT_OF_RANGE',
    906: 'A2A_CONFIG_ZERO_HALF_OPEN_TRIALS',
    907: 'A2A_CONFIG_INVALID',
    910: 'A2A_KEY_EMPTY_INPUT',
    911: 'A2A_KEY_INVALID',
    999: 'A2A_PANIC',
    1000: 'A2A_CLIENT_CARD_RESOLUTION',
    1001: 'A2A_CLIENT_TRANSPORT',
    1100: 'A2A_ANSWER_UNREADABLE',
    1101: 'A2A_ANSWER_MESSAGE',
    1200: 'A2A_CALL_STALE',
    1201: 'A2A_CALL_NO_HEAD',
    1202: 'A2A_CALL_HEAD_TWICE',
    1203: 'A2A_CALL_FINISHED',
    1204: 'A2A_CALL_WRONG_KIND',
    1300: 'A2A_TRUST_JSON',
    1301: 'A2A_TRUST_KEY',
    1302: 'A2A_CARD_SIGNATURE',
    1303: 'A2A_PUSH_REJECTED',
    1304: 'A2A_WEBHOOK_REFUSED',
    1305: 'A2A_OAUTH2_REFUSED',
}

_CLASSES: dict[int, type[A2AError]] = {
    100: NullParameterError,
    101: InvalidUtf8Error,
    102: InvalidArgumentError,
    104: InUseError,
    105: ClosedError,
    200: VersionMalformedError,
    201: VersionUnsupportedError,
    202: BindingUnknownError,
    300: SseLineTooLongError,
    301: SseEventTooLargeError,
    302: SseValueError,
    303: SseValueError,
    304: SseValueError,
    305: SseLimitError,
    306: SseValueError,
    999: PanicError,
}


def describe(code: int) -> str:
    """The library's static English text for a result code."""
    return _lib.view_str(_lib.lib.a2a_result_describe(code)) or 'unknown result code'


def error_for(code: int, message: str | None = None) -> A2AError:
    """The typed exception for a failed call's code."""
    cls = _CLASSES.get(code)
    if cls is None:
        cls = _range_class(code)
    return cls(code, message)


def _range_class(code: int) -> type[A2AError]:
    if 300 <= code < 400:
        return SseError
    if 203 <= code < 300:
        return TraceparentError
    if 400 <= code < 500:
        return RequestError
    if code == 1000:
        return CardResolutionError
    if 500 <= code < 600:
        return Http1Error
    if 700 <= code < 800:
        return CardError
    if 900 <= code < 910:
        return ConfigError
    if 910 <= code < 920:
        return KeyInputError
    return A2AError


def check(code: int, last_error: str | None = None) -> None:
    """Raises the typed exception unless `code` is A2A_OK."""
    if code != 0:
        raise error_for(code, last_error)
