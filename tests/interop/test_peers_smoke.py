"""Smoke tests of the real peers themselves, with plain httpx (none of this project's code).

They pin down what each reference server does on the wire, so that the tests of the core,
the driver and the bindings can rely on it, and so that a change in a pinned SDK shows up
here first. The expected values come from the transcripts of a2a-sdk 1.3.0 and
@a2a-js/sdk 1.3.0 (tests/peers/README.md, "Known quirks"), not from this project's output.
"""

from __future__ import annotations

import json
import re
import time
import uuid
from typing import Any

import httpx
import pytest

from launch import Peer, start
from launch import peer as launch_peer

TIMEOUT = httpx.Timeout(10.0)
ERROR_ID_TEXT = re.compile(r'^Agent execution failed\. \(error_id: ([0-9a-f]{12})\)$')

# Per-peer facts that differ; each one is a row of the quirks table in tests/peers/README.md.
QUIRKS: dict[str, dict[str, Any]] = {
    'python': {
        'name': 'py-deterministic-peer',
        'sse_eol': b'\r\n',
        'sse_content_type': 'text/event-stream; charset=utf-8',
        'sse_first_bytes': b'data: {"result": {"task": {',  # 1.0 SSE JSON has spaces
        'v10_without_header': -32009,
        'v03_with_v10_header': -32603,
        'rest_v10_without_header': 400,
        'rest_v03_send_status': 200,
        'keepalive_comments': True,
        'cancel_again': 'error',
    },
    'js': {
        'name': 'js-deterministic-peer',
        'sse_eol': b'\n',
        'sse_content_type': 'text/event-stream',
        'sse_first_bytes': b'data: {"jsonrpc":"2.0","id":',  # compact, jsonrpc first
        'v10_without_header': -32601,
        'v03_with_v10_header': -32601,
        'rest_v10_without_header': 200,
        'rest_v03_send_status': 201,
        'keepalive_comments': False,
        'cancel_again': 'task',
    },
}

V10 = {'A2A-Version': '1.0'}
JSON = {'Content-Type': 'application/json'}


def msg10(text: str, **extra: str) -> dict[str, Any]:
    """A 1.0 user message (ProtoJSON, parts by key)."""
    return {'role': 'ROLE_USER', 'messageId': str(uuid.uuid4()), 'parts': [{'text': text}], **extra}


def msg03(text: str) -> dict[str, Any]:
    """A 0.3 JSON-RPC user message (kind discriminators)."""
    return {
        'kind': 'message',
        'role': 'user',
        'messageId': str(uuid.uuid4()),
        'parts': [{'kind': 'text', 'text': text}],
    }


def rpc(
    peer: Peer, method: str, params: Any, *, headers: dict[str, str] | None = None, rid: Any = 1
) -> httpx.Response:
    """POST one JSON-RPC request to the peer's JSON-RPC endpoint (POST /)."""
    body = {'jsonrpc': '2.0', 'id': rid, 'method': method, 'params': params}
    return httpx.post(
        peer.url + '/', json=body, headers={**JSON, **(headers or {})}, timeout=TIMEOUT
    )


def rpc10(peer: Peer, method: str, params: Any, rid: Any = 1) -> dict[str, Any]:
    """A 1.0 JSON-RPC call with `A2A-Version: 1.0`; returns the decoded body (HTTP 200 asserted)."""
    r = rpc(peer, method, params, headers=V10, rid=rid)
    assert r.status_code == 200, r.text
    return r.json()


def send10(peer: Peer, text: str, **config: Any) -> dict[str, Any]:
    """1.0 SendMessage; returns `result.task` (asserting there is one)."""
    params: dict[str, Any] = {'message': msg10(text)}
    if config:
        params['configuration'] = config
    body = rpc10(peer, 'SendMessage', params)
    assert 'result' in body, body
    return body['result']['task']


def text_of(obj: dict[str, Any]) -> str:
    """The text of the first part of a message or artifact."""
    return obj['parts'][0]['text']


def stream_raw(
    peer: Peer, path: str, body: dict[str, Any], headers: dict[str, str]
) -> tuple[httpx.Response, bytes]:
    """POST and read the whole (bounded) response body as raw bytes."""
    with httpx.stream(
        'POST',
        peer.url + path,
        json=body,
        headers={**JSON, 'Accept': 'text/event-stream', **headers},
        timeout=TIMEOUT,
    ) as r:
        raw = b''.join(r.iter_raw())
    return r, raw


