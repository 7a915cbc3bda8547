"""HTTP/1.1 on plain asyncio: the host `AsyncClient` runs the core's client machine on when
it is given no `http_client` (`run_native`, beside `_httpx_io.run_async`).

One job: perform the driver's `Start`s over keep-alive connections (`asyncio.Protocol`,
no streams, no task per request on a reused connection) and hand each response to the
machine as it arrives: the head (status line and headers, at most `MAX_HEAD` bytes), the
body framed by `Content-Length`, `Transfer-Encoding: chunked` (parsed incrementally:
chunk boundaries may fall anywhere, trailers are read and dropped, a chunk-size line is
bounded) or the connection's end, then the end or a failure. Every A2A decision (retries,
deadlines, the outcome) is the machine's, as on the httpx host.

Failures are named as `_httpx_io.failure_of` names httpx's: a connect error, a connect
timeout, a name that does not resolve, a TLS handshake that fails mean nothing was written
(`written=False`); anything after the request was handed to the socket (a reset, the
connection closed before or during the response, a response that is not HTTP) means it may
have arrived (`written=True`), also on a reused connection that the server closed before
answering: the server may have read the request first, so the machine never resends a send
on that evidence alone. A pooled connection that is already known closed (its end was
read while it idled) or idled longer than `IDLE_EXPIRY` is never used.

Pool: per (scheme, host, port), at most `max_idle` idle connections; a connection goes back
only after its response was read to its end with keep-alive (HTTP/1.1 without
`Connection: close`), with no byte after it. An `Abort`, a response the machine dropped
and a call that ended with its request in flight close that request's connection.
Requests ask `Accept-Encoding: identity` (streams are read as they arrive); a gzip or
deflate body sent anyway is decompressed as it arrives (the machine reads bodies decoded),
another content coding fails the request instead of its head. TLS: the context httpx makes by default (certifi's roots, or `SSL_CERT_FILE` /
`SSL_CERT_DIR`), SNI and hostname check.

Why not h11 (the sans-IO HTTP/1.1 library under httpcore): measured on the project's
2-vCPU machine (2026-12-05, CPython 3.11), one request and its 438-byte JSON answer through
`h11.Connection` cost about 70 µs of CPU, half again a whole send on this host (about 136
µs, machine and asyncio included); the framing here reads only what a client needs and is
tested on every split (tests/test_asyncio_http.py).
"""

from __future__ import annotations

import asyncio
import os
import socket
import ssl
import time
import urllib.request
import zlib
from collections.abc import AsyncIterator, Callable
from typing import Any
from urllib.parse import quote, urlsplit

from . import _lib, _machine
from ._drive import LATE_READ, HookErrors, Start, drive, now_ms, run_on
from ._machine import Call

__all__ = ['NativePool', 'proxied', 'run_native']

#: The most bytes a response head may take (status line and headers).
MAX_HEAD = 64 * 1024
#: The most bytes a chunk-size line (with its extensions) may take.
MAX_CHUNK_LINE = 4096
#: The most bytes the trailers of a chunked body may take.
MAX_TRAILERS = 64 * 1024
#: Seconds an idle connection is kept (httpx's keep-alive expiry).
IDLE_EXPIRY = 5.0

_HEX = frozenset(b'0123456789abcdefABCDEF')
_NO_BODY_STATUS = frozenset((204, 304))
_DEFAULT_PORT = {'http': 80, 'https': 443}
_USER_AGENT = b'a2a-core-python'

# parser states of a connection
_IDLE, _HEAD, _LENGTH, _CLOSE, _SIZE, _DATA, _DATA_END, _TRAILERS = range(8)


class _Garbage(Exception):
    """The response is not HTTP/1.1 the way this reader takes it."""


def proxied(url: str) -> bool:
    """Whether the environment names a proxy for `url` (as httpx's `trust_env` reads it:
    `HTTP(S)_PROXY`, `ALL_PROXY`, `NO_PROXY`)."""
    proxies = urllib.request.getproxies()
    if not proxies:
        return False
    parts = urlsplit(url)
    if not (proxies.get(parts.scheme) or proxies.get('all')):
        return False
    host = parts.hostname or ''
    try:
        return not urllib.request.proxy_bypass(host)
    except Exception:  # an unreadable NO_PROXY: as httpx, use the proxy
        return True


