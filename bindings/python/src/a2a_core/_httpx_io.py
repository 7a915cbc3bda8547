"""The two hosts of `_drive.drive` over httpx: `run_async` (an `httpx.AsyncClient` on the
event loop: `AsyncClient`) and `run_sync` (an `httpx.Client`, blocking: `Client(url,
http_client=httpx.Client(...))`). Each performs the driver's `Start`s, hands the responses
in, drops what `Abort` names, passes `Emit`s to the caller and waits as `Wait` says; every
A2A decision is the machine's.

The async host runs each request as a task and wakes the driver on every input; deadlines
are the machine's (`Wait.at`), never a thread's. The sync host performs one request at a
time on the calling thread and reads one chunk per step; a blocking read is bounded by
httpx's read timeout, set from the machine's next deadline when the request starts (for
its head) and again when its head has arrived (for its body: a stream's idle deadline, a
call's remaining time), so that the machine sees each deadline when it passes.
"""

from __future__ import annotations

import asyncio
import re
import select
import ssl
import time
from collections import deque
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import httpx

from . import _machine
from ._drive import (
    LATE_READ,
    Abort,
    CardFinished,
    Emit,
    FetchedCard,
    HookErrors,
    Start,
    Wait,
    card_error,
    drive,
    now_ms,
    run_on,
)
from ._machine import Call, Config, State

__all__ = ['aresolve', 'default_async_client', 'default_sync_client', 'failure_of', 'resolve',
           'run_async', 'run_sync']


def default_async_client(connect_timeout: float = 3.0) -> httpx.AsyncClient:
    """The httpx client `AsyncClient` makes when none is given: connect `connect_timeout`
    seconds (each request's own connect deadline comes from the machine), no other httpx
    timeout (the machine's deadlines end requests), no redirects (an A2A call or card fetch
    that redirects is an outcome, never followed)."""
    return httpx.AsyncClient(timeout=httpx.Timeout(None, connect=connect_timeout),
                             follow_redirects=False)


def default_sync_client(connect_timeout: float = 3.0) -> httpx.Client:
    """`default_async_client`'s blocking twin (for `fetch_card`)."""
    return httpx.Client(timeout=httpx.Timeout(None, connect=connect_timeout),
                        follow_redirects=False)


def failure_of(e: BaseException) -> tuple[int, bool]:
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


# The parsed URL of each agent endpoint: httpx keeps a request's parsed URL (its parse
# result and component strings) for the request's life, an idle stream's; an `httpx.URL`
# handed to `build_request` is shared, not parsed again (about 0.45 KiB of RSS per open
# stream, and the parse, a quarter of `build_request`'s instructions). URLs are immutable; at
# most _URLS_MAX kept (the cache starts over when full).
_urls: dict[str, httpx.URL] = {}
_URLS_MAX = 64


def _url(url: str) -> httpx.URL:
    """The shared `httpx.URL` of `url` (see above)."""
    parsed = _urls.get(url)
    if parsed is None:
        parsed = httpx.URL(url)
        if len(_urls) >= _URLS_MAX:
            _urls.clear()
        _urls[url] = parsed
    return parsed


# The header names of the machine's requests and the values of those that never carry an id
# or a credential repeat on every request, and httpx keeps them with the request: one shared
# copy of each instead of the request's own (about 0.3 KiB of RSS per open stream). Bounded:
# names and values stop being added at _SHARED_MAX entries (a new one is then kept as is).
_shared_names: dict[bytes, tuple[bytes, bool]] = {}
_shared_values: dict[bytes, bytes] = {}
_SHARED_MAX = 64
# Lowercased names whose values are shared: constants, never an id, token or credential.
_SHARED_VALUE_OF = frozenset((b'content-type', b'accept', b'a2a-version'))


