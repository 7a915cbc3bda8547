"""a2a_core.server: the ASGI application over the core's server side.

In-process (httpx's ASGITransport, and mounted in Starlette): the card from the card builder,
both versions on both bindings, FAILED with a fresh error_id that only the log has the cause
of, the before/after-execute hooks, the task methods, refusals, the tally. Then the example
server (examples/serve.py) under a real uvicorn on 127.0.0.1, driven by the official Python
a2a-sdk client (1.0 and its 0.3 compat) and by this package's own Client, with keep-alive
comments and the Host check seen on the wire.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from conftest import REPO

from a2a_core import Client, ClientStreamEnd, StreamItem
from a2a_core import ErrorName
from a2a_core.server import A2AServer, CardBuilder, Hint, Refused, ServerError

sys.path.insert(0, str(REPO / 'bindings' / 'python' / 'examples'))
import serve  # noqa: E402  (the example server: its app() is the agent under test)

ERROR_ID = re.compile(r'Agent execution failed\. \(error_id: ([0-9a-f]{12})\)')


def rpc(method: str, params: dict[str, Any], rid: Any = 1) -> dict[str, Any]:
    return {'jsonrpc': '2.0', 'id': rid, 'method': method, 'params': params}


def msg10(text: str, **extra: Any) -> dict[str, Any]:
    return {'message': {'messageId': str(uuid.uuid4()), 'role': 'ROLE_USER',
                        'parts': [{'text': text}], **extra}}


def msg03(text: str, **extra: Any) -> dict[str, Any]:
    return {'message': {'kind': 'message', 'messageId': str(uuid.uuid4()), 'role': 'user',
                        'parts': [{'kind': 'text', 'text': text}], **extra}}


V1 = {'A2A-Version': '1.0'}


def run(coro: Any) -> Any:
    return asyncio.run(coro)


async def call(app: Any, method: str, url: str, **kw: Any) -> httpx.Response:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url='http://agent.test') as c:
        return await c.request(method, url, **kw)


def sse_data(text: str) -> list[dict[str, Any]]:
    return [json.loads(line[5:]) for line in text.splitlines() if line.startswith('data:')]


# --- in-process ------------------------------------------------------------------------------


def test_the_card_is_the_card_builders_for_both_versions() -> None:
    r = run(call(serve.app(), 'GET', '/.well-known/agent-card.json'))
    assert r.status_code == 200 and r.headers['content-type'] == 'application/json'
    card = r.json()
    assert [(i['protocolVersion'], i['protocolBinding'], i['url']) for i in
            card['supportedInterfaces']] == [
        ('1.0', 'JSONRPC', 'http://agent.test/'), ('1.0', 'HTTP+JSON', 'http://agent.test/rest'),
        ('0.3', 'JSONRPC', 'http://agent.test/'), ('0.3', 'HTTP+JSON', 'http://agent.test/rest')]
    assert card['url'] == 'http://agent.test/' and card['preferredTransport'] == 'JSONRPC'
    assert card['protocolVersion'] == '0.3.0' and card['capabilities']['streaming'] is True
    assert card['skills'][0]['id'] == 'demo'
    # The same bytes as the builder writes.
    b = CardBuilder('example-agent', 'a2a-core Python example agent', '1.0.0')
    for v in ('1.0', '0.3'):
        b.interface('http://agent.test/', v, 'JSONRPC').interface('http://agent.test/rest', v,
                                                                  'HTTP+JSON')
    b.capabilities(streaming=True).skill('demo', 'Demo', 'echo, count, slow, ask, refuse, fail, busy',
                                         ['demo'])
    assert r.content == b.build()


def test_the_card_builder_refuses_an_unusable_card() -> None:
    from a2a_core import A2AError
    with pytest.raises(A2AError, match='no interface'):
        CardBuilder('a', 'b', '1').build()
    with pytest.raises(A2AError, match='not an absolute'):
        CardBuilder('a', 'b', '1').interface('/x', '1.0', 'JSONRPC').build()


def test_mounted_in_starlette_the_card_names_the_mount() -> None:
    from starlette.applications import Starlette
    from starlette.routing import Mount
    outer = Starlette(routes=[Mount('/agent', app=serve.app())])
    card = run(call(outer, 'GET', '/agent/.well-known/agent-card.json')).json()
    assert card['supportedInterfaces'][0]['url'] == 'http://agent.test/agent/'
    r = run(call(outer, 'POST', '/agent/', json=rpc('SendMessage', msg10('echo mounted')),
                 headers=V1))
    assert r.json()['result']['message']['parts'] == [{'text': 'mounted'}]


@pytest.mark.parametrize('version,binding', [('1.0', 'jsonrpc'), ('0.3', 'jsonrpc'),
                                             ('1.0', 'rest'), ('0.3', 'rest')])
def test_both_versions_on_both_bindings(version: str, binding: str) -> None:
    app = serve.app()
    m = msg10('echo hi there') if version == '1.0' else msg03('echo hi there')
    hs = V1 if version == '1.0' else {}
    if binding == 'jsonrpc':
        name = 'SendMessage' if version == '1.0' else 'message/send'
        r = run(call(app, 'POST', '/', json=rpc(name, m), headers=hs))
        result = r.json()['result']
    else:
        path = '/rest/message:send' if version == '1.0' else '/rest/v1/message:send'
        r = run(call(app, 'POST', path, json=m, headers=hs))
        result = r.json()
    assert r.status_code == 200
    if version == '1.0':
        assert result['message']['role'] == 'ROLE_AGENT'
        assert result['message']['parts'] == [{'text': 'hi there'}]
    elif binding == 'jsonrpc':  # 0.3 JSON-RPC: kind-tagged, lowercase roles
        assert result['kind'] == 'message' and result['role'] == 'agent'
        assert result['parts'] == [{'kind': 'text', 'text': 'hi there'}]
    else:  # 0.3 HTTP+JSON: the 0.3 proto's JSON (`content`, ROLE_AGENT)
        assert result['message']['role'] == 'ROLE_AGENT'
        assert result['message']['content'] == [{'text': 'hi there'}]
    assert app.tally.count('example-agent', 'SendMessage', 'message', 'message') == 1


def test_a_handler_exception_is_failed_with_an_error_id_only_the_log_explains(
        caplog: pytest.LogCaptureFixture) -> None:
    app = serve.app()
    with caplog.at_level(logging.ERROR, logger='a2a_core.server'):
        r = run(call(app, 'POST', '/', json=rpc('SendMessage', msg10('fail')), headers=V1))
    task = r.json()['result']['task']
    assert task['status']['state'] == 'TASK_STATE_FAILED'
    text = task['status']['message']['parts'][0]['text']
    m = ERROR_ID.match(text)
    assert m, text
    assert text.endswith(' [retryable=false; reason=bug]')  # after_execute's hint
    assert 'broke' not in r.text and 'RuntimeError' not in r.text
    logged = [rec for rec in caplog.records if m.group(1) in rec.getMessage()]
    assert len(logged) == 1 and logged[0].exc_info is not None
    assert 'the agent broke' in str(logged[0].exc_info[1])
    assert app.tally.count('example-agent', 'SendMessage', 'task', 'failed') == 1
    # A second failure gets a fresh id.
    r2 = run(call(app, 'POST', '/', json=rpc('SendMessage', msg10('fail')), headers=V1))
    m2 = ERROR_ID.search(r2.text)
    assert m2 and m2.group(1) != m.group(1)


def test_debug_detail_is_sent_only_when_asked_for() -> None:
    async def boom(ctx: Any) -> str:
        raise ValueError('db password wrong')
    quiet = run(call(A2AServer(boom), 'POST', '/', json=rpc('SendMessage', msg10('x')),
                     headers=V1))
    assert 'password' not in quiet.text and ERROR_ID.search(quiet.text)
    loud = run(call(A2AServer(boom, debug_detail=True), 'POST', '/',
                    json=rpc('SendMessage', msg10('x')), headers=V1))
    assert re.search(r'\(error_id: [0-9a-f]{12}\): ValueError: db password wrong', loud.text)


def test_before_execute_refuses_with_a_marked_admission_cancel() -> None:
    app = serve.app()
    r = run(call(app, 'POST', '/', json=rpc('SendMessage', msg10('busy')), headers=V1))
    status = r.json()['result']['task']['status']
    assert status['state'] == 'TASK_STATE_CANCELED'
    assert status['message']['metadata']['a2aCoreCancelOrigin'] == 'admission'
    assert 'the agent is at capacity' in status['message']['parts'][0]['text']
    # The handler never ran, and an async hook works the same.
    ran = []

    async def handler(ctx: Any) -> str:
        ran.append(ctx.text)
        return 'ran'

    async def refuse(ctx: Any) -> None:
        raise Refused('quota')
    r = run(call(A2AServer(handler, before_execute=refuse), 'POST', '/',
                 json=rpc('message/send', msg03('x'))))
    assert r.json()['result']['status']['state'] == 'canceled' and ran == []


def test_hint_text_is_the_cores_grammar() -> None:
    assert Hint(retryable=True).text() == '[retryable=true]'
    assert Hint(pairs={'a;b': 'c=d'}).text() == '[a_b=c_d]'


def test_task_methods_on_kept_tasks() -> None:
    app = serve.app()

    async def go() -> None:
        t = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=t, base_url='http://agent.test') as c:
            r = await c.post('/', json=rpc('SendMessage', msg10('count 3')), headers=V1)
            task = r.json()['result']['task']
            assert task['status']['state'] == 'TASK_STATE_COMPLETED'
            assert [p['text'] for p in task['artifacts'][0]['parts']] == [
                'chunk 1 ', 'chunk 2 ', 'chunk 3 ']
            tid = task['id']
            got = (await c.get(f'/rest/tasks/{tid}?historyLength=0', headers=V1)).json()
            assert got['id'] == tid and got.get('history', []) == []
            got03 = (await c.post('/', json=rpc('tasks/get', {'id': tid}))).json()['result']
            assert got03['status']['state'] == 'completed' and len(got03['history']) == 1
            listed = (await c.post('/', json=rpc('ListTasks', {'contextId': task['contextId']}),
                                   headers=V1)).json()['result']
            assert [x['id'] for x in listed['tasks']] == [tid]
            # Cancel of a finished task, unknown task, push config: the spec's codes.
            r = await c.post('/', json=rpc('CancelTask', {'id': tid}), headers=V1)
            assert r.json()['error']['code'] == -32002
            r = await c.post('/', json=rpc('GetTask', {'id': 'nope'}), headers=V1)
            assert r.json()['error']['code'] == -32001
            r = await c.get('/rest/tasks/nope', headers=V1)
            assert r.status_code == 404
            r = await c.post('/', json=rpc('GetTaskPushNotificationConfig',
                                           {'taskId': tid, 'id': 'c'}), headers=V1)
            assert r.json()['error']['code'] == -32003
            # Multi-turn: ask stops at INPUT_REQUIRED, the next message on it completes it.
            r = await c.post('/', json=rpc('SendMessage', msg10('ask')), headers=V1)
            asked = r.json()['result']['task']
            assert asked['status']['state'] == 'TASK_STATE_INPUT_REQUIRED'
            r = await c.post('/', json=rpc('SendMessage', msg10(
                'Ada', taskId=asked['id'], contextId=asked['contextId'])), headers=V1)
            done = r.json()['result']['task']
            assert done['id'] == asked['id'] and done['status']['state'] == 'TASK_STATE_COMPLETED'
            assert len(done['history']) >= 3
    run(go())
    assert app.tally.count('example-agent', 'CancelTask', 'protocol', 'TaskNotCancelable') == 1
    assert app.tally.count('example-agent', 'GetTask', 'protocol', 'TaskNotFound') == 2


def test_a_stream_is_cancelled_and_subscribe_follows_it_live() -> None:
    app = serve.app()

    async def go() -> tuple[str, str, dict[str, Any]]:
        t = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=t, base_url='http://agent.test') as c:
            stream = asyncio.ensure_future(c.post('/', json=rpc('SendStreamingMessage',
                                                                msg10('slow 30')), headers=V1))
            deadline = time.monotonic() + 10
            while not app.runs and time.monotonic() < deadline:
                await asyncio.sleep(0.01)
            tid = next(iter(app.runs))
            sub = asyncio.ensure_future(c.post('/', json=rpc('tasks/resubscribe', {'id': tid})))
            while len(app.runs[tid].subscribers) < 2 and time.monotonic() < deadline:
                await asyncio.sleep(0.01)
            r = await c.post('/', json=rpc('CancelTask', {'id': tid}), headers=V1)
            first = (await asyncio.wait_for(stream, 10)).text
            second = (await asyncio.wait_for(sub, 10)).text
            return first, second, r.json()['result']
    first, second, canceled = run(go())
    assert canceled['status']['state'] == 'TASK_STATE_CANCELED'
    assert sse_data(first)[-1]['result']['statusUpdate']['status']['state'] == 'TASK_STATE_CANCELED'
    events = [e['result'] for e in sse_data(second)]  # 0.3: kind-tagged
    assert events[0]['kind'] == 'task' and events[-1]['status']['state'] == 'canceled'
    assert app.tally.count('example-agent', 'SendStreamingMessage', 'task', 'canceled') == 1


def test_refusals_are_the_cores_and_counted() -> None:
    app = serve.app()
    r = run(call(app, 'POST', '/', content=b'{}', headers={'Content-Type': 'text/plain'}))
    assert r.status_code == 415 and r.json()['error']['code'] == -32005
    r = run(call(app, 'POST', '/', json=rpc('NoSuchMethod', {}), headers=V1))
    assert r.json()['error']['code'] == -32601
    r = run(call(app, 'GET', '/nowhere'))
    assert r.status_code == 404
    counted = {(m, ch, code) for _, m, ch, code, _ in app.tally.entries()}
    assert ('unknown', 'protocol', 'ContentTypeNotSupported') in counted
    assert any(code == 'MethodNotFound' for _, _, code in counted)


# --- the example under a real uvicorn ----------------------------------------------------------


@pytest.fixture(scope='module')
def served() -> Iterator[str]:
    proc = subprocess.Popen(
        [sys.executable, str(REPO / 'bindings' / 'python' / 'examples' / 'serve.py'),
         '--keepalive', '0.1'], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline() if proc.stdout else ''
        assert line.startswith('READY http://127.0.0.1:'), line + (
            proc.stderr.read() if proc.stderr else '')
        url = line.split()[1]
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:  # READY is printed when the socket listens
            try:
                httpx.get(url + '/.well-known/agent-card.json', timeout=2)
                break
            except httpx.TransportError:
                time.sleep(0.05)
        yield url
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            code = proc.wait(timeout=10)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait(timeout=5)
        assert code == 0


async def sdk_run(url: str, version: str, text: str, streaming: bool) -> list[Any]:
    from a2a.client import ClientConfig, ClientFactory
    from a2a.client.card_resolver import parse_agent_card
    from a2a.types import Message, Part, Role, SendMessageRequest
    data = httpx.get(url + '/.well-known/agent-card.json', timeout=10).json()
    if version == '0.3':
        data['supportedInterfaces'] = [i for i in data['supportedInterfaces']
                                       if i['protocolVersion'] == '0.3']
    client = ClientFactory(ClientConfig(streaming=streaming)).create(parse_agent_card(data))
    try:
        m = Message(message_id=str(uuid.uuid4()), role=Role.ROLE_USER, parts=[Part(text=text)])
        return [ev async for ev in client.send_message(SendMessageRequest(message=m))]
    finally:
        await client.close()


def sdk_final(events: list[Any]) -> Any:
    tasks = [e.task for e in events if e.HasField('task')]
    updates = [e.status_update for e in events if e.HasField('status_update')]
    return updates[-1].status if updates else tasks[-1].status


@pytest.mark.parametrize('version', ['1.0', '0.3'])
def test_the_sdk_client_sends_streams_and_sees_failures(served: str, version: str) -> None:
    from a2a.types import TaskState
    events = run(sdk_run(served, version, 'echo from the sdk', streaming=False))
    assert [p.text for p in events[-1].message.parts] == ['from the sdk']
    events = run(sdk_run(served, version, 'count 3', streaming=True))
    assert sdk_final(events).state == TaskState.TASK_STATE_COMPLETED
    chunks = [p.text for e in events if e.HasField('artifact_update')
              for p in e.artifact_update.artifact.parts]
    assert chunks == ['chunk 1 ', 'chunk 2 ', 'chunk 3 ']
    events = run(sdk_run(served, version, 'fail', streaming=False))
    status = sdk_final(events)
    assert status.state == TaskState.TASK_STATE_FAILED
    assert ERROR_ID.match(status.message.parts[0].text)
    events = run(sdk_run(served, version, 'busy', streaming=True))
    assert sdk_final(events).state == TaskState.TASK_STATE_CANCELED


FAST = {'connect_timeout_ms': 3000, 'call_timeout_ms': 20000, 'stream_idle_timeout_ms': 20000}


@pytest.mark.parametrize('protocol,binding', [('1.0', 'JSONRPC'), ('0.3', 'JSONRPC'),
                                              ('1.0', 'HTTP+JSON'), ('0.3', 'HTTP+JSON')])
def test_the_packages_own_client(served: str, protocol: str, binding: str) -> None:
    with Client(served, allow_http=True, protocol=protocol, binding=binding, **FAST) as c:
        o = c.send('echo native')
        assert o.channel == 'message' and o.text == 'native' and o.version == protocol
        o = c.send('fail')
        assert o.state == 'failed' and o.error_id and re.fullmatch(r'[0-9a-f]{12}', o.error_id)
        assert o.remote_retryable is False and not o.leaked_detail
        o = c.send('busy')
        assert o.state == 'canceled' and o.cancel_origin == 'admission'
        o = c.send('count 2')
        assert o.state == 'completed' and o.task_id
        assert c.get(o.task_id).state == 'completed'
        events = list(c.stream('count 3'))
        items = [e for e in events if isinstance(e, StreamItem)]
        end = events[-1]
        assert isinstance(end, ClientStreamEnd) and end.outcome.state == 'completed'
        assert len(items) >= 4  # task, working, 3 chunks, completed


def test_keepalive_comments_and_the_host_check_on_the_wire(served: str) -> None:
    body = rpc('SendStreamingMessage', msg10('slow 0.5'))
    with httpx.stream('POST', served + '/', json=body, headers=V1, timeout=10) as r:
        assert r.headers['content-type'] == 'text/event-stream'
        assert r.headers['cache-control'] == 'no-store'
        assert r.headers['x-accel-buffering'] == 'no'
        text = r.read().decode()
    assert text.count(': keep-alive') >= 2, text
    assert sse_data(text)[-1]['result']['statusUpdate']['status']['state'] == 'TASK_STATE_COMPLETED'
    r = httpx.post(served + '/', json=rpc('SendMessage', msg10('echo x')),
                   headers={**V1, 'Host': 'rebound.example'}, timeout=10)
    assert r.status_code == 421
    port = served.rsplit(':', 1)[1]
    r = httpx.post(served + '/', json=rpc('SendMessage', msg10('echo x')),
                   headers={**V1, 'Host': f'localhost:{port}'}, timeout=10)
    assert r.status_code == 200


def test_list_tasks_pages_and_filters_as_the_reference_agent() -> None:
    app = serve.app()

    async def go() -> None:
        t = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=t, base_url='http://agent.test') as c:
            async def send(text: str, ctx: str) -> str:
                r = await c.post('/', json=rpc('SendMessage', msg10(text, contextId=ctx)), headers=V1)
                return r.json()['result']['task']['id']

            async def ls(**params: Any) -> dict[str, Any]:
                r = (await c.post('/', json=rpc('ListTasks', params), headers=V1)).json()
                assert 'result' in r, (params, r)
                assert r['result']['pageSize'] == len(r['result']['tasks'])
                return r['result']

            a = [await send('count 1', 'ctx-a') for _ in range(3)]
            b1, b2 = await send('ask', 'ctx-b'), await send('ask', 'ctx-b')
            # statusTimestampAfter is inclusive at millisecond precision: keep `mid` clear of
            # b2's millisecond on both sides (in the same millisecond b2 counts as "at" mid)
            await asyncio.sleep(0.01)
            mid = time.time()
            await asyncio.sleep(0.01)
            await c.post('/', json=rpc('CancelTask', {'id': b1}), headers=V1)
            from datetime import datetime, timezone
            mid_s = datetime.fromtimestamp(mid, timezone.utc).isoformat()

            p1 = await ls(contextId='ctx-a', pageSize=2)
            assert [x['id'] for x in p1['tasks']] == [a[2], a[1]] and p1['totalSize'] == 3
            assert p1['nextPageToken'] and 'artifacts' not in p1['tasks'][0]
            assert all(x['status']['timestamp'].endswith('Z') for x in p1['tasks'])
            p2 = await ls(contextId='ctx-a', pageSize=2, pageToken=p1['nextPageToken'])
            assert [x['id'] for x in p2['tasks']] == [a[0]] and p2['nextPageToken'] == ''
            assert [x['id'] for x in (await ls())['tasks']] == [b1, b2, a[2], a[1], a[0]]
            assert [x['id'] for x in (await ls(status='TASK_STATE_INPUT_REQUIRED'))['tasks']] == [b2]
            assert [x['id'] for x in (await ls(statusTimestampAfter=mid_s))['tasks']] == [b1]
            assert (await ls(statusTimestampAfter='2999-01-01T00:00:00+02:00'))['tasks'] == []
            full = await ls(contextId='ctx-a', historyLength=0, includeArtifacts=True)
            assert all(not x.get('history') and len(x['artifacts']) == 1 for x in full['tasks'])
            for bad in ({'pageSize': 0}, {'pageSize': 101}, {'historyLength': -1},
                        {'statusTimestampAfter': 'yesterday'}, {'pageToken': 'not-ours'}):
                r = (await c.post('/', json=rpc('ListTasks', bad), headers=V1)).json()
                assert r['error']['code'] == -32602, (bad, r)
            r = await c.get(f'/rest/tasks?contextId=ctx-a&pageSize=1&pageToken={p1["nextPageToken"]}',
                            headers=V1)
            assert [x['id'] for x in r.json()['tasks']] == [a[0]] and r.json()['totalSize'] == 3
    run(go())


def test_a_handler_protocol_error_in_both_versions_and_bindings() -> None:
    app = serve.app()

    async def go() -> None:
        t = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=t, base_url='http://agent.test') as c:
            r = (await c.post('/', json=rpc('SendMessage', msg10('refuse x'), rid=7), headers=V1)).json()
            assert r['id'] == 7 and r['error']['code'] == -32602
            assert r['error']['message'] == 'refused: x'
            assert r['error']['data'][0]['reason'] == 'INVALID_PARAMS'
            r = (await c.post('/', json=rpc('message/send', msg03('refuse y')))).json()
            assert r['error']['code'] == -32602 and 'data' not in r['error']
            r = await c.post('/rest/message:send', json=msg10('refuse z'), headers=V1)
            assert r.status_code == 400 and r.json()['error']['status'] == 'INVALID_ARGUMENT'
            # A streaming JSON-RPC request gets the error as the one event of a stream.
            r = await c.post('/', json=rpc('SendStreamingMessage', msg10('refuse s'), rid=9),
                             headers=V1)
            assert r.status_code == 200 and r.headers['content-type'] == 'text/event-stream'
            [ev] = sse_data(r.text)
            assert ev['id'] == 9 and ev['error']['code'] == -32602
            r = await c.post('/rest/message:stream', json=msg10('refuse s'), headers=V1)
            assert r.status_code == 400
            r = await c.post('/', json=rpc('SubscribeToTask', {'id': 'nope'}), headers=V1)
            assert r.headers['content-type'] == 'text/event-stream'
            assert sse_data(r.text)[0]['error']['code'] == -32001
            assert (await c.post('/', json=rpc('ListTasks', {}), headers=V1)).json()['result'][
                'totalSize'] == 0
    run(go())
    assert app.tally.count('example-agent', 'SendStreamingMessage', 'protocol', 'InvalidParams') == 2


def test_a_server_error_before_the_first_event_answers_the_request() -> None:
    async def handle(ctx: Any) -> Any:
        async def events() -> Any:
            if ctx.text == 'refuse':
                raise ServerError(ErrorName.UNSUPPORTED_OPERATION, 'not now')
            if ctx.text == 'broken':
                raise RuntimeError('before the first event')
            yield ctx.status('working')
            raise ServerError(ErrorName.INVALID_PARAMS, 'too late')
        return events()
    app = A2AServer(handle, name='gen-agent')

    async def go() -> None:
        t = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=t, base_url='http://agent.test') as c:
            r = (await c.post('/', json=rpc('SendMessage', msg10('refuse')), headers=V1)).json()
            assert r['error']['code'] == -32004 and r['error']['message'] == 'not now'
            r = await c.post('/', json=rpc('SendStreamingMessage', msg10('refuse')), headers=V1)
            assert sse_data(r.text)[0]['error']['code'] == -32004
            for text in ('broken', 'other'):  # a failure, and an error after an event: FAILED
                r = (await c.post('/', json=rpc('SendMessage', msg10(text)), headers=V1)).json()
                status = r['result']['task']['status']
                assert status['state'] == 'TASK_STATE_FAILED', r
                assert ERROR_ID.match(status['message']['parts'][0]['text'])
            listed = (await c.post('/', json=rpc('ListTasks', {}), headers=V1)).json()['result']
            assert listed['totalSize'] == 2
    run(go())
