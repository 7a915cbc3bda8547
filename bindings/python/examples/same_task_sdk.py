"""The README's side-by-side, the official a2a-sdk 1.3.0 client's half (the repository's
.venv): send, stream, cancel, a failed task and a hung call against one agent
(.venv/bin/python same_task_sdk.py <url>)."""
import asyncio
import sys
import uuid

from a2a.client import ClientConfig, ClientFactory
from a2a.client.card_resolver import A2ACardResolver
from a2a.types import CancelTaskRequest, Message, Part, Role, SendMessageRequest, TaskState
import httpx


def request(text: str) -> SendMessageRequest:
    msg = Message(message_id=str(uuid.uuid4()), role=Role.ROLE_USER, parts=[Part(text=text)])
    return SendMessageRequest(message=msg)


async def main(url: str) -> None:
    async with httpx.AsyncClient() as http:
        card = await A2ACardResolver(http, url).get_agent_card()
    http = httpx.AsyncClient(timeout=1.0)
    client = ClientFactory(ClientConfig(streaming=False, httpx_client=http)).create(card)
    streamer = ClientFactory(ClientConfig(streaming=True)).create(card)
    sent = [ev async for ev in client.send_message(request('echo hi'))][-1].task
    print('send:', TaskState.Name(sent.status.state), sent.artifacts[0].parts[0].text)
    chunks, state = [], None
    async for ev in streamer.send_message(request('count 3')):
        if ev.HasField('artifact_update'):
            chunks += [p.text for p in ev.artifact_update.artifact.parts]
        if ev.HasField('status_update'):
            state = ev.status_update.status.state
    print('stream:', TaskState.Name(state), chunks)
    running = [ev async for ev in client.send_message(request('research the market'))][-1].task
    canceled = await client.cancel_task(CancelTaskRequest(id=running.id))
    print('cancel:', TaskState.Name(canceled.status.state))
    failed = [ev async for ev in client.send_message(request('fail'))][-1].task
    print('fail:', TaskState.Name(failed.status.state), failed.status.message.parts[0].text)
    try:
        await anext(client.send_message(request('slow')))
    except Exception as e:
        print('slow:', type(e).__name__, e)
    await client.close()
    await streamer.close()
    await http.aclose()


asyncio.run(main(sys.argv[1]))
