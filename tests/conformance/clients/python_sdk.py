"""The official Python SDK's client (a2a-sdk, the repository's .venv) as an application uses
it, for `a2a-testkit conformance`: `python_sdk.py send|stream URL TEXT`.

`ClientFactory(ClientConfig(streaming=...)).create_from_url(URL)`: the SDK's card resolver,
its choice of interface (a 1.0 interface first, else 0.3 through its compat transport) and
its defaults (its own httpx client and timeouts; no retries added). Prints the task's state,
status text and artifact text, or the error; exit status 0 for a completed task or a message
reply, 1 for an error, 3 for a task that ended in another state."""

from __future__ import annotations

import asyncio
import sys
import uuid

from a2a.client import ClientConfig, ClientFactory
from a2a.types import Message, Part, Role, SendMessageRequest, TaskState


def texts(parts) -> str:
    return ''.join(p.text for p in parts if p.HasField('text'))


async def main(mode: str, url: str, text: str) -> int:
    client = await ClientFactory(ClientConfig(streaming=mode == 'stream')).create_from_url(url)
    msg = Message(message_id=str(uuid.uuid4()), role=Role.ROLE_USER, parts=[Part(text=text)])
    state, status, artifacts = None, '', []
    try:
        async for ev in client.send_message(SendMessageRequest(message=msg)):
            if ev.HasField('message'):
                print(f'message: {texts(ev.message.parts)}')
                return 0
            if ev.HasField('task'):
                state = ev.task.status.state
                if ev.task.status.HasField('message'):
                    status = texts(ev.task.status.message.parts)
                artifacts += [texts(a.parts) for a in ev.task.artifacts]
            elif ev.HasField('status_update'):
                state = ev.status_update.status.state
                if ev.status_update.status.HasField('message'):
                    status = texts(ev.status_update.status.message.parts)
            elif ev.HasField('artifact_update'):
                artifacts.append(texts(ev.artifact_update.artifact.parts))
    finally:
        await client.close()
    print(f'state: {TaskState.Name(state) if state is not None else "none"}')
    if status:
        print(f'status: {status}')
    if artifacts:
        print(f'text: {"".join(artifacts)}')
    return 0 if state == TaskState.TASK_STATE_COMPLETED else 3


if __name__ == '__main__':
    if len(sys.argv) != 4 or sys.argv[1] not in ('send', 'stream'):
        print('usage: python_sdk.py send|stream URL TEXT', file=sys.stderr)
        sys.exit(2)
    try:
        sys.exit(asyncio.run(main(*sys.argv[1:])))
    except Exception as e:  # every failure is reported, as an application would
        print(f'error: {type(e).__name__}: {e}')
        sys.exit(1)
