"""Issue 8 through the binding: the idempotency golden vectors of
bindings/fixtures/idempotency.json, the model_prefix and breaker columns of every
outcomes.json row, and the policy and breaker driven with a simulated clock."""

from __future__ import annotations

from typing import Any

import pytest
from conftest import load
from test_outcomes_fixtures import ROWS, run

import a2a_core
from a2a_core import (
    Breaker,
    BreakerConfig,
    ConfigError,
    KeyInputError,
    Outcome,
    RetryConfig,
    RetryPolicy,
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


@pytest.mark.parametrize('row', RESEND_ROWS, ids=[r['id'] for r in RESEND_ROWS])
def test_row_resend_column(row: dict[str, Any]) -> None:
    # Issue 12: a send is resent without a key only after proof of non-receipt.
    o = run(row)
    for col, kind in (('without_key', 'side_effecting'), ('with_key', 'with_idempotency_key')):
        p = RetryPolicy(RetryConfig(kind, max_attempts=3, max_follow_ups=0), now_ms=0)
        a = p.next(o, now_ms=1, random_bits=0)
        assert (a.kind == 'retry_after') == row['resend'][col], f'{row["id"]}: {col} {a}'
        if a.kind == 'retry_after':
            assert a.message_id == 'keep' and a.idempotency_key == 'keep'


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


def test_policy_never_resends_a_side_effect_after_unknown_outcome() -> None:
    p = RetryPolicy(RetryConfig('side_effecting'), now_ms=0, rng=lambda: 0)
    p.begin_attempt(0)
    a = p.next(Outcome.transport('Reset', 'unknown', 'connection reset'), now_ms=10)
    assert a.kind == 'give_up' and a.give_up == 'unknown_outcome_without_key'
    assert a.give_up_text and 'idempotency key' in a.give_up_text
    assert p.is_finished


def test_policy_retries_with_a_key_keeping_ids_and_backoff_under_the_cap() -> None:
    cfg = RetryConfig('with_idempotency_key', max_attempts=3, base_delay_ms=100,
                      max_delay_ms=150)
    p = RetryPolicy(cfg, now_ms=0)
    delays = []
    for i in range(2):
        p.begin_attempt(i * 1000)
        a = p.next(Outcome.transport('Reset', 'unknown', 'reset'), now_ms=i * 1000 + 5,
                   random_bits=2**64 - 1)
        assert a.kind == 'retry_after'
        assert a.message_id == 'keep' and a.idempotency_key == 'keep'
        assert a.jsonrpc_id == 'new'
        assert a.delay_ms is not None
        delays.append(a.delay_ms)
    assert all(0 <= d <= 150 for d in delays)
    p.begin_attempt(5000)
    last = p.next(Outcome.transport('Reset', 'unknown', 'reset'), now_ms=5005)
    assert last.kind == 'give_up' and last.give_up == 'attempts_exhausted'
    assert p.attempts == 3


def test_policy_honours_the_deadline() -> None:
    p = RetryPolicy(RetryConfig('read', max_attempts=5, deadline_ms=1000), now_ms=0)
    p.begin_attempt(0)
    slow = classify(503, b'busy', 'text/plain', headers={'Retry-After': '30'})
    a = p.next(slow, now_ms=100)
    assert a.kind == 'give_up' and a.give_up == 'retry_after_beyond_deadline'
    assert p.remaining(now_ms=400) == 600


def test_policy_resubscribes_a_truncated_stream() -> None:
    t = a2a_core.StreamTracker('0.3', 'jsonrpc', 'message/stream', 1, now_ms=0)
    t.on_event('{"jsonrpc":"2.0","id":1,"result":{"kind":"task","id":"t-9","contextId":"c",'
               '"status":{"state":"working"}}}', now_ms=1)
    end = t.finish()
    p = RetryPolicy(RetryConfig('side_effecting'), now_ms=0)
    p.begin_attempt(0)
    a = p.next(end.outcome, now_ms=2)
    assert a.kind == 'resubscribe' and a.task_id == 't-9'


def test_breaker_opens_refuses_and_half_opens() -> None:
    now = [0]
    b = Breaker('planner', BreakerConfig(failure_threshold=2, failure_rate_percent=0,
                                         cool_down_ms=1000, half_open_trials=1),
                clock=lambda: now[0])
    assert b.agent == 'planner' and b.state() == 'closed'
    fail = Outcome.transport('ConnectFailed', 'no', 'refused')
    for _ in range(2):
        assert b.allow()
        b.record(fail)
    assert b.state() == 'open' and not b.allow()
    refusal = b.refusal()
    assert refusal.channel == 'transport' and refusal.error == 'CircuitOpen'
    assert refusal.request_sent == 'no'
    assert model_prefix(refusal) == 'REMOTE_UNAVAILABLE'
    snap = b.snapshot()
    assert snap.state == 'open' and snap.half_open_at_ms == 1000 and snap.refused == 1
    now[0] = 1000
    assert b.state() == 'half_open'
    assert b.allow() and not b.allow()  # one trial only
    b.record_result(False)
    assert b.state() == 'closed'
    assert b.snapshot().times_opened == 1
    # record_result(True) is a counted failure: two of them open it again.
    for _ in range(2):
        assert b.allow()
        b.record_result(True)
    assert b.state() == 'open' and b.snapshot().times_opened == 2
    b.reset()


def test_protocol_errors_do_not_open_the_breaker() -> None:
    b = Breaker('x', BreakerConfig(failure_threshold=1, failure_rate_percent=0), clock=lambda: 0)
    err = classify(200, b'{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"no"}}',
                   'application/json', '0.3', 'jsonrpc', 'tasks/get', 1)
    assert not counts_toward_breaker(err)
    b.allow()
    b.record(err)
    assert b.state() == 'closed'


def test_bad_configs_raise_typed_errors() -> None:
    with pytest.raises(ConfigError) as e:
        RetryPolicy(RetryConfig(max_attempts=0), now_ms=0)
    assert e.value.name == 'A2A_CONFIG_ZERO_MAX_ATTEMPTS'
    with pytest.raises(ConfigError):
        Breaker('x', BreakerConfig(half_open_trials=0))
    with pytest.raises(TypeError):
        RetryConfig(nonsense=1)
