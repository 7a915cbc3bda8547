"""The AsyncClient's own HTTP/1.1 on asyncio (`a2a_core._asyncio_http`, the default host when
no `http_client` is given): the response reader on every split of its input, keep-alive
and its limits against a scripted loopback server, the fault server's connection faults,
and the proxy fallback to httpx.

Plain pytest functions running `asyncio.run`; every wait is bounded."""

from __future__ import annotations

import asyncio
import json
import socket
import struct
import threading
import zlib
from collections.abc import Callable, Iterator
from typing import Any

import a2a_core
import httpx
import pytest
import test_async_client
import test_networks
from a2a_core import AsyncClient, Outcome, Resubscribing, _machine
from a2a_core import _asyncio_http as h
from test_async_client import FAST, _get, collect, split

fault = test_async_client.fault  # the fault server fixture, shared
pki = test_networks.pki  # the openssl-made test CA and certificates
tls_agent = test_networks.tls_agent  # an https agent (localhost, 127.0.0.1) on that CA

# --- the reader, on every split of its input -------------------------------------------------


class _Recorder:
    """Stands in for the host: records what the connection hands in."""

    def __init__(self) -> None:
        self.got: list[Any] = []

    def head(self, conn: Any, rid: int, status: int, headers: list[tuple[bytes, bytes]]
             ) -> bool:
        self.got.append(('head', status, headers))
        return True

    def body(self, conn: Any, rid: int, chunk: bytes) -> bool:
        self.got.append(('body', chunk))
        return True

    def ended(self, rid: int) -> None:
        self.got.append(('end',))

    def failed(self, rid: int, err: int, written: bool, message: str) -> None:
        self.got.append(('failed', err, written, message))


class _Transport:
    def __init__(self) -> None:
        self.written = b''
        self.aborted = False

    def write(self, data: bytes) -> None:
        self.written += data

    def abort(self) -> None:
        self.aborted = True

    def is_closing(self) -> bool:
        return self.aborted


def _conn(pool: h.NativePool) -> tuple[h._Conn, _Recorder, _Transport]:
    conn = h._Conn(pool, ('http', '127.0.0.1', 80))
    t = _Transport()
    conn.connection_made(t)  # type: ignore[arg-type]
    rec = _Recorder()
    conn.begin(rec, 7, b'POST / HTTP/1.1\r\n\r\n', False)  # type: ignore[arg-type]
    return conn, rec, t


def _summary(got: list[Any]) -> tuple[Any, ...]:
    heads = [g for g in got if g[0] == 'head']
    body = b''.join(g[1] for g in got if g[0] == 'body')
    ends = [g[0] for g in got if g[0] in ('end', 'failed')]
    return tuple((s, hs) for _, s, hs in heads), body, ends


CHUNKED = (b'HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n'
           b'Transfer-Encoding: chunked\r\n\r\n'
           b'8;ext=1\r\ndata: a\n\r\n'
           b'b\r\ndata: bcd\n\n\r\n'
           b'0\r\nX-Trailer: t\r\n\r\n')


@pytest.mark.parametrize('response', [
    CHUNKED,
    b'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 12\r\n\r\nhello, world',
])
def test_every_two_splits_of_a_response_read_the_same(response: bytes) -> None:
    pool = h.NativePool()
    conn, rec, t = _conn(pool)
    conn.data_received(response)
    want = _summary(rec.got)
    assert want[2] == ['end'] and want[1] in (b'data: a\ndata: bcd\n\n', b'hello, world')
    assert conn.state == h._IDLE and not t.aborted  # back in the pool
    n = len(response)
    for i in range(1, n):
        for j in range(i, n):
            conn, rec, t = _conn(pool)
            for piece in (response[:i], response[i:j], response[j:]):
                if piece:
                    conn.data_received(piece)
            assert _summary(rec.got) == want, (i, j)
    pool._idle.clear()


