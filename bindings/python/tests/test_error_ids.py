"""bindings/fixtures/error_ids.json through extract_error_id."""

from __future__ import annotations

from typing import Any

import pytest
from conftest import load

from a2a_core import extract_error_id

CASES = load('error_ids.json')['cases']


def test_fixture_is_substantial() -> None:
    assert len(CASES) >= 10
    assert any(c['expect'] is None for c in CASES)
    assert any(c['expect'] is not None for c in CASES)


@pytest.mark.parametrize('case', CASES, ids=[f'{i}' for i in range(len(CASES))])
def test_case(case: dict[str, Any]) -> None:
    assert extract_error_id(case['text']) == case['expect'], case['source']