def _ssl_context() -> ssl.SSLContext:
    """The TLS context httpx's default client makes (trust_env): `SSL_CERT_FILE`,
    `SSL_CERT_DIR`, else certifi's roots (the system's when certifi is missing)."""
    if os.environ.get('SSL_CERT_FILE'):
        ctx = ssl.create_default_context(cafile=os.environ['SSL_CERT_FILE'])
    elif os.environ.get('SSL_CERT_DIR'):
        ctx = ssl.create_default_context(capath=os.environ['SSL_CERT_DIR'])
    else:
        try:
            import certifi
            ctx = ssl.create_default_context(cafile=certifi.where())
        except ImportError:  # pragma: no cover - httpx depends on certifi
            ctx = ssl.create_default_context()
    ctx.set_alpn_protocols(['http/1.1'])
    return ctx


class _Route:
    """Where a URL's requests go: the pool key, the Host header and the request target."""

    __slots__ = ('key', 'host', 'port', 'tls', 'authority', 'target')

    def __init__(self, url: str) -> None:
        p = urlsplit(url)
        scheme = p.scheme.lower()
        if scheme not in _DEFAULT_PORT or not p.hostname:
            raise ValueError(f'not an http(s) URL: {url!r}')
        self.host = p.hostname
        port = p.port or _DEFAULT_PORT[scheme]
        self.port = port
        self.tls = scheme == 'https'
        self.key = (scheme, self.host, port)
        name = f'[{self.host}]' if ':' in self.host else self.host
        self.authority = (name if port == _DEFAULT_PORT[scheme] else f'{name}:{port}').encode(
            'idna' if not name.isascii() else 'ascii')
        target = p.path or '/'
        if p.query:
            target += '?' + p.query
        if not target.isascii():
            target = quote(target, safe="/%:@!$&'()*+,;=?-._~")
        self.target = target.encode('ascii')


