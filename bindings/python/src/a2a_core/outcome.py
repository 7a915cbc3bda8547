"""Outcomes: `classify` a complete response, or build a transport outcome.

An `Outcome` is a plain, immutable copy of everything the library's outcome carries (read
with one accessor call per field when it is built, never later), plus the library handle
it came from when the binding owns one (needed by the resilience functions); the handle is
freed when the Outcome is garbage-collected.
"""

from __future__ import annotations

import ctypes
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from . import _lib
from .errors import check
from .vocab import (
    Binding,
    Channel,
    ErrorName,
    ProtocolVersion,
    RequestSent,
    Retry,
    TaskState,
    _num,
    _word,
    parse_binding,
    parse_protocol_version,
)

__all__ = [
    'JSON_KEYS',
    'Outcome',
    'classify',
    'extract_error_id',
    'is_event_stream',
    'leaked_exception',
    'parse_retry_after',
]

#: The keys of `a2a classify --json`, in its order (`Outcome.to_dict()`).
JSON_KEYS = (
    'channel',
    'http_status',
    'code',
    'error',
    'reason',
    'message',
    'state',
    'terminal',
    'task_id',
    'context_id',
    'text',
    'error_id',
    'retry',
    'hint',
    'remote_hint',
    'leaked_detail',
    'cancel_origin',
)


def _result_of(ptr: int) -> Any:
    from .answer import _result_of as read

    return read(ptr)


class _OwnedOutcome:
    """Owns one `a2a_outcome *`; frees it exactly once when collected."""

    __slots__ = ('ptr',)

    def __init__(self, ptr: int) -> None:
        self.ptr = ptr

    def __del__(self) -> None:
        ptr, self.ptr = self.ptr, 0
        if ptr:
            _lib.lib.a2a_outcome_free(ptr)


