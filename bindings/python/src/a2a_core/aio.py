"""`AsyncClient`: an asyncio A2A client on the core's client state machine, with HTTP
through `httpx.AsyncClient`.

The machine (`_machine`, the C ABI's `a2a_call`) decides everything A2A: the card and the
interface, the request of every attempt, the deadlines (call, stream idle, total), retries
and resubscribes, the outcome and the answer. This module only moves bytes: it performs the
machine's requests with httpx, hands each response in as it arrives, and sleeps until the
next response input or the machine's next deadline (`poll_timeout`). Every native call is
short and does no I/O, so they run on the event loop; there is no thread per call, and one
client serves any number of concurrent calls on its loop.

Cancelling the task awaiting a call (or leaving a stream's `async for` early) cancels the
machine's call and closes its HTTP response at once; a cancelled call raises
`asyncio.CancelledError` and is never reported as a success.
"""

from __future__ import annotations

import asyncio
import base64
import json
import logging
import os
import ssl
import time
import uuid
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from . import _lib, _machine
from ._machine import Call, Config, Settings, State
from ._guard import closed as _closed_error
from .answer import DataPart, FilePart, Part, TextPart
from .card import AgentCard
from .client import ClientStreamEnd, Resubscribing, StreamEvent
from .errors import CardResolutionError, error_for
from .outcome import Outcome
from .resilience import BreakerConfig
from .stream import StreamItem
from .vocab import (
    Binding,
    ProtocolVersion,
    StreamEndKind,
    StreamItemKind,
    _num,
    _word,
    parse_binding,
    parse_protocol_version,
)

try:  # httpx is the `async` extra's dependency: imported here, not by `import a2a_core`
    import httpx
except ImportError as _e:  # pragma: no cover - exercised only without the extra
    raise ImportError('a2a_core.AsyncClient needs httpx: pip install "a2a-core-native[async]"'
                      ) from _e

__all__ = ['AsyncClient', 'CallResult', 'FetchedCard', 'TaskPage', 'afetch_card', 'fetch_card']

log = logging.getLogger('a2a_core')

_CARD_RESOLUTION = 1000
#: `a2a_method` numbers (include/a2a_core.h).
_SEND, _STREAM, _GET_TASK, _LIST_TASKS, _CANCEL_TASK, _SUBSCRIBE = 1, 2, 3, 4, 5, 6
_CREATE_PUSH, _GET_PUSH, _LIST_PUSH, _DELETE_PUSH, _EXTENDED_CARD = 7, 8, 9, 10, 11


def _now_ms() -> int:
    """The host's monotonic clock, in ms: the machine's time scale."""
    return time.monotonic_ns() // 1_000_000


def _ms(seconds: float | None, name: str) -> int | None:
    """Float seconds as whole milliseconds (at least 1); None stays None."""
    if seconds is None:
        return None
    if not seconds > 0:
        raise ValueError(f'{name} must be a positive number of seconds, not {seconds!r}')
    return max(1, round(seconds * 1000))


def _seed() -> int:
    return int.from_bytes(os.urandom(8), 'little')


def _view(v: Any) -> bytes:
    return _lib.string_at(v.ptr, v.len) if v.ptr and v.len else b''


def default_http_client(connect_timeout: float = 3.0) -> httpx.AsyncClient:
    """The httpx client `AsyncClient` makes when none is given: connect `connect_timeout`
    seconds (each request's own connect deadline comes from the machine), no other httpx
    timeout (the machine's deadlines end requests), no redirects (an A2A call or card fetch
    that redirects is an outcome, never followed)."""
    return httpx.AsyncClient(timeout=httpx.Timeout(None, connect=connect_timeout),
                             follow_redirects=False)


