"""The reference driver's blocking `Client`: card resolution, send / get / cancel, streams
(with resubscription after a cut) and resubscribe, with header hooks for credentials and
`traceparent`. Every failure of a call, connect errors and timeouts included, is an
`Outcome`, never an exception; exceptions are for wrong arguments.

The client is thread-safe for its calls (it pools connections). `close()` waits for the
calls in flight on other threads, then frees the client; calls after it raise ClosedError.
`add_header_hook` during a call raises InUseError. A stream is used by one thread.
"""

from __future__ import annotations

import ctypes
import threading
import time
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Union

from . import _guard, _lib
from ._guard import HandleHolder, Owned
from .errors import CardResolutionError, check, error_for
from .answer import Part, message_json
from .outcome import Outcome, _OwnedOutcome
from .resilience import BreakerConfig
from .stream import StreamItem
from .vocab import (
    Binding,
    ProtocolVersion,
    StreamEndKind,
    _num,
    _word,
    parse_binding,
    parse_protocol_version,
)

__all__ = ['Client', 'ClientStreamEnd', 'HeaderHook', 'Resubscribing', 'StreamEvent']

#: A header hook: called with the A2A method name (`message/send`, `SendMessage`, ...) for
#: every A2A request (never for the card fetch); returns the headers to set (a mapping or
#: pairs), or None.
HeaderHook = Callable[[str], Union[Mapping[str, str], Iterable[tuple[str, str]], None]]

_ITEM, _RESUBSCRIBING, _END = 1, 2, 3
#: The compiled fast path's numbers of the blocking calls (`_speedups.call`).
_CALLS = {'a2a_client_send_text': 0, 'a2a_client_send_message': 1, 'a2a_client_get_task': 2,
          'a2a_client_cancel_task': 3}
_CARD_RESOLUTION = 1000
_NONE = 2
#: `a2a_method` numbers of the calls made through the machine (with `http_client`).
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


def _str_view(b: bytes | None) -> _lib.Str:
    if not b:
        return _lib.Str()
    return _lib.Str(ctypes.cast(ctypes.c_char_p(b), ctypes.c_void_p).value, len(b))


class _Options:
    """Keeps the memory of an `a2a_client_call_options` alive during a call."""

    def __init__(
        self,
        timeout_ms: int | None,
        idle_timeout_ms: int | None,
        traceparent: str | None,
        idempotency_key: str | None,
        message_id: str | None,
        context_id: str | None,
        task_id: str | None,
        headers: Mapping[str, str] | Sequence[tuple[str, str]] | None,
        history_length: int | None = None,
        return_immediately: bool = False,
    ) -> None:
        if history_length is not None and not 0 <= history_length <= 0x7FFFFFFF:
            raise ValueError('history_length must be between 0 and 2**31-1')
        enc = [
            (v or '').encode('utf-8')
            for v in (traceparent, idempotency_key, message_id, context_id, task_id)
        ]
        pairs = list(headers.items() if isinstance(headers, Mapping) else headers or ())
        self.keep: list[bytes] = list(enc)
        harr = (_lib.Header * max(len(pairs), 1))()
        for i, (name, value) in enumerate(pairs):
            n, v = name.encode('utf-8'), value.encode('utf-8')
            self.keep += [n, v]
            harr[i] = _lib.Header(n, len(n), v, len(v))
        self.harr = harr
        self.c = _lib.ClientCallOptions(
            timeout_ms or 0, idle_timeout_ms or 0, *(_str_view(b) for b in enc),
            harr if pairs else None, len(pairs),
            history_length is not None, history_length or 0, return_immediately,
        )
        self.addr = ctypes.addressof(self.c)


