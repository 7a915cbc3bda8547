"""bindings/fixtures/cards.json through AgentCard.resolve: the chosen interface (url,
version, binding, tenant, where it was declared) or the error kind. The `credentials`
column is not checked: the C ABI does not export the card's security requirements yet."""

from __future__ import annotations

import json
from typing import Any

import pytest
from conftest import load

from a2a_core import AgentCard, CardError, card_location, validate_interface_url

CASES = load('cards.json')['cases']


def test_fixture_is_substantial() -> None:
    assert len(CASES) >= 40
    assert all(c.get('source') for c in CASES)
    assert any('error' in c['expect'] for c in CASES)


@pytest.mark.parametrize('case', CASES, ids=[c['name'] for c in CASES])
def test_case(case: dict[str, Any]) -> None:
    prefs, pol, want = case['preferences'], case['policy'], case['expect']
    try:
        card = AgentCard(json.dumps(case['card']))
        got = card.resolve(
            case['card_url'], prefs['versions'], prefs['bindings'], prefs['order'],
            allow_http=pol['allow_http'], allowed_origins=pol['allowed_origins'],
        )
    except CardError as e:
        assert 'error' in want, f'{case["name"]}: unexpected {e.kind}: {e}'
        assert e.kind == want['error'], str(e)
        assert e.message  # the library's explanation
        return
    assert 'error' not in want, f'{case["name"]}: chose {got.choice.url}, want {want["error"]}'
    c = got.choice
    assert c.url == want['url']
    assert c.version == want['version']
    assert c.binding == want['binding']
    assert c.tenant == want['tenant']
    if 'origin' in want:
        assert c.origin == want['origin']
    assert c.explanation.startswith('chose ')
    assert card.info.interfaces[c.index].url == c.url


def test_location_and_validation() -> None:
    assert card_location('https://agent.example.com/a2a') == (
        'https://agent.example.com/a2a/.well-known/agent-card.json',
        'https://agent.example.com/a2a/.well-known/agent.json',
    )
    card_url = 'https://agent.example.com/.well-known/agent-card.json'
    assert validate_interface_url('https://agent.example.com/rpc', card_url)
    assert not validate_interface_url('https://api.example.com/rpc', card_url,
                                      allowed_origins=['https://api.example.com'])
    with pytest.raises(CardError) as e:
        validate_interface_url('https://evil.example.net/rpc', card_url)
    assert e.value.kind == 'host_mismatch'
    with pytest.raises(CardError) as e2:
        AgentCard('{"name": ')
    assert e2.value.kind == 'json'
