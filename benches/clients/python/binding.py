"""The Python binding (bindings/python, `a2a_core.Client`: the driver over the C ABI) in the
client-overhead harness: the card resolved once, then `send` and `stream` as an application
calls them (protocol 0.3), every answer asserted from the binding's results. Only the
binding's documented API is used. The harness imports the package from bindings/python/src
with A2A_CORE_LIB naming the release library, or the .venv's installed package."""

from __future__ import annotations

from a2a_core import Client, ClientStreamEnd, StreamItem, StreamItemKind, TaskState

from common import Params, Report, Section, check, rss_kib


def send(c: Client) -> None:
    o = c.send('ping')
    check(o.state == TaskState.COMPLETED, lambda: o.to_json())
    check(o.result is not None and o.result.text == 'ping', lambda: repr(o.result))


def stream(c: Client, n: int) -> None:
    items, last, end = 0, '', None
    for ev in c.stream(f'stream {n}'):
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


def main() -> None:
    p = Params()
    c = Client(p.url, allow_http=True, protocol='0.3')
    for _ in range(p.warmup):
        send(c)
    stream(c, max(p.warmup_events, 4))

    r = Report('python-binding', sends=p.sends, events=p.events, idle=p.idle)
    s = Section()
    for _ in range(p.sends):
        send(c)
    r.send_wall, r.send_cpu = s.stop()
    s = Section()
    stream(c, p.events)
    r.stream_wall, r.stream_cpu = s.stop()

    if p.idle:
        r.rss_before = rss_kib()
        held = []
        for _ in range(p.idle):
            g = c.stream('hold')
            first = next(g)
            check(isinstance(first, StreamItem) and first.kind == StreamItemKind.TASK, lambda: repr(first))
            held.append(g)
        r.rss_after = rss_kib()
        for g in held:
            g.close()
    c.close()
    r.print()


if __name__ == '__main__':
    main()
