"""Waiting for a task (`AsyncClient.wait`, `Client.wait` with `http_client=`) on the core's
wait planner through the C ABI, against the real Python a2a-sdk server (tests/peers): a
send with `return_immediately=True` leaves the peer's `slow` task running; the wait polls
it to completion; a short timeout gives up with the typed outcome; cancellation aborts."""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Iterator

import httpx
import pytest
from conftest import REPO

import a2a_core
from a2a_core import AsyncClient

sys.path.insert(0, str(REPO / 'tests' / 'peers'))
from launch import Peer, peer  # noqa: E402

FAST = {'connect_timeout': 3.0, 'timeout': 20.0}
TARGETS = [('1.0', 'jsonrpc', '/'), ('0.3', 'jsonrpc', '/'), ('1.0', 'http+json', '/rest'),
           ('0.3', 'http+json', '/rest')]


@pytest.fixture(scope='module')
def py_peer() -> Iterator[Peer]:
    with peer('python', '--cancel-wait', '30') as p:
        yield p


@pytest.mark.parametrize(('version', 'binding', 'path'), TARGETS)
def test_a_task_sent_with_return_immediately_is_waited_for_until_completed(
        py_peer: Peer, version: str, binding: str, path: str) -> None:
    async def main() -> None:
        async with AsyncClient.with_target(py_peer.url + path, version, binding,
                                           allow_http=True, **FAST) as ac:
            started = time.monotonic()
            sent = await ac.send('slow 1.2', return_immediately=True)
            assert sent.task_id and not sent.terminal, sent
            assert sent.state is not None and sent.state.value in ('submitted', 'working')
            assert time.monotonic() - started < 1.0, 'the send did not wait for the task'
            done = await ac.wait(sent.task_id, poll_interval=0.2, max_interval=0.5,
                                 timeout=20.0)
            assert done.success and done.state.value == 'completed', done
            assert done.task_id == sent.task_id
            assert done.result is not None and done.result.text == 'slept 1.2 s'
            assert time.monotonic() - started >= 1.2

    asyncio.run(main())


def test_a_short_timeout_gives_up_with_a_typed_outcome(py_peer: Peer) -> None:
    async def main() -> None:
        async with AsyncClient.with_target(py_peer.url + '/', '1.0', 'jsonrpc',
                                           allow_http=True, **FAST) as ac:
            sent = await ac.send('slow 5', return_immediately=True)
            assert sent.task_id and not sent.terminal, sent
            started = time.monotonic()
            o = await ac.wait(sent.task_id, poll_interval=0.1, max_interval=0.2, timeout=0.8)
            took = time.monotonic() - started
            assert o.channel.value == 'transport' and o.error.value == 'Timeout', o
            assert o.task_id == sent.task_id
            assert o.state is not None and o.state.value in ('submitted', 'working'), o
            assert o.retry.value == 'poll' and o.exit_code == 3
            assert 'still' in (o.message or '')
            assert o.result is not None and o.result.id == sent.task_id, 'last poll kept'
            assert 0.5 <= took < 3.0, took

    asyncio.run(main())


def test_an_unknown_task_ends_the_wait_with_task_not_found(py_peer: Peer) -> None:
    async def main() -> None:
        async with AsyncClient.with_target(py_peer.url + '/', '1.0', 'jsonrpc',
                                           allow_http=True, **FAST) as ac:
            o = await ac.wait('no-such-task', poll_interval=0.1, timeout=10.0)
            assert o.error is not None and o.error.value == 'TaskNotFound', o
            with pytest.raises(ValueError):
                await ac.wait('t', poll_interval=2.0, max_interval=1.0)

    asyncio.run(main())


def test_input_required_stops_the_wait(py_peer: Peer) -> None:
    async def main() -> None:
        async with AsyncClient.with_target(py_peer.url + '/', '1.0', 'jsonrpc',
                                           allow_http=True, **FAST) as ac:
            sent = await ac.send('input', return_immediately=True)
            assert sent.task_id, sent
            o = await ac.wait(sent.task_id, poll_interval=0.1, timeout=10.0)
            assert o.state is not None and o.state.value == 'input-required', o

    asyncio.run(main())


def test_cancelling_the_wait_aborts_it(py_peer: Peer) -> None:
    async def main() -> None:
        async with AsyncClient.with_target(py_peer.url + '/', '1.0', 'jsonrpc',
                                           allow_http=True, **FAST) as ac:
            sent = await ac.send('slow 5', return_immediately=True)
            started = time.monotonic()
            with pytest.raises(asyncio.TimeoutError):
                await asyncio.wait_for(ac.wait(sent.task_id, poll_interval=0.1), 0.5)
            assert time.monotonic() - started < 2.0
            # the client still works
            o = await ac.send('echo after')
            assert o.success, o

    asyncio.run(main())


def test_the_blocking_client_over_httpx_waits_too(py_peer: Peer) -> None:
    with httpx.Client() as h, a2a_core.Client(py_peer.url, allow_http=True,
                                               http_client=h) as c:
        sent = c.send('slow 1', return_immediately=True)
        assert sent.task_id and not sent.terminal, sent
        done = c.wait(sent.task_id, poll_interval=0.2, timeout=20.0)
        assert done.success and done.result.text == 'slept 1 s', done
        late = c.send('slow 5', return_immediately=True)
        gave_up = c.wait(late.task_id, poll_interval=0.1, timeout=0.6)
        assert gave_up.error is not None and gave_up.error.value == 'Timeout', gave_up
        assert gave_up.task_id == late.task_id


def test_the_blocking_client_on_the_driver_waits_too(py_peer: Peer) -> None:
    """The driver path waits on the same planner (each poll a driver `get`); its send asks
    for return-immediately itself (`a2a_client_call_options.return_immediately`), and a task
    sent over httpx is waited for the same way."""
    with httpx.Client() as h, a2a_core.Client(py_peer.url, allow_http=True,
                                               http_client=h) as sender, \
            a2a_core.Client(py_peer.url, allow_http=True) as c:
        sent = c.send('slow 1', return_immediately=True)
        assert sent.task_id and not sent.terminal, sent
        done = c.wait(sent.task_id, poll_interval=0.2, timeout=20.0)
        assert done.success and done.result.text == 'slept 1 s', done
        late = sender.send('slow 5', return_immediately=True)
        gave_up = c.wait(late.task_id, poll_interval=0.1, timeout=0.6)
        assert gave_up.error is not None and gave_up.error.value == 'Timeout', gave_up
        assert gave_up.task_id == late.task_id and gave_up.retry.value == 'poll'
