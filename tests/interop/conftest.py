"""Fixtures for the interop tests: real A2A peers started once per session.

Every peer is started by tests/peers/launch.py on 127.0.0.1 with a free port and stopped
(SIGTERM, then SIGKILL) at the end of the session. The Python peer runs with a 1 s SSE
keep-alive interval so that keep-alive tests are fast.

Fixtures:
    py_peer, js_peer         both protocol versions (1.0 with 0.3 compat), both bindings
    py_peer_v1, js_peer_v1   1.0 only (no 0.3 compat): for version-mismatch tests
    peer                     parametrized over py_peer and js_peer (ids: python, js)
    a2a_bin                  path of the `a2a` binary from $A2A_BIN (skips when unset,
                             fails when unset under CI)
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / 'peers'))

from launch import Peer, peer as launch_peer  # noqa: E402

PING_SECONDS = '1'


def _session_peer(kind: str, *args: str) -> Iterator[Peer]:
    with launch_peer(kind, *args) as p:
        yield p
        if p.proc.poll() is not None:
            pytest.fail(f'{kind} peer died during the session:\n{p.stderr()[-4000:]}')


@pytest.fixture(scope='session')
def py_peer() -> Iterator[Peer]:
    """The Python a2a-sdk peer, both versions, 1 s keep-alives."""
    yield from _session_peer('python', '--ping', PING_SECONDS)


@pytest.fixture(scope='session')
def js_peer() -> Iterator[Peer]:
    """The JS @a2a-js/sdk peer, both versions."""
    yield from _session_peer('js')


@pytest.fixture(scope='session')
def py_peer_v1() -> Iterator[Peer]:
    """The Python peer serving 1.0 only."""
    yield from _session_peer('python', '--version', '1.0', '--ping', PING_SECONDS)


@pytest.fixture(scope='session')
def js_peer_v1() -> Iterator[Peer]:
    """The JS peer serving 1.0 only."""
    yield from _session_peer('js', '--version', '1.0')


@pytest.fixture(params=['python', 'js'])
def peer(request: pytest.FixtureRequest) -> Peer:
    """Each of the two peers in turn (both versions)."""
    return request.getfixturevalue('py_peer' if request.param == 'python' else 'js_peer')


@pytest.fixture(scope='session')
def a2a_bin() -> str:
    """The project's `a2a` binary, as exported by scripts/ci/60-interop.sh."""
    path = os.environ.get('A2A_BIN')
    if not path or not os.access(path, os.X_OK):
        if os.environ.get('CI'):
            pytest.fail('A2A_BIN must name the built a2a binary in CI (scripts/ci/60-interop.sh)')
        pytest.skip('A2A_BIN is not set to an executable (scripts/ci/60-interop.sh sets it)')
    return path
