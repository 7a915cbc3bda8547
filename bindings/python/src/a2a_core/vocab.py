"""The shared vocabulary as `str` enums whose values are the library's own words.

Each member compares equal to its word (`Channel.TASK == 'task'`), prints as it
(`str(Channel.TASK) == 'task'`) and serialises as it in JSON, exactly as the `a2a` CLI's
`--json` output writes it. The numbers of the C ABI are mapped by asking the library
(`a2a_vocab_name`), never by a table kept here.
"""

from __future__ import annotations

import ctypes
from enum import Enum
from typing import TypeVar

from . import _lib
from .errors import check

__all__ = [
    'Binding',
    'Channel',
    'ErrorName',
    'ProtocolVersion',
    'RequestSent',
    'Retry',
    'StreamEndKind',
    'StreamItemKind',
    'TaskState',
    'parse_binding',
    'parse_protocol_version',
    'parse_task_state',
]


class _Word(str, Enum):
    def __str__(self) -> str:
        return str(self.value)

    __format__ = str.__format__  # type: ignore[assignment]


class Channel(_Word):
    """The channel of an outcome: exactly one per outcome."""

    TRANSPORT = 'transport'
    HTTP = 'http'
    PROTOCOL = 'protocol'
    TASK = 'task'
    MESSAGE = 'message'
    MALFORMED = 'malformed'


class TaskState(_Word):
    """Task state, normalized across protocol versions."""

    UNKNOWN = 'unknown'
    SUBMITTED = 'submitted'
    WORKING = 'working'
    COMPLETED = 'completed'
    FAILED = 'failed'
    CANCELED = 'canceled'
    INPUT_REQUIRED = 'input-required'
    REJECTED = 'rejected'
    AUTH_REQUIRED = 'auth-required'

    @property
    def terminal(self) -> bool:
        """Completed, canceled, failed or rejected."""
        return _lib.lib.a2a_task_state_classify(_num(TaskState)[self]) == _lib.A2A_TASK_STATE_CLASS_TERMINAL

    @property
    def interrupted(self) -> bool:
        """Input-required or auth-required: the turn ends, the task waits for the caller."""
        return (_lib.lib.a2a_task_state_classify(_num(TaskState)[self])
                == _lib.A2A_TASK_STATE_CLASS_INTERRUPTED)


class Retry(_Word):
    """What the caller should do about an outcome."""

    NONE = 'none'
    NEVER = 'never'
    NEW_TASK = 'new_task'
    RESUBSCRIBE = 'resubscribe'
    POLL = 'poll'
    BACKOFF = 'backoff'
    UNKNOWN_OUTCOME = 'unknown_outcome'
    REAUTHENTICATE = 'reauthenticate'
    FIX_VERSION = 'fix_version'


class RequestSent(_Word):
    """For a transport outcome: whether the request may have reached the server."""

    NO = 'no'
    UNKNOWN = 'unknown'


class ErrorName(_Word):
    """The typed name of an error outcome."""

    PARSE_ERROR = 'ParseError'
    INVALID_REQUEST = 'InvalidRequest'
    METHOD_NOT_FOUND = 'MethodNotFound'
    INVALID_PARAMS = 'InvalidParams'
    INTERNAL = 'Internal'
    TASK_NOT_FOUND = 'TaskNotFound'
    TASK_NOT_CANCELABLE = 'TaskNotCancelable'
    PUSH_NOTIFICATION_NOT_SUPPORTED = 'PushNotificationNotSupported'
    UNSUPPORTED_OPERATION = 'UnsupportedOperation'
    CONTENT_TYPE_NOT_SUPPORTED = 'ContentTypeNotSupported'
    INVALID_AGENT_RESPONSE = 'InvalidAgentResponse'
    EXTENDED_AGENT_CARD_NOT_CONFIGURED = 'ExtendedAgentCardNotConfigured'
    EXTENSION_SUPPORT_REQUIRED = 'ExtensionSupportRequired'
    VERSION_NOT_SUPPORTED = 'VersionNotSupported'
    OTHER = 'Other'
    UNAUTHENTICATED = 'Unauthenticated'
    FORBIDDEN = 'Forbidden'
    NOT_FOUND = 'NotFound'
    PAYLOAD_TOO_LARGE = 'PayloadTooLarge'
    RATE_LIMITED = 'RateLimited'
    REDIRECT = 'Redirect'
    BAD_GATEWAY = 'BadGateway'
    UNAVAILABLE = 'Unavailable'
    GATEWAY_TIMEOUT = 'GatewayTimeout'
    HTTP = 'Http'
    CONNECT_FAILED = 'ConnectFailed'
    DNS = 'Dns'
    TIMEOUT = 'Timeout'
    RESET = 'Reset'
    CIRCUIT_OPEN = 'CircuitOpen'
    CARD_RESOLUTION = 'CardResolution'
    RESPONSE_TOO_LARGE = 'ResponseTooLarge'
    TLS = 'Tls'
    PROXY = 'Proxy'
    ADDRESS_REFUSED = 'AddressRefused'
    CAPABILITY_NOT_DECLARED = 'CapabilityNotDeclared'

    @classmethod
    def of_code(cls, code: int) -> ErrorName:
        """The name of a JSON-RPC / A2A error code (unknown codes are `OTHER`)."""
        return _word(cls, _lib.lib.a2a_error_name_of_code(code))