class _Conn(asyncio.Protocol):
    """One connection and the response being read on it (one request at a time)."""

    def __init__(self, pool: NativePool, key: tuple[str, str, int]) -> None:
        self.pool = pool
        self.key = key
        self.transport: asyncio.Transport | None = None
        self.host: _NativeHost | None = None
        self.rid = 0
        self.state = _IDLE
        self.buf = bytearray()
        self.remaining = 0
        self.keep = True
        self.no_body = False
        self.got = False  # a response byte arrived for the current request
        self.reused = False
        self.closed = False
        self.idle_since = 0.0
        self.decoder: Any = None  # a zlib decompressor: the body is gzip or deflate
        self.coded = False  # a compressed byte arrived

    # --- asyncio.Protocol

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]

    def data_received(self, data: bytes) -> None:
        if self.host is None:
            self.close()  # bytes nobody asked for: the connection cannot be trusted
            return
        self.got = True
        if self.buf:
            self.buf += data
        else:
            self.buf = bytearray(data)
        try:
            self._parse()
        except _Garbage as e:
            self._fail(_machine.ERR_RESET, True, f'malformed HTTP response: {e}')

    def eof_received(self) -> bool:
        if self.host is not None:
            if self.state == _CLOSE:
                self._end_at_close()
            else:
                self._lost('the server closed the connection')
        return False

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        self.pool._forget(self)
        if self.host is not None:
            if self.state == _CLOSE and exc is None:
                self._end_at_close()
            else:
                self._lost(f'the connection was lost: {exc}' if exc is not None
                           else 'the server closed the connection')

    # --- one exchange

    def begin(self, host: _NativeHost, rid: int, request: bytes, no_body: bool) -> None:
        """Writes `request` and reads its response for `host`'s request `rid`."""
        self.host = host
        self.rid = rid
        self.state = _HEAD
        self.got = False
        self.no_body = no_body
        self.keep = True
        self.decoder = None
        self.coded = False
        assert self.transport is not None
        self.transport.write(request)

    def close(self) -> None:
        """Closes the connection now (its current request, if any, is dropped unfed)."""
        self.host = None
        self.state = _IDLE
        if not self.closed:
            self.closed = True
            self.pool._forget(self)
            if self.transport is not None:
                try:
                    self.transport.abort()
                except RuntimeError:  # its event loop is closed: the socket goes with it
                    pass

    def _end_at_close(self) -> None:
        """The end of a body read to the connection's end."""
        if self.decoder is None:
            self._complete(reusable=False)
            return
        self.keep = False
        try:
            self._decoded(self.host, b'', True)  # type: ignore[arg-type]
        except _Garbage as e:
            self._fail(_machine.ERR_RESET, True, f'malformed HTTP response: {e}')

    def _lost(self, why: str) -> None:
        what = 'before any response byte' if not self.got else 'before the response ended'
        again = ' (a reused connection)' if self.reused and not self.got else ''
        self._fail(_machine.ERR_RESET, True, f'{why} {what}{again}')

    def _fail(self, err: int, written: bool, message: str) -> None:
        host, rid = self.host, self.rid
        self.close()
        if host is not None:
            host.failed(rid, err, written, message)

    def _complete(self, reusable: bool) -> None:
        host, rid = self.host, self.rid
        self.host = None
        self.state = _IDLE
        if reusable and self.keep and not self.buf and not self.closed:
            self.pool._put(self)
        else:
            self.close()
        if host is not None:
            host.ended(rid)

    def _parse(self) -> None:
        host = self.host
        if self.state == _HEAD and not self._head():
            return
        if self.host is not host or host is None:
            return  # the head was dropped
        out: list[bytes] = []
        done = self._body(out)
        if self.decoder is not None and (out or done):
            return self._decoded(host, b''.join(out), done)
        if out:
            chunk = out[0] if len(out) == 1 else b''.join(out)
            if chunk and not host.body(self, self.rid, chunk):
                return
        if done:
            self._complete(reusable=True)

    def _decoded(self, host: _NativeHost, chunk: bytes, done: bool) -> None:
        """Hands in `chunk` decompressed, at most 1 MiB at a time (the machine's response
        limit ends a bomb); at the body's end the stream must have ended too."""
        d = self.decoder
        try:
            data = chunk
            if data:
                self.coded = True
            while data:
                piece = d.decompress(data, 1 << 20)
                data = d.unconsumed_tail
                if piece and not host.body(self, self.rid, piece):
                    return
            if done:
                tail = d.flush()
                if tail and not host.body(self, self.rid, tail):
                    return
                if self.coded and not d.eof:
                    raise _Garbage('the compressed body ends early')
        except zlib.error as e:
            raise _Garbage(f'the compressed body does not decode: {e}') from e
        if done:
            self._complete(reusable=True)

    def _head(self) -> bool:
        """Reads a head off the buffer: True when one was handed in and its body follows."""
        while True:
            buf = self.buf
            end = buf.find(b'\r\n\r\n')
            if end < 0:
                if len(buf) > MAX_HEAD:
                    raise _Garbage(f'response head over {MAX_HEAD} bytes')
                return False
            if end + 4 > MAX_HEAD:
                raise _Garbage(f'response head over {MAX_HEAD} bytes')
            lines = bytes(buf[:end]).split(b'\r\n')
            del buf[:end + 4]
            status, headers, length, chunked, close, coding = _read_head(lines)
            if 100 <= status < 200 and status != 101:
                continue  # an interim response: the final one follows
            break
        self.keep = not close
        bodyless = self.no_body or status in _NO_BODY_STATUS or 100 <= status < 200
        if bodyless:
            coding = b''  # no body to decode
        if coding in (b'gzip', b'x-gzip'):
            self.decoder = zlib.decompressobj(16 + zlib.MAX_WBITS)
        elif coding == b'deflate':
            self.decoder = zlib.decompressobj()
        elif coding:
            # the machine reads bodies decoded: one it cannot read is a failure, not events
            raise _Garbage(f'Content-Encoding {coding[:40].decode("latin-1")!r} '
                           'is not decoded here')
        if bodyless:
            self.state = _LENGTH
            self.remaining = 0
        elif chunked:
            self.state = _SIZE
        elif length is not None:
            self.state = _LENGTH
            self.remaining = length
        else:
            self.state = _CLOSE
            self.keep = False
        host = self.host
        assert host is not None
        return host.head(self, self.rid, status, headers)

    def _body(self, out: list[bytes]) -> bool:
        """Takes the body bytes in the buffer into `out`; True when the body ended."""
        buf = self.buf
        state = self.state
        if state == _LENGTH:
            n = self.remaining
            if len(buf) <= n:
                if buf:
                    out.append(bytes(buf))
                    self.remaining = n - len(buf)
                    buf.clear()
                return self.remaining == 0
            out.append(bytes(buf[:n]))
            del buf[:n]
            self.remaining = 0
            return True  # bytes after the body: _complete does not reuse the connection
        if state == _CLOSE:
            if buf:
                out.append(bytes(buf))
                buf.clear()
            return False
        return self._chunked(out)

    def _chunked(self, out: list[bytes]) -> bool:
        buf = self.buf
        sp = _lib.SPEEDUPS
        if sp is not None and buf and self.state != _TRAILERS:
            # The compiled path takes the well-formed chunks in one call (a stream's events
            # are usually a chunk each); the loop below goes on from where it stopped.
            data, used, self.state, self.remaining = sp.dechunk(buf, self.state, self.remaining)
            if used:
                del buf[:used]
            if data:
                out.append(data)
        while buf:
            state = self.state
            if state == _DATA:
                n = self.remaining
                if len(buf) <= n:
                    out.append(bytes(buf))
                    self.remaining = n - len(buf)
                    buf.clear()
                    if self.remaining == 0:
                        self.state = _DATA_END
                    return False
                out.append(bytes(buf[:n]))
                del buf[:n]
                self.remaining = 0
                self.state = _DATA_END
            elif state == _DATA_END:
                if len(buf) < 2:
                    if buf[:1] != b'\r':
                        raise _Garbage('no CRLF after a chunk')
                    return False
                if buf[:2] != b'\r\n':
                    raise _Garbage('no CRLF after a chunk')
                del buf[:2]
                self.state = _SIZE
            elif state == _SIZE:
                i = buf.find(b'\n')
                if i < 0 or i > MAX_CHUNK_LINE:
                    if i > MAX_CHUNK_LINE or len(buf) > MAX_CHUNK_LINE:
                        raise _Garbage(f'chunk-size line over {MAX_CHUNK_LINE} bytes')
                    return False
                line = bytes(buf[:i]).rstrip(b'\r')
                del buf[:i + 1]
                size = line.split(b';', 1)[0].strip(b' \t')
                if not size or len(size) > 16 or not _HEX.issuperset(size):
                    raise _Garbage(f'bad chunk size {line[:40]!r}')
                n = int(size, 16)
                if n == 0:
                    self.state = _TRAILERS
                    self.remaining = 0  # trailer bytes read
                else:
                    self.state = _DATA
                    self.remaining = n
            else:  # _TRAILERS
                i = buf.find(b'\n')
                if i < 0:
                    if self.remaining + len(buf) > MAX_TRAILERS:
                        raise _Garbage(f'trailers over {MAX_TRAILERS} bytes')
                    return False
                line = bytes(buf[:i]).rstrip(b'\r')
                del buf[:i + 1]
                self.remaining += i + 1
                if self.remaining > MAX_TRAILERS:
                    raise _Garbage(f'trailers over {MAX_TRAILERS} bytes')
                if not line:
                    return True
        return False


