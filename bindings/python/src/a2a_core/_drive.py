"""One driver of the core's client machine, stepped by both hosts: `AsyncClient`'s event
loop and the blocking `Client(http_client=httpx.Client(...))`.

`drive(call, ...)` is a generator that owns a call's whole protocol: it asks the machine
for the requests to perform, its events and its next deadline, and yields what the host
must do, one action at a time:

- `Start`: perform this request (its values copied out of the call) and hand the response
  in through `Call.handle_head` / `handle_body` / `handle_end` / `handle_failure`;
- `Abort`: drop that request now (its connection too);
- `Emit`: give this value (a stream item, a `Resubscribing`, the finished call's value) to
  the caller; a `list`: give each of its values (stream items, several at once on the
  compiled path), in order;
- `Wait`: block until a response input arrived or until `at` (the machine's next
  deadline, host clock in ms; None: no deadline), then `send(True)` when `at` passed
  (the driver calls `handle_timeout`) or `send(False)` after an input.

The generator ends after the finished call's `Emit`. Closing it early (the caller left, a
task was cancelled, the host failed) cancels the machine's call, so a call that did not
finish is never reported as a success; then the call is freed, unless the finished call's
outcome keeps it. Nothing here does I/O or imports httpx: the hosts are in `_httpx_io`.

Also here: what both clients build a call from and read a finished call into (settings,
message params, the finished values), so that the two clients cannot drift apart.
"""

from __future__ import annotations

import base64
import ctypes
import json
import logging
import os
import threading
import time
import uuid
from collections.abc import AsyncIterator, Callable, Generator, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, Union

from . import _lib, _machine
from ._guard import Calls, HandleHolder
from ._machine import Call, Settings, State
from .answer import DataPart, FilePart, Part, TextPart
from .card import AgentCard
from .client import ClientStreamEnd, HeaderHook, Resubscribing
from .errors import CardResolutionError, check, error_for
from .outcome import Outcome
from .stream import StreamItem
from .trust import VerifiedSignature
from .vocab import (Binding, ProtocolVersion, StreamEndKind, _num, _word,
                    parse_binding, parse_protocol_version)

log = logging.getLogger('a2a_core')

_CARD_RESOLUTION = 1000
#: `a2a_method` numbers (include/a2a_core.h).
SEND, STREAM, GET_TASK, LIST_TASKS, CANCEL_TASK, SUBSCRIBE = 1, 2, 3, 4, 5, 6
CREATE_PUSH, GET_PUSH, LIST_PUSH, DELETE_PUSH, EXTENDED_CARD = 7, 8, 9, 10, 11

Headers = Union[Mapping[str, str], Sequence[tuple[str, str]], None]


def now_ms() -> int:
    """The host's monotonic clock, in ms: the machine's time scale."""
    return time.monotonic_ns() // 1_000_000


#: The one short wait (seconds) a host gives a deadline that passed before its wait began:
#: the caller was away (a loop body slower than the idle timeout), and bytes that came
#: meanwhile show the server was not idle, so they are taken before the deadline counts
#: (the machine decides: an open stream's input is late only at its total deadline).
LATE_READ = 0.001


def ms(seconds: float | None, name: str) -> int | None:
    """Float seconds as whole milliseconds (at least 1); None stays None."""
    if seconds is None:
        return None
    if not seconds > 0:
        raise ValueError(f'{name} must be a positive number of seconds, not {seconds!r}')
    return max(1, round(seconds * 1000))


def seed() -> int:
    """The host's random bits for a state (ids, `traceparent`, jitter)."""
    return int.from_bytes(os.urandom(8), 'little')


def prefer_card_order(prefer: str) -> bool:
    """`prefer='card'` or `'client'` as the config's flag."""
    if prefer not in ('card', 'client'):
        raise ValueError(f"prefer must be 'card' or 'client', not {prefer!r}")
    return prefer == 'card'


