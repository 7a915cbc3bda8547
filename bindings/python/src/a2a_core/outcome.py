"""Outcomes: `classify` a complete response, or build a transport outcome.

An `Outcome` is a plain, immutable copy of everything the library's outcome carries (read
with one call, `a2a_outcome_get_info`, when it is built, never later), plus the library handle
it came from when the binding owns one (needed by the resilience functions); the handle is
freed when the Outcome is garbage-collected.
"""

from __future__ import annotations

import ctypes
import json
import struct
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Union

from . import _lib
from ._guard import HandleHolder, Owned
from .answer import _result_from_text

if TYPE_CHECKING:
    from .answer import ArtifactUpdate, Message, StatusUpdate, Task
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
    'OutcomeError',
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


def _text(ptr: int, size: int) -> str:
    return _lib.string_at(ptr, size).decode('utf-8', 'replace') if size else ''


def _info_unpacker() -> Any:
    """`struct.Struct(...).unpack_from` reading an `a2a_outcome_info` in one step, when the
    native format with the mirror's field types lands every field at the mirror's offset
    (checked field by field); else None (fields are then read one by one)."""
    codes = {ctypes.c_uint32: 'I', ctypes.c_bool: '?', ctypes.c_uint16: 'H',
             ctypes.c_int64: 'q', ctypes.c_uint64: 'Q', ctypes.c_size_t: 'N',
             ctypes.c_int32: 'i', _lib.Str: 'PN'}
    fmt = '@'
    for f in _lib.OutcomeInfo._fields_:
        name, typ = f[0], f[1]
        code = codes.get(typ)
        if code is None or struct.calcsize(fmt + code[0]) - struct.calcsize(code[0]) != getattr(
                _lib.OutcomeInfo, name).offset:
            return None
        fmt += code
    if struct.calcsize(fmt) > ctypes.sizeof(_lib.OutcomeInfo):
        return None
    return struct.Struct(fmt).unpack_from


_INFO_UNPACK = _info_unpacker()


class _OwnedOutcome(HandleHolder, Owned):
    """Owns one `a2a_outcome *`; frees it exactly once when collected."""

    __slots__ = ('ptr',)
    _free = _lib.lib.a2a_outcome_free

    def __init__(self, ptr: int) -> None:
        self.ptr = ptr