def _failure_of(e: BaseException) -> tuple[int, bool]:
    """The machine's transport error name for an httpx exception, and whether request bytes
    may have reached the server: connect errors and connect / pool timeouts mean nothing was
    written; anything later (reset, protocol error, read error) may have been."""
    if isinstance(e, (httpx.ConnectTimeout, httpx.PoolTimeout)):
        return _machine.ERR_TIMEOUT, False
    if isinstance(e, httpx.ProxyError):
        return _machine.ERR_PROXY, False
    if isinstance(e, httpx.ConnectError):
        cause: BaseException | None = e
        while cause is not None:
            if isinstance(cause, ssl.SSLError):
                return _machine.ERR_TLS, False
            cause = cause.__cause__ or cause.__context__
        text = str(e).lower()
        if 'name or service' in text or 'nodename' in text or 'getaddrinfo' in text:
            return _machine.ERR_DNS, False
        return _machine.ERR_CONNECT_FAILED, False
    if isinstance(e, httpx.TimeoutException):
        return _machine.ERR_TIMEOUT, True
    # Read/write errors, protocol errors (a kept-alive connection closed under the request),
    # a decoding error: request bytes may have reached the server. When in doubt, written.
    return _machine.ERR_RESET, True


class _Exchange:
    """Drives one `a2a_call` on the event loop: its requests run as tasks on the caller's
    httpx client; `run()` (an async generator) yields the machine's events as Python values
    and ends after `FINISHED`. Nothing touches the call after `close()`."""

    def __init__(self, http: httpx.AsyncClient, call: Call, streaming: bool,
                 on_finished: Callable[[Any, Call], Any],
                 on_item: Callable[[Any], Any] | None = None) -> None:
        self.http = http
        self.call: Call | None = call
        self.streaming = streaming
        self.on_finished = on_finished
        self.on_item = on_item
        self.wake = asyncio.Event()
        self.room = asyncio.Event()  # set when the driver has taken every event
        self.room.set()
        self.requests: dict[int, asyncio.Task[None]] = {}
        self.error: BaseException | None = None

    # --- inputs (request tasks) ----------------------------------------------------------

    def _feed(self, fn: str, *args: Any) -> bool:
        """One input to the machine; False when the call is gone, the request is stale or
        the call finished (the request is then dropped)."""
        call = self.call
        if call is None:
            return False
        try:
            taken = bool(getattr(call, fn)(*args, _now_ms()))
        finally:
            self.wake.set()
        return taken

    async def _request(self, rid: int, method: str, url: str,
                       headers: list[tuple[bytes, bytes]], body: bytes,
                       connect_by_ms: int) -> None:
        connect = max(connect_by_ms - _now_ms(), 1) / 1000
        timeout = httpx.Timeout(None, connect=connect, pool=connect)
        response: httpx.Response | None = None
        try:
            req = self.http.build_request(method, url, headers=headers,
                                          content=body if body else None, timeout=timeout)
            if self.streaming:
                # a stream is read as it arrives: no compression to wait on or undo
                req.headers['Accept-Encoding'] = 'identity'
            try:
                response = await self.http.send(req, stream=True, follow_redirects=False)
            except httpx.RequestError as e:
                err, written = _failure_of(e)
                self._feed('handle_failure', rid, err, written, f'{type(e).__name__}: {e}')
                return
            except RuntimeError as e:
                if not self.http.is_closed:
                    raise
                # the client was closed under this call (a retry or resubscribe after it)
                self._feed('handle_failure', rid, _machine.ERR_CONNECT_FAILED, False,
                           f'the HTTP client is closed: {e}')
                return
            raw = [(k, v.decode('utf-8', 'replace').encode('utf-8'))
                   for k, v in response.headers.raw]
            if not self._feed('handle_head', rid, response.status_code, raw):
                return
            try:
                async for chunk in response.aiter_bytes():
                    if not self._feed('handle_body', rid, chunk):
                        return
                    if self.streaming and not self.room.is_set():
                        await self.room.wait()  # bounded memory: the reader keeps pace
                    self.room.clear()
            except httpx.RequestError as e:
                err, written = _failure_of(e)
                self._feed('handle_failure', rid, err, written, f'{type(e).__name__}: {e}')
                return
            self._feed('handle_end', rid)
        except asyncio.CancelledError:
            raise
        except Exception as e:  # a bug or a refused input: the driver raises it
            if self.error is None:
                self.error = e
            self.wake.set()
        finally:
            if response is not None:
                await response.aclose()

    # --- the driver ----------------------------------------------------------------------

    def _start_requests(self) -> None:
        call = self.call
        assert call is not None
        while (t := call.poll_transmit(_now_ms())) is not None:
            headers = [(_lib.string_at(h.name, h.name_len), _lib.string_at(h.value, h.value_len))
                       for h in (t.headers[i] for i in range(t.headers_len))]
            task = asyncio.ensure_future(self._request(
                t.request_id, _view(t.method).decode(), _view(t.url).decode(), headers,
                _view(t.body), t.connect_by_ms))
            self.requests[t.request_id] = task
            task.add_done_callback(lambda _t, rid=t.request_id: self.requests.pop(rid, None)
                                   if self.requests.get(rid) is _t else None)

    async def run(self) -> AsyncIterator[Any]:
        call = self.call
        assert call is not None
        finished = False
        try:
            while True:
                if self.error is not None:
                    raise self.error
                self._start_requests()
                while (ev := call.poll_event()) is not None:
                    kind = ev.kind
                    if kind == _machine.EVENT_ABORT:
                        task = self.requests.pop(ev.request_id, None)
                        if task is not None:
                            task.cancel()
                    elif kind == _machine.EVENT_FINISHED:
                        finished = True
                        yield self.on_finished(ev, call)
                        return
                    elif kind == _machine.EVENT_ITEM and self.on_item is not None:
                        yield self.on_item(ev)
                    elif kind == _machine.EVENT_RESUBSCRIBING and self.on_item is not None:
                        yield Resubscribing(_lib.view_str(ev.task_id) or '', int(ev.attempt))
                    elif kind == _machine.EVENT_RETRYING:
                        log.debug('retrying (attempt %d) in %d ms', ev.attempt,
                                  ev.delay_ms)
                    # after a yield the call may have moved on: poll again
                self.room.set()
                self._start_requests()
                at = call.poll_timeout()
                self.wake.clear()
                if self.error is not None:
                    continue
                if at is None:
                    await self.wake.wait()
                    continue
                wait = (at - _now_ms() + 1) / 1000
                if wait > 0:
                    try:
                        await asyncio.wait_for(self.wake.wait(), wait)
                        continue
                    except asyncio.TimeoutError:
                        pass
                call.handle_timeout(_now_ms())
        finally:
            self.close(finished)

    def close(self, finished: bool) -> None:
        """Ends the exchange: a call that did not finish is cancelled in the machine, its
        requests' tasks are cancelled (each closes its response), and the call is freed."""
        call, self.call = self.call, None
        if call is None:
            return
        try:
            if not finished:
                call.cancel(_now_ms())
                while call.poll_event() is not None:
                    pass
                log.debug('call cancelled by its caller (never reported as a success)')
        finally:
            for task in list(self.requests.values()):
                task.cancel()
            self.requests.clear()
            if not call.kept:
                call.free()


