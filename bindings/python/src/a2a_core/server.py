"""Serving A2A from Python: an ASGI application over the core's server side.

`A2AServer(handler, ...)` is an ASGI 3 application (run it under uvicorn, mount it in
Starlette or FastAPI). It serves, on one route set:

- the agent card at `/.well-known/agent-card.json`, written by the core's card builder with
  the 1.0 and the 0.3 fields for the same interfaces;
- JSON-RPC on `POST /` and HTTP+JSON under `/rest` (0.3 routes under `/rest/v1`), in both
  protocol versions: the core reads every request and writes every answer in the request's
  own version and binding;
- streams with the proxy-safe headers and the core's keep-alive schedule.

The agent is one async function, `handler(ctx: RequestContext)`, which returns

- a `str` or `ctx.message(...)`: the agent answers with a message (no task);
- `ctx.task(...)`: a finished task;
- an async iterator of events (`ctx.status(...)`, `ctx.artifact(...)`): a task that the
  server keeps (GetTask, CancelTask, ListTasks, SubscribeToTask reach it). The task starts
  SUBMITTED and ends COMPLETED unless the handler's last status says otherwise.

A `ServerError` raised by the handler, or by its iterator before the first event, answers
the request with that protocol error instead (no task is kept). Any other handler exception
becomes the ADK-style FAILED status `Agent execution failed. (error_id:
<12 hex>)` with a fresh id, logged (with the exception) on the `a2a_core.server` logger and
never sent unless `debug_detail=True`. `before_execute(ctx)` may refuse a request before it
runs (raise `Refused(reason)`: an admission cancel, a CANCELED task marked as such);
`after_execute(ctx, error)` may return a `Hint` (`[retryable=false; ...]`) appended to a
FAILED text. Every answer is counted in `server.tally` (method, channel, code).

Everything on the wire is done by liba2a_core; this module moves bytes and keeps tasks.
"""

from __future__ import annotations

import asyncio
import copy
import ctypes
import datetime
import inspect
import itertools
import ipaddress
import json
import logging
import os
import time
import uuid
from collections import OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Union

from . import _lib
from ._guard import Owned
from .errors import check
from .request import _METHOD_BY_NUM, Method
from .tally import Tally
from .vocab import Binding, Channel, ErrorName, ProtocolVersion, _num, _word, parse_task_state

__all__ = [
    'A2AServer',
    'CardBuilder',
    'Hint',
    'Refused',
    'RequestContext',
    'ServerError',
    'failure_text',
    'new_error_id',
]

log = logging.getLogger('a2a_core.server')

CARD_PATH = '/.well-known/agent-card.json'
#: The 0.3 SDKs' older card path, answered with the same card.
LEGACY_CARD_PATH = '/.well-known/agent.json'

_SERVER_REFUSED = 800
_NONE = 1

Event = dict[str, Any]
HandlerResult = Union[str, Event, AsyncIterator[Event]]
Handler = Callable[['RequestContext'], Union[Awaitable[Any], AsyncIterator[Event]]]


# --- small helpers over the C ABI ------------------------------------------------------------


class _Buffer:
    """An `a2a_buffer` for one call."""

    def __init__(self) -> None:
        h = ctypes.c_void_p()
        check(_lib.lib.a2a_buffer_new(ctypes.byref(h)))
        self.h = h.value

    def __enter__(self) -> _Buffer:
        return self

    def __exit__(self, *_: object) -> None:
        _lib.lib.a2a_buffer_free(self.h)

    def check(self, code: int) -> bytes:
        if code != 0:
            check(code, _lib.view_str(_lib.lib.a2a_buffer_last_error(self.h)))
        return _lib.view_bytes(_lib.lib.a2a_buffer_bytes(self.h)) or b''


def _headers_array(pairs: list[tuple[bytes, bytes]]) -> Any:
    arr = (_lib.Header * max(len(pairs), 1))()
    for i, (n, v) in enumerate(pairs):
        arr[i].name, arr[i].name_len = n, len(n)
        arr[i].value, arr[i].value_len = v, len(v)
    return arr


def _strs(items: Iterable[str]) -> tuple[Any, int, list[bytes]]:
    enc = [s.encode('utf-8') for s in items]
    arr = (_lib.Str * max(len(enc), 1))()
    for i, b in enumerate(enc):
        arr[i].ptr = ctypes.cast(ctypes.c_char_p(b), ctypes.c_void_p)
        arr[i].len = len(b)
    return arr, len(enc), enc


def new_error_id() -> str:
    """A fresh ADK-style error id (12 lowercase hex digits) from 6 random bytes."""
    out = ctypes.create_string_buffer(12)
    check(_lib.lib.a2a_server_error_id_from_random(os.urandom(6), out))
    return out.raw.decode('ascii')


@dataclass(frozen=True)
class Hint:
    """A stable hint appended to a FAILED text: `[retryable=false; reason=quota]`."""

    retryable: bool | None = None
    pairs: Mapping[str, str] = field(default_factory=dict)

    def text(self) -> str:
        """The hint in the core's grammar (characters that would break it become `_`)."""
        pairs = [(k.encode('utf-8'), str(v).encode('utf-8')) for k, v in self.pairs.items()]
        arr = _headers_array(pairs)
        r = None if self.retryable is None else ctypes.byref(ctypes.c_bool(self.retryable))
        with _Buffer() as b:
            return b.check(_lib.lib.a2a_server_hint_text(r, arr, len(pairs), b.h)).decode()