def sse_blocks(raw: bytes, eol: bytes) -> list[list[bytes]]:
    """Split a well-formed event stream that uses `eol` everywhere into blocks of lines."""
    assert raw.endswith(eol + eol), raw[-80:]
    return [block.split(eol) for block in raw[: -2 * len(eol)].split(eol + eol)]


def sse_data(raw: bytes, eol: bytes) -> list[dict[str, Any]]:
    """The JSON payloads of the `data:` lines of every non-comment block."""
    out = []
    for lines in sse_blocks(raw, eol):
        data = [ln[len(b'data: ') :] for ln in lines if ln.startswith(b'data: ')]
        if data:
            assert len(data) == 1, lines
            out.append(json.loads(data[0]))
    return out


def assert_line_endings(raw: bytes, eol: bytes) -> None:
    """Every line ends with exactly `eol`: CRLF throughout, or LF with no CR at all."""
    if eol == b'\r\n':
        assert raw.count(b'\n') == raw.count(b'\r\n') > 0
        assert raw.count(b'\r') == raw.count(b'\r\n')
    else:
        assert b'\r' not in raw
        assert raw.count(b'\n') > 0


# ---------------------------------------------------------------------------- agent card


def expected_interfaces(base: str, versions: list[str]) -> list[tuple[str, str, str]]:
    out = []
    for v in versions:
        out += [(f'{base}/', 'JSONRPC', v), (f'{base}/rest', 'HTTP+JSON', v)]
    return out


def interfaces(card: dict[str, Any]) -> list[tuple[str, str, str]]:
    return [(i['url'], i['protocolBinding'], i['protocolVersion']) for i in card['supportedInterfaces']]


def test_card_without_version_header_is_hybrid(peer: Peer) -> None:
    r = httpx.get(peer.url + '/.well-known/agent-card.json', timeout=TIMEOUT)
    assert r.status_code == 200
    assert r.headers['content-type'].startswith('application/json')
    card = r.json()
    assert card['name'] == QUIRKS[peer.kind]['name']
    assert card['version'] == '1.0.0'
    assert card['capabilities']['streaming'] is True
    assert interfaces(card) == expected_interfaces(peer.url, ['1.0', '0.3'])
    # 0.3 fields merged in from the first 0.3 interface.
    assert card['url'] == peer.url + '/'
    assert card['preferredTransport'] == 'JSONRPC'
    assert card['protocolVersion'] == '0.3'
    assert card['additionalInterfaces'] == [{'transport': 'HTTP+JSON', 'url': peer.url + '/rest'}]
    assert r.headers['etag'].startswith('W/"')


def test_python_card_ignores_version_header_and_revalidates(py_peer: Peer) -> None:
    url = py_peer.url + '/.well-known/agent-card.json'
    plain = httpx.get(url, timeout=TIMEOUT)
    v10 = httpx.get(url, headers=V10, timeout=TIMEOUT)
    assert plain.json() == v10.json()
    assert 'vary' not in plain.headers and 'cache-control' not in plain.headers
    again = httpx.get(url, headers={'If-None-Match': plain.headers['etag']}, timeout=TIMEOUT)
    assert again.status_code == 304
    assert again.content == b''


def test_js_card_depends_on_version_header(js_peer: Peer) -> None:
    r = httpx.get(js_peer.url + '/.well-known/agent-card.json', headers=V10, timeout=TIMEOUT)
    assert r.status_code == 200
    card = r.json()
    assert 'url' not in card and 'preferredTransport' not in card and 'protocolVersion' not in card
    # Still lists its 0.3 interfaces; tenant "" means unset.
    assert interfaces(card) == expected_interfaces(js_peer.url, ['1.0', '0.3'])
    assert {i['tenant'] for i in card['supportedInterfaces']} == {''}
    assert 'A2A-Version' in r.headers['vary']
    assert r.headers['cache-control'] == 'public, max-age=3600'


@pytest.mark.parametrize('fixture', ['py_peer_v1', 'js_peer_v1'])
def test_card_of_v10_only_peer(fixture: str, request: pytest.FixtureRequest) -> None:
    p: Peer = request.getfixturevalue(fixture)
    card = httpx.get(p.url + '/.well-known/agent-card.json', timeout=TIMEOUT).json()
    assert interfaces(card) == expected_interfaces(p.url, ['1.0'])
    assert 'url' not in card and 'protocolVersion' not in card


