"""The blocking `Client`: card resolution, send / get / wait / cancel, streams (with
resubscription after a cut) and resubscribe, list tasks (a lazy page iterator), push
configs and the extended card, with header hooks for credentials and `traceparent`. Every
failure of a call, connect errors and timeouts included, is an `Outcome`, never an
exception; exceptions are for wrong arguments.

Every call is the core's client machine: on the reference driver's transport, run by
`a2a_call_run` one step per foreign call (`_native`), or over the caller's httpx.Client
(`_httpx_client`). The client is thread-safe for its calls (it pools connections).
`close()` waits for the calls in flight on other threads, then lets go of the client; calls
after it raise ClosedError. A stream is used by one thread.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Union

from .answer import Part
from .outcome import Outcome
from .resilience import BreakerConfig
from .stream import StreamItem
from .vocab import (
    Binding,
    ProtocolVersion,
    StreamEndKind,
    parse_binding,
    parse_protocol_version,
)

if TYPE_CHECKING:
    from ._drive import CallResult, TaskPage

__all__ = ['Client', 'ClientStreamEnd', 'HeaderHook', 'Resubscribing', 'StreamEvent']

#: A header hook: called with the A2A method name (`message/send`, `SendMessage`, ...) for
#: every A2A request (never for the card fetch); returns the headers to set (a mapping or
#: pairs), or None.
HeaderHook = Callable[[str], Union[Mapping[str, str], Iterable[tuple[str, str]], None]]

#: `a2a_method` numbers of the calls made through the machine.
_GET_TASK, _CANCEL_TASK = 3, 5


def _secs(ms: int | None) -> float | None:
    """Milliseconds (from `_dur`) as the machine path's float seconds."""
    return ms / 1000 if ms is not None else None


@dataclass(frozen=True, slots=True)
class Resubscribing:
    """The stream was cut with the task still running; the driver is resubscribing
    (never resending)."""

    task_id: str
    attempt: int


@dataclass(frozen=True, slots=True)
class ClientStreamEnd:
    """The last event of a client stream: how the last stream ended (None when none was
    opened, e.g. a connect failure) and the call's outcome (usable with model_text,
    counts_toward_breaker, Tally.record)."""

    kind: StreamEndKind | None
    outcome: Outcome
    resubscribes: int
    #: Events dropped over the size limit and events that could not be read: nonzero means
    #: the answer is incomplete even when the outcome says completed.
    dropped_events: int = 0
    unreadable_events: int = 0

    @property
    def answer(self) -> Any:
        """The answer put together from the stream (the final Task with its artifacts
        assembled, or the Message); None when there was none."""
        return self.outcome.result

    @property
    def lost_content(self) -> bool:
        """Whether an event was dropped or could not be read."""
        return self.dropped_events > 0 or self.unreadable_events > 0


StreamEvent = Union[StreamItem, Resubscribing, ClientStreamEnd]


def _transport_options(allow_hosts: Sequence[str], ca_file: str | None,
                       client_cert_file: str | None, client_key_file: str | None,
                       proxy: str | None, no_proxy: str | None, resolve: Sequence[str],
                       pool_idle_timeout_ms: int | None) -> dict[str, Any]:
    """The config's text options and transport switches for the reference driver: the
    hosts a card's interface may point to (the machine's card rule and the transport's
    address check), TLS files, proxy (None: from the environment; '': never a proxy),
    no-proxy list, fixed resolutions and the pool's idle time."""
    from . import _abi

    texts = [(_abi.A2A_CLIENT_TEXT_OPTION_ALLOW_HOST, h) for h in allow_hosts]
    for option, value in ((_abi.A2A_CLIENT_TEXT_OPTION_CA_FILE, ca_file),
                          (_abi.A2A_CLIENT_TEXT_OPTION_CLIENT_CERT_FILE, client_cert_file),
                          (_abi.A2A_CLIENT_TEXT_OPTION_CLIENT_KEY_FILE, client_key_file),
                          (_abi.A2A_CLIENT_TEXT_OPTION_PROXY, proxy),
                          (_abi.A2A_CLIENT_TEXT_OPTION_NO_PROXY, no_proxy)):
        if value:
            texts.append((option, value))
    texts += [(_abi.A2A_CLIENT_TEXT_OPTION_RESOLVE, r) for r in resolve]
    return {'texts': texts, 'proxy_disabled': proxy == '',
            'pool_idle_timeout_ms': pool_idle_timeout_ms}


