"""Agent card caching (RFC 9111), the minimum protocol version and return-immediately on
every Python client, against a loopback agent that counts its card requests and records the
calls it receives: a second client within max-age makes no card request, after max-age a
conditional request (If-None-Match) is answered 304 and the card reused, no-store is never
cached, `card_cache=False` fetches every time; a card offering only 0.3 under
`min_protocol='1.0'` is a CardResolutionError with nothing sent to the agent; the driver
path's `send(return_immediately=True)` reaches the agent as `blocking: false`."""

from __future__ import annotations

import asyncio
import http.server
import json
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from a2a_core import AsyncClient, CardResolutionError, Client
from a2a_core.errors import InvalidArgumentError

FAST = {'connect_timeout': 3.0, 'timeout': 20.0}


class _Agent(http.server.BaseHTTPRequestHandler):
    """A JSON-RPC agent (0.3 or 1.0 card) whose card answers carry an ETag and the
    configured Cache-Control; 304 to a matching If-None-Match."""

    protocol_version = 'HTTP/1.1'
    version = '0.3'
    cache_control = 'max-age=60'
    card_requests: list[str | None] = []  # the If-None-Match of each card request
    not_modified = 0
    calls: list[dict[str, Any]] = []

    def log_message(self, *args: Any) -> None:
        pass

    def _card(self) -> bytes:
        base = f'http://127.0.0.1:{self.server.server_address[1]}'
        card: dict[str, Any] = {'name': 'cached', 'description': 'd', 'version': '1',
                                'capabilities': {}, 'skills': [],
                                'defaultInputModes': ['text/plain'],
                                'defaultOutputModes': ['text/plain']}
        if self.version == '0.3':
            card.update(protocolVersion='0.3.0', url=f'{base}/a2a',
                        preferredTransport='JSONRPC')
        else:
            card['supportedInterfaces'] = [{'url': f'{base}/a2a', 'protocolBinding': 'JSONRPC',
                                            'protocolVersion': '1.0'}]
        return json.dumps(card).encode()

    def do_GET(self) -> None:  # noqa: N802
        cls = type(self)
        inm = self.headers.get('if-none-match')
        cls.card_requests.append(inm)
        if inm == '"v1"':
            cls.not_modified += 1
            self.send_response(304)
            self.send_header('etag', '"v1"')
            self.send_header('cache-control', cls.cache_control)
            self.end_headers()
            return
        body = self._card()
        self.send_response(200)
        self.send_header('content-type', 'application/json')
        self.send_header('etag', '"v1"')
        self.send_header('cache-control', cls.cache_control)
        self.send_header('content-length', str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self) -> None:  # noqa: N802
        req = json.loads(self.rfile.read(int(self.headers['content-length'])))
        type(self).calls.append(req)
        task = {'kind': 'task', 'id': 't-1', 'contextId': 'c-1',
                'status': {'state': 'completed'}}
        if self.version != '0.3':
            task = {'id': 't-1', 'contextId': 'c-1', 'status': {'state': 'TASK_STATE_COMPLETED'}}
            task = {'task': task}
        body = json.dumps({'jsonrpc': '2.0', 'id': req['id'], 'result': task}).encode()
        self.send_response(200)
        self.send_header('content-type', 'application/json')
        self.send_header('content-length', str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def _serve(version: str, cache_control: str) -> Iterator[tuple[str, type[_Agent]]]:
    handler = type('Agent', (_Agent,), {'version': version, 'cache_control': cache_control,
                                        'card_requests': [], 'calls': [], 'not_modified': 0})
    srv = http.server.ThreadingHTTPServer(('127.0.0.1', 0), handler)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        yield f'http://127.0.0.1:{srv.server_address[1]}/', handler
    finally:
        srv.shutdown()
        srv.server_close()


@pytest.fixture
def fresh_60() -> Iterator[tuple[str, type[_Agent]]]:
    yield from _serve('0.3', 'max-age=60')


@pytest.fixture
def fresh_1() -> Iterator[tuple[str, type[_Agent]]]:
    yield from _serve('0.3', 'max-age=1')


@pytest.fixture
def no_store() -> Iterator[tuple[str, type[_Agent]]]:
    yield from _serve('0.3', 'no-store')


async def _open_and_send(url: str, **kw: Any) -> Any:
    async with AsyncClient(url, allow_http=True, **FAST, **kw) as c:
        return await c.send('hi')


def test_a_second_client_within_max_age_makes_no_card_request(
        fresh_60: tuple[str, type[_Agent]]) -> None:
    url, agent = fresh_60
    for _ in range(2):
        assert asyncio.run(_open_and_send(url)).success
    assert agent.card_requests == [None], 'one unconditional card request for two clients'
    # The blocking machine client shares the process cache.
    with httpx.Client() as http, Client(url, allow_http=True, http_client=http, **FAST) as c:
        assert c.send('hi').success
    assert agent.card_requests == [None]
    assert len(agent.calls) == 3
    # card_cache=False: fetched every time, never conditionally.
    asyncio.run(_open_and_send(url, card_cache=False))
    with httpx.Client() as http, Client(url, allow_http=True, http_client=http, card_cache=False,
                                        **FAST) as c:
        assert c.send('hi').success
    assert agent.card_requests == [None, None, None]


def test_after_max_age_a_conditional_request_and_a_304_reuse_the_card(
        fresh_1: tuple[str, type[_Agent]]) -> None:
    url, agent = fresh_1
    assert asyncio.run(_open_and_send(url)).success
    time.sleep(1.2)  # past max-age=1 (a bound, not a speed assertion)
    assert asyncio.run(_open_and_send(url)).success
    assert agent.card_requests == [None, '"v1"']
    assert agent.not_modified == 1
    assert len(agent.calls) == 2, 'the reused card led the second client to the agent'


def test_no_store_is_never_cached(no_store: tuple[str, type[_Agent]]) -> None:
    url, agent = no_store
    for _ in range(2):
        assert asyncio.run(_open_and_send(url)).success
    with httpx.Client() as http, Client(url, allow_http=True, http_client=http, **FAST) as c:
        assert c.send('hi').success
    assert agent.card_requests == [None, None, None]


def test_the_driver_path_has_no_card_cache_switch() -> None:
    with pytest.raises(ValueError, match='card_cache=False needs http_client='):
        Client('http://127.0.0.1:1/', allow_http=True, card_cache=False)


def test_min_protocol_refuses_an_older_card_with_nothing_sent(
        no_store: tuple[str, type[_Agent]]) -> None:
    url, agent = no_store
    with pytest.raises(CardResolutionError) as e:
        asyncio.run(_open_and_send(url, min_protocol='1.0'))
    assert e.value.outcome is not None
    assert 'none older than 1.0' in (e.value.outcome.message or '')
    with httpx.Client() as http, pytest.raises(CardResolutionError):
        Client(url, allow_http=True, http_client=http, min_protocol='1.0', **FAST)
    with pytest.raises(CardResolutionError) as e:  # the reference driver
        Client(url, allow_http=True, min_protocol='1.0', **FAST)
    assert agent.calls == [], 'nothing reached the agent'
    assert len(agent.card_requests) == 3
    # 0.3 allowed: it works; a known interface older than the minimum is refused.
    assert asyncio.run(_open_and_send(url, min_protocol='0.3')).success
    with pytest.raises(InvalidArgumentError):
        AsyncClient.with_target(url + 'a2a', '0.3', 'jsonrpc', allow_http=True,
                                min_protocol='1.0')._target_state()
    with pytest.raises(InvalidArgumentError):
        Client.with_target(url + 'a2a', '0.3', 'jsonrpc', allow_http=True, min_protocol='1.0')


def test_the_driver_path_sends_return_immediately(no_store: tuple[str, type[_Agent]]) -> None:
    url, agent = no_store
    with Client(url, allow_http=True, **FAST) as c:
        o = c.send('hi', return_immediately=True)
        assert o.success and o.task_id == 't-1'
        assert c.send('hi').success
    assert agent.calls[0]['params']['configuration']['blocking'] is False
    assert 'blocking' not in (agent.calls[1]['params'].get('configuration') or {})
