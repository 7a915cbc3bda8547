"""Typed exceptions for the library's `a2a_result` codes.

Every failed call raises a subclass of `A2AError` carrying the numeric `code`, the code's
C name (`A2A_VERSION_MALFORMED`) and the library's own message (the handle's last error
when it has one, else the library's description of the code).
"""

from __future__ import annotations

from typing import Any

from . import _abi, _lib


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


class TrustError(A2AError):
    """A refusal of the trust layer (signed cards, push notifications, webhooks, OAuth2):
    `reason` is the core's stable snake_case kind (`unsigned`, `bad_signature`, `internal`,
    `refused`, ...), `detail` its text, `report` the whole JSON report the library wrote.
    Never carries a secret (the library's reports leave them out)."""

    reason: str
    detail: str
    report: dict[str, object]

    def __init__(self, code: int, message: str | None = None,
                 report: dict[str, object] | None = None) -> None:
        self.report = dict(report or {})
        self.reason = str(self.report.get('reason') or 'invalid')
        self.detail = str(self.report.get('detail') or message or '')
        super().__init__(code, self.detail or message)


class TrustJsonError(TrustError, ValueError):
    """A2A_TRUST_JSON: a card, policy or key set is not the JSON it should be."""


class TrustKeyError(TrustError, ValueError):
    """A2A_TRUST_KEY: a key (PEM, JWK, JWKS) cannot be read or used."""


class CardSignatureError(TrustError):
    """A2A_CARD_SIGNATURE: the card's signatures do not verify (or it has none, or its
    `jku` is refused). `reason` says why (`unsigned`, `no_valid_signature`, `jku`, ...);
    `signatures` says, per signature, why it was rejected."""

    @property
    def signatures(self) -> tuple[Any, ...]:
        """One `SignatureRejection` (kid, alg, rejected) per signature of the card."""
        from .trust import SignatureRejection

        return tuple(SignatureRejection.from_json(s) for s in
                     self.report.get('signatures') or () if isinstance(s, dict))


class WebhookRefused(TrustError, ValueError):
    """A2A_WEBHOOK_REFUSED: a push config's webhook URL (or an address it resolves to) may
    not be called: `reason` is `scheme`, `userinfo`, `internal` or `invalid`."""


class OAuth2Error(TrustError):
    """A2A_OAUTH2_REFUSED: the token endpoint refused (`reason` `refused`, with the RFC 6749
    `error` code in `error`) or answered something that is not a token (`status`, `body`,
    `no_access_token`, `token_type`, `expires_in`), or could not be reached (`transport`)."""

    @property
    def error(self) -> str | None:
        """The RFC 6749 §5.2 `error` code (`invalid_client`, ...), when the server sent one."""
        e = self.report.get('error')
        return str(e) if e is not None else None


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

#: Every `a2a_result` number -> its name, from the generated mirror of the header.
RESULT_NAMES: dict[int, str] = {n: name for name, n in _abi.ENUMS['a2a_result'].items()}

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


#: The trust layer's result codes, by name (their numbers are the header's, in RESULT_NAMES).
_TRUST_CLASSES: dict[str, type[A2AError]] = {
    'A2A_TRUST_JSON': TrustJsonError,
    'A2A_TRUST_KEY': TrustKeyError,
    'A2A_CARD_SIGNATURE': CardSignatureError,
    'A2A_PUSH_REJECTED': TrustError,
    'A2A_WEBHOOK_REFUSED': WebhookRefused,
    'A2A_OAUTH2_REFUSED': OAuth2Error,
}
_CLASSES.update({code: _TRUST_CLASSES[name] for code, name in RESULT_NAMES.items()
                 if name in _TRUST_CLASSES})


def code_of(name: str) -> int:
    """The number of a result code named as in the header (`A2A_CARD_SIGNATURE`)."""
    for code, n in RESULT_NAMES.items():
        if n == name:
            return code
    raise LookupError(f'{name}: not a result code of this library')


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
