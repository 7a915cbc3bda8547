"""a2a_core.AsyncClient (the core's client machine with httpx) end to end: the same outcomes
as the blocking Client on the shared fixture rows and the project's fault server, the real
Python a2a-sdk and JS @a2a-js/sdk servers in both protocol versions and both bindings, the
event loop never blocked while many calls run, and cancellation against a hung server.

Plain pytest functions running `asyncio.run` (no asyncio plugin)."""

from __future__ import annotations

import asyncio
import http.server
import json
import logging
import os
import re
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from conftest import REPO, body_of, load

import a2a_core
from a2a_core import (
    AsyncClient,
    CardResolutionError,
    Client,
    ClientStreamEnd,
    Outcome,
    Resubscribing,
    StreamEndKind,
    StreamItem,
    is_event_stream,
)
from a2a_core.answer import Message, Task

sys.path.insert(0, str(REPO / 'tests' / 'peers'))
from launch import Peer, peer  # noqa: E402

FAST_SYNC = {'connect_timeout': 3.0, 'timeout': 20.0, 'stream_idle_timeout': 20.0}
FAST = {'connect_timeout': 3.0, 'timeout': 20.0, 'stream_idle_timeout': 20.0}


UUID = re.compile(r'[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}')


def run(coro: Any) -> Any:
    return asyncio.run(coro)


def split(events: list[Any]) -> tuple[list[StreamItem], ClientStreamEnd]:
    assert isinstance(events[-1], ClientStreamEnd), events[-1]
    assert all(not isinstance(e, ClientStreamEnd) for e in events[:-1])
    return [e for e in events if isinstance(e, StreamItem)], events[-1]


async def collect(it: Any) -> list[Any]:
    return [e async for e in it]


# --- the project's fault server ------------------------------------------------------------


def _testkit() -> Path:
    env = os.environ.get('A2A_TESTKIT_BIN')
    if env:
        return Path(env)
    target = Path(os.environ.get('CARGO_TARGET_DIR') or REPO / 'target')
    if not target.is_absolute():
        target = REPO / target
    return target / 'debug' / 'a2a-testkit'


@pytest.fixture(scope='module')
def fault() -> Iterator[str]:
    """`a2a-testkit fault-server` on 127.0.0.1 (a missing binary is a failure, not a skip:
    scripts/ci/40-python.sh builds it)."""
    binary = _testkit()
    assert binary.is_file(), f'{binary} missing: cargo build -p a2a-testkit'
    p = subprocess.Popen([str(binary), 'fault-server', '--port', '0', '--exit-on-eof'],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, text=True)
    try:
        url = None
        deadline = time.monotonic() + 20
        assert p.stdout is not None
        while time.monotonic() < deadline:
            line = p.stdout.readline()
            if not line:
                break
            if line.startswith('READY '):
                url = line.split()[1].rstrip('/')
                break
        assert url, 'fault-server did not print READY'
        yield url
    finally:
        if p.stdin:
            p.stdin.close()
        try:
            p.wait(timeout=5)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait(timeout=5)


def comparable(o: Outcome) -> dict[str, Any]:
    d = o.to_dict()
    d['exit_code'] = o.exit_code
    d['success'] = o.success
    d['result_text'] = o.result.text if o.result is not None else None
    # the JSON-RPC ids are each client's own draws
    for k in ('message', 'hint', 'reason'):
        if isinstance(d.get(k), str):
            d[k] = UUID.sub('<id>', d[k])
    # the message of a transport failure is each HTTP stack's own words
    if o.channel.value == 'transport':
        d.pop('message', None)
        d.pop('hint', None)
    return d


SEND_SCENARIOS = ['ok', 'status-503', 'status-502-bare', 'status-500-rpc', 'html502',
                  'redirect', 'secured', 'big-70000', 'working', 'parts', 'mirror',
                  'badbytes', 'drop-second']


@pytest.mark.parametrize('scenario', SEND_SCENARIOS)
def test_fault_server_sends_match_the_blocking_client(fault: str, scenario: str) -> None:
    url = f'{fault}/{scenario}/'
    with Client(url, allow_http=True, **FAST_SYNC) as c:
        want = [comparable(c.send(t)) for t in ('echo one', 'fail now', 'echo two')]

    async def main() -> list[dict[str, Any]]:
        async with AsyncClient(url, allow_http=True, **FAST) as ac:
            assert ac.card is not None and ac.card.interface_url.startswith(fault)
            return [comparable(await ac.send(t)) for t in ('echo one', 'fail now', 'echo two')]

    got = run(main())
    for w, g in zip(want, got):
        # the task ids are the server's, new per call
        w.pop('task_id'), g.pop('task_id'), w.pop('context_id'), g.pop('context_id')
        if w.get('error_id'):
            assert g.get('error_id'), g
            w.pop('error_id'), g.pop('error_id')
            w['text'] = g['text'] = w['message'] = g['message'] = None
            w['result_text'] = g['result_text'] = None
        assert g == w, scenario