def interface_codes(protocol: str | ProtocolVersion | None,
                    binding: str | Binding | None) -> tuple[int, int]:
    """`protocol=` / `binding=` as the config's interface codes (0: any)."""
    return (0 if protocol is None else _num(ProtocolVersion)[parse_protocol_version(protocol)],
            0 if binding is None else _num(Binding)[parse_binding(binding)])


def min_protocol_code(min_protocol: str | ProtocolVersion | None) -> int:
    """`min_protocol=` as the config's `a2a_protocol_version` code (0: none)."""
    return 0 if min_protocol is None else _num(ProtocolVersion)[parse_protocol_version(min_protocol)]


def view(v: Any) -> bytes:
    """The bytes of an `a2a_str` / `a2a_bytes` view (copied)."""
    return _lib.string_at(v.ptr, v.len) if v.ptr and v.len else b''


# --- the actions -----------------------------------------------------------------------------


class Start:
    """Perform this request (values copied: valid after the next transmit)."""

    __slots__ = ('request_id', 'method', 'url', 'headers', 'body', 'connect_by_ms',
                 'deadline_ms')

    def __init__(self, t: _machine.Transmit) -> None:
        self.request_id = int(t.request_id)
        self.method = view(t.method).decode()
        self.url = view(t.url).decode()
        self.headers = [(_lib.string_at(h.name, h.name_len),
                         _lib.string_at(h.value, h.value_len))
                        for h in (t.headers[i] for i in range(t.headers_len))]
        self.body = view(t.body)
        self.connect_by_ms = int(t.connect_by_ms)
        self.deadline_ms = int(t.deadline_ms)


class Abort:
    """Drop request `request_id` now."""

    __slots__ = ('request_id',)

    def __init__(self, request_id: int) -> None:
        self.request_id = request_id


class Emit:
    """Give `value` to the caller."""

    __slots__ = ('value',)

    def __init__(self, value: Any) -> None:
        self.value = value


def _handed(e: Emit) -> Any:
    """`e`'s value, no longer referenced by `e` (the driver's frame still holds `e`)."""
    value, e.value = e.value, None
    return value


class Wait:
    """Block until a response input or `at` (host ms; None: no deadline); send True when
    `at` passed."""

    __slots__ = ('at',)

    def __init__(self, at: int | None) -> None:
        self.at = at


# A list: a stream's items, in order, each given to the caller as an `Emit`'s value is.
Action = Union[Start, Abort, Emit, Wait, 'list[Any]']


class HookErrors(threading.local):
    """Where a client's header hooks leave the exception they raised, per thread: a hook
    runs inside `a2a_call_poll_transmit` on the thread that called it, so the driver
    clears this before each poll and raises what a hook left after it."""

    error: BaseException | None = None


def _starts(call: Call, hook_errors: HookErrors | None) -> Generator[Action, Any, None]:
    """The requests the machine hands out now, each as a `Start` (a header hook that raised
    stops the call before its request is sent: its exception is raised here)."""
    while True:
        if hook_errors is not None:
            hook_errors.error = None
        t = call.poll_transmit(now_ms())
        if hook_errors is not None and hook_errors.error is not None:
            e, hook_errors.error = hook_errors.error, None
            raise e  # the request is never performed: the driver's finally cancels the call
        if t is None:
            return
        yield Start(t)