def _read_head(lines: list[bytes]) -> tuple[int, list[tuple[bytes, bytes]], int | None,
                                             bool, bool, bytes]:
    """The status, the headers (values valid UTF-8), the Content-Length, whether the body
    is chunked, whether the connection closes after it and the content coding (b'' for
    identity), of a head's lines."""
    version, _, rest = lines[0].partition(b' ')
    code = rest[:3]
    if (version not in (b'HTTP/1.1', b'HTTP/1.0') or len(code) != 3 or not code.isdigit()
            or rest[3:4] not in (b'', b' ')):
        raise _Garbage(f'bad status line {lines[0][:60]!r}')
    status = int(code)
    headers: list[tuple[bytes, bytes]] = []
    length: int | None = None
    chunked = False
    te = False
    coding = b''
    close = version == b'HTTP/1.0'
    for line in lines[1:]:
        name, sep, value = line.partition(b':')
        if not sep or not name or name[-1:] in (b' ', b'\t') or line[:1] in (b' ', b'\t'):
            raise _Garbage(f'bad header line {line[:60]!r}')
        value = value.strip(b' \t')
        lower = name.lower()
        if lower == b'content-length':
            values = {v.strip() for v in value.split(b',')}
            if len(values) != 1:
                raise _Garbage('conflicting Content-Length')
            v = values.pop()
            if not v.isdigit() or (length is not None and int(v) != length):
                raise _Garbage(f'bad Content-Length {value[:30]!r}')
            length = int(v)
        elif lower == b'transfer-encoding':
            te = True
            chunked = value.rsplit(b',', 1)[-1].strip().lower() == b'chunked'
        elif lower == b'content-encoding':
            coding = b','.join(c.strip() for c in value.lower().split(b',')
                               if c.strip() not in (b'', b'identity'))
        elif lower == b'connection':
            tokens = {t.strip().lower() for t in value.split(b',')}
            if b'close' in tokens:
                close = True
            elif b'keep-alive' in tokens:
                close = close and version != b'HTTP/1.0'
        if not value.isascii():
            value = value.decode('utf-8', 'replace').encode('utf-8')
        headers.append((name, value))
    if te:
        length = None  # Transfer-Encoding wins; not chunked last: read to the end
        if not chunked:
            close = True
    return status, headers, length, chunked, close, coding


