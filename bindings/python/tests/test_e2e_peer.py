"""End to end against the real Python a2a-sdk 1.3.0 server (tests/peers/python, started
on 127.0.0.1 by tests/peers/launch.py), the way a caller with its own HTTP stack uses the
core: requests go out with httpx, the raw response bytes go through SseDecoder +
StreamTracker (streams) or classify (whole responses), and the outcomes are those the
peer's documented behaviour says (tests/peers/README.md). The driver's Client is tested in
test_client_peer.py."""

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
    Outcome,
    SseDecoder,
    StreamEnd,
    StreamItem,
    StreamTracker,
    classify,
    extract_error_id,
    is_event_stream,
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


def stream(
    p: Peer, method: str, params: Any, version: str, headers: dict[str, str], rid: int = 1
) -> tuple[list[StreamItem], StreamEnd, SseDecoder, Outcome | None]:
    """POSTs a streaming call and tracks the raw body chunk by chunk as it arrives."""
    tracker = StreamTracker(version, 'jsonrpc', method, rid, idle_timeout_ms=10_000)
    decoder = SseDecoder()
    items: list[StreamItem] = []
    upfront = None
    with httpx.Client(timeout=TIMEOUT) as c, c.stream(
        'POST', p.url + '/', json=rpc_body(method, params, rid),
        headers={'Accept': 'text/event-stream', **headers},
    ) as r:
        if not (200 <= r.status_code < 300 and is_event_stream(r.headers.get('content-type'))):
            upfront = tracker.on_non_sse_body(r.status_code, r.read(),
                                              r.headers.get('content-type'))
        else:
            for chunk in r.iter_raw():
                items += tracker.on_chunk(decoder, chunk)
                if tracker.is_over:
                    break
            items += tracker.on_finish(decoder)
    return items, tracker.finish(), decoder, upfront


def test_v03_stream_completes(py_peer: Peer) -> None:
    items, end, decoder, _ = stream(py_peer, 'message/stream', {'message': msg03('stream 3')},
                                    '0.3', {})
    assert [i.kind for i in items] == ['task', 'status-update', 'artifact-update',
                                       'artifact-update', 'artifact-update', 'status-update']
    assert items[0].outcome.state == 'submitted'
    assert [i.artifact_id for i in items[2:5]] == ['chunk-0', 'chunk-1', 'chunk-2']
    assert all(i.last_chunk for i in items[2:5])
    assert items[-1].final is True and items[-1].ends_stream
    assert end.kind == 'completed'
    assert end.outcome.success and end.outcome.state == 'completed'
    assert end.outcome.task_id == items[0].outcome.task_id
    assert not decoder.errors


def test_v10_stream_fail_carries_the_error_id_the_peer_logged(py_peer: Peer) -> None:
    items, end, _, _ = stream(py_peer, 'SendStreamingMessage', {'message': msg10('fail')},
                              '1.0', V10)
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


def test_v10_keepalives_are_counted_and_the_stream_completes(py_peer: Peer) -> None:
    items, end, decoder, _ = stream(py_peer, 'SendStreamingMessage',
                                    {'message': msg10('ticks 2 1.2')}, '1.0', V10)
    assert decoder.comments >= 1  # sse-starlette's `: ping - <ts>` every 1 s
    texts = [i.outcome.text for i in items if i.kind == 'status-update']
    assert 'tick 0' in texts and 'tick 1' in texts
    assert end.kind == 'completed' and end.outcome.success


def test_stream_without_version_header_is_an_upfront_protocol_error(py_peer: Peer) -> None:
    _, end, _, upfront = stream(py_peer, 'SendStreamingMessage', {'message': msg10('echo a')},
                                '1.0', {})
    assert upfront is not None
    assert upfront.channel == 'protocol' and upfront.code == -32009
    assert upfront.error == 'VersionNotSupported' and upfront.retry == 'fix_version'
    assert end.kind == 'not_a_stream'


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
