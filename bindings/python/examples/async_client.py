"""AsyncClient quick start: one client, calls running concurrently on one event loop.

    .venv/bin/python tests/peers/launch.py python -- .venv/bin/python bindings/python/examples/async_client.py
"""

import asyncio
import logging
import os

import a2a_core


async def main() -> None:
    logging.basicConfig(format='%(name)s %(message)s')
    logging.getLogger('a2a_core').setLevel(logging.DEBUG)  # one record per call
    async with a2a_core.AsyncClient(os.environ['A2A_PEER_URL'], timeout=45.0,
                                    allow_http=True) as client:  # card fetched on entry
        print('card:', client.card.card.info.name, client.card.version, client.card.binding)
        outcome = await client.send('echo hi')
        print('send:', outcome.channel, outcome.state, repr(outcome.result.text))
        async for event in client.stream('stream 2'):
            print('stream:', type(event).__name__, event.kind)
        # many calls at once, no thread per call
        many = await asyncio.gather(*(client.send(f'echo {i}') for i in range(3)))
        print('gather:', [o.result.text for o in many])
        # cancelling the awaiting task aborts the exchange at once
        slow = asyncio.create_task(client.send('slow 30'))
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


asyncio.run(main())