@dataclass(frozen=True, slots=True)
class Outcome:
    """One outcome of an A2A call: exactly one channel, its details and what to do next.

    The attributes named in `JSON_KEYS` are the keys of `a2a classify --json`, with the same
    values (enums compare equal to the CLI's words; `remote_hint` becomes an object).
    """

    channel: Channel
    http_status: int | None
    code: int | None
    error: ErrorName | None
    reason: str | None
    message: str | None
    state: TaskState | None
    terminal: bool
    task_id: str | None
    context_id: str | None
    text: str | None
    error_id: str | None
    retry: Retry
    hint: str | None
    #: A completed task or a direct message.
    success: bool = False
    #: JSON-RPC `error.data` / REST `details`, as raw JSON text.
    data: str | None = None
    #: `Retry-After` in seconds, when the response gave one as delta-seconds.
    retry_after: int | None = None
    #: The remote's own stable hint (`[retryable=false code=...]`): its pairs in order.
    remote_hint: tuple[tuple[str, str], ...] = ()
    #: The `retryable` flag of that hint, when given.
    remote_retryable: bool | None = None
    #: Transport channel: whether the request may have reached the server.
    request_sent: RequestSent | None = None
    #: The protocol version / binding the response was read as.
    version: ProtocolVersion | None = None
    binding: Binding | None = None
    #: A bounded excerpt of an unexpected body (e.g. a proxy's HTML page).
    body_excerpt: str | None = None
    #: The exit status `a2a` gives this outcome: 0 success, 3 transport / HTTP / malformed,
    #: 4 protocol error, 5 FAILED, 6 canceled / rejected / input or auth required, 7 not
    #: final.
    exit_code: int = 0
    #: The agent's answer, typed (`a2a_core.answer`): the Task or Message a client send,
    #: get or cancel returned; a stream item's event; a stream end's assembled answer.
    #: None for other outcomes. `outcome.result.text` is the answer's text.
    result: Any = None
    #: A FAILED status text carries exception detail beyond its error id (ADK's debug
    #: errors); `model_text` then carries only the error id.
    leaked_detail: bool = False
    #: For a CANCELED task: 'requested' (this client sent CancelTask, or the server marked it
    #: so), 'remote' or 'admission' (the server's marker).
    cancel_origin: str | None = None
    _owned: Any = field(default=None, repr=False, compare=False)

    @classmethod
    def _from_ptr(cls, ptr: int, owned: bool) -> Outcome:
        """Copies every field out of `a2a_outcome *ptr`; takes ownership when `owned`."""
        L = _lib.lib
        holder = _OwnedOutcome(ptr) if owned else None
        u16, i64, u32, u64, cb = (
            ctypes.c_uint16(),
            ctypes.c_int64(),
            ctypes.c_uint32(),
            ctypes.c_uint64(),
            ctypes.c_bool(),
        )
        ref = ctypes.byref
        http_status = u16.value if L.a2a_outcome_http_status(ptr, ref(u16)) else None
        code = i64.value if L.a2a_outcome_code(ptr, ref(i64)) else None
        error = _word(ErrorName, u32.value) if L.a2a_outcome_error_name(ptr, ref(u32)) else None
        state = _word(TaskState, u32.value) if L.a2a_outcome_state(ptr, ref(u32)) else None
        retry_after = u64.value if L.a2a_outcome_retry_after_secs(ptr, ref(u64)) else None
        remote_retryable = cb.value if L.a2a_outcome_remote_hint_retryable(ptr, ref(cb)) else None
        sent = (
            _word(RequestSent, u32.value) if L.a2a_outcome_request_sent(ptr, ref(u32)) else None
        )
        version = (
            _word(ProtocolVersion, u32.value) if L.a2a_outcome_version(ptr, ref(u32)) else None
        )
        binding = _word(Binding, u32.value) if L.a2a_outcome_binding(ptr, ref(u32)) else None
        pairs = []
        k, v = _lib.Str(), _lib.Str()
        for i in range(L.a2a_outcome_remote_hint_count(ptr)):
            check(L.a2a_outcome_remote_hint_pair(ptr, i, ref(k), ref(v)))
            pairs.append((_lib.view_str(k) or '', _lib.view_str(v) or ''))
        s = _lib.view_str
        return cls(
            channel=_word(Channel, L.a2a_outcome_channel(ptr)),
            http_status=http_status,
            code=code,
            error=error,
            reason=s(L.a2a_outcome_reason(ptr)),
            message=s(L.a2a_outcome_message(ptr)),
            state=state,
            terminal=bool(L.a2a_outcome_terminal(ptr)),
            task_id=s(L.a2a_outcome_task_id(ptr)),
            context_id=s(L.a2a_outcome_context_id(ptr)),
            text=s(L.a2a_outcome_text(ptr)),
            error_id=s(L.a2a_outcome_error_id(ptr)),
            retry=_word(Retry, L.a2a_outcome_retry(ptr)),
            hint=s(L.a2a_outcome_hint(ptr)),
            success=bool(L.a2a_outcome_is_success(ptr)),
            data=s(L.a2a_outcome_data(ptr)),
            retry_after=retry_after,
            remote_hint=tuple(pairs),
            remote_retryable=remote_retryable,
            request_sent=sent,
            version=version,
            binding=binding,
            body_excerpt=s(L.a2a_outcome_body_excerpt(ptr)),
            exit_code=int(L.a2a_outcome_exit_code(ptr)),
            result=_result_of(ptr),
            leaked_detail=bool(L.a2a_outcome_leaked_detail(ptr)),
            cancel_origin=s(L.a2a_outcome_cancel_origin(ptr)),
            _owned=holder,
        )

    @classmethod
    def transport(
        cls,
        error: ErrorName | str,
        request_sent: RequestSent | str,
        message: str = '',
    ) -> Outcome:
        """A transport outcome (no HTTP response), for callers with their own HTTP stack:
        connect refused, DNS, timeout, reset, TLS, breaker open, card resolution.
        `request_sent='no'` only when the request provably never left the process."""
        name = ErrorName(error)
        sent = RequestSent(request_sent)
        b, n = _lib.enc(message)
        out = ctypes.c_void_p()
        check(
            _lib.lib.a2a_outcome_transport(
                _num(ErrorName)[name], _num(RequestSent)[sent], b, n, ctypes.byref(out)
            )
        )
        return cls._from_ptr(out.value or 0, owned=True)

    def to_dict(self) -> dict[str, Any]:
        """The keys of `a2a classify --json`, in its order, with JSON values."""
        out: dict[str, Any] = {}
        for k in JSON_KEYS:
            v = getattr(self, k)
            if k == 'remote_hint':
                hint: dict[str, str] = {}
                for hk, hv in self.remote_hint:
                    hint.setdefault(hk, hv)  # the first of a repeated key, as the CLI writes
                out[k] = hint or None
                continue
            out[k] = v.value if hasattr(v, 'value') and not isinstance(v, bool) else v
        return out

    def to_json(self) -> str:
        """The same JSON object `a2a classify` prints (compact)."""
        return json.dumps(self.to_dict(), ensure_ascii=False, separators=(',', ':'))

    def _ptr(self) -> int:
        """The library handle, for calls that take an outcome."""
        if self._owned is None or not self._owned.ptr:
            raise ValueError(
                'this Outcome has no library handle (it was copied from a stream item); '
                'use the outcome of StreamTracker.finish() or of classify()'
            )
        return int(self._owned.ptr)