@pytest.mark.parametrize('kind', ['python', 'js'])
def test_v03_mode_card_lists_only_v03(kind: str) -> None:
    with launch_peer(kind, '--version', '0.3') as p:
        card = httpx.get(p.url + '/.well-known/agent-card.json', timeout=TIMEOUT).json()
        assert interfaces(card) == expected_interfaces(p.url, ['0.3'])
        assert (card['url'], card['protocolVersion']) == (p.url + '/', '0.3')
        task = rpc(p, 'message/send', {'message': msg03('echo old')}).json()['result']
        assert task['status']['state'] == 'completed'


# ------------------------------------------------------------------------ JSON-RPC, 1.0


def test_v10_send_echo(peer: Peer) -> None:
    body = rpc10(peer, 'SendMessage', {'message': msg10('echo hello')}, rid=3)
    assert body['id'] == 3 and body['jsonrpc'] == '2.0'
    task = body['result']['task']
    assert task['status']['state'] == 'TASK_STATE_COMPLETED'
    assert [a['name'] for a in task['artifacts']] == ['echo']
    assert text_of(task['artifacts'][0]) == 'hello'
    assert task['history'][0]['role'] == 'ROLE_USER'
    assert text_of(task['history'][0]) == 'echo hello'


def test_v10_direct_message(peer: Peer) -> None:
    body = rpc10(peer, 'SendMessage', {'message': msg10('message hi there')})
    message = body['result']['message']
    assert message['role'] == 'ROLE_AGENT'
    assert text_of(message) == 'hi there'
    assert 'task' not in body['result']


def test_v10_fail_carries_error_id_that_the_peer_logged(peer: Peer) -> None:
    task = send10(peer, 'fail')
    assert task['status']['state'] == 'TASK_STATE_FAILED'
    status_message = task['status']['message']
    assert status_message['role'] == 'ROLE_AGENT'
    m = ERROR_ID_TEXT.match(text_of(status_message))
    assert m, text_of(status_message)
    # The same id is in the peer's own log, as ADK logs it beside the cause.
    deadline = time.monotonic() + 5
    while f'error_id={m.group(1)}' not in peer.stderr():
        assert time.monotonic() < deadline, peer.stderr()[-2000:]
        time.sleep(0.05)


def test_v10_crash(peer: Peer) -> None:
    body = rpc10(peer, 'SendMessage', {'message': msg10('crash')}, rid=21)
    if peer.kind == 'python':
        # Uncaught executor exception: a JSON-RPC error (HTTP 200), message = str(exception).
        assert body['error'] == {
            'code': -32603,
            'message': 'deliberate uncaught crash requested by "crash"',
        }
    else:
        # JS: a normal result, FAILED task with the SDK's own status text.
        status = body['result']['task']['status']
        assert status['state'] == 'TASK_STATE_FAILED'
        assert text_of(status['message']) == (
            'Agent execution error: deliberate uncaught crash requested by "crash"'
        )


def test_v10_reject(peer: Peer) -> None:
    task = send10(peer, 'reject')
    assert task['status']['state'] == 'TASK_STATE_REJECTED'
    assert text_of(task['status']['message']) == 'rejected by request'


def test_v10_input_required_then_follow_up_completes(peer: Peer) -> None:
    task = send10(peer, 'input')
    assert task['status']['state'] == 'TASK_STATE_INPUT_REQUIRED'
    assert text_of(task['status']['message']) == 'need more input'
    follow = msg10('here is more', taskId=task['id'], contextId=task['contextId'])
    done = rpc10(peer, 'SendMessage', {'message': follow})['result']['task']
    assert done['id'] == task['id']
    assert done['status']['state'] == 'TASK_STATE_COMPLETED'
    assert text_of(done['artifacts'][-1]) == 'got input: here is more'