STREAM_SCENARIOS = ['ok', 'multiline', 'burst-50', 'final-drop', 'badevent',
                    'bigevent-2000000', 'keepalive-50-300']


@pytest.mark.parametrize('scenario', STREAM_SCENARIOS)
def test_fault_server_streams_match_the_blocking_client(fault: str, scenario: str) -> None:
    url = f'{fault}/{scenario}/'
    opts = {'max_event_bytes': 1 << 20} if scenario.startswith('bigevent') else {}
    sync_opts = dict(FAST_SYNC)
    with Client(url, allow_http=True, **sync_opts) as c:
        w_items, w_end = split(list(c.stream('echo streamed')))

    async def main() -> list[Any]:
        async with AsyncClient(url, allow_http=True, **FAST, **opts) as ac:
            return await collect(ac.stream('echo streamed'))

    g_items, g_end = split(run(main()))
    if scenario.startswith('bigevent'):
        # the machine takes a smaller event limit here; it must say it dropped one
        assert g_end.dropped_events == 1 and g_end.lost_content
        return
    assert [i.kind for i in g_items] == [i.kind for i in w_items]
    assert g_end.kind == w_end.kind
    for k in ('channel', 'state', 'error', 'retry'):
        assert getattr(g_end.outcome, k) == getattr(w_end.outcome, k), k
    assert g_end.outcome.exit_code == w_end.outcome.exit_code
    assert (g_end.dropped_events, g_end.unreadable_events) == (w_end.dropped_events,
                                                                 w_end.unreadable_events)
    if w_end.answer is not None:
        assert g_end.answer.text == w_end.answer.text


# A loop body slower than the idle timeout (0.7 s against 0.4 s) while the server keeps
# sending: the events that came meanwhile are read, not cut as idle, on every client path;
# on a silent server (`stall`) the passed deadline still ends the stream at once.
SLOW_BODY = 0.7
PATHS = ['async', 'async-await', 'async-httpx', 'blocking', 'blocking-httpx']


def _slow_stream(url: str, path: str, idle: float, body: float = SLOW_BODY,
                 every_item: bool = False) -> tuple[list[Any], float]:
    """Streams with a loop body that spends `body` seconds on the first item (on every item
    with `every_item`); the events and the seconds from the last slow body's end to the
    stream's end."""
    got: list[Any] = []
    back = [0.0]

    def take(e: Any) -> bool:
        got.append(e)
        return isinstance(e, StreamItem) and (every_item or len(got) == 1)

    opts = dict(FAST, stream_idle_timeout=idle)
    if path.startswith('async'):
        async def main() -> None:
            http = httpx.AsyncClient() if path == 'async-httpx' else None
            async with AsyncClient(url, allow_http=True, http_client=http, **opts) as ac:
                async for e in ac.stream('go'):
                    if take(e):
                        if path == 'async-await':
                            await asyncio.sleep(body)
                        else:
                            time.sleep(body)  # a body that blocks the loop too
                        back[0] = time.monotonic()
            if http is not None:
                await http.aclose()
        run(main())
    else:
        http = httpx.Client() if path == 'blocking-httpx' else None
        with Client(url, allow_http=True, http_client=http, **opts) as c:
            for e in c.stream('go'):
                if take(e):
                    time.sleep(body)
                    back[0] = time.monotonic()
        if http is not None:
            http.close()
    return got, time.monotonic() - back[0]


@pytest.mark.parametrize('path', PATHS)
def test_a_slow_loop_body_reads_what_came_meanwhile(fault: str, path: str) -> None:
    events, _ = _slow_stream(f'{fault}/flow-100-1500/', path, 0.4)
    assert not any(isinstance(e, Resubscribing) for e in events), events
    items, end = split(events)
    assert end.kind == StreamEndKind.COMPLETED, end.outcome
    assert end.outcome.success
    assert len(items) >= 10, len(items)


@pytest.mark.parametrize('path', PATHS)
def test_a_slow_loop_body_reads_what_its_http_stack_already_holds(fault: str, path: str) -> None:
    # The server's last events come in quick succession, each its own HTTP chunk, and then
    # nothing (the connection stays open): while the loop body sleeps on every item, they
    # wait in the HTTP stack's buffers (httpx's h11 parser), not on the socket. They are
    # read, and the stream completes.
    events, _ = _slow_stream(f'{fault}/flow-50-200/', path, 0.2, body=0.35, every_item=True)
    assert not any(isinstance(e, Resubscribing) for e in events), events
    items, end = split(events)
    assert end.kind == StreamEndKind.COMPLETED, end.outcome
    assert end.outcome.success
    assert len(items) >= 5, len(items)