class NativePool:
    """The connections of one `AsyncClient`: at most `max_idle` idle ones per (scheme, host,
    port), each dropped after `IDLE_EXPIRY` seconds idle. `aclose()` closes them all; a
    request in flight then fails (`written=True`), a new one fails unsent."""

    def __init__(self, connect_timeout: float = 3.0, max_idle: int = 32) -> None:
        self.connect_timeout = connect_timeout
        self.max_idle = max_idle
        self.closed = False
        self._idle: dict[tuple[str, str, int], list[_Conn]] = {}
        self._conns: set[_Conn] = set()
        self._ssl: ssl.SSLContext | None = None
        self._routes: dict[str, _Route] = {}
        self._loop: asyncio.AbstractEventLoop | None = None

    def route(self, url: str) -> _Route:
        """Where `url`'s requests go (kept for the last 64 URLs)."""
        r = self._routes.get(url)
        if r is None:
            r = _Route(url)
            if len(self._routes) >= 64:
                self._routes.clear()
            self._routes[url] = r
        return r

    def ssl_context(self) -> ssl.SSLContext:
        """The TLS context of this pool's https connections, made on first use."""
        if self._ssl is None:
            self._ssl = _ssl_context()
        return self._ssl

    def take(self, key: tuple[str, str, int]) -> _Conn | None:
        """An idle connection to `key` that is not known closed, or None."""
        loop = asyncio.get_running_loop()
        if loop is not self._loop:
            self._other_loop(loop)
        idle = self._idle.get(key)
        if not idle:
            return None
        oldest = time.monotonic() - IDLE_EXPIRY
        while idle:
            conn = idle.pop()
            t = conn.transport
            if conn.closed or t is None or t.is_closing() or conn.idle_since < oldest:
                conn.close()
                continue
            conn.reused = True
            return conn
        return None

    def _other_loop(self, loop: asyncio.AbstractEventLoop) -> None:
        """The client is used on another event loop (a second `asyncio.run`): the idle
        connections belong to the first one and are let go."""
        for conns in list(self._idle.values()):
            for conn in list(conns):
                conn.close()
        self._idle.clear()
        self._loop = loop

    def _put(self, conn: _Conn) -> None:
        idle = self._idle.setdefault(conn.key, [])
        if self.closed or len(idle) >= self.max_idle:
            conn.close()
            return
        conn.idle_since = time.monotonic()
        idle.append(conn)

    def _forget(self, conn: _Conn) -> None:
        self._conns.discard(conn)
        idle = self._idle.get(conn.key)
        if idle and conn in idle:
            idle.remove(conn)

    async def connect(self, r: _Route, connect_by_ms: int) -> _Conn:
        """A new connection for `r`, bounded by the machine's connect deadline; raises
        `_ConnectFailed` with the machine's error name."""
        if self.closed:
            raise _ConnectFailed(_machine.ERR_CONNECT_FAILED, 'the HTTP client is closed')
        loop = asyncio.get_running_loop()
        timeout = max(connect_by_ms - now_ms(), 1) / 1000
        tls = self.ssl_context() if r.tls else None
        try:
            _, conn = await asyncio.wait_for(loop.create_connection(
                lambda: _Conn(self, r.key), r.host, r.port, ssl=tls,
                server_hostname=r.host if tls is not None else None), timeout)
        except asyncio.TimeoutError as e:
            raise _ConnectFailed(_machine.ERR_TIMEOUT,
                                 f'connect to {r.host}:{r.port} timed out') from e
        except socket.gaierror as e:
            raise _ConnectFailed(_machine.ERR_DNS, f'{r.host}: {e}') from e
        except ssl.SSLError as e:  # CertificateError included
            raise _ConnectFailed(_machine.ERR_TLS, f'TLS with {r.host}: {e}') from e
        except (OSError, ValueError) as e:  # refused, unreachable; a name IDNA refuses
            raise _ConnectFailed(_machine.ERR_CONNECT_FAILED,
                                 f'connect to {r.host}:{r.port}: {e}') from e
        if self.closed:
            conn.close()
            raise _ConnectFailed(_machine.ERR_CONNECT_FAILED, 'the HTTP client is closed')
        self._conns.add(conn)
        return conn

    async def aclose(self) -> None:
        """Closes every connection; later requests fail unsent."""
        self.closed = True
        for conn in list(self._conns):
            conn_host = conn.host
            if conn_host is not None:
                conn._fail(_machine.ERR_RESET, True, 'the HTTP client was closed')
            else:
                conn.close()
        self._conns.clear()
        self._idle.clear()