def drive(call: Call, on_finished: Callable[[Any, Call], Any],
          on_item: Callable[[Any], Any] | None = None,
          hook_errors: HookErrors | None = None) -> Generator[Action, bool | None, None]:
    """Steps one call (see the module's docs). `on_finished(ev, call)` makes the value of
    the FINISHED event; `on_item(ev)` that of an ITEM (None: a non-streaming call).
    `hook_errors`: a header hook that raised stops the call before its request is sent
    (the call is cancelled) and its exception is raised here."""
    finished = False
    # The compiled fast path polls and builds an ITEM's StreamItem in one C call (`poll`), a
    # stream's items all that are queued in one call (`poll_items`), handed out as one list;
    # any other event is read from `call.event`, where it polled it.
    sp = _lib.SPEEDUPS if on_item is None or on_item is item_of else None
    poll = sp.poll if sp is not None else None  # type: ignore[attr-defined]
    poll_items = (sp.poll_items  # type: ignore[attr-defined]
                  if sp is not None and on_item is not None else None)
    event_at = ctypes.addressof(call.event)
    try:
        while True:
            yield from _starts(call, hook_errors)
            while True:
                items: list[Any] | None = None
                if poll_items is not None:
                    items = []
                    r = poll_items(call.ptr, event_at, items)
                    if r == _machine.EVENT_ITEM:  # stopped at its most: more may be queued
                        yield items
                        continue
                    if r <= 0:
                        if items:
                            yield items
                        if r == 0:
                            break
                        check(-r)
                    ev, kind = call.event, r
                elif poll is not None:
                    r = poll(call.ptr, event_at)
                    if r.__class__ is not int:
                        continue  # an item of a call that hands none out
                    if r == 0:
                        break
                    if r < 0:
                        check(-r)
                    ev, kind = call.event, r
                else:
                    if (ev := call.poll_event()) is None:
                        break
                    kind = ev.kind
                # The event is read before anything is handed out: its views last only
                # until the call changes, which it may while the caller holds the items.
                after: Action | None = None
                if kind == _machine.EVENT_ABORT:
                    after = Abort(int(ev.request_id))
                elif kind == _machine.EVENT_FINISHED:
                    after = Emit(on_finished(ev, call))
                    finished = True
                elif kind == _machine.EVENT_ITEM and on_item is not None:
                    after = Emit(on_item(ev))
                elif kind == _machine.EVENT_RESUBSCRIBING and on_item is not None:
                    after = Emit(Resubscribing(_lib.view_str(ev.task_id) or '', int(ev.attempt)))
                elif kind == _machine.EVENT_RETRYING:
                    log.debug('retrying (attempt %d) in %d ms', ev.attempt, ev.delay_ms)
                if items:
                    yield items
                if after is not None:
                    yield after
                if finished:
                    return
                # after a yield the call may have moved on: poll again
            yield from _starts(call, hook_errors)
            if (yield Wait(call.poll_timeout())):
                call.handle_timeout(now_ms())
    finally:
        try:
            if not finished and call.ptr:
                call.cancel(now_ms())
                while call.poll_event() is not None:
                    pass
                log.debug('call cancelled by its caller (never reported as a success)')
        finally:
            if not call.kept:
                call.free()


# --- what a call is made from ----------------------------------------------------------------


class AsyncHost(Protocol):
    """What `run_on` needs of an asyncio host (`_asyncio_http`'s and `_httpx_io`'s)."""

    error: BaseException | None

    def start(self, s: Start) -> None:
        """Performs a request the machine handed out (as a task or on a connection)."""

    def drop(self, request_id: int) -> None:
        """Ends a request the machine aborted, closing its connection."""

    async def wait(self, at: int | None) -> bool:
        """Sleeps until the next input or `at`; True when `at` passed."""

    def close(self) -> None:
        """Ends every request still in flight; no input reaches the call after it."""


async def run_on(make_host: Callable[[], AsyncHost],
                 steps: Generator[Action, bool | None, None]) -> AsyncIterator[Any]:
    """Runs `drive`'s steps on the asyncio host `make_host()` makes at the first iteration
    (on the running loop, however early the iterator was made): starts and drops its
    requests, yields the emitted values (ending after the finished call's) and waits as
    `Wait` says. Leaving early (or cancellation) closes the host and cancels the call in
    the machine."""
    host = make_host()
    del make_host  # (its closure: not kept for the call's life)
    try:
        action = next(steps)
        while True:
            if host.error is not None:
                raise host.error
            kind = action.__class__  # items first: they are most of a stream's steps
            # What is handed out is not kept here (nor in `drive`'s suspended frame): while
            # the caller holds an open stream, its last item is the caller's to keep or drop.
            if kind is list:
                action.reverse()
                while action:
                    yield action.pop()
            elif kind is Emit:
                yield _handed(action)
            elif kind is Start:
                host.start(action)
            elif kind is Abort:
                host.drop(action.request_id)
            else:
                action = steps.send(await host.wait(action.at))
                continue
            action = next(steps)
    except StopIteration:
        return
    finally:
        host.close()
        steps.close()  # cancels an unfinished call in the machine, frees the call


