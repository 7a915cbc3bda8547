"""bindings/fixtures/requests.json through build_request: method, path, header set
(order-free, names case-insensitive) and body (as JSON values) of every case; plus the
method names, the text builder and typed refusals."""

from __future__ import annotations

import json
from typing import Any

import pytest
from conftest import load

from a2a_core import (
    Method,
    RequestError,
    build_request,
    build_text_request,
    classify,
    method_from_jsonrpc_name,
)

CASES = load('requests.json')['cases']


def test_fixture_is_substantial() -> None:
    assert len(CASES) >= 40
    assert {c['call']['method'] for c in CASES} == {m.value for m in Method}
    assert all(c.get('source') for c in CASES)


@pytest.mark.parametrize('case', CASES, ids=[c['name'] for c in CASES])
def test_case(case: dict[str, Any]) -> None:
    iface, call, want = case['interface'], case['call'], case['expect']
    r = build_request(
        call['method'], call.get('params'), version=iface['version'],
        binding=iface['binding'], tenant=iface.get('tenant'), id=case.get('id'),
        extensions=case.get('extensions', []), headers=[tuple(h) for h in case.get('headers', [])],
    )
    assert r.http_method == want['method']
    assert r.path == want['path']
    got_headers = sorted((n.lower(), v) for n, v in r.headers)
    assert got_headers == sorted((n.lower(), v) for n, v in want['headers'])
    if want['body'] is None:
        assert r.body == b''
    else:
        assert json.loads(r.body) == want['body']
    assert r.method == call['method']
    if iface['binding'] == 'JSONRPC':
        assert r.rpc_id == str(case['id'])
    else:
        assert r.rpc_id is None


def test_method_names_both_ways() -> None:
    for m in Method:
        assert m.jsonrpc_name('1.0') == m.value
        assert method_from_jsonrpc_name(m.value) == (m, '1.0')
        name03 = m.jsonrpc_name('0.3')
        if name03 is not None:
            assert method_from_jsonrpc_name(name03) == (m, '0.3')
    assert Method.LIST_TASKS.jsonrpc_name('0.3') is None
    assert method_from_jsonrpc_name('tasks/explode') is None
    # a JSON-RPC name of either version is accepted by the builder too
    r = build_request('tasks/get', {'id': 't'}, version='0.3', binding='jsonrpc', id='q')
    assert r.json() == {'jsonrpc': '2.0', 'id': 'q', 'method': 'tasks/get', 'params': {'id': 't'}}


def test_text_request_round_trips_through_classify() -> None:
    r = build_text_request('m-1', 'hi', version='1.0', binding='jsonrpc', id=9)
    assert r.json()['params']['message']['messageId'] == 'm-1'
    assert ('A2A-Version', '1.0') in r.headers
    reply = ('{"jsonrpc":"2.0","id":9,"result":{"message":{"messageId":"a","role":"ROLE_AGENT",'
             '"parts":[{"text":"hello"}]}}}')
    o = classify(200, reply, 'application/json', '1.0', 'jsonrpc', r.method.value, r.rpc_id)
    assert o.channel == 'message' and o.text == 'hello'


def test_refusals_are_typed() -> None:
    with pytest.raises(RequestError) as e:
        build_request('ListTasks', {}, version='0.3', binding='jsonrpc', id=1)
    assert e.value.name == 'A2A_REQUEST_NOT_IN_VERSION' and e.value.message
    with pytest.raises(RequestError) as e2:
        build_request('GetTask', {'id': 't'}, version='1.0', binding='jsonrpc')
    assert e2.value.name == 'A2A_REQUEST_MISSING_ID'
    with pytest.raises(RequestError):
        build_request('GetTask', '{not json', version='1.0', binding='http+json')
    with pytest.raises(RequestError):
        build_text_request('m', 'x', version='1.0', binding='jsonrpc', id=1,
                           headers=[('X-Evil', 'a\r\nInjected: 1')])
