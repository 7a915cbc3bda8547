"""The Python binding's asyncio client (bindings/python, `a2a_core.AsyncClient`: the core's
client machine over the binding's own HTTP/1.1 on asyncio, its default) in the
client-overhead harness: the card resolved once on entry, then `send` and `stream` as an
asyncio application calls them, every answer asserted from the binding's results. Only the
binding's documented API is used.

`python async_binding.py` takes the card's order (JSON-RPC 0.3 first on the bench server);
`python async_binding.py 1.0` takes the library's order (1.0 first), the version a2a-sdk's
client picks on the same card: the two rows compare with python-sdk-0.3 and python-sdk.
`python async_binding.py httpx` (or `1.0 httpx`) gives the client an `httpx.AsyncClient`
(`http_client=`): the machine over httpx, as before the native host."""

from __future__ import annotations

import asyncio
import sys

import httpx
from a2a_core import AsyncClient, ClientStreamEnd, StreamItem, StreamItemKind, TaskState

from common import Params, Report, Section, check, rss_kib


async def send(c: AsyncClient) -> None:
    o = await c.send('ping')
    check(o.state == TaskState.COMPLETED, lambda: o.to_json())
    check(o.result is not None and o.result.text == 'ping', lambda: repr(o.result))


async def stream(c: AsyncClient, n: int) -> None:
    items, last, end = 0, '', None
    async for ev in c.stream(f'stream {n}'):
        if isinstance(ev, StreamItem):
            items += 1
            if ev.kind == StreamItemKind.ARTIFACT_UPDATE:
                last = ev.outcome.result.artifact.text
        elif isinstance(ev, ClientStreamEnd):
            end = ev
        else:
            check(False, lambda: f'resubscribed: {ev}')
    check(end is not None and end.outcome.state == TaskState.COMPLETED, lambda: repr(end))
    check(not end.lost_content, 'content lost')
    check(items == n, f'{items} items, wanted {n}')
    check(last == f'chunk {n - 4}', f'last artifact {last!r}')


async def main(version: str | None, over_httpx: bool) -> None:
    p = Params()
    # The idle streams hold a connection each: a pool larger than httpx's default 100 (as
    # the a2a-sdk client is given in sdk.py). The native host has no connection limit.
    http = httpx.AsyncClient(limits=httpx.Limits(max_connections=p.idle + 10),
                             timeout=httpx.Timeout(60.0, connect=3.0),
                             follow_redirects=False) if over_httpx else None
    prefer = 'client' if version == '1.0' else 'card'
    async with AsyncClient(p.url, allow_http=True, prefer=prefer, http_client=http) as c:
        for _ in range(p.warmup):
            await send(c)
        await stream(c, max(p.warmup_events, 4))

        name = 'python-async' if version is None else f'python-async-{version}'
        if over_httpx:
            name += '-httpx'
        r = Report(name, sends=p.sends, events=p.events, idle=p.idle)
        s = Section()
        for _ in range(p.sends):
            await send(c)
        r.send_wall, r.send_cpu = s.stop()
        s = Section()
        await stream(c, p.events)
        r.stream_wall, r.stream_cpu = s.stop()

        if p.idle:
            r.rss_before = rss_kib()
            held = []
            for _ in range(p.idle):
                g = c.stream('hold')
                first = await g.__anext__()
                check(isinstance(first, StreamItem) and first.kind == StreamItemKind.TASK,
                      lambda: repr(first))
                held.append(g)
            r.rss_after = rss_kib()
            for g in held:
                await g.aclose()
    if http is not None:
        await http.aclose()
    r.print()


if __name__ == '__main__':
    args = sys.argv[1:]
    asyncio.run(main(next((a for a in args if a != 'httpx'), None), 'httpx' in args))
