"""Server conformance, written from the A2A specification (1.0, and 0.3 where it differs) in
the project's words: docs/serving.md, "Conformance", lists each rule with its source. Every
test runs on each interface the card declares (1.0 and 0.3, JSON-RPC and HTTP+JSON); see
conftest.py for how the server under test is chosen (`A2A_CONFORMANCE_URL`).

Tests marked `reference_agent` need the reference agent's scripted words (`echo` answering a
completed task, `input`, `auth`, `drop`, a plain text starting a long-running task); the
binding example servers answer other words (`echo` is a message reply there), so CI runs
them against the reference agent only, and the rest against every example server
(`-m "not reference_agent"`, scripts/ci/67-serve-sdks.sh)."""

from __future__ import annotations

import json
import threading
import uuid

import pytest

from conftest import (CODES, HTTP, HTTP_STATUS, REASONS, TIMEOUT, Peer, Reply, Server, event_kind,
                      interfaces, state_name, task_of)


def expect_error(peer: Peer, reply: Reply, name: str) -> None:
    """The error `name`, in the interface's form: JSON-RPC code inside HTTP 200, or the
    HTTP+JSON status (spec §5.4)."""
    assert reply.error == name, f'{peer.label}: want {name}, got {reply.status} {reply.body}'
    if peer.rest:
        assert reply.status in HTTP_STATUS[name], f'{peer.label}: {reply.status} {reply.body}'
    else:
        assert reply.status == 200, reply.status
        assert reply.error_body['code'] == CODES[name]
        assert isinstance(reply.error_body.get('message'), str)


def started(peer: Peer, text: str, **kw) -> dict:
    r = peer.send(text, **kw)
    assert r.error is None, f'{peer.label}: {r.status} {r.body}'
    return task_of(r.result)


def only_1_0(peer: Peer) -> None:
    if peer.version != '1.0':
        pytest.skip('ListTasks is a 1.0 method')


# ------------------------------------------------------------------------------- the card

def test_the_card_is_public_and_carries_the_mandatory_fields(server: Server) -> None:
    r = HTTP.get(server.url + '/.well-known/agent-card.json', timeout=TIMEOUT)
    assert r.status_code == 200
    assert r.headers['content-type'].startswith('application/json')
    card = r.json()
    for f in ('name', 'description', 'version', 'capabilities', 'defaultInputModes',
              'defaultOutputModes', 'skills'):
        assert f in card, f
    for skill in card['skills']:
        for f in ('id', 'name', 'description', 'tags'):
            assert f in skill, (f, skill)
    interfaces = card.get('supportedInterfaces', [])
    assert interfaces, 'a 1.0 card lists its interfaces'
    for i in interfaces:
        assert i['url'].startswith('http') and i['protocolBinding'] and i['protocolVersion']
    if any(i['protocolVersion'].startswith('0.3') for i in interfaces):
        # 0.3 clients read the 0.3 fields.
        for f in ('url', 'protocolVersion', 'preferredTransport'):
            assert f in card, f


def test_a_declared_security_scheme_is_enforced(server: Server) -> None:
    if not server.token:
        pytest.skip('the server under test requires no credentials')
    card = server.card
    schemes = card.get('securitySchemes', {})
    assert schemes, 'a server that requires credentials declares them'
    assert card.get('securityRequirements') or card.get('security')
    _, binding, url = interfaces(card)[0]
    body = {'jsonrpc': '2.0', 'id': 1, 'method': 'GetTask', 'params': {'id': 'x'}}
    headers = {'Content-Type': 'application/json', 'A2A-Version': '1.0'}
    target = url if binding == 'JSONRPC' else url + '/tasks/x'
    send = (lambda h: HTTP.post(target, json=body, headers=h, timeout=TIMEOUT)) \
        if binding == 'JSONRPC' else (lambda h: HTTP.get(target, headers=h, timeout=TIMEOUT))
    missing = send(headers)
    assert missing.status_code == 401, missing.text
    assert missing.headers.get('www-authenticate', '').lower().startswith('bearer')
    wrong = send({**headers, 'Authorization': 'Bearer not-the-token'})
    assert wrong.status_code == 401
    assert 'invalid_token' in wrong.headers.get('www-authenticate', '')
    right = send({**headers, 'Authorization': f'Bearer {server.token}'})
    assert right.status_code in (200, 404), right.text


# ------------------------------------------------------------------- the JSON-RPC envelope