def failure_text(error_id: str, debug_detail: str | None = None, hint: Hint | None = None) -> str:
    """`Agent execution failed. (error_id: <id>)`, then `: <debug_detail>` when given (debug
    deployments only: it may leak internals), then the hint."""
    e, en = _lib.enc(error_id)
    d, dn = _lib.enc(debug_detail or '')
    with _Buffer() as b:
        text = b.check(_lib.lib.a2a_server_failure_text(e, en, d, dn, b.h)).decode()
    return f'{text} {hint.text()}' if hint is not None else text


def _admission_status(task_id: str, context_id: str, reason: str) -> dict[str, Any]:
    args: list[Any] = []
    for s in (task_id, context_id, str(uuid.uuid4()), reason):
        args += list(_lib.enc(s))
    with _Buffer() as b:
        return json.loads(b.check(_lib.lib.a2a_server_admission_status(*args, b.h)))


class CardBuilder(Owned):
    """The agent card, written by the core: the 1.0 `supportedInterfaces` in the order
    added, and the 0.3 fields (`url`, `preferredTransport`, `additionalInterfaces`) from
    the first 0.3 interface."""

    _slot = '_h'
    _free = _lib.lib.a2a_card_builder_free

    def __init__(self, name: str, description: str, version: str) -> None:
        self._h = 0
        h = ctypes.c_void_p()
        args: list[Any] = []
        for s in (name, description, version):
            args += list(_lib.enc(s))
        check(_lib.lib.a2a_card_builder_new(*args, ctypes.byref(h)))
        self._h = h.value or 0

    def interface(self, url: str, version: ProtocolVersion | str,
                  binding: Binding | str) -> CardBuilder:
        """Adds an interface (absolute http(s) URL); the first is the most preferred."""
        u, un = _lib.enc(url)
        v = _num(ProtocolVersion)[ProtocolVersion(version)]
        bd = _num(Binding)[Binding(binding)]
        check(_lib.lib.a2a_card_builder_add_interface(self._h, u, un, v, bd))
        return self

    def capabilities(self, *, streaming: bool, push_notifications: bool = False) -> CardBuilder:
        """`capabilities.streaming` and `capabilities.pushNotifications`."""
        check(_lib.lib.a2a_card_builder_set_capabilities(self._h, streaming, push_notifications))
        return self

    def modes(self, input_modes: Iterable[str], output_modes: Iterable[str]) -> CardBuilder:
        """The media types accepted and returned (default `text/plain` both)."""
        i, ni, keep_i = _strs(input_modes)
        o, no, keep_o = _strs(output_modes)
        check(_lib.lib.a2a_card_builder_set_modes(self._h, i, ni, o, no))
        del keep_i, keep_o
        return self

    def skill(self, id: str, name: str, description: str, tags: Iterable[str] = (),
              examples: Iterable[str] = ()) -> CardBuilder:
        """Adds a skill."""
        texts = [s.encode('utf-8') for s in (id, name, description)]
        sk = _lib.CardSkill()
        for f, b in zip(('id', 'name', 'description'), texts):
            v = getattr(sk, f)
            v.ptr, v.len = ctypes.cast(ctypes.c_char_p(b), ctypes.c_void_p), len(b)
        t, nt, keep_t = _strs(tags)
        e, ne, keep_e = _strs(examples)
        sk.tags, sk.tags_len = ctypes.cast(t, ctypes.POINTER(_lib.Str)), nt
        sk.examples, sk.examples_len = ctypes.cast(e, ctypes.POINTER(_lib.Str)), ne
        check(_lib.lib.a2a_card_builder_add_skill(self._h, ctypes.byref(sk)))
        del keep_t, keep_e, texts
        return self

    def build(self) -> bytes:
        """The card as compact JSON (raises A2AError with the reason when it is unusable)."""
        with _Buffer() as b:
            return b.check(_lib.lib.a2a_card_builder_build(self._h, b.h))


# --- the request, as the core read it --------------------------------------------------------


class _Response:
    __slots__ = ('status', 'headers', 'body', 'channel', 'code', 'method')

    def __init__(self, h: int) -> None:
        info = _lib.ServerResponseInfo()
        check(_lib.lib.a2a_server_response_get_info(h, ctypes.byref(info)))
        self.status = int(info.status)
        self.body = _lib.view_bytes(info.body) or b''
        self.headers: list[tuple[bytes, bytes]] = []
        n, v = _lib.Str(), _lib.Str()
        for i in range(info.header_count):
            check(_lib.lib.a2a_server_response_header(h, i, ctypes.byref(n), ctypes.byref(v)))
            self.headers.append((_lib.view_bytes(n) or b'', _lib.view_bytes(v) or b''))
        sv = info.served
        self.channel = _word(Channel, sv.channel)
        self.code = _lib.view_str(sv.code) or ''
        self.method = _lib.view_str(sv.method) or 'unknown'


