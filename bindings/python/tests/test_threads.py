"""Objects shared between threads, on whichever path this run uses (pure ctypes or the
compiled fast path; 40-python.sh runs both):

- `Client.close()` while threads are inside calls that a loopback server holds: close waits
  for them (they complete normally), calls meanwhile and afterwards raise ClosedError, a
  second close does nothing, and close from inside a header hook is refused (it would wait
  for itself);
- `Client.close()` under load (sends and streams on several threads) and the client then
  collected: no crash, every call that got in completes, open streams read to their end;
- one `SseDecoder` fed from two threads: every feed returns exactly its own chunk's items
  or raises InUseError (never another thread's, never a crash), and `close()` during a feed
  waits for it.

Every wait is bounded."""

from __future__ import annotations

import http.server
import json
import sys
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from a2a_core import (
    ClientStreamEnd,
    ClosedError,
    Client,
    Comment,
    Event,
    InUseError,
    Outcome,
    SseDecoder,
)

CALLERS = 4
WAIT = 20.0  # seconds: the bound of every wait below


class Holding(http.server.BaseHTTPRequestHandler):
    """Answers each JSON-RPC POST with a completed 0.3 task, but only once `release` is
    set (at most WAIT seconds); `arrived` counts the requests being held."""

    release = threading.Event()
    arrived = threading.Semaphore(0)

    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        body = json.loads(self.rfile.read(int(self.headers['Content-Length'])))
        Holding.arrived.release()
        Holding.release.wait(WAIT)
        reply = json.dumps({'jsonrpc': '2.0', 'id': body['id'], 'result': {
            'kind': 'task', 'id': 't-1', 'contextId': 'c-1',
            'status': {'state': 'completed'}}}).encode()
        self.send_response(200)
        self.send_header('Content-Type', 'application/json')
        self.send_header('Content-Length', str(len(reply)))
        self.end_headers()
        self.wfile.write(reply)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture()
def holding() -> Iterator[str]:
    Holding.release = threading.Event()
    Holding.arrived = threading.Semaphore(0)
    srv = http.server.ThreadingHTTPServer(('127.0.0.1', 0), Holding)
    srv.daemon_threads = True
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        yield f'http://127.0.0.1:{srv.server_address[1]}/'
    finally:
        Holding.release.set()
        srv.shutdown()
        srv.server_close()


def _client(url: str) -> Client:
    return Client.with_target(url, '0.3', 'JSONRPC', allow_http=True,
                              connect_timeout_ms=5000, call_timeout_ms=int(WAIT * 1000))


def test_close_waits_for_the_calls_in_flight(holding: str) -> None:
    c = _client(holding)
    outcomes: list[Outcome] = []
    failures: list[BaseException] = []

    def call() -> None:
        try:
            outcomes.append(c.send('hold'))
        except BaseException as e:  # noqa: BLE001 - reported below
            failures.append(e)

    callers = [threading.Thread(target=call) for _ in range(CALLERS)]
    for t in callers:
        t.start()
    for _ in range(CALLERS):  # every call is inside the library, held by the server
        assert Holding.arrived.acquire(timeout=WAIT)
    closer = threading.Thread(target=c.close)
    closer.start()
    closer.join(0.3)
    # close has not freed the client under the held calls: it is still waiting for them
    assert closer.is_alive() and not outcomes
    for _ in range(int(WAIT * 100)):
        if c.closed:
            break
        closer.join(0.01)
    assert c.closed
    with pytest.raises(ClosedError):  # refused at once, nothing sent
        c.send('late')
    Holding.release.set()
    closer.join(WAIT)
    assert not closer.is_alive()
    for t in callers:
        t.join(WAIT)
    assert not failures
    assert len(outcomes) == CALLERS
    assert all(o.state == 'completed' and o.success for o in outcomes)
    c.close()  # a second close does nothing
    with pytest.raises(ClosedError) as e:
        c.get('t-1')
    assert e.value.code == 105 and e.value.name == 'A2A_CLOSED'
    with pytest.raises(ValueError):  # ClosedError is a ValueError, as before
        c.cancel('t-1')