def _options(
    timeout_ms: int | None,
    idle_timeout_ms: int | None,
    traceparent: str | None,
    idempotency_key: str | None,
    message_id: str | None,
    context_id: str | None,
    task_id: str | None,
    headers: Mapping[str, str] | Sequence[tuple[str, str]] | None,
    history_length: int | None = None,
    return_immediately: bool = False,
) -> _Options:
    """The options of one call: the shared all-defaults `_DEFAULT_OPTIONS` when none is
    given (the usual call: no encoding, no ctypes struct built per call; the library only
    reads the options during the call), else a new `_Options`."""
    if history_length is None and not (timeout_ms or idle_timeout_ms or traceparent
                                       or idempotency_key or message_id or context_id
                                       or task_id or headers or return_immediately):
        return _DEFAULT_OPTIONS
    return _Options(timeout_ms, idle_timeout_ms, traceparent, idempotency_key, message_id,
                    context_id, task_id, headers, history_length, return_immediately)


_DEFAULT_OPTIONS = _Options(None, None, None, None, None, None, None, None)


def _message(text: str | None, parts: Sequence[Part | str] | None,
             metadata: Mapping[str, Any] | None) -> str:
    all_parts: list[Part | str] = ([text] if text is not None else []) + list(parts or ())
    if not all_parts:
        raise ValueError('nothing to send: give text or parts')
    return message_json(all_parts, metadata)


class _StreamHandle(HandleHolder, Owned):
    """Owns one `a2a_client_stream *`; freed once, when collected or closed."""

    __slots__ = ('ptr',)
    _free = _lib.lib.a2a_client_stream_free

    def __init__(self, ptr: int) -> None:
        self.ptr = ptr

    def free(self) -> None:
        """Frees the stream now (closed by its owner)."""
        self._release()