class _Request:
    """One `a2a_server_request` handle."""

    def __init__(self) -> None:
        self.h = 0
        h = ctypes.c_void_p()
        check(_lib.lib.a2a_server_request_new(ctypes.byref(h)))
        self.h = h.value or 0

    def close(self) -> None:
        h, self.h = self.h, 0
        if h:
            _lib.lib.a2a_server_request_free(h)

    def _last_error(self) -> str | None:
        return _lib.view_str(_lib.lib.a2a_server_request_last_error(self.h))

    def _respond(self, fn: Callable[[int], int]) -> _Response:
        rh = ctypes.c_void_p()
        check(_lib.lib.a2a_server_response_new(ctypes.byref(rh)))
        try:
            code = fn(rh.value or 0)
            if code != 0:
                check(code, self._last_error())
            return _Response(rh.value or 0)
        finally:
            _lib.lib.a2a_server_response_free(rh)

    def refusal(self) -> _Response:
        return self._respond(lambda r: _lib.lib.a2a_server_refusal_response(self.h, r))

    def result(self, reply: Any) -> _Response:
        body = json.dumps(reply, separators=(',', ':')).encode('utf-8')
        return self._respond(lambda r: _lib.lib.a2a_server_result_response(
            self.h, body, len(body), r))

    def error(self, name: ErrorName, message: str = '') -> _Response:
        m, mn = _lib.enc(message)
        n = _num(ErrorName)[name]
        return self._respond(lambda r: _lib.lib.a2a_server_error_response(self.h, n, m, mn, r))

    def event_frame(self, event: Event) -> bytes:
        body = json.dumps(event, separators=(',', ':')).encode('utf-8')
        with _Buffer() as b:
            return b.check(_lib.lib.a2a_server_event_frame(self.h, body, len(body), b.h))

    def error_frame(self, name: ErrorName, message: str = '') -> bytes:
        m, mn = _lib.enc(message)
        with _Buffer() as b:
            return b.check(_lib.lib.a2a_server_error_frame(self.h, _num(ErrorName)[name], m, mn,
                                                           b.h))


def _stream_headers() -> list[tuple[bytes, bytes]]:
    out = []
    i = 0
    n, v = _lib.Str(), _lib.Str()
    while _lib.lib.a2a_server_stream_header(i, ctypes.byref(n), ctypes.byref(v)) == 0:
        out.append((_lib.view_bytes(n) or b'', _lib.view_bytes(v) or b''))
        i += 1
    return out


STREAM_HEADERS = _stream_headers()
def _keepalive_comment() -> bytes:
    # A 1 ms interval a whole millisecond after the last write: always due, so the library
    # hands out its comment.
    comment = _lib.Bytes()
    _lib.lib.a2a_server_keepalive_due(1, 1, 0, None, ctypes.byref(comment))
    return _lib.view_bytes(comment) or b''


KEEPALIVE_COMMENT = _keepalive_comment()


def _keepalive_wait(interval_ms: int, now_ms: int, last_ms: int) -> tuple[bool, int]:
    wait = ctypes.c_uint64()
    due = _lib.lib.a2a_server_keepalive_due(interval_ms, now_ms, last_ms, ctypes.byref(wait), None)
    return bool(due), int(wait.value)


# --- what the handler sees and returns -------------------------------------------------------


class ServerError(Exception):
    """Raise from a handler to answer with a protocol error (e.g. InvalidParams) instead of
    a FAILED task: `name` is an `ErrorName`, `message` the text sent (empty: the standard)."""

    def __init__(self, name: ErrorName | str, message: str = '') -> None:
        self.name = ErrorName(name)
        self.message = message
        super().__init__(f'{self.name}: {message}' if message else str(self.name))


class Refused(Exception):
    """Raise from `before_execute` to refuse a request before it runs (an admission cancel:
    the task ends CANCELED, marked `admission`, with `reason` in its status text)."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(reason)


_TERMINAL = {'TASK_STATE_COMPLETED', 'TASK_STATE_FAILED', 'TASK_STATE_CANCELED',
             'TASK_STATE_REJECTED'}
_INTERRUPTED = {'TASK_STATE_INPUT_REQUIRED', 'TASK_STATE_AUTH_REQUIRED'}
_STATE_WORDS = {
    'submitted': 'TASK_STATE_SUBMITTED', 'working': 'TASK_STATE_WORKING',
    'completed': 'TASK_STATE_COMPLETED', 'failed': 'TASK_STATE_FAILED',
    'canceled': 'TASK_STATE_CANCELED', 'rejected': 'TASK_STATE_REJECTED',
    'input-required': 'TASK_STATE_INPUT_REQUIRED', 'auth-required': 'TASK_STATE_AUTH_REQUIRED',
}


def _state(word: str) -> str:
    return _STATE_WORDS.get(word.lower().replace('_', '-'), word)


def _tally_state(state: str) -> str:
    return state.removeprefix('TASK_STATE_').lower().replace('_', '-')


def _text_parts(text: str | None) -> list[dict[str, Any]]:
    return [] if text is None else [{'text': text}]


@dataclass
class RequestContext:
    """One SendMessage / SendStreamingMessage as the handler sees it. `params` and `message`
    are A2A 1.0 ProtoJSON whatever version the client spoke."""

    method: Method
    version: ProtocolVersion
    binding: Binding
    params: dict[str, Any]
    task_id: str
    context_id: str
    streaming: bool
    extensions: list[str]
    traceparent: str | None
    idempotency_key: str | None
    headers: list[tuple[str, str]]
    #: The task this message continues (multi-turn), as stored; None for a new task.
    current_task: dict[str, Any] | None = None

    @property
    def message(self) -> dict[str, Any]:
        """The user's message."""
        return self.params.get('message') or {}

    @property
    def text(self) -> str:
        """The message's text parts joined with newlines."""
        return '\n'.join(p['text'] for p in self.message.get('parts', []) if 'text' in p)

    def _agent_message(self, text: str | None, parts: list[dict[str, Any]] | None,
                       in_task: bool) -> dict[str, Any]:
        m: dict[str, Any] = {'messageId': str(uuid.uuid4()), 'role': 'ROLE_AGENT',
                             'parts': parts if parts is not None else _text_parts(text),
                             'contextId': self.context_id}
        if in_task:
            m['taskId'] = self.task_id
        return m

    def message_reply(self, text: str | None = None, *,
                      parts: list[dict[str, Any]] | None = None) -> Event:
        """An agent message as the whole answer (no task)."""
        return {'message': self._agent_message(text, parts, in_task=False)}

    def status(self, state: str, text: str | None = None) -> Event:
        """A status update of this request's task (`state`: `working`, `input-required`,
        `completed`, ... or a 1.0 `TASK_STATE_*` name), with an optional agent message."""
        s = _state(state)
        status: dict[str, Any] = {'state': s}
        if text is not None:
            status['message'] = self._agent_message(text, None, in_task=True)
        return {'statusUpdate': {'taskId': self.task_id, 'contextId': self.context_id,
                                 'status': status, 'final': s in _TERMINAL | _INTERRUPTED}}

    def artifact(self, text: str | None = None, *, parts: list[dict[str, Any]] | None = None,
                 name: str | None = None, artifact_id: str | None = None, append: bool = False,
                 last_chunk: bool = False) -> Event:
        """An artifact update of this request's task (`append`: extends the artifact
        `artifact_id` already sent)."""
        a: dict[str, Any] = {'artifactId': artifact_id or str(uuid.uuid4()),
                             'parts': parts if parts is not None else _text_parts(text)}
        if name is not None:
            a['name'] = name
        ev: dict[str, Any] = {'taskId': self.task_id, 'contextId': self.context_id,
                              'artifact': a}
        if append:
            ev['append'] = True
        if last_chunk:
            ev['lastChunk'] = True
        return {'artifactUpdate': ev}

    def task(self, state: str = 'completed', text: str | None = None, *,
             artifacts: list[str] | None = None) -> Event:
        """A finished task as the whole answer: its state (with an optional status text) and
        text artifacts."""
        t = _new_task(self)
        t['status'] = {'state': _state(state)}
        if text is not None:
            t['status']['message'] = self._agent_message(text, None, in_task=True)
            t['history'].append(t['status']['message'])
        t['artifacts'] = [{'artifactId': str(uuid.uuid4()), 'parts': _text_parts(a)}
                          for a in artifacts or []]
        return {'task': t}