def test_close_from_a_header_hook_is_refused(holding: str) -> None:
    Holding.release.set()
    closes = [True]

    def hook(method: str) -> None:
        if closes:
            closes.pop()
            c.close()

    with _client(holding) as c:
        c.add_header_hook(hook)
        with pytest.raises(RuntimeError, match='from inside one of its own calls'):
            c.send('x')
        assert not c.closed
        assert c.send('y').success  # the client is still usable
    assert c.closed


# --- one decoder, two threads ---------------------------------------------------------

EVENT = b'data: {"kind":"status-update","final":false}\n\n'
COMMENT = b': keep-alive\n'


def _expected(chunk_events: int, with_comments: bool) -> list[Any]:
    one: list[Any] = [Comment(' keep-alive')] if with_comments else []
    return (one + [Event('message', '{"kind":"status-update","final":false}', '')]) \
        * chunk_events


def test_a_decoder_fed_from_two_threads_refuses_the_second() -> None:
    d = SseDecoder()
    # feed_items reads the items back out of the library after the call: the window in
    # which another thread's feed would replace them
    chunks = {
        'big': ((COMMENT + EVENT) * 400, _expected(400, True)),
        'small': (COMMENT + EVENT, _expected(1, True)),
    }
    let_in = {'big': 0, 'small': 0}
    refused = {'big': 0, 'small': 0}
    wrong: list[Any] = []
    stop = threading.Event()
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads often, inside the methods too

    def feed(name: str) -> None:
        chunk, want = chunks[name]
        for _ in range(200_000):
            if stop.is_set():
                return
            try:
                got = d.feed_items(chunk)
            except InUseError:
                refused[name] += 1
                continue
            let_in[name] += 1
            if got != want:
                wrong.append(got[:3])
            if refused['big'] + refused['small'] > 0 and let_in['big'] > 20:
                stop.set()

    try:
        threads = [threading.Thread(target=feed, args=(n,)) for n in ('big', 'small')]
        for t in threads:
            t.start()
        for t in threads:
            t.join(WAIT * 3)
        stop.set()
    finally:
        sys.setswitchinterval(old)
    assert not wrong
    assert refused['big'] + refused['small'] > 0
    # the decoder is intact: comments counted for every feed let in, and it goes on
    assert d.comments == 400 * let_in['big'] + let_in['small']
    assert d.feed(EVENT) == [Event('message', '{"kind":"status-update","final":false}', '')]
    d.close()


def test_close_during_a_feed_waits_for_it() -> None:
    # The compiled path holds the GIL while it builds the events, so this thread sees the
    # feed inside only when the interpreter switches threads: switch often while it runs
    # (with the default 5 ms a feed could end before any switch, in every attempt: it failed
    # that way once on a busy machine).
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)
    try:
        _close_during_a_feed_waits_for_it()
    finally:
        sys.setswitchinterval(interval)


def _close_during_a_feed_waits_for_it() -> None:
    big = EVENT * 20000
    seen_inside = False
    for _attempt in range(50):
        d = SseDecoder()
        results: list[Any] = []

        def feed() -> None:
            try:
                results.append(len(d.feed(big)))  # noqa: B023 - joined in this iteration
            except ClosedError as e:  # (never: close comes after the feed started)
                results.append(e)

        t = threading.Thread(target=feed)
        t.start()
        inside = False
        while t.is_alive():
            try:
                d.retry  # noqa: B018 - a call, refused while the feed is inside
            except InUseError:
                inside = True
                break
            except ClosedError:
                break
        d.close()  # waits for the feed inside
        t.join(WAIT)
        assert not t.is_alive()
        assert results == [20000]  # the feed ran whole, closed under or not
        with pytest.raises(ClosedError):
            d.feed(EVENT)
        if inside:
            seen_inside = True
            break
    assert seen_inside


# --- a client closed under load (last: nothing these leave behind reaches the decoder
# tests above, which time their threads) ------------------------------------------------


