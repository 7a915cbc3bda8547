"""End to end against the real Python a2a-sdk 1.3.0 server (tests/peers/python, started
on 127.0.0.1 by tests/peers/launch.py), the way a caller with its own HTTP stack uses the
core: whole responses are posted with httpx and their bytes go through classify; streams
run on the library's client machine over the caller's httpx client (`Client(...,
http_client=...)`), and the outcomes are those the peer's documented behaviour says
(tests/peers/README.md). The reference driver's Client is tested in test_client_peer.py."""

from __future__ import annotations

import re
import sys
import time
import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from conftest import REPO

from a2a_core import (
    Client,
    ClientStreamEnd,
    StreamItem,
    classify,
    extract_error_id,
    model_text,
)

sys.path.insert(0, str(REPO / 'tests' / 'peers'))
from launch import Peer, peer  # noqa: E402

TIMEOUT = httpx.Timeout(20.0, connect=5.0)
V10 = {'A2A-Version': '1.0'}


@pytest.fixture(scope='module')
def py_peer() -> Iterator[Peer]:
    with peer('python', '--ping', '1') as p:
        yield p


def msg03(text: str) -> dict[str, Any]:
    return {'kind': 'message', 'role': 'user', 'messageId': str(uuid.uuid4()),
            'parts': [{'kind': 'text', 'text': text}]}


def msg10(text: str) -> dict[str, Any]:
    return {'role': 'ROLE_USER', 'messageId': str(uuid.uuid4()), 'parts': [{'text': text}]}


def rpc_body(method: str, params: Any, rid: int) -> dict[str, Any]:
    return {'jsonrpc': '2.0', 'id': rid, 'method': method, 'params': params}


def stream(p: Peer, text: str, version: str) -> tuple[list[StreamItem], ClientStreamEnd]:
    """Streams `text` on the client machine to the peer's JSON-RPC interface in `version`,
    the bytes moved by httpx as they arrive (no resend, no resubscribe)."""
    with httpx.Client(timeout=httpx.Timeout(None, connect=5.0)) as h, Client.with_target(
        p.url + '/', version, 'jsonrpc', allow_http=True, http_client=h, timeout=20.0,
        stream_idle_timeout=10.0, stream_resubscribe_attempts=0,
    ) as c:
        events = list(c.stream(text))
    assert isinstance(events[-1], ClientStreamEnd), events[-1]
    return [e for e in events if isinstance(e, StreamItem)], events[-1]


def test_v03_stream_completes(py_peer: Peer) -> None:
    items, end = stream(py_peer, 'stream 3', '0.3')
    assert [i.kind for i in items] == ['task', 'status-update', 'artifact-update',
                                       'artifact-update', 'artifact-update', 'status-update']
    assert items[0].outcome.state == 'submitted'
    assert [i.artifact_id for i in items[2:5]] == ['chunk-0', 'chunk-1', 'chunk-2']
    assert all(i.last_chunk for i in items[2:5])
    assert items[-1].final is True and items[-1].ends_stream
    assert end.kind == 'completed'
    assert end.outcome.success and end.outcome.state == 'completed'
    assert end.outcome.task_id == items[0].outcome.task_id


def test_v10_stream_fail_carries_the_error_id_the_peer_logged(py_peer: Peer) -> None:
    items, end = stream(py_peer, 'fail', '1.0')
    assert end.kind == 'completed'  # the stream completed; the task failed
    o = end.outcome
    assert o.channel == 'task' and o.state == 'failed' and o.terminal
    assert o.retry == 'new_task'
    assert o.error_id is not None and re.fullmatch(r'[0-9a-f]{12}', o.error_id)
    assert o.text == f'Agent execution failed. (error_id: {o.error_id})'
    assert extract_error_id(o.text or '') == o.error_id
    deadline = time.monotonic() + 5
    while f'error_id={o.error_id}' not in py_peer.stderr() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert f'error_id={o.error_id}' in py_peer.stderr()
    line = model_text('py-peer', o)
    assert line is not None and line.startswith('REMOTE_FAILED py-peer: ')
    assert o.error_id in line
    assert items[-1].outcome.state == 'failed'


def test_v10_keepalives_keep_a_slow_stream_alive(py_peer: Peer) -> None:
    # The ticks come 2.5 s apart, past the 1.5 s idle timeout: only sse-starlette's
    # `: ping - <ts>` comments (every 1 s, the peer runs with --ping 1) keep it alive.
    with httpx.Client(timeout=httpx.Timeout(None, connect=5.0)) as h, Client.with_target(
        py_peer.url + '/', '1.0', 'jsonrpc', allow_http=True, http_client=h, timeout=20.0,
        stream_idle_timeout=1.5, stream_resubscribe_attempts=0,
    ) as c:
        events = list(c.stream('ticks 2 2.5'))
    items, end = [e for e in events if isinstance(e, StreamItem)], events[-1]
    assert isinstance(end, ClientStreamEnd)
    texts = [i.outcome.text for i in items if i.kind == 'status-update']
    assert 'tick 0' in texts and 'tick 1' in texts
    assert end.kind == 'completed' and end.outcome.success


def post(p: Peer, method: str, params: Any, headers: dict[str, str], rid: int = 7) -> httpx.Response:
    return httpx.post(p.url + '/', json=rpc_body(method, params, rid), headers=headers,
                      timeout=TIMEOUT)


def test_v03_send_echo_and_input_required(py_peer: Peer) -> None:
    r = post(py_peer, 'message/send', {'message': msg03('echo hi')}, {})
    o = classify(r.status_code, r.content, version='0.3', binding='jsonrpc',
                 method='message/send', request_id=7, headers=r.headers)
    assert o.channel == 'task' and o.state == 'completed' and o.success
    r = post(py_peer, 'message/send', {'message': msg03('input')}, {})
    o = classify(r.status_code, r.content, version='0.3', binding='jsonrpc',
                 method='message/send', request_id=7, headers=r.headers)
    assert o.state == 'input-required' and o.text == 'need more input'
    assert model_text('py-peer', o) == model_text('py-peer', o)  # deterministic
    assert (model_text('py-peer', o) or '').startswith('REMOTE_NEEDS_INPUT py-peer')


def test_v10_get_unknown_task_and_direct_message(py_peer: Peer) -> None:
    r = post(py_peer, 'GetTask', {'id': 'no-such-task'}, V10)
    o = classify(r.status_code, r.content, version='1.0', binding='jsonrpc', method='GetTask',
                 request_id=7, headers=r.headers)
    assert o.channel == 'protocol' and o.error == 'TaskNotFound' and o.code == -32001
    assert o.retry == 'never'
    r = post(py_peer, 'SendMessage', {'message': msg10('message hello')}, V10)
    o = classify(r.status_code, r.content, version='1.0', binding='jsonrpc',
                 method='SendMessage', request_id=7, headers=r.headers)
    assert o.channel == 'message' and o.text == 'hello' and o.success
    assert model_text('py-peer', o) is None
