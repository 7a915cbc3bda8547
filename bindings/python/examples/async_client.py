"""AsyncClient quick start: send, stream, cancel and a failed task, with calls running
concurrently on one event loop.

Start an agent, e.g. a2a-core's demo agent (from the checkout; it prints READY <url>):

    cargo run --release -p a2a-core --features driver -- demo --serve

then, in another shell: python async_client.py <url>
"""

import asyncio
import logging
import sys

import a2a_core


async def main(url: str) -> None:
    logging.basicConfig(format='%(name)s %(message)s')
    logging.getLogger('a2a_core').setLevel(logging.DEBUG)  # one record per call
    async with a2a_core.AsyncClient(url, timeout=45.0,
                                    allow_http=True) as client:  # card fetched on entry
        print('card:', client.card.card.info.name, client.card.version, client.card.binding)
        outcome = await client.send('echo hi')
        print('send:', outcome.channel, outcome.state, repr(outcome.result.text))
        async for event in client.stream('count 3'):
            print('stream:', type(event).__name__, event.kind)
        # many calls at once, no thread per call
        many = await asyncio.gather(*(client.send(f'echo {i}') for i in range(3)))
        print('gather:', [o.result.text for o in many])
        # a long-running task, cancelled by its id
        running = await client.send('research the market')
        canceled = await client.cancel(running.task_id)
        print('cancel:', running.state, '->', canceled.state)
        # cancelling the awaiting asyncio task aborts the exchange at once
        slow = asyncio.create_task(client.send('slow'))
        await asyncio.sleep(0.2)
        slow.cancel()
        try:
            await slow
        except asyncio.CancelledError:
            print('cancelled: yes')
        failed = await client.send('fail', timeout=5.0)
        try:
            failed.raise_for_outcome()
        except a2a_core.OutcomeError as e:
            print('raised:', e.outcome.exit_code, a2a_core.model_text('specialist', e.outcome))


asyncio.run(main(sys.argv[1]))
