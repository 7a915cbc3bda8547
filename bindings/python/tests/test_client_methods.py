"""The blocking Client's list tasks (a lazy page iterator), push-config create / get / list /
delete and extended card, on both of its delegates (the reference driver's transport, and
the caller's httpx.Client): the same calls, arguments and results as AsyncClient's
(tests/test_async_client.py), against the same peers: the real Python a2a-sdk server in
both bindings, the 0.3 extended-card agent and the agent declaring no capabilities, and a
recording agent that answers every method, in both protocol versions and both bindings;
and the same server with push configs and an extended card (`--push`): real round trips
in both versions and both bindings."""

from __future__ import annotations

import asyncio
import http.server
import json
import threading
from collections.abc import Iterator
import sys
from typing import Any

import httpx
import pytest
from conftest import REPO
from test_async_client import (  # noqa: F401 - the agents and py_peer are fixtures
    FAST_SYNC,
    _ExtendedCard,
    _NoCapabilities,
    extended_agent,
    no_caps_agent,
    py_peer,
    split,
)

import a2a_core
from a2a_core import CallResult, Client, Outcome, TaskPage

sys.path.insert(0, str(REPO / 'tests' / 'peers'))
from launch import Peer, peer  # noqa: E402

DELEGATES = ['native', 'httpx']


@pytest.fixture(scope='module')
def http_client() -> Iterator[httpx.Client]:
    with httpx.Client(timeout=httpx.Timeout(None, connect=3.0)) as h:
        yield h


@pytest.fixture(params=DELEGATES)
def opts(request: pytest.FixtureRequest, http_client: httpx.Client) -> dict[str, Any]:
    """The options of a blocking Client on one delegate."""
    extra = {'http_client': http_client} if request.param == 'httpx' else {}
    return {'allow_http': True, **FAST_SYNC, **extra}


@pytest.mark.parametrize(('binding', 'path'), [('jsonrpc', '/'), ('http+json', '/rest')])
def test_list_tasks_pages_push_configs_and_extended_card(py_peer: Any, opts: dict[str, Any],
                                                         binding: str, path: str) -> None:
    with Client.with_target(py_peer.url + path, '1.0', binding, **opts) as c:
        first = c.send('echo page')
        context = first.context_id
        ids = {first.task_id}
        for _ in range(4):  # the same context: the pages list this context only
            o = c.send('echo more', context_id=context)
            assert o.success, o
            ids.add(o.task_id)
        it = c.list_tasks(context_id=context, page_size=2)
        assert isinstance(it, Iterator) and not isinstance(it, list)
        pages = list(it)
        assert all(isinstance(p, TaskPage) for p in pages)
        assert all(p.outcome.channel.value != 'transport' for p in pages)
        seen = {t['id'] for p in pages for t in p.tasks}
        assert seen == ids
        assert len(pages) == 3 and pages[-1].next_page_token is None
        assert all(p.next_page_token for p in pages[:-1])
        # page_token starts at a later page: the same tasks as from there on
        rest = list(c.list_tasks(context_id=context, page_size=2,
                                 page_token=pages[0].next_page_token))
        assert [[t['id'] for t in p.tasks] for p in rest] == \
            [[t['id'] for t in p.tasks] for p in pages[1:]]
        # the peer has no push notifications and no extended card: protocol outcomes
        r = c.set_push_config(first.task_id, 'https://hooks.example/x', config_id='c1')
        assert isinstance(r, CallResult)
        assert r.outcome.error.value == 'PushNotificationNotSupported' and r.result is None
        r = c.list_push_configs(first.task_id)
        assert r.outcome.error.value == 'PushNotificationNotSupported'
        r = c.extended_card()
        assert r.outcome.channel.value == 'protocol' and r.result is None


