"""a2a-core for Python: the A2A protocol core over its C ABI, with ctypes: the clients
on the library's client machine (`Client`, `AsyncClient`: requests, deadlines, retries,
resubscribes and the circuit breaker are the machine's), SSE decoding, outcome
classification, idempotency keys, model-facing failure text, agent cards, and
trust (signed cards, push notification verification, webhook checks, OAuth2: `trust`).

The shared library is `$A2A_CORE_LIB` when set, else the one bundled in the package, else
(in a checkout) the repository's release build (see README); `a2a_core.library_path()` says
which file was loaded.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from . import _lib
from .card import (
    AgentCard,
    CardChoice,
    CardInfo,
    CardInterface,
    CredentialNeed,
    CredentialPlan,
    ResolvedInterface,
    card_location,
    validate_interface_url,
)
from .answer import (
    Answer,
    Artifact,
    ArtifactUpdate,
    DataPart,
    FilePart,
    Message,
    Part,
    StatusUpdate,
    Task,
    TaskStatus,
    TextPart,
    UnreadableAnswerError,
    read_answer,
)
from .client import Client, ClientStreamEnd, HeaderHook, Resubscribing, StreamEvent
from .errors import (
    A2AError,
    BindingUnknownError,
    CardError,
    CardResolutionError,
    ClosedError,
    ConfigError,
    InUseError,
    InvalidArgumentError,
    KeyInputError,
    InvalidUtf8Error,
    NullParameterError,
    PanicError,
    RequestError,
    SseError,
    SseEventTooLargeError,
    SseLimitError,
    SseLineTooLongError,
    SseValueError,
    VersionError,
    VersionMalformedError,
    VersionUnsupportedError,
    TraceparentError,
)
from ._lib import LibraryNotFoundError
from .outcome import (
    JSON_KEYS,
    Outcome,
    OutcomeError,
    classify,
    extract_error_id,
    is_event_stream,
    leaked_exception,
    parse_retry_after,
)
from .request import Method, method_from_jsonrpc_name
from .resilience import (
    MODEL_INSTRUCTION,
    BreakerConfig,
    counts_toward_breaker,
    derive_idempotency_key,
    derive_message_id,
    model_prefix,
    model_text,
)
from .sse import Comment, Discarded, Event, Finish, Item, RetryItem, SseDecoder, SseEncoder
from .stream import StreamItem
from .tally import Tally
from .trust import (
    CardSignatureError,
    ClientCredentials,
    OAuth2Error,
    PushProof,
    PushVerdict,
    PushVerifier,
    SignatureRejection,
    TrustError,
    TrustJsonError,
    TrustKeyError,
    VerifiedSignature,
    WebhookRefused,
    canonical,
    card_key_url,
    check_webhook_url,
    sign_card,
    verify_card,
)
from .traceparent import Traceparent
from .vocab import (
    Binding,
    Channel,
    ErrorName,
    ProtocolVersion,
    RequestSent,
    Retry,
    StreamEndKind,
    StreamItemKind,
    TaskState,
    parse_binding,
    parse_protocol_version,
    parse_task_state,
)
from . import _machine  # noqa: F401 - declares the machine's C functions (AsyncClient)
from .answer import _SCAN, _result_from_text, answer_from_json
from .outcome import _UNREAD
from .vocab import _BY_NUM

__version__ = '0.1.0'

_lib.enable_speedups(
    Outcome,
    StreamItem,
    Event,
    _result_from_text,
    tuple(_BY_NUM[c] for c in (Channel, Retry, ErrorName, TaskState, RequestSent,
                               ProtocolVersion, Binding, StreamItemKind)),
    ((TextPart, DataPart, FilePart, Message, TaskStatus, Artifact, Task, StatusUpdate,
      ArtifactUpdate), _SCAN, answer_from_json, _UNREAD),
)
if _lib.SPEEDUPS is not None:
    # `Outcome.result` read on first access by the extension's descriptor: outcome.py's
    # _LazyResult, same steps and the same `slot`, without a Python call per read.
    Outcome.result = _lib.SPEEDUPS.lazy_result(  # type: ignore[attr-defined,misc]
        Outcome.__dict__['result'].slot, Outcome.__dict__['_result_text'], _UNREAD, _lib,
        _result_from_text)


#: Names of `a2a_core.aio`, imported on first use: it needs httpx (the `async` extra),
#: which `import a2a_core` alone does not.
_AIO_NAMES = ('AsyncClient', 'FetchedCard', 'afetch_card', 'fetch_card')


if TYPE_CHECKING:  # what __getattr__ imports on first use, for type checkers
    from ._drive import CallResult, TaskPage


#: Names of `a2a_core._drive` (the results of both clients' list-tasks, push-config and
#: extended-card calls), imported on first use.
_DRIVE_NAMES = ('CallResult', 'TaskPage')


def __getattr__(name: str) -> object:
    """`a2a_core.AsyncClient`, `fetch_card`, ... from `a2a_core.aio` (imports httpx);
    `CallResult` and `TaskPage` (no httpx needed)."""
    if name in _AIO_NAMES:
        from . import aio
        return getattr(aio, name)
    if name in _DRIVE_NAMES:
        from . import _drive
        return getattr(_drive, name)
    raise AttributeError(f'module {__name__!r} has no attribute {name!r}')


def library_version() -> str:
    """The loaded library's version (`MAJOR.MINOR.PATCH`)."""
    return _lib.view_str(_lib.lib.a2a_version()) or ''


