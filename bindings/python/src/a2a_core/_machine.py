"""The core's sans-IO client machine over the C ABI (`a2a_client_state`, `a2a_call`, the
config and settings builders; ffi/README.md, *The client machine*), for `AsyncClient` and
the blocking `Client` over httpx (`_drive`, `_httpx_io`).

Nothing here is public API and nothing here does I/O: each function is one short native
call that returns at once. Its structs and declarations are generated from include/a2a_core.h (`_abi`, written by
scripts/gen-bindings.py; tests/test_layout.py checks them against the C compiler's layout).
"""

from __future__ import annotations

import ctypes
import threading
from ctypes import c_uint64, c_void_p
from collections.abc import Iterable, Sequence

from . import _abi, _lib
from ._guard import Owned
from ._abi import Event, Header, HeaderView, Transmit, WaitStep  # noqa: F401
from ._lib import lib
from .errors import check, error_for

# --- results, kinds (numbers from the generated _abi) --------------------------------------

OK = _abi.A2A_OK
NONE = _abi.A2A_NONE
CALL_STALE = _abi.A2A_CALL_STALE
CALL_FINISHED = _abi.A2A_CALL_FINISHED

EVENT_ABORT, EVENT_RETRYING, EVENT_RESUBSCRIBING, EVENT_ITEM, EVENT_FINISHED = (
    _abi.A2A_EVENT_KIND_ABORT, _abi.A2A_EVENT_KIND_RETRYING, _abi.A2A_EVENT_KIND_RESUBSCRIBING,
    _abi.A2A_EVENT_KIND_ITEM, _abi.A2A_EVENT_KIND_FINISHED)

#: `a2a_error_name` numbers of the transport group that a host reports.
ERR_CONNECT_FAILED, ERR_DNS, ERR_TIMEOUT, ERR_RESET, ERR_TLS, ERR_PROXY = (
    _abi.A2A_ERROR_NAME_CONNECT_FAILED, _abi.A2A_ERROR_NAME_DNS, _abi.A2A_ERROR_NAME_TIMEOUT,
    _abi.A2A_ERROR_NAME_RESET, _abi.A2A_ERROR_NAME_TLS, _abi.A2A_ERROR_NAME_PROXY)

#: `a2a_wait_step_kind` numbers.
WAIT_POLL_AT, WAIT_DONE, WAIT_GAVE_UP = (
    _abi.A2A_WAIT_STEP_KIND_POLL_AT, _abi.A2A_WAIT_STEP_KIND_DONE,
    _abi.A2A_WAIT_STEP_KIND_GAVE_UP)

# The structs (Transmit, Correlation, Event, WaitStep, HeaderView) and every function's
# argtypes come from the generated _abi (declared by _lib).


# --- owned handles -------------------------------------------------------------------------


