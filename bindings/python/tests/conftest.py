"""Shared helpers: the conformance fixtures of bindings/fixtures/ (read from the repository
this test suite lives in; no other path is read)."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[3]
FIXTURES = REPO / 'bindings' / 'fixtures'


def load(name: str) -> Any:
    """One fixture file, parsed."""
    return json.loads((FIXTURES / name).read_text(encoding='utf-8'))


def body_of(inp: dict[str, Any]) -> bytes:
    """An outcome row's body: `body` (UTF-8 text) or `body_base64`."""
    if 'body_base64' in inp:
        return base64.b64decode(inp['body_base64'])
    return inp['body'].encode('utf-8')
