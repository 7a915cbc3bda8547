"""The driver's blocking Client (a2a_core.Client) end to end: against the real Python
a2a-sdk 1.3.0 server (tests/peers/python) for send, stream, get, cancel and resubscribe;
against a stdlib HTTP server that records what arrives, for the header hooks and call
options; and against a refused port, for the transport outcomes."""

from __future__ import annotations

import http.server
import json
import re
import socket
import sys
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from conftest import REPO

import a2a_core
from a2a_core import (
    CardResolutionError,
    Client,
    ClientStreamEnd,
    Outcome,
    StreamItem,
    Traceparent,
    derive_idempotency_key,
    model_text,
)

sys.path.insert(0, str(REPO / 'tests' / 'peers'))
from launch import Peer, peer  # noqa: E402

FAST = {'connect_timeout_ms': 3000, 'call_timeout_ms': 20000, 'stream_idle_timeout_ms': 20000}


@pytest.fixture(scope='module')
def py_peer() -> Iterator[Peer]:
    with peer('python', '--ping', '1', '--cancel-wait', '30') as p:
        yield p


@pytest.fixture(scope='module')
def client(py_peer: Peer) -> Iterator[Client]:
    with Client(py_peer.url, allow_http=True, **FAST) as c:
        yield c


def split(events: list[Any]) -> tuple[list[StreamItem], ClientStreamEnd]:
    assert isinstance(events[-1], ClientStreamEnd)
    assert all(not isinstance(e, ClientStreamEnd) for e in events[:-1])
    return [e for e in events if isinstance(e, StreamItem)], events[-1]


def test_send_echo_and_get(client: Client) -> None:
    o = client.send('echo hi')
    assert o.channel == 'task' and o.state == 'completed' and o.success
    assert o.version == '1.0'  # the card's best
    assert o.task_id
    got = client.get(o.task_id)
    assert got.state == 'completed' and got.task_id == o.task_id
    missing = client.get('no-such-task')
    assert missing.channel == 'protocol' and missing.error == 'TaskNotFound'


def test_send_fail_error_id_is_the_one_the_peer_logged(client: Client, py_peer: Peer) -> None:
    o = client.send('fail')
    assert o.state == 'failed' and o.retry == 'new_task'
    assert o.error_id and re.fullmatch(r'[0-9a-f]{12}', o.error_id)
    deadline = time.monotonic() + 5
    while f'error_id={o.error_id}' not in py_peer.stderr() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert f'error_id={o.error_id}' in py_peer.stderr()
    assert (model_text('py-peer', o) or '').startswith('REMOTE_FAILED py-peer: ')


def test_stream_completes_and_the_end_outcome_is_usable(client: Client) -> None:
    items, end = split(list(client.stream('stream 3')))
    assert [i.kind for i in items] == ['task', 'status-update', 'artifact-update',
                                       'artifact-update', 'artifact-update', 'status-update']
    assert [i.artifact_id for i in items if i.kind == 'artifact-update'] == [
        'chunk-0', 'chunk-1', 'chunk-2']
    assert end.kind == 'completed' and end.outcome.success and end.resubscribes == 0
    # the END outcome keeps its library handle: it goes back into the library
    assert model_text('py-peer', end.outcome) is None
    assert not a2a_core.counts_toward_breaker(end.outcome)
    tally = a2a_core.Tally()
    tally.record('py-peer', 'SendStreamingMessage', end.outcome)
    assert tally.count('py-peer', 'SendStreamingMessage', 'task', 'completed') == 1


def test_cancel_a_running_task_while_streaming(client: Client) -> None:
    events = []
    gen = client.stream('cancel-me')
    for ev in gen:
        events.append(ev)
        if isinstance(ev, StreamItem) and ev.outcome.state == 'working':
            assert ev.outcome.task_id
            c = client.cancel(ev.outcome.task_id)
            assert c.state == 'canceled'
    items, end = split(events)
    assert end.outcome.state == 'canceled' and end.kind == 'completed'
    assert (model_text('py-peer', end.outcome) or '').startswith('REMOTE_CANCELED')


def test_resubscribe_after_leaving_a_stream(client: Client) -> None:
    gen = client.stream('ticks 3 0.4')
    first = next(gen)
    assert isinstance(first, StreamItem) and first.outcome.task_id
    task_id = first.outcome.task_id
    gen.close()  # closes the stream; the task goes on
    items, end = split(list(client.resubscribe(task_id)))
    assert items, 'resubscribe delivered no events'
    assert end.outcome.task_id == task_id
    assert end.outcome.state == 'completed' and end.kind == 'completed'