@pytest.mark.parametrize(('response', 'why'), [
    (b'HTTP/1.1 200 OK\r\nX-Big: ' + b'a' * (h.MAX_HEAD + 10), 'head over'),
    (b'HTTP/1.1 200 OK\r\nX-Big: ' + b'a' * h.MAX_HEAD + b'\r\n\r\n', 'head over'),
    (b'SSH-2.0-OpenSSH_9.6\r\n\r\n', 'bad status line'),
    (b'HTTP/1.1 200 OK\r\n bad fold\r\n\r\n', 'bad header line'),
    (b'HTTP/1.1 200 OK\r\nContent-Length: 3, 4\r\n\r\n', 'Content-Length'),
    (b'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n', 'chunk size'),
    (b'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n' + b'1' * 5000, 'chunk-size line'),
    (b'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nab', 'CRLF'),
])
def test_garbage_is_a_maybe_written_failure_and_closes(response: bytes, why: str) -> None:
    conn, rec, t = _conn(h.NativePool())
    conn.data_received(response)
    failed = [g for g in rec.got if g[0] == 'failed']
    assert len(failed) == 1 and why in failed[0][3], rec.got
    assert failed[0][1:3] == (_machine.ERR_RESET, True)
    assert t.aborted and not any(g[0] == 'end' for g in rec.got)


def test_a_close_delimited_body_ends_at_eof_and_a_cut_length_fails() -> None:
    conn, rec, t = _conn(h.NativePool())
    conn.data_received(b'HTTP/1.1 200 OK\r\n\r\nsome')
    conn.data_received(b' bytes')
    conn.eof_received()
    assert _summary(rec.got)[1:] == (b'some bytes', ['end']) and t.aborted
    conn, rec, t = _conn(h.NativePool())
    conn.data_received(b'HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nsome')
    conn.connection_lost(ConnectionResetError(104, 'reset'))
    assert _summary(rec.got)[2] == ['failed'] and rec.got[-1][1:3] == (_machine.ERR_RESET, True)


def _gzip(data: bytes) -> bytes:
    z = zlib.compressobj(wbits=16 + zlib.MAX_WBITS)
    return z.compress(data) + z.flush()


PLAIN = b'data: {"kind":"status-update"}\n\n' * 20


@pytest.mark.parametrize('coding', ['gzip', 'deflate'])
def test_a_compressed_body_is_handed_in_decoded_on_every_split(coding: str) -> None:
    # identity is asked for; a server that compresses anyway is read as httpx read it
    packed = _gzip(PLAIN) if coding == 'gzip' else zlib.compress(PLAIN)
    heads = [b'Content-Length: ' + str(len(packed)).encode() + b'\r\n\r\n' + packed]
    chunked = b''.join(f'{len(packed[i:i + 9]):x}\r\n'.encode() + packed[i:i + 9] + b'\r\n'
                       for i in range(0, len(packed), 9)) + b'0\r\n\r\n'
    heads.append(b'Transfer-Encoding: chunked\r\n\r\n' + chunked)
    for rest in heads:
        response = b'HTTP/1.1 200 OK\r\nContent-Encoding: ' + coding.encode() + b'\r\n' + rest
        for i in range(1, len(response)):
            conn, rec, _t = _conn(h.NativePool())
            conn.data_received(response[:i])
            conn.data_received(response[i:])
            assert _summary(rec.got)[1:] == (PLAIN, ['end']), i


def test_a_compressed_body_that_breaks_or_an_unknown_coding_fails() -> None:
    packed = _gzip(PLAIN)
    for response, why in [
        (b'HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: 20\r\n\r\n'
         + packed[:20], 'ends early'),
        (b'HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: 9\r\n\r\n'
         + b'not gzip!', 'does not decode'),
        (b'HTTP/1.1 200 OK\r\nContent-Encoding: br\r\nContent-Length: 3\r\n\r\nabc',
         "'br' is not decoded"),
    ]:
        conn, rec, t = _conn(h.NativePool())
        conn.data_received(response)
        failed = [g for g in rec.got if g[0] == 'failed']
        assert len(failed) == 1 and why in failed[0][3], rec.got
        if why.startswith("'br'"):  # failed instead of its head: no undecoded byte passes
            assert [g[0] for g in rec.got] == ['failed'], rec.got
    # no body: nothing to decode
    conn, rec, _t = _conn(h.NativePool())
    conn.data_received(b'HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: 0\r\n\r\n')
    assert _summary(rec.got)[1:] == (b'', ['end'])


