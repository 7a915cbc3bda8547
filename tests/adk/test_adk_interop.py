"""ADK for Python (google-adk 2.13.0) and a2a-core, both ways, on 127.0.0.1 (issue 27):

- the project's `a2a` CLI ($A2A_BIN) against a deterministic ADK agent served over A2A by
  ADK's own `to_a2a` (adk_agent.py): an echo, a stream, an agent that raises and one that
  yields an error event;
- ADK's `RemoteA2aAgent` calling the project's reference agent (`a2a demo --serve`): the
  echo, and a FAILED task whose error_id must reach ADK's events; and the fault server's
  `rpc-error` agent ($A2A_TESTKIT_BIN), whose JSON-RPC error must reach them too.

scripts/ci/77-adk.sh builds the binaries, makes build/adk-venv and runs these tests."""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
import warnings
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

warnings.filterwarnings('ignore', message=r'\[EXPERIMENTAL\]')

from a2a.client import ClientConfig, ClientFactory  # noqa: E402
from google.adk.a2a.agent import RemoteA2aAgent  # noqa: E402
from google.adk.runners import InMemoryRunner  # noqa: E402
from google.genai import types  # noqa: E402

HERE = Path(__file__).resolve().parent
A2A_BIN = os.environ.get('A2A_BIN', '')
TESTKIT_BIN = os.environ.get('A2A_TESTKIT_BIN', '')


@contextmanager
def server(argv: list[str], ready_prefix: str = 'READY '):
    """Runs argv until the block ends; yields the URL of its first `READY <url>` line."""
    p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        url = None
        # Bounded: a server prints at most a few lines before READY.
        for _ in range(5):
            line = p.stdout.readline()
            if not line:
                break
            if line.startswith(ready_prefix):
                url = line[len(ready_prefix):].strip()
                break
        assert url, f'{argv[0]} printed no READY line: {p.stderr.read() if p.poll() is not None else ""}'
        yield url
    finally:
        p.terminate()
        try:
            p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait(timeout=10)


def a2a(*args: str) -> tuple[int, str]:
    assert A2A_BIN, 'A2A_BIN must name the built a2a binary (scripts/ci/77-adk.sh sets it)'
    r = subprocess.run([A2A_BIN, *args, '--allow-http'], capture_output=True, text=True, timeout=90)
    return r.returncode, r.stdout + r.stderr


@pytest.fixture(scope='module')
def adk_url():
    with server([sys.executable, str(HERE / 'adk_agent.py')]) as url:
        yield url


def test_a2a_cli_sends_and_streams_to_an_adk_agent(adk_url):
    code, out = a2a('send', adk_url, 'hello adk')
    assert code == 0 and 'hello adk' in out, out
    code, out = a2a('stream', adk_url, 'hello stream')
    assert code == 0 and 'hello stream' in out, out


def test_a2a_cli_reports_adk_failures_as_failed_tasks(adk_url):
    # ADK 2.13.0's executor sends str(exception) as the FAILED text (no error_id, see
    # docs/sdks.md §2.2); an error event's error_message likewise.
    for word in ('fail', 'error-event'):
        code, out = a2a('send', adk_url, word)
        assert code == 5, f'{word}: exit {code} (want 5, task failed): {out}'
        assert 'upstream declined the request' in out, out


async def remote_events(card_url: str, text: str, streaming: bool = True) -> list:
    """The ADK events of one RemoteA2aAgent turn; `streaming=False` gives the agent an A2A
    client factory with streaming off (message/send instead of message/stream)."""
    # The factory is given its httpx client: ClientFactory sets the A2A-Version header on a
    # client it is given, while RemoteA2aAgent's own client, put in later, goes without it,
    # and a 1.0 call without the header is read as 0.3 and refused (docs/wire.md §5.5).
    factory = None if streaming else ClientFactory(ClientConfig(streaming=False, httpx_client=httpx.AsyncClient(timeout=30)))
    agent = RemoteA2aAgent(name='remote', agent_card=card_url, a2a_client_factory=factory)
    runner = InMemoryRunner(agent=agent, app_name='a2a-core-interop')
    session = await runner.session_service.create_session(app_name='a2a-core-interop', user_id='u')
    events = []
    msg = types.Content(role='user', parts=[types.Part(text=text)])
    async with asyncio.timeout(60):
        async for ev in runner.run_async(user_id='u', session_id=session.id, new_message=msg):
            events.append(ev)
    return events


def event_texts(events) -> str:
    """Everything an ADK event carries as text: content, error code and message, metadata."""
    out = []
    for ev in events:
        if ev.content and ev.content.parts:
            out += [p.text or '' for p in ev.content.parts]
        out += [str(ev.error_code or ''), str(ev.error_message or ''), str(ev.custom_metadata or '')]
    return '\n'.join(out)


@pytest.fixture(scope='module')
def demo_url():
    assert A2A_BIN, 'A2A_BIN must name the built a2a binary'
    with server([A2A_BIN, 'demo', '--serve']) as url:
        yield url


def test_remote_a2a_agent_gets_the_demo_agents_answer(demo_url):
    events = asyncio.run(remote_events(demo_url + '/.well-known/agent-card.json', 'echo hi there'))
    assert 'hi there' in event_texts(events), events


def test_a_failed_tasks_error_id_reaches_adk_events(demo_url):
    # The demo fails `fail` on a send (a stream of any word but `count`/`drop` completes), so
    # the remote agent sends without streaming here.
    events = asyncio.run(remote_events(demo_url + '/.well-known/agent-card.json', 'fail', streaming=False))
    text = event_texts(events)
    m = re.search(r'error_id: ([0-9a-f]{12})', text)
    assert m, f'no error_id in the ADK events: {events}'
    failed = [ev for ev in events if ev.error_message or ev.error_code]
    print(f'error_id {m.group(1)}; events with error fields: {len(failed)} of {len(events)}')


def test_a_json_rpc_error_reaches_adk_events():
    assert TESTKIT_BIN, 'A2A_TESTKIT_BIN must name the built a2a-testkit binary'
    with server([TESTKIT_BIN, 'fault-server', '--exit-on-eof']) as base:
        events = asyncio.run(remote_events(base + '/rpc-error/.well-known/agent-card.json', 'hello', streaming=False))
        streamed = asyncio.run(remote_events(base + '/rpc-error/.well-known/agent-card.json', 'hello'))
    text = event_texts(streamed)
    assert 'internal error' in text or '-32603' in text, f'streaming: the JSON-RPC error is not in the ADK events: {streamed}'
    text = event_texts(events)
    assert 'internal error' in text or '-32603' in text, f'the JSON-RPC error is not in the ADK events: {events}'
    assert any(ev.error_message or ev.error_code for ev in events), events