def test_list_tasks_does_not_exist_in_0_3(py_peer: Any, opts: dict[str, Any]) -> None:
    with Client.with_target(py_peer.url + '/', '0.3', 'jsonrpc', **opts) as c:
        pages = list(c.list_tasks())
    assert len(pages) == 1 and pages[0].tasks == ()
    assert pages[0].outcome.failed and 'ListTasks' in (pages[0].outcome.message or '')


def test_the_extended_card_replaces_the_public_one(extended_agent: str,
                                                   opts: dict[str, Any]) -> None:
    with Client(extended_agent, **opts) as c:
        _, before = split(list(c.stream('echo hi')))
        ext = c.extended_card()
        _, after = split(list(c.stream('echo hi')))
    assert before.outcome.error is not None, before
    assert before.outcome.error.value == 'CapabilityNotDeclared', before
    assert not ext.outcome.failed and ext.result['capabilities']['streaming'] is True
    assert ext.status == 200
    assert after.outcome.success, after
    assert _ExtendedCard.calls == [('/a2a', 'agent/getAuthenticatedExtendedCard'),
                                   ('/a2a/v2', 'message/stream')]


def test_a_drifting_extended_card_raises_and_the_public_card_stays(extended_agent: str,
                                                                   opts: dict[str, Any]) -> None:
    _ExtendedCard.drift = True
    with Client(extended_agent, **opts) as c:
        with pytest.raises(a2a_core.CardError) as refused:
            c.extended_card()
        assert refused.value.code == 710, refused.value  # A2A_CARD_HOST_MISMATCH
        _, end = split(list(c.stream('echo hi')))
    o = end.outcome
    assert o.error is not None and o.error.value == 'CapabilityNotDeclared', o
    assert _ExtendedCard.calls == [('/a2a', 'agent/getAuthenticatedExtendedCard')]


def test_calls_the_card_does_not_declare_are_refused_unsent(no_caps_agent: str,
                                                           opts: dict[str, Any]) -> None:
    def calls(**kw: Any) -> list[Outcome | None]:
        with Client(no_caps_agent, **opts, **kw) as c:
            pushed = c.set_push_config('t-1', 'https://hooks.example/x')
            got = c.get_push_config('t-1', 'c1')
            listed = c.list_push_configs('t-1')
            deleted = c.delete_push_config('t-1', 'c1')
            try:
                extended: Outcome | None = c.extended_card().outcome
            except a2a_core.CardError:
                # With the check off this agent answers a task, which is no card to adopt.
                assert kw.get('ignore_capabilities')
                extended = None
            return [pushed.outcome, got.outcome, listed.outcome, deleted.outcome, extended]

    outcomes = calls()
    wanted = ['capabilities.pushNotifications'] * 4 + ['supportsAuthenticatedExtendedCard']
    for o, capability in zip(outcomes, wanted, strict=True):
        assert o is not None
        assert o.channel.value == 'transport' and o.error.value == 'CapabilityNotDeclared', o
        assert o.request_sent.value == 'no' and o.retry.value == 'never' and not o.success
        assert capability in (o.message or ''), o.message
    assert _NoCapabilities.calls == [], 'nothing reached the agent'
    # The opt-out sends them: they reach the agent.
    calls(ignore_capabilities=True)
    assert len(_NoCapabilities.calls) == 5, _NoCapabilities.calls


# --- every method in both versions and both bindings ---------------------------------------