def test_the_request_has_host_framing_and_identity() -> None:
    class S:
        method, url = 'POST', 'http://[::1]:8080/a2a/v1?x=1&y=%20'
        headers = [(b'Content-Type', b'application/json'), (b'A2A-Version', b'1.0')]
        body = b'{"x":1}'

    raw = h._request(S(), h._Route(S.url))  # type: ignore[arg-type]
    assert raw.startswith(b'POST /a2a/v1?x=1&y=%20 HTTP/1.1\r\nHost: [::1]:8080\r\n')
    assert b'\r\nAccept-Encoding: identity\r\n' in raw
    assert raw.endswith(b'\r\nContent-Length: 7\r\n\r\n{"x":1}')
    r = h._Route('https://Example.COM/')
    assert r.key == ('https', 'example.com', 443) and r.authority == b'example.com'
    assert h._Route('http://a.example').target == b'/'

    class Bad(S):
        headers = [(b'X-Evil', b'a\r\nInjected: 1')]

    with pytest.raises(ValueError):
        h._request(Bad(), h._Route(S.url))  # type: ignore[arg-type]


# --- a scripted loopback server ------------------------------------------------------------


def _message(rid: Any, text: str) -> bytes:
    return json.dumps({'jsonrpc': '2.0', 'id': rid, 'result': {
        'kind': 'message', 'messageId': 'm-1', 'role': 'agent',
        'parts': [{'kind': 'text', 'text': text}]}}).encode()


class Scripted:
    """A loopback HTTP/1.1 server: `answer(n, conn_no, request_id, sock)` writes the n-th
    request's response (n from 1) on connection `conn_no`, and returns whether to keep
    reading that connection. Counts connections and requests."""

    def __init__(self, answer: Callable[[int, int, Any, socket.socket], bool],
                 host: str = '127.0.0.1') -> None:
        self.answer = answer
        self.requests = 0
        self.connections = 0
        self.heads: list[bytes] = []
        self.lock = threading.Lock()
        v6 = ':' in host
        self.sock = socket.create_server(
            (host, 0), family=socket.AF_INET6 if v6 else socket.AF_INET)
        self.sock.settimeout(0.2)
        name = f'[{host}]' if v6 else host
        self.url = f'http://{name}:{self.sock.getsockname()[1]}/'
        self.stop = threading.Event()
        self.threads: list[threading.Thread] = []
        t = threading.Thread(target=self._accept, daemon=True)
        t.start()
        self.threads.append(t)

    def _accept(self) -> None:
        while not self.stop.is_set():
            try:
                c, _ = self.sock.accept()
            except (TimeoutError, OSError):
                continue
            with self.lock:
                self.connections += 1
                n = self.connections
            t = threading.Thread(target=self._serve, args=(c, n), daemon=True)
            t.start()
            self.threads.append(t)

    def _serve(self, c: socket.socket, conn_no: int) -> None:
        c.settimeout(10)
        c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        buf = b''
        try:
            while True:
                while b'\r\n\r\n' not in buf:
                    data = c.recv(65536)
                    if not data:
                        return
                    buf += data
                head, _, buf = buf.partition(b'\r\n\r\n')
                length = 0
                for line in head.split(b'\r\n')[1:]:
                    k, _, v = line.partition(b':')
                    if k.strip().lower() == b'content-length':
                        length = int(v)
                while len(buf) < length:
                    data = c.recv(65536)
                    if not data:
                        return
                    buf += data
                body, buf = buf[:length], buf[length:]
                with self.lock:
                    self.requests += 1
                    self.heads.append(head)
                    n = self.requests
                if not self.answer(n, conn_no, json.loads(body)['id'], c):
                    return
        except OSError:
            return
        finally:
            c.close()

    def close(self) -> None:
        self.stop.set()
        self.sock.close()
        for t in self.threads:
            t.join(5)


@pytest.fixture
def scripted() -> Iterator[Callable[..., Scripted]]:
    made: list[Scripted] = []

    def make(answer: Callable[[int, int, Any, socket.socket], bool],
             host: str = '127.0.0.1') -> Scripted:
        s = Scripted(answer, host)
        made.append(s)
        return s

    yield make
    for s in made:
        s.close()


def _ok(rid: Any, text: str = 'hi', extra: bytes = b'') -> bytes:
    body = _message(rid, text)
    return (b'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n' + extra
            + b'Content-Length: ' + str(len(body)).encode() + b'\r\n\r\n' + body)


def _client(url: str, **kw: Any) -> AsyncClient:
    return AsyncClient.with_target(url, '0.3', 'jsonrpc', allow_http=True, **{**FAST, **kw})


async def _until(cond: Callable[[], bool]) -> None:
    """Waits (bounded: 5 s) until `cond()`."""
    for _ in range(500):
        if cond():
            return
        await asyncio.sleep(0.01)
    raise AssertionError('condition not reached in 5 s')