class ProtocolVersion(_Word):
    """The two protocol shapes deployed today.

    Named `V<major>_<minor>` in every binding (Rust `ProtocolVersion::V1_0`, C
    `A2A_PROTOCOL_VERSION_V1_0`, Go `V1_0`, Java `ProtocolVersion.V1_0`). `V03` and `V10` are
    deprecated aliases of the same members, kept so that older code still runs.
    """

    V0_3 = '0.3'
    V1_0 = '1.0'
    V03 = '0.3'  # deprecated alias of V0_3
    V10 = '1.0'  # deprecated alias of V1_0

    @property
    def header_value(self) -> str | None:
        """The `A2A-Version` header a client sends (None for 0.3, which sends none)."""
        return _vocab_name(_lib.A2A_VOCAB_VERSION_HEADER, _num(ProtocolVersion)[self])


class Binding(_Word):
    """The HTTP binding a call travels over (card transport names).

    Named `JSON_RPC` / `HTTP_JSON` in every binding (Rust `Binding::JsonRpc`, C
    `A2A_BINDING_JSON_RPC`). `JSONRPC` is a deprecated alias of `JSON_RPC`.
    """

    JSON_RPC = 'JSONRPC'
    HTTP_JSON = 'HTTP+JSON'
    JSONRPC = 'JSONRPC'  # deprecated alias of JSON_RPC


class StreamItemKind(_Word):
    """What a stream event carried."""

    TASK = 'task'
    MESSAGE = 'message'
    STATUS_UPDATE = 'status-update'
    ARTIFACT_UPDATE = 'artifact-update'
    ERROR = 'error'
    MALFORMED = 'malformed'


class StreamEndKind(_Word):
    """How a stream ended."""

    COMPLETED = 'completed'
    INTERRUPTED = 'interrupted'
    TRUNCATED = 'truncated'
    ERROR = 'error'
    TIMED_OUT = 'timed_out'
    NOT_A_STREAM = 'not_a_stream'


# Numbers of the C enums. The library names them (a2a_vocab_name, one a2a_vocab per enum);
# the two stream enums have no vocabulary, so their numbers are those of include/a2a_core.h
# (checked by tests/test_abi.py against the header).
_TO_STR = {
    Channel: (_lib.A2A_VOCAB_CHANNEL, range(1, 16)),
    TaskState: (_lib.A2A_VOCAB_TASK_STATE, range(0, 16)),
    Retry: (_lib.A2A_VOCAB_RETRY, range(1, 16)),
    RequestSent: (_lib.A2A_VOCAB_REQUEST_SENT, range(1, 8)),
    ErrorName: (_lib.A2A_VOCAB_ERROR_NAME, range(1, 300)),
    ProtocolVersion: (_lib.A2A_VOCAB_PROTOCOL_VERSION, range(1, 8)),
    Binding: (_lib.A2A_VOCAB_BINDING, range(1, 8)),
}
_FIXED: dict[type[_Word], dict[_Word, int]] = {
    StreamItemKind: dict(zip(StreamItemKind, range(1, 7))),
    StreamEndKind: dict(zip(StreamEndKind, range(1, 7))),
}

E = TypeVar('E', bound=_Word)
_BY_NUM: dict[type, dict[int, _Word]] = {}
_BY_MEMBER: dict[type, dict[_Word, int]] = {}


def _vocab_name(vocab: int, n: int) -> str | None:
    """The library's name of number `n` in vocabulary `vocab` (an A2A_VOCAB_* number)."""
    return _lib.view_str(_lib.lib.a2a_vocab_name(vocab, n))


def _vocab_parse(vocab: int, text: str) -> int | None:
    """The number `text` names in `vocab`; None when the library answers A2A_NONE, and the
    library's error raised for any other refusal."""
    b, n = _lib.enc(text)
    out = ctypes.c_uint32()
    rc = _lib.lib.a2a_vocab_parse(vocab, b, n, ctypes.byref(out))
    if rc == _lib.A2A_NONE:
        return None
    check(rc)
    return out.value


def _build() -> None:
    for cls, (vocab, numbers) in _TO_STR.items():
        by_num: dict[int, _Word] = {}
        for n in numbers:
            w = _vocab_name(vocab, n)
            if w is not None:
                by_num[n] = cls(w)  # ValueError here: the library has a word this enum lacks
        _BY_NUM[cls] = by_num
        _BY_MEMBER[cls] = {m: n for n, m in by_num.items()}
    for cls, table in _FIXED.items():
        _BY_MEMBER[cls] = dict(table)
        _BY_NUM[cls] = {n: m for m, n in table.items()}


_build()


def _word(cls: type[E], n: int) -> E:
    """The member for C number `n`."""
    return _BY_NUM[cls][n]  # type: ignore[return-value]


def _num(cls: type[E]) -> dict[E, int]:
    """Member -> C number."""
    return _BY_MEMBER[cls]  # type: ignore[return-value]


def _parse(cls: type[E], text: str) -> E:
    n = _vocab_parse(_TO_STR[cls][0], text)
    assert n is not None  # these vocabularies never answer A2A_NONE
    return _word(cls, n)


def parse_protocol_version(text: str | ProtocolVersion) -> ProtocolVersion:
    """`"0.3"`, `"0.3.0"`, `"1.0"`, `"1.2"` -> the protocol shape (raises VersionError)."""
    if isinstance(text, ProtocolVersion):
        return text
    return _parse(ProtocolVersion, text)


def parse_binding(text: str | Binding) -> Binding:
    """`jsonrpc`, `JSONRPC`, `http+json`, `rest` -> the binding (raises BindingUnknownError)."""
    if isinstance(text, Binding):
        return text
    return _parse(Binding, text)


def parse_task_state(text: str) -> TaskState:
    """Every deployed spelling (`input-required`, `TASK_STATE_CANCELLED`, `"4"`); unknown
    spellings give `TaskState.UNKNOWN`."""
    return _parse(TaskState, text)