class Config(Owned):
    """Owns one `a2a_machine_config`, built from keyword options (None: the library's
    default). Freed when collected."""

    __slots__ = ('ptr',)
    _free = lib.a2a_machine_config_free

    def __init__(self, *, call_timeout_ms: int | None = None,
                 connect_timeout_ms: int | None = None, max_time_ms: int | None = None,
                 max_response_bytes: int | None = None,
                 stream_idle_timeout_ms: int | None = None,
                 max_event_bytes: int | None = None, card_timeout_ms: int | None = None,
                 send_retries: int | None = None, stream_resubscribes: int | None = None,
                 client_certificate: bool = False, allow_http: bool = False,
                 prefer_card_order: bool = True, ignore_capabilities: bool = False,
                 breaker: _lib.BreakerConfig | None = None,
                 interface: tuple[int, int] = (0, 0), min_protocol: int = 0,
                 card_cache: bool | int | Config = False,
                 texts: Sequence[tuple[int, str]] = (), proxy_disabled: bool = False,
                 pool_idle_timeout_ms: int | None = None) -> None:
        self.ptr = 0
        b = lib.a2a_client_config_builder_new()
        if not b:
            raise error_for(999, 'the library could not make a config builder')
        try:
            def set_option(name: str, value: int) -> None:
                # One typed setter; the option's number is the generated A2A_CLIENT_OPTION_*.
                option = getattr(_abi, f'A2A_CLIENT_OPTION_{name.upper()}')
                check(lib.a2a_client_config_builder_set(b, option, value), f'{name}={value!r}')

            for name, value in (('call_timeout_ms', call_timeout_ms),
                                ('connect_timeout_ms', connect_timeout_ms),
                                ('max_time_ms', max_time_ms),
                                ('max_response_bytes', max_response_bytes),
                                ('stream_idle_timeout_ms', stream_idle_timeout_ms),
                                ('max_event_bytes', max_event_bytes),
                                ('card_timeout_ms', card_timeout_ms),
                                ('send_retries', send_retries),
                                ('stream_resubscribes', stream_resubscribes)):
                if value is not None:
                    set_option(name, value)
            check(lib.a2a_client_config_builder_set(
                b, _abi.A2A_CLIENT_OPTION_CLIENT_CERTIFICATE, bool(client_certificate)))
            check(lib.a2a_client_config_builder_set(
                b, _abi.A2A_CLIENT_OPTION_ALLOW_HTTP, bool(allow_http)))
            check(lib.a2a_client_config_builder_set(
                b, _abi.A2A_CLIENT_OPTION_PREFER_CARD_ORDER, bool(prefer_card_order)))
            if interface != (0, 0):  # (version, binding) codes; 0: any
                version, binding = interface
                for option, value in ((_abi.A2A_CLIENT_OPTION_INTERFACE_VERSION, version),
                                      (_abi.A2A_CLIENT_OPTION_INTERFACE_BINDING, binding)):
                    check(lib.a2a_client_config_builder_set(b, option, value),
                          f'interface={interface!r}')
            check(lib.a2a_client_config_builder_set(
                b, _abi.A2A_CLIENT_OPTION_IGNORE_CAPABILITIES, bool(ignore_capabilities)))
            if min_protocol:  # an a2a_protocol_version code; 0: none
                set_option('min_protocol', min_protocol)
            # True: the process's shared card cache; a Config: its cache; an int > 0: a new
            # cache of that many cards (the shared one is made so).
            if card_cache is True:
                card_cache = shared_card_cache()
            if isinstance(card_cache, Config):
                check(lib.a2a_client_config_builder_set_card_cache(b, 1, card_cache.ptr))
            elif card_cache:
                check(lib.a2a_client_config_builder_set_card_cache(b, int(card_cache), None),
                      f'card_cache={card_cache!r}')
            if breaker is not None:
                check(lib.a2a_client_config_builder_set_breaker(b, ctypes.byref(breaker)))
            # Text options (`A2A_CLIENT_TEXT_OPTION_*`): the hosts a card's interface may
            # point to, and what only the reference driver's transport reads (TLS files,
            # proxy, fixed resolutions).
            for option, text in texts:
                raw = text.encode('utf-8')
                check(lib.a2a_client_config_builder_set_text(b, option, raw, len(raw)),
                      f'text option {option}={text!r}')
            check(lib.a2a_client_config_builder_set(
                b, _abi.A2A_CLIENT_OPTION_PROXY_DISABLED, bool(proxy_disabled)))
            if pool_idle_timeout_ms is not None:
                set_option('pool_idle_timeout_ms', pool_idle_timeout_ms)
            out = c_void_p()
            check(lib.a2a_client_config_builder_build(b, ctypes.byref(out)))
            self.ptr = out.value or 0
        finally:
            lib.a2a_client_config_builder_free(b)


#: The most cards the process's shared card cache keeps (the library's bound).
CARD_CACHE_ENTRIES = 64

_shared_cards: Config | None = None
_shared_cards_lock = threading.Lock()


def shared_card_cache() -> Config:
    """A config whose only use is to own the card cache every client of this process made
    with `card_cache=True` shares (`a2a_client_config_builder_set_card_cache`): a card still
    fresh is not fetched again by the next client, a stale one is revalidated. Its times are
    `time.monotonic()` milliseconds, the clock every driver here passes."""
    global _shared_cards
    with _shared_cards_lock:
        if _shared_cards is None:
            _shared_cards = Config(card_cache=CARD_CACHE_ENTRIES)
        return _shared_cards