def _response(
    status: int,
    body: bytes | bytearray | memoryview | str,
    content_type: str | None,
    retry_after: str | None,
    asked: _lib.Asked,
    keep: list[object],
    now_unix_seconds: int | None = None,
) -> _lib.Response:
    if not 0 <= status <= 0xFFFF:
        raise ValueError(f'status {status} is not an HTTP status')
    now = 0 if now_unix_seconds is None else int(now_unix_seconds)
    if not 0 <= now < 1 << 64:
        raise ValueError(f'now_unix_seconds {now_unix_seconds} is out of range')
    if isinstance(body, str):
        body = body.encode('utf-8')
    elif not isinstance(body, bytes):
        body = bytes(body)
    ct, ctn = _lib.enc(content_type)
    ra, ran = _lib.enc(retry_after)
    keep.extend((body, ct, ra))
    return _lib.Response(status, ct, ctn, ra, ran, body, len(body), asked, now)


def _asked(
    version: str | ProtocolVersion | None,
    binding: str | Binding | None,
    method: str | None,
    request_id: str | int | None,
    keep: list[object],
) -> _lib.Asked:
    v = _num(ProtocolVersion)[parse_protocol_version(version)] if version is not None else 0
    b = _num(Binding)[parse_binding(binding)] if binding is not None else 0
    m, mn = _lib.enc(method)
    r, rn = _lib.enc(None if request_id is None else str(request_id))
    keep.extend((m, r))
    return _lib.Asked(v, b, m, mn, r, rn)


def _headers(
    headers: Mapping[str, str] | None, content_type: str | None, retry_after: str | None
) -> tuple[str | None, str | None]:
    if headers:
        for name, value in headers.items():
            low = name.lower()
            if low == 'content-type' and content_type is None:
                content_type = value
            elif low == 'retry-after' and retry_after is None:
                retry_after = value
    return content_type, retry_after


def classify(
    status: int,
    body: bytes | bytearray | memoryview | str,
    content_type: str | None = None,
    version: str | ProtocolVersion | None = None,
    binding: str | Binding | None = None,
    method: str | None = None,
    request_id: str | int | None = None,
    *,
    retry_after: str | None = None,
    headers: Mapping[str, str] | None = None,
    now_unix_seconds: int | None = None,
) -> Outcome:
    """Classifies one complete HTTP response into exactly one Outcome.

    `version` (`"0.3"`, `"1.0"`) and `binding` (`"jsonrpc"`, `"http+json"`) say what was
    asked; None means "detect from the body". `method` is the JSON-RPC method or REST path
    (None: retry advice assumes a side effect); `request_id` the JSON-RPC id. `headers`
    (any mapping, e.g. httpx's) supplies `Content-Type` and `Retry-After` when the explicit
    arguments are None. `now_unix_seconds` is your wall clock (e.g. `int(time.time())`),
    needed only to turn a `Retry-After` HTTP-date into `Outcome.retry_after` seconds; None
    (or 0) means no clock. A whole `text/event-stream` body is classified by its
    end-of-stream outcome (decoded with the SSE decoder's limits: an event over them makes
    the outcome `malformed`). Invalid JSON or UTF-8 in the body is a classification, never
    an exception.
    """
    content_type, retry_after = _headers(headers, content_type, retry_after)
    keep: list[object] = []
    asked = _asked(version, binding, method, request_id, keep)
    resp = _response(status, body, content_type, retry_after, asked, keep, now_unix_seconds)
    out = ctypes.c_void_p()
    check(_lib.lib.a2a_classify(ctypes.byref(resp), ctypes.byref(out)))
    return Outcome._from_ptr(out.value or 0, owned=True)


def extract_error_id(text: str) -> str | None:
    """The first ADK error id (12 lowercase hex digits after `error_id`) in `text`, or None."""
    b, n = _lib.enc(text)
    out = _lib.Str()
    rc = _lib.lib.a2a_extract_error_id(b, n, ctypes.byref(out))
    if rc == 2:  # A2A_NONE
        return None
    check(rc)
    return _lib.view_str(out)


def leaked_exception(text: str) -> tuple[str, str] | None:
    """`(class, message)` of exception detail leaked into a failure text
    (`...: java.lang.IllegalStateException: boom`), or None."""
    b, n = _lib.enc(text)
    c, m = _lib.Str(), _lib.Str()
    rc = _lib.lib.a2a_leaked_exception(b, n, ctypes.byref(c), ctypes.byref(m))
    if rc == 2:
        return None
    check(rc)
    return _lib.view_str(c) or '', _lib.view_str(m) or ''


def parse_retry_after(value: str) -> int | None:
    """A `Retry-After` value as delta-seconds; None for an HTTP-date (pass it to `classify`
    with `now_unix_seconds`) or garbage."""
    # The library reads Retry-After in one place, the classifier: an HTTP error with no body
    # and this header, classified without a clock, carries exactly its delta-seconds.
    return classify(503, b'', retry_after=value).retry_after


def is_event_stream(content_type: str | None) -> bool:
    """Whether a `Content-Type` value is `text/event-stream` (parameters, case ignored)."""
    b, n = _lib.enc(content_type)
    return bool(_lib.lib.a2a_is_event_stream(b, n))
