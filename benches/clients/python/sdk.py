"""The official Python SDK's client (a2a-sdk 1.3.0, the repository's .venv) in the
client-overhead harness: `ClientFactory(...).create(card)` as an application calls it, with
`send_message` non-streaming (ClientConfig(streaming=False)) for the sends and streaming for
the stream, every answer asserted.

`python sdk.py` lets the SDK pick (it prefers the card's 1.0 interface: JSON-RPC 1.0, its
native transport); `python sdk.py 0.3` hands it the same card with the 1.0 interfaces
removed, so it speaks 0.3 through its compat transport (the wire every other client here
speaks)."""

from __future__ import annotations

import asyncio
import sys
import uuid

import httpx
from a2a.client import ClientConfig, ClientFactory
from a2a.client.card_resolver import parse_agent_card
from a2a.types import Message, Part, Role, SendMessageRequest, TaskState

from common import Params, Report, Section, check, rss_kib


def request(text: str) -> SendMessageRequest:
    msg = Message(message_id=str(uuid.uuid4()), role=Role.ROLE_USER, parts=[Part(text=text)])
    return SendMessageRequest(message=msg)


async def send(c) -> None:
    events = [ev async for ev in c.send_message(request('ping'))]
    check(len(events) == 1 and events[0].HasField('task'), lambda: repr(events))
    task = events[0].task
    check(task.status.state == TaskState.TASK_STATE_COMPLETED
          and task.artifacts[0].parts[0].text == 'ping', lambda: repr(task))


async def stream(c, n: int) -> None:
    events, state, last = 0, None, ''
    async for ev in c.send_message(request(f'stream {n}')):
        events += 1
        if ev.HasField('task'):
            state = ev.task.status.state
        elif ev.HasField('status_update'):
            state = ev.status_update.status.state
        elif ev.HasField('artifact_update'):
            last = ev.artifact_update.artifact.parts[0].text
    check(events == n, f'{events} events, wanted {n}')
    check(state == TaskState.TASK_STATE_COMPLETED, f'end state {state}')
    check(last == f'chunk {n - 4}', f'last artifact {last!r}')


async def main(version: str | None) -> None:
    p = Params()
    async with httpx.AsyncClient() as h:
        data = (await h.get(p.url + '/.well-known/agent-card.json')).json()
    if version == '0.3':
        data['supportedInterfaces'] = [
            i for i in data['supportedInterfaces'] if i['protocolVersion'] == '0.3'
        ]
    card = parse_agent_card(data)
    sender = ClientFactory(ClientConfig(streaming=False)).create(card)
    # The idle streams need more connections than httpx's default pool of 100 allows
    # (the measured stream's connection stays pooled).
    pool = httpx.AsyncClient(limits=httpx.Limits(max_connections=p.idle + 10), timeout=60)
    streamer = ClientFactory(ClientConfig(streaming=True, httpx_client=pool)).create(card)
    for _ in range(p.warmup):
        await send(sender)
    await stream(streamer, max(p.warmup_events, 4))

    name = 'python-sdk' if version is None else f'python-sdk-{version}'
    r = Report(name, sends=p.sends, events=p.events, idle=p.idle)
    s = Section()
    for _ in range(p.sends):
        await send(sender)
    r.send_wall, r.send_cpu = s.stop()
    s = Section()
    await stream(streamer, p.events)
    r.stream_wall, r.stream_cpu = s.stop()

    if p.idle:
        r.rss_before = rss_kib()
        held = []
        for _ in range(p.idle):
            g = streamer.send_message(request('hold'))
            first = await g.__anext__()
            check(first.HasField('task'), lambda: repr(first))
            held.append(g)
        r.rss_after = rss_kib()
        for g in held:
            await g.aclose()
    await sender.close()
    await streamer.close()
    await pool.aclose()
    r.print()


if __name__ == '__main__':
    asyncio.run(main(sys.argv[1] if len(sys.argv) > 1 else None))