def _shared_headers(headers: list[tuple[bytes, bytes]]) -> list[tuple[bytes, bytes]]:
    """`headers` with each name, and each constant value, the shared copy (see above)."""
    out: list[tuple[bytes, bytes]] = []
    for name, value in headers:
        known = _shared_names.get(name)
        if known is None:
            known = (name, name.lower() in _SHARED_VALUE_OF)
            if len(_shared_names) < _SHARED_MAX:
                _shared_names[name] = known
        if known[1]:
            shared = _shared_values.get(value)
            if shared is not None:
                value = shared
            elif len(_shared_values) < _SHARED_MAX:
                _shared_values[value] = value
        out.append((known[0], value))
    return out


def _request(http: httpx.Client | httpx.AsyncClient, s: Start, streaming: bool,
             read_by_ms: int | None) -> httpx.Request:
    """The httpx request of a `Start`: connect bounded by the machine's connect deadline,
    reads (of the head) by `read_by_ms` (None: unbounded, the machine's timers end it)."""
    now = now_ms()
    connect = max(s.connect_by_ms - now, 1) / 1000
    read = max(read_by_ms - now, 1) / 1000 if read_by_ms is not None else None
    req = http.build_request(s.method, _url(s.url), headers=_shared_headers(s.headers),
                             content=s.body if s.body else None,
                             timeout=httpx.Timeout(read, connect=connect, pool=connect))
    if streaming:
        # a stream is read as it arrives: no compression to wait on or undo
        req.headers['Accept-Encoding'] = 'identity'
    return req


def _head(response: httpx.Response) -> list[tuple[bytes, bytes]]:
    return [(k, v.decode('utf-8', 'replace').encode('utf-8')) for k, v in response.headers.raw]


def _feed(call: Call | None, fn: str, *args: Any) -> bool:
    """One input to the machine; False when the call is gone, the request is stale or the
    call finished (the request is then dropped)."""
    if call is None:
        return False
    return bool(getattr(call, fn)(*args, now_ms()))


# --- asyncio -------------------------------------------------------------------------------