def settings(timeout: float | None, traceparent: str | None, idempotency_key: str | None,
             message_id: str | None, headers: Headers,
             idle_timeout: float | None = None,
             return_immediately: bool = False) -> Settings | None:
    """A call's settings (None when it has none): `timeout` is the caller's budget in
    seconds, `idle_timeout` a stream's idle timeout in seconds, `return_immediately` asks a
    send to answer with the task as it stands."""
    if not (timeout or traceparent or idempotency_key or message_id or headers or idle_timeout
            or return_immediately):
        return None  # the usual call
    pairs = list(headers.items() if isinstance(headers, Mapping) else headers or ())
    return Settings(budget_ms=ms(timeout, 'timeout'), traceparent=traceparent,
                    idempotency_key=idempotency_key, message_id=message_id, headers=pairs,
                    stream_idle_timeout_ms=ms(idle_timeout, 'idle_timeout'),
                    return_immediately=return_immediately)


def part_params(p: Part | str) -> dict[str, Any]:
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


def message_params(text: str | None, parts: Sequence[Part | str] | None,
                   metadata: Mapping[str, Any] | None, message_id: str | None,
                   context_id: str | None, task_id: str | None,
                   history_length: int | None = None) -> bytes:
    """The `SendMessage` params of a user message: `text` then `parts`."""
    all_parts = ([text] if text is not None else []) + list(parts or ())
    if not all_parts:
        raise ValueError('nothing to send: give text or parts')
    message: dict[str, Any] = {'role': 'ROLE_USER', 'messageId': message_id or str(uuid.uuid4()),
                               'parts': [part_params(p) for p in all_parts]}
    if context_id is not None:
        message['contextId'] = context_id
    if task_id is not None:
        message['taskId'] = task_id
    if metadata is not None:
        message['metadata'] = dict(metadata)
    params: dict[str, Any] = {'message': message}
    if history_length is not None:
        params['configuration'] = {'historyLength': history_length}
    return json.dumps(params).encode('utf-8')


def message_body(text: str | None, parts: Sequence[Part | str] | None,
                 metadata: Mapping[str, Any] | None, message_id: str | None,
                 context_id: str | None, task_id: str | None,
                 history_length: int | None = None) -> bytes | None:
    """What a user message's call is made from: None for plain text (the machine's text
    builder takes `text`), else the message params."""
    if text is not None and parts is None and metadata is None and context_id is None \
            and task_id is None and history_length is None:
        return None
    return message_params(text, parts, metadata, message_id, context_id, task_id,
                          history_length)


def message_call(state: State, streaming: bool, text: str | None,
                 parts: Sequence[Part | str] | None, metadata: Mapping[str, Any] | None,
                 message_id: str | None, context_id: str | None, task_id: str | None,
                 call_settings: Settings | None, history_length: int | None = None) -> Call:
    """A send or streaming send of a user message: the text builder for plain text, else
    the message params."""
    body = message_body(text, parts, metadata, message_id, context_id, task_id, history_length)
    if body is None:
        assert text is not None
        return Call.new_text(state, streaming, text, call_settings, now_ms())
    return Call.new(state, STREAM if streaming else SEND, body, call_settings, now_ms())