def test_keep_alive_reuses_one_connection(scripted: Callable[..., Scripted]) -> None:
    srv = scripted(lambda n, cn, rid, c: c.sendall(_ok(rid, f'hi {n}')) is None)

    async def main() -> list[Outcome]:
        async with _client(srv.url) as ac:
            assert ac._pool is not None  # the native host
            return [await ac.send('x') for _ in range(3)]

    outs = run(main())
    assert [o.result.text for o in outs] == ['hi 1', 'hi 2', 'hi 3']
    assert srv.connections == 1 and srv.requests == 3


def test_an_ipv6_literal(scripted: Callable[..., Scripted]) -> None:
    try:
        srv = scripted(lambda n, cn, rid, c: c.sendall(_ok(rid, 'over v6')) is None, '::1')
    except OSError:
        pytest.skip('no IPv6 loopback')

    async def main() -> Outcome:
        async with _client(srv.url + 'a2a?tenant=x') as ac:
            return await ac.send('x')

    o = run(main())
    assert o.success and o.result.text == 'over v6', o
    port = srv.url.rsplit(':', 1)[1].rstrip('/')
    lines = srv.heads[0].split(b'\r\n')
    assert lines[0] == b'POST /a2a?tenant=x HTTP/1.1', lines
    assert lines[1] == b'Host: [::1]:' + port.encode(), lines
    assert b'Accept-Encoding: identity' in lines


def test_a_client_used_on_a_second_event_loop_opens_a_new_connection(
        scripted: Callable[..., Scripted]) -> None:
    srv = scripted(lambda n, cn, rid, c: c.sendall(_ok(rid, f'hi {n}')) is None)
    ac = _client(srv.url)

    async def send() -> Outcome:
        await ac.open()  # once: with_target's state
        return await ac.send('x')

    first = run(send())  # the first loop ends with an idle connection of its own
    second = run(send())
    run(ac.aclose())
    assert (first.result.text, second.result.text) == ('hi 1', 'hi 2')
    assert srv.connections == 2


def test_a_chunked_body_written_a_byte_at_a_time(scripted: Callable[..., Scripted]) -> None:
    def answer(n: int, cn: int, rid: Any, c: socket.socket) -> bool:
        body = _message(rid, 'trickled')
        raw = (b'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n'
               b'Transfer-Encoding: chunked\r\n\r\n')
        for i in range(0, len(body), 5):
            part = body[i:i + 5]
            raw += f'{len(part):x}\r\n'.encode() + part + b'\r\n'
        raw += b'0\r\n\r\n'
        for b in raw:
            c.sendall(bytes([b]))
        return True

    srv = scripted(answer)

    async def main() -> list[Outcome]:
        async with _client(srv.url) as ac:
            return [await ac.send('x') for _ in range(2)]

    outs = run(main())
    assert all(o.success and o.result.text == 'trickled' for o in outs), outs
    assert srv.connections == 1  # a chunked body read to its end keeps the connection


def test_connection_close_is_honoured(scripted: Callable[..., Scripted]) -> None:
    def answer(n: int, cn: int, rid: Any, c: socket.socket) -> bool:
        c.sendall(_ok(rid, f'hi {n}', b'Connection: close\r\n'))
        return False

    srv = scripted(answer)

    async def main() -> list[Outcome]:
        async with _client(srv.url) as ac:
            outs = [await ac.send('x') for _ in range(3)]
            assert ac._pool is not None and not any(ac._pool._idle.values())
            return outs

    outs = run(main())
    assert [o.result.text for o in outs] == ['hi 1', 'hi 2', 'hi 3']
    assert srv.connections == 3


def test_a_stale_pooled_connection_is_not_used(scripted: Callable[..., Scripted]) -> None:
    def answer(n: int, cn: int, rid: Any, c: socket.socket) -> bool:
        c.sendall(_ok(rid, f'hi {n}'))
        return False  # closed after the answer, without saying so

    srv = scripted(answer)

    async def main() -> list[Outcome]:
        async with _client(srv.url) as ac:
            pool = ac._pool
            assert pool is not None
            first = await ac.send('x')
            # the server's close reaches the idle connection, which leaves the pool
            await _until(lambda: not any(pool._idle.values()))
            return [first, await ac.send('y')]

    outs = run(main())
    assert [o.result.text for o in outs] == ['hi 1', 'hi 2']
    assert srv.connections == 2 and srv.requests == 2