class Busy(http.server.BaseHTTPRequestHandler):
    """A 0.3 JSON-RPC agent under load: `message/send` answers a completed task at once,
    `message/stream` sends EVENTS working updates a millisecond apart, then the completed
    one (final)."""

    protocol_version = 'HTTP/1.1'

    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        body = json.loads(self.rfile.read(int(self.headers['Content-Length'])))
        rid = body['id']

        def update(state: str, final: bool) -> bytes:
            doc = {'jsonrpc': '2.0', 'id': rid, 'result': {
                'kind': 'status-update', 'taskId': 't-1', 'contextId': 'c-1',
                'status': {'state': state}, 'final': final}}
            return b'data: ' + json.dumps(doc).encode() + b'\n\n'

        if body['method'] == 'message/stream':
            self.send_response(200)
            self.send_header('Content-Type', 'text/event-stream')
            self.send_header('Connection', 'close')
            self.end_headers()
            for _ in range(EVENTS):
                self.wfile.write(update('working', False))
                self.wfile.flush()
                time.sleep(0.001)
            self.wfile.write(update('completed', True))
            self.wfile.flush()
            self.close_connection = True
            return
        reply = json.dumps({'jsonrpc': '2.0', 'id': rid, 'result': {
            'kind': 'task', 'id': 't-1', 'contextId': 'c-1',
            'status': {'state': 'completed'}}}).encode()
        self.send_response(200)
        self.send_header('Content-Type', 'application/json')
        self.send_header('Content-Length', str(len(reply)))
        self.end_headers()
        self.wfile.write(reply)

    def log_message(self, *args: Any) -> None:
        pass


EVENTS = 40


@pytest.fixture()
def busy() -> Iterator[str]:
    srv = http.server.ThreadingHTTPServer(('127.0.0.1', 0), Busy)
    srv.daemon_threads = True
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        yield f'http://127.0.0.1:{srv.server_address[1]}/'
    finally:
        srv.shutdown()
        srv.server_close()


def _stream_to_end(c: Client) -> list[Any]:
    return list(c.stream('go'))


def test_closing_a_client_under_load_lets_every_call_finish(busy: str) -> None:
    """Sends and streams on several threads, the client closed meanwhile: no crash, every call that got in completes (a stream opened before the close reads all its
    events after it: it keeps the transport), every later call raises ClosedError."""
    import gc

    c = _client(busy)
    done: list[str] = []
    bad: list[Any] = []
    refused: list[int] = []
    ended = threading.Semaphore(0)
    started = threading.Semaphore(0)

    def sender() -> None:
        try:
            while True:
                o = c.send('hi')
                if not (o.success and o.state == 'completed'):
                    bad.append(o)
                done.append('send')
                started.release()
        except ClosedError:
            refused.append(1)
        except BaseException as e:  # noqa: BLE001 - reported below
            bad.append(e)
        finally:
            ended.release()

    def streamer() -> None:
        try:
            while True:
                events = c.stream('go')
                started.release()
                got = list(events)
                end = got[-1]
                if not (isinstance(end, ClientStreamEnd) and end.outcome.success
                        and len(got) == EVENTS + 2):
                    bad.append(got[-3:])
                done.append('stream')
        except ClosedError:
            refused.append(1)
        except BaseException as e:  # noqa: BLE001 - reported below
            bad.append(e)
        finally:
            ended.release()

    workers = [threading.Thread(target=sender) for _ in range(3)]
    workers += [threading.Thread(target=streamer) for _ in range(3)]
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)
    try:
        for t in workers:
            t.start()
        for _ in range(20):  # every worker is busy: calls in flight and streams open
            assert started.acquire(timeout=WAIT)
        c.close()
        assert c.closed
        gc.collect()
        for _ in workers:
            assert ended.acquire(timeout=WAIT)
        for t in workers:
            t.join(WAIT)
            assert not t.is_alive()
    finally:
        sys.setswitchinterval(old)
    assert not bad, bad[:3]
    assert len(refused) == len(workers)
    assert 'send' in done and 'stream' in done


def test_a_stream_outlives_its_client(busy: str) -> None:
    """A stream opened, then its client closed and collected: the stream reads to its end
    (it keeps the transport and the state), and nothing is freed twice."""
    import gc

    c = _client(busy)
    events = c.stream('go')
    c.close()
    with pytest.raises(ClosedError):
        c.stream('late')
    del c
    gc.collect()
    got = list(events)
    assert len(got) == EVENTS + 2, got[-3:]
    end = got[-1]
    assert isinstance(end, ClientStreamEnd) and end.outcome.success, end
    assert end.outcome._ptr() != 0  # its handle is kept by the outcome, usable
    del events, got
    gc.collect()
    assert end.outcome.state == 'completed'