def method_call(state: State, method: int, params: Mapping[str, Any] | None,
                call_settings: Settings | None) -> Call:
    """A call of any method with its params (JSON)."""
    body = json.dumps(params).encode('utf-8') if params is not None else None
    return Call.new(state, method, body, call_settings, now_ms())


def list_params(context_id: str | None, status: str | None, page_size: int | None,
                history_length: int | None) -> dict[str, Any]:
    """`ListTasks` params (without the page token)."""
    params: dict[str, Any] = {}
    for key, value in (('contextId', context_id), ('status', status),
                       ('pageSize', page_size), ('historyLength', history_length)):
        if value is not None:
            params[key] = value
    return params


def push_config_params(task_id: str, url: str, config_id: str | None,
                       token: str | None) -> dict[str, Any]:
    """`CreateTaskPushNotificationConfig` params."""
    config: dict[str, Any] = {'url': url}
    if config_id is not None:
        config['id'] = config_id
    if token is not None:
        config['token'] = token
    return {'taskId': task_id, 'pushNotificationConfig': config}


def push_config_ref(task_id: str, config_id: str | None = None) -> dict[str, Any]:
    """The params naming a task's push-notification configs (`ListTask...`), or one of
    them (`Get...` / `Delete...`: `config_id`)."""
    params: dict[str, Any] = {'taskId': task_id}
    if config_id is not None:
        params['id'] = config_id
    return params


class TaskPages:
    """The plan of a `list_tasks` iteration, shared by both clients: the params of each
    page's `ListTasks` call (`params()`), and each finished call read into its page
    (`read`); `done` after the page without a next token or a page whose call failed."""

    __slots__ = ('_params', '_token', 'done')

    def __init__(self, context_id: str | None, status: str | None, page_size: int | None,
                 page_token: str | None, history_length: int | None) -> None:
        self._params = list_params(context_id, status, page_size, history_length)
        self._token = page_token
        self.done = False

    def params(self) -> dict[str, Any]:
        """The next page's `ListTasks` params."""
        params = dict(self._params)
        if self._token:
            params['pageToken'] = self._token
        return params

    def read(self, r: CallResult) -> TaskPage:
        """The finished page call `r` as its page (the plan moves to the next one)."""
        page = page_of(r)
        self._token = page.next_page_token
        self.done = r.result is None or not self._token
        return page


# --- header hooks on a state -----------------------------------------------------------------


def hook_trampoline(hook: HeaderHook, errors: HookErrors, refused_raises: bool = False) -> Any:
    """`hook` as an `a2a_header_hook` for `a2a_client_state_add_header_hook`: it sets the
    headers the hook returns; an exception is left in `errors` (it must not unwind into
    C). A header the library refuses (reserved: `Content-Length`, `Host`,
    `A2A-Version`, ...) makes the machine finish the call unsent as a transport
    `InvalidRequest` outcome; with `refused_raises` (the reference driver's `Client`) the
    library's `RequestError` is also left in `errors`. Keep the returned object alive as
    long as the state (the library keeps its pointer)."""

    def trampoline(_userdata: int | None, method: int | None, method_len: int,
                   setter: int | None) -> None:
        try:
            name = ctypes.string_at(method, method_len).decode('utf-8') if method else ''
            headers = hook(name)
            pairs = headers.items() if isinstance(headers, Mapping) else headers or ()
            for k, v in pairs:
                kb, vb = k.encode('utf-8'), v.encode('utf-8')
                rc = _lib.lib.a2a_header_setter_set(setter, kb, len(kb), vb, len(vb))
                if rc:  # refused: the machine ends the call (InvalidRequest, unsent)
                    if refused_raises:
                        raise error_for(rc, f'header {k!r} refused by the library')
                    return
        except BaseException as e:  # noqa: BLE001 - must not unwind into C
            if errors.error is None:
                errors.error = e

    return _lib.HeaderHook(trampoline)


# --- what a finished call is read into -------------------------------------------------------


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
    #: The signature that verified, when the card was fetched with `verify=` (None when
    #: it was not asked to be verified).
    signature: VerifiedSignature | None = None