def test_unparsable_json_is_a_parse_error_with_a_null_id(rpc_peer: Peer) -> None:
    r = rpc_peer.post_raw(b'{"jsonrpc": "2.0", "id": 1, "method": ')
    assert r.status == 200
    assert r.body['jsonrpc'] == '2.0' and r.body['id'] is None
    assert r.error_body['code'] == -32700


@pytest.mark.parametrize('envelope', [
    {'jsonrpc': '1.0', 'id': 5, 'method': 'GetTask', 'params': {'id': 't'}},
    {'id': 5, 'method': 'GetTask', 'params': {'id': 't'}},
    {'jsonrpc': '2.0', 'id': 5, 'params': {'id': 't'}},
    {'jsonrpc': '2.0', 'id': 5, 'method': 42, 'params': {'id': 't'}},
], ids=['wrong-version', 'no-jsonrpc', 'no-method', 'method-not-a-string'])
def test_a_malformed_envelope_is_an_invalid_request(rpc_peer: Peer, envelope: dict) -> None:
    if rpc_peer.version == '0.3' and envelope.get('method') == 'GetTask':
        envelope = {**envelope, 'method': 'tasks/get'}
    r = rpc_peer.post_raw(json.dumps(envelope).encode())
    assert r.status == 200
    assert r.error_body['code'] == -32600, r.body
    assert r.body['id'] in (5, None)


def test_an_id_of_the_wrong_type_is_an_invalid_request(rpc_peer: Peer) -> None:
    body = {'jsonrpc': '2.0', 'id': {'bad': 1}, 'method': 'GetTask', 'params': {'id': 't'}}
    r = rpc_peer.post_raw(json.dumps(body).encode())
    assert r.error_body['code'] == -32600 and r.body['id'] is None


def test_a_request_without_an_id_is_answered_not_executed(rpc_peer: Peer) -> None:
    # A2A has no notifications; an HTTP request is still answered (docs/serving.md).
    name = 'GetTask' if rpc_peer.version == '1.0' else 'tasks/get'
    body = {'jsonrpc': '2.0', 'method': name, 'params': {'id': 'x'}}
    r = rpc_peer.post_raw(json.dumps(body).encode())
    assert r.status == 200 and r.body['id'] is None
    assert r.error_body['code'] == -32600
    unknown = rpc_peer.post_raw(json.dumps({'jsonrpc': '2.0', 'method': 'NoSuchMethod'}).encode())
    assert unknown.error_body['code'] == -32601


def test_an_unknown_method_is_method_not_found_with_the_id_echoed(rpc_peer: Peer) -> None:
    r = rpc_peer.rpc('tasks/nosuch', {}, rpc_id='abc-1')
    assert r.status == 200 and r.body['id'] == 'abc-1'
    assert r.error_body['code'] == -32601


@pytest.mark.parametrize('rpc_id', ['str-id', 17, 0])
def test_the_id_is_echoed_exactly(rpc_peer: Peer, rpc_id: object) -> None:
    r = rpc_peer.rpc(JSONRPC_GET[rpc_peer.version], {'id': 'no-such-task'}, rpc_id=rpc_id)
    assert r.body['jsonrpc'] == '2.0' and r.body['id'] == rpc_id
    assert r.error_body['code'] == -32001


JSONRPC_GET = {'1.0': 'GetTask', '0.3': 'tasks/get'}


def test_params_that_are_not_an_object_are_invalid_params(rpc_peer: Peer) -> None:
    r = rpc_peer.rpc(JSONRPC_GET[rpc_peer.version], None)
    assert r.error_body['code'] == -32602
    r = rpc_peer.post_raw(json.dumps({'jsonrpc': '2.0', 'id': 3, 'method': JSONRPC_GET[rpc_peer.version],
                                      'params': ['t-1']}).encode())
    assert r.error_body['code'] == -32602


def test_an_unsupported_version_is_version_not_supported(rpc_peer: Peer) -> None:
    r = rpc_peer.rpc(JSONRPC_GET[rpc_peer.version], {'id': 'x'}, headers={'A2A-Version': '9.9'})
    assert r.error_body['code'] == -32009, r.body


# ------------------------------------------------------------------------ send, get, history

@pytest.mark.reference_agent
def test_a_send_answers_a_task_and_get_returns_it(peer: Peer) -> None:
    task = started(peer, 'echo conformance')
    assert task['id'] and task['contextId']
    assert state_name(task['status']['state']) == 'completed'
    texts = [p.get('text') for a in task.get('artifacts', []) for p in a.get('parts', a.get('content', []))]
    assert 'conformance' in texts
    got = peer.get(task['id'])
    assert got.error is None, got.body
    t = task_of(got.result)
    assert t['id'] == task['id'] and t['contextId'] == task['contextId']
    assert state_name(t['status']['state']) == 'completed'
    assert any(m.get('role') in ('user', 'ROLE_USER') for m in t.get('history', []))