def test_v10_cancel_running_task(peer: Peer) -> None:
    task = send10(peer, 'cancel-me', returnImmediately=True)
    assert task['status']['state'] == 'TASK_STATE_SUBMITTED'
    canceled = rpc10(peer, 'CancelTask', {'id': task['id']})['result']
    assert canceled['id'] == task['id']
    assert canceled['status']['state'] == 'TASK_STATE_CANCELED'
    assert text_of(canceled['status']['message']) == 'cancelled by request'
    got = rpc10(peer, 'GetTask', {'id': task['id']})['result']
    assert got['status']['state'] == 'TASK_STATE_CANCELED'
    again = rpc10(peer, 'CancelTask', {'id': task['id']})
    if QUIRKS[peer.kind]['cancel_again'] == 'error':
        assert again['error']['code'] == -32002
    else:
        assert again['result']['status']['state'] == 'TASK_STATE_CANCELED'


def test_v10_get_unknown_task(peer: Peer) -> None:
    body = rpc10(peer, 'GetTask', {'id': 'does-not-exist'})
    assert body['error']['code'] == -32001
    assert body['error']['data'][0]['reason'] == 'TASK_NOT_FOUND'
    assert body['error']['data'][0]['@type'] == 'type.googleapis.com/google.rpc.ErrorInfo'


def test_malformed_json_is_parse_error_in_http_200(peer: Peer) -> None:
    r = httpx.post(peer.url + '/', content=b'{"jsonrpc": "2.0", oops', headers=JSON, timeout=TIMEOUT)
    assert r.status_code == 200
    body = r.json()
    assert body['error']['code'] == -32700
    assert body['id'] is None


# ------------------------------------------------------------------------ JSON-RPC, 0.3


def test_v03_send_echo(peer: Peer) -> None:
    r = rpc(peer, 'message/send', {'message': msg03('echo hello')}, rid=7)
    assert r.status_code == 200
    body = r.json()
    assert body['id'] == 7
    task = body['result']
    assert task['kind'] == 'task'
    assert task['status']['state'] == 'completed'
    part = task['artifacts'][0]['parts'][0]
    assert (part['kind'], part['text']) == ('text', 'hello')
    assert task['history'][0]['role'] == 'user'


def test_v03_fail_carries_error_id(peer: Peer) -> None:
    task = rpc(peer, 'message/send', {'message': msg03('fail')}).json()['result']
    assert task['status']['state'] == 'failed'
    assert ERROR_ID_TEXT.match(task['status']['message']['parts'][0]['text'])


# ------------------------------------------------------------------------ streaming (SSE)


def test_v10_stream_ends_in_terminal_state(peer: Peer) -> None:
    q = QUIRKS[peer.kind]
    body = {
        'jsonrpc': '2.0',
        'id': 41,
        'method': 'SendStreamingMessage',
        'params': {'message': msg10('stream 3')},
    }
    r, raw = stream_raw(peer, '/', body, V10)
    assert r.status_code == 200
    assert r.headers['content-type'] == q['sse_content_type']
    assert r.headers.get('content-encoding') is None
    assert_line_endings(raw, q['sse_eol'])
    assert raw.startswith(q['sse_first_bytes'])
    assert b'\nid:' not in raw and b'\nretry:' not in raw and not raw.startswith(b'id:')
    events = sse_data(raw, q['sse_eol'])
    assert all(e['id'] == 41 and e['jsonrpc'] == '2.0' for e in events)
    results = [e['result'] for e in events]
    assert [next(iter(x)) for x in results] == [
        'task',
        'statusUpdate',
        'artifactUpdate',
        'artifactUpdate',
        'artifactUpdate',
        'statusUpdate',
    ]
    assert results[0]['task']['status']['state'] == 'TASK_STATE_SUBMITTED'
    assert results[1]['statusUpdate']['status']['state'] == 'TASK_STATE_WORKING'
    chunks = [x['artifactUpdate']['artifact'] for x in results[2:5]]
    assert [(c['artifactId'], text_of(c)) for c in chunks] == [
        ('chunk-0', 'chunk 0'),
        ('chunk-1', 'chunk 1'),
        ('chunk-2', 'chunk 2'),
    ]
    assert all(x['artifactUpdate']['lastChunk'] is True for x in results[2:5])
    assert results[-1]['statusUpdate']['status']['state'] == 'TASK_STATE_COMPLETED'
    assert 'final' not in results[-1]['statusUpdate']  # 1.0 has no final flag