class State(Owned):
    """Owns one `a2a_client_state` (thread-safe in the library; each call keeps it alive,
    in the library and here: a `Call` holds its `State`, which holds the header hooks'
    callbacks the library points to)."""

    __slots__ = ('ptr', 'hooks')
    _free = lib.a2a_client_state_free

    def __init__(self, ptr: int) -> None:
        self.ptr = ptr
        self.hooks: list[object] = []

    def add_header_hook(self, callback: object) -> None:
        """Registers an `a2a_header_hook` (a `_lib.HeaderHook`), kept alive with the state
        (it applies to the requests the state's calls hand out from now on)."""
        check(lib.a2a_client_state_add_header_hook(self.ptr, callback, None), 'a header hook')
        self.hooks.append(callback)

    @classmethod
    def for_target(cls, config: Config, url: str, version: int, binding: int,
                   seed: int) -> State:
        u, n = _lib.enc(url)
        out = c_void_p()
        check(lib.a2a_client_state_new(config.ptr, u, n, version, binding, seed,
                                       ctypes.byref(out)))
        return cls(out.value or 0)

    @classmethod
    def from_card(cls, config: Config, card_call: Call, seed: int) -> State:
        out = c_void_p()
        check(lib.a2a_client_state_from_card(config.ptr, card_call.ptr, seed, ctypes.byref(out)))
        return cls(out.value or 0)

    def adopt_extended_card(self, call: Call) -> None:
        """Makes the extended card `call` (a finished, successful GetExtendedAgentCard on
        this state) replace the public card; raises the card's error when it is refused
        (the public card then stays)."""
        check(lib.a2a_client_state_adopt_extended_card(self.ptr, call.ptr))


class Settings(Owned):
    """Owns one `a2a_call_settings` (copied by the library when a call starts)."""

    __slots__ = ('ptr',)
    _free = lib.a2a_call_settings_free

    def __init__(self, *, budget_ms: int | None = None, idempotency_key: str | None = None,
                 traceparent: str | None = None, message_id: str | None = None,
                 headers: Iterable[tuple[str, str]] = (),
                 stream_idle_timeout_ms: int | None = None,
                 return_immediately: bool = False) -> None:
        self.ptr = lib.a2a_call_settings_new() or 0
        if not self.ptr:
            raise error_for(999, 'the library could not make call settings')
        if return_immediately:
            check(lib.a2a_call_settings_set(self.ptr, _abi.A2A_CALL_OPTION_RETURN_IMMEDIATELY, 1))
        if budget_ms:
            check(lib.a2a_call_settings_set(self.ptr, _abi.A2A_CALL_OPTION_BUDGET_MS, budget_ms))
        if stream_idle_timeout_ms:
            check(lib.a2a_call_settings_set(self.ptr, _abi.A2A_CALL_OPTION_STREAM_IDLE_TIMEOUT_MS,
                                            stream_idle_timeout_ms))
        for name, option, value in (
                ('idempotency_key', _abi.A2A_CALL_TEXT_OPTION_IDEMPOTENCY_KEY, idempotency_key),
                ('traceparent', _abi.A2A_CALL_TEXT_OPTION_TRACEPARENT, traceparent),
                ('message_id', _abi.A2A_CALL_TEXT_OPTION_MESSAGE_ID, message_id)):
            if value is not None:
                b, n = _lib.enc(value)
                check(lib.a2a_call_settings_set_text(self.ptr, option, b, n),
                      f'{name}={value!r}')
        for name, value in headers:
            nb, nn = _lib.enc(name)
            vb, vn = _lib.enc(value)
            check(lib.a2a_call_settings_add_header(self.ptr, nb, nn, vb, vn),
                  f'header {name!r}')