@pytest.mark.reference_agent
def test_history_length_limits_the_history_and_must_not_be_negative(peer: Peer) -> None:
    task = started(peer, 'input')
    peer.send('one more', task_id=task['id'])
    full = task_of(peer.get(task['id']).result).get('history', [])
    assert len(full) >= 3
    one = task_of(peer.get(task['id'], history_length=1).result).get('history', [])
    assert len(one) == 1 and one[0] == full[-1]
    none = task_of(peer.get(task['id'], history_length=0).result)
    assert not none.get('history')
    expect_error(peer, peer.get(task['id'], history_length=-1), 'InvalidParams')


def test_get_of_an_unknown_task_is_task_not_found(peer: Peer) -> None:
    expect_error(peer, peer.get(f'no-such-{uuid.uuid4()}'), 'TaskNotFound')


def test_a_message_without_parts_is_invalid_params(peer: Peer) -> None:
    m = peer.message('x')
    m.pop('parts', None)
    m.pop('content', None)
    expect_error(peer, peer.call('send', {'message': m}), 'InvalidParams')


def test_a_failed_task_says_why_in_its_status(peer: Peer) -> None:
    task = started(peer, 'fail')
    assert state_name(task['status']['state']) == 'failed'
    parts = task['status']['message'].get('parts') or task['status']['message'].get('content')
    assert '(error_id: ' in parts[0]['text']


# --------------------------------------------------------------------- multi-turn, states

@pytest.mark.reference_agent
def test_input_required_continues_with_a_follow_up_to_the_task(peer: Peer) -> None:
    task = started(peer, 'input')
    assert state_name(task['status']['state']) == 'input-required'
    assert task['status'].get('message'), 'the agent says what it needs'
    done = started(peer, 'the answer', task_id=task['id'], context_id=task['contextId'])
    assert done['id'] == task['id'] and done['contextId'] == task['contextId']
    assert state_name(done['status']['state']) == 'completed'
    users = [m for m in done.get('history', []) if m.get('role') in ('user', 'ROLE_USER')]
    assert len(users) == 2


@pytest.mark.reference_agent
def test_auth_required_continues_once_authorized(peer: Peer) -> None:
    task = started(peer, 'auth')
    assert state_name(task['status']['state']) == 'auth-required'
    done = started(peer, 'granted', task_id=task['id'])
    assert state_name(done['status']['state']) == 'completed'


@pytest.mark.reference_agent
def test_a_message_to_a_terminal_task_is_refused(peer: Peer) -> None:
    task = started(peer, 'echo done')
    expect_error(peer, peer.send('more', task_id=task['id']), 'UnsupportedOperation')


def test_a_message_to_an_unknown_task_is_task_not_found(peer: Peer) -> None:
    expect_error(peer, peer.send('hello', task_id=f'no-such-{uuid.uuid4()}'), 'TaskNotFound')


@pytest.mark.reference_agent
def test_a_new_message_in_a_context_starts_a_task_in_that_context(peer: Peer) -> None:
    first = started(peer, 'echo a')
    second = started(peer, 'echo b', context_id=first['contextId'])
    assert second['id'] != first['id'] and second['contextId'] == first['contextId']


# ------------------------------------------------------------------------------------ cancel

@pytest.mark.reference_agent
def test_cancel_cancels_a_waiting_task_once(peer: Peer) -> None:
    task = started(peer, 'input')
    r = peer.cancel(task['id'])
    assert r.error is None, r.body
    canceled = task_of(r.result)
    assert canceled['id'] == task['id'] and state_name(canceled['status']['state']) == 'canceled'
    assert state_name(task_of(peer.get(task['id']).result)['status']['state']) == 'canceled'
    expect_error(peer, peer.cancel(task['id']), 'TaskNotCancelable')


@pytest.mark.reference_agent
def test_cancel_of_a_completed_task_is_not_cancelable(peer: Peer) -> None:
    task = started(peer, 'echo finished')
    expect_error(peer, peer.cancel(task['id']), 'TaskNotCancelable')


def test_cancel_of_an_unknown_task_is_task_not_found(peer: Peer) -> None:
    expect_error(peer, peer.cancel(f'no-such-{uuid.uuid4()}'), 'TaskNotFound')


# ----------------------------------------------------------------------------------- list