@pytest.mark.parametrize(('held', 'closed', 'chunked', 'waiting'), [
    (b'\r\n1a\r\ndata: {', False, True, True),  # the next chunk's first bytes
    (b'\r\n1a;x=1\r\nd', False, True, True),  # a chunk extension
    (b'\r\n1a\r\n', False, True, False),  # its size line only: its data is still to come
    (b'\r\n1', False, True, False),  # a partial size line
    (b'\r\n', False, True, False),  # the end of the chunk just read
    (b'\r\n0\r\n\r\n', False, True, True),  # the body's end
    (b'\r\n0\r\nx-t: 1\r\n\r\n', False, True, True),  # ... after a trailer
    (b'\r\n0\r\nx-t: 1\r\n', False, True, False),  # ... a trailer still coming
    (b'', True, True, True),  # the server closed: the read ends at once
    (b'', False, True, False),
    (b'abc', False, False, False),  # Content-Length: h11 hands out all it holds at once
])
def test_the_blocking_httpx_host_sees_body_bytes_its_parser_holds(
        held: bytes, closed: bool, chunked: bool, waiting: bool) -> None:
    from types import SimpleNamespace as NS

    from a2a_core import _httpx_io
    h11 = NS(trailing_data=(held, closed))
    stream = NS(_stream=NS(_httpcore_stream=NS(_stream=NS(_connection=NS(_h11_state=h11)))))
    headers = {'transfer-encoding': 'chunked'} if chunked else {}
    current = NS(response=NS(stream=stream, headers=headers))
    assert _httpx_io._parser_holds_body(current) is waiting
    # A chain httpx or httpcore no longer has: no bytes known, the socket check decides.
    assert _httpx_io._parser_holds_body(NS(response=NS(stream=NS(), headers=headers))) is False


def test_the_httpx_host_shares_only_constant_header_values_and_keeps_its_caches_bounded() -> None:
    from a2a_core import _httpx_io
    for cache in (_httpx_io._shared_names, _httpx_io._shared_values, _httpx_io._urls):
        cache.clear()  # whatever earlier tests left (a full cache adds no new entry)
    # Copies made at run time, as each request's headers are: equal bytes, distinct objects.
    def req(token: str) -> list[tuple[bytes, bytes]]:
        return [(bytes(b'Content-Type'), bytes(b'application/json')),
                (bytes(b'A2A-Version'), bytes(b'1.0')),
                (bytes(b'Authorization'), ('Bearer ' + token).encode())]
    first = _httpx_io._shared_headers(req('x'))
    second = _httpx_io._shared_headers(req('x'))
    assert first == second == req('x')  # the same headers, in the same order
    for (n1, v1), (n2, v2), (name, _) in zip(first, second, req('x')):
        assert n1 is n2  # every name shared
        # Only constant values are shared; a credential never outlives its request here.
        assert (v1 is v2) is (name.lower() in (b'content-type', b'a2a-version'))
    for i in range(3 * _httpx_io._SHARED_MAX):
        _httpx_io._shared_headers([(f'X-H{i}'.encode(), b'v'), (b'Accept', f'a/{i}'.encode())])
        _httpx_io._url(f'http://127.0.0.1:{1000 + i}/')
    assert len(_httpx_io._shared_names) <= _httpx_io._SHARED_MAX
    assert len(_httpx_io._shared_values) <= _httpx_io._SHARED_MAX
    assert len(_httpx_io._urls) <= _httpx_io._URLS_MAX
    assert _httpx_io._url('http://127.0.0.1:9/a?b=1') is _httpx_io._url('http://127.0.0.1:9/a?b=1')


@pytest.mark.parametrize('path', PATHS)
def test_a_slow_loop_body_on_a_silent_server_still_times_out(fault: str, path: str) -> None:
    events, after = _slow_stream(f'{fault}/stall/', path, 0.3)
    _, end = split(events)
    assert end.kind == StreamEndKind.TIMED_OUT, end.outcome
    assert end.outcome.error is not None and end.outcome.error.value == 'Timeout'
    assert after < 5.0, after


def test_parts_and_metadata_reach_the_agent_as_with_the_blocking_client(fault: str) -> None:
    from a2a_core import DataPart, FilePart, TextPart
    parts = [TextPart('second', metadata={'k': 1}), DataPart({'answer': 42}),
             FilePart(data=b'hello file', media_type='text/plain', name='h.txt'),
             FilePart(uri='https://files.example/r.pdf', media_type='application/pdf')]
    url = f'{fault}/mirror/'
    with Client(url, allow_http=True, **FAST_SYNC) as c:
        want = c.send('first', parts=parts, metadata={'trace': 't-1'})

    async def main() -> tuple[Outcome, list[Any]]:
        async with AsyncClient(url, allow_http=True, **FAST) as ac:
            o = await ac.send('first', parts=parts, metadata={'trace': 't-1'})
            events = await collect(ac.stream(parts=['streamed'], context_id=o.context_id))
            return o, events

    got, events = run(main())
    assert got.success and want.success
    assert got.result.artifacts == want.result.artifacts
    assert [p.kind for p in got.result.artifacts[0].parts] == ['text', 'text', 'data', 'file',
                                                               'file']
    _, end = split(events)
    assert end.outcome.success