@dataclass(frozen=True, slots=True)
class FetchedCard:
    """An agent card fetched and validated by the machine: the card, where it was read,
    and the interface calls go to (chosen by the client's rules and checked against the
    card's origin)."""

    card: AgentCard
    card_url: str
    card_json: str
    interface_url: str
    version: ProtocolVersion
    binding: Binding


def _card_finished(ev: Any, call: Call) -> tuple[FetchedCard | None, Outcome | None]:
    if ev.outcome:
        return None, Outcome._from_ptr(ev.outcome, owned=False)
    text = _lib.view_str(ev.card_json) or ''
    return FetchedCard(
        card=AgentCard(text), card_url=_lib.view_str(ev.card_url) or '', card_json=text,
        interface_url=_lib.view_str(ev.interface_url) or '',
        version=_word(ProtocolVersion, ev.interface_version),
        binding=_word(Binding, ev.interface_binding)), None


def _card_error(source: str, outcome: Outcome) -> CardResolutionError:
    e = error_for(_CARD_RESOLUTION, f'{source}: {outcome.message or outcome.reason}')
    assert isinstance(e, CardResolutionError)
    e.outcome = outcome
    return e


async def _resolve(http: httpx.AsyncClient, config: Config, source: str,
                   seed: int | None) -> tuple[FetchedCard, State | None]:
    call = Call.card_fetch(config, source)
    got: list[Any] = []
    state: list[State] = []

    def finished(ev: Any, c: Call) -> Any:
        card, outcome = _card_finished(ev, c)
        if card is not None and seed is not None:
            state.append(State.from_card(config, c, seed))
        return card, outcome

    async for item in _Exchange(http, call, False, finished).run():
        got.append(item)
    card, outcome = got[-1]
    if card is None:
        raise _card_error(source, outcome)
    return card, state[0] if state else None


