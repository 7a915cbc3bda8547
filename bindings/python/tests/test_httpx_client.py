"""The blocking Client over the caller's httpx.Client (`Client(url, http_client=...)`): the
core's client machine driven by the same driver as AsyncClient, with the same outcomes as
the reference driver on the project's fault server, the shared fixture rows and the real
Python a2a-sdk server; close() against calls in flight on other threads; header hooks and
the per-call stream idle timeout on both machine-backed clients."""

from __future__ import annotations

import asyncio
import http.server
import json
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from test_async_client import (  # noqa: F401 - fault, replay and py_peer are fixtures
    FAST_SYNC,
    ROWS,
    SEND_SCENARIOS,
    STREAM_SCENARIOS,
    _Replay,
    comparable,
    fault,
    py_peer,
    replay,
    split,
)

import a2a_core
from a2a_core import (
    AsyncClient,
    CardResolutionError,
    Client,
    ClientStreamEnd,
    Outcome,
    Resubscribing,
    StreamItem,
)
from a2a_core.answer import Message, Task


@pytest.fixture(scope='module')
def http_client() -> Iterator[httpx.Client]:
    with httpx.Client(timeout=httpx.Timeout(None, connect=3.0)) as h:
        yield h


def _without_ids(w: dict[str, Any], g: dict[str, Any]) -> None:
    for k in ('task_id', 'context_id'):
        w.pop(k), g.pop(k)
    if w.get('error_id'):
        assert g.get('error_id'), g
        w.pop('error_id'), g.pop('error_id')
        w['text'] = g['text'] = w['message'] = g['message'] = None
        w['result_text'] = g['result_text'] = None


@pytest.mark.parametrize('scenario', SEND_SCENARIOS)
def test_fault_server_sends_match_the_reference_driver(fault: str, http_client: httpx.Client,
                                                       scenario: str) -> None:
    url = f'{fault}/{scenario}/'
    texts = ('echo one', 'fail now', 'echo two')
    with Client(url, allow_http=True, **FAST_SYNC) as c:
        want = [comparable(c.send(t)) for t in texts]
    with Client(url, allow_http=True, http_client=http_client, **FAST_SYNC) as c:
        assert c.card is not None and c.card.interface_url.startswith(fault)
        got = [comparable(c.send(t)) for t in texts]
    for w, g in zip(want, got):
        _without_ids(w, g)
        assert g == w, scenario


@pytest.mark.parametrize('scenario', STREAM_SCENARIOS)
def test_fault_server_streams_match_the_reference_driver(fault: str, http_client: httpx.Client,
                                                         scenario: str) -> None:
    url = f'{fault}/{scenario}/'
    with Client(url, allow_http=True, **FAST_SYNC) as c:
        w_items, w_end = split(list(c.stream('echo streamed')))
    with Client(url, allow_http=True, http_client=http_client, **FAST_SYNC) as c:
        g_items, g_end = split(list(c.stream('echo streamed')))
    if scenario.startswith('bigevent'):
        # the machine's default event limit (16 MiB) keeps what the driver's keeps
        assert g_end.dropped_events == w_end.dropped_events
    assert [i.kind for i in g_items] == [i.kind for i in w_items]
    assert g_end.kind == w_end.kind
    for k in ('channel', 'state', 'error', 'retry'):
        assert getattr(g_end.outcome, k) == getattr(w_end.outcome, k), k
    assert g_end.outcome.exit_code == w_end.outcome.exit_code
    assert (g_end.dropped_events, g_end.unreadable_events) == (w_end.dropped_events,
                                                                 w_end.unreadable_events)
    if w_end.answer is not None:
        assert g_end.answer.text == w_end.answer.text


def test_fixture_rows_match_the_reference_driver(replay: str, http_client: httpx.Client) -> None:
    for version in ('0.3', '1.0'):
        rows = [r for r in ROWS if r['input']['version'] == version]
        want, got = [], []
        with Client.with_target(replay, version, 'jsonrpc', allow_http=True, **FAST_SYNC) as c:
            for row in rows:
                _Replay.row = row
                want.append(comparable(c.send('hi')))
        with Client.with_target(replay, version, 'jsonrpc', allow_http=True, http_client=http_client,
                                **FAST_SYNC) as c:
            for row in rows:
                _Replay.row = row
                got.append(comparable(c.send('hi')))
        assert len(got) == len(want) == len(rows) > 20
        for row, w, g in zip(rows, want, got):
            assert g == w, row['id']


