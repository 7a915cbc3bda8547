"""The blocking `Client` over the caller's `httpx.Client` (`Client(url, http_client=...)`):
the core's client machine driven by `_httpx_io.run_sync`, the same driver `AsyncClient`
steps on its event loop, so both give the same outcomes as the reference driver.

Thread-safe like the reference-driver `Client`: calls may run from several threads at once
(httpx.Client pools and locks its connections; each call is its own machine on the shared
state). `close()` refuses new calls and waits for the calls in flight (`_guard.Calls`)
before it lets go of the state; a stream that is open keeps its call, and with it the
state and the header hooks, alive until it ends.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

import httpx

from . import _drive
from ._drive import HeaderHook, Headers, message_call, method_call
from ._httpx_io import resolve, run_sync
from ._trust_io import bearer, status_of, verify_fetched, with_bearer
from ._machine import Call, Config, State
from .answer import Part
from .client import ClientStreamEnd
from .trust import ClientCredentials, OAuth2Token
from .outcome import Outcome
from .vocab import Binding, ProtocolVersion


class HttpxClient(_drive.BlockingCalls, _drive.MachineClientBase):
    """What `Client` delegates to when given an `httpx.Client`."""

    def __init__(self, url: str, http: httpx.Client, config: Config,
                 header_hooks: Sequence[HeaderHook],
                 target: tuple[ProtocolVersion, Binding] | None, defer: bool,
                 oauth2: Any = None, verify_card: Any = None, key_hosts: Sequence[str] = (),
                 timeout: float = 45.0) -> None:
        if not isinstance(http, httpx.Client):
            raise TypeError(f'http_client must be an httpx.Client, not {type(http).__name__}'
                            ' (an httpx.AsyncClient goes to a2a_core.AsyncClient)')
        if oauth2 is not None and not isinstance(oauth2, ClientCredentials):
            raise TypeError(f'oauth2 must be ClientCredentials, not {type(oauth2).__name__}')
        super().__init__(url, config, header_hooks, target)
        self._http = http
        self._oauth2 = oauth2
        self._token: OAuth2Token | None = None
        self._timeout = timeout
        self._verify = verify_card
        self._key_hosts = tuple(key_hosts)
        self._begin_blocking(defer)

    def _open(self) -> State:
        """The state, made on first use: the card fetched and validated (BLOCKS), or the
        known target's. Called inside `_calls`."""
        with self._opening:
            state = self._state
            if state is None:
                state = self._target_state()
                if state is None:
                    card, state = resolve(self._http, self._config, self.url, _drive.seed())
                    if self._verify is not None and self._verify is not False:
                        card = dataclasses.replace(card, signature=verify_fetched(
                            card, self._verify, self._key_hosts, self._http, self._timeout))
                    self.card = card
                    assert state is not None
                    state = self._with_hooks(state)
                if self._oauth2 is not None and self._token is None:
                    self._token = self._oauth2._handle(self.card.card if self.card else None)
                self._state = state
            return state

    def _bearer_headers(self, headers: Headers) -> Headers:
        """`headers` with the OAuth2 token (fetched or refreshed now when due; BLOCKS)."""
        if self._token is None:
            return headers
        return with_bearer(headers, bearer(self._token, self._http, self._timeout))

    def _authed(self, make: Callable[[State, Headers], Call], headers: Headers,
                finished: Callable[[Any, Call], Any] = _drive.finished_outcome) -> Any:
        """A unary call with the OAuth2 token when configured; on a 401 the token is
        forgotten and the call made once more with a new one."""
        result = self._unary(lambda state: make(state, self._bearer_headers(headers)),
                             finished)
        if self._token is not None and status_of(result) == 401:
            self._token.invalidate()
            result = self._unary(lambda state: make(state, self._bearer_headers(headers)),
                                 finished)
        return result

    def close(self) -> None:
        """Refuses new calls, waits for the calls in flight, then lets go of the state
        (never the caller's httpx client)."""
        if self._calls.close():
            self._state = None

    @property
    def closing(self) -> bool:
        """Whether `close()` has started (new calls are refused)."""
        return self._calls.closing

    def _unary(self, make: Callable[[State], Call],
               finished: Callable[[Any, Call], Any] = _drive.finished_outcome) -> Any:
        self._calls.enter()
        try:
            call = make(self._open())
            result: Any = None
            for result in run_sync(self._http, call, False, finished, None, self._hook_errors):
                pass
            assert result is not None
            return result
        finally:
            self._calls.leave()

    def send(self, text: str | None, parts: Sequence[Part | str] | None,
             metadata: Mapping[str, Any] | None, timeout: float | None,
             traceparent: str | None, idempotency_key: str | None, message_id: str | None,
             context_id: str | None, task_id: str | None, headers: Headers,
             history_length: int | None, return_immediately: bool = False) -> Outcome:
        """`Client.send` (BLOCKS)."""
        return self._authed(lambda state, h: message_call(  # type: ignore[no-any-return]
            state, False, text, parts, metadata, message_id, context_id, task_id,
            _drive.settings(timeout, traceparent, idempotency_key, message_id, h,
                            return_immediately=return_immediately),
            history_length), headers)

    def method(self, method: int, params: Mapping[str, Any] | None, timeout: float | None,
               traceparent: str | None, headers: Headers) -> Outcome:
        """A non-streaming call of `method` with `params` (`get`, `cancel`; BLOCKS)."""
        return self._authed(lambda state, h: method_call(  # type: ignore[no-any-return]
            state, method, params, _drive.settings(timeout, traceparent, None, None, h)),
            headers)

    def raw(self, method: int, params: Mapping[str, Any] | None, timeout: float | None,
            traceparent: str | None, headers: Headers,
            finished: Callable[[Any, Call], Any]) -> Any:
        """A non-streaming call read by `finished` (list tasks, push configs, the extended
        card; BLOCKS), with the OAuth2 token as every call."""
        return self._authed(lambda state, h: method_call(
            state, method, params, _drive.settings(timeout, traceparent, None, None, h)),
            headers, finished)

    def wait(self, task_id: str, poll_interval: float, max_interval: float, timeout: float,
             history_length: int | None, traceparent: str | None,
             headers: Headers) -> Outcome:
        """`Client.wait` (BLOCKS, sleeping between polls)."""
        plan = _drive.task_wait(task_id, poll_interval, max_interval, timeout, history_length)
        renewed = False
        while True:
            outcome: Outcome = self._unary(lambda state: plan.poll(
                state, _drive.settings(None, traceparent, None, None,
                                       self._bearer_headers(headers)), _drive.now_ms()))
            if self._token is not None and not renewed and status_of(outcome) == 401:
                self._token.invalidate()  # once: a new token, the same poll again
                renewed = True
                continue
            renewed = False  # a later poll may renew again (a token expiring mid-wait)
            result, delay = _drive.wait_step(plan, outcome)
            if result is not None:
                return result
            time.sleep(delay)

    def stream(self, make: Callable[[State, Headers], Call], headers: Headers) -> Iterator[Any]:
        """A stream: the request goes out now and the first event is read now (opening is
        eager, as with the reference driver: a header hook's exception is raised here).
        With OAuth2, a stream refused with 401 before any event is opened once more with a
        new token."""
        for attempt in (0, 1):
            self._calls.enter()
            try:
                state = self._open()
                call = make(state, self._bearer_headers(headers))
            finally:
                self._calls.leave()
            events = run_sync(self._http, call, True, _drive.stream_finished, _drive.item_of,
                              self._hook_errors)
            first = next(events)
            if (attempt == 0 and self._token is not None and isinstance(first, ClientStreamEnd)
                    and status_of(first) == 401):
                events.close()  # type: ignore[attr-defined]
                self._token.invalidate()
                continue
            break
        return _prepend(first, events)

    def message_stream(self, text: str | None, parts: Sequence[Part | str] | None,
                       metadata: Mapping[str, Any] | None, idle_timeout: float | None,
                       traceparent: str | None, idempotency_key: str | None,
                       message_id: str | None, context_id: str | None, task_id: str | None,
                       headers: Headers, history_length: int | None) -> Iterator[Any]:
        """`Client.stream`."""
        return self.stream(lambda state, h: message_call(
            state, True, text, parts, metadata, message_id, context_id, task_id,
            _drive.settings(None, traceparent, idempotency_key, message_id, h, idle_timeout),
            history_length), headers)

    def resubscribe(self, task_id: str, idle_timeout: float | None, traceparent: str | None,
                    headers: Headers) -> Iterator[Any]:
        """`Client.resubscribe`."""
        return self.stream(lambda state, h: method_call(
            state, _drive.SUBSCRIBE, {'id': task_id},
            _drive.settings(None, traceparent, None, None, h, idle_timeout)), headers)


def _prepend(first: Any, rest: Iterator[Any]) -> Iterator[Any]:
    try:
        yield first
        yield from rest
    finally:
        close = getattr(rest, 'close', None)
        if close is not None:
            close()