def test_v03_stream_ends_with_final_true(peer: Peer) -> None:
    q = QUIRKS[peer.kind]
    body = {
        'jsonrpc': '2.0',
        'id': 40,
        'method': 'message/stream',
        'params': {'message': msg03('stream 2')},
    }
    r, raw = stream_raw(peer, '/', body, {})
    assert r.status_code == 200
    assert_line_endings(raw, q['sse_eol'])
    results = [e['result'] for e in sse_data(raw, q['sse_eol'])]
    assert [x['kind'] for x in results] == [
        'task',
        'status-update',
        'artifact-update',
        'artifact-update',
        'status-update',
    ]
    assert results[0]['status']['state'] == 'submitted'
    assert results[1]['status']['state'] == 'working' and results[1].get('final', False) is False
    assert results[-1]['status']['state'] == 'completed' and results[-1]['final'] is True


def test_v10_stream_keepalives(peer: Peer) -> None:
    """Python: `: ping - <ts>` comments at the configured 1 s; JS: no keep-alives at all."""
    q = QUIRKS[peer.kind]
    body = {
        'jsonrpc': '2.0',
        'id': 42,
        'method': 'SendStreamingMessage',
        'params': {'message': msg10('slow 3.5')},
    }
    r, raw = stream_raw(peer, '/', body, V10)
    assert r.status_code == 200
    blocks = sse_blocks(raw, q['sse_eol'])
    comments = [ln for lines in blocks for ln in lines if ln.startswith(b':')]
    if q['keepalive_comments']:
        assert len(comments) >= 2, raw
        assert all(re.fullmatch(rb': ping - \d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+\+00:00', c) for c in comments)
    else:
        assert comments == []
    results = [e['result'] for e in sse_data(raw, q['sse_eol'])]
    assert results[-1]['statusUpdate']['status']['state'] == 'TASK_STATE_COMPLETED'
    assert text_of(results[-2]['artifactUpdate']['artifact']) == 'slept 3.5 s'


def test_v10_stream_ticks(peer: Peer) -> None:
    """`ticks <n> <s>`: n WORKING status updates with messages "tick i", then COMPLETED."""
    q = QUIRKS[peer.kind]
    body = {
        'jsonrpc': '2.0',
        'id': 43,
        'method': 'SendStreamingMessage',
        'params': {'message': msg10('ticks 3 0.1')},
    }
    r, raw = stream_raw(peer, '/', body, V10)
    results = [e['result'] for e in sse_data(raw, q['sse_eol'])]
    updates = [x['statusUpdate']['status'] for x in results[1:]]
    assert [u['state'] for u in updates] == ['TASK_STATE_WORKING'] * 4 + ['TASK_STATE_COMPLETED']
    assert [text_of(u['message']) for u in updates[1:4]] == ['tick 0', 'tick 1', 'tick 2']


def test_v10_unknown_word_completes_with_help(peer: Peer) -> None:
    task = send10(peer, 'frobnicate now')
    assert task['status']['state'] == 'TASK_STATE_COMPLETED'
    assert text_of(task['artifacts'][0]).startswith("unknown command 'frobnicate'; known: echo")


def test_v10_stream_without_version_header_is_plain_json(peer: Peer) -> None:
    body = {
        'jsonrpc': '2.0',
        'id': 27,
        'method': 'SendStreamingMessage',
        'params': {'message': msg10('stream 1')},
    }
    r, raw = stream_raw(peer, '/', body, {})
    assert r.headers['content-type'].startswith('application/json')
    assert json.loads(raw)['error']['code'] == QUIRKS[peer.kind]['v10_without_header']


# ------------------------------------------------------------------------ versions


def test_v10_method_without_version_header(peer: Peer) -> None:
    body = rpc(peer, 'SendMessage', {'message': msg10('echo a')}, rid=2).json()
    assert body['error']['code'] == QUIRKS[peer.kind]['v10_without_header']
    assert body['id'] == 2


def test_v03_method_with_v10_header(peer: Peer) -> None:
    body = rpc(peer, 'message/send', {'message': msg03('echo a')}, headers=V10, rid=4).json()
    assert body['error']['code'] == QUIRKS[peer.kind]['v03_with_v10_header']
    if peer.kind == 'python':
        assert body['error']['message'] == (
            "A2A version '1.0' is not supported by this handler. Expected version '0.3'."
        )