class _Everything(http.server.BaseHTTPRequestHandler):
    """An agent that records every request (HTTP method, path, JSON-RPC method and params or
    body) and answers each with a fixed result: a push config, a list of them, a page of
    tasks (with a next token until the third page), an empty object for a delete."""

    protocol_version = 'HTTP/1.1'
    seen: list[tuple[str, str, str | None, Any]] = []
    lock = threading.Lock()

    def log_message(self, *args: Any) -> None:
        pass

    def _reply(self, result: Any, rpc_id: Any) -> None:
        doc = result if rpc_id is None else {'jsonrpc': '2.0', 'id': rpc_id, 'result': result}
        body = json.dumps(doc).encode()
        self.send_response(200)
        self.send_header('content-type', 'application/json')
        self.send_header('content-length', str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _answer(self) -> None:
        n = int(self.headers.get('content-length') or 0)
        raw = self.rfile.read(n) if n else b''
        doc = json.loads(raw) if raw else None
        rpc = isinstance(doc, dict) and doc.get('jsonrpc') == '2.0'
        method = doc['method'] if rpc else None
        params = doc.get('params') if rpc else doc
        with self.lock:
            type(self).seen.append((self.command, self.path, method, params))
        name = (method or self.path.split('?')[0]).lower()
        config = {'taskId': 't-1', 'id': 'c1', 'url': 'https://hooks.example/x'}
        if 'push' in name and (self.command == 'DELETE' or 'delete' in name):
            result: Any = {}
        elif 'push' in name and ('list' in name or (
                self.command == 'GET' and name.endswith('pushnotificationconfigs'))):
            result = {'configs': [config]}
        elif 'push' in name:
            result = config
        elif 'card' in name:
            result = {'name': 'everything'}
        else:  # ListTasks: three pages
            token = (params or {}).get('pageToken') if rpc else (
                self.path.split('pageToken=')[1].split('&')[0]
                if 'pageToken=' in self.path else None)
            page = int(token or 0)
            result = {'tasks': [{'id': f't-{page}', 'contextId': 'c',
                                 'status': {'state': 'TASK_STATE_COMPLETED'}}],
                      'nextPageToken': str(page + 1) if page < 2 else '',
                      'pageSize': 1, 'totalSize': 3}
        self._reply(result, doc.get('id') if rpc else None)

    do_GET = do_POST = do_DELETE = _answer  # noqa: N815


@pytest.fixture(scope='module')
def everything() -> Iterator[str]:
    srv = http.server.ThreadingHTTPServer(('127.0.0.1', 0), _Everything)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        yield f'http://127.0.0.1:{srv.server_address[1]}/'
    finally:
        srv.shutdown()
        srv.server_close()


#: The JSON-RPC method names the machine writes for each call, by version.
JSONRPC = {
    '1.0': ['CreateTaskPushNotificationConfig', 'GetTaskPushNotificationConfig',
            'ListTaskPushNotificationConfigs', 'DeleteTaskPushNotificationConfig',
            'GetExtendedAgentCard'],
    '0.3': ['tasks/pushNotificationConfig/set', 'tasks/pushNotificationConfig/get',
            'tasks/pushNotificationConfig/list', 'tasks/pushNotificationConfig/delete',
            'agent/getAuthenticatedExtendedCard'],
}


def _push_calls(c: Client) -> list[CallResult]:
    return [c.set_push_config('t-1', 'https://hooks.example/x', config_id='c1', token='tok'),
            c.get_push_config('t-1', 'c1', timeout=5.0), c.list_push_configs('t-1'),
            c.delete_push_config('t-1', 'c1', headers={'X-Trace': 'yes'}),
            c.extended_card(timeout=5.0)]


@pytest.mark.parametrize('version', ['1.0', '0.3'])
@pytest.mark.parametrize('binding', ['jsonrpc', 'http+json'])
def test_every_method_in_both_versions_and_bindings(everything: str, opts: dict[str, Any],
                                                    version: str, binding: str) -> None:
    _Everything.seen = []
    with Client.with_target(everything, version, binding, **opts) as c:
        results = _push_calls(c)
        pages_it = c.list_tasks(page_size=1, status='TASK_STATE_COMPLETED')
        assert len(_Everything.seen) == 5, 'list_tasks calls nothing before a page is asked'
        first = next(pages_it)  # 0.3 has no ListTasks: the page fails unsent
        assert len(_Everything.seen) == (6 if version == '1.0' else 5)
        pages = [first, *pages_it] if version == '1.0' else [first]
    for r in results:
        assert not r.outcome.failed and r.status == 200, r.outcome
    assert results[0].result['id'] == 'c1' and results[1].result['url'].startswith('https')
    assert results[2].result['configs'][0]['id'] == 'c1'
    assert results[4].result == {'name': 'everything'}
    seen = _Everything.seen
    if binding == 'jsonrpc':
        assert [s[2] for s in seen[:5]] == JSONRPC[version]
        assert all(s[0] == 'POST' for s in seen)
        created = seen[0][3]
        assert 'c1' in json.dumps(created) and 'tok' in json.dumps(created)
        for get_or_delete in (seen[1][3], seen[3][3]):  # the task and the config named
            assert 't-1' in json.dumps(get_or_delete) and 'c1' in json.dumps(get_or_delete)
    else:
        verbs = [s[0] for s in seen[:5]]
        assert verbs == ['POST', 'GET', 'GET', 'DELETE', 'GET'], seen
        assert all('/tasks/t-1/pushNotificationConfigs' in s[1] for s in seen[:4]), seen
        assert seen[1][1].endswith('/pushNotificationConfigs/c1'), seen[1]
        assert seen[3][1].endswith('/pushNotificationConfigs/c1'), seen[3]
        assert 'https://hooks.example/x' in json.dumps(seen[0][3])
    if version == '1.0':
        assert [[t['id'] for t in p.tasks] for p in pages] == [['t-0'], ['t-1'], ['t-2']]
        assert [p.next_page_token for p in pages] == ['1', '2', None]
        assert len(seen) == 8  # one call per page
    else:  # no ListTasks in 0.3: one failed page, nothing sent
        assert pages[0].outcome.failed and pages[0].tasks == () and len(seen) == 5


def test_closed_client_and_bad_arguments(everything: str, opts: dict[str, Any]) -> None:
    c = Client.with_target(everything, '1.0', 'jsonrpc', **opts)
    with pytest.raises(ValueError):
        c.get_push_config('t-1', 'c1', timeout=0)
    with pytest.raises(ValueError):
        c.list_tasks(history_length=-1)
    c.close()
    with pytest.raises(a2a_core.ClosedError):
        c.set_push_config('t-1', 'https://hooks.example/x')
    with pytest.raises(a2a_core.ClosedError):
        next(c.list_tasks())
    with pytest.raises(a2a_core.ClosedError):
        c.extended_card()


# --- the real Python a2a-sdk server keeping push configs, with an extended card -------------


@pytest.fixture(scope='module')
def push_peer() -> Iterator[Peer]:
    with peer('python', '--push') as p:
        yield p


def _config(result: Any) -> dict[str, Any]:
    """A push config as the agent wrote it (1.0 flat, 0.3 under `pushNotificationConfig`)."""
    assert isinstance(result, dict), result
    return result.get('pushNotificationConfig', result)  # type: ignore[no-any-return]


def _configs(result: Any) -> list[Any]:
    """A list of push configs (1.0 `configs`, omitted when empty; 0.3 JSON-RPC a list)."""
    return result if isinstance(result, list) else (result or {}).get('configs', [])


TARGETS = [('1.0', 'jsonrpc', '/'), ('1.0', 'http+json', '/rest'), ('0.3', 'jsonrpc', '/'),
           ('0.3', 'http+json', '/rest')]


@pytest.mark.parametrize(('version', 'binding', 'path'), TARGETS)
def test_push_configs_round_trip_on_the_sdk_peer(push_peer: Peer, opts: dict[str, Any],
                                                version: str, binding: str, path: str) -> None:
    with Client.with_target(push_peer.url + path, version, binding, **opts) as c:
        task_id = c.send('echo push').task_id
        made = c.set_push_config(task_id, 'https://hooks.example/x', config_id='c1',
                                 token='tok')
        got = c.get_push_config(task_id, 'c1')
        listed = c.list_push_configs(task_id)
        deleted = c.delete_push_config(task_id, 'c1')
        after = c.list_push_configs(task_id)
        missing = c.get_push_config('no-such-task', 'c1')
    for r in (made, got, listed):
        assert not r.outcome.failed and r.status == 200, r.outcome
    for r in (made, got):
        assert _config(r.result) == {'id': 'c1', 'url': 'https://hooks.example/x',
                                     'token': 'tok', **({'taskId': task_id}
                                                        if version == '1.0' else {})}
    assert [_config(x)['id'] for x in _configs(listed.result)] == ['c1']
    assert missing.outcome.failed and missing.result is None
    if (version, binding) == ('0.3', 'http+json'):
        # The a2a-sdk's 0.3 HTTP+JSON routes have no DELETE for a push config: refused,
        # and the config stays.
        assert deleted.outcome.failed and deleted.status == 400, deleted.outcome
        assert [_config(x)['id'] for x in _configs(after.result)] == ['c1']
        return
    if (version, binding) == ('0.3', 'jsonrpc'):
        # The a2a-sdk's 0.3 JSON-RPC reply to a delete has neither `result` nor `error`
        # (JSON-RPC 2.0 wants `result`, 0.3 says null): a malformed outcome, though the
        # config is gone.
        assert deleted.outcome.channel.value == 'malformed', deleted.outcome
        assert 'neither result nor error' in (deleted.outcome.message or '')
    else:
        assert not deleted.outcome.failed and deleted.status == 200, deleted.outcome
    assert not after.outcome.failed and _configs(after.result) == []


@pytest.mark.parametrize(('version', 'binding', 'path'), TARGETS)
def test_the_sdk_peers_extended_card(push_peer: Peer, opts: dict[str, Any], version: str,
                                     binding: str, path: str) -> None:
    with Client.with_target(push_peer.url + path, version, binding, **opts) as c:
        r = c.extended_card(timeout=10.0)
    assert not r.outcome.failed and r.status == 200, r.outcome
    assert [s['id'] for s in r.result['skills']] == ['deterministic', 'extended']


def test_the_sdk_peers_extended_card_is_adopted_from_its_card(push_peer: Peer,
                                                              opts: dict[str, Any]) -> None:
    with Client(push_peer.url, **opts) as c:
        r = c.extended_card()
        assert not r.outcome.failed and r.result['name'] == 'py-deterministic-peer'
        assert 'extended' in [s['id'] for s in r.result['skills']]
        # the client goes on working on the extended card's interface
        o = c.send('echo after the extended card')
        assert o.success and o.result.text == 'after the extended card', o


@pytest.mark.parametrize(('version', 'binding', 'path'), TARGETS)
def test_the_async_client_gets_the_same_results(push_peer: Peer, opts: dict[str, Any],
                                                version: str, binding: str, path: str) -> None:
    """AsyncClient and the blocking Client (this delegate) on the same calls of the same
    agent: the same statuses, channels and results (the task ids aside)."""

    def seen(rs: list[CallResult], task_id: str) -> list[Any]:
        return [(r.status, r.outcome.channel.value,
                 json.dumps(r.result, sort_keys=True).replace(task_id, '<task>'))
                for r in rs]

    with Client.with_target(push_peer.url + path, version, binding, **opts) as c:
        t = c.send('echo same').task_id
        blocking = seen([c.set_push_config(t, 'https://hooks.example/y', config_id='c2'),
                         c.get_push_config(t, 'c2'), c.list_push_configs(t),
                         c.extended_card()], t)

    async def main() -> list[Any]:
        async with a2a_core.AsyncClient.with_target(push_peer.url + path, version, binding,
                                                     allow_http=True, **FAST_SYNC) as ac:
            t = (await ac.send('echo same')).task_id
            return seen([await ac.set_push_config(t, 'https://hooks.example/y',
                                                  config_id='c2'),
                         await ac.get_push_config(t, 'c2'), await ac.list_push_configs(t),
                         await ac.extended_card()], t)

    assert asyncio.run(main()) == blocking
    assert all(s[0] == 200 for s in blocking), blocking