class _Unread:
    """The value of `Outcome.result`'s slot until the answer is built (never seen outside)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return '<answer not read yet>'


_UNREAD = _Unread()


class _LazyResult:
    """`Outcome.result`: the answer is built from `_result_text` when first read (most stream
    items' answers and a long stream's assembled end answer are never read by many
    callers), then kept in the slot. Every reader (attribute access, ==, repr, hash,
    dataclasses.replace/asdict, pickling) goes through here, so it always sees the answer.
    On the class, it is the slot's own descriptor (the compiled fast path sets the slot
    through it)."""

    __slots__ = ('slot',)

    def __init__(self, slot: Any) -> None:
        self.slot = slot

    def __get__(self, obj: Any, cls: Any = None) -> Any:
        if obj is None:
            return self.slot
        v = self.slot.__get__(obj, cls)
        if v is _UNREAD:
            text = obj._result_text
            if text is None:  # another thread built it since: the slot is set before the
                return self.slot.__get__(obj, cls)  # text is dropped
            if text.__class__ is bytes:  # kept so by the compiled extension
                text = text.decode('utf-8', 'replace')
            sp = _lib.SPEEDUPS
            if sp is not None:
                v = sp.answer(text)  # type: ignore[attr-defined]
            else:
                v = _result_from_text(text)
            self.slot.__set__(obj, v)
            object.__setattr__(obj, '_result_text', None)
        return v

    def __set__(self, obj: Any, value: Any) -> None:
        self.slot.__set__(obj, value)


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
    result: Union['Task', 'Message', 'StatusUpdate', 'ArtifactUpdate', None] = None
    #: A FAILED status text carries exception detail beyond its error id (ADK's debug
    #: errors); `model_text` then carries only the error id.
    leaked_detail: bool = False
    #: For a CANCELED task: 'requested' (this client sent CancelTask, or the server marked it
    #: so), 'remote' or 'admission' (the server's marker).
    cancel_origin: str | None = None
    _owned: Any = field(default=None, repr=False, compare=False)
    #: The answer's canonical JSON until `result` is first read (then None): `result` is
    #: built on first access (see _LazyResult), not when the outcome is copied.
    _result_text: str | bytes | None = field(default=None, repr=False, compare=False)

    @classmethod
    def _from_ptr(cls, ptr: int, owned: bool) -> Outcome:
        """Copies every field out of `a2a_outcome *ptr`; takes ownership when `owned`. One
        foreign call (`a2a_outcome_get_info`) for all the fields, in C when the compiled
        fast path runs."""
        holder = _OwnedOutcome(ptr) if owned else None
        sp = _lib.SPEEDUPS
        if sp is not None and ptr:
            return sp.outcome(ptr, holder)  # type: ignore[attr-defined,no-any-return]
        L = _lib.lib
        info = _lib.OutcomeInfo()
        check(L.a2a_outcome_get_info(ptr, ctypes.byref(info)))
        if _INFO_UNPACK is not None:
            (ch, rt, success, terminal, leaked, has_hs, hs, has_code, code, has_err, err,
             has_st, st, has_ra, ra, has_rr, rr, n_hint, has_sent, sent, has_v, v, has_b, b,
             exit_code, *views) = _INFO_UNPACK(info)
            strs = [None if not views[k] else _text(views[k], views[k + 1])
                    for k in range(0, 22, 2)]
        else:
            i = info
            (ch, rt, success, terminal, leaked, has_hs, hs, has_code, code, has_err, err,
             has_st, st, has_ra, ra, has_rr, rr, n_hint, has_sent, sent, has_v, v, has_b, b,
             exit_code) = (getattr(i, f[0]) for f in _lib.OutcomeInfo._fields_[:25])
            strs = [_lib.view_str(getattr(i, f[0])) for f in _lib.OutcomeInfo._fields_[25:]]
        reason, message, data, task_id, context_id, text, error_id, hint, excerpt, origin, \
            result_json = strs
        pairs = []
        if n_hint:
            k_, v_ = _lib.Str(), _lib.Str()
            for n in range(n_hint):
                check(L.a2a_outcome_remote_hint_pair(ptr, n, ctypes.byref(k_), ctypes.byref(v_)))
                pairs.append((_lib.view_str(k_) or '', _lib.view_str(v_) or ''))
        return cls(
            channel=_word(Channel, ch),
            http_status=hs if has_hs else None,
            code=code if has_code else None,
            error=_word(ErrorName, err) if has_err else None,
            reason=reason,
            message=message,
            state=_word(TaskState, st) if has_st else None,
            terminal=bool(terminal),
            task_id=task_id,
            context_id=context_id,
            text=text,
            error_id=error_id,
            retry=_word(Retry, rt),
            hint=hint,
            success=bool(success),
            data=data,
            retry_after=ra if has_ra else None,
            remote_hint=tuple(pairs),
            remote_retryable=bool(rr) if has_rr else None,
            request_sent=_word(RequestSent, sent) if has_sent else None,
            version=_word(ProtocolVersion, v) if has_v else None,
            binding=_word(Binding, b) if has_b else None,
            body_excerpt=excerpt,
            exit_code=int(exit_code),
            result=None if result_json is None else _UNREAD,
            leaked_detail=bool(leaked),
            cancel_origin=origin,
            _owned=holder,
            _result_text=result_json,
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

    @property
    def failed(self) -> bool:
        """Whether the call failed: a transport, HTTP, protocol or malformed outcome, or a
        task that FAILED, was REJECTED or CANCELED. An interrupted task (input or auth
        required) or one still running is not a failure: the conversation goes on."""
        if self.channel.value in ('transport', 'http', 'protocol', 'malformed'):
            return True
        return self.state is not None and self.state.value in ('failed', 'rejected', 'canceled')

    def raise_for_outcome(self) -> Outcome:
        """Raises `OutcomeError` (carrying this outcome) when the call failed (see
        `failed`); else returns the outcome, so calls chain:
        `task = (await client.send(text)).raise_for_outcome().result`. Opt-in, like
        `httpx.Response.raise_for_status`."""
        if self.failed:
            raise OutcomeError(self)
        return self

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
                'use a call\'s or a stream end\'s outcome, or that of classify()'
            )
        return int(self._owned.ptr)


class OutcomeError(Exception):
    """A failed call's outcome, raised by `Outcome.raise_for_outcome()`; `.outcome` has
    everything (channel, error, retry advice, hint, error_id)."""

    def __init__(self, outcome: Outcome) -> None:
        what = outcome.state.value if outcome.state is not None else (
            outcome.error.value if outcome.error is not None else outcome.channel.value)
        detail = outcome.message or outcome.reason or outcome.hint or ''
        super().__init__(f'{outcome.channel.value}/{what}' + (f': {detail}' if detail else ''))
        self.outcome = outcome


# `result` read lazily (the dataclass made its slot descriptor; _LazyResult wraps it).
Outcome.result = _LazyResult(Outcome.__dict__['result'])  # type: ignore[misc]


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