def test_cut_stream_resubscribed_card_failures_and_refused_port(fault: str,
                                                                http_client: httpx.Client) -> None:
    with Client(f'{fault}/stream-drop/', allow_http=True, http_client=http_client,
                stream_resubscribe_attempts=2, **FAST_SYNC) as c:
        events = list(c.stream('echo again'))
    _, end = split(events)
    assert any(isinstance(e, Resubscribing) for e in events)
    assert end.resubscribes == 1 and end.outcome.state.value == 'completed'
    with pytest.raises(CardResolutionError) as e:
        Client(f'{fault}/ok/', http_client=http_client)  # plain http refused by default
    assert isinstance(e.value.outcome, Outcome) and not e.value.outcome.success
    for path in ('card-otherhost', 'card-302'):
        with pytest.raises(CardResolutionError) as e:
            Client(f'{fault}/{path}/', allow_http=True, http_client=http_client)
        assert e.value.outcome.channel.value == 'transport'
    s = socket.socket()
    s.bind(('127.0.0.1', 0))
    port = s.getsockname()[1]
    s.close()
    with Client.with_target(f'http://127.0.0.1:{port}/', '1.0', 'jsonrpc', allow_http=True,
                            http_client=http_client) as c:
        o = c.send('echo hi')
        assert o.error.value == 'ConnectFailed' and o.request_sent.value == 'no'
        items, end = split(list(c.stream('echo hi')))
        assert items == [] and end.outcome.error.value == 'ConnectFailed'
    card = a2a_core.fetch_card(f'{fault}/ok/', allow_http=True, http_client=http_client)
    assert card.interface_url == f'{fault}/ok/a2a'


def test_deadlines_come_from_the_machine(fault: str, http_client: httpx.Client) -> None:
    """A hung send ends at its per-call timeout, a silent stream at its idle timeout (the
    httpx read timeouts are set from the machine's deadlines), and leaving a stream
    closes its connection."""
    with Client(f'{fault}/hang/', allow_http=True, http_client=http_client, **FAST_SYNC) as c:
        t0 = time.monotonic()
        o = c.send('echo never', timeout=0.5)
        took = time.monotonic() - t0
        assert o.error.value == 'Timeout' and not o.success, o
        assert 0.4 < took < 3.0, took
    with Client(f'{fault}/stall/', allow_http=True, http_client=http_client, connect_timeout=3.0,
                timeout=20.0, stream_idle_timeout=0.6) as c:
        t0 = time.monotonic()
        items, end = split(list(c.stream('echo stalled')))
        took = time.monotonic() - t0
    assert [i.kind.value for i in items] == ['task', 'status-update']
    assert end.outcome.error.value == 'Timeout' and end.kind.value == 'timed_out', end
    assert 0.5 < took < 3.0, took
    with Client(f'{fault}/ok/', allow_http=True, http_client=http_client, **FAST_SYNC) as c:
        it = c.stream('echo left early')
        first = next(it)
        assert isinstance(first, StreamItem)
        it.close()  # cancels the call and closes the response
        assert c.send('echo after').success


# --- the real Python a2a-sdk server --------------------------------------------------------

TARGETS = [('1.0', 'jsonrpc', '/'), ('0.3', 'jsonrpc', '/'), ('1.0', 'http+json', '/rest'),
           ('0.3', 'http+json', '/rest')]


@pytest.mark.parametrize(('version', 'binding', 'path'), TARGETS)
def test_python_peer_every_version_and_binding(py_peer: Any, http_client: httpx.Client, version: str,
                                               binding: str, path: str) -> None:
    with Client.with_target(py_peer.url + path, version, binding, allow_http=True,
                            http_client=http_client, **FAST_SYNC) as c:
        o = c.send('echo hi')
        assert o.success and isinstance(o.result, Task) and o.result.text == 'hi', o
        got = c.get(o.task_id)
        assert got.success and got.task_id == o.task_id
        failed = c.send('fail')
        assert failed.state.value == 'failed' and failed.error_id and failed.exit_code == 5
        assert a2a_core.model_text('specialist', failed).startswith('REMOTE_FAILED')
        m = c.send('message direct')
        assert isinstance(m.result, Message) and m.result.text == 'direct'
        items, end = split(list(c.stream('stream 3')))
        assert end.outcome.success and end.answer.text == 'chunk 0\nchunk 1\nchunk 2'
        running = c.stream('cancel-me')
        task_id = None
        for ev in running:
            if isinstance(ev, StreamItem) and ev.outcome.task_id:
                task_id = ev.outcome.task_id
                break
        running.close()
        assert task_id
        canceled = c.cancel(task_id)
        assert canceled.state is not None and canceled.state.value == 'canceled', canceled