class _AsyncHost:
    """Runs one call's requests as tasks on the caller's `httpx.AsyncClient`."""

    # The driver's wake-up and the readers' room are futures made only while someone waits
    # on them (an asyncio.Event holds a deque of 0.7 KiB from the start: two per open stream).
    __slots__ = ('http', 'call', 'streaming', 'requests', 'error', 'loop', 'woken',
                 'has_room', 'room_waiters')

    def __init__(self, http: httpx.AsyncClient, call: Call, streaming: bool) -> None:
        self.http = http
        self.call: Call | None = call
        self.streaming = streaming
        self.requests: dict[int, asyncio.Task[None]] = {}
        self.error: BaseException | None = None
        self.loop = asyncio.get_running_loop()
        #: What the driver's `wait` awaits: done by the next input (None: not waiting).
        self.woken: asyncio.Future[None] | None = None
        #: Whether the driver has taken every event (a stream's reader then reads on).
        self.has_room = True
        #: The readers waiting for room, each on a future of its own.
        self.room_waiters: list[asyncio.Future[None]] | None = None

    def wake(self) -> None:
        w = self.woken
        if w is not None:
            self.woken = None
            if not w.done():
                w.set_result(None)

    def give_room(self) -> None:
        self.has_room = True
        waiters, self.room_waiters = self.room_waiters, None
        for w in waiters or ():
            if not w.done():
                w.set_result(None)

    def feed(self, fn: str, *args: Any) -> bool:
        try:
            return _feed(self.call, fn, *args)
        finally:
            self.wake()

    async def perform(self, s: Start) -> None:
        rid = s.request_id
        response: httpx.Response | None = None
        try:
            req = _request(self.http, s, self.streaming, None)
            del s  # its copies (headers, body) are httpx's now, kept by the request
            try:
                response = await self.http.send(req, stream=True, follow_redirects=False)
            except httpx.RequestError as e:
                err, written = failure_of(e)
                self.feed('handle_failure', rid, err, written, f'{type(e).__name__}: {e}')
                return
            except RuntimeError as e:
                if not self.http.is_closed:
                    raise
                # the client was closed under this call (a retry or resubscribe after it)
                self.feed('handle_failure', rid, _machine.ERR_CONNECT_FAILED, False,
                          f'the HTTP client is closed: {e}')
                return
            if not self.feed('handle_head', rid, response.status_code, _head(response)):
                return
            try:
                # Without a Content-Encoding httpx's decoding is the identity: the raw
                # iterator gives the same chunks with one async generator, chunker and
                # buffer fewer kept for the response's life.
                chunks = (response.aiter_bytes() if 'content-encoding' in response.headers
                          else response.aiter_raw())
                async for chunk in chunks:
                    if not self.feed('handle_body', rid, chunk):
                        return
                    if self.streaming and not self.has_room:
                        # bounded memory: the reader keeps pace
                        room = self.loop.create_future()
                        if self.room_waiters is None:
                            self.room_waiters = []
                        self.room_waiters.append(room)
                        await room
                    self.has_room = False
            except httpx.RequestError as e:
                err, written = failure_of(e)
                self.feed('handle_failure', rid, err, written, f'{type(e).__name__}: {e}')
                return
            self.feed('handle_end', rid)
        except asyncio.CancelledError:
            raise
        except Exception as e:  # a bug or a refused input: the driver raises it
            if self.error is None:
                self.error = e
            self.wake()
        finally:
            try:
                if response is not None:
                    await response.aclose()
            finally:
                # Leaves the requests (`drop` and `close` take a task that never ran).
                if self.requests.get(rid) is asyncio.current_task():
                    del self.requests[rid]

    def start(self, s: Start) -> None:
        self.requests[s.request_id] = asyncio.ensure_future(self.perform(s))

    async def wait(self, at: int | None) -> bool:
        """Until an input (False) or `at` (True)."""
        self.give_room()
        if self.error is not None:
            return False
        woken = self.woken = self.loop.create_future()
        try:
            if at is None:
                await woken
                return False
            # Passed already: one loop turn of LATE_READ takes what came meanwhile.
            wait = max((at - now_ms() + 1) / 1000, LATE_READ)
            try:
                await asyncio.wait_for(woken, wait)
                return False
            except asyncio.TimeoutError:
                return True
        finally:
            if self.woken is woken:
                self.woken = None

    def drop(self, request_id: int) -> None:
        task = self.requests.pop(request_id, None)
        if task is not None:
            task.cancel()  # it closes its response

    def close(self) -> None:
        self.call = None  # no input after this
        for task in list(self.requests.values()):
            task.cancel()  # each closes its response
        self.requests.clear()


def run_async(http: httpx.AsyncClient, call: Call, streaming: bool,
              on_finished: Callable[[Any, Call], Any],
              on_item: Callable[[Any], Any] | None = None,
              hook_errors: HookErrors | None = None) -> AsyncIterator[Any]:
    """Drives `call` on the event loop: yields the emitted values, ending after the
    finished call's. Leaving early (or cancellation) cancels the call and its requests."""
    return run_on(lambda: _AsyncHost(http, call, streaming),
                  drive(call, on_finished, on_item, hook_errors))


# --- blocking ------------------------------------------------------------------------------


class _SyncRequest:
    """The request being read: its response and its byte iterator."""

    __slots__ = ('rid', 'response', 'chunks')

    def __init__(self, rid: int, response: httpx.Response) -> None:
        self.rid = rid
        self.response = response
        self.chunks = response.iter_bytes()

    def close(self) -> None:
        self.response.close()


# A chunk-size line (RFC 9112 §7.1: hex size, optional extensions, CRLF or a bare LF as h11
# accepts), after the CRLF that ended the previous chunk's data.
_CHUNK_HEAD = re.compile(rb'(?:\r?\n)?([0-9A-Fa-f]+)[^\r\n]*\r?\n')