def _new_task(ctx: RequestContext) -> dict[str, Any]:
    base = copy.deepcopy(ctx.current_task) if ctx.current_task else {
        'id': ctx.task_id, 'contextId': ctx.context_id, 'artifacts': [], 'history': []}
    msg = dict(ctx.message)
    msg.setdefault('taskId', ctx.task_id)
    msg.setdefault('contextId', ctx.context_id)
    base.setdefault('history', []).append(msg)
    base['status'] = {'state': 'TASK_STATE_SUBMITTED'}
    return base


def _apply(task: dict[str, Any], event: Event) -> None:
    """Folds one stream event into the stored task."""
    if 'statusUpdate' in event:
        status = event['statusUpdate']['status']
        task['status'] = status
        if status.get('message'):
            task.setdefault('history', []).append(status['message'])
    elif 'artifactUpdate' in event:
        u = event['artifactUpdate']
        arts = task.setdefault('artifacts', [])
        a = u['artifact']
        if u.get('append'):
            for old in arts:
                if old.get('artifactId') == a.get('artifactId'):
                    old.setdefault('parts', []).extend(a.get('parts', []))
                    return
        arts.append(copy.deepcopy(a))
    elif 'task' in event:
        task.clear()
        task.update(copy.deepcopy(event['task']))


def _with_history(task: dict[str, Any], history_length: int | None) -> dict[str, Any]:
    t = copy.deepcopy(task)
    if history_length is not None:
        t['history'] = t.get('history', [])[-history_length:] if history_length > 0 else []
    return t


#: Numbers status changes across the process: ListTasks' order (newest first) and page token.
_STATUS_SEQ = itertools.count(1)


class _Run:
    """A task the server keeps: its snapshot, the running handler and live subscribers."""

    def __init__(self, task: dict[str, Any]) -> None:
        self.task = task
        self.subscribers: set[asyncio.Queue[Event | None]] = set()
        self.job: asyncio.Task[None] | None = None
        self.done = asyncio.Event()
        self._stamp()

    def _stamp(self) -> None:
        """Records a status change (its order and time) and dates the status when it is not."""
        self.seq = next(_STATUS_SEQ)
        self.status_ms = int(time.time() * 1000)
        status = self.task.setdefault('status', {})
        if 'timestamp' not in status:
            status['timestamp'] = datetime.datetime.fromtimestamp(
                self.status_ms / 1000, datetime.timezone.utc).isoformat(timespec='milliseconds'
                                                                         ).replace('+00:00', 'Z')

    @property
    def state(self) -> str:
        return str(self.task.get('status', {}).get('state', ''))

    def publish(self, event: Event) -> None:
        _apply(self.task, event)
        if 'statusUpdate' in event or 'task' in event:
            self._stamp()
        for q in list(self.subscribers):
            q.put_nowait(event)

    def finish(self) -> None:
        self.done.set()
        for q in list(self.subscribers):
            q.put_nowait(None)


# --- the ASGI application --------------------------------------------------------------------