class Recorder(http.server.BaseHTTPRequestHandler):
    """Answers every JSON-RPC POST with a completed 1.0 task; records the requests."""

    seen: list[tuple[dict[str, str], dict[str, Any]]] = []
    #: POSTs that arrived, counted before their body is read (one may not parse).
    arrived = 0

    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        Recorder.arrived += 1
        body = json.loads(self.rfile.read(int(self.headers['Content-Length'])))
        Recorder.seen.append(({k.lower(): v for k, v in self.headers.items()}, body))
        reply = json.dumps({'jsonrpc': '2.0', 'id': body['id'], 'result': {'task': {
            'id': 't-1', 'contextId': 'c-1', 'status': {'state': 'TASK_STATE_COMPLETED'}}}})
        data = reply.encode()
        self.send_response(200)
        self.send_header('Content-Type', 'application/json')
        self.send_header('Content-Length', str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture()
def recorder() -> Iterator[str]:
    Recorder.seen = []
    srv = http.server.ThreadingHTTPServer(('127.0.0.1', 0), Recorder)
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    try:
        yield f'http://127.0.0.1:{srv.server_address[1]}/'
    finally:
        srv.shutdown()
        srv.server_close()


def test_header_hooks_and_call_options_reach_the_wire(recorder: str) -> None:
    calls: list[str] = []
    trace = Traceparent.new()

    def credentials(method: str) -> dict[str, str]:
        calls.append(method)
        return {'Authorization': 'Bearer s3cret'}

    def tracing(method: str) -> list[tuple[str, str]]:
        return [('traceparent', str(trace.child()))]

    key = derive_idempotency_key('conv-1', 'book', '{"to":"LIS"}')
    with Client.with_target(recorder, '1.0', 'jsonrpc', allow_http=True,
                            header_hooks=[credentials, tracing], **FAST) as c:
        o = c.send('book it', idempotency_key=key, message_id='m-fixed',
                   headers={'X-Tenant': 'acme'})
    assert o.state == 'completed' and o.success
    assert calls == ['SendMessage']
    headers, body = Recorder.seen[-1]
    assert headers['authorization'] == 'Bearer s3cret'
    sent = Traceparent.parse(headers['traceparent'])
    assert sent.trace_id == trace.trace_id and sent.parent_id != trace.parent_id
    assert headers['idempotency-key'] == key
    assert headers['x-tenant'] == 'acme'
    assert headers['a2a-version'] == '1.0'
    assert body['method'] == 'SendMessage'
    assert body['params']['message']['messageId'] == 'm-fixed'


def test_a_failing_hook_is_raised_after_the_call(recorder: str) -> None:
    def broken(method: str) -> None:
        raise RuntimeError('vault unreachable')

    with Client.with_target(recorder, '1.0', 'jsonrpc', allow_http=True,
                            header_hooks=[broken], **FAST) as c:
        with pytest.raises(RuntimeError, match='vault unreachable'):
            c.send('x')
        headers, _ = Recorder.seen[-1]
        assert 'authorization' not in headers


@pytest.mark.parametrize('name', ['Content-Length', 'Host', 'A2A-Version', 'Transfer-Encoding'])
def test_a_hook_cannot_set_a_reserved_header(recorder: str, name: str) -> None:
    # Issue 21: framing and protocol headers are the client's. The setter refuses them
    # (A2A_REQUEST_RESERVED_HEADER, raised when the call returns) and the call itself is
    # refused before anything is sent.
    Recorder.arrived = 0

    def hook(method: str) -> dict[str, str]:
        return {'Authorization': 'Bearer t', name: '0'}

    with Client.with_target(recorder, '1.0', 'jsonrpc', allow_http=True,
                            header_hooks=[hook], **FAST) as c:
        with pytest.raises(a2a_core.RequestError) as e:
            c.send('x')
        assert e.value.name == 'A2A_REQUEST_RESERVED_HEADER'
        assert name in str(e.value)
        with pytest.raises(a2a_core.RequestError):
            list(c.stream('x'))
    assert Recorder.arrived == 0


class Gateway(http.server.BaseHTTPRequestHandler):
    """A gateway in front of an agent that did the work: answers every POST with `status`
    and records each request's Idempotency-Key and messageId."""

    status = 502
    seen: list[tuple[str | None, str]] = []

    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        body = json.loads(self.rfile.read(int(self.headers['Content-Length'])))
        Gateway.seen.append((self.headers.get('Idempotency-Key'),
                             body['params']['message']['messageId']))
        data = b'gateway says no\n'
        self.send_response(Gateway.status)
        self.send_header('Content-Type', 'text/plain')
        self.send_header('Content-Length', str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: object) -> None:
        pass


@pytest.mark.parametrize('status', [502, 504, 429])
def test_gateway_errors_are_resent_only_with_a_key(status: int) -> None:
    # Issue 12: a 502/504 may come after the upstream did the work: never resent without an
    # idempotency key (REMOTE_UNKNOWN); with a key, resent with the same key and messageId.
    # A 429 is a refusal before processing: resent as is.
    Gateway.status, Gateway.seen = status, []
    srv = http.server.ThreadingHTTPServer(('127.0.0.1', 0), Gateway)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        url = f'http://127.0.0.1:{srv.server_address[1]}/'
        with Client.with_target(url, '1.0', 'jsonrpc', allow_http=True, send_retries=2,
                                **FAST) as c:
            o = c.send('book seat 12A')
            if status == 429:
                assert o.retry == 'backoff' and len(Gateway.seen) == 3
                return
            assert o.retry == 'unknown_outcome' and len(Gateway.seen) == 1
            line = model_text('booking', o) or ''
            assert line.startswith(f'REMOTE_UNKNOWN booking: HTTP {status}'), line
            c.send('book seat 12A', idempotency_key='py-gw-key')
        assert len(Gateway.seen) == 4
        assert all(k == 'py-gw-key' and m == Gateway.seen[1][1] for k, m in Gateway.seen[1:])
    finally:
        srv.shutdown()
        srv.server_close()


def refused_port() -> int:
    s = socket.socket()
    s.bind(('127.0.0.1', 0))
    port = s.getsockname()[1]
    s.close()
    return port


def test_connect_refused_is_an_outcome_not_an_exception() -> None:
    url = f'http://127.0.0.1:{refused_port()}/'
    with Client.with_target(url, '1.0', 'jsonrpc', allow_http=True, **FAST) as c:
        o = c.send('hello')
        assert o.channel == 'transport' and o.error == 'ConnectFailed'
        assert o.request_sent == 'no'
        assert (model_text('remote', o) or '').startswith('REMOTE_UNAVAILABLE remote: ')
        items, end = split(list(c.stream('hello')))
        assert not items and end.kind is None and end.outcome.error == 'ConnectFailed'


def test_card_resolution_failure_carries_its_outcome() -> None:
    with pytest.raises(CardResolutionError) as e:
        Client(f'http://127.0.0.1:{refused_port()}', allow_http=True, **FAST)
    o = e.value.outcome
    assert o is not None and o.channel == 'transport' and o.error == 'CardResolution'
    with pytest.raises(CardResolutionError):
        Client('http://example.invalid/')  # plain http refused before any I/O


class TwoInterfaces(http.server.BaseHTTPRequestHandler):
    """A 1.0 card listing HTTP+JSON before JSON-RPC (the card's preferred transport first);
    every call answers 500, and the request paths are recorded."""

    paths: list[str] = []

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        base = f'http://127.0.0.1:{self.server.server_address[1]}'
        card = {'name': 'two', 'description': 'two interfaces', 'version': '1',
                'supportedInterfaces': [
                    {'url': base + '/rest', 'protocolBinding': 'HTTP+JSON', 'protocolVersion': '1.0'},
                    {'url': base + '/rpc', 'protocolBinding': 'JSONRPC', 'protocolVersion': '1.0'}],
                'capabilities': {}, 'defaultInputModes': ['text/plain'],
                'defaultOutputModes': ['text/plain'], 'skills': []}
        data = json.dumps(card).encode()
        self.send_response(200)
        self.send_header('Content-Type', 'application/json')
        self.send_header('Content-Length', str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        self.rfile.read(int(self.headers['Content-Length']))
        TwoInterfaces.paths.append(self.path)
        data = b'internal error\n'
        self.send_response(500)
        self.send_header('Content-Type', 'text/plain')
        self.send_header('Content-Length', str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture()
def two_interfaces() -> Iterator[str]:
    TwoInterfaces.paths = []
    srv = http.server.ThreadingHTTPServer(('127.0.0.1', 0), TwoInterfaces)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        yield f'http://127.0.0.1:{srv.server_address[1]}'
    finally:
        srv.shutdown()
        srv.server_close()


def test_the_cards_order_wins_unless_the_client_prefers_its_own(two_interfaces: str) -> None:
    # Issue 12: the card's preferred (first) interface by default; prefer='client' restores
    # the library's order (JSON-RPC first); binding= wins over both.
    with Client(two_interfaces, allow_http=True, **FAST) as c:
        c.send('x')
    with Client(two_interfaces, allow_http=True, prefer='client', **FAST) as c:
        c.send('x')
    with Client(two_interfaces, allow_http=True, binding='jsonrpc', **FAST) as c:
        c.send('x')
    assert [p.split('/')[1] for p in TwoInterfaces.paths] == ['rest', 'rpc', 'rpc']
    with pytest.raises(ValueError):
        Client(two_interfaces, allow_http=True, prefer='server')


def test_the_clients_breaker_opens_and_is_shared_by_threads(two_interfaces: str) -> None:
    # Issue 12: the breaker in the C ABI client config: after 2 counted failures (HTTP 500)
    # the agent is not called again; every thread using the client sees the same breaker.
    cfg = a2a_core.BreakerConfig(failure_threshold=2, cool_down_ms=60_000)
    with Client(two_interfaces, allow_http=True, breaker=cfg, **FAST) as c:
        first = [c.send('x') for _ in range(2)]
        assert all(o.channel == 'http' and o.http_status == 500 for o in first)
        results: list[Outcome] = []
        threads = [threading.Thread(target=lambda: results.append(c.send('x'))) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=30)
        assert len(results) == 4
        assert all(o.error == 'CircuitOpen' and o.request_sent == 'no' for o in results)
        assert (model_text('two', results[0]) or '').startswith('REMOTE_UNAVAILABLE two: ')
    assert len(TwoInterfaces.paths) == 2
    with pytest.raises(a2a_core.A2AError):
        Client(two_interfaces, allow_http=True, breaker=a2a_core.BreakerConfig(
            failure_threshold=0, failure_rate_percent=0), **FAST)


class CardAndAgent(http.server.BaseHTTPRequestHandler):
    """A 1.0 card whose JSON-RPC interface is `CardAndAgent.interface` (this server's
    `/rpc` unless a test points it elsewhere), and that interface: every request's path and
    headers are recorded."""

    interface = ''
    seen: list[tuple[str, str, dict[str, str]]] = []

    def _record(self) -> None:
        CardAndAgent.seen.append((self.command, self.path,
                                  {k.lower(): v for k, v in self.headers.items()}))

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        self._record()
        base = f'http://127.0.0.1:{self.server.server_address[1]}'
        card = {'name': 'one', 'description': 'one interface', 'version': '1',
                'supportedInterfaces': [{'url': CardAndAgent.interface or base + '/rpc',
                                         'protocolBinding': 'JSONRPC', 'protocolVersion': '1.0'}],
                'capabilities': {}, 'defaultInputModes': ['text/plain'],
                'defaultOutputModes': ['text/plain'], 'skills': []}
        data = json.dumps(card).encode()
        self.send_response(200)
        self.send_header('Content-Type', 'application/json')
        self.send_header('Content-Length', str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        self._record()
        body = json.loads(self.rfile.read(int(self.headers['Content-Length'])))
        data = json.dumps({'jsonrpc': '2.0', 'id': body['id'], 'result': {'task': {
            'id': 't-1', 'contextId': 'c-1',
            'status': {'state': 'TASK_STATE_COMPLETED'}}}}).encode()
        self.send_response(200)
        self.send_header('Content-Type', 'application/json')
        self.send_header('Content-Length', str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture()
def card_and_agent() -> Iterator[str]:
    CardAndAgent.seen, CardAndAgent.interface = [], ''
    srv = http.server.ThreadingHTTPServer(('127.0.0.1', 0), CardAndAgent)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        yield f'http://127.0.0.1:{srv.server_address[1]}'
    finally:
        srv.shutdown()
        srv.server_close()


def test_hooks_only_see_the_validated_interfaces_requests(card_and_agent: str) -> None:
    """A header hook's credentials go to the card's validated interface only: never to the
    card fetch; a card pointing its interface at another origin is refused before any hook
    runs and anything is sent there."""
    methods: list[str] = []

    def credentials(method: str) -> dict[str, str]:
        methods.append(method)
        return {'Authorization': 'Bearer s3cret'}

    with Client(card_and_agent, allow_http=True, header_hooks=[credentials], **FAST) as c:
        assert c.send('hi').success
    (get, card_path, card_headers), (post, rpc_path, rpc_headers) = CardAndAgent.seen
    assert (get, post, rpc_path) == ('GET', 'POST', '/rpc'), CardAndAgent.seen
    assert 'authorization' not in card_headers
    assert rpc_headers['authorization'] == 'Bearer s3cret'
    assert methods == ['SendMessage']

    CardAndAgent.seen, methods[:] = [], []
    CardAndAgent.interface = f'http://127.0.0.2:{card_and_agent.rsplit(":", 1)[1]}/rpc'
    with pytest.raises(CardResolutionError) as e:
        Client(card_and_agent, allow_http=True, header_hooks=[credentials], **FAST)
    assert 'origin' in str(e.value), e.value  # refused for where it points
    assert [m for m, _, _ in CardAndAgent.seen] == ['GET'] and methods == []