def card_finished(ev: Any, call: Call) -> tuple[FetchedCard | None, Outcome | None]:
    """A card fetch's FINISHED event: the card, or the outcome saying why not."""
    if ev.outcome:
        return None, Outcome._from_ptr(ev.outcome, owned=False)
    text = _lib.view_str(ev.card_json) or ''
    return FetchedCard(
        card=AgentCard(text), card_url=_lib.view_str(ev.card_url) or '', card_json=text,
        interface_url=_lib.view_str(ev.interface_url) or '',
        version=_word(ProtocolVersion, ev.interface_version),
        binding=_word(Binding, ev.interface_binding)), None


class CardFinished:
    """A card fetch's FINISHED event: the card (or the outcome), and the machine's state
    for the card's interface when `seed` is given."""

    def __init__(self, config: Any, seed: int | None) -> None:
        self.config = config
        self.seed = seed
        self.state: State | None = None

    def __call__(self, ev: Any, call: Call) -> tuple[FetchedCard | None, Outcome | None]:
        card, outcome = card_finished(ev, call)
        if card is not None and self.seed is not None:
            self.state = State.from_card(self.config, call, self.seed)
        return card, outcome


def card_error(source: str, outcome: Outcome | None) -> CardResolutionError:
    """The exception for a card that could not be resolved, carrying the outcome."""
    what = (outcome.message or outcome.reason) if outcome is not None else None
    e = error_for(_CARD_RESOLUTION, f'{source}: {what}')
    assert isinstance(e, CardResolutionError)
    e.outcome = outcome
    return e


def item_of(ev: Any) -> StreamItem:
    """An ITEM event as the clients' `StreamItem` (its outcome a copy)."""
    return StreamItem._from_c(ev.item, ev.outcome)


def log_call(ev: Any, outcome: Outcome) -> None:
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


def page_of(r: CallResult) -> TaskPage:
    """A `ListTasks` call's result as a page."""
    doc = r.result if isinstance(r.result, dict) else {}
    return TaskPage(tuple(doc.get('tasks') or []), doc.get('nextPageToken') or None, r.outcome)


def result_of_body(body: bytes | None, ok: bool) -> Any:
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


class _CallOutcome(HandleHolder):
    """The library handle of a finished call's outcome, borrowed from the call: keeping the
    (finished, never again changed) call alive keeps the outcome valid, so it can be passed
    back to the library (`model_text`, `counts_toward_breaker`, `Tally.record`). The call is
    freed when the Outcome is collected."""

    __slots__ = ('ptr', 'call')

    def __init__(self, ptr: int, call: Call) -> None:
        self.ptr = ptr
        self.call = call
        call.kept = True


def finished_outcome(ev: Any, call: Call) -> Outcome:
    """A FINISHED event's outcome, keeping the call (and so the handle) alive; logged."""
    outcome = Outcome._from_ptr(ev.outcome, owned=False)
    object.__setattr__(outcome, '_owned', _CallOutcome(ev.outcome, call))
    log_call(ev, outcome)
    return outcome


def raw_finished(ev: Any, call: Call) -> CallResult:
    """A FINISHED event as a `CallResult` (the outcome and the JSON result)."""
    outcome = finished_outcome(ev, call)
    body = view(ev.response_body) if ev.has_response else None
    ok = ev.has_response and not outcome.failed
    return CallResult(outcome, int(ev.response_status) if ev.has_response else None,
                      result_of_body(body, ok))


def extended_card_finished(from_card: bool) -> Callable[[Any, Call], CallResult]:
    """A `GetExtendedAgentCard` call's FINISHED event as a `CallResult`; when the call
    succeeded with a card and the client's state was made from a card (`from_card`: not
    `with_target`), the extended card replaces the public one on the call's state (A2A
    §8.6.2), or its `CardError` is raised (the public card then stays)."""

    def adopt(ev: Any, call: Call) -> CallResult:
        r = raw_finished(ev, call)
        if from_card and not r.outcome.failed and r.result is not None:
            assert call.state is not None
            call.state.adopt_extended_card(call)
        return r

    return adopt