class A2AServer:
    """An A2A agent as an ASGI application (see the module docs).

    `name`, `description`, `version`, `skills` ((id, name, description, tags) tuples) and
    `streaming` make the card; `base_url` is the URL the card advertises (default: from each
    request's scheme, `Host` and mount path). `versions` limits the protocol versions served
    (default both). `host_names` are extra `Host` names served when the listener is on
    loopback (the DNS-rebinding defence: the core checks `Host` against the bound address).
    `keepalive` is the SSE comment interval in seconds (0: the core's default, 15 s).
    `max_tasks` bounds the tasks kept (oldest finished ones are dropped first).
    """

    def __init__(
        self,
        handler: Handler,
        *,
        name: str = 'a2a-core agent',
        description: str = 'An A2A agent served by a2a-core',
        version: str = '1.0.0',
        skills: Iterable[tuple[str, str, str, Iterable[str]]] = (),
        streaming: bool = True,
        base_url: str | None = None,
        rest_prefix: str = '/rest',
        versions: Iterable[ProtocolVersion | str] = (ProtocolVersion.V1_0, ProtocolVersion.V0_3),
        host_names: Iterable[str] = (),
        before_execute: Callable[[RequestContext], Awaitable[None] | None] | None = None,
        after_execute: Callable[[RequestContext, BaseException | None],
                                Awaitable[Hint | None] | Hint | None] | None = None,
        debug_detail: bool = False,
        keepalive: float = 0.0,
        max_tasks: int = 10_000,
        tally: Tally | None = None,
    ) -> None:
        self.handler = handler
        self.name, self.description, self.version = name, description, version
        self.skills = list(skills)
        self.streaming = streaming
        self.base_url = base_url.rstrip('/') if base_url else None
        self.rest_prefix = '/' + rest_prefix.strip('/')
        self.versions = [ProtocolVersion(v) for v in versions]
        self.host_names = list(host_names)
        self.before_execute = before_execute
        self.after_execute = after_execute
        self.debug_detail = debug_detail
        self.keepalive_ms = int(keepalive * 1000)
        self.max_tasks = max_tasks
        self.tally = tally if tally is not None else Tally()
        self.runs: OrderedDict[str, _Run] = OrderedDict()
        self._cards: dict[str, bytes] = {}

    # -- the card --

    def card(self, base_url: str) -> bytes:
        """The card for interfaces under `base_url` (cached per URL)."""
        base = base_url.rstrip('/')
        if base not in self._cards:
            b = CardBuilder(self.name, self.description, self.version)
            for v in self.versions:
                b.interface(base + '/', v, Binding.JSON_RPC)
                b.interface(base + self.rest_prefix, v, Binding.HTTP_JSON)
            b.capabilities(streaming=self.streaming)
            for sid, sname, sdesc, tags in self.skills:
                b.skill(sid, sname, sdesc, tags)
            self._cards[base] = b.build()
        return self._cards[base]

    def _base(self, scope: Mapping[str, Any], headers: list[tuple[str, str]]) -> str:
        if self.base_url:
            return self.base_url
        host = next((v for n, v in headers if n.lower() == 'host'), None)
        if host is None:
            server = scope.get('server') or ('localhost', 80)
            host = f'{server[0]}:{server[1]}'
        return f"{scope.get('scheme', 'http')}://{host}{scope.get('root_path', '')}"

    def _options(self, scope: Mapping[str, Any]) -> tuple[Any, list[Any]]:
        o = _lib.ServerOptions()
        o.v0_3 = ProtocolVersion.V0_3 in self.versions
        o.v1_0 = ProtocolVersion.V1_0 in self.versions
        keep: list[Any] = []
        server = scope.get('server')
        if server and server[1]:
            try:
                ip = ipaddress.ip_address(server[0])
            except ValueError:
                ip = None
            if ip is not None:
                addr = (f'[{ip}]:{server[1]}' if ip.version == 6 else f'{ip}:{server[1]}').encode()
                o.bound_addr, o.bound_addr_len = addr, len(addr)
                keep.append(addr)
                if self.host_names:
                    arr, n, enc = _strs(self.host_names)
                    o.host_names, o.host_names_len = ctypes.cast(arr, ctypes.POINTER(_lib.Str)), n
                    keep += [arr, enc]
        return o, keep

    # -- ASGI --

    async def __call__(self, scope: dict[str, Any], receive: Callable[[], Awaitable[dict[str, Any]]],
                       send: Callable[[dict[str, Any]], Awaitable[None]]) -> None:
        if scope['type'] == 'lifespan':
            while True:
                msg = await receive()
                if msg['type'] == 'lifespan.startup':
                    await send({'type': 'lifespan.startup.complete'})
                elif msg['type'] == 'lifespan.shutdown':
                    for run in list(self.runs.values()):
                        if run.job is not None and not run.job.done():
                            run.job.cancel()
                    await send({'type': 'lifespan.shutdown.complete'})
                    return
        if scope['type'] != 'http':
            return
        path: str = scope.get('path', '/')
        root = scope.get('root_path', '')
        if root and path.startswith(root):
            path = path[len(root):] or '/'
        verb: str = scope['method']
        headers = [(n.decode('latin-1'), v.decode('latin-1')) for n, v in scope.get('headers', [])]
        if path in (CARD_PATH, LEGACY_CARD_PATH) and verb in ('GET', 'HEAD'):
            body = self.card(self._base(scope, headers))
            await _send_whole(send, 200, [(b'content-type', b'application/json')], body)
            return
        rest = self.rest_prefix
        if path == rest or path.startswith(rest + '/'):
            target = path[len(rest):] or '/'
            if scope.get('query_string'):
                target += '?' + scope['query_string'].decode('latin-1')
            await self._serve(scope, receive, send, headers, ('rest', verb, target))
            return
        if path == '/' and verb == 'POST':
            await self._serve(scope, receive, send, headers, ('jsonrpc', verb, path))
            return
        await _send_whole(send, 404, [(b'content-type', b'text/plain')], b'not found\n')

    async def _serve(self, scope: Mapping[str, Any], receive: Any, send: Any,
                     headers: list[tuple[str, str]], route: tuple[str, str, str]) -> None:
        try:
            body = await _read_body(receive)
        except ServerError:
            await _send_whole(send, 413, [(b'content-type', b'text/plain')], b'request body too large\n')
            return
        pairs = [(n.encode('latin-1'), v.encode('latin-1')) for n, v in headers]
        harr = _headers_array(pairs)
        opts, keep = self._options(scope)
        req = _Request()
        try:
            if route[0] == 'jsonrpc':
                code = _lib.lib.a2a_server_parse_jsonrpc(req.h, harr, len(pairs), body, len(body),
                                                         ctypes.byref(opts))
            else:
                v, vn = _lib.enc(route[1])
                t, tn = _lib.enc(route[2])
                code = _lib.lib.a2a_server_parse_rest(req.h, v, vn, t, tn, harr, len(pairs), body,
                                                      len(body), ctypes.byref(opts))
            del keep
            if code == _SERVER_REFUSED:
                await self._answer(send, req.refusal())
                return
            check(code, req._last_error())
            info = _lib.ServerRequestInfo()
            check(_lib.lib.a2a_server_request_get_info(req.h, ctypes.byref(info)))
            method = _METHOD_BY_NUM[info.method]
            params = json.loads(_lib.view_bytes(_lib.lib.a2a_server_request_params(req.h)) or b'{}')
            await self._dispatch(req, info, method, params, headers, send, receive)
        finally:
            req.close()

    async def _answer(self, send: Any, resp: _Response) -> None:
        self.tally.add(self.name, resp.method, resp.channel, resp.code)
        await _send_whole(send, resp.status, resp.headers, resp.body)

    # -- the methods --

    async def _dispatch(self, req: _Request, info: Any, method: Method, params: dict[str, Any],
                        headers: list[tuple[str, str]], send: Any, receive: Any) -> None:
        try:
            if method in (Method.SEND_MESSAGE, Method.SEND_STREAMING_MESSAGE):
                await self._send_message(req, info, method, params, headers, send, receive)
            elif method == Method.GET_TASK:
                run = self._find(params.get('id'))
                await self._answer(send, req.result(_with_history(run.task,
                                                                  params.get('historyLength'))))
            elif method == Method.CANCEL_TASK:
                run = self._find(params.get('id'))
                if run.state in _TERMINAL:
                    raise ServerError(ErrorName.TASK_NOT_CANCELABLE,
                                      f'task {run.task["id"]} is already {_tally_state(run.state)}')
                if run.job is not None and not run.job.done():
                    run.job.cancel()
                run.publish({'statusUpdate': {'taskId': run.task['id'],
                                              'contextId': run.task.get('contextId', ''),
                                              'status': {'state': 'TASK_STATE_CANCELED'},
                                              'final': True}})
                run.finish()
                await self._answer(send, req.result(run.task))
            elif method == Method.LIST_TASKS:
                await self._answer(send, req.result(self._list(params)))
            elif method == Method.SUBSCRIBE_TO_TASK:
                run = self._find(params.get('id'))
                if run.state in _TERMINAL:
                    raise ServerError(ErrorName.UNSUPPORTED_OPERATION,
                                      f'task {run.task["id"]} is already '
                                      f'{_tally_state(run.state)}: nothing to subscribe to')
                await self._stream(req, send, receive, run, first={'task': copy.deepcopy(run.task)})
            elif method == Method.GET_EXTENDED_AGENT_CARD:
                # The card declares no extendedAgentCard: UnsupportedOperation (docs/serving.md §5).
                raise ServerError(ErrorName.UNSUPPORTED_OPERATION,
                                  'this agent declares no extended agent card')
            else:
                raise ServerError(ErrorName.PUSH_NOTIFICATION_NOT_SUPPORTED)
        except ServerError as e:
            await self._answer_error(req, info, send, e)

    async def _answer_error(self, req: _Request, info: Any, send: Any, e: ServerError) -> None:
        """A protocol error: on a streaming JSON-RPC request (SendStreamingMessage,
        SubscribeToTask) as an event stream of that one error, as the reference agent and the
        official Python SDK answer (the SDK clients read a stream there); otherwise the core's
        error response."""
        resp = req.error(e.name, e.message)
        if not info.streaming or _word(Binding, info.binding) != Binding.JSON_RPC:
            await self._answer(send, resp)
            return
        frame = req.error_frame(e.name, e.message)
        self.tally.add(self.name, resp.method, resp.channel, resp.code)
        await send({'type': 'http.response.start', 'status': 200, 'headers': STREAM_HEADERS})
        await send({'type': 'http.response.body', 'body': frame, 'more_body': False})

    def _find(self, task_id: Any) -> _Run:
        run = self.runs.get(str(task_id)) if task_id is not None else None
        if run is None:
            raise ServerError(ErrorName.TASK_NOT_FOUND, f'no task {task_id}')
        return run

    def _list(self, params: dict[str, Any]) -> dict[str, Any]:
        """ListTasks as the reference agent answers it: the filters (contextId, status,
        statusTimestampAfter: status changed at or after it), newest status change first,
        pages of pageSize (default 50; the core checked 1 to 100) whose nextPageToken is the
        position of the page's last task ('' on the last page; a token this server did not
        write is InvalidParams), historyLength on every task, artifacts only with
        includeArtifacts."""
        token = str(params.get('pageToken') or '')
        before = None
        if token:
            if not token.isdigit() or int(token) == 0:
                raise ServerError(ErrorName.INVALID_PARAMS,
                                  'Invalid params: pageToken is not a page token this agent wrote')
            before = int(token)
        after_ms = None
        if params.get('statusTimestampAfter'):
            try:  # the core validated it; a form Python does not read is refused the same way
                t = datetime.datetime.fromisoformat(str(params['statusTimestampAfter']))
                after_ms = int(t.timestamp() * 1000)
            except ValueError:
                raise ServerError(ErrorName.INVALID_PARAMS, 'Invalid params: statusTimestampAfter '
                                  'is not an RFC 3339 timestamp') from None
        state = _state(str(params['status'])) if params.get('status') else None
        runs = [r for r in self.runs.values()
                if (not params.get('contextId') or r.task.get('contextId') == params['contextId'])
                and (state is None or r.state == state)
                and (after_ms is None or r.status_ms >= after_ms)]
        runs.sort(key=lambda r: r.seq, reverse=True)
        size = int(params.get('pageSize') or 50)
        rest = [r for r in runs if before is None or r.seq < before]
        page = rest[:size]
        nxt = str(page[-1].seq) if len(rest) > size else ''
        tasks = []
        for r in page:
            t = _with_history(r.task, params.get('historyLength'))
            if not params.get('includeArtifacts'):
                t.pop('artifacts', None)
            tasks.append(t)
        return {'tasks': tasks, 'nextPageToken': nxt, 'pageSize': len(tasks), 'totalSize': len(runs)}

    def _keep(self, run: _Run) -> None:
        self.runs[run.task['id']] = run
        self.runs.move_to_end(run.task['id'])
        while len(self.runs) > self.max_tasks:
            old = next((k for k, r in self.runs.items() if r.done.is_set()), None)
            if old is None:
                break
            del self.runs[old]

    def _context(self, info: Any, method: Method, params: dict[str, Any],
                 headers: list[tuple[str, str]], req: _Request) -> RequestContext:
        msg = params.get('message') or {}
        current = None
        task_id = msg.get('taskId')
        if task_id:
            run = self.runs.get(task_id)
            if run is None:
                raise ServerError(ErrorName.TASK_NOT_FOUND, f'no task {task_id}')
            if run.state in _TERMINAL:
                raise ServerError(ErrorName.UNSUPPORTED_OPERATION,
                                  f'task {task_id} is already {_tally_state(run.state)}')
            current = run.task
        exts = []
        e = _lib.Str()
        for i in range(info.extension_count):
            if _lib.lib.a2a_server_request_extension(req.h, i, ctypes.byref(e)) == 0:
                exts.append(_lib.view_str(e) or '')
        context_id = msg.get('contextId') or (current or {}).get('contextId') or str(uuid.uuid4())
        return RequestContext(
            method=method, version=_word(ProtocolVersion, info.version),
            binding=_word(Binding, info.binding), params=params,
            task_id=task_id or str(uuid.uuid4()), context_id=context_id,
            streaming=bool(info.streaming), extensions=exts,
            traceparent=_lib.view_str(_lib.lib.a2a_server_request_traceparent(req.h)),
            idempotency_key=_lib.view_str(_lib.lib.a2a_server_request_idempotency_key(req.h)),
            headers=headers, current_task=copy.deepcopy(current) if current else None)

    async def _send_message(self, req: _Request, info: Any, method: Method,
                            params: dict[str, Any], headers: list[tuple[str, str]],
                            send: Any, receive: Any) -> None:
        ctx = self._context(info, method, params, headers, req)
        streaming = method == Method.SEND_STREAMING_MESSAGE
        run = _Run(_new_task(ctx))
        if self.before_execute is not None:
            try:
                r = self.before_execute(ctx)
                if inspect.isawaitable(r):
                    await r
            except Refused as refused:
                run.task['status'] = _admission_status(ctx.task_id, ctx.context_id,
                                                       refused.reason)
                run._stamp()
                run.finish()
                self._keep(run)
                await self._reply_task(req, send, receive, run, streaming)
                return
        try:
            result = self.handler(ctx)
            if inspect.isawaitable(result):
                result = await result
        except ServerError:
            raise
        except Exception as e:  # the agent failed: FAILED with a fresh error_id
            await self._fail(ctx, run, e)
            run.finish()
            self._keep(run)
            await self._reply_task(req, send, receive, run, streaming)
            return
        if isinstance(result, str):
            result = ctx.message_reply(result)
        if isinstance(result, dict) and 'message' in result:
            await self._after(ctx, None)
            if streaming:
                await self._stream(req, send, receive, None, first=result)
            else:
                await self._answer(send, req.result(result))
            return
        if isinstance(result, dict) and 'task' in result:
            await self._after(ctx, None)
            run.task = result['task']
            run._stamp()
            run.finish()
            self._keep(run)
            await self._reply_task(req, send, receive, run, streaming)
            return
        if not hasattr(result, '__aiter__'):
            await self._fail(ctx, run, TypeError(
                f'the handler returned {type(result).__name__}: expected str, ctx.message_reply(), '
                f'ctx.task() or an async iterator of events'))
            run.finish()
            self._keep(run)
            await self._reply_task(req, send, receive, run, streaming)
            return
        events = result.__aiter__()
        try:  # a ServerError before the first event answers the request with that error
            head: Event | None = await events.__anext__()
        except StopAsyncIteration:
            head = None
        except ServerError:
            raise
        except Exception as e:  # the agent failed before its first event
            await self._fail(ctx, run, e)
            run.finish()
            self._keep(run)
            await self._reply_task(req, send, receive, run, streaming)
            return
        self._keep(run)
        run.job = asyncio.ensure_future(self._drive(ctx, run, _prepend(head, events)))
        if streaming:
            await self._stream(req, send, receive, run, first={'task': copy.deepcopy(run.task)})
            return
        # Blocking: wait until the task ends or needs input.
        q: asyncio.Queue[Event | None] = asyncio.Queue()
        run.subscribers.add(q)
        try:
            while not run.done.is_set() and run.state not in _INTERRUPTED:
                if await q.get() is None:
                    break
        finally:
            run.subscribers.discard(q)
        await self._answer(send, req.result({'task': copy.deepcopy(run.task)}))

    async def _after(self, ctx: RequestContext, error: BaseException | None) -> Hint | None:
        if self.after_execute is None:
            return None
        try:
            h = self.after_execute(ctx, error)
            if inspect.isawaitable(h):
                h = await h
            return h if isinstance(h, Hint) else None
        except Exception:
            log.exception('after_execute failed for task %s', ctx.task_id)
            return None

    async def _fail(self, ctx: RequestContext, run: _Run, error: BaseException) -> None:
        error_id = new_error_id()
        log.error('agent execution failed (error_id: %s, task %s)', error_id, ctx.task_id,
                  exc_info=error)
        hint = await self._after(ctx, error)
        detail = f'{type(error).__name__}: {error}' if self.debug_detail else None
        text = failure_text(error_id, detail, hint)
        run.publish({'statusUpdate': {
            'taskId': ctx.task_id, 'contextId': ctx.context_id, 'final': True,
            'status': {'state': 'TASK_STATE_FAILED',
                       'message': ctx._agent_message(text, None, in_task=True)}}})

    async def _drive(self, ctx: RequestContext, run: _Run, events: AsyncIterator[Event]) -> None:
        try:
            async for ev in events:
                if not isinstance(ev, dict) or not ev.keys() & {'statusUpdate', 'artifactUpdate',
                                                                'task', 'message'}:
                    raise TypeError(f'not a stream event: {ev!r:.200}')
                run.publish(ev)
                if run.state in _TERMINAL:
                    break
            if run.state not in _TERMINAL | _INTERRUPTED:
                run.publish(ctx.status('completed'))
            await self._after(ctx, None)
        except asyncio.CancelledError:
            if run.state not in _TERMINAL:
                run.publish({'statusUpdate': {'taskId': ctx.task_id, 'contextId': ctx.context_id,
                                              'status': {'state': 'TASK_STATE_CANCELED'},
                                              'final': True}})
        except Exception as e:
            await self._fail(ctx, run, e)
        finally:
            run.finish()

    async def _reply_task(self, req: _Request, send: Any, receive: Any, run: _Run,
                          streaming: bool) -> None:
        if streaming:
            await self._stream(req, send, receive, None, first={'task': copy.deepcopy(run.task)})
        else:
            await self._answer(send, req.result({'task': copy.deepcopy(run.task)}))

    async def _stream(self, req: _Request, send: Any, receive: Any, run: _Run | None,
                      first: Event) -> None:
        """Writes an event stream: `first`, then `run`'s live events until it ends, with
        keep-alive comments on silence. Counted once, by how it ended."""
        # Subscribed before the first await: no event published after `first` was taken
        # can slip between the two.
        q: asyncio.Queue[Event | None] = asyncio.Queue()
        if run is not None and not run.done.is_set():
            run.subscribers.add(q)
        else:
            q.put_nowait(None)
        await send({'type': 'http.response.start', 'status': 200, 'headers': STREAM_HEADERS})

        async def watch() -> None:  # a client that goes away ends its stream (not the task)
            while (await receive())['type'] != 'http.disconnect':
                pass
            q.put_nowait(None)
        watcher = asyncio.ensure_future(watch())
        last = _now_ms()
        ended = first
        method = _word_method(req)
        try:
            await send({'type': 'http.response.body', 'body': req.event_frame(first),
                        'more_body': True})
            while True:
                due, wait_ms = _keepalive_wait(self.keepalive_ms, _now_ms(), last)
                if due:
                    await send({'type': 'http.response.body', 'body': KEEPALIVE_COMMENT,
                                'more_body': True})
                    last = _now_ms()
                    continue
                try:
                    ev = await asyncio.wait_for(q.get(), timeout=max(wait_ms, 1) / 1000)
                except asyncio.TimeoutError:
                    continue
                if ev is None:
                    break
                ended = ev
                await send({'type': 'http.response.body', 'body': req.event_frame(ev),
                            'more_body': True})
                last = _now_ms()
                if run is not None and run.state in _INTERRUPTED:
                    break
        finally:
            watcher.cancel()
            if run is not None:
                run.subscribers.discard(q)
        await send({'type': 'http.response.body', 'body': b'', 'more_body': False})
        if 'message' in ended:
            self.tally.add(self.name, method, Channel.MESSAGE, 'message')
        else:
            state = run.state if run is not None else (
                ended.get('task', {}).get('status', {}).get('state', ''))
            self.tally.add(self.name, method, Channel.TASK, str(parse_task_state(state or 'unknown')))