def test_v10_minor_version_header(peer: Peer) -> None:
    """`A2A-Version: 1.2`: Python compares the major only; JS refuses it (-32009)."""
    body = rpc(peer, 'SendMessage', {'message': msg10('echo a')}, headers={'A2A-Version': '1.2'}).json()
    if peer.kind == 'python':
        assert body['result']['task']['status']['state'] == 'TASK_STATE_COMPLETED'
    else:
        assert body['error']['code'] == -32009
        assert body['error']['data'][0]['reason'] == 'VERSION_NOT_SUPPORTED'


@pytest.mark.parametrize('fixture', ['py_peer_v1', 'js_peer_v1'])
def test_v10_only_peer_refuses_v03(fixture: str, request: pytest.FixtureRequest) -> None:
    p: Peer = request.getfixturevalue(fixture)
    v03 = rpc(p, 'message/send', {'message': msg03('echo a')}).json()
    no_header = rpc(p, 'SendMessage', {'message': msg10('echo a')}).json()
    if p.kind == 'python':
        assert v03['error'] == {'code': -32601, 'message': 'Method not found'}
    else:
        assert v03['error']['code'] == -32009
        assert v03['error']['message'].endswith('Supported versions: 1.0')
    assert no_header['error']['code'] == -32009
    assert no_header['error']['data'][0]['reason'] == 'VERSION_NOT_SUPPORTED'
    ok = rpc10(p, 'SendMessage', {'message': msg10('echo fine')})
    assert text_of(ok['result']['task']['artifacts'][0]) == 'fine'


# ------------------------------------------------------------------------ HTTP+JSON (REST)


def rest(peer: Peer, path: str, body: Any, headers: dict[str, str] | None = None) -> httpx.Response:
    return httpx.post(peer.url + path, json=body, headers={**JSON, **(headers or {})}, timeout=TIMEOUT)


def test_rest_v10_send(peer: Peer) -> None:
    r = rest(peer, '/rest/message:send', {'message': msg10('echo rest')}, V10)
    assert r.status_code == 200
    assert r.headers['content-type'].split(';')[0] == 'application/a2a+json'
    task = r.json()['task']
    assert task['status']['state'] == 'TASK_STATE_COMPLETED'
    assert text_of(task['artifacts'][0]) == 'rest'


def test_rest_v10_send_without_version_header(peer: Peer) -> None:
    r = rest(peer, '/rest/message:send', {'message': msg10('echo rest')})
    assert r.status_code == QUIRKS[peer.kind]['rest_v10_without_header']
    if r.status_code == 400:
        err = r.json()['error']
        assert (err['code'], err['status']) == (400, 'FAILED_PRECONDITION')
        assert err['details'][0]['reason'] == 'VERSION_NOT_SUPPORTED'
    else:
        assert r.json()['task']['status']['state'] == 'TASK_STATE_COMPLETED'


def test_rest_v10_get_unknown_task(peer: Peer) -> None:
    r = httpx.get(peer.url + '/rest/tasks/nope', headers=V10, timeout=TIMEOUT)
    assert r.status_code == 404
    err = r.json()['error']
    assert (err['code'], err['status']) == (404, 'NOT_FOUND')
    assert err['details'][0]['reason'] == 'TASK_NOT_FOUND'


def test_rest_v10_get_task(peer: Peer) -> None:
    task = send10(peer, 'echo fetched')
    r = httpx.get(f'{peer.url}/rest/tasks/{task["id"]}', headers=V10, timeout=TIMEOUT)
    assert r.status_code == 200
    got = r.json()
    assert got['id'] == task['id']
    assert got['status']['state'] == 'TASK_STATE_COMPLETED'


def test_rest_v10_stream(peer: Peer) -> None:
    q = QUIRKS[peer.kind]
    r, raw = stream_raw(peer, '/rest/message:stream', {'message': msg10('stream 2')}, V10)
    assert r.status_code == 200
    assert r.headers['content-type'] == q['sse_content_type']
    assert_line_endings(raw, q['sse_eol'])
    events = sse_data(raw, q['sse_eol'])  # bare StreamResponse objects, no JSON-RPC envelope
    assert [next(iter(e)) for e in events] == [
        'task',
        'statusUpdate',
        'artifactUpdate',
        'artifactUpdate',
        'statusUpdate',
    ]
    assert events[-1]['statusUpdate']['status']['state'] == 'TASK_STATE_COMPLETED'


