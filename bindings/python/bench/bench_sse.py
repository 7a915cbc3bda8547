#!/usr/bin/env python3
"""SSE decoding throughput: a2a_core.SseDecoder against the parsers Python A2A code uses,
both of a2a_core's paths side by side in one run.

Contestants, all fed the same bytes in the same chunks, all counting materialised event
objects whose data is a `str`:

  sdk            a2a-sdk's own parser, `a2a.client.transports.http_helpers.parse_sse_stream`
                 (what its JSON-RPC and REST client transports call): an async generator over
                 an httpx.Response, here a real httpx.Response whose body is an async byte
                 stream of the chunks, run in asyncio. Yields (event, data) tuples.
  httpx-sse      httpx-sse's EventSource(response).aiter_sse() over the same kind of response
                 (ServerSentEvent objects).
  httpx-sse bare httpx-sse's SSELineDecoder + SSEDecoder called directly on the chunks
                 (incremental UTF-8 decoding with codecs), no httpx, no asyncio.
  ctypes         SseDecoder.feed(chunk) on the pure-ctypes path (one foreign call per chunk,
                 events built with Python's C loops), as with A2A_CORE_PURE=1.
  ext            SseDecoder.feed(chunk) on the compiled fast path (a2a_core._speedups: the
                 events built in C).
  ext httpx      the compiled path over the same httpx response's aiter_bytes(), in asyncio:
                 the like-for-like comparison with `sdk`.

Both a2a_core paths run in this process on the same library (the path is switched between
runs). Every contestant must decode the same events (count and every data string) as `sdk`,
or the script exits with an error. Time is CPU time of this process (time.process_time),
best of --repeat runs. Goals (issue 17): ext >= 5x sdk on one-line events, >= 10x on
multi-line ones.

    .venv/bin/python bindings/python/bench/bench_sse.py [--events N] [--chunk BYTES] [--repeat R]
"""

from __future__ import annotations

import argparse
import asyncio
import codecs
import json
import platform
import sys
import time
from collections.abc import AsyncIterator, Callable

import httpx
from a2a.client.transports.http_helpers import parse_sse_stream
from httpx_sse import EventSource
from httpx_sse._decoders import SSEDecoder, SSELineDecoder

import a2a_core
from a2a_core import _lib


# --- streams ------------------------------------------------------------------------------

def a2a_status_stream(n: int) -> bytes:
    """1.0 status updates as the Python a2a-sdk server writes them (CRLF, JSON with spaces)."""
    out = []
    for i in range(n):
        ev = {'jsonrpc': '2.0', 'id': 1, 'result': {'statusUpdate': {
            'taskId': '3f1c7d6e-1111-4b7e-9a3b-2c8d5e6f7a8b',
            'contextId': '9e2f4c1a-2222-4d3b-8c5a-1f2e3d4c5b6a',
            'status': {'state': 'TASK_STATE_WORKING', 'message': {
                'messageId': f'm-{i}', 'role': 'ROLE_AGENT', 'parts': [{'text': f'tick {i}'}]},
                'timestamp': '2025-01-01T00:00:00Z'}}}}
        out.append('data: ' + json.dumps(ev) + '\r\n\r\n')
    return ''.join(out).encode()


def small_stream(n: int) -> bytes:
    """Tiny events (token streaming): `data: {"n":i}`, LF."""
    return ''.join(f'data: {{"n":{i}}}\n\n' for i in range(n)).encode()


def artifact_stream(n: int) -> bytes:
    """4 KiB artifact chunks with non-ASCII text (LF, compact JSON as the JS server writes)."""
    text = ('Grüße, 世界! ' * 400)[:4000]
    return ''.join(
        'data: ' + json.dumps({'jsonrpc': '2.0', 'id': 1, 'result': {'artifactUpdate': {
            'taskId': 't', 'artifact': {'artifactId': f'a{i}', 'parts': [{'text': text}]}}}},
            ensure_ascii=False, separators=(',', ':')) + '\n\n'
        for i in range(n)
    ).encode()


def multiline_stream(n: int) -> bytes:
    """Pretty-printed JSON split over several `data:` lines, with `event:` and `id:`."""
    out = []
    for i in range(n):
        body = json.dumps({'kind': 'status-update', 'taskId': 't', 'final': False,
                           'status': {'state': 'working'}, 'n': i}, indent=1)
        out.append(f'event: update\nid: {i}\n' + ''.join(f'data: {line}\n' for line in body.split('\n')) + '\n')
    return ''.join(out).encode()


STREAMS: dict[str, Callable[[int], bytes]] = {
    'a2a status updates (~330 B, CRLF)': a2a_status_stream,
    'small events (~16 B)': small_stream,
    'artifact chunks (4 KiB, UTF-8)': artifact_stream,
    'multi-line data (9 lines, event+id)': multiline_stream,
}


# --- contestants ----------------------------------------------------------------------------

class Body(httpx.AsyncByteStream):
    def __init__(self, chunks: list[bytes]) -> None:
        self.chunks = chunks

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for c in self.chunks:
            yield c


def response(chunks: list[bytes]) -> httpx.Response:
    return httpx.Response(200, headers={'content-type': 'text/event-stream'},
                          stream=Body(chunks))


