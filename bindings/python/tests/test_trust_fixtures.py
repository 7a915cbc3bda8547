"""Every case of bindings/fixtures/trust/cases.json (the set every language runs) through
`a2a_core.trust`: cards verified (signed by the Python a2a-sdk's signer and by the core;
tampered, wrong key, another signer's keys, unsigned, keys that are not keys), the `jku` to
fetch, push notifications step by step on one verifier with each step's clock (token and
JWT: accepted, replayed, expired, wrong task, wrong audience, wrong key, missing), and the
webhook checks; each with the typed error or verdict its `expect` and `reason` name."""

from __future__ import annotations

import json
from typing import Any

import pytest
from conftest import FIXTURES

from a2a_core import errors
from a2a_core.trust import (
    PushVerifier,
    TrustError,
    card_key_url,
    check_webhook_url,
    verify_card,
)

TRUST = FIXTURES / 'trust'
CASES = json.loads((TRUST / 'cases.json').read_text(encoding='utf-8'))


def read(name: str) -> bytes:
    return (TRUST / name).read_bytes()


def test_the_codes_are_the_library_s() -> None:
    for name, code in CASES['codes'].items():
        assert errors.RESULT_NAMES[code] == name


@pytest.mark.parametrize('case', CASES['cards'], ids=lambda c: c['name'])
def test_card(case: dict[str, Any]) -> None:
    card, keys = read(case['card']), read(case['keys'])
    if case['expect'] == 'A2A_OK':
        v = verify_card(card, keys)
        assert (v.alg, v.kid) == (case['alg'], case['kid'])
        if 'jku' in case:  # (a case without it does not say)
            assert v.jku == case['jku']
        return
    with pytest.raises(TrustError) as e:
        verify_card(card, keys)
    assert e.value.name == case['expect'] and e.value.reason == case['reason']
    if 'rejected' in case:
        assert [s.rejected for s in e.value.signatures] == case['rejected']


@pytest.mark.parametrize('case', CASES['key_urls'], ids=lambda c: c['name'])
def test_key_url(case: dict[str, Any]) -> None:
    card = read(case['card'])
    hosts = [h for h in case['extra_hosts'].split(',') if h]
    if case['expect'] == 'A2A_OK':
        assert card_key_url(card, case['card_url'], hosts) == case['url']
    elif case['expect'] == 'A2A_NONE':
        assert card_key_url(card, case['card_url'], hosts) is None
    else:
        with pytest.raises(TrustError) as e:
            card_key_url(card, case['card_url'], hosts)
        assert e.value.name == case['expect'] and e.value.reason == case['reason']


_POLICY = {'token': 'token', 'audience': 'audience', 'issuer': 'issuer', 'taskId': 'task_id',
           'skewSecs': 'skew', 'maxAgeSecs': 'max_age'}


@pytest.mark.parametrize('case', CASES['push'], ids=lambda c: c['name'])
def test_push(case: dict[str, Any]) -> None:
    kw = {_POLICY[k]: v for k, v in case['policy'].items()}
    keys = read(case['keys']) if case['keys'] else None
    with PushVerifier(keys=keys, **kw) as v:
        for i, step in enumerate(case['steps']):
            body = json.dumps(step['body'], separators=(',', ':'))
            verdict = v.check([tuple(h) for h in step['headers']], body, now=step['now'])
            assert verdict.accepted == (step['expect'] == 'A2A_OK'), (i, verdict)
            assert verdict.reason == step['reason'], (i, verdict)
            if verdict.accepted:
                assert verdict.task_id == case['policy'].get('taskId', verdict.task_id)


@pytest.mark.parametrize('case', CASES['webhooks'], ids=lambda c: f"{c['url']} {c['resolved']}")
def test_webhook(case: dict[str, Any]) -> None:
    resolved = [a for a in case['resolved'].split(',') if a]
    if case['expect'] == 'A2A_OK':
        assert check_webhook_url(case['url'], allow_http=case['allow_http'],
                                 resolved=resolved) is None
        return
    with pytest.raises(TrustError) as e:
        check_webhook_url(case['url'], allow_http=case['allow_http'], resolved=resolved)
    assert e.value.name == case['expect'] and e.value.reason == case['reason']
