"""Drives a server with the official Python SDK's client (a2a-sdk, the repository's .venv):
`python_sdk.py URL 1.0|0.3` reads the card under URL and, for 0.3, keeps only its 0.3
interfaces, so that the SDK speaks its 0.3 compat transport; otherwise the SDK picks as it
does for an application (`ClientFactory(ClientConfig(...)).create(card)`). Runs send,
stream, get and cancel against an agent that answers the binding example servers' words
(`echo <text>`, `count <n>`, `slow <seconds>`, `refuse <text>`: InvalidParams). One line per check; exit status 1 when any
failed."""

from __future__ import annotations

import asyncio
import sys
import uuid

import httpx
from a2a.client import ClientConfig, ClientFactory
from a2a.client.card_resolver import parse_agent_card
from a2a.types import (CancelTaskRequest, GetTaskRequest, Message, Part, Role,
                       SendMessageRequest, TaskState)

failed = False


def check(version: str, name: str, ok: bool, detail: object) -> None:
    global failed
    failed |= not ok
    print(f'ok python-sdk-{version} {name}' if ok else
          f'FAIL python-sdk-{version} {name}: {str(detail)[:600]}')


def texts(parts) -> str:
    return ''.join(p.text for p in parts if p.HasField('text'))


def request(text: str) -> SendMessageRequest:
    return SendMessageRequest(message=Message(message_id=str(uuid.uuid4()), role=Role.ROLE_USER,
                                              parts=[Part(text=text)]))


async def main(url: str, version: str) -> int:
    data = httpx.get(url.rstrip('/') + '/.well-known/agent-card.json', timeout=10).json()
    if version == '0.3':
        data['supportedInterfaces'] = [i for i in data['supportedInterfaces']
                                       if i['protocolVersion'] == '0.3']
    card = parse_agent_card(data)
    blocking = ClientFactory(ClientConfig(streaming=False)).create(card)
    streaming = ClientFactory(ClientConfig(streaming=True)).create(card)
    v = version
    try:
        evs = [e async for e in blocking.send_message(request('echo hello'))]
        check(v, 'send', len(evs) == 1 and evs[0].HasField('message')
              and texts(evs[0].message.parts) == 'hello', evs)

        state, chunks = None, ''
        async for e in streaming.send_message(request('count 3')):
            if e.HasField('task'):
                state = e.task.status.state
            elif e.HasField('status_update'):
                state = e.status_update.status.state
            elif e.HasField('artifact_update'):
                chunks += texts(e.artifact_update.artifact.parts)
        check(v, 'stream', state == TaskState.TASK_STATE_COMPLETED
              and chunks == 'chunk 1 chunk 2 chunk 3 ', (state, chunks))

        evs = [e async for e in blocking.send_message(request('count 2'))]
        task = evs[-1].task if evs and evs[-1].HasField('task') else None
        check(v, 'send a task', task is not None
              and task.status.state == TaskState.TASK_STATE_COMPLETED, evs)
        if task is not None:
            got = await blocking.get_task(GetTaskRequest(id=task.id))
            check(v, 'get', got.id == task.id and got.status.state == TaskState.TASK_STATE_COMPLETED
                  and len(got.history) >= 1, got)
        try:
            await blocking.get_task(GetTaskRequest(id='no-such-task'))
            check(v, 'get of an unknown task', False, 'no error')
        except Exception as e:  # the SDK's error for -32001 / 404
            check(v, 'get of an unknown task', 'TaskNotFound' in type(e).__name__
                  or 'not found' in str(e).lower(), f'{type(e).__name__}: {e}')

        for name, client in (('a refused send', blocking), ('a refused stream', streaming)):
            try:
                evs = [e async for e in client.send_message(request('refuse x'))]
                check(v, name, False, evs)
            except Exception as e:  # the handler's InvalidParams, as the SDK reads it
                check(v, name, type(e).__name__ == 'InvalidParamsError' and 'refused: x' in str(e),
                      f'{type(e).__name__}: {e}')

        tid, canceled, state = None, None, None
        async for e in streaming.send_message(request('slow 30')):
            if e.HasField('task') and tid is None:
                tid = e.task.id
                canceled = await blocking.cancel_task(CancelTaskRequest(id=tid))
            if e.HasField('status_update'):
                state = e.status_update.status.state
        check(v, 'cancel', canceled is not None
              and canceled.status.state == TaskState.TASK_STATE_CANCELED, canceled)
        check(v, 'the canceled stream', state == TaskState.TASK_STATE_CANCELED, state)
        if tid is not None:
            got = await blocking.get_task(GetTaskRequest(id=tid))
            check(v, 'get after cancel', got.status.state == TaskState.TASK_STATE_CANCELED, got.status)
    except Exception as e:  # a check that raised is a failure, reported
        check(v, 'run', False, f'{type(e).__name__}: {e}')
    finally:
        await blocking.close()
        await streaming.close()
    return 1 if failed else 0


if __name__ == '__main__':
    if len(sys.argv) != 3 or sys.argv[2] not in ('1.0', '0.3'):
        print('usage: python_sdk.py URL 1.0|0.3', file=sys.stderr)
        sys.exit(2)
    sys.exit(asyncio.run(asyncio.wait_for(main(*sys.argv[1:]), 90)))