class Call(Owned):
    """Owns one `a2a_call`. Used by one driver at a time (`_drive.drive`); every method is
    one short native call."""

    __slots__ = ('ptr', 'transmit', 'event', '_at', 'kept', 'state')
    _free = lib.a2a_call_free

    def __init__(self, ptr: int, state: State | None = None) -> None:
        self.ptr = ptr
        #: The state the call was made on: its hooks' callbacks stay alive with the call.
        self.state = state
        #: Set when an outcome borrowed from the finished call keeps it (see aio): the
        #: driver then leaves freeing it to the collector.
        self.kept = False
        self.transmit = Transmit()
        self.event = Event()
        self._at = c_uint64()

    @classmethod
    def card_fetch(cls, config: Config, source: str) -> Call:
        s, n = _lib.enc(source)
        out = c_void_p()
        check(lib.a2a_call_new_card_fetch(config.ptr, s, n, ctypes.byref(out)))
        return cls(out.value or 0)

    @classmethod
    def new(cls, state: State, method: int, params_json: bytes | None,
            settings: Settings | None, now_ms: int) -> Call:
        out = c_void_p()
        check(lib.a2a_call_new(state.ptr, method, params_json, len(params_json or b''),
                               settings.ptr if settings else None, now_ms, ctypes.byref(out)))
        return cls(out.value or 0, state)

    @classmethod
    def new_text(cls, state: State, streaming: bool, text: str, settings: Settings | None,
                 now_ms: int) -> Call:
        t, n = _lib.enc(text)
        out = c_void_p()
        check(lib.a2a_call_new_text(state.ptr, streaming, t, n,
                                    settings.ptr if settings else None, now_ms,
                                    ctypes.byref(out)))
        return cls(out.value or 0, state)

    def poll_transmit(self, now_ms: int) -> Transmit | None:
        """The next request to perform (its views valid until the next transmit), or None."""
        rc = lib.a2a_call_poll_transmit(self.ptr, now_ms, ctypes.byref(self.transmit))
        if rc == NONE:
            return None
        check(rc)
        return self.transmit

    def poll_event(self) -> Event | None:
        """The next event (views valid until the next mutating call), or None."""
        rc = lib.a2a_call_poll_event(self.ptr, ctypes.byref(self.event))
        if rc == NONE:
            return None
        check(rc)
        return self.event

    def poll_timeout(self) -> int | None:
        """When the machine wants `handle_timeout` (host clock, ms), or None."""
        if lib.a2a_call_poll_timeout(self.ptr, ctypes.byref(self._at)):
            return int(self._at.value)
        return None

    def _input(self, rc: int) -> bool:
        """True when the input was taken; False for a request the machine gave up (stale)
        or a finished call: the host then drops that request."""
        if rc in (CALL_STALE, CALL_FINISHED):
            return False
        check(rc)
        return True

    def handle_head(self, request_id: int, status: int,
                    headers: Sequence[tuple[bytes, bytes]], now_ms: int) -> bool:
        arr = (Header * max(len(headers), 1))()
        for i, (name, value) in enumerate(headers):
            arr[i] = Header(name, len(name), value, len(value))
        return self._input(lib.a2a_call_handle_head(self.ptr, request_id, status, arr,
                                                    len(headers), now_ms))

    def handle_body(self, request_id: int, chunk: bytes, now_ms: int) -> bool:
        return self._input(lib.a2a_call_handle_body(self.ptr, request_id, chunk, len(chunk),
                                                    now_ms))

    def handle_end(self, request_id: int, now_ms: int) -> bool:
        return self._input(lib.a2a_call_handle_end(self.ptr, request_id, now_ms))

    def handle_failure(self, request_id: int, error: int, written: bool, message: str,
                       now_ms: int) -> bool:
        m, n = _lib.enc(message)
        return self._input(lib.a2a_call_handle_failure(self.ptr, request_id, error, written,
                                                       m, n, now_ms))

    def handle_timeout(self, now_ms: int) -> None:
        check(lib.a2a_call_handle_timeout(self.ptr, now_ms))

    def cancel(self, now_ms: int) -> None:
        check(lib.a2a_call_cancel(self.ptr, now_ms))

    def free(self) -> None:
        """Frees the call now (the driver, when no outcome keeps it)."""
        self._release()


class TaskWait(Owned):
    """Owns one `a2a_task_wait`: the core's plan of polling one task until it settles. The
    host makes each poll (`poll`), drives it as any call, reads its outcome (`read`) and
    sleeps until the step's time; nothing else is decided here."""

    __slots__ = ('ptr', 'step')
    _free = lib.a2a_task_wait_free

    def __init__(self, task_id: str, history_length: int | None, first_interval_ms: int,
                 max_interval_ms: int, max_time_ms: int, now_ms: int) -> None:
        t, n = _lib.enc(task_id)
        out = c_void_p()
        self.ptr = 0
        self.step = WaitStep()
        check(lib.a2a_task_wait_new(t, n, -1 if history_length is None else history_length,
                                    first_interval_ms, max_interval_ms, max_time_ms, now_ms,
                                    ctypes.byref(out)), f'task_id={task_id!r}')
        self.ptr = out.value or 0

    def poll(self, state: State, settings: Settings | None, now_ms: int) -> Call:
        """The next poll: a `GetTask` call bounded by the wait's deadline."""
        out = c_void_p()
        check(lib.a2a_task_wait_poll(self.ptr, state.ptr, settings.ptr if settings else None,
                                     now_ms, ctypes.byref(out)))
        return Call(out.value or 0, state)

    def read(self, outcome_ptr: int, now_ms: int) -> WaitStep:
        """What comes after the poll whose outcome is `outcome_ptr` (a GAVE_UP step's
        outcome is the caller's to own)."""
        check(lib.a2a_task_wait_read(self.ptr, outcome_ptr, now_ms, ctypes.byref(self.step)))
        return self.step