def test_a_cut_stream_is_resubscribed_never_resent(fault: str) -> None:
    async def main() -> list[Any]:
        async with AsyncClient(f'{fault}/stream-drop/', allow_http=True, stream_resubscribes=2,
                               **FAST) as ac:
            return await collect(ac.stream('echo again'))

    events = run(main())
    items, end = split(events)
    assert any(isinstance(e, Resubscribing) for e in events)
    assert end.resubscribes == 1
    assert end.outcome.success and end.outcome.state.value == 'completed'
    counters = json.loads(_get(f'{fault}/_counters/stream-drop'))
    assert counters['streams'] == 1 and counters['resubscribes'] == 1


def _get(url: str) -> str:
    import httpx
    return httpx.get(url, timeout=5).text


def test_card_failures_raise_with_the_outcome(fault: str) -> None:
    async def main(path: str, **kw: Any) -> None:
        async with AsyncClient(f'{fault}/{path}/', **kw):
            pass

    with pytest.raises(CardResolutionError) as e:
        run(main('ok'))  # plain http refused by default
    assert isinstance(e.value.outcome, Outcome) and not e.value.outcome.success
    for path in ('card-otherhost', 'card-302'):
        with pytest.raises(CardResolutionError) as e:
            run(main(path, allow_http=True))
        assert e.value.outcome.channel.value == 'transport'


def test_fetch_card_and_afetch_card(fault: str) -> None:
    card = a2a_core.fetch_card(f'{fault}/ok/', allow_http=True)
    assert card.interface_url == f'{fault}/ok/a2a'
    assert card.card.info.name and card.version.value == '0.3'
    again = run(a2a_core.afetch_card(f'{fault}/ok/', allow_http=True))
    assert again.card_json == card.card_json


def test_connect_refused_is_an_unsent_transport_outcome() -> None:
    s = socket.socket()
    s.bind(('127.0.0.1', 0))
    port = s.getsockname()[1]
    s.close()

    async def main() -> Outcome:
        async with AsyncClient.with_target(f'http://127.0.0.1:{port}/', '1.0', 'jsonrpc',
                                           allow_http=True, **FAST) as ac:
            return await ac.send('echo hi')

    o = run(main())
    assert o.channel.value == 'transport' and o.error.value == 'ConnectFailed'
    assert o.request_sent.value == 'no' and not o.success


