"""`AsyncClient`: an asyncio A2A client on the core's client state machine, with HTTP/1.1
of the binding's own on asyncio (`_asyncio_http`), or through your `httpx.AsyncClient`.

The machine (`_machine`, the C ABI's `a2a_call`) decides everything A2A: the card and the
interface, the request of every attempt, the deadlines (call, stream idle, total), retries
and resubscribes, the outcome and the answer. The driver (`_drive.drive`, shared with the
blocking `Client` over httpx) steps the machine; the host (`_asyncio_http.run_native` on
the client's connection pool, or `_httpx_io.run_async` on an httpx client) performs its
requests, hands each response in as it arrives, and sleeps until the next
response input or the machine's next deadline (`poll_timeout`). Every native call is
short and does no I/O, so they run on the event loop; there is no thread per call, and one
client serves any number of concurrent calls on its loop.

Cancelling the task awaiting a call (or leaving a stream's `async for` early) cancels the
machine's call and closes its HTTP response at once; a cancelled call raises
`asyncio.CancelledError` and is never reported as a success.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from typing import Any, Union

from . import _drive
from ._drive import (
    CallResult,
    FetchedCard,
    HeaderHook,
    Headers,
    TaskPage,
    item_of,
    message_call,
    method_call,
    raw_finished,
    stream_finished,
)
from ._drive import ms as _ms
from ._drive import seed as _seed
from ._guard import closed as _closed_error
from ._machine import Call, Config, State
from .answer import Part
from .client import ClientStreamEnd, StreamEvent
from .outcome import Outcome
from .resilience import BreakerConfig
from .trust import ClientCredentials, Keys, OAuth2Token
from .vocab import Binding, ProtocolVersion, parse_binding, parse_protocol_version

try:  # httpx is the `async` extra's dependency: imported here, not by `import a2a_core`
    import httpx

    from ._asyncio_http import NativePool, proxied, run_native
    from ._httpx_io import (
        aresolve,
        default_async_client,
        default_sync_client,
        resolve,
        run_async,
    )
    from ._trust_io import abearer, averify_fetched, status_of, verify_fetched, with_bearer
except ImportError as _e:  # pragma: no cover - exercised only without the extra
    raise ImportError('a2a_core.AsyncClient needs httpx: pip install "a2a-core-native[async]"'
                      ) from _e

__all__ = ['AsyncClient', 'CallResult', 'FetchedCard', 'TaskPage', 'afetch_card', 'fetch_card']

#: The httpx client `AsyncClient` makes when none is given (kept under its old name).
default_http_client = default_async_client


def _card_config(timeout: float, connect_timeout: float, allow_http: bool,
                 prefer: str, card_cache: bool = True,
                 min_protocol: str | ProtocolVersion | None = None) -> Config:
    return Config(card_timeout_ms=_ms(timeout, 'timeout'),
                  connect_timeout_ms=_ms(connect_timeout, 'connect_timeout'),
                  allow_http=allow_http, prefer_card_order=_drive.prefer_card_order(prefer),
                  card_cache=card_cache, min_protocol=_drive.min_protocol_code(min_protocol))


#: What `verify=` takes: the trusted keys (a JWKS, a JWK, PEM public keys, or a sequence of
#: them), True to fetch the key set the card's `jku` names, or None not to verify.
Verify = Union[Keys, bool, None]


def _verified(card: FetchedCard, signature: Any) -> FetchedCard:
    return dataclasses.replace(card, signature=signature)


async def afetch_card(url: str, *, http_client: httpx.AsyncClient | None = None,
                      allow_http: bool = False, timeout: float = 30.0,
                      connect_timeout: float = 3.0, prefer: str = 'card',
                      verify: Verify = None, key_hosts: Sequence[str] = (),
                      card_cache: bool = True,
                      min_protocol: str | ProtocolVersion | None = None) -> FetchedCard:
    """Fetches and validates the agent card at `url` (a base URL: the well-known paths are
    tried; or the card's own URL), as `AsyncClient` does on entry (with the same process
    card cache unless `card_cache=False`, and `min_protocol`). Raises CardResolutionError
    with `.outcome` when that fails.

    `verify=`: the card must carry a signature that verifies (A2A 1.0 §8.4.3) with these
    trusted keys (a JWKS, a JWK, PEM public keys), or with `verify=True` with the key set
    its `jku` names, fetched through the same httpx client only when `card_key_url` allows
    it (https, the card's own host or one of `key_hosts`). An unverified card raises
    CardSignatureError (`reason`, `detail`, `signatures`); a verified one comes back with
    `signature` set."""
    config = _card_config(timeout, connect_timeout, allow_http, prefer, card_cache,
                          min_protocol)
    own = http_client is None
    http = http_client or default_async_client(connect_timeout)
    try:
        card, _ = await aresolve(http, config, url, None)
        if verify is None or verify is False:
            return card
        return _verified(card, await averify_fetched(card, verify, key_hosts, http, timeout))
    finally:
        if own:
            await http.aclose()


def fetch_card(url: str, *, http_client: httpx.Client | None = None, allow_http: bool = False,
               timeout: float = 30.0, connect_timeout: float = 3.0,
               prefer: str = 'card', verify: Verify = None,
               key_hosts: Sequence[str] = (), card_cache: bool = True,
               min_protocol: str | ProtocolVersion | None = None) -> FetchedCard:
    """`afetch_card` for blocking code (BLOCKS), over an `httpx.Client` (yours, or one made
    and closed here): the same machine, driven by the blocking host; `verify=`,
    `card_cache=` and `min_protocol=` as there."""
    config = _card_config(timeout, connect_timeout, allow_http, prefer, card_cache,
                          min_protocol)
    own = http_client is None
    http = http_client or default_sync_client(connect_timeout)
    try:
        card, _ = resolve(http, config, url, None)
        if verify is None or verify is False:
            return card
        return _verified(card, verify_fetched(card, verify, key_hosts, http, timeout))
    finally:
        if own:
            http.close()


class AsyncClient(_drive.MachineClientBase):
    """An asyncio A2A client for one agent, on the core's client machine, with HTTP/1.1 of
    its own on asyncio (or through your `httpx.AsyncClient`).

    ```python
    async with a2a_core.AsyncClient(url, timeout=45.0) as client:  # card fetched here
        outcome = await client.send('echo hi')
        async for event in client.stream('count 3'): ...
    ```

    Durations are float seconds: `timeout` (a non-streaming call, and a stream's response
    head), `connect_timeout`, `stream_idle_timeout`, `card_timeout`, `max_time` (a total
    per call, retries and resubscribes included). Transport: without `http_client`, the
    card fetch and every A2A call go over the client's own keep-alive HTTP/1.1 connections
    on asyncio (no redirects, `Accept-Encoding: identity`, https with httpx's default TLS
    roots), unless the environment names a proxy for `url` (`HTTP(S)_PROXY`, `ALL_PROXY`,
    `NO_PROXY`): then httpx's default client (connect 3 s, no redirects), as before.
    `http_client`: your `httpx.AsyncClient` (its transports, proxies, TLS, event hooks; it
    is not closed by this client): every request goes through it (pass one to force
    httpx). `prefer='card'` picks the interface in the card's
    order, `'client'` in the library's (1.0 then 0.3, JSON-RPC then HTTP+JSON); `protocol=`
    (`'0.3'`, `'1.0'`) and `binding=` (`'jsonrpc'`, `'http+json'`) insist on one (a card
    offering none is a CardResolutionError); `min_protocol='1.0'` never goes below that
    version (A2A §3.6.3: a card offering only older interfaces is a CardResolutionError,
    nothing is sent to the agent; no silent downgrade).
    Agent cards are cached per HTTP (RFC 9111) in one cache the process's clients share
    (`card_cache=True`, the default, as the reference driver does): a card still fresh
    (`Cache-Control: max-age`) is not fetched again, a stale one is revalidated with
    `If-None-Match` and a 304 reuses it, `no-store` is never kept; `card_cache=False`
    fetches it every time.
    `send_retries` resends a send with the same messageId and key (without
    `idempotency_key` only after proof of non-receipt); `stream_resubscribes` resubscribes
    a cut or idle stream (never resends). `breaker=BreakerConfig(...)`: one breaker per
    client. A client made from a card refuses, unsent, a call the card does not declare
    (stream and resubscribe without `capabilities.streaming`, push configs without
    `pushNotifications`, the extended card without it): a transport outcome
    `CapabilityNotDeclared`; `ignore_capabilities=True` sends them anyway (a card that
    under-declares); `with_target` checks nothing. `header_hooks` / `add_header_hook`: as
    the blocking `Client`'s. Outcomes are
    those of `Client` (the same tables), usable with `model_text`, `counts_toward_breaker`
    and `Tally.record` (stream items' outcomes are copies, as there).

    `oauth2=ClientCredentials(client_id, client_secret, ...)`: OAuth2 client credentials.
    The token is fetched through this client's httpx client (`http_client`, else one made
    on first use) from `token_url` (or the
    card's `clientCredentials` flow), kept until shortly before it expires (one fetch at a
    time however many calls wait), and sent as `Authorization: Bearer` on the A2A requests
    only (never the card fetch, never another host); a call answered 401 forgets it and is
    made once more with a new one. A token endpoint that refuses raises OAuth2Error from
    the call. `verify_card=` (keys, or True for the card's `jku`; `key_hosts`: other hosts
    the `jku` may name): the card fetched on entry must carry a signature that verifies,
    else CardSignatureError on entry (see `afetch_card`).

    Every failure of a call is an `Outcome`; exceptions are for wrong arguments, for a
    card that cannot be resolved on entry (CardResolutionError with `.outcome`), for a
    header hook that raised, and for cancellation (`asyncio.CancelledError`, never a
    success). Closing (`aclose()`, leaving the `async with`) refuses new calls and closes
    the client's connections (and the httpx client it made); calls in flight keep the
    machine's state alive and end with a transport outcome (`Reset`, possibly written) once
    their connection is gone.
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
        protocol: str | ProtocolVersion | None = None,
        binding: str | Binding | None = None,
        min_protocol: str | ProtocolVersion | None = None,
        card_cache: bool = True,
        breaker: BreakerConfig | None = None,
        ignore_capabilities: bool = False,
        header_hooks: Sequence[HeaderHook] = (),
        http_client: httpx.AsyncClient | None = None,
        oauth2: ClientCredentials | None = None,
        verify_card: Verify = None,
        key_hosts: Sequence[str] = (),
        _target: tuple[ProtocolVersion, Binding] | None = None,
    ) -> None:
        config = Config(
            call_timeout_ms=_ms(timeout, 'timeout'),
            connect_timeout_ms=_ms(connect_timeout, 'connect_timeout'),
            stream_idle_timeout_ms=_ms(stream_idle_timeout, 'stream_idle_timeout'),
            card_timeout_ms=_ms(card_timeout, 'card_timeout'),
            max_time_ms=_ms(max_time, 'max_time'),
            max_response_bytes=max_response_bytes, max_event_bytes=max_event_bytes,
            send_retries=send_retries, stream_resubscribes=stream_resubscribes,
            client_certificate=client_certificate, allow_http=allow_http,
            prefer_card_order=_drive.prefer_card_order(prefer),
            ignore_capabilities=ignore_capabilities,
            breaker=breaker._c() if breaker is not None else None,
            interface=_drive.interface_codes(protocol, binding),
            min_protocol=_drive.min_protocol_code(min_protocol), card_cache=card_cache)
        super().__init__(url, config, header_hooks, _target)
        self._own_http = http_client is None
        # no client given: HTTP/1.1 on asyncio (the native pool), unless the environment
        # names a proxy for this agent, then httpx's default client as before
        self._pool: NativePool | None = None
        self._http: httpx.AsyncClient | None = http_client
        if http_client is None:
            if proxied(url):
                self._http = default_async_client(connect_timeout)
            else:
                self._pool = NativePool(connect_timeout)
        self._connect_timeout = connect_timeout
        self._closed = False
        if oauth2 is not None and not isinstance(oauth2, ClientCredentials):
            raise TypeError(f'oauth2 must be ClientCredentials, not {type(oauth2).__name__}')
        self._oauth2 = oauth2
        self._token: OAuth2Token | None = None
        self._token_timeout = timeout
        self._verify = verify_card
        self._key_hosts = tuple(key_hosts)
        self._card_timeout = card_timeout or timeout

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
        state = self._target_state()
        if state is None:
            card, state = await aresolve(self._transport(), self._config, self.url, _seed(),
                                         self._run)
            if self._verify is not None and self._verify is not False:
                card = _verified(card, await averify_fetched(
                    card, self._verify, self._key_hosts, self._httpx(), self._card_timeout))
            self.card = card
            assert state is not None
            state = self._with_hooks(state)
        if self._oauth2 is not None and self._token is None:
            self._token = self._oauth2._handle(self.card.card if self.card else None)
        self._state = state

    async def _bearer_headers(self, headers: Headers) -> Headers:
        """`headers` with the OAuth2 token (fetched or refreshed now when due)."""
        if self._token is None:
            return headers
        return with_bearer(headers, await abearer(self._token, self._httpx(),
                                                  self._token_timeout))

    async def _authed(self, make: Callable[[Headers], Call], headers: Headers,
                      finished: Callable[[Any, Call], Any] = _drive.finished_outcome) -> Any:
        """A unary call made by `make(headers)`, with the OAuth2 token when configured: on
        a 401 the token is forgotten and the call made once more with a new one."""
        if self._token is None:
            return await self._unary(make(headers), finished)
        result = await self._unary(make(await self._bearer_headers(headers)), finished)
        if status_of(result) == 401:
            self._token.invalidate()
            result = await self._unary(make(await self._bearer_headers(headers)), finished)
        return result

    def _authed_stream(self, make: Callable[[Headers], Call],
                       headers: Headers) -> AsyncIterator[StreamEvent]:
        if self._token is None:
            return self._stream(make(headers))
        return self._token_stream(make, headers)

    async def _token_stream(self, make: Callable[[Headers], Call],
                            headers: Headers) -> AsyncIterator[StreamEvent]:
        """A stream with the OAuth2 token; refused with 401 before any event: once more
        with a new token."""
        for attempt in (0, 1):
            events = self._stream(make(await self._bearer_headers(headers)))
            retry = False
            try:
                first = True
                async for ev in events:
                    if (attempt == 0 and first and isinstance(ev, ClientStreamEnd)
                            and status_of(ev) == 401):
                        retry = True
                        break
                    first = False
                    yield ev
            finally:
                await events.aclose()  # type: ignore[attr-defined]
            if not retry:
                return
            assert self._token is not None
            self._token.invalidate()

    def _httpx(self) -> httpx.AsyncClient:
        """The httpx client of the requests the machine does not make (the OAuth2 token,
        a card's `jku` key set): the caller's, else one made on first use."""
        if self._http is None:
            self._http = default_async_client(self._connect_timeout)
        return self._http

    def _transport(self) -> Any:
        """What the machine's requests run on: the native pool or the httpx client."""
        return self._pool if self._pool is not None else self._http

    def _run(self, http: Any, call: Call, streaming: bool,
             on_finished: Callable[[Any, Call], Any],
             on_item: Callable[[Any], Any] | None = None,
             hook_errors: Any = None) -> AsyncIterator[Any]:
        """The host that drives `call` on `http` (`_transport()`)."""
        if isinstance(http, NativePool):
            return run_native(http, call, streaming, on_finished, on_item, hook_errors)
        return run_async(http, call, streaming, on_finished, on_item, hook_errors)

    async def aclose(self) -> None:
        """Refuses new calls and closes the connections and the httpx client this client
        made (never the caller's). A second close does nothing."""
        if self._closed:
            return
        self._closed = True
        if self._pool is not None:
            await self._pool.aclose()
        if self._own_http and self._http is not None:
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

    async def _unary(self, call: Call,
                     finished: Callable[[Any, Call], Any] = _drive.finished_outcome) -> Any:
        result: Any = None
        gen = self._run(self._transport(), call, False, finished, None, self._hook_errors)
        try:
            async for item in gen:
                result = item
        finally:
            await gen.aclose()  # at once, also when this task is cancelled
        assert result is not None
        return result

    def _stream(self, call: Call) -> AsyncIterator[StreamEvent]:
        return self._run(self._transport(), call, True, stream_finished, item_of,
                         self._hook_errors)

    async def send(self, text: str | None = None, *, parts: Sequence[Part | str] | None = None,
                   metadata: Mapping[str, Any] | None = None, timeout: float | None = None,
                   traceparent: str | None = None, idempotency_key: str | None = None,
                   message_id: str | None = None, context_id: str | None = None,
                   task_id: str | None = None, headers: Headers = None,
                   history_length: int | None = None,
                   return_immediately: bool = False) -> Outcome:
        """Sends a user message and waits for the answer, bounded by the call timeout or
        `timeout` (seconds: the caller's remaining budget): `text`, and/or `parts`
        (TextPart, DataPart, FilePart; a str is a text part) after it, with message
        `metadata`. The answer is `outcome.result` (a Task or Message). `context_id` /
        `task_id` continue a conversation or an interrupted task; `history_length` asks for
        that many history messages (A2A `historyLength`). `return_immediately=True` asks
        the agent to answer at once with the task as it stands (A2A 1.0
        `returnImmediately`, 0.3 `blocking: false`); then `await wait(outcome.task_id)`."""
        state = self._live_state()

        def make(h: Headers) -> Call:
            settings = _drive.settings(timeout, traceparent, idempotency_key, message_id, h,
                                       return_immediately=return_immediately)
            return message_call(state, False, text, parts, metadata, message_id, context_id,
                                task_id, settings, history_length)

        return await self._authed(make, headers)

    async def _method(self, method: int, params: Mapping[str, Any] | None,
                      timeout: float | None, traceparent: str | None, headers: Headers,
                      finished: Callable[[Any, Call], Any] = _drive.finished_outcome) -> Any:
        state = self._live_state()
        return await self._authed(
            lambda h: method_call(state, method, params,
                                  _drive.settings(timeout, traceparent, None, None, h)),
            headers, finished)

    async def list_tasks(self, *, context_id: str | None = None, status: str | None = None,
                         page_size: int | None = None, page_token: str | None = None,
                         history_length: int | None = None, timeout: float | None = None,
                         traceparent: str | None = None,
                         headers: Headers = None) -> AsyncIterator[TaskPage]:
        """Lists tasks page by page (A2A 1.0 `ListTasks`): an async iterator of
        `TaskPage`s, one call per page, ending after the page without a next token or
        after a page whose call failed (its `outcome` says why; it has no tasks)."""
        plan = _drive.TaskPages(context_id, status, page_size, page_token, history_length)
        while not plan.done:
            r: CallResult = await self._method(_drive.LIST_TASKS, plan.params(), timeout,
                                               traceparent, headers, raw_finished)
            yield plan.read(r)

    async def set_push_config(self, task_id: str, url: str, *, config_id: str | None = None,
                              token: str | None = None, timeout: float | None = None,
                              headers: Headers = None) -> CallResult:
        """Sets a push-notification config on a task (`CreateTaskPushNotificationConfig`);
        `result` is the config the agent stored."""
        params = _drive.push_config_params(task_id, url, config_id, token)
        return await self._method(_drive.CREATE_PUSH, params, timeout, None, headers,
                                  raw_finished)

    async def get_push_config(self, task_id: str, config_id: str, *,
                              timeout: float | None = None,
                              headers: Headers = None) -> CallResult:
        """Reads one push-notification config of a task."""
        return await self._method(_drive.GET_PUSH,
                                  _drive.push_config_ref(task_id, config_id), timeout, None,
                                  headers, raw_finished)

    async def list_push_configs(self, task_id: str, *, timeout: float | None = None,
                                headers: Headers = None) -> CallResult:
        """Lists a task's push-notification configs."""
        return await self._method(_drive.LIST_PUSH, _drive.push_config_ref(task_id), timeout,
                                  None, headers, raw_finished)

    async def delete_push_config(self, task_id: str, config_id: str, *,
                                 timeout: float | None = None,
                                 headers: Headers = None) -> CallResult:
        """Deletes one push-notification config of a task."""
        return await self._method(_drive.DELETE_PUSH,
                                  _drive.push_config_ref(task_id, config_id), timeout, None,
                                  headers, raw_finished)

    async def extended_card(self, *, timeout: float | None = None,
                            headers: Headers = None) -> CallResult:
        """The authenticated extended agent card (`GetExtendedAgentCard`); `result` is the
        card as JSON when the agent has one. When the call succeeds, the extended card
        replaces the public one for this client (A2A §8.6.2): later calls use its
        interface, credentials and capabilities. It is checked with the public card's rules
        against the URL the public card came from; a card that fails (an interface on
        another host: `CardError` kind `host_mismatch`, plain http, no usable interface)
        raises that `CardError` and the public card stays."""
        return await self._method(_drive.EXTENDED_CARD, None, timeout, None, headers,
                                  _drive.extended_card_finished(self._target is None))

    async def get(self, task_id: str, *, timeout: float | None = None,
                  traceparent: str | None = None, headers: Headers = None,
                  history_length: int | None = None) -> Outcome:
        """Reads a task (with `history_length` history messages when given)."""
        params: dict[str, Any] = {'id': task_id}
        if history_length is not None:
            params['historyLength'] = history_length
        return await self._method(_drive.GET_TASK, params, timeout, traceparent, headers)

    async def wait(self, task_id: str, *, poll_interval: float = 0.5,
                   max_interval: float = 5.0, timeout: float = 600.0,
                   history_length: int | None = None, traceparent: str | None = None,
                   headers: Headers = None) -> Outcome:
        """Waits for a task to settle: polls it (`GetTask`, each poll a call with the
        client's timeout, retries, breaker and hooks) first at once, then after
        `poll_interval` seconds, each delay 1.5 times the one before up to `max_interval`,
        for at most `timeout` seconds (the core's plan; this only sleeps between polls).
        Returns the last poll's outcome when the task reached a terminal state or an
        interrupted one (input-required, auth-required: act on it), or when a poll failed
        in a way another would not change (TaskNotFound, a 4xx). At the deadline: a
        transport `Timeout` outcome naming the task and its last state (retry advice
        `poll`, `result` the last poll's task). Cancelling the awaiting task aborts the
        poll in flight."""
        state = self._live_state()
        plan = _drive.task_wait(task_id, poll_interval, max_interval, timeout, history_length)
        renewed = False
        while True:
            settings = _drive.settings(None, traceparent, None, None,
                                       await self._bearer_headers(headers))
            outcome: Outcome = await self._unary(plan.poll(state, settings, _drive.now_ms()))
            if self._token is not None and not renewed and status_of(outcome) == 401:
                self._token.invalidate()  # once: a new token, the same poll again
                renewed = True
                continue
            renewed = False  # a later poll may renew again (a token expiring mid-wait)
            result, delay = _drive.wait_step(plan, outcome)
            if result is not None:
                return result
            await asyncio.sleep(delay)

    async def cancel(self, task_id: str, *, timeout: float | None = None,
                     traceparent: str | None = None, headers: Headers = None) -> Outcome:
        """Cancels a task."""
        return await self._method(_drive.CANCEL_TASK, {'id': task_id}, timeout, traceparent,
                                  headers)

    def stream(self, text: str | None = None, *, parts: Sequence[Part | str] | None = None,
               metadata: Mapping[str, Any] | None = None, idle_timeout: float | None = None,
               traceparent: str | None = None, idempotency_key: str | None = None,
               message_id: str | None = None, context_id: str | None = None,
               task_id: str | None = None, headers: Headers = None,
               history_length: int | None = None) -> AsyncIterator[StreamEvent]:
        """A streaming send (the message as in `send`): an async iterator of `StreamItem`s
        (and `Resubscribing` notices), ending with one `ClientStreamEnd`. `idle_timeout`
        (seconds) replaces the client's stream idle timeout for this call. Leaving the
        loop early (or cancelling the task) cancels the call and closes its response."""
        state = self._live_state()

        def make(h: Headers) -> Call:
            settings = _drive.settings(None, traceparent, idempotency_key, message_id, h,
                                       idle_timeout)
            return message_call(state, True, text, parts, metadata, message_id, context_id,
                                task_id, settings, history_length)

        return self._authed_stream(make, headers)

    def resubscribe(self, task_id: str, *, idle_timeout: float | None = None,
                    traceparent: str | None = None,
                    headers: Headers = None) -> AsyncIterator[StreamEvent]:
        """Resubscribes to a running task's events; as `stream`."""
        state = self._live_state()
        return self._authed_stream(
            lambda h: method_call(state, _drive.SUBSCRIBE, {'id': task_id},
                                  _drive.settings(None, traceparent, None, None, h,
                                                  idle_timeout)),
            headers)