class _ConnectFailed(Exception):
    def __init__(self, err: int, message: str) -> None:
        super().__init__(message)
        self.err = err


def _request(s: Start, r: _Route) -> bytes:
    """The bytes of `s`'s request (head and body)."""
    parts = [s.method.encode('ascii'), b' ', r.target, b' HTTP/1.1\r\nHost: ', r.authority,
             b'\r\n']
    ua = ae = False
    for name, value in s.headers:
        if b'\r' in value or b'\n' in value or b'\r' in name or b'\n' in name or b':' in name:
            raise ValueError(f'header {name[:40]!r} holds a line break')
        lower = name.lower()
        if lower == b'user-agent':
            ua = True
        elif lower == b'accept-encoding':
            ae = True
        elif lower in (b'host', b'content-length', b'transfer-encoding', b'connection'):
            continue  # framing is this host's
        parts += (name, b': ', value, b'\r\n')
    if not ua:
        parts.append(b'User-Agent: ' + _USER_AGENT + b'\r\n')
    if not ae:
        parts.append(b'Accept-Encoding: identity\r\n')
    body = s.body
    if body or s.method in ('POST', 'PUT', 'PATCH'):
        parts += (b'Content-Length: ', str(len(body)).encode(), b'\r\n\r\n', body)
    else:
        parts.append(b'\r\n')
    return b''.join(parts)


