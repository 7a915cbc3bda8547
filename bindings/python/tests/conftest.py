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
    """An outcome row's body: `body` (UTF-8 text), `body_base64`, or `body_repeat`
    (head + fill * count + tail, for bodies too large to write out)."""
    if 'body_base64' in inp:
        return base64.b64decode(inp['body_base64'])
    if 'body_repeat' in inp:
        r = inp['body_repeat']
        return (r['head'] + r['fill'] * r['count'] + r['tail']).encode('utf-8')
    return inp['body'].encode('utf-8')