@pytest.mark.reference_agent
def test_list_filters_by_context_and_pages_through_every_task(peer: Peer) -> None:
    only_1_0(peer)
    first = started(peer, 'echo p1')
    ctx = first['contextId']
    ids = {first['id']} | {started(peer, f'echo p{i}', context_id=ctx)['id'] for i in (2, 3)}
    seen: list[str] = []
    token = ''
    for _ in range(10):
        q = {'contextId': ctx, 'pageSize': 1}
        if token:
            q['pageToken'] = token
        r = peer.list(**q)
        assert r.error is None, r.body
        assert len(r.result['tasks']) <= 1 and r.result['totalSize'] == 3
        seen += [t['id'] for t in r.result['tasks']]
        token = r.result['nextPageToken']
        if not token:
            break
    assert sorted(seen) == sorted(ids), 'every task once, no duplicates'


@pytest.mark.reference_agent
def test_list_orders_newest_status_first_and_filters_by_state(peer: Peer) -> None:
    only_1_0(peer)
    a = started(peer, 'echo older')
    b = started(peer, 'input', context_id=a['contextId'])
    r = peer.list(contextId=a['contextId'])
    assert [t['id'] for t in r.result['tasks']] == [b['id'], a['id']]
    status = 'TASK_STATE_INPUT_REQUIRED'
    r = peer.list(contextId=a['contextId'], status=status)
    assert [t['id'] for t in r.result['tasks']] == [b['id']]


@pytest.mark.reference_agent
def test_list_leaves_out_artifacts_unless_asked_and_honours_history_length(peer: Peer) -> None:
    only_1_0(peer)
    a = started(peer, 'echo with artifact')
    r = peer.list(contextId=a['contextId'])
    assert 'artifacts' not in r.result['tasks'][0]
    r = peer.list(contextId=a['contextId'], includeArtifacts=True, historyLength=0)
    assert r.result['tasks'][0]['artifacts']
    assert not r.result['tasks'][0].get('history')


@pytest.mark.reference_agent
def test_list_status_timestamp_after_filters_and_is_validated(peer: Peer) -> None:
    only_1_0(peer)
    a = started(peer, 'echo stamped')
    r = peer.list(contextId=a['contextId'], statusTimestampAfter='2000-01-01T00:00:00Z')
    assert [t['id'] for t in r.result['tasks']] == [a['id']]
    r = peer.list(contextId=a['contextId'], statusTimestampAfter='2999-01-01T00:00:00Z')
    assert r.result['tasks'] == [] and r.result['nextPageToken'] == ''
    expect_error(peer, peer.list(statusTimestampAfter='yesterday'), 'InvalidParams')


@pytest.mark.parametrize('bad', [{'pageSize': 0}, {'pageSize': 101}, {'historyLength': -1},
                                 {'pageToken': 'not-a-token'}],
                         ids=['pageSize-0', 'pageSize-101', 'historyLength-negative', 'pageToken'])
def test_list_refuses_parameters_out_of_range(peer: Peer, bad: dict) -> None:
    only_1_0(peer)
    r = peer.list(**bad)
    expect_error(peer, r, 'InvalidParams')


# ---------------------------------------------------------------------------------- streams

def test_a_stream_starts_with_the_task_and_ends_at_its_terminal_state(peer: Peer) -> None:
    status, ctype, events, ids = peer.stream('stream', {'message': peer.message('count 3')})
    assert status == 200 and ctype.startswith('text/event-stream')
    kinds = [event_kind(peer.event_payload(e)) for e in events]
    assert kinds[0][0] == 'task'
    assert sum(1 for k, _ in kinds if k == 'artifact') == 3
    last_kind, last = kinds[-1]
    assert last_kind == 'status' and state_name(last['status']['state']) == 'completed'


@pytest.mark.reference_agent
def test_subscribe_refuses_unknown_and_terminal_tasks(peer: Peer) -> None:
    _, _, events, _ = peer.stream('subscribe', {} if peer.rest else {'id': 'no-such-task'},
                                  task_id='no-such-task')
    assert_stream_error(peer, events, 'TaskNotFound')
    done = started(peer, 'echo over')
    _, _, events, _ = peer.stream('subscribe', {} if peer.rest else {'id': done['id']},
                                  task_id=done['id'])
    assert_stream_error(peer, events, 'UnsupportedOperation')


def assert_stream_error(peer: Peer, events: list[dict], name: str) -> None:
    assert len(events) == 1, events
    e = events[0]
    if peer.rest:
        reasons = [d.get('reason') for d in e.get('error', {}).get('details', [])]
        assert REASONS[name] in reasons, e
    else:
        assert e['error']['code'] == CODES[name], e