def stream_finished(ev: Any, call: Call) -> ClientStreamEnd:
    """A stream's FINISHED event as its `ClientStreamEnd`."""
    outcome = finished_outcome(ev, call)
    kind = _word(StreamEndKind, ev.end_kind) if ev.has_end_kind else None
    return ClientStreamEnd(kind, outcome, int(ev.resubscribes), int(ev.dropped_events),
                           int(ev.unreadable_events))


# --- what both machine-backed clients share ----------------------------------------------------


class MachineClientBase:
    """The parts of `AsyncClient` and of the blocking `Client` over httpx that do no I/O:
    the machine's config, the state (made on open), the header hooks and the call
    settings."""

    #: Whether a header the library refuses is raised (`RequestError`) after the call.
    refused_header_raises = False

    def __init__(self, url: str, config: Any, header_hooks: Sequence[HeaderHook],
                 target: tuple[ProtocolVersion, Binding] | None) -> None:
        self.url = url
        self._config = config
        self._target = target
        self._state: State | None = None
        self._hooks: list[HeaderHook] = []
        self._hook_errors = HookErrors()
        #: The card fetched on open (None for `with_target`).
        self.card: FetchedCard | None = None
        for hook in header_hooks:
            self.add_header_hook(hook)

    def _begin_blocking(self, defer: bool) -> None:
        """For the blocking clients: the guard of their calls and the lock of their opening,
        then the state made now (the card fetched: BLOCKS) unless `defer`. `_open` is the
        subclass's."""
        self._calls = Calls('client')
        self._opening = threading.Lock()
        if not defer:
            self._calls.enter()
            try:
                self._open()  # type: ignore[attr-defined]
            finally:
                self._calls.leave()

    def add_header_hook(self, hook: HeaderHook) -> None:
        """Adds a hook called for every A2A request (never the card fetch), in registration
        order, with the A2A method name; it returns the headers to set (credentials,
        `traceparent`, routing keys): a mapping, pairs, or None. It runs on the thread (or
        event loop) driving the call. If the hook raises, the request is not sent: the call
        is cancelled and the exception raised by the call. A reserved header
        (`Content-Length`, `Host`, `A2A-Version`, ...: the client's own) ends the call
        unsent with a transport `InvalidRequest` outcome. A hook added after calls started
        applies to the requests handed out from then on."""
        if not callable(hook):
            raise TypeError(f'a header hook must be callable, not {hook!r}')
        if self._state is not None:
            self._state.add_header_hook(self._trampoline(hook))
        self._hooks.append(hook)

    def _trampoline(self, hook: HeaderHook) -> Any:
        return hook_trampoline(hook, self._hook_errors, self.refused_header_raises)

    def _with_hooks(self, state: State) -> State:
        """`state` with this client's hooks registered (a state made on open)."""
        for hook in self._hooks:
            state.add_header_hook(self._trampoline(hook))
        return state

    def _target_state(self) -> State | None:
        """The state of a known target (`with_target`), or None when a card is needed."""
        if self._target is None:
            return None
        from .vocab import _num

        v, b = self._target
        return self._with_hooks(State.for_target(self._config, self.url,
                                                 _num(ProtocolVersion)[v], _num(Binding)[b],
                                                 seed()))