def test_a_send_on_a_reused_connection_closed_unanswered_is_not_resent(fault: str) -> None:
    # drop-second: a second request on a kept-alive connection (here the send, after the
    # card fetch on the same connection) is read, then the connection is closed without an
    # answer. It may have arrived: never resent, whatever send_retries says.
    async def main() -> Outcome:
        async with AsyncClient(f'{fault}/drop-second/', allow_http=True, send_retries=3,
                               **FAST) as ac:
            return await ac.send('one')

    o = run(main())
    assert not o.success and o.channel.value == 'transport', o
    assert o.error.value == 'Reset' and o.request_sent.value != 'no', o
    counters = json.loads(_get(f'{fault}/_counters/drop-second'))
    assert counters['sends'] == 1, counters  # made once


def test_a_response_head_too_large_is_a_transport_outcome(
        scripted: Callable[..., Scripted]) -> None:
    def answer(n: int, cn: int, rid: Any, c: socket.socket) -> bool:
        c.sendall(b'HTTP/1.1 200 OK\r\n' + b'X-Pad: ' + b'p' * 1000 + b'\r\n' * 0)
        for _ in range(80):
            c.sendall(b'\r\nX-Pad: ' + b'p' * 1000)
        c.sendall(b'\r\n\r\n')
        return True

    srv = scripted(answer)

    async def main() -> Outcome:
        async with _client(srv.url) as ac:
            return await ac.send('x')

    o = run(main())
    assert not o.success and o.channel.value == 'transport', o
    assert 'head over' in o.message, o.message


def test_a_reset_mid_body_is_an_outcome_never_a_success(
        scripted: Callable[..., Scripted]) -> None:
    def answer(n: int, cn: int, rid: Any, c: socket.socket) -> bool:
        raw = _ok(rid, 'x' * 500)
        c.sendall(raw[:len(raw) - 200])
        c.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack('ii', 1, 0))
        return False  # closed at once: a reset

    srv = scripted(answer)

    async def main() -> Outcome:
        async with _client(srv.url, send_retries=2) as ac:
            return await ac.send('x')

    o = run(main())
    assert not o.success and o.channel.value == 'transport', o
    assert o.error.value == 'Reset' and o.request_sent.value != 'no', o
    assert srv.requests == 1  # a send that may have arrived is not resent


def test_a_slow_head_ends_at_the_machines_timeout(fault: str) -> None:
    async def main() -> tuple[Outcome, int]:
        async with AsyncClient(f'{fault}/hang/', allow_http=True, **FAST) as ac:
            o = await ac.send('echo never', timeout=0.3)
            pool = ac._pool
            assert pool is not None
            return o, len(pool._conns)

    o, open_conns = run(main())
    assert not o.success and o.error.value == 'Timeout', o
    assert open_conns == 0  # the timed-out request's connection was closed


def test_a_stream_with_keep_alives_completes(fault: str) -> None:
    async def main() -> list[Any]:
        async with AsyncClient(f'{fault}/keepalive-50-400/', allow_http=True, **FAST) as ac:
            return await collect(ac.stream('echo kept'))

    events = run(main())
    items, end = split(events)
    assert not any(isinstance(e, Resubscribing) for e in events)
    assert end.outcome.success and end.outcome.state.value == 'completed', end
    assert len(items) >= 3


def test_a_stream_made_before_its_loop_runs_is_read_on_it(fault: str) -> None:
    # The host is made at the first iteration, on the loop that iterates, as the async
    # generator it replaced did: an iterator made outside any running loop still works.
    async def enter() -> AsyncClient:
        ac = AsyncClient(f'{fault}/ok/', allow_http=True, **FAST)
        return await ac.__aenter__()

    ac = run(enter())
    early = ac.stream('echo early')

    async def consume() -> list[Any]:
        try:
            return await collect(early)
        finally:
            await ac.aclose()

    items, end = split(run(consume()))
    assert items and end.outcome.success, end


def test_a_gzip_stream_is_read_and_an_undecodable_one_is_an_outcome(fault: str) -> None:
    async def main(scenario: str) -> list[Any]:
        async with AsyncClient(f'{fault}/{scenario}/', allow_http=True, **FAST) as ac:
            return await collect(ac.stream('echo zipped'))

    items, end = split(run(main('gzip')))
    assert len(items) == 4 and end.outcome.success, end
    items, end = split(run(main('brotli')))
    assert not items and end.outcome.channel.value == 'transport', end
    assert "'br' is not decoded" in end.outcome.message