async def _prepend(head: Event | None, events: AsyncIterator[Event]) -> AsyncIterator[Event]:
    """`head` (when there is one), then the rest of `events`."""
    if head is not None:
        yield head
    async for ev in events:
        yield ev


def _word_method(req: _Request) -> str:
    info = _lib.ServerRequestInfo()
    check(_lib.lib.a2a_server_request_get_info(req.h, ctypes.byref(info)))
    return str(_METHOD_BY_NUM[info.method])


def _now_ms() -> int:
    return int(time.monotonic() * 1000)


async def _read_body(receive: Any, limit: int = 16 * 1024 * 1024) -> bytes:
    chunks: list[bytes] = []
    size = 0
    while True:
        msg = await receive()
        if msg['type'] == 'http.disconnect':
            break
        b = msg.get('body', b'')
        size += len(b)
        if size > limit:
            raise ServerError(ErrorName.INVALID_REQUEST, 'request body too large')
        chunks.append(b)
        if not msg.get('more_body'):
            break
    return b''.join(chunks)


async def _send_whole(send: Any, status: int, headers: list[tuple[bytes, bytes]],
                      body: bytes) -> None:
    hs = [h for h in headers if h[0].lower() != b'content-length']
    hs.append((b'content-length', str(len(body)).encode()))
    await send({'type': 'http.response.start', 'status': status, 'headers': hs})
    await send({'type': 'http.response.body', 'body': body})