async def afetch_card(url: str, *, http_client: httpx.AsyncClient | None = None,
                      allow_http: bool = False, timeout: float = 30.0,
                      connect_timeout: float = 3.0, prefer: str = 'card') -> FetchedCard:
    """Fetches and validates the agent card at `url` (a base URL: the well-known paths are
    tried; or the card's own URL), as `AsyncClient` does on entry. Raises
    CardResolutionError with `.outcome` when that fails."""
    config = Config(card_timeout_ms=_ms(timeout, 'timeout'),
                    connect_timeout_ms=_ms(connect_timeout, 'connect_timeout'),
                    allow_http=allow_http, prefer_card_order=_prefer(prefer))
    own = http_client is None
    http = http_client or default_http_client(connect_timeout)
    try:
        card, _ = await _resolve(http, config, url, None)
        return card
    finally:
        if own:
            await http.aclose()


def fetch_card(url: str, **options: Any) -> FetchedCard:
    """`afetch_card` for blocking code (BLOCKS; not from inside a running event loop: use
    `await afetch_card(...)` there)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(afetch_card(url, **options))
    raise RuntimeError('fetch_card() inside a running event loop: use await afetch_card()')


def _prefer(prefer: str) -> bool:
    if prefer not in ('card', 'client'):
        raise ValueError(f"prefer must be 'card' or 'client', not {prefer!r}")
    return prefer == 'card'


def _item_of(ev: Any) -> StreamItem:
    it = ev.item
    return StreamItem(
        kind=_word(StreamItemKind, it.kind),
        outcome=Outcome._from_ptr(ev.outcome, owned=False),
        final=bool(it.final_flag) if it.has_final else None,
        artifact_id=_lib.view_str(it.artifact_id),
        append=bool(it.append),
        last_chunk=bool(it.last_chunk),
        ends_stream=bool(it.ends_stream),
    )


def _log_call(ev: Any, outcome: Outcome) -> None:
    """One debug record per call: the method, the outcome (channel, state, error), the
    elapsed time and the traceparent; never credentials, headers or content."""
    if not log.isEnabledFor(logging.DEBUG):
        return
    c = ev.correlation
    what = outcome.state.value if outcome.state else (
        outcome.error.value if outcome.error else outcome.channel.value)
    log.debug('%s -> %s/%s in %d ms (attempts %d) traceparent=%s',
              _lib.view_str(c.method) or '?', outcome.channel.value, what, c.elapsed_ms,
              c.attempts, _lib.view_str(c.traceparent) or '-')


@dataclass(frozen=True, slots=True)
class CallResult:
    """A call whose result is not a task or message (push configs, the extended card): its
    outcome, the last response's status and the JSON `result` read from its body (the
    JSON-RPC `result`, or the HTTP+JSON body; None when the call failed or the body was not
    JSON)."""

    outcome: Outcome
    status: int | None
    result: Any


@dataclass(frozen=True, slots=True)
class TaskPage:
    """One page of `list_tasks`: the tasks as the agent wrote them (JSON objects), the
    token of the next page (None after the last) and the page call's outcome."""

    tasks: tuple[Any, ...]
    next_page_token: str | None
    outcome: Outcome


def _result_of_body(body: bytes | None, ok: bool) -> Any:
    """The JSON result of a response body: a JSON-RPC reply's `result`, else the body."""
    if not ok or not body:
        return None
    try:
        doc = json.loads(body)
    except ValueError:
        return None
    if isinstance(doc, dict) and doc.get('jsonrpc') == '2.0':
        return doc.get('result')
    return doc