def test_rest_v03_send(peer: Peer) -> None:
    """0.3 REST takes v0.3 proto-JSON (`content`, `ROLE_USER`) under /rest/v1."""
    message = {'role': 'ROLE_USER', 'messageId': str(uuid.uuid4()), 'content': [{'text': 'echo rest03'}]}
    r = rest(peer, '/rest/v1/message:send', {'message': message})
    assert r.status_code == QUIRKS[peer.kind]['rest_v03_send_status']
    assert r.headers['content-type'].split(';')[0] == 'application/json'
    task = r.json()['task']
    assert task['status']['state'] == 'TASK_STATE_COMPLETED'
    assert task['artifacts'][0]['parts'] == [{'text': 'rest03'}]


def test_rest_v03_stream_final(peer: Peer) -> None:
    q = QUIRKS[peer.kind]
    message = {'role': 'ROLE_USER', 'messageId': str(uuid.uuid4()), 'content': [{'text': 'stream 1'}]}
    r, raw = stream_raw(peer, '/rest/v1/message:stream', {'message': message}, {})
    assert r.status_code == 200
    assert_line_endings(raw, q['sse_eol'])
    events = sse_data(raw, q['sse_eol'])
    last = events[-1]['statusUpdate']
    assert last['status']['state'] == 'TASK_STATE_COMPLETED'
    assert last['final'] is True


def test_jsonrpc_request_content_type(peer: Peer) -> None:
    """JS refuses a JSON-RPC body that is not labelled application/json; Python does not check."""
    body = json.dumps(
        {'jsonrpc': '2.0', 'id': 9, 'method': 'SendMessage', 'params': {'message': msg10('echo ct')}}
    )
    r = httpx.post(
        peer.url + '/',
        content=body,
        headers={**V10, 'Content-Type': 'application/x-www-form-urlencoded'},
        timeout=TIMEOUT,
    )
    assert r.status_code == 200
    if peer.kind == 'python':
        assert r.json()['result']['task']['status']['state'] == 'TASK_STATE_COMPLETED'
    else:
        assert r.json()['error']['code'] == -32005


def test_idle_keepalive_connection_is_closed_after_about_5_s(peer: Peer) -> None:
    """Both servers close an idle HTTP/1.1 keep-alive connection after ~5 s (uvicorn's and
    Node's default), which bounds how long a client pool may keep one."""
    import socket
    from urllib.parse import urlsplit

    u = urlsplit(peer.url)
    with socket.create_connection((u.hostname, u.port), timeout=10) as sock:
        sock.sendall(
            f'GET /.well-known/agent-card.json HTTP/1.1\r\nHost: {u.netloc}\r\n\r\n'.encode()
        )
        received = b''
        while b'\r\n\r\n' not in received:
            chunk = sock.recv(65536)
            assert chunk, received
            received += chunk
        head, _, rest = received.partition(b'\r\n\r\n')
        length = int(re.search(rb'(?i)\r\ncontent-length: *(\d+)', head).group(1))
        while len(rest) < length:
            chunk = sock.recv(65536)
            assert chunk
            rest += chunk
        assert head.startswith(b'HTTP/1.1 200')
        t0 = time.monotonic()
        assert sock.recv(1) == b''  # EOF: the server closed the idle connection
        idle = time.monotonic() - t0
    assert 3.0 < idle < 8.0, idle


# ------------------------------------------------------------------------ lifecycle


@pytest.mark.parametrize('kind', ['python', 'js'])
def test_sigterm_stops_peer_cleanly_even_with_an_open_stream(kind: str) -> None:
    p = start(kind, ['--grace', '1'])
    try:
        with httpx.stream(
            'POST',
            p.url + '/',
            json={
                'jsonrpc': '2.0',
                'id': 1,
                'method': 'SendStreamingMessage',
                'params': {'message': msg10('cancel-me')},
            },
            headers={**JSON, **V10},
            timeout=TIMEOUT,
        ) as r:
            assert r.status_code == 200
            first = next(r.iter_raw())
            assert b'TASK_STATE_SUBMITTED' in first
            t0 = time.monotonic()
            rc = p.stop(timeout=8)
            elapsed = time.monotonic() - t0
    finally:
        p.stop()
    assert rc == 0, p.stderr()[-2000:]
    assert elapsed < 6, elapsed  # bounded by --grace, not by cancel-me's 60 s