def library_path() -> Path:
    """The shared library file this package loaded."""
    return _lib.LIB_PATH


def speedups() -> Path | None:
    """The compiled fast path in use (the file of `a2a_core._speedups`), or None when the
    pure-ctypes code runs; `speedups_status()` says why."""
    mod = _lib.SPEEDUPS
    return Path(mod.__file__) if mod is not None else None  # type: ignore[attr-defined]


def speedups_status() -> str:
    """Why the compiled fast path is or is not in use, in words."""
    return _lib.SPEEDUPS_STATUS


__all__ = [
    'A2AError',
    'Answer',
    'Artifact',
    'ArtifactUpdate',
    'DataPart',
    'FilePart',
    'Message',
    'Part',
    'StatusUpdate',
    'Task',
    'TaskStatus',
    'TextPart',
    'UnreadableAnswerError',
    'read_answer',
    'AgentCard',
    'Binding',
    'BindingUnknownError',
    'BreakerConfig',
    'CardChoice',
    'CardError',
    'CardInfo',
    'CardInterface',
    'CardResolutionError',
    'Channel',
    'AsyncClient',
    'CallResult',
    'Client',
    'TaskPage',
    'FetchedCard',
    'afetch_card',
    'fetch_card',
    'ClientStreamEnd',
    'ClosedError',
    'Comment',
    'ConfigError',
    'CredentialNeed',
    'CredentialPlan',
    'Discarded',
    'ErrorName',
    'Event',
    'Finish',
    'HeaderHook',
    'InUseError',
    'InvalidArgumentError',
    'InvalidUtf8Error',
    'Item',
    'JSON_KEYS',
    'KeyInputError',
    'LibraryNotFoundError',
    'MODEL_INSTRUCTION',
    'Method',
    'NullParameterError',
    'Outcome',
    'OutcomeError',
    'PanicError',
    'ProtocolVersion',
    'RequestError',
    'RequestSent',
    'ResolvedInterface',
    'Resubscribing',
    'Retry',
    'RetryItem',
    'SseDecoder',
    'SseEncoder',
    'SseError',
    'SseEventTooLargeError',
    'SseLimitError',
    'SseLineTooLongError',
    'SseValueError',
    'StreamEndKind',
    'StreamEvent',
    'StreamItem',
    'StreamItemKind',
    'Tally',
    'CardSignatureError',
    'ClientCredentials',
    'OAuth2Error',
    'PushProof',
    'PushVerdict',
    'PushVerifier',
    'SignatureRejection',
    'TrustError',
    'TrustJsonError',
    'TrustKeyError',
    'VerifiedSignature',
    'WebhookRefused',
    'canonical',
    'card_key_url',
    'check_webhook_url',
    'sign_card',
    'verify_card',
    'TaskState',
    'Traceparent',
    'TraceparentError',
    'VersionError',
    'VersionMalformedError',
    'VersionUnsupportedError',
    'card_location',
    'classify',
    'counts_toward_breaker',
    'derive_idempotency_key',
    'derive_message_id',
    'extract_error_id',
    'is_event_stream',
    'leaked_exception',
    'library_path',
    'library_version',
    'speedups',
    'speedups_status',
    'method_from_jsonrpc_name',
    'model_prefix',
    'model_text',
    'parse_binding',
    'parse_protocol_version',
    'parse_retry_after',
    'parse_task_state',
    'validate_interface_url',
]