def _raw_finished(ev: Any, call: Call) -> CallResult:
    outcome = _finished_outcome(ev, call)
    body = _view(ev.response_body) if ev.has_response else None
    ok = ev.has_response and not outcome.failed
    return CallResult(outcome, int(ev.response_status) if ev.has_response else None,
                      _result_of_body(body, ok))


class _CallOutcome:
    """The library handle of a finished call's outcome, borrowed from the call: keeping the
    (finished, never again changed) call alive keeps the outcome valid, so it can be passed
    back to the library (`model_text`, `Breaker.record`, `RetryPolicy.next`). The call is
    freed when the Outcome is collected."""

    __slots__ = ('ptr', 'call')

    def __init__(self, ptr: int, call: Call) -> None:
        self.ptr = ptr
        self.call = call
        call.kept = True

    # never copied (a copy would share the call), never pickled (see _OwnedOutcome)
    def __copy__(self) -> Any:
        return self

    def __deepcopy__(self, memo: Any) -> Any:
        return self

    def __reduce__(self) -> tuple[Any, tuple[()]]:
        return type(None), ()


def _finished_outcome(ev: Any, call: Call) -> Outcome:
    outcome = Outcome._from_ptr(ev.outcome, owned=False)
    object.__setattr__(outcome, '_owned', _CallOutcome(ev.outcome, call))
    _log_call(ev, outcome)
    return outcome


def _unary_finished(ev: Any, call: Call) -> Outcome:
    return _finished_outcome(ev, call)


def _stream_finished(ev: Any, call: Call) -> ClientStreamEnd:
    outcome = _finished_outcome(ev, call)
    kind = _word(StreamEndKind, ev.end_kind) if ev.has_end_kind else None
    return ClientStreamEnd(kind, outcome, int(ev.resubscribes), int(ev.dropped_events),
                           int(ev.unreadable_events))


Headers = Mapping[str, str] | Sequence[tuple[str, str]] | None


def _part_params(p: Part | str) -> dict[str, Any]:
    """One part in the canonical request form (A2A 1.0 ProtoJSON `Part`: `text`, `data`,
    `raw` or `url`, with `mediaType`, `filename`, `metadata`); the library writes each
    peer's own form from it."""
    if isinstance(p, str):
        return {'text': p}
    if isinstance(p, TextPart):
        d: dict[str, Any] = {'text': p.text}
    elif isinstance(p, DataPart):
        d = {'data': p.data}
    elif isinstance(p, FilePart):
        d = ({'raw': base64.b64encode(p.data).decode('ascii')} if p.data is not None
             else {'url': p.uri})
    else:
        raise TypeError(f'not a part: {p!r}')
    for attr, key in (('media_type', 'mediaType'), ('name', 'filename'),
                      ('metadata', 'metadata')):
        value = getattr(p, attr)
        if value is not None:
            d[key] = dict(value) if key == 'metadata' else value
    return d


def _message_params(text: str | None, parts: Sequence[Part | str] | None,
                    metadata: Mapping[str, Any] | None, message_id: str | None,
                    context_id: str | None, task_id: str | None) -> bytes:
    """The `SendMessage` params of a user message: `text` then `parts`."""
    all_parts = ([text] if text is not None else []) + list(parts or ())
    if not all_parts:
        raise ValueError('nothing to send: give text or parts')
    message: dict[str, Any] = {'role': 'ROLE_USER', 'messageId': message_id or str(uuid.uuid4()),
                               'parts': [_part_params(p) for p in all_parts]}
    if context_id is not None:
        message['contextId'] = context_id
    if task_id is not None:
        message['taskId'] = task_id
    if metadata is not None:
        message['metadata'] = dict(metadata)
    return json.dumps({'message': message}).encode('utf-8')