def _dur(seconds: float | None, ms: int | None, name: str, old: str | None = None) -> int | None:
    """A duration given in float seconds (`name`) or, deprecated, in integer
    milliseconds (`name_ms`), as the library's milliseconds; None when neither is given."""
    old = old or f'{name}_ms'
    if ms is not None:
        if seconds is not None:
            raise TypeError(f'give {name} (seconds) or {old}, not both')
        warnings.warn(f'{old}= is deprecated: give {name}= in seconds (a float)',
                      DeprecationWarning, stacklevel=3)
        return ms
    if seconds is None:
        return None
    if not seconds > 0:
        raise ValueError(f'{name} must be a positive number of seconds, not {seconds!r}')
    return max(1, round(seconds * 1000))


class Client:
    """A blocking A2A client for one agent.

    `Client(url)` fetches and validates the agent card now (BLOCKS; raises
    CardResolutionError with `.outcome` when that fails) unless
    `defer_card_resolution=True`; `Client.with_target(url, version, binding)` talks to a
    known interface without a card. Options default to the library's (connect 3 s, call
    45 s, stream idle 60 s, 32 MiB responses, https only). Durations are float seconds:
    `timeout` (the call timeout), `connect_timeout`, `stream_idle_timeout`,
    `pool_idle_timeout`, `max_time`; the `*_ms` integer names are deprecated aliases.

    `prefer='card'` (the default) picks the interface in the card's order (its
    preferredTransport first); `'client'` in the library's (1.0 then 0.3, JSON-RPC then
    HTTP+JSON); `protocol=` and `binding=` win over both. `breaker=BreakerConfig(...)` turns
    on the client's circuit breaker: one per client (per agent), shared by every thread using
    it; while open, calls fail at once with a transport `CircuitOpen` outcome, not sent.
    `send_retries` resends a send with the same messageId and key: without `idempotency_key`
    only after proof of non-receipt (connect failure, 429, 503 with Retry-After), never
    after a 502/504 or a timeout. A client made from a card refuses, unsent, a call the
    card does not declare (a transport `CapabilityNotDeclared` outcome: streams and
    resubscribes need `capabilities.streaming`, push configs `pushNotifications`, the
    extended card its capability); `ignore_capabilities=True` sends them anyway.
    `min_protocol='1.0'` never goes below that version (A2A §3.6.3): a card offering only
    older interfaces is a CardResolutionError and nothing is sent to the agent (a
    `protocol=` or `with_target` version older than it is an InvalidArgumentError). Agent cards are cached per HTTP (RFC 9111; fresh: no request, stale:
    revalidated, 304 reuses it, `no-store` never kept) in one cache per process: the
    reference driver's always; with `http_client=`, the machine's shared cache unless
    `card_cache=False`.
    Networks: `ca_file` (PEM CAs replacing the system trust store, which honours
    SSL_CERT_FILE / SSL_CERT_DIR), `client_cert_file` + `client_key_file` (mutual TLS),
    `proxy` (None: the environment with curl's rules; "": none), `no_proxy` (curl's list),
    `resolve` (curl's HOST:PORT:ADDR entries), `max_time` (a total deadline per call,
    card fetch, retries, resubscribes and streams included).

    Threads: calls may run from several threads at once. `close()` (and leaving a `with`
    block) waits for the calls in flight, bounded by their own timeouts, then frees the
    client; later calls raise ClosedError, a second close does nothing, and open streams
    go on until they end.
    `http_client=httpx.Client(...)`: the calls go through the core's client machine over
    your httpx client (its transports, proxies, TLS, event hooks; never closed here), the
    driver `AsyncClient` uses, with the same outcomes; the curl options (`ca_file`,
    `proxy`, `resolve`, ...) are then the httpx client's business and refused here. Without
    it, the same machine on the reference driver's transport (its pool, TLS, proxy and
    name rules; `a2a_call_run`, one foreign call per step: the fastest path). There
    `allow_hosts` lets a card's interface sit on another origin (the machine's card rule)
    and its internal addresses past the transport's address check.
    With `http_client` only: `oauth2=ClientCredentials(...)` (tokens fetched through it,
    cached, refreshed, sent to the validated interface only, a 401 retried once with a new
    one) and `verify_card=` / `key_hosts=` (the card must carry a signature that
    verifies), as on `AsyncClient`.
    """

    __slots__ = ('_via', '__weakref__')

    def __init__(
        self,
        url: str,
        *,
        timeout: float | None = None,
        connect_timeout: float | None = None,
        stream_idle_timeout: float | None = None,
        pool_idle_timeout: float | None = None,
        max_time: float | None = None,
        connect_timeout_ms: int | None = None,
        call_timeout_ms: int | None = None,
        stream_idle_timeout_ms: int | None = None,
        max_response_bytes: int | None = None,
        pool_idle_timeout_ms: int | None = None,
        allow_http: bool = False,
        allow_hosts: Sequence[str] = (),
        protocol: str | ProtocolVersion | None = None,
        binding: str | Binding | None = None,
        defer_card_resolution: bool = False,
        stream_resubscribe_attempts: int | None = None,
        send_retries: int | None = None,
        ca_file: str | None = None,
        client_cert_file: str | None = None,
        client_key_file: str | None = None,
        proxy: str | None = None,
        no_proxy: str | None = None,
        resolve: Sequence[str] = (),
        max_time_ms: int | None = None,
        header_hooks: Sequence[HeaderHook] = (),
        prefer: str = 'card',
        breaker: BreakerConfig | None = None,
        ignore_capabilities: bool = False,
        min_protocol: str | ProtocolVersion | None = None,
        card_cache: bool = True,
        http_client: Any = None,
        oauth2: Any = None,
        verify_card: Any = None,
        key_hosts: Sequence[str] = (),
        _target: tuple[ProtocolVersion, Binding] | None = None,
    ) -> None:
        self._via: Any = None
        connect_timeout_ms = _dur(connect_timeout, connect_timeout_ms, 'connect_timeout')
        call_timeout_ms = _dur(timeout, call_timeout_ms, 'timeout', 'call_timeout_ms')
        stream_idle_timeout_ms = _dur(stream_idle_timeout, stream_idle_timeout_ms,
                                      'stream_idle_timeout')
        pool_idle_timeout_ms = _dur(pool_idle_timeout, pool_idle_timeout_ms, 'pool_idle_timeout')
        max_time_ms = _dur(max_time, max_time_ms, 'max_time')
        from ._drive import interface_codes, min_protocol_code, prefer_card_order
        from ._machine import Config

        if http_client is None:
            if oauth2 is not None or verify_card is not None or key_hosts:
                raise TypeError('oauth2, verify_card and key_hosts need Client(http_client='
                                'httpx.Client(...)) (the machine path); AsyncClient has them '
                                'too')
            if not card_cache:
                raise ValueError('card_cache=False needs http_client= (the reference driver '
                                 'always caches agent cards per HTTP)')
        else:
            # The core's client machine over the caller's httpx.Client (see _httpx_client).
            curl_only = {'pool_idle_timeout': pool_idle_timeout_ms, 'allow_hosts': allow_hosts,
                         'ca_file': ca_file,
                         'client_cert_file': client_cert_file,
                         'client_key_file': client_key_file, 'proxy': proxy,
                         'no_proxy': no_proxy, 'resolve': resolve}
            given = [k for k, v in curl_only.items() if v is not None and v != ()]
            if given:
                raise TypeError(f'{", ".join(given)}: options of the reference driver; with '
                                'http_client= set them on the httpx.Client')
        config = Config(
            call_timeout_ms=call_timeout_ms, connect_timeout_ms=connect_timeout_ms,
            stream_idle_timeout_ms=stream_idle_timeout_ms, max_time_ms=max_time_ms,
            max_response_bytes=max_response_bytes, send_retries=send_retries,
            stream_resubscribes=stream_resubscribe_attempts, allow_http=allow_http,
            prefer_card_order=prefer_card_order(prefer),
            ignore_capabilities=ignore_capabilities,
            breaker=breaker._c() if breaker is not None else None,
            interface=interface_codes(protocol, binding),
            min_protocol=min_protocol_code(min_protocol), card_cache=card_cache,
            client_certificate=http_client is None and bool(client_cert_file),
            **_transport_options(allow_hosts, ca_file, client_cert_file, client_key_file,
                                 proxy, no_proxy, resolve, pool_idle_timeout_ms))
        if http_client is not None:
            from ._httpx_client import HttpxClient

            self._via = HttpxClient(url, http_client, config, header_hooks, _target,
                                    defer_card_resolution, oauth2, verify_card, key_hosts,
                                    timeout if timeout is not None else
                                    (call_timeout_ms / 1000 if call_timeout_ms else 45.0))
            return
        # The reference driver: the machine run by a2a_call_run on its transport (_native).
        from ._native import NativeClient, Transport

        # The transport is made from the machine's own config: its connect timeout, body
        # limit, https rule and the transport options above.
        self._via = NativeClient(url, Transport(config), config, header_hooks, _target,
                                 defer_card_resolution)

    @classmethod
    def with_target(
        cls,
        url: str,
        version: str | ProtocolVersion,
        binding: str | Binding,
        **options: object,
    ) -> Client:
        """A client for a known interface URL spoken in `version` over `binding` (no card,
        no I/O until the first call)."""
        target = (parse_protocol_version(version), parse_binding(binding))
        return cls(url, _target=target, **options)  # type: ignore[arg-type]

    def __del__(self) -> None:
        self.close()

    def close(self) -> None:
        """Lets go of the client once the calls in flight on other threads have returned
        (it BLOCKS until then, bounded by their timeouts; new calls meanwhile raise
        ClosedError). A second close does nothing. Open streams keep the connection pool
        alive until they end. RuntimeError from inside a header hook of this client. With
        `http_client`, the httpx client is the caller's: it is not closed."""
        via = getattr(self, '_via', None)
        if via is not None:
            via.close()

    @property
    def closed(self) -> bool:
        """Whether `close()` has started: new calls raise ClosedError."""
        return bool(self._via.closing)

    @property
    def card(self) -> Any:
        """With `http_client`: the card fetched and validated by the machine
        (`FetchedCard`), None before it is fetched or for `with_target`. Without: None (the
        reference driver keeps its card)."""
        from ._native import NativeClient

        return None if isinstance(self._via, NativeClient) else self._via.card

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def add_header_hook(self, hook: HeaderHook) -> None:
        """Adds a hook called for every A2A request (never the card fetch), in registration
        order (credentials, `traceparent`, routing keys), with the A2A method name; it
        returns the headers to set (a mapping, pairs, or None). It runs on the calling
        thread, and only for the requests to the validated interface. A hook added during
        calls applies to the requests handed out from then on.

        On the reference driver: if the hook raises, the request goes out without its
        headers and the exception is raised when the call returns (a stream: when its event
        is read). A reserved header (`Content-Length`, `Host`, `A2A-Version`, ...: the
        client's own) is refused: the call fails unsent and `RequestError`
        (`A2A_REQUEST_RESERVED_HEADER`) is raised.

        With `http_client`: if the hook raises, the request is not sent (the call is
        cancelled) and the exception is raised by the call; a reserved header ends the call
        unsent with a transport `InvalidRequest` outcome."""
        self._via.add_header_hook(hook)

    def send(
        self,
        text: str | None = None,
        *,
        parts: Sequence[Part | str] | None = None,
        metadata: Mapping[str, Any] | None = None,
        timeout: float | None = None,
        timeout_ms: int | None = None,
        traceparent: str | None = None,
        idempotency_key: str | None = None,
        message_id: str | None = None,
        context_id: str | None = None,
        task_id: str | None = None,
        headers: Mapping[str, str] | Sequence[tuple[str, str]] | None = None,
        history_length: int | None = None,
        return_immediately: bool = False,
    ) -> Outcome:
        """Sends a user message and waits for the answer (BLOCKS, bounded by the call
        timeout or `timeout_ms`, the caller's remaining turn budget): `text`, and/or
        `parts` (TextPart, DataPart, FilePart; a str is a text part) after it, with message
        `metadata`. The answer is `outcome.result` (a Task or Message, typed), carrying
        `history_length` history messages when given (A2A `historyLength`; None leaves it
        to the agent, 0 asks for none). `timeout` is in seconds (`timeout_ms`: deprecated).
        `return_immediately=True` asks the agent to answer at once with the task as it
        stands (A2A 1.0 `returnImmediately`, 0.3 `blocking: false`); then
        `wait(outcome.task_id)`."""
        # (the usual send has no timeout and no history length: two calls fewer)
        seconds = None
        if timeout is not None or timeout_ms is not None:
            seconds = _secs(_dur(timeout, timeout_ms, 'timeout'))
        if history_length is not None:
            _check_history(history_length)
        return self._via.send(text, parts, metadata, seconds, traceparent,  # type: ignore[no-any-return]
                              idempotency_key, message_id, context_id, task_id, headers,
                              history_length, return_immediately)

    def get(self, task_id: str, *, timeout: float | None = None,
            timeout_ms: int | None = None,
            traceparent: str | None = None,
            headers: Mapping[str, str] | Sequence[tuple[str, str]] | None = None,
            history_length: int | None = None) -> Outcome:
        """Reads a task, with `history_length` history messages when given (A2A
        `historyLength`; None leaves it to the agent, 0 asks for none)."""
        timeout_ms = _dur(timeout, timeout_ms, 'timeout')
        _check_history(history_length)
        params: dict[str, Any] = {'id': task_id}
        if history_length is not None:
            params['historyLength'] = history_length
        return self._via.method(_GET_TASK, params, _secs(timeout_ms), traceparent,  # type: ignore[no-any-return]
                                headers)

    def wait(self, task_id: str, *, poll_interval: float = 0.5, max_interval: float = 5.0,
             timeout: float = 600.0, history_length: int | None = None,
             traceparent: str | None = None,
             headers: Mapping[str, str] | Sequence[tuple[str, str]] | None = None) -> Outcome:
        """Waits for a task to settle (BLOCKS, sleeping between polls): as
        `AsyncClient.wait`, the core's plan (first poll at once, then `poll_interval`
        seconds growing 1.5 times up to `max_interval`, for at most `timeout` seconds);
        the result is the last poll's outcome, or at the deadline a transport `Timeout`
        outcome naming the task and its last state. Each poll is a `GetTask` bounded by the
        time left."""
        return self._via.wait(task_id, poll_interval, max_interval, timeout,  # type: ignore[no-any-return]
                              history_length, traceparent, headers)

    def cancel(self, task_id: str, *, timeout: float | None = None,
               timeout_ms: int | None = None,
               traceparent: str | None = None,
               headers: Mapping[str, str] | Sequence[tuple[str, str]] | None = None) -> Outcome:
        """Cancels a task (`timeout` in seconds; `timeout_ms`: deprecated)."""
        timeout_ms = _dur(timeout, timeout_ms, 'timeout')
        return self._via.method(_CANCEL_TASK, {'id': task_id}, _secs(timeout_ms),  # type: ignore[no-any-return]
                                traceparent, headers)

    def stream(
        self,
        text: str | None = None,
        *,
        parts: Sequence[Part | str] | None = None,
        metadata: Mapping[str, Any] | None = None,
        idle_timeout: float | None = None,
        idle_timeout_ms: int | None = None,
        traceparent: str | None = None,
        idempotency_key: str | None = None,
        message_id: str | None = None,
        context_id: str | None = None,
        task_id: str | None = None,
        headers: Mapping[str, str] | Sequence[tuple[str, str]] | None = None,
        history_length: int | None = None,
    ) -> Iterator[StreamEvent]:
        """A streaming send: a generator of `StreamItem`s (and `Resubscribing` notices when
        the driver resubscribes after a cut), ending with one `ClientStreamEnd`. The request
        goes out now (opening is eager: a header hook's exception is raised here); its
        failure, if any, is the `ClientStreamEnd`. Closing the generator early closes the
        stream.
        `history_length` asks for that many history messages (A2A `historyLength`).
        `idle_timeout` in seconds (`idle_timeout_ms`: deprecated)."""
        idle_timeout_ms = _dur(idle_timeout, idle_timeout_ms, 'idle_timeout')
        _check_history(history_length)
        return self._via.message_stream(  # type: ignore[no-any-return]
            text, parts, metadata, _secs(idle_timeout_ms), traceparent, idempotency_key,
            message_id, context_id, task_id, headers, history_length)

    def resubscribe(
        self,
        task_id: str,
        *,
        idle_timeout: float | None = None,
        idle_timeout_ms: int | None = None,
        traceparent: str | None = None,
        headers: Mapping[str, str] | Sequence[tuple[str, str]] | None = None,
    ) -> Iterator[StreamEvent]:
        """Resubscribes to a running task's events; as `stream`."""
        idle_timeout_ms = _dur(idle_timeout, idle_timeout_ms, 'idle_timeout')
        return self._via.resubscribe(  # type: ignore[no-any-return]
            task_id, _secs(idle_timeout_ms), traceparent, headers)

    def list_tasks(
        self,
        *,
        context_id: str | None = None,
        status: str | None = None,
        page_size: int | None = None,
        page_token: str | None = None,
        history_length: int | None = None,
        timeout: float | None = None,
        traceparent: str | None = None,
        headers: Mapping[str, str] | Sequence[tuple[str, str]] | None = None,
    ) -> Iterator[TaskPage]:
        """Lists tasks page by page (A2A 1.0 `ListTasks`; a 0.3 agent has no such method:
        one failed page): an iterator of `TaskPage`s, one call per page made when the page
        is asked for (each BLOCKS, bounded by the call timeout or `timeout` seconds),
        ending after the page without a next token or after a page whose call failed (its
        `outcome` says why; it has no tasks). `context_id` / `status` filter,
        `page_token` starts at that page."""
        _check_history(history_length)
        return self._via.list_tasks(  # type: ignore[no-any-return]
            context_id, status, page_size, page_token, history_length, _seconds(timeout),
            traceparent, headers)

    def set_push_config(self, task_id: str, url: str, *, config_id: str | None = None,
                        token: str | None = None, timeout: float | None = None,
                        headers: Mapping[str, str] | Sequence[tuple[str, str]] | None = None
                        ) -> CallResult:
        """Sets a push-notification config on a task (`CreateTaskPushNotificationConfig`;
        BLOCKS): a `CallResult` whose `result` is the config the agent stored (None when
        the call failed: its `outcome` says why)."""
        return self._via.set_push_config(  # type: ignore[no-any-return]
            task_id, url, config_id, token, _seconds(timeout), headers)

    def get_push_config(self, task_id: str, config_id: str, *, timeout: float | None = None,
                        headers: Mapping[str, str] | Sequence[tuple[str, str]] | None = None
                        ) -> CallResult:
        """Reads one push-notification config of a task (BLOCKS)."""
        return self._via.get_push_config(  # type: ignore[no-any-return]
            task_id, config_id, _seconds(timeout), headers)

    def list_push_configs(self, task_id: str, *, timeout: float | None = None,
                          headers: Mapping[str, str] | Sequence[tuple[str, str]] | None = None
                          ) -> CallResult:
        """Lists a task's push-notification configs (BLOCKS)."""
        return self._via.list_push_configs(  # type: ignore[no-any-return]
            task_id, _seconds(timeout), headers)

    def delete_push_config(self, task_id: str, config_id: str, *,
                           timeout: float | None = None,
                           headers: Mapping[str, str] | Sequence[tuple[str, str]] | None = None
                           ) -> CallResult:
        """Deletes one push-notification config of a task (BLOCKS)."""
        return self._via.delete_push_config(  # type: ignore[no-any-return]
            task_id, config_id, _seconds(timeout), headers)

    def extended_card(self, *, timeout: float | None = None,
                      headers: Mapping[str, str] | Sequence[tuple[str, str]] | None = None
                      ) -> CallResult:
        """The authenticated extended agent card (`GetExtendedAgentCard`; BLOCKS):
        `result` is the card as JSON when the agent has one. When the call succeeds on a
        client made from a card, the extended card replaces the public one for this client
        (A2A §8.6.2): later calls, from every thread, use its interface, credentials and
        capabilities. It is checked with the public card's rules against the URL the public
        card came from; a card that fails (an interface on another host: `CardError` code
        `A2A_CARD_HOST_MISMATCH`, plain http, no usable interface) raises that `CardError`
        and the public card stays. (`card` still shows the public card.)"""
        return self._via.extended_card(_seconds(timeout), headers)  # type: ignore[no-any-return]


def _seconds(timeout: float | None) -> float | None:
    """A call's `timeout` in seconds, checked now (a positive number, or None)."""
    _dur(timeout, None, 'timeout')
    return timeout


def _check_history(history_length: int | None) -> None:
    if history_length is not None and not 0 <= history_length <= 0x7FFFFFFF:
        raise ValueError('history_length must be between 0 and 2**31-1')
