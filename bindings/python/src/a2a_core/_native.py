"""The blocking `Client` on the reference driver (its own HTTP stack, connection pool, TLS
and proxy rules): the core's client machine run by `a2a_call_run` on an
`a2a_transport_new` transport, one foreign call per step, as Go's `HTTPClient` with
`WithReferenceDriver()` does. The machine decides every request, deadline, retry,
resubscription and outcome, exactly as for `AsyncClient` and `Client(http_client=...)`;
what a call is built from and how its events are read are `_drive`'s, shared with them.

Threads: calls may run from several threads at once (the transport and the state are
thread-safe in the library; each call is its own machine). `close()` refuses new calls and
waits for the calls in flight (`_guard.Calls`), then lets go of the transport and the state:
a stream that is open keeps its call, the state and the transport alive (Python references:
nothing is freed under a run) until it ends.

Header hooks run inside `a2a_call_run`, on the calling thread. As before the move onto the
machine: a hook that raises leaves its request without its headers, and the exception is
raised when the call returns (a stream: when its next event is read); a header the library
refuses (reserved) ends the call unsent and `RequestError` is raised.
"""

from __future__ import annotations

import ctypes
import itertools
import json
import logging
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from . import _drive, _lib, _machine
from ._drive import CardFinished, HeaderHook, Headers, card_error, message_call, method_call
from ._guard import HandleHolder, Owned
from ._machine import Call, Config, State
from .answer import Part
from .client import Resubscribing
from .errors import check
from .outcome import Outcome
from .vocab import Binding, ProtocolVersion

log = logging.getLogger('a2a_core')

_ITEM = _machine.EVENT_ITEM
_FINISHED = _machine.EVENT_FINISHED
_RESUBSCRIBING = _machine.EVENT_RESUBSCRIBING
_RETRYING = _machine.EVENT_RETRYING
_monotonic_ns = time.monotonic_ns


class Transport(Owned):
    """Owns one `a2a_transport_new` transport: the connection pool, TLS roots, client
    certificate, proxy and name-resolution rules `a2a_call_run` performs requests with,
    made from the same machine config the client's state uses (its connect timeout, body
    limit, https rule and transport options)."""

    __slots__ = ('ptr',)
    _free = _lib.lib.a2a_transport_free

    def __init__(self, config: Config) -> None:
        self.ptr = 0
        out = ctypes.c_void_p()
        check(_lib.lib.a2a_transport_new(config.ptr, ctypes.byref(out)))
        self.ptr = out.value or 0


