"""Issue 8 through the binding: the idempotency golden vectors of
bindings/fixtures/idempotency.json, the model_prefix and breaker columns of every
outcomes.json row, and the breaker configuration the client machine refuses. (Retries,
resubscribes and the breaker run inside the machine: tested through the clients, the core,
the C ABI and its C tests.)"""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from conftest import body_of, load
from test_outcomes_fixtures import ROWS, run

import a2a_core
from a2a_core import (
    BreakerConfig,
    Client,
    ConfigError,
    KeyInputError,
    Outcome,
    classify,
    counts_toward_breaker,
    derive_idempotency_key,
    derive_message_id,
    model_prefix,
    model_text,
)

IDEM = load('idempotency.json')


def parts_of(case: dict[str, Any]) -> list[bytes]:
    if 'parts_hex' in case:
        return [bytes.fromhex(p) for p in case['parts_hex']]
    return [p.encode('utf-8') for p in case['parts']]


@pytest.mark.parametrize('case', IDEM['cases'], ids=[c['id'] for c in IDEM['cases']])
def test_idempotency_golden_vector(case: dict[str, Any]) -> None:
    parts = parts_of(case)
    assert derive_idempotency_key(*parts) == case['idempotency_key']
    assert derive_message_id(*parts) == case['message_id']
    if 'parts' in case:  # str parts are their UTF-8 bytes
        assert derive_idempotency_key(*case['parts']) == case['idempotency_key']


@pytest.mark.parametrize('parts', IDEM['empty_input']['parts'])
def test_idempotency_empty_input_is_refused(parts: list[str]) -> None:
    with pytest.raises(KeyInputError) as e:
        derive_idempotency_key(*parts)
    assert e.value.name == 'A2A_KEY_EMPTY_INPUT'
    with pytest.raises(KeyInputError):
        derive_message_id(*parts)


@pytest.mark.parametrize('row', ROWS, ids=[r['id'] for r in ROWS])
def test_row_model_prefix_and_breaker(row: dict[str, Any]) -> None:
    o = run(row)
    assert model_prefix(o) == row['model_prefix'], row['id']
    assert counts_toward_breaker(o) == row['breaker'], row['id']
    line = model_text('booking', o)
    if row['model_prefix'] is None:
        assert line is None
    else:
        assert line is not None and line.startswith(row['model_prefix'] + ' booking')
        assert '\n' not in line


RESEND_ROWS = [r for r in ROWS if 'resend' in r]


def machine_resends(inp: dict[str, Any], key: str | None) -> bool:
    """Whether the client machine sends a SendMessage again (with retries allowed) after its
    first request met the row's response or transport failure; sans-IO, nothing is sent."""
    from a2a_core import _machine

    config = _machine.Config(allow_http=True, send_retries=2, stream_resubscribes=0)
    state = _machine.State.for_target(config, 'http://agent.test/a2a', 2, 1, 1)  # 1.0 JSON-RPC
    call = _machine.Call.new_text(state, False, 'row', _machine.Settings(idempotency_key=key), 1)
    t = call.poll_transmit(1)
    assert t is not None
    rid = int(t.request_id)
    if 'transport' in inp:
        tr = inp['transport']
        error = {'ConnectFailed': _machine.ERR_CONNECT_FAILED, 'Timeout': _machine.ERR_TIMEOUT,
                 'Reset': _machine.ERR_RESET}[tr['error']]
        call.handle_failure(rid, error, tr['request_sent'] != 'no', tr['message'], 2)
    else:
        headers = [(b'Content-Type', inp['content_type'].encode())]
        headers += [(k.encode(), v.encode()) for k, v in (inp.get('headers') or {}).items()]
        call.handle_head(rid, inp['status'], headers, 2)
        call.handle_body(rid, body_of(inp), 2)
        call.handle_end(rid, 2)
    while (ev := call.poll_event()) is not None:
        if ev.kind == _machine.EVENT_RETRYING:
            return True
        if ev.kind == _machine.EVENT_FINISHED:
            return False
    # waiting for the retry's delay: a resend
    return call.poll_timeout() is not None


@pytest.mark.parametrize('row', RESEND_ROWS, ids=[r['id'] for r in RESEND_ROWS])
def test_row_resend_column(row: dict[str, Any]) -> None:
    # Issue 12: a send is resent without a key only after proof of non-receipt.
    for col, key in (('without_key', None), ('with_key', 'key-1')):
        got = machine_resends(row['input'], key)
        assert got == row['resend'][col], f'{row["id"]}: {col}: resent {got}'


def test_resend_rows_cover_every_gateway_status() -> None:
    statuses = {r['input'].get('status') for r in RESEND_ROWS}
    assert {408, 429, 500, 502, 503, 504} <= statuses


def test_model_text_gateway_error_on_a_send_is_unknown() -> None:
    o = classify(502, b'<html><title>502 Bad Gateway</title></html>', 'text/html',
                 method='SendMessage')
    assert o.retry == 'unknown_outcome'
    line = model_text('booking', o)
    assert line is not None and line.startswith('REMOTE_UNKNOWN booking: HTTP 502')
    assert line.endswith('the outcome is unknown')
    assert 'do not send the same request again yourself' in a2a_core.MODEL_INSTRUCTION


def test_model_text_transport_wording() -> None:
    unknown = model_text('booking', Outcome.transport('Timeout', 'unknown', 'read timed out'))
    assert unknown is not None and unknown.startswith('REMOTE_UNKNOWN booking: ')
    assert 'may or may not' in unknown
    refused = model_text('booking', Outcome.transport('ConnectFailed', 'no', 'refused'))
    assert refused is not None and refused.startswith('REMOTE_UNAVAILABLE booking: ')
    assert 'REMOTE_' in a2a_core.MODEL_INSTRUCTION


def test_protocol_errors_do_not_count_toward_the_breaker() -> None:
    err = classify(200, b'{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"no"}}',
                   'application/json', '0.3', 'jsonrpc', 'tasks/get', 1)
    assert not counts_toward_breaker(err)


def test_bad_breaker_configs_raise_typed_errors() -> None:
    # The machine's config builder refuses a breaker it could not run (no trial call); no
    # request is made.
    with httpx.Client() as h, pytest.raises(ConfigError) as e:
        Client.with_target('http://127.0.0.1:1/a2a', '1.0', 'jsonrpc', allow_http=True,
                           breaker=BreakerConfig(half_open_trials=0), http_client=h)
    assert e.value.name.startswith('A2A_CONFIG_'), e.value.name
    with pytest.raises(TypeError):
        BreakerConfig(nonsense=1)