def test_close_waits_for_calls_in_flight_on_other_threads(py_peer: Any,
                                                          http_client: httpx.Client) -> None:
    """Four threads each send a call the agent holds 1 s; close() from the main thread
    refuses new calls at once and returns only after every call has returned with its real
    outcome (nothing is freed under a running call); a stream opened before close() runs
    to its end after it."""
    c = Client(py_peer.url, allow_http=True, http_client=http_client, **FAST_SYNC)
    results: dict[int, tuple[Outcome, float]] = {}

    def call(i: int) -> None:
        o = c.send(f'slow 1 {i}')
        results[i] = (o, time.monotonic())

    stream = c.stream('stream 3')
    threads = [threading.Thread(target=call, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    time.sleep(0.3)
    t0 = time.monotonic()
    closer = threading.Thread(target=c.close)
    closer.start()
    time.sleep(0.1)
    assert c.closed
    with pytest.raises(a2a_core.ClosedError):
        c.send('echo refused')
    closer.join(timeout=15)
    closed_at = time.monotonic()
    assert not closer.is_alive()
    for t in threads:
        t.join(timeout=15)
    assert sorted(results) == [0, 1, 2, 3]
    for o, done_at in results.values():
        assert o.success and o.result is not None, o
        assert done_at <= closed_at
    assert closed_at - t0 > 0.3  # it waited for the held calls
    _, end = split(list(stream))
    assert end.outcome.success and end.answer.text == 'chunk 0\nchunk 1\nchunk 2'
    c.close()  # a second close does nothing


def test_curl_options_are_refused_with_an_httpx_client(http_client: httpx.Client) -> None:
    with pytest.raises(TypeError, match='ca_file, proxy'):
        Client('https://agent.example', http_client=http_client, ca_file='x.pem', proxy='')
    with pytest.raises(TypeError, match='httpx.Client'):
        Client('https://agent.example', http_client=httpx.AsyncClient(),
               defer_card_resolution=True)


# --- header hooks and the per-call idle timeout, on both machine-backed clients -------------


class _Recorder(http.server.BaseHTTPRequestHandler):
    """A JSON-RPC agent that records each request's headers and answers a completed task."""

    protocol_version = 'HTTP/1.1'
    seen: list[dict[str, str]] = []

    def do_POST(self) -> None:  # noqa: N802
        req = json.loads(self.rfile.read(int(self.headers['content-length'])))
        type(self).seen.append({k.lower(): v for k, v in self.headers.items()})
        body = json.dumps({'jsonrpc': '2.0', 'id': req['id'], 'result': {
            'kind': 'task', 'id': 't1', 'contextId': 'c1',
            'status': {'state': 'completed'}}}).encode()
        self.send_response(200)
        self.send_header('content-type', 'application/json')
        self.send_header('content-length', str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture(scope='module')
def recorder() -> Iterator[str]:
    srv = http.server.ThreadingHTTPServer(('127.0.0.1', 0), _Recorder)
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    yield f'http://127.0.0.1:{srv.server_address[1]}/'
    srv.shutdown()
    srv.server_close()


def _hooks() -> list[Any]:
    return [lambda method: {'Authorization': 'Bearer t0k3n'},
            lambda method: [('X-Method', method)]]


def test_header_hooks_on_the_sync_httpx_path(recorder: str, http_client: httpx.Client) -> None:
    _Recorder.seen.clear()
    with Client.with_target(recorder, '1.0', 'jsonrpc', allow_http=True, http_client=http_client,
                            header_hooks=_hooks()[:1]) as c:
        c.add_header_hook(_hooks()[1])
        assert c.send('echo hi').success
        assert c.get('t1').success
    assert [(s['authorization'], s['x-method']) for s in _Recorder.seen] == [
        ('Bearer t0k3n', 'SendMessage'), ('Bearer t0k3n', 'GetTask')]
    _check_hook_failures(recorder, lambda hooks: Client.with_target(
        recorder, '1.0', 'jsonrpc', allow_http=True, http_client=http_client, header_hooks=hooks),
        lambda c: c.send('echo hi'))


def test_header_hooks_on_the_async_client(recorder: str) -> None:
    _Recorder.seen.clear()

    async def main() -> None:
        async with AsyncClient.with_target(recorder, '0.3', 'jsonrpc', allow_http=True,
                                           header_hooks=_hooks()) as ac:
            assert (await ac.send('echo hi')).success
            assert (await ac.cancel('t1')).success

    asyncio.run(main())
    assert [(s['authorization'], s['x-method']) for s in _Recorder.seen] == [
        ('Bearer t0k3n', 'SendMessage'), ('Bearer t0k3n', 'CancelTask')]

    async def make(hooks: list[Any]) -> Any:
        ac = AsyncClient.with_target(recorder, '1.0', 'jsonrpc', allow_http=True,
                                     header_hooks=hooks)
        await ac.open()
        return ac

    _check_hook_failures(recorder, lambda hooks: asyncio.run(make(hooks)),
                         lambda ac: asyncio.run(ac.send('echo hi')))


def _check_hook_failures(recorder: str, make: Any, send: Any) -> None:
    """A reserved header ends the call unsent as transport/InvalidRequest; a hook that
    raises stops the request (nothing reaches the agent) and the call raises it."""
    _Recorder.seen.clear()
    c = make([lambda method: {'Content-Length': '0'}])
    o = send(c)
    assert o.channel.value == 'transport' and o.error.value == 'InvalidRequest', o
    assert o.request_sent.value == 'no' and not o.success
    assert _Recorder.seen == []

    class Boom(Exception):
        pass

    def boom(method: str) -> None:
        raise Boom(method)

    c = make([boom])
    with pytest.raises(Boom):
        send(c)
    assert _Recorder.seen == []
    c = make([])
    assert send(c).success  # hooks are per client


def test_per_call_stream_idle_timeout(fault: str, http_client: httpx.Client) -> None:
    """`stream(..., idle_timeout=0.5)` on a stream that goes silent after two events ends
    as an idle timeout about 0.5 s later, though the client's idle timeout is 20 s: on
    AsyncClient and on the sync httpx path."""

    async def amain() -> tuple[list[Any], float]:
        async with AsyncClient(f'{fault}/stall/', allow_http=True, timeout=20.0,
                               stream_idle_timeout=20.0) as ac:
            t0 = time.monotonic()
            events = [e async for e in ac.stream('echo stalled', idle_timeout=0.5)]
            return events, time.monotonic() - t0

    def smain() -> tuple[list[Any], float]:
        with Client(f'{fault}/stall/', allow_http=True, http_client=http_client, timeout=20.0,
                    stream_idle_timeout=20.0) as c:
            t0 = time.monotonic()
            events = list(c.stream('echo stalled', idle_timeout=0.5))
            return events, time.monotonic() - t0

    for events, took in (asyncio.run(amain()), smain()):
        items, end = split(events)
        assert isinstance(end, ClientStreamEnd) and len(items) == 2
        assert end.outcome.error.value == 'Timeout' and end.kind.value == 'timed_out', end
        assert 0.4 < took < 3.0, took


def test_one_copy_and_pickle_guard_for_every_handle_holder(recorder: str,
                                                           http_client: httpx.Client) -> None:
    """The objects that own or borrow a library handle share one guard (`HandleHolder`):
    a copy shares the holder (never frees the handle twice), a pickled one has none."""
    import copy
    import pickle

    from a2a_core import _drive, _guard, _native, outcome

    for cls in (outcome._OwnedOutcome, _drive._CallOutcome, _native._FinishedCall):
        assert issubclass(cls, _guard.HandleHolder), cls
        assert not {'__copy__', '__deepcopy__', '__reduce__'} & set(vars(cls)), cls
    with Client.with_target(recorder, '1.0', 'jsonrpc', allow_http=True,
                            http_client=http_client) as c:
        o = c.send('echo hi')
    holder = o._owned
    assert isinstance(holder, _drive._CallOutcome)
    assert copy.copy(o)._owned is holder and copy.deepcopy(o)._owned is holder
    again = pickle.loads(pickle.dumps(o))
    assert again == o and again._owned is None
    assert a2a_core.model_text('x', o) == a2a_core.model_text('x', copy.deepcopy(o))