def _parser_holds_body(current: _SyncRequest) -> bool:
    """Whether httpx's HTTP/1.1 parser (h11, under httpcore) already holds body bytes it
    would hand out without reading the socket: one `recv` takes up to 64 KiB, and h11 gives a
    chunked body one chunk at a time, so the events a server sent in quick succession wait
    there, not on the socket, while the caller is away. Read through httpx's and httpcore's
    private attributes and h11's public `trailing_data`; False whenever one is missing (an
    HTTP/2 connection, another transport, other versions: the socket check still runs)."""
    obj: Any = current.response.stream
    for attr in ('_stream', '_httpcore_stream', '_stream', '_connection', '_h11_state'):
        obj = getattr(obj, attr, None)
        if obj is None:
            return False
    try:
        held, closed = obj.trailing_data
    except (AttributeError, TypeError, ValueError):
        return False
    if closed:
        return True  # the connection's end is known: the next read returns at once
    if not held or current.response.headers.get('transfer-encoding') is None:
        # Content-Length and read-to-close bodies: h11 hands out all it holds at once.
        return False
    head = _CHUNK_HEAD.match(held)
    if head is None:
        return False  # a partial chunk-size line: the rest is still to come
    if int(head.group(1), 16) > 0:
        return len(held) > head.end()  # some of the next chunk's data
    rest = held[head.end():]  # the last chunk: the body ends at the blank line
    return rest.startswith((b'\r\n', b'\n')) or b'\n\r\n' in rest or b'\n\n' in rest


def _bytes_wait(current: _SyncRequest | None) -> bool:
    """Whether the body being read has bytes waiting, in httpx's parser or on its socket
    (within LATE_READ): a deadline that passed while the caller was away does not cut what
    came meanwhile. False when httpx's transport exposes neither."""
    if current is None:
        return False
    if _parser_holds_body(current):
        return True
    stream = current.response.extensions.get('network_stream')
    try:
        sock = stream.get_extra_info('socket') if stream is not None else None
        if sock is None:
            return False
        tls = stream.get_extra_info('ssl_object')
        if tls is not None and tls.pending():
            return True
        readable, _, _ = select.select([sock], [], [], LATE_READ)
        return bool(readable)
    except (OSError, ValueError, AttributeError):
        return False


class _SyncHost:
    """Performs one call's requests on the calling thread, one at a time."""

    def __init__(self, http: httpx.Client, call: Call, streaming: bool) -> None:
        self.http = http
        self.call = call
        self.streaming = streaming
        self.queue: deque[Start] = deque()
        self.current: _SyncRequest | None = None

    def abort(self, rid: int) -> None:
        if self.current is not None and self.current.rid == rid:
            self.current.close()
            self.current = None
        else:
            for s in list(self.queue):
                if s.request_id == rid:
                    self.queue.remove(s)

    def _read_timeout_to(self, response: httpx.Response, at: int | None) -> None:
        """Bounds the body's reads by the machine's deadline `at`: httpx reads the request's
        timeouts when the body is first read, after the head (a host that ignores it still
        ends the read at the head's bound, the machine then deciding what it means)."""
        timeouts = dict(response.request.extensions.get('timeout') or {})
        timeouts['read'] = max(at - now_ms(), 1) / 1000 if at is not None else None
        response.request.extensions['timeout'] = timeouts

    def step(self, at: int | None) -> bool:
        """One blocking step bounded by `at`; True when `at` passed (a timeout for the
        machine), False after an input."""
        call = self.call
        if at is not None and now_ms() >= at and not _bytes_wait(self.current):
            return True
        if self.current is None and self.queue:
            s = self.queue.popleft()
            rid = s.request_id
            try:
                response = self.http.send(_request(self.http, s, self.streaming, at),
                                          stream=True, follow_redirects=False)
            except httpx.TimeoutException as e:
                if at is not None and now_ms() >= at and not isinstance(
                        e, (httpx.ConnectTimeout, httpx.PoolTimeout)):
                    return True
                err, written = failure_of(e)
                _feed(call, 'handle_failure', rid, err, written, f'{type(e).__name__}: {e}')
                return False
            except httpx.RequestError as e:
                err, written = failure_of(e)
                _feed(call, 'handle_failure', rid, err, written, f'{type(e).__name__}: {e}')
                return False
            except RuntimeError as e:
                if not self.http.is_closed:
                    raise
                _feed(call, 'handle_failure', rid, _machine.ERR_CONNECT_FAILED, False,
                      f'the HTTP client is closed: {e}')
                return False
            self.current = _SyncRequest(rid, response)
            if not _feed(call, 'handle_head', rid, response.status_code, _head(response)):
                self.abort(rid)
                return False
            self._read_timeout_to(response, call.poll_timeout())
            return False
        cur = self.current
        if cur is not None:
            try:
                chunk = next(cur.chunks)
            except StopIteration:
                self.abort(cur.rid)
                _feed(call, 'handle_end', cur.rid)
                return False
            except httpx.RequestError as e:
                self.abort(cur.rid)
                if isinstance(e, httpx.TimeoutException) and at is not None and now_ms() >= at:
                    return True  # the machine's deadline: it says what passed (idle, call)
                err, written = failure_of(e)
                _feed(call, 'handle_failure', cur.rid, err, written, f'{type(e).__name__}: {e}')
                return False
            if not _feed(call, 'handle_body', cur.rid, chunk):
                self.abort(cur.rid)
            return False
        if at is None:
            raise RuntimeError('the client machine waits with no request and no deadline')
        # nothing to read: a retry's delay
        time.sleep(max(at - now_ms(), 0) / 1000)
        return True

    def close(self) -> None:
        if self.current is not None:
            self.current.close()
            self.current = None
        self.queue.clear()


