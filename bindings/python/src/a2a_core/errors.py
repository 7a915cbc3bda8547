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


class PanicError(A2AError):
    """A2A_PANIC: a bug inside the library was caught; the handle is unusable."""


RESULT_NAMES: dict[int, str] = {
    0: 'A2A_OK',
    1: 'A2A_NEED_MORE',
    2: 'A2A_NONE',
    100: 'A2A_NULL_PARAMETER',
    101: 'A2A_INVALID_UTF8',
    102: 'A2A_INVALID_ARGUMENT',
    200: 'A2A_VERSION_MALFORMED',
    201: 'A2A_VERSION_UNSUPPORTED',
    202: 'A2A_BINDING_UNKNOWN',
    300: 'A2A_SSE_LINE_TOO_LONG',
    301: 'A2A_SSE_EVENT_TOO_LARGE',
    302: 'A2A_SSE_ID_NUL',
    303: 'A2A_SSE_EVENT_TYPE_LINE_BREAK',
    304: 'A2A_SSE_ID_LINE_BREAK',
    305: 'A2A_SSE_LIMIT',
    306: 'A2A_SSE_ENCODE',
    999: 'A2A_PANIC',
}

_CLASSES: dict[int, type[A2AError]] = {
    100: NullParameterError,
    101: InvalidUtf8Error,
    102: InvalidArgumentError,
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
    return A2AError


def check(code: int, last_error: str | None = None) -> None:
    """Raises the typed exception unless `code` is A2A_OK."""
    if code != 0:
        raise error_for(code, last_error)