class _EndOutcome(HandleHolder):
    """The END outcome is borrowed from its stream handle: keeping the (spent) stream alive
    keeps the outcome valid, so it can be passed back to the library."""

    __slots__ = ('ptr', 'stream')

    def __init__(self, ptr: int, stream: _StreamHandle) -> None:
        self.ptr = ptr
        self.stream = stream


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
    it, the reference driver (libcurl: the fastest path).
    With `http_client` only: `oauth2=ClientCredentials(...)` (tokens fetched through it,
    cached, refreshed, sent to the validated interface only, a 401 retried once with a new
    one) and `verify_card=` / `key_hosts=` (the card must carry a signature that
    verifies), as on `AsyncClient`.
    """

    __slots__ = ('_h', '_calls', '_hooks', '_hook_error', '_via', '__weakref__')

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
        self._h = 0
        self._calls = _guard.Calls('client')
        self._hooks: list[object] = []
        self._hook_error = threading.local()
        if http_client is not None:
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
            from ._drive import interface_codes, min_protocol_code, prefer_card_order
            from ._httpx_client import HttpxClient
            from ._machine import Config

            config = Config(
                call_timeout_ms=call_timeout_ms, connect_timeout_ms=connect_timeout_ms,
                stream_idle_timeout_ms=stream_idle_timeout_ms, max_time_ms=max_time_ms,
                max_response_bytes=max_response_bytes, send_retries=send_retries,
                stream_resubscribes=stream_resubscribe_attempts, allow_http=allow_http,
                prefer_card_order=prefer_card_order(prefer),
                ignore_capabilities=ignore_capabilities,
                breaker=breaker._c() if breaker is not None else None,
                interface=interface_codes(protocol, binding),
                min_protocol=min_protocol_code(min_protocol), card_cache=card_cache)
            self._via = HttpxClient(url, http_client, config, header_hooks, _target,
                                    defer_card_resolution, oauth2, verify_card, key_hosts,
                                    timeout if timeout is not None else
                                    (call_timeout_ms / 1000 if call_timeout_ms else 45.0))
            return
        if oauth2 is not None or verify_card is not None or key_hosts:
            raise TypeError('oauth2, verify_card and key_hosts need Client(http_client='
                            'httpx.Client(...)) (the machine path); AsyncClient has them too')
        if not card_cache:
            raise ValueError('card_cache=False needs http_client= (the reference driver '
                             'always caches agent cards per HTTP)')
        cfg = _lib.ClientConfig()
        check(_lib.lib.a2a_client_config_default(ctypes.byref(cfg)))
        for name, value in (
            ('connect_timeout_ms', connect_timeout_ms),
            ('call_timeout_ms', call_timeout_ms),
            ('stream_idle_timeout_ms', stream_idle_timeout_ms),
            ('max_response_bytes', max_response_bytes),
            ('pool_idle_timeout_ms', pool_idle_timeout_ms),
            ('stream_resubscribe_attempts', stream_resubscribe_attempts),
            ('send_retries', send_retries),
        ):
            if value is not None:
                setattr(cfg, name, value)
        cfg.allow_http = allow_http
        cfg.defer_card_resolution = defer_card_resolution
        if prefer not in ('card', 'client'):
            raise ValueError(f"prefer must be 'card' or 'client', not {prefer!r}")
        cfg.prefer_client_order = prefer == 'client'
        if breaker is not None:
            cfg.breaker_enabled = True
            cfg.breaker = breaker._c()
        hosts = [h.encode('utf-8') for h in allow_hosts]
        harr = (_lib.Str * max(len(hosts), 1))(*(_str_view(h) for h in hosts))
        cfg.allow_hosts = harr if hosts else None
        cfg.allow_hosts_len = len(hosts)
        # Network settings. The encoded strings below stay referenced until the library
        # has copied them (during the constructor call).
        keep: list[bytes] = []

        def view(text: str | None) -> _lib.Str:
            if not text:
                return _lib.Str()
            b = text.encode('utf-8')
            keep.append(b)
            return _str_view(b)

        cfg.ca_file = view(ca_file)
        cfg.client_cert_file = view(client_cert_file)
        cfg.client_key_file = view(client_key_file)
        # None: from the environment (curl's variables); "": never a proxy.
        cfg.proxy_disabled = proxy == ''
        cfg.proxy = view(proxy)
        cfg.no_proxy = view(no_proxy)
        entries = [e.encode('utf-8') for e in resolve]
        rarr = (_lib.Str * max(len(entries), 1))(*(_str_view(e) for e in entries))
        cfg.resolve = rarr if entries else None
        cfg.resolve_len = len(entries)
        if max_time_ms is not None:
            cfg.max_time_ms = max_time_ms
        cfg.ignore_capabilities = ignore_capabilities
        if protocol is not None:
            cfg.protocol = _num(ProtocolVersion)[parse_protocol_version(protocol)]
        if binding is not None:
            cfg.binding = _num(Binding)[parse_binding(binding)]
        if min_protocol is not None:
            cfg.min_protocol = _num(ProtocolVersion)[parse_protocol_version(min_protocol)]
        u, un = _lib.enc(url)
        h = ctypes.c_void_p()
        if _target is not None:
            v, b = _target
            check(_lib.lib.a2a_client_new_with_target(
                u, un, _num(ProtocolVersion)[v], _num(Binding)[b], ctypes.byref(cfg),
                ctypes.byref(h)))
        else:
            err = ctypes.c_void_p()
            rc = _lib.lib.a2a_client_new(u, un, ctypes.byref(cfg), ctypes.byref(h),
                                         ctypes.byref(err))
            if rc == _CARD_RESOLUTION:
                outcome = Outcome._from_ptr(err.value or 0, owned=True) if err.value else None
                e = error_for(rc, outcome.message if outcome else None)
                assert isinstance(e, CardResolutionError)
                e.outcome = outcome
                raise e
            check(rc)
        self._h = h.value or 0
        for hook in header_hooks:
            self.add_header_hook(hook)

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
        """Frees the client once the calls in flight on other threads have returned (it
        BLOCKS until then, bounded by their timeouts; new calls meanwhile raise
        ClosedError). A second close does nothing. Open streams keep the connection pool
        alive until they end. RuntimeError from inside a header hook of this client. With
        `http_client`, the httpx client is the caller's: it is not closed."""
        via = getattr(self, '_via', None)
        if via is not None:
            via.close()
            return
        calls = getattr(self, '_calls', None)
        if calls is None or not calls.close():
            return
        h, self._h = self._h, 0
        if h:
            _lib.lib.a2a_client_free(h)

    @property
    def closed(self) -> bool:
        """Whether `close()` has started: new calls raise ClosedError."""
        if self._via is not None:
            return bool(self._via.closing)
        return self._calls.closing

    @property
    def card(self) -> Any:
        """With `http_client`: the card fetched and validated by the machine
        (`FetchedCard`), None before it is fetched or for `with_target`. Without: None (the
        reference driver keeps its card)."""
        return self._via.card if self._via is not None else None

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _handle(self) -> int:
        """The live handle (ClosedError after close), for a direct library call from this
        thread that cannot race with close() (the package's own calls use `_enter`)."""
        if self._via is not None:
            raise TypeError('a Client over an httpx.Client has no reference-driver handle')
        if self._calls.closing:
            raise _guard.closed('client')
        return self._h

    def _enter(self) -> int:
        """Counts a call in (ClosedError after close) and returns the live handle; every
        `_enter` is paired with a `_calls.leave()` in a finally."""
        self._calls.enter()
        return self._h

    def add_header_hook(self, hook: HeaderHook) -> None:
        """Adds a hook called for every A2A request, in registration order (credentials,
        `traceparent`, routing keys). It runs on the calling thread. The library cannot
        abort a request from a hook: if the hook raises, the request goes out without its
        headers and the exception is raised when the call returns. A reserved header
        (`Content-Length`, `Host`, `A2A-Version`, ...: the client's own) is refused: the call
        fails unsent and `RequestError` (`A2A_REQUEST_RESERVED_HEADER`) is raised. Add hooks
        before the first stream is opened.

        With `http_client` (the machine): if the hook raises, the request is not sent (the
        call is cancelled) and the exception is raised by the call; a reserved header ends
        the call unsent with a transport `InvalidRequest` outcome; add hooks before the
        first call."""
        if self._via is not None:
            self._via.add_header_hook(hook)
            return

        slot = self._hook_error  # not self: no reference cycle through the callback

        def trampoline(_userdata: int | None, method: int | None, method_len: int,
                       setter: int | None) -> None:
            try:
                name = ctypes.string_at(method, method_len).decode('utf-8') if method else ''
                headers = hook(name)
                pairs = headers.items() if isinstance(headers, Mapping) else headers or ()
                for k, v in pairs:
                    kb, vb = k.encode('utf-8'), v.encode('utf-8')
                    rc = _lib.lib.a2a_header_setter_set(setter, kb, len(kb), vb, len(vb))
                    if rc:
                        raise error_for(rc, f'header {k!r} refused by the library')
            except BaseException as e:  # noqa: BLE001 - must not unwind into C
                if getattr(slot, 'error', None) is None:
                    slot.error = e

        cb = _lib.HeaderHook(trampoline)
        h = self._enter()
        try:
            check(_lib.lib.a2a_client_add_header_hook(h, cb, None))
            self._hooks.append(cb)  # the C side keeps the pointer: keep the callback alive
        finally:
            self._calls.leave()

    def _raise_hook_error(self) -> None:
        e = getattr(self._hook_error, 'error', None)
        if e is not None:
            self._hook_error.error = None
            raise e

    def _call(self, fname: str, arg: str, opts: _Options) -> Outcome:
        sp = _lib.SPEEDUPS
        if sp is not None:
            # the compiled fast path: the call and the Outcome in one step
            hooks = self._hooks
            if hooks:
                self._hook_error.error = None
            h = self._enter()
            try:
                rc, outcome = sp.call(  # type: ignore[attr-defined]
                    _CALLS[fname], h, arg, opts.addr, _OwnedOutcome)
            finally:
                self._calls.leave()
            if hooks:
                self._raise_hook_error()
            check(rc)
            return outcome  # type: ignore[no-any-return]
        a, an = _lib.enc(arg)
        out = ctypes.c_void_p()
        self._hook_error.error = None
        h = self._enter()
        try:
            rc = getattr(_lib.lib, fname)(h, a, an, ctypes.byref(opts.c), ctypes.byref(out))
        finally:
            self._calls.leave()
        outcome = Outcome._from_ptr(out.value or 0, owned=True) if rc == 0 else None
        self._raise_hook_error()
        check(rc)
        assert outcome is not None
        return outcome

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
        timeout_ms = _dur(timeout, timeout_ms, 'timeout')
        if self._via is not None:
            return self._via.send(text, parts, metadata, _secs(timeout_ms), traceparent,  # type: ignore[no-any-return]
                                  idempotency_key, message_id, context_id, task_id, headers,
                                  history_length, return_immediately)
        opts = _options(timeout_ms, None, traceparent, idempotency_key, message_id,
                        context_id, task_id, headers, history_length, return_immediately)
        if parts is None and metadata is None and text is not None:
            return self._call('a2a_client_send_text', text, opts)
        return self._call('a2a_client_send_message', _message(text, parts, metadata), opts)

    def get(self, task_id: str, *, timeout: float | None = None,
            timeout_ms: int | None = None,
            traceparent: str | None = None,
            headers: Mapping[str, str] | Sequence[tuple[str, str]] | None = None,
            history_length: int | None = None) -> Outcome:
        """Reads a task, with `history_length` history messages when given (A2A
        `historyLength`; None leaves it to the agent, 0 asks for none)."""
        timeout_ms = _dur(timeout, timeout_ms, 'timeout')
        if self._via is not None:
            params: dict[str, Any] = {'id': task_id}
            if history_length is not None:
                params['historyLength'] = history_length
            return self._via.method(_GET_TASK, params, _secs(timeout_ms), traceparent,  # type: ignore[no-any-return]
                                    headers)
        opts = _options(timeout_ms, None, traceparent, None, None, None, None, headers,
                        history_length)
        return self._call('a2a_client_get_task', task_id, opts)

    def wait(self, task_id: str, *, poll_interval: float = 0.5, max_interval: float = 5.0,
             timeout: float = 600.0, history_length: int | None = None,
             traceparent: str | None = None,
             headers: Mapping[str, str] | Sequence[tuple[str, str]] | None = None) -> Outcome:
        """Waits for a task to settle (BLOCKS, sleeping between polls): as
        `AsyncClient.wait`, the core's plan (first poll at once, then `poll_interval`
        seconds growing 1.5 times up to `max_interval`, for at most `timeout` seconds);
        the result is the last poll's outcome, or at the deadline a transport `Timeout`
        outcome naming the task and its last state. Each poll is a `get` (on the driver: a
        `get` bounded by the time left)."""
        if self._via is not None:
            return self._via.wait(task_id, poll_interval, max_interval, timeout,  # type: ignore[no-any-return]
                                  history_length, traceparent, headers)
        from . import _drive

        plan = _drive.task_wait(task_id, poll_interval, max_interval, timeout, history_length)
        deadline = time.monotonic() + timeout
        while True:
            left = max(0.001, deadline - time.monotonic())
            outcome = self.get(task_id, timeout=left, traceparent=traceparent, headers=headers,
                               history_length=history_length)
            result, delay = _drive.wait_step(plan, outcome)
            if result is not None:
                return result
            time.sleep(delay)

    def cancel(self, task_id: str, *, timeout: float | None = None,
               timeout_ms: int | None = None,
               traceparent: str | None = None,
               headers: Mapping[str, str] | Sequence[tuple[str, str]] | None = None) -> Outcome:
        """Cancels a task (`timeout` in seconds; `timeout_ms`: deprecated)."""
        timeout_ms = _dur(timeout, timeout_ms, 'timeout')
        if self._via is not None:
            return self._via.method(_CANCEL_TASK, {'id': task_id}, _secs(timeout_ms),  # type: ignore[no-any-return]
                                    traceparent, headers)
        opts = _options(timeout_ms, None, traceparent, None, None, None, None, headers)
        return self._call('a2a_client_cancel_task', task_id, opts)

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
        if self._via is not None:
            return self._via.message_stream(  # type: ignore[no-any-return]
                text, parts, metadata, _secs(idle_timeout_ms), traceparent, idempotency_key,
                message_id, context_id, task_id, headers, history_length)
        opts = _options(None, idle_timeout_ms, traceparent, idempotency_key, message_id,
                        context_id, task_id, headers, history_length)
        if parts is None and metadata is None and text is not None:
            return self._stream('a2a_client_stream_text', text, opts)
        return self._stream('a2a_client_stream_message', _message(text, parts, metadata), opts)

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
        if self._via is not None:
            return self._via.resubscribe(  # type: ignore[no-any-return]
                task_id, _secs(idle_timeout_ms), traceparent, headers)
        opts = _options(None, idle_timeout_ms, traceparent, None, None, None, None, headers)
        return self._stream('a2a_client_resubscribe', task_id, opts)

    def _stream(self, fname: str, arg: str, opts: _Options) -> Iterator[StreamEvent]:
        a, an = _lib.enc(arg)
        out = ctypes.c_void_p()
        # Opening is eager: the hooks run now, so a hook's exception is raised now (it was
        # cleared unseen by the first next() before).
        self._hook_error.error = None
        h = self._enter()
        try:
            rc = getattr(_lib.lib, fname)(h, a, an, ctypes.byref(opts.c), ctypes.byref(out))
        finally:
            self._calls.leave()
        if getattr(self._hook_error, 'error', None) is not None:
            if rc == 0:
                _StreamHandle(out.value or 0).free()
            self._raise_hook_error()
        check(rc)
        # The stream holds the library client's connection pool itself: it outlives close().
        handle = _StreamHandle(out.value or 0)
        sp = _lib.SPEEDUPS
        if sp is not None:
            return self._events_fast(sp, handle, opts)
        return self._events(handle, opts)

    def _events(self, handle: _StreamHandle, opts: _Options) -> Iterator[StreamEvent]:
        ev = _lib.ClientStreamEvent()
        ended = False
        try:
            while True:
                self._hook_error.error = None
                rc = _lib.lib.a2a_client_stream_next(handle.ptr, ctypes.byref(ev))
                self._raise_hook_error()
                if rc == _NONE:
                    return
                check(rc)
                if ev.kind == _ITEM:
                    yield StreamItem._from_c(ev.item, ev.item.outcome)
                elif ev.kind == _RESUBSCRIBING:
                    yield Resubscribing(_lib.view_str(ev.task_id) or '', int(ev.attempt))
                elif ev.kind == _END:
                    ended = True
                    outcome = Outcome._from_ptr(ev.outcome, owned=False)
                    # keep the spent stream alive as long as the outcome: its handle stays valid
                    object.__setattr__(outcome, '_owned', _EndOutcome(ev.outcome, handle))
                    kind = _word(StreamEndKind, ev.end_kind) if ev.has_end_kind else None
                    yield ClientStreamEnd(kind, outcome, int(ev.resubscribes),
                                          int(ev.dropped_events), int(ev.unreadable_events))
                    return
                else:
                    raise error_for(102, f'unknown client stream event kind {ev.kind}')
        finally:
            del opts
            if not ended:
                handle.free()

    def _events_fast(self, sp: Any, handle: _StreamHandle, opts: _Options) -> Iterator[StreamEvent]:
        """`_events` through the compiled fast path: one call per event, the item built in C
        (the GIL released while the library waits for the network)."""
        ended = False
        next_event = sp.stream_next
        ptr = handle.ptr
        hooks = self._hooks
        try:
            while True:
                if hooks:
                    self._hook_error.error = None
                    r = next_event(ptr)
                    self._raise_hook_error()
                else:
                    r = next_event(ptr)
                if r.__class__ is StreamItem:  # the usual event, returned as it is
                    yield r
                    continue
                rc = r[0]
                if rc == _NONE:
                    return
                check(rc)
                kind = r[1]
                if kind == _RESUBSCRIBING:
                    yield Resubscribing(r[2], r[3])
                elif kind == _END:
                    ended = True
                    _rc, _k, ptr, end_kind, resubscribes, dropped, unreadable = r
                    outcome = Outcome._from_ptr(ptr, owned=False)
                    # keep the spent stream alive as long as the outcome: its handle stays valid
                    object.__setattr__(outcome, '_owned', _EndOutcome(ptr, handle))
                    kind_word = _word(StreamEndKind, end_kind) if end_kind is not None else None
                    yield ClientStreamEnd(kind_word, outcome, resubscribes, dropped, unreadable)
                    return
                else:
                    raise error_for(102, f'unknown client stream event kind {kind}')
        finally:
            del opts
            if not ended:
                handle.free()