class BlockingCalls:
    """The blocking `Client`'s calls whose result is not a task or message (list tasks,
    push configs, the extended card), the same on both of its delegates (the reference
    driver's `_native.NativeClient`, `_httpx_client.HttpxClient`): built and read with
    the same pieces as `AsyncClient`'s; each delegate runs the call (`raw`, BLOCKS)."""

    def raw(self, method: int, params: Mapping[str, Any] | None, timeout: float | None,
            traceparent: str | None, headers: Headers,
            finished: Callable[[Any, Call], Any]) -> Any:
        """Runs one non-streaming call of `method` with `params` to its end (BLOCKS) and
        returns what `finished` read from its FINISHED event."""
        raise NotImplementedError

    def list_tasks(self, context_id: str | None, status: str | None, page_size: int | None,
                   page_token: str | None, history_length: int | None,
                   timeout: float | None, traceparent: str | None,
                   headers: Headers) -> Iterator[TaskPage]:
        """`Client.list_tasks`: one `ListTasks` call per page, made when the page is
        asked for."""
        plan = TaskPages(context_id, status, page_size, page_token, history_length)
        while not plan.done:
            yield plan.read(self.raw(LIST_TASKS, plan.params(), timeout, traceparent,
                                     headers, raw_finished))

    def set_push_config(self, task_id: str, url: str, config_id: str | None,
                        token: str | None, timeout: float | None,
                        headers: Headers) -> CallResult:
        """`Client.set_push_config` (BLOCKS)."""
        params = push_config_params(task_id, url, config_id, token)
        r: CallResult = self.raw(CREATE_PUSH, params, timeout, None, headers, raw_finished)
        return r

    def get_push_config(self, task_id: str, config_id: str, timeout: float | None,
                        headers: Headers) -> CallResult:
        """`Client.get_push_config` (BLOCKS)."""
        r: CallResult = self.raw(GET_PUSH, push_config_ref(task_id, config_id), timeout,
                                 None, headers, raw_finished)
        return r

    def list_push_configs(self, task_id: str, timeout: float | None,
                          headers: Headers) -> CallResult:
        """`Client.list_push_configs` (BLOCKS)."""
        r: CallResult = self.raw(LIST_PUSH, push_config_ref(task_id), timeout, None, headers,
                                 raw_finished)
        return r

    def delete_push_config(self, task_id: str, config_id: str, timeout: float | None,
                           headers: Headers) -> CallResult:
        """`Client.delete_push_config` (BLOCKS)."""
        r: CallResult = self.raw(DELETE_PUSH, push_config_ref(task_id, config_id), timeout,
                                 None, headers, raw_finished)
        return r

    def extended_card(self, timeout: float | None, headers: Headers) -> CallResult:
        """`Client.extended_card` (BLOCKS); a successful one replaces the public card."""
        from_card = getattr(self, '_target', None) is None
        r: CallResult = self.raw(EXTENDED_CARD, None, timeout, None, headers,
                                 extended_card_finished(from_card))
        return r


# --- waiting for a task ------------------------------------------------------------------------


def task_wait(task_id: str, poll_interval: float, max_interval: float, timeout: float,
              history_length: int | None) -> _machine.TaskWait:
    """The core's plan of waiting for `task_id`, starting now (durations in seconds)."""
    first = ms(poll_interval, 'poll_interval')
    longest = ms(max_interval, 'max_interval')
    assert first is not None and longest is not None
    if first > longest:
        raise ValueError(f'poll_interval ({poll_interval!r}) is above max_interval '
                         f'({max_interval!r})')
    return _machine.TaskWait(task_id, history_length, first, longest,
                             ms(timeout, 'timeout') or 0, now_ms())


def wait_step(plan: _machine.TaskWait, outcome: Outcome) -> tuple[Outcome | None, float]:
    """Reads a finished poll's `outcome` into the plan: (the wait's result, 0) when it is
    over (the poll's outcome, or the typed give-up outcome at the deadline), else (None,
    seconds to sleep before the next poll)."""
    step = plan.read(outcome._ptr(), now_ms())
    if step.kind == _machine.WAIT_POLL_AT:
        return None, max(0, int(step.poll_at_ms) - now_ms()) / 1000
    if step.kind == _machine.WAIT_GAVE_UP:
        return Outcome._from_ptr(step.outcome or 0, owned=True), 0
    return outcome, 0