def run_sync(http: httpx.Client, call: Call, streaming: bool,
             on_finished: Callable[[Any, Call], Any],
             on_item: Callable[[Any], Any] | None = None,
             hook_errors: HookErrors | None = None) -> Iterator[Any]:
    """Drives `call` on the calling thread (BLOCKS in each step): yields the emitted
    values, ending after the finished call's. Closing the generator early cancels the call
    and closes its response."""
    host = _SyncHost(http, call, streaming)
    steps = drive(call, on_finished, on_item, hook_errors)
    try:
        action = next(steps)
        while True:
            if isinstance(action, Start):
                host.queue.append(action)
            elif isinstance(action, Abort):
                host.abort(action.request_id)
            elif isinstance(action, Emit):
                yield action.value
            elif isinstance(action, list):
                yield from action
            else:
                assert isinstance(action, Wait)
                action = steps.send(host.step(action.at))
                continue
            action = next(steps)
    except StopIteration:
        return
    finally:
        host.close()
        steps.close()


# --- card resolution -----------------------------------------------------------------------


async def aresolve(http: Any, config: Config, source: str, seed: int | None,
                   run: Callable[..., AsyncIterator[Any]] | None = None
                   ) -> tuple[FetchedCard, State | None]:
    """Fetches and validates the card at `source`: the card, and the state for its
    interface when `seed` is given (CardResolutionError with the outcome when it fails).
    `run`: the host that drives the fetch on `http` (`run_async`, an `httpx.AsyncClient`;
    or `_asyncio_http.run_native`, a `NativePool`)."""
    done = CardFinished(config, seed)
    go = run or run_async
    got = [v async for v in go(http, Call.card_fetch(config, source), False, done)]
    card, outcome = got[-1]
    if card is None:
        raise card_error(source, outcome)
    return card, done.state


def resolve(http: httpx.Client, config: Config, source: str,
            seed: int | None) -> tuple[FetchedCard, State | None]:
    """`aresolve` on the blocking host."""
    done = CardFinished(config, seed)
    got = list(run_sync(http, Call.card_fetch(config, source), False, done))
    card, outcome = got[-1]
    if card is None:
        raise card_error(source, outcome)
    return card, done.state