def run(transport: Transport, call: Call, on_finished: Callable[[Any, Call], Any],
        on_item: Callable[[Any], Any] | None = None) -> Iterator[Any]:
    """Steps `call` on `transport` to its end: a generator of the values to give the caller
    (stream items, `Resubscribing` notices, and last the FINISHED event's value made by
    `on_finished`). Each step is one `a2a_call_run` (the GIL released while it blocks),
    then the events it queued; in the compiled extension both are one call (`step_items`),
    which builds the stream items in C and hands out up to 16 queued ones at a time.
    Closing the generator early cancels the call (never reported as a success); the call is
    then freed unless an outcome keeps it. The transport's handle is read at each step: one
    freed under a call would be a clean error, never a use after free (it is not: this
    generator holds the transport)."""
    sp = _lib.SPEEDUPS
    finished = False
    ev = call.event
    clock = call._at  # the run's clock out (a c_uint64 the call owns)
    mono = time.monotonic_ns
    # The machine's clock (`_drive.now_ms`'s scale), never behind the last run's.
    now = mono() // 1_000_000
    try:
        if sp is not None:
            step_items = sp.step_items
            cptr = ctypes.addressof(ev)
            optr = ctypes.addressof(clock)
            items: list[Any] = []
            while True:
                r = step_items(call.ptr, transport.ptr, now, cptr, optr, items)
                now = max(clock.value, mono() // 1_000_000)
                if r == _ITEM or r == 0:  # items only (up to the batch's most), or none
                    if items:
                        if on_item is not None:
                            yield from items
                        items.clear()
                    continue
                # The event is read before the items are handed out: its views last only
                # until the call changes.
                value: Any = None
                if r == _FINISHED:
                    value = on_finished(ev, call)
                    finished = True
                elif r == _RESUBSCRIBING and on_item is not None:
                    value = Resubscribing(_lib.view_str(ev.task_id) or '', int(ev.attempt))
                elif r == _RETRYING:
                    log.debug('retrying (attempt %d) in %d ms', ev.attempt, ev.delay_ms)
                if items:
                    if on_item is not None:
                        yield from items
                    items.clear()
                if r < 0:
                    check(-r)
                if finished:
                    yield value
                    return
                if value is not None:
                    yield value
        lib = _lib.lib
        a2a_call_run = lib.a2a_call_run
        byref_clock = ctypes.byref(clock)
        while True:
            check(a2a_call_run(call.ptr, transport.ptr, None, now, byref_clock))
            now = max(clock.value, mono() // 1_000_000)
            while (e := call.poll_event()) is not None:
                kind = e.kind
                if kind == _ITEM and on_item is not None:
                    yield on_item(e)
                elif kind == _FINISHED:
                    value = on_finished(e, call)
                    finished = True
                    yield value
                    return
                elif kind == _RESUBSCRIBING and on_item is not None:
                    yield Resubscribing(_lib.view_str(e.task_id) or '', int(e.attempt))
                elif kind == _RETRYING:
                    log.debug('retrying (attempt %d) in %d ms', e.attempt, e.delay_ms)
    finally:
        try:
            if not finished and call.ptr:
                call.cancel(max(now, _drive.now_ms()))
                while call.poll_event() is not None:
                    pass
                log.debug('call cancelled by its caller (never reported as a success)')
        finally:
            if not call.kept:
                call.free()


class _FinishedCall(HandleHolder, Owned):
    """The finished call an Outcome of the compiled `unary` borrows its handle from (`ptr`,
    the outcome: passed back to the library by `model_text`, `Tally.record`, ...): the call
    is freed when the Outcome is collected."""

    __slots__ = ('ptr', 'call')
    _slot = 'call'
    _free = _lib.lib.a2a_call_free

    def __init__(self, ptr: int, call: int) -> None:
        self.ptr = ptr
        self.call = call

    def __del__(self) -> None:  # Owned's, in one frame (one per send)
        h = self.call
        self.call = 0
        if h:
            self._free(h)


if _lib.SPEEDUPS is not None:  # only `unary` makes these: freed by the extension's own call
    _FinishedCall._free = _lib.SPEEDUPS.a2a_call_free  # type: ignore[attr-defined]


class _Events(itertools.chain):  # type: ignore[type-arg]
    """A stream without header hooks: its first value, then the rest of `run`'s generator,
    handed out by itertools.chain's C iteration (callgrind: a generator around `run`'s
    cost about 200 instructions per event). `close()` closes the stream as the generator
    did; dropped unfinished, the generator inside it is, and closes it then."""

    __slots__ = ('_rest',)

    def __new__(cls, first: Any, rest: Iterator[Any]) -> _Events:
        self = super().__new__(cls, (first,), rest)
        self._rest = rest
        return self

    def close(self) -> None:
        """Closes the stream (its call is cancelled unless it has finished)."""
        self._rest.close()  # type: ignore[attr-defined]


class NativeClient(_drive.BlockingCalls, _drive.MachineClientBase):
    """What `Client` delegates to on the reference driver."""

    #: A reserved header a hook sets is raised (RequestError) after the call, as the
    #: reference driver's typed client did.
    refused_header_raises = True

    def __init__(self, url: str, transport: Transport, config: Config,
                 header_hooks: Sequence[HeaderHook],
                 target: tuple[ProtocolVersion, Binding] | None, defer: bool) -> None:
        super().__init__(url, config, header_hooks, target)
        self._transport: Transport | None = transport
        self._begin_blocking(defer)

    def _open(self) -> tuple[State, Transport]:
        """The state, made on first use (the card fetched and validated: BLOCKS), and the
        transport. Called inside `_calls`."""
        transport = self._transport
        assert transport is not None  # inside _calls: close has not let go of it
        state = self._state
        if state is not None:  # the usual call: made already
            return state, transport
        with self._opening:
            state = self._state
            if state is None:
                state = self._target_state()
                if state is None:
                    done = CardFinished(self._config, _drive.seed())
                    card, outcome = list(run(transport, Call.card_fetch(self._config, self.url),
                                             done))[-1]
                    if card is None:
                        raise card_error(self.url, outcome)
                    assert done.state is not None
                    state = self._with_hooks(done.state)
                self._state = state
            return state, transport

    def _raise_hook_error(self) -> None:
        errors = self._hook_errors
        e = errors.error
        if e is not None:
            errors.error = None
            raise e

    def _unary(self, make: Callable[[State], Call],
               finished: Callable[[Any, Call], Any] = _drive.finished_outcome) -> Any:
        errors = self._hook_errors
        self._calls.enter()
        try:
            state, transport = self._open()
            call = make(state)
            errors.error = None
            result: Any = None
            for result in run(transport, call, finished):
                pass
        finally:
            self._calls.leave()
        self._raise_hook_error()
        return result

    def _unary_fast(self, sp: Any, method: int, text: str | None, body: bytes | None,
                    call_settings: _machine.Settings | None) -> Outcome:
        """`_unary` in one call of the compiled extension (`unary`): made, run and read in
        C. Debug logging (per call and per retry) takes the generic path instead."""
        errors = self._hook_errors
        calls = self._calls
        calls.enter()
        try:
            state, transport = self._state, self._transport
            if state is None:
                state, transport = self._open()
            errors.error = None
            r = sp.unary(state.ptr, method, text, body,
                         call_settings.ptr if call_settings is not None else None,
                         transport.ptr, _monotonic_ns() // 1_000_000, _FinishedCall)
        finally:
            calls.leave()
        if errors.error is not None:
            self._raise_hook_error()
        if r.__class__ is int:
            check(-r)
        return r  # type: ignore[no-any-return]

    def close(self) -> None:
        """Refuses new calls, waits for the calls in flight, then lets go of the state and
        the transport (an open stream keeps them until it ends)."""
        if self._calls.close():
            self._state = None
            self._transport = None

    @property
    def closing(self) -> bool:
        """Whether `close()` has started (new calls are refused)."""
        return self._calls.closing

    def send(self, text: str | None, parts: Sequence[Part | str] | None,
             metadata: Mapping[str, Any] | None, timeout: float | None,
             traceparent: str | None, idempotency_key: str | None, message_id: str | None,
             context_id: str | None, task_id: str | None, headers: Headers,
             history_length: int | None, return_immediately: bool = False) -> Outcome:
        """`Client.send` (BLOCKS)."""
        sp = _lib.SPEEDUPS
        if sp is not None and not log.isEnabledFor(logging.DEBUG):
            # The usual send (plain text, no option) builds neither a body nor settings here.
            body = None
            if parts is not None or metadata is not None or context_id is not None \
                    or task_id is not None or history_length is not None or text is None:
                body = _drive.message_body(text, parts, metadata, message_id, context_id,
                                           task_id, history_length)
            call_settings = None
            if timeout or traceparent or idempotency_key or message_id or headers \
                    or return_immediately:
                call_settings = _drive.settings(timeout, traceparent, idempotency_key,
                                                message_id, headers,
                                                return_immediately=return_immediately)
            return self._unary_fast(sp, _drive.SEND, text if body is None else None, body,
                                    call_settings)
        return self._unary(lambda state: message_call(  # type: ignore[no-any-return]
            state, False, text, parts, metadata, message_id, context_id, task_id,
            _drive.settings(timeout, traceparent, idempotency_key, message_id, headers,
                            return_immediately=return_immediately),
            history_length))

    def method(self, method: int, params: Mapping[str, Any] | None, timeout: float | None,
               traceparent: str | None, headers: Headers) -> Outcome:
        """A non-streaming call of `method` with `params` (`get`, `cancel`; BLOCKS)."""
        sp = _lib.SPEEDUPS
        if sp is not None and not log.isEnabledFor(logging.DEBUG):
            return self._unary_fast(
                sp, method, None, json.dumps(params).encode('utf-8') if params is not None
                else None, _drive.settings(timeout, traceparent, None, None, headers))
        return self._unary(lambda state: method_call(  # type: ignore[no-any-return]
            state, method, params, _drive.settings(timeout, traceparent, None, None, headers)))

    def raw(self, method: int, params: Mapping[str, Any] | None, timeout: float | None,
            traceparent: str | None, headers: Headers,
            finished: Callable[[Any, Call], Any]) -> Any:
        """A non-streaming call read by `finished` (list tasks, push configs, the extended
        card; BLOCKS): the generic path, `finished` reads the response body."""
        return self._unary(lambda state: method_call(
            state, method, params, _drive.settings(timeout, traceparent, None, None, headers)),
            finished)

    def wait(self, task_id: str, poll_interval: float, max_interval: float, timeout: float,
             history_length: int | None, traceparent: str | None,
             headers: Headers) -> Outcome:
        """`Client.wait` (BLOCKS, sleeping between polls): the core's plan, each poll a
        `GetTask` bounded by the wait's deadline."""
        plan = _drive.task_wait(task_id, poll_interval, max_interval, timeout, history_length)
        while True:
            outcome: Outcome = self._unary(lambda state: plan.poll(
                state, _drive.settings(None, traceparent, None, None, headers),
                _drive.now_ms()))
            result, delay = _drive.wait_step(plan, outcome)
            if result is not None:
                return result
            time.sleep(delay)

    def stream(self, make: Callable[[State], Call]) -> Iterator[Any]:
        """A stream: the request goes out now and runs to its first event (opening is
        eager: a header hook's exception is raised here)."""
        errors = self._hook_errors
        self._calls.enter()
        try:
            state, transport = self._open()
            events = run(transport, make(state), _drive.stream_finished, _drive.item_of)
            errors.error = None
            first = next(events)
        finally:
            self._calls.leave()
        if errors.error is not None:
            events.close()  # type: ignore[attr-defined]
            self._raise_hook_error()
        return self._events(first, events)

    def _events(self, first: Any, rest: Iterator[Any]) -> Iterator[Any]:
        if not self._hooks:  # the usual stream: nothing to check per event
            return _Events(first, rest)
        return self._hooked_events(first, rest)

    def _hooked_events(self, first: Any, rest: Iterator[Any]) -> Iterator[Any]:
        errors = self._hook_errors
        try:
            yield first
            while True:
                errors.error = None  # a hook runs for a resubscribe's request
                try:
                    value = next(rest)
                except StopIteration:
                    return
                self._raise_hook_error()
                yield value
        finally:
            rest.close()  # type: ignore[attr-defined]

    def message_stream(self, text: str | None, parts: Sequence[Part | str] | None,
                       metadata: Mapping[str, Any] | None, idle_timeout: float | None,
                       traceparent: str | None, idempotency_key: str | None,
                       message_id: str | None, context_id: str | None, task_id: str | None,
                       headers: Headers, history_length: int | None) -> Iterator[Any]:
        """`Client.stream`."""
        return self.stream(lambda state: message_call(
            state, True, text, parts, metadata, message_id, context_id, task_id,
            _drive.settings(None, traceparent, idempotency_key, message_id, headers,
                            idle_timeout), history_length))

    def resubscribe(self, task_id: str, idle_timeout: float | None, traceparent: str | None,
                    headers: Headers) -> Iterator[Any]:
        """`Client.resubscribe`."""
        return self.stream(lambda state: method_call(
            state, _drive.SUBSCRIBE, {'id': task_id},
            _drive.settings(None, traceparent, None, None, headers, idle_timeout)))
