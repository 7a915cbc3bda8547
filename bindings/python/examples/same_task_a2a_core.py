"""The README's side-by-side, a2a-core's half: send, stream, cancel, a failed task and a hung call
against one agent (python same_task_a2a_core.py <url>)."""
import asyncio
import sys

import a2a_core


async def main(url: str) -> None:
    async with a2a_core.AsyncClient(url, allow_http=True) as client:
        sent = await client.send('echo hi')
        print('send:', sent.state, sent.result.text)
        async for event in client.stream('count 3'):
            if isinstance(event, a2a_core.ClientStreamEnd):
                print('stream:', event.kind, repr(event.answer.text))
        running = await client.send('research the market')
        print('cancel:', (await client.cancel(running.task_id)).state)
        failed = await client.send('fail')
        print('fail:', failed.channel, failed.state, failed.retry, failed.error_id)
        print(a2a_core.model_text('demo', failed))
        slow = await client.send('slow', timeout=1.0)
        print('slow:', slow.channel, slow.error, slow.request_sent, slow.retry)


asyncio.run(main(sys.argv[1]))