class _NoCapabilities(http.server.BaseHTTPRequestHandler):
    """A 0.3 agent whose card declares no capabilities: serves the card, records every other
    request and answers it with a completed task (an event stream for message/stream)."""

    protocol_version = 'HTTP/1.1'
    calls: list[str] = []

    def log_message(self, *args: Any) -> None:
        pass

    def do_GET(self) -> None:  # noqa: N802
        base = f'http://127.0.0.1:{self.server.server_address[1]}'
        card = json.dumps({'protocolVersion': '0.3.0', 'name': 'nocaps', 'description': 'd',
                           'url': f'{base}/a2a', 'preferredTransport': 'JSONRPC',
                           'version': '1', 'capabilities': {}, 'skills': [],
                           'defaultInputModes': ['text/plain'],
                           'defaultOutputModes': ['text/plain']}).encode()
        self.send_response(200)
        self.send_header('content-type', 'application/json')
        self.send_header('content-length', str(len(card)))
        self.end_headers()
        self.wfile.write(card)

    def do_POST(self) -> None:  # noqa: N802
        req = json.loads(self.rfile.read(int(self.headers['content-length'])))
        type(self).calls.append(req['method'])
        task = {'kind': 'task', 'id': 't-1', 'contextId': 'c-1',
                'status': {'state': 'completed'}}
        doc = json.dumps({'jsonrpc': '2.0', 'id': req['id'], 'result': task})
        if req['method'] == 'message/stream':
            body = f'data: {doc}\n\n'.encode()
            kind = 'text/event-stream'
        else:
            body, kind = doc.encode(), 'application/json'
        self.send_response(200)
        self.send_header('content-type', kind)
        self.send_header('content-length', str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture
def no_caps_agent() -> Iterator[str]:
    _NoCapabilities.calls = []
    srv = http.server.ThreadingHTTPServer(('127.0.0.1', 0), _NoCapabilities)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        yield f'http://127.0.0.1:{srv.server_address[1]}/'
    finally:
        srv.shutdown()
        srv.server_close()


class _ExtendedCard(http.server.BaseHTTPRequestHandler):
    """A 0.3 agent whose public card declares no streaming and whose extended card does, on
    `/a2a/v2` (or on `localhost`, another host, when `drift`); records every POST's path and
    method and answers a stream with a completed task."""

    protocol_version = 'HTTP/1.1'
    calls: list[tuple[str, str]] = []
    drift = False

    def log_message(self, *args: Any) -> None:
        pass

    def _card(self, host: str, path: str, streaming: bool) -> dict[str, Any]:
        return {'protocolVersion': '0.3.0', 'name': 'ext', 'description': 'd',
                'url': f'http://{host}:{self.server.server_address[1]}{path}',
                'preferredTransport': 'JSONRPC', 'version': '1',
                'capabilities': {'streaming': streaming},
                'supportsAuthenticatedExtendedCard': True, 'skills': [],
                'defaultInputModes': ['text/plain'], 'defaultOutputModes': ['text/plain']}

    def _reply(self, body: bytes, kind: str) -> None:
        self.send_response(200)
        self.send_header('content-type', kind)
        self.send_header('content-length', str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:  # noqa: N802
        self._reply(json.dumps(self._card('127.0.0.1', '/a2a', False)).encode(),
                    'application/json')

    def do_POST(self) -> None:  # noqa: N802
        req = json.loads(self.rfile.read(int(self.headers['content-length'])))
        type(self).calls.append((self.path, req['method']))
        if req['method'] == 'agent/getAuthenticatedExtendedCard':
            host = 'localhost' if type(self).drift else '127.0.0.1'
            card = self._card(host, '/a2a/v2', True)
            doc = json.dumps({'jsonrpc': '2.0', 'id': req['id'], 'result': card})
            return self._reply(doc.encode(), 'application/json')
        task = {'kind': 'task', 'id': 't-1', 'contextId': 'c-1',
                'status': {'state': 'completed'}}
        doc = json.dumps({'jsonrpc': '2.0', 'id': req['id'], 'result': task})
        self._reply(f'data: {doc}\n\n'.encode(), 'text/event-stream')


@pytest.fixture
def extended_agent() -> Iterator[str]:
    _ExtendedCard.calls = []
    _ExtendedCard.drift = False
    srv = http.server.ThreadingHTTPServer(('127.0.0.1', 0), _ExtendedCard)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        yield f'http://127.0.0.1:{srv.server_address[1]}/'
    finally:
        srv.shutdown()
        srv.server_close()


def test_the_extended_card_replaces_the_public_one(extended_agent: str) -> None:
    async def main() -> tuple[Outcome, Outcome, Any]:
        async with AsyncClient(extended_agent, allow_http=True, **FAST) as ac:
            _, before = split(await collect(ac.stream('echo hi')))
            ext = await ac.extended_card()
            _, after = split(await collect(ac.stream('echo hi')))
            return before.outcome, after.outcome, ext

    before, after, ext = run(main())
    assert before.error is not None and before.error.value == 'CapabilityNotDeclared', before
    assert not ext.outcome.failed and ext.result['capabilities']['streaming'] is True
    assert after.success, after
    assert _ExtendedCard.calls == [('/a2a', 'agent/getAuthenticatedExtendedCard'),
                                   ('/a2a/v2', 'message/stream')]


def test_a_drifting_extended_card_raises_and_the_public_card_stays(extended_agent: str) -> None:
    _ExtendedCard.drift = True

    async def main() -> Outcome:
        async with AsyncClient(extended_agent, allow_http=True, **FAST) as ac:
            with pytest.raises(a2a_core.CardError) as refused:
                await ac.extended_card()
            assert refused.value.code == 710, refused.value  # A2A_CARD_HOST_MISMATCH
            _, end = split(await collect(ac.stream('echo hi')))
            return end.outcome

    o = run(main())
    assert o.error is not None and o.error.value == 'CapabilityNotDeclared', o
    assert _ExtendedCard.calls == [('/a2a', 'agent/getAuthenticatedExtendedCard')]


def test_calls_the_card_does_not_declare_are_refused_unsent(no_caps_agent: str) -> None:
    async def main(**kw: Any) -> list[Outcome]:
        async with AsyncClient(no_caps_agent, allow_http=True, **FAST, **kw) as ac:
            _, streamed = split(await collect(ac.stream('echo hi')))
            _, resubscribed = split(await collect(ac.resubscribe('t-1')))
            pushed = await ac.set_push_config('t-1', 'https://hooks.example/x')
            listed = await ac.list_push_configs('t-1')
            try:
                extended: Any = (await ac.extended_card()).outcome
            except a2a_core.CardError:
                # With the check off this agent answers a task, which is no card to adopt.
                assert kw.get('ignore_capabilities')
                extended = None
            return [streamed.outcome, resubscribed.outcome, pushed.outcome, listed.outcome,
                    extended]

    outcomes = run(main())
    wanted = ['capabilities.streaming', 'capabilities.streaming',
              'capabilities.pushNotifications', 'capabilities.pushNotifications',
              'supportsAuthenticatedExtendedCard']
    for o, capability in zip(outcomes, wanted, strict=True):
        assert o.channel.value == 'transport' and o.error.value == 'CapabilityNotDeclared', o
        assert o.request_sent.value == 'no' and o.retry.value == 'never' and not o.success
        assert capability in o.message, o.message
    assert 'message/stream' in outcomes[0].message
    assert _NoCapabilities.calls == [], 'nothing reached the agent'
    # The opt-out sends them: the stream reaches the agent and completes.
    outcomes = run(main(ignore_capabilities=True))
    assert outcomes[0].success, outcomes[0]
    assert _NoCapabilities.calls[0] == 'message/stream'
    assert 'agent/getAuthenticatedExtendedCard' in _NoCapabilities.calls


# --- the shared fixture rows, served over HTTP ---------------------------------------------

ROWS = [r for r in load('outcomes.json')['rows']
        if 'transport' not in r['input'] and r['input'].get('binding') == 'jsonrpc'
        and r['input'].get('method') in ('SendMessage', 'message/send')
        and not is_event_stream(r['input'].get('content_type'))]


class _Replay(http.server.BaseHTTPRequestHandler):
    """Answers every POST with the current row's response, its JSON-RPC id set to the
    request's (the id each client chose)."""

    protocol_version = 'HTTP/1.1'
    row: dict[str, Any] = {}

    def do_POST(self) -> None:  # noqa: N802
        req = json.loads(self.rfile.read(int(self.headers['content-length'])))
        inp = self.row['input']
        body = body_of(inp)
        try:
            doc = json.loads(body)
            if isinstance(doc, dict) and 'id' in doc and doc['id'] is not None \
                    and str(doc['id']) == str(inp.get('request_id')):
                doc['id'] = req['id']
                body = json.dumps(doc).encode()
        except ValueError:
            pass
        self.send_response(inp['status'])
        if inp.get('content_type'):
            self.send_header('content-type', inp['content_type'])
        for k, v in (inp.get('headers') or {}).items():
            if k.lower() not in ('content-type', 'content-length'):
                self.send_header(k, v)
        self.send_header('content-length', str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture(scope='module')
def replay() -> Iterator[str]:
    srv = http.server.ThreadingHTTPServer(('127.0.0.1', 0), _Replay)
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    yield f'http://127.0.0.1:{srv.server_address[1]}/'
    srv.shutdown()
    srv.server_close()


def test_fixture_rows_match_the_blocking_client(replay: str) -> None:
    assert len(ROWS) > 40

    async def send_all(version: str) -> list[dict[str, Any]]:
        out = []
        async with AsyncClient.with_target(replay, version, 'jsonrpc', allow_http=True,
                                           **FAST) as ac:
            for row in [r for r in ROWS if r['input']['version'] == version]:
                _Replay.row = row
                out.append(comparable(await ac.send('hi')))
        return out

    for version in ('0.3', '1.0'):
        want = []
        with Client.with_target(replay, version, 'jsonrpc', allow_http=True, **FAST_SYNC) as c:
            for row in [r for r in ROWS if r['input']['version'] == version]:
                _Replay.row = row
                want.append(comparable(c.send('hi')))
        got = run(send_all(version))
        rows = [r for r in ROWS if r['input']['version'] == version]
        assert len(got) == len(want) == len(rows)
        for row, w, g in zip(rows, want, got):
            assert g == w, row['id']


# --- the real Python a2a-sdk server --------------------------------------------------------


@pytest.fixture(scope='module')
def py_peer() -> Iterator[Peer]:
    with peer('python', '--ping', '1', '--cancel-wait', '30') as p:
        yield p


@pytest.fixture(scope='module', params=['python', 'js'])
def any_peer(request: pytest.FixtureRequest) -> Iterator[Peer]:
    with peer(request.param, '--cancel-wait', '30') as p:
        yield p


TARGETS = [('1.0', 'jsonrpc', '/'), ('0.3', 'jsonrpc', '/'), ('1.0', 'http+json', '/rest'),
           ('0.3', 'http+json', '/rest')]


@pytest.mark.parametrize(('version', 'binding', 'path'), TARGETS)
def test_sdk_peers_every_version_and_binding(any_peer: Peer, version: str, binding: str,
                                            path: str) -> None:
    async def main() -> None:
        async with AsyncClient.with_target(any_peer.url + path, version, binding,
                                           allow_http=True, **FAST) as ac:
            o = await ac.send('echo hi')
            assert o.success and isinstance(o.result, Task), o
            assert o.result.text == 'hi'
            got = await ac.get(o.task_id)
            assert got.success and got.task_id == o.task_id
            failed = await ac.send('fail')
            assert failed.state.value == 'failed' and failed.error_id
            assert failed.exit_code == 5
            m = await ac.send('message direct')
            assert isinstance(m.result, Message) and m.result.text == 'direct'
            items, end = split(await collect(ac.stream('stream 3')))
            assert end.outcome.success and end.kind.value == 'completed'
            assert [i.kind.value for i in items].count('artifact-update') == 3
            assert end.answer.text == 'chunk 0\nchunk 1\nchunk 2'
            # cancel a running task seen on a stream
            running = ac.stream('cancel-me')
            task_id = None
            async for ev in running:
                if isinstance(ev, StreamItem) and ev.outcome.task_id:
                    task_id = ev.outcome.task_id
                    break
            await running.aclose()
            assert task_id
            c = await ac.cancel(task_id)
            assert c.state is not None and c.state.value == 'canceled', c

    run(main())


def test_python_peer_card_on_entry(py_peer: Peer) -> None:
    async def main() -> None:
        async with AsyncClient(py_peer.url, allow_http=True, **FAST) as ac:
            assert ac.card is not None and ac.card.version.value == '1.0'
            o = await ac.send('echo card')
            assert o.success and o.result.text == 'card'
            assert o.raise_for_outcome() is o
            failed = await ac.send('fail')
            with pytest.raises(a2a_core.OutcomeError) as e:
                failed.raise_for_outcome()
            assert e.value.outcome is failed
            # the outcome keeps its library handle: the resilience layer takes it
            text = a2a_core.model_text('specialist', failed)
            assert text.startswith('REMOTE_FAILED specialist:') and failed.error_id in text
            assert not a2a_core.counts_toward_breaker(failed)  # the remote is up

    run(main())


def test_protocol_and_binding_pick_the_cards_interface(py_peer: Peer) -> None:
    """protocol= / binding= insist on an interface of the card, on both machine clients."""
    async def main() -> None:
        for protocol, binding in (('0.3', None), ('1.0', 'http+json'), ('0.3', 'http+json')):
            async with AsyncClient(py_peer.url, allow_http=True, protocol=protocol,
                                   binding=binding, **FAST) as ac:
                assert ac.card is not None and ac.card.version.value == protocol, ac.card
                assert binding is None or ac.card.binding.value == 'HTTP+JSON', ac.card
                o = await ac.send('echo picked')
                assert o.success and o.result.text == 'picked', o
                assert o.version is not None and o.version.value == protocol, o
        with pytest.raises(ValueError):
            AsyncClient(py_peer.url, allow_http=True, protocol='7.0')

    run(main())
    with httpx.Client() as h, a2a_core.Client(py_peer.url, allow_http=True, protocol='0.3',
                                               binding='jsonrpc', http_client=h) as c:
        o = c.send('echo sync')
        assert o.success and o.version is not None and o.version.value == '0.3', o


def test_the_loop_is_never_blocked_while_many_calls_run(py_peer: Peer) -> None:
    """A ticker measures the event loop's lateness (every 5 ms) while 20 sends and 5 streams
    run at once on one client, each send held 2 s by the agent. A call that blocked the loop
    would stop the ticker for seconds. The bounds are generous (CI machines are shared and
    plain httpx alone shows ticks late by 100-400 ms there), the point being that no call
    blocks the loop for the length of a network wait: the median tick is on time, none is
    late by half a wait, and the calls overlap."""

    async def main() -> tuple[list[float], float, list[Any]]:
        lates: list[float] = []
        stop = asyncio.Event()

        async def ticker() -> None:
            while not stop.is_set():
                t0 = time.perf_counter()
                await asyncio.sleep(0.005)
                lates.append(time.perf_counter() - t0 - 0.005)

        async with AsyncClient(py_peer.url, allow_http=True, **FAST) as ac:
            tick = asyncio.create_task(ticker())
            await asyncio.sleep(0.02)
            threads = threading.active_count()
            t0 = time.perf_counter()
            sends = [ac.send(f'slow 2 {i}') for i in range(20)]
            streams = [collect(ac.stream('ticks 3 0.1')) for _ in range(5)]
            results = await asyncio.gather(*sends, *streams)
            wall = time.perf_counter() - t0
            assert threading.active_count() <= threads + 1  # no thread per call
            stop.set()
            await tick
        return lates, wall, results

    lates, wall, results = run(main())
    for o in results[:20]:
        assert o.success, o
    for events in results[20:]:
        _, end = split(events)
        assert end.outcome.success
    lates.sort()
    assert len(lates) > 100, len(lates)  # 2 s of 5 ms ticks: the loop kept ticking
    assert lates[len(lates) // 2] < 0.05, f'median tick late by {lates[len(lates) // 2]:.3f} s'
    assert lates[-1] < 1.0, f'the loop was blocked for {lates[-1]:.3f} s'
    assert wall < 10, f'20 sends of 2 s each took {wall:.1f} s: they did not overlap'


# --- cancellation --------------------------------------------------------------------------


def test_cancelling_the_task_aborts_the_call_at_once(fault: str) -> None:
    async def main() -> tuple[float, int]:
        async with AsyncClient(f'{fault}/hang/', allow_http=True, **FAST) as ac:
            task = asyncio.create_task(ac.send('echo never'))
            await asyncio.sleep(0.3)
            assert not task.done()
            t0 = time.perf_counter()
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            took = time.perf_counter() - t0
            # a stream, left mid-way by cancellation
            stask = asyncio.create_task(collect(ac.stream('echo never')))
            await asyncio.sleep(0.3)
            stask.cancel()
            with pytest.raises(asyncio.CancelledError):
                await stask
            # the client still works afterwards, with a deadline from the machine
            o = await ac.send('echo late', timeout=0.3)
            assert not o.success and o.error.value == 'Timeout', o
            return took, 0

    took, _ = run(main())
    assert took < 1.0
    # the hung server saw its connections closed: nothing is held open
    counters = json.loads(_get(f'{fault}/_counters/hang'))
    assert counters['sends'] == 2 and counters['streams'] == 1


def test_closed_client_refuses_calls_and_logs_per_call(py_peer: Peer,
                                                      caplog: pytest.LogCaptureFixture) -> None:
    async def main() -> AsyncClient:
        async with AsyncClient(py_peer.url, allow_http=True, **FAST) as ac:
            with caplog.at_level(logging.DEBUG, logger='a2a_core'):
                o = await ac.send('echo secret-content', headers={'Authorization': 'Bearer s3cr3t'})
            assert o.success
        return ac

    ac = run(main())
    with pytest.raises(a2a_core.ClosedError):
        run(ac.send('echo again'))

    async def close_during_calls() -> list[Outcome]:
        ac = AsyncClient(py_peer.url, allow_http=True, **FAST)
        await ac.open()
        calls = [asyncio.create_task(ac.send('slow 1')) for _ in range(3)]
        await asyncio.sleep(0.3)
        await ac.aclose()  # closes the client's own httpx client under the calls
        return await asyncio.gather(*calls)

    for o in run(close_during_calls()):
        assert not o.success and o.channel.value == 'transport', o
    records = [r.getMessage() for r in caplog.records if r.name == 'a2a_core']
    assert any('SendMessage' in m and 'traceparent=00-' in m for m in records), records
    assert not any('s3cr3t' in m or 'secret-content' in m for m in records)


@pytest.mark.parametrize(('binding', 'path'), [('jsonrpc', '/'), ('http+json', '/rest')])
def test_list_tasks_pages_push_configs_and_extended_card(py_peer: Peer, binding: str,
                                                         path: str) -> None:
    async def main() -> None:
        async with AsyncClient.with_target(py_peer.url + path, '1.0', binding,
                                           allow_http=True, **FAST) as ac:
            first = await ac.send('echo page')
            context = first.context_id
            ids = {first.task_id}
            for _ in range(4):  # the same context: the pages list this context only
                o = await ac.send('echo more', context_id=context)
                assert o.success, o
                ids.add(o.task_id)
            pages = [p async for p in ac.list_tasks(context_id=context, page_size=2)]
            assert all(p.outcome.channel.value != 'transport' for p in pages)
            seen = {t['id'] for p in pages for t in p.tasks}
            assert seen == ids
            assert len(pages) == 3 and pages[-1].next_page_token is None
            assert all(p.next_page_token for p in pages[:-1])
            # the peer has no push notifications and no extended card: protocol outcomes
            r = await ac.set_push_config(first.task_id, 'https://hooks.example/x',
                                         config_id='c1')
            assert r.outcome.error.value == 'PushNotificationNotSupported' and r.result is None
            r = await ac.list_push_configs(first.task_id)
            assert r.outcome.error.value == 'PushNotificationNotSupported'
            r = await ac.extended_card()
            assert r.outcome.channel.value == 'protocol' and r.result is None

    run(main())


def test_list_tasks_does_not_exist_in_0_3(py_peer: Peer) -> None:
    async def main() -> list[Any]:
        async with AsyncClient.with_target(py_peer.url + '/', '0.3', 'jsonrpc',
                                           allow_http=True, **FAST) as ac:
            return [p async for p in ac.list_tasks()]

    pages = run(main())
    assert len(pages) == 1 and pages[0].tasks == ()
    assert pages[0].outcome.failed and 'ListTasks' in (pages[0].outcome.message or '')


def test_the_blocking_client_takes_seconds_and_warns_on_ms_names() -> None:
    s = socket.socket()
    s.bind(('127.0.0.1', 0))
    port = s.getsockname()[1]
    s.close()
    url = f'http://127.0.0.1:{port}/'
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter('error')  # the seconds names never warn
        with Client.with_target(url, '1.0', 'jsonrpc', allow_http=True, timeout=2.5,
                                connect_timeout=0.5, stream_idle_timeout=1.5, max_time=3.0) as c:
            o = c.send('hi', timeout=0.5)
            assert o.error.value == 'ConnectFailed'
            assert c.get('t', timeout=0.5).error.value == 'ConnectFailed'
    with pytest.warns(DeprecationWarning, match='call_timeout_ms'):
        Client.with_target(url, '1.0', 'jsonrpc', allow_http=True, call_timeout_ms=500).close()
    with pytest.warns(DeprecationWarning, match='timeout_ms'), \
            Client.with_target(url, '1.0', 'jsonrpc', allow_http=True) as c:
        c.send('hi', timeout_ms=500)
    with pytest.raises(TypeError):
        Client.with_target(url, '1.0', 'jsonrpc', timeout=1.0, call_timeout_ms=1000)
    with pytest.raises(ValueError):
        Client.with_target(url, '1.0', 'jsonrpc', connect_timeout=0)