@pytest.mark.reference_agent
def test_subscribe_replays_a_task_and_resumes_after_last_event_id(peer: Peer) -> None:
    task = started(peer, 'input')
    params = {} if peer.rest else {'id': task['id']}
    _, _, events, ids = peer.stream('subscribe', params, task_id=task['id'])
    kinds = [event_kind(peer.event_payload(e)) for e in events]
    assert kinds[0][0] == 'task' and kinds[0][1]['id'] == task['id']
    assert state_name(kinds[-1][1]['status']['state']) == 'input-required'
    assert all(ids), 'every event carries an SSE id'
    _, _, again, _ = peer.stream('subscribe', params, task_id=task['id'],
                                 headers={'Last-Event-ID': ids[0]})
    assert len(again) == len(events) - 1
    assert again == events[1:]


@pytest.mark.reference_agent
def test_subscribe_follows_a_cut_stream_to_its_end(peer: Peer) -> None:
    status, _, events, ids = peer.stream('stream', {'message': peer.message('drop')})
    kinds = [event_kind(peer.event_payload(e)) for e in events]
    task_id = kinds[0][1]['id']
    assert ids[-1] == 'CUT' and kinds[-1][0] == 'artifact', 'the stream was cut before the end'
    params = {} if peer.rest else {'id': task_id}
    _, _, rest, _ = peer.stream('subscribe', params, task_id=task_id)
    kinds = [event_kind(peer.event_payload(e)) for e in rest]
    assert state_name(kinds[-1][1]['status']['state']) == 'completed'
    got = task_of(peer.get(task_id).result)
    assert state_name(got['status']['state']) == 'completed'


# ------------------------------------------------------------------- optional capabilities

@pytest.mark.reference_agent
def test_push_config_calls_are_refused_when_the_card_does_not_declare_them(peer: Peer) -> None:
    if peer.server.card.get('capabilities', {}).get('pushNotifications'):
        pytest.skip('the card declares push notifications')
    task = started(peer, 'input')
    cfg = {'url': 'https://example.invalid/hook', 'id': 'c1'}
    if peer.rest and peer.version == '0.3':
        params = {'parent': f"tasks/{task['id']}", 'configId': 'c1', 'config': {'pushNotificationConfig': cfg}}
    elif peer.rest:
        params = cfg
    elif peer.version == '0.3':
        params = {'taskId': task['id'], 'pushNotificationConfig': cfg}
    else:
        params = {'taskId': task['id'], **cfg}
    expect_error(peer, peer.call('push_set', params, task_id=task['id']), 'PushNotificationNotSupported')


def test_the_extended_card_is_served_only_when_declared(peer: Peer) -> None:
    if peer.version != '1.0':
        pytest.skip('GetExtendedAgentCard is the 1.0 name')
    r = peer.call('extended_card', {})
    if not peer.server.card.get('capabilities', {}).get('extendedAgentCard'):
        expect_error(peer, r, 'UnsupportedOperation')
        return
    assert r.error is None, r.body
    for f in ('name', 'description', 'version', 'capabilities', 'skills', 'supportedInterfaces'):
        assert f in r.result, f'{f} missing from the extended card'


@pytest.mark.reference_agent
def test_subscribe_follows_a_working_task_live_until_canceled(peer: Peer) -> None:
    task = started(peer, 'please work on this for a while')
    assert state_name(task['status']['state']) in ('submitted', 'working')
    params = {} if peer.rest else {'id': task['id']}
    got: dict = {}
    connected = threading.Event()

    def listen() -> None:
        got['events'] = peer.stream('subscribe', params, task_id=task['id'],
                                    on_event=lambda _: connected.set())[2]

    listener = threading.Thread(target=listen)
    listener.start()
    # Cancel once the subscriber has the replay: what follows must come live.
    assert connected.wait(timeout=10), 'the subscription replays the task at once'
    assert peer.cancel(task['id']).error is None
    listener.join(timeout=10)
    assert not listener.is_alive(), 'the stream ends once the task is canceled'
    kinds = [event_kind(peer.event_payload(e)) for e in got['events']]
    assert kinds[0][0] == 'task'
    assert state_name(kinds[-1][1]['status']['state']) == 'canceled'


@pytest.mark.reference_agent
def test_a_long_running_task_is_working_and_a_follow_up_settles_it(peer: Peer) -> None:
    task = started(peer, 'a plain request')
    assert state_name(task['status']['state']) in ('submitted', 'working')
    now = task_of(peer.get(task['id']).result)
    assert state_name(now['status']['state']) == 'working'
    done = started(peer, 'echo settled', task_id=task['id'])
    assert state_name(done['status']['state']) == 'completed'
