"""An A2A agent served with a2a_core.server under uvicorn.

    python examples/serve.py [--port 8080] [--keepalive 15]

prints `READY http://127.0.0.1:<port>` once it listens, then serves the card at
`/.well-known/agent-card.json`, JSON-RPC on `POST /` and HTTP+JSON under `/rest`, in A2A 1.0
and 0.3. What the agent does with the first word of a message:

- `echo <text>`: answers with a message, `<text>`;
- `count <n>`: a task that streams n artifact chunks (a blocking send waits for the end);
- `ask`: a task that stops at INPUT_REQUIRED; the next message on it (same taskId)
  completes it with that message's text;
- `fail`: the handler raises; the client gets a FAILED task with an error_id, the log has
  the exception;
- `busy`: refused before it runs (before_execute): a CANCELED task marked `admission`;
- `slow <s>`: a task that waits s seconds (streams keep-alive comments meanwhile);
- `refuse`: answers with a protocol error (InvalidParams) instead of a task;
- anything else: echoed back.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import signal
import socket
import sys

import uvicorn

from a2a_core import ErrorName
from a2a_core.server import A2AServer, Hint, Refused, RequestContext, ServerError


async def handle(ctx: RequestContext):
    word, _, rest = ctx.text.strip().partition(' ')
    if ctx.current_task is not None:  # the answer to `ask`
        return ctx.task('completed', f'thanks for {ctx.text!r}', artifacts=[ctx.text])
    if word == 'echo':
        return rest
    if word == 'refuse':
        raise ServerError(ErrorName.INVALID_PARAMS, f'refused: {rest}')
    if word == 'fail':
        raise RuntimeError('the agent broke (this text stays in the server log)')
    if word == 'ask':
        return ctx.task('input-required', 'what is your name?')
    if word in ('count', 'slow'):
        n = float(rest or 3)

        async def events():
            yield ctx.status('working')
            if word == 'slow':
                await asyncio.sleep(n)
                yield ctx.artifact('done', name='slow')
                return
            for i in range(int(n)):
                yield ctx.artifact(f'chunk {i + 1} ', artifact_id='count', append=i > 0,
                                   last_chunk=i == int(n) - 1)
                await asyncio.sleep(0.01)

        return events()
    return ctx.text


def before_execute(ctx: RequestContext) -> None:
    if ctx.text.strip() == 'busy':
        raise Refused('the agent is at capacity')


def after_execute(ctx: RequestContext, error: BaseException | None) -> Hint | None:
    # A stable hint on every failure: the client's outcome reads retryable=false.
    return Hint(retryable=False, pairs={'reason': 'bug'}) if error is not None else None


def app(keepalive: float = 0.0) -> A2AServer:
    """The example agent (also used by the tests)."""
    return A2AServer(
        handle,
        name='example-agent',
        description='a2a-core Python example agent',
        version='1.0.0',
        skills=[('demo', 'Demo', 'echo, count, slow, ask, refuse, fail, busy', ['demo'])],
        before_execute=before_execute,
        after_execute=after_execute,
        keepalive=keepalive,
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--host', default='127.0.0.1')
    ap.add_argument('--port', type=int, default=0)
    ap.add_argument('--keepalive', type=float, default=0.0,
                    help='seconds between SSE keep-alive comments (0: 15 s)')
    args = ap.parse_args()
    logging.basicConfig(level=logging.INFO, stream=sys.stderr)
    sock = socket.socket(socket.AF_INET6 if ':' in args.host else socket.AF_INET)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((args.host, args.port))
    sock.listen(128)
    port = sock.getsockname()[1]
    host = f'[{args.host}]' if ':' in args.host else args.host
    print(f'READY http://{host}:{port}', flush=True)
    config = uvicorn.Config(app(args.keepalive), log_level='warning', timeout_graceful_shutdown=3)
    server = uvicorn.Server(config)

    # uvicorn re-raises the SIGTERM/SIGINT it handled once it has shut down, under the
    # handler that was installed before it started: this one, so the process exits 0.
    def stop(signum: int, frame: object) -> None:
        server.should_exit = True

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    server.run(sockets=[sock])


if __name__ == '__main__':
    main()