class _NativeHost:
    """Runs one call's requests on a `NativePool`: the parser feeds the machine from the
    protocol's callbacks; the driver waits on a future woken by any input or the
    machine's deadline."""

    def __init__(self, pool: NativePool, call: Call, streaming: bool) -> None:
        self.pool = pool
        self.call: Call | None = call
        self.streaming = streaming
        self.loop = asyncio.get_running_loop()
        self.conns: dict[int, _Conn] = {}
        self.connecting: dict[int, asyncio.Task[None]] = {}
        self.paused: list[_Conn] = []
        self.room = True  # the driver took every event handed in
        self.woken = False
        self.waiter: asyncio.Future[bool] | None = None
        self.error: BaseException | None = None

    def feed(self, fn: str, *args: Any) -> bool:
        call = self.call
        try:
            if call is None:
                return False
            return bool(getattr(call, fn)(*args, now_ms()))
        except Exception as e:  # a bug or a refused input: the driver raises it
            if self.error is None:
                self.error = e
            return False
        finally:
            self.woken = True
            w = self.waiter
            if w is not None and not w.done():
                w.set_result(False)

    # --- from the connections

    def head(self, conn: _Conn, rid: int, status: int,
             headers: list[tuple[bytes, bytes]]) -> bool:
        if self.feed('handle_head', rid, status, headers):
            return True
        self.drop(rid)
        return False

    def body(self, conn: _Conn, rid: int, chunk: bytes) -> bool:
        if not self.feed('handle_body', rid, chunk):
            self.drop(rid)
            return False
        if self.streaming:
            if not self.room:
                conn.transport.pause_reading()  # type: ignore[union-attr]
                self.paused.append(conn)  # bounded memory: the reader keeps pace
            self.room = False
        return True

    def ended(self, rid: int) -> None:
        self.conns.pop(rid, None)
        self.feed('handle_end', rid)

    def failed(self, rid: int, err: int, written: bool, message: str) -> None:
        self.conns.pop(rid, None)
        self.feed('handle_failure', rid, err, written, message)

    # --- from the driver

    def start(self, s: Start) -> None:
        rid = s.request_id
        try:
            r = self.pool.route(s.url)
            request = _request(s, r)
        except (ValueError, UnicodeError) as e:
            self._unsent(rid, str(e))
            return
        if self.pool.closed:
            self._unsent(rid, 'the HTTP client is closed')
            return
        conn = self.pool.take(r.key)
        if conn is not None:
            self.conns[rid] = conn
            conn.begin(self, rid, request, s.method == 'HEAD')
            return
        task = self.loop.create_task(self._connect(s, r, request))
        self.connecting[rid] = task

    def _unsent(self, rid: int, message: str) -> None:
        """Fails request `rid` unsent, after the driver's step (never inside it)."""
        self.loop.call_soon(self.feed, 'handle_failure', rid, _machine.ERR_CONNECT_FAILED,
                            False, message)

    async def _connect(self, s: Start, r: _Route, request: bytes) -> None:
        rid = s.request_id
        try:
            conn = await self.pool.connect(r, s.connect_by_ms)
        except _ConnectFailed as e:
            self.connecting.pop(rid, None)
            self.feed('handle_failure', rid, e.err, False, str(e))
            return
        self.connecting.pop(rid, None)
        if self.call is None:
            self.pool._put(conn)  # the call ended meanwhile: nothing was written
            return
        self.conns[rid] = conn
        conn.begin(self, rid, request, s.method == 'HEAD')

    def drop(self, rid: int) -> None:
        """Abort: the request's connection is closed (or its connect cancelled)."""
        conn = self.conns.pop(rid, None)
        if conn is not None:
            conn.close()
        task = self.connecting.pop(rid, None)
        if task is not None:
            task.cancel()

    async def wait(self, at: int | None) -> bool:
        """Until an input (False) or `at` (True)."""
        self.room = True
        if self.paused:
            for conn in self.paused:
                if not conn.closed and conn.transport is not None:
                    conn.transport.resume_reading()
            self.paused.clear()
        if self.error is not None or self.woken:
            self.woken = False
            return False
        loop = self.loop
        timer = None
        fut: asyncio.Future[bool] = loop.create_future()
        if at is not None:
            delay = (at - now_ms() + 1) / 1000
            # Passed already: one loop turn of LATE_READ takes what came meanwhile.
            timer = loop.call_later(max(delay, LATE_READ), _expire, fut)
        self.waiter = fut
        try:
            return await fut
        finally:
            self.waiter = None
            self.woken = False
            if timer is not None:
                timer.cancel()

    def close(self) -> None:
        self.call = None  # no input after this
        for conn in self.conns.values():
            conn.close()
        self.conns.clear()
        for task in self.connecting.values():
            task.cancel()
        self.connecting.clear()


def _expire(fut: asyncio.Future[bool]) -> None:
    if not fut.done():
        fut.set_result(True)


def run_native(pool: NativePool, call: Call, streaming: bool,
               on_finished: Callable[[Any, Call], Any],
               on_item: Callable[[Any], Any] | None = None,
               hook_errors: HookErrors | None = None) -> AsyncIterator[Any]:
    """`_httpx_io.run_async` on a `NativePool`: drives `call` on the event loop, yields the
    emitted values, ending after the finished call's. Leaving early (or cancellation)
    cancels the call and closes its requests' connections."""
    return run_on(lambda: _NativeHost(pool, call, streaming),
                  drive(call, on_finished, on_item, hook_errors))
