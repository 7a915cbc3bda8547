"""`a2a demo --serve` driven by the Python a2a-sdk 1.3.0's own client (issue 12): the native
1.0 JSON-RPC transport and its 0.3 compat transport, blocking and streaming; then SIGTERM
stops it with exit status 0.

The 1.0 client resolves the card itself (the SDK prefers the card's 1.0 interface). For the
0.3 compat transport the test hands the SDK the same card with its 1.0 interfaces removed:
the SDK then picks the 0.3 interface and speaks 0.3 (`message/send`, kebab-case states).
"""

from __future__ import annotations

import asyncio
import signal
import subprocess
import uuid
from collections.abc import Iterator

import httpx
import pytest
from a2a.client import ClientConfig, ClientFactory
from a2a.client.card_resolver import parse_agent_card
from a2a.types import Message, Part, Role, SendMessageRequest, TaskState


@pytest.fixture(scope='module')
def demo(a2a_bin: str) -> Iterator[str]:
    proc = subprocess.Popen([a2a_bin, 'demo', '--serve'], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline() if proc.stdout else ''
        assert line.startswith('READY http://127.0.0.1:'), line
        yield line.split()[1]
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            code = proc.wait(timeout=10)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait(timeout=5)
        assert code == 0, proc.stderr.read() if proc.stderr else ''


def card_json(url: str) -> dict:
    return httpx.get(url + '/.well-known/agent-card.json', timeout=10).json()


async def run(url: str, version: str, text: str, streaming: bool) -> list:
    data = card_json(url)
    if version == '0.3':
        data['supportedInterfaces'] = [
            i for i in data['supportedInterfaces'] if i['protocolVersion'] == '0.3'
        ]
    card = parse_agent_card(data)
    client = ClientFactory(ClientConfig(streaming=streaming)).create(card)
    try:
        msg = Message(message_id=str(uuid.uuid4()), role=Role.ROLE_USER, parts=[Part(text=text)])
        return [ev async for ev in client.send_message(SendMessageRequest(message=msg))]
    finally:
        await client.close()


def final_task(events: list):
    tasks = [e.task for e in events if e.HasField('task')]
    updates = [e.status_update for e in events if e.HasField('status_update')]
    state = updates[-1].status.state if updates else tasks[-1].status.state
    return state, tasks


@pytest.mark.parametrize('version', ['1.0', '0.3'])
def test_a_blocking_send_completes(demo: str, version: str) -> None:
    events = asyncio.run(run(demo, version, 'echo hi there', streaming=False))
    state, tasks = final_task(events)
    assert state == TaskState.TASK_STATE_COMPLETED
    assert tasks[-1].artifacts[0].parts[0].text == 'hi there'


@pytest.mark.parametrize('version', ['1.0', '0.3'])
def test_a_failed_task_carries_its_error_id(demo: str, version: str) -> None:
    events = asyncio.run(run(demo, version, 'fail', streaming=False))
    state, tasks = final_task(events)
    assert state == TaskState.TASK_STATE_FAILED
    assert '(error_id: ' in tasks[-1].status.message.parts[0].text


@pytest.mark.parametrize('version', ['1.0', '0.3'])
def test_a_stream_completes(demo: str, version: str) -> None:
    events = asyncio.run(run(demo, version, 'count 3', streaming=True))
    state, _ = final_task(events)
    assert state == TaskState.TASK_STATE_COMPLETED
    chunks = [p.text for e in events if e.HasField('artifact_update')
              for p in e.artifact_update.artifact.parts]
    assert len(chunks) >= 3