def run_sdk(chunks: list[bytes]) -> list[str]:
    async def go() -> list[str]:
        return [data async for _name, data in parse_sse_stream(response(chunks))]
    return asyncio.run(go())


def run_httpx_sse(chunks: list[bytes]) -> list[str]:
    async def go() -> list[str]:
        return [sse.data async for sse in EventSource(response(chunks)).aiter_sse()]
    return asyncio.run(go())


def run_httpx_sse_bare(chunks: list[bytes]) -> list[str]:
    lines, dec = SSELineDecoder(), SSEDecoder()
    text = codecs.getincrementaldecoder('utf-8')('replace')
    out = []
    for c in chunks:
        for line in lines.decode(text.decode(c)):
            sse = dec.decode(line)
            if sse is not None:
                out.append(sse.data)
    for line in lines.flush():
        sse = dec.decode(line)
        if sse is not None:
            out.append(sse.data)
    return out


def _pure(run: Callable[[list[bytes]], list[str]]) -> Callable[[list[bytes]], list[str]]:
    """`run` on the pure-ctypes path."""
    def go(chunks: list[bytes]) -> list[str]:
        saved, _lib.SPEEDUPS = _lib.SPEEDUPS, None
        try:
            return run(chunks)
        finally:
            _lib.SPEEDUPS = saved
    return go


def run_a2a_core(chunks: list[bytes]) -> list[str]:
    d = a2a_core.SseDecoder()
    events = []
    for c in chunks:
        events += d.feed(c)
    d.finish()
    return [e.data for e in events]


def run_a2a_core_httpx(chunks: list[bytes]) -> list[str]:
    async def go() -> list[str]:
        d = a2a_core.SseDecoder()
        events = []
        async for c in response(chunks).aiter_bytes():
            events += d.feed(c)
        d.finish()
        return [e.data for e in events]
    return asyncio.run(go())


CONTESTANTS: dict[str, Callable[[list[bytes]], list[str]]] = {
    'sdk': run_sdk,
    'httpx-sse': run_httpx_sse,
    'httpx-sse bare': run_httpx_sse_bare,
    'ctypes': _pure(run_a2a_core),
    'ext': run_a2a_core,
    'ext httpx': run_a2a_core_httpx,
}
RATIOS = ('ctypes', 'ext', 'ext httpx')
#: Goal per stream for `ext / sdk` (issue 17): 5x on one-line events, 10x on multi-line ones.
GOALS = {'multi-line data (9 lines, event+id)': 10.0, 'a2a status updates (~330 B, CRLF)': 5.0,
         'small events (~16 B)': 5.0}


def best_rate(fn: Callable[[list[bytes]], list[str]], chunks: list[bytes], repeat: int) -> tuple[float, list[str]]:
    best = float('inf')
    out: list[str] = []
    for _ in range(repeat):
        t0 = time.process_time()
        out = fn(chunks)
        best = min(best, time.process_time() - t0)
    return len(out) / best, out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--events', type=int, default=20000)
    ap.add_argument('--chunk', type=int, default=16384, help='bytes per chunk (default 16384)')
    ap.add_argument('--repeat', type=int, default=5)
    args = ap.parse_args()
    if a2a_core.speedups() is None:
        sys.exit(f'bench_sse: the compiled extension is not in use ({a2a_core.speedups_status()}); '
                 'install the package (pip install ./bindings/python) and run without A2A_CORE_LIB')
    print(f'# python {platform.python_version()}, {platform.machine()}, '
          f'library {a2a_core.library_path()}, extension {a2a_core.speedups()}, '
          f'chunk {args.chunk} B, {args.events} events per stream, best of {args.repeat} (CPU time)')
    names = list(CONTESTANTS)
    print('| stream | ' + ' | '.join(f'{n} (ev/s)' for n in names) + ' | '
          + ' | '.join(f'{n} / sdk' for n in RATIOS) + ' | goal (ext / sdk) |')
    print('|---' * (len(names) + len(RATIOS) + 2) + '|')
    for label, make in STREAMS.items():
        n = args.events // 4 if 'artifact' in label else args.events
        body = make(n)
        chunks = [body[i : i + args.chunk] for i in range(0, len(body), args.chunk)]
        rates = {}
        reference = None
        for name, fn in CONTESTANTS.items():
            rate, data = best_rate(fn, chunks, args.repeat)
            # every contestant must have materialised the same events with str data
            assert len(data) == n and all(type(d) is str for d in data), (name, len(data))
            if reference is None:
                reference = data
            elif data != reference:
                sys.exit(f'{name} decoded different data than sdk on {label!r}')
            rates[name] = rate
        cells = ' | '.join(f'{rates[nm]:,.0f}' for nm in names)
        ratios = ' | '.join(f'{rates[nm] / rates["sdk"]:.1f}x' for nm in RATIOS)
        goal = GOALS.get(label)
        verdict = '-' if goal is None else (
            f'{goal:.0f}x: {"met" if rates["ext"] / rates["sdk"] >= goal else "NOT met"}')
        print(f'| {label} | {cells} | {ratios} | {verdict} |')


if __name__ == '__main__':
    main()