def test_aclose_closes_the_pool(scripted: Callable[..., Scripted]) -> None:
    srv = scripted(lambda n, cn, rid, c: c.sendall(_ok(rid)) is None)

    async def main() -> int:
        ac = _client(srv.url)
        await ac.open()
        assert (await ac.send('x')).success
        pool = ac._pool
        assert pool is not None and len(pool._conns) == 1
        await ac.aclose()
        return len(pool._conns)

    assert run(main()) == 0


# --- TLS and the proxy fallback ------------------------------------------------------------

_PROXY_VARS = ('http_proxy', 'https_proxy', 'all_proxy', 'no_proxy', 'HTTP_PROXY',
               'HTTPS_PROXY', 'ALL_PROXY', 'NO_PROXY')


def test_https_checks_the_certificate_against_httpxs_roots(
        pki: Any, tls_agent: str, monkeypatch: pytest.MonkeyPatch) -> None:
    for k in _PROXY_VARS + ('SSL_CERT_DIR',):
        monkeypatch.delenv(k, raising=False)
    monkeypatch.delenv('SSL_CERT_FILE', raising=False)

    async def main() -> Outcome:
        async with AsyncClient(tls_agent, **FAST) as ac:
            assert ac._pool is not None
            return await ac.send('ping')

    # the test CA is not among certifi's roots: refused before anything is sent
    with pytest.raises(a2a_core.CardResolutionError) as e:
        run(main())
    o = e.value.outcome
    assert o is not None and o.error.value == 'Tls' and o.request_sent.value == 'no', o
    monkeypatch.setenv('SSL_CERT_FILE', str(pki / 'ca.pem'))
    o = run(main())
    assert o.success and o.result.text == 'pong', o

    async def by_ip() -> Outcome:
        # the certificate names 127.0.0.1 too: an IP literal is checked as one
        url = tls_agent.replace('localhost', '127.0.0.1') + '/'
        async with AsyncClient.with_target(url, '0.3', 'jsonrpc', **FAST) as ac:
            return await ac.send('ping')

    o = run(by_ip())
    assert o.success and o.result.text == 'pong', o


def test_a_proxy_named_by_the_environment_carries_the_calls(
        pki: Any, tls_agent: str, monkeypatch: pytest.MonkeyPatch) -> None:
    for k in _PROXY_VARS:
        monkeypatch.delenv(k, raising=False)
    monkeypatch.setenv('SSL_CERT_FILE', str(pki / 'ca.pem'))
    proxy = test_networks._Proxy(None)
    try:
        monkeypatch.setenv('HTTPS_PROXY', f'http://127.0.0.1:{proxy.port}')

        async def main() -> Outcome:
            async with AsyncClient(tls_agent, **FAST) as ac:
                assert ac._pool is None  # httpx's default client, which reads the proxy
                return await ac.send('ping')

        o = run(main())
        assert o.success and o.result.text == 'pong', o
        port = tls_agent.rsplit(':', 1)[1]
        assert proxy.seen and all(t == f'localhost:{port}' for t in proxy.seen)
    finally:
        proxy.close()




def test_a_proxy_in_the_environment_falls_back_to_httpx(monkeypatch: pytest.MonkeyPatch
                                                        ) -> None:
    for k in ('http_proxy', 'https_proxy', 'all_proxy', 'no_proxy', 'HTTP_PROXY', 'HTTPS_PROXY',
              'ALL_PROXY', 'NO_PROXY'):
        monkeypatch.delenv(k, raising=False)
    assert not h.proxied('http://agent.example/')
    monkeypatch.setenv('HTTPS_PROXY', 'http://proxy.example:3128')
    assert h.proxied('https://agent.example/') and not h.proxied('http://agent.example/')
    ac = AsyncClient('https://agent.example/')
    assert ac._pool is None and isinstance(ac._http, httpx.AsyncClient)
    run(ac.aclose())
    monkeypatch.setenv('NO_PROXY', 'agent.example')
    assert not h.proxied('https://agent.example/')
    ac = AsyncClient('https://agent.example/')
    assert ac._pool is not None and ac._http is None
    run(ac.aclose())
    mine = httpx.AsyncClient()
    ac = AsyncClient('https://agent.example/', http_client=mine)
    assert ac._pool is None and ac._http is mine
    run(ac.aclose())
    assert not mine.is_closed
    run(mine.aclose())


def run(coro: Any) -> Any:
    return asyncio.run(coro)