class AsyncClient:
    """An asyncio A2A client for one agent, on the core's client machine, with HTTP through
    `httpx.AsyncClient`.

    ```python
    async with a2a_core.AsyncClient(url, timeout=45.0) as client:  # card fetched here
        outcome = await client.send('echo hi')
        async for event in client.stream('count 3'): ...
    ```

    Durations are float seconds: `timeout` (a non-streaming call, and a stream's response
    head), `connect_timeout`, `stream_idle_timeout`, `card_timeout`, `max_time` (a total
    per call, retries and resubscribes included). `http_client`: your `httpx.AsyncClient`
    (its transports, proxies, TLS, event hooks; it is not closed by this client), else one
    with connect 3 s and no redirects. `prefer='card'` picks the interface in the card's
    order, `'client'` in the library's (1.0 then 0.3, JSON-RPC then HTTP+JSON).
    `send_retries` resends a send with the same messageId and key (without
    `idempotency_key` only after proof of non-receipt); `stream_resubscribes` resubscribes
    a cut or idle stream (never resends). `breaker=BreakerConfig(...)`: one breaker per
    client. Outcomes are those of `Client` (the same tables), usable with `model_text`,
    `Breaker.record` and `RetryPolicy.next` (stream items' outcomes are copies, as there).

    Every failure of a call is an `Outcome`; exceptions are for wrong arguments, for a
    card that cannot be resolved on entry (CardResolutionError with `.outcome`), and for
    cancellation (`asyncio.CancelledError`, never a success). Closing (`aclose()`, leaving
    the `async with`) refuses new calls; calls in flight keep the machine's state alive
    and end with a transport outcome once the HTTP client is gone.
    """

    def __init__(
        self,
        url: str,
        *,
        timeout: float = 45.0,
        connect_timeout: float = 3.0,
        stream_idle_timeout: float | None = None,
        card_timeout: float | None = None,
        max_time: float | None = None,
        max_response_bytes: int | None = None,
        max_event_bytes: int | None = None,
        send_retries: int | None = None,
        stream_resubscribes: int | None = None,
        allow_http: bool = False,
        client_certificate: bool = False,
        prefer: str = 'card',
        breaker: BreakerConfig | None = None,
        http_client: httpx.AsyncClient | None = None,
        _target: tuple[ProtocolVersion, Binding] | None = None,
    ) -> None:
        self.url = url
        self._config = Config(
            call_timeout_ms=_ms(timeout, 'timeout'),
            connect_timeout_ms=_ms(connect_timeout, 'connect_timeout'),
            stream_idle_timeout_ms=_ms(stream_idle_timeout, 'stream_idle_timeout'),
            card_timeout_ms=_ms(card_timeout, 'card_timeout'),
            max_time_ms=_ms(max_time, 'max_time'),
            max_response_bytes=max_response_bytes, max_event_bytes=max_event_bytes,
            send_retries=send_retries, stream_resubscribes=stream_resubscribes,
            client_certificate=client_certificate, allow_http=allow_http,
            prefer_card_order=_prefer(prefer),
            breaker=breaker._c() if breaker is not None else None)
        self._own_http = http_client is None
        self._http = http_client or default_http_client(connect_timeout)
        self._target = _target
        self._state: State | None = None
        self._closed = False
        #: The card fetched on entry (None for `with_target`).
        self.card: FetchedCard | None = None

    @classmethod
    def with_target(cls, url: str, version: str | ProtocolVersion, binding: str | Binding,
                    **options: Any) -> AsyncClient:
        """A client for a known interface URL spoken in `version` over `binding` (no card)."""
        target = (parse_protocol_version(version), parse_binding(binding))
        return cls(url, _target=target, **options)

    async def __aenter__(self) -> AsyncClient:
        try:
            await self.open()
        except BaseException:
            await self.aclose()
            raise
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def open(self) -> None:
        """Fetches and validates the card (the `async with` entry does this); a second
        call does nothing."""
        if self._state is not None:
            return
        if self._closed:
            raise _closed_error('client')
        if self._target is not None:
            v, b = self._target
            self._state = State.for_target(self._config, self.url, _num(ProtocolVersion)[v],
                                           _num(Binding)[b], _seed())
            return
        self.card, self._state = await _resolve(self._http, self._config, self.url, _seed())

    async def aclose(self) -> None:
        """Refuses new calls and closes the httpx client this client made (never the
        caller's). A second close does nothing."""
        if self._closed:
            return
        self._closed = True
        if self._own_http:
            await self._http.aclose()

    @property
    def closed(self) -> bool:
        """Whether `aclose()` has run: new calls raise ClosedError."""
        return self._closed

    def _live_state(self) -> State:
        if self._closed:
            raise _closed_error('client')
        if self._state is None:
            raise RuntimeError('AsyncClient is not open: use `async with` or await open()')
        return self._state

    @staticmethod
    def _settings(timeout: float | None, traceparent: str | None,
                  idempotency_key: str | None, message_id: str | None,
                  headers: Headers) -> Settings | None:
        pairs = list(headers.items() if isinstance(headers, Mapping) else headers or ())
        if not (timeout or traceparent or idempotency_key or message_id or pairs):
            return None
        return Settings(budget_ms=_ms(timeout, 'timeout'), traceparent=traceparent,
                        idempotency_key=idempotency_key, message_id=message_id, headers=pairs)

    async def _unary(self, call: Call, finished: Callable[[Any, Call], Any] = _unary_finished
                     ) -> Any:
        result: Any = None
        gen = _Exchange(self._http, call, False, finished).run()
        try:
            async for item in gen:
                result = item
        finally:
            await gen.aclose()  # at once, also when this task is cancelled
        assert result is not None
        return result

    async def send(self, text: str | None = None, *, parts: Sequence[Part | str] | None = None,
                   metadata: Mapping[str, Any] | None = None, timeout: float | None = None,
                   traceparent: str | None = None, idempotency_key: str | None = None,
                   message_id: str | None = None, context_id: str | None = None,
                   task_id: str | None = None, headers: Headers = None) -> Outcome:
        """Sends a user message and waits for the answer, bounded by the call timeout or
        `timeout` (seconds: the caller's remaining budget): `text`, and/or `parts`
        (TextPart, DataPart, FilePart; a str is a text part) after it, with message
        `metadata`. The answer is `outcome.result` (a Task or Message). `context_id` /
        `task_id` continue a conversation or an interrupted task."""
        state = self._live_state()
        settings = self._settings(timeout, traceparent, idempotency_key, message_id, headers)
        if text is not None and parts is None and metadata is None and context_id is None \
                and task_id is None:
            return await self._unary(Call.new_text(state, False, text, settings, _now_ms()))
        body = _message_params(text, parts, metadata, message_id, context_id, task_id)
        return await self._unary(Call.new(state, _SEND, body, settings, _now_ms()))

    async def _method(self, method: int, params: Mapping[str, Any] | None,
                      timeout: float | None, traceparent: str | None,
                      headers: Headers,
                      finished: Callable[[Any, Call], Any] = _unary_finished) -> Any:
        state = self._live_state()
        settings = self._settings(timeout, traceparent, None, None, headers)
        body = json.dumps(params).encode('utf-8') if params is not None else None
        return await self._unary(Call.new(state, method, body, settings, _now_ms()), finished)

    async def list_tasks(self, *, context_id: str | None = None, status: str | None = None,
                         page_size: int | None = None, page_token: str | None = None,
                         history_length: int | None = None, timeout: float | None = None,
                         traceparent: str | None = None,
                         headers: Headers = None) -> AsyncIterator[TaskPage]:
        """Lists tasks page by page (A2A 1.0 `ListTasks`): an async iterator of
        `TaskPage`s, one call per page, ending after the page without a next token or
        after a page whose call failed (its `outcome` says why; it has no tasks)."""
        params: dict[str, Any] = {}
        for key, value in (('contextId', context_id), ('status', status),
                           ('pageSize', page_size), ('historyLength', history_length)):
            if value is not None:
                params[key] = value
        token = page_token
        while True:
            if token:
                params['pageToken'] = token
            r: CallResult = await self._method(_LIST_TASKS, params, timeout, traceparent,
                                               headers, _raw_finished)
            doc = r.result if isinstance(r.result, dict) else {}
            tasks = doc.get('tasks') or []
            token = doc.get('nextPageToken') or None
            yield TaskPage(tuple(tasks), token, r.outcome)
            if r.result is None or not token:
                return

    async def set_push_config(self, task_id: str, url: str, *, config_id: str | None = None,
                              token: str | None = None, timeout: float | None = None,
                              headers: Headers = None) -> CallResult:
        """Sets a push-notification config on a task (`CreateTaskPushNotificationConfig`);
        `result` is the config the agent stored."""
        config: dict[str, Any] = {'url': url}
        if config_id is not None:
            config['id'] = config_id
        if token is not None:
            config['token'] = token
        params = {'taskId': task_id, 'pushNotificationConfig': config}
        return await self._method(_CREATE_PUSH, params, timeout, None, headers, _raw_finished)

    async def get_push_config(self, task_id: str, config_id: str, *,
                              timeout: float | None = None,
                              headers: Headers = None) -> CallResult:
        """Reads one push-notification config of a task."""
        return await self._method(_GET_PUSH, {'taskId': task_id, 'id': config_id}, timeout,
                                  None, headers, _raw_finished)

    async def list_push_configs(self, task_id: str, *, timeout: float | None = None,
                                headers: Headers = None) -> CallResult:
        """Lists a task's push-notification configs."""
        return await self._method(_LIST_PUSH, {'taskId': task_id}, timeout, None, headers,
                                  _raw_finished)

    async def delete_push_config(self, task_id: str, config_id: str, *,
                                 timeout: float | None = None,
                                 headers: Headers = None) -> CallResult:
        """Deletes one push-notification config of a task."""
        return await self._method(_DELETE_PUSH, {'taskId': task_id, 'id': config_id}, timeout,
                                  None, headers, _raw_finished)

    async def extended_card(self, *, timeout: float | None = None,
                            headers: Headers = None) -> CallResult:
        """The authenticated extended agent card (`GetExtendedAgentCard`); `result` is the
        card as JSON when the agent has one."""
        return await self._method(_EXTENDED_CARD, None, timeout, None, headers, _raw_finished)

    async def get(self, task_id: str, *, timeout: float | None = None,
                  traceparent: str | None = None, headers: Headers = None,
                  history_length: int | None = None) -> Outcome:
        """Reads a task (with `history_length` history messages when given)."""
        params: dict[str, Any] = {'id': task_id}
        if history_length is not None:
            params['historyLength'] = history_length
        return await self._method(_GET_TASK, params, timeout, traceparent, headers)

    async def cancel(self, task_id: str, *, timeout: float | None = None,
                     traceparent: str | None = None, headers: Headers = None) -> Outcome:
        """Cancels a task."""
        return await self._method(_CANCEL_TASK, {'id': task_id}, timeout, traceparent,
                                  headers)

    def stream(self, text: str | None = None, *, parts: Sequence[Part | str] | None = None,
               metadata: Mapping[str, Any] | None = None, traceparent: str | None = None,
               idempotency_key: str | None = None, message_id: str | None = None,
               context_id: str | None = None, task_id: str | None = None,
               headers: Headers = None) -> AsyncIterator[StreamEvent]:
        """A streaming send (the message as in `send`): an async iterator of `StreamItem`s
        (and `Resubscribing` notices), ending with one `ClientStreamEnd`. Leaving the loop
        early (or cancelling the task) cancels the call and closes its response."""
        state = self._live_state()
        settings = self._settings(None, traceparent, idempotency_key, message_id, headers)
        if text is not None and parts is None and metadata is None and context_id is None \
                and task_id is None:
            call = Call.new_text(state, True, text, settings, _now_ms())
        else:
            body = _message_params(text, parts, metadata, message_id, context_id, task_id)
            call = Call.new(state, _STREAM, body, settings, _now_ms())
        return _Exchange(self._http, call, True, _stream_finished, _item_of).run()

    def resubscribe(self, task_id: str, *, traceparent: str | None = None,
                    headers: Headers = None) -> AsyncIterator[StreamEvent]:
        """Resubscribes to a running task's events; as `stream`."""
        state = self._live_state()
        settings = self._settings(None, traceparent, None, None, headers)
        call = Call.new(state, _SUBSCRIBE, json.dumps({'id': task_id}).encode('utf-8'),
                        settings, _now_ms())
        return _Exchange(self._http, call, True, _stream_finished, _item_of).run()
