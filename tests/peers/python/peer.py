#!/usr/bin/env python3
"""A deterministic A2A test agent on the Python `a2a-sdk` server (starlette + uvicorn).

Used by a2a-core's interop tests as a real peer. It answers by the first word of the
user's text (see tests/peers/README.md for the full table):

    echo <x>      completed task, one artifact "echo" with the text <x>
    fail          FAILED task, status message "Agent execution failed. (error_id: <12 hex>)"
    crash         uncaught exception in the executor (the SDK's own failure path)
    slow <s>      working, sleeps <s> seconds, then one artifact and completed
    stream <n>    working, n artifact updates chunk-0..chunk-(n-1), completed
    ticks <n> [<s>]  working, n status updates "tick i" <s> seconds apart (default 1), completed
    input         input-required; the follow-up message completes it ("got input: <text>")
    reject        rejected task
    cancel-me     working until canceled (or completed after --cancel-wait seconds)
    message <x>   a direct Message reply with the text <x> (no task)

Command line contract (shared with tests/peers/js/peer.mjs):

    peer.py [--host 127.0.0.1] [--port 0] [--version both|1.0|0.3] [--ping SECONDS]

Port 0 picks a free port. Once the server accepts connections, exactly one line
`READY <base_url>` is printed on standard output (base_url has no trailing slash).
SIGTERM and SIGINT stop it (uvicorn's graceful shutdown, bounded by --grace).
Logs, including each `fail` error_id, go to standard error.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import secrets
import signal
import socket
import sys

import uvicorn
from sse_starlette.sse import EventSourceResponse
from google.protobuf import json_format, struct_pb2
from starlette.applications import Starlette
from starlette.routing import Mount

from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes import (
    create_agent_card_routes,
    create_jsonrpc_routes,
    create_rest_routes,
)
from a2a.server.tasks import (
    InMemoryPushNotificationConfigStore,
    InMemoryTaskStore,
    TaskUpdater,
)
from a2a.types import (
    AgentCapabilities,
    AgentCard,
    AgentInterface,
    AgentSkill,
    Message,
    Part,
    Role,
    Task,
    TaskState,
    TaskStatus,
)

LOG = logging.getLogger('py-peer')

# Upper bound for `slow` and `cancel-me`, so that a test can never park the peer forever.
MAX_SLEEP_SECONDS = 600.0


def text_part(text: str) -> Part:
    """One text part."""
    return Part(text=text)


def words_of(context: RequestContext) -> tuple[str, str]:
    """The first word of the user's text and the rest (stripped)."""
    text = context.get_user_input().strip()
    head, _, rest = text.partition(' ')
    return head, rest.strip()


def number(arg: str, default: float, lo: float, hi: float) -> float:
    """Parse a numeric argument, clamped to [lo, hi]; `default` when absent or invalid."""
    try:
        value = float(arg.split()[0]) if arg else default
    except ValueError:
        value = default
    return min(max(value, lo), hi)


class DeterministicExecutor(AgentExecutor):
    """Behaviour chosen by the first word of the text; see the module doc."""

    def __init__(self, cancel_wait: float) -> None:
        self.cancel_wait = cancel_wait

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        head, rest = words_of(context)
        task = context.current_task

        # A follow-up message to a task parked in input-required completes it.
        if task is not None and task.status.state == TaskState.TASK_STATE_INPUT_REQUIRED:
            updater = TaskUpdater(event_queue, task.id, task.context_id)
            text = context.get_user_input().strip()
            await updater.add_artifact(
                [text_part(f'got input: {text}')], name='input', last_chunk=True
            )
            await updater.complete()
            return

        if head == 'message':
            await event_queue.enqueue_event(
                Message(
                    role=Role.ROLE_AGENT,
                    message_id=secrets.token_hex(16),
                    context_id=context.context_id or '',
                    parts=[text_part(rest)],
                )
            )
            return

        # Every other command is a task. Both SDKs require a Task (or Message) as the
        # first event: enqueue the SUBMITTED snapshot with the user's message as history.
        if task is None:
            assert context.message is not None
            task = Task(
                id=context.task_id or '',
                context_id=context.context_id or '',
                status=TaskStatus(state=TaskState.TASK_STATE_SUBMITTED),
                history=[context.message],
            )
            await event_queue.enqueue_event(task)
        updater = TaskUpdater(event_queue, task.id, task.context_id)

        if head == 'crash':
            raise RuntimeError('deliberate uncaught crash requested by "crash"')

        if head == 'fail':
            # The ADK shape: an opaque id in the status text, the cause only in our log.
            error_id = secrets.token_hex(6)
            LOG.error('fail requested: error_id=%s task=%s', error_id, task.id)
            await updater.failed(
                updater.new_agent_message(
                    [text_part(f'Agent execution failed. (error_id: {error_id})')]
                )
            )
            return

        if head == 'reject':
            await updater.reject(
                updater.new_agent_message([text_part('rejected by request')])
            )
            return

        if head == 'input':
            await updater.requires_input(
                updater.new_agent_message([text_part('need more input')])
            )
            return

        await updater.start_work()

        if head == 'echo':
            await updater.add_artifact([text_part(rest)], name='echo', last_chunk=True)
        elif head == 'parts':
            # One of every part kind: text, data, file bytes, file URL.
            data = struct_pb2.Value()
            json_format.ParseDict({'answer': 42, 'items': ['a', 'b'], 'ok': True}, data)
            await updater.add_artifact(
                [
                    text_part(rest or 'every part kind'),
                    Part(data=data, media_type='application/json'),
                    Part(raw=b'hello file\n', filename='hello.txt', media_type='text/plain'),
                    Part(url='https://files.example/report.pdf', filename='report.pdf',
                         media_type='application/pdf'),
                ],
                name='parts',
                last_chunk=True,
            )
        elif head == 'mirror':
            # The user's parts and message metadata back, as the SDK read them.
            assert context.message is not None
            metadata = json_format.MessageToDict(context.message.metadata) or None
            await updater.add_artifact(
                list(context.message.parts), name='mirror', metadata=metadata, last_chunk=True
            )
        elif head == 'slow':
            seconds = number(rest, 1.0, 0.0, MAX_SLEEP_SECONDS)
            await asyncio.sleep(seconds)
            await updater.add_artifact(
                [text_part(f'slept {rest or "1"} s')], name='slow', last_chunk=True
            )
        elif head == 'stream':
            count = int(number(rest, 3, 0, 10_000))
            for i in range(count):
                await updater.add_artifact(
                    [text_part(f'chunk {i}')],
                    artifact_id=f'chunk-{i}',
                    name=f'chunk-{i}',
                    append=False,
                    last_chunk=True,
                )
        elif head == 'ticks':
            parts = rest.split()
            count = int(number(parts[0] if parts else '', 3, 0, 10_000))
            interval = number(parts[1] if len(parts) > 1 else '', 1.0, 0.0, 60.0)
            for i in range(count):
                await asyncio.sleep(interval)
                await updater.update_status(
                    TaskState.TASK_STATE_WORKING,
                    message=updater.new_agent_message([text_part(f'tick {i}')]),
                )
        elif head == 'cancel-me':
            # Parked until CancelTask cancels this coroutine; bounded so nothing hangs.
            await asyncio.sleep(self.cancel_wait)
            await updater.add_artifact(
                [text_part('not canceled')], name='cancel-me', last_chunk=True
            )
        else:
            await updater.add_artifact(
                [
                    text_part(
                        f'unknown command {head!r}; known: echo fail crash slow stream '
                        'ticks input reject cancel-me message parts mirror'
                    )
                ],
                name='unknown',
                last_chunk=True,
            )
        await updater.complete()

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        task = context.current_task
        task_id = context.task_id or (task.id if task else '')
        context_id = context.context_id or (task.context_id if task else '')
        updater = TaskUpdater(event_queue, task_id, context_id)
        await updater.cancel(updater.new_agent_message([text_part('cancelled by request')]))


def build_card(base_url: str, version: str, push: bool = False) -> AgentCard:
    """The agent card: 1.0 interfaces first, then the 0.3 ones (compat), per --version."""
    interfaces = []
    versions = {'both': ['1.0', '0.3'], '1.0': ['1.0'], '0.3': ['0.3']}[version]
    for v in versions:
        interfaces.append(
            AgentInterface(url=f'{base_url}/', protocol_binding='JSONRPC', protocol_version=v)
        )
        interfaces.append(
            AgentInterface(
                url=f'{base_url}/rest', protocol_binding='HTTP+JSON', protocol_version=v
            )
        )
    return AgentCard(
        name='py-deterministic-peer',
        description='Deterministic test agent (a2a-core interop tests): '
        'echo, fail, crash, slow, stream, ticks, input, reject, cancel-me, message, parts, mirror',
        version='1.0.0',
        supported_interfaces=interfaces,
        capabilities=AgentCapabilities(
            streaming=True, push_notifications=push, extended_agent_card=push
        ),
        default_input_modes=['text/plain'],
        default_output_modes=['text/plain'],
        skills=[
            AgentSkill(
                id='deterministic',
                name='deterministic',
                description='Answers by the first word of the text',
                tags=['test'],
                examples=['echo hello', 'stream 3', 'fail'],
            )
        ],
    )


def build_app(base_url: str, version: str, cancel_wait: float, push: bool = False) -> Starlette:
    """JSON-RPC on POST /, HTTP+JSON under /rest (0.3 under /rest/v1), card at the well-known
    path. `push`: push-notification configs kept in memory (create / get / list / delete;
    nothing is ever delivered) and an extended card (the public one with one more skill),
    both declared in the card."""
    card = build_card(base_url, version, push)
    extended = None
    if push:
        extended = AgentCard()
        extended.CopyFrom(card)
        extended.skills.append(
            AgentSkill(
                id='extended',
                name='extended',
                description='Only in the extended card',
                tags=['test'],
            )
        )
    handler = DefaultRequestHandler(
        agent_executor=DeterministicExecutor(cancel_wait),
        task_store=InMemoryTaskStore(),
        agent_card=card,
        push_config_store=InMemoryPushNotificationConfigStore() if push else None,
        extended_agent_card=extended,
    )
    compat = version in ('both', '0.3')
    routes = [
        *create_agent_card_routes(card),
        Mount('/rest', routes=create_rest_routes(handler, enable_v0_3_compat=compat)),
        *create_jsonrpc_routes(handler, rpc_url='/', enable_v0_3_compat=compat),
    ]
    return Starlette(routes=routes)


async def serve(args: argparse.Namespace) -> None:
    """Bind first (so port 0 is resolved before the card is built), then run uvicorn."""
    sock = socket.socket(socket.AF_INET6 if ':' in args.host else socket.AF_INET)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((args.host, args.port))
    sock.listen(128)
    port = sock.getsockname()[1]
    host = f'[{args.host}]' if ':' in args.host else args.host
    base_url = f'http://{host}:{port}'

    # The SDK does not configure sse-starlette's keep-alive; its class default (15 s) is
    # the knob. A short interval keeps keep-alive tests fast.
    EventSourceResponse.DEFAULT_PING_INTERVAL = args.ping

    app = build_app(base_url, args.version, args.cancel_wait, args.push)
    config = uvicorn.Config(
        app,
        log_level='warning',
        timeout_graceful_shutdown=args.grace,
        lifespan='off',
    )
    server = uvicorn.Server(config)

    # uvicorn swaps in its own SIGTERM/SIGINT handlers while serving, restores the previous
    # ones afterwards and re-raises the signal it caught, which would end the process with
    # status -15. This handler is what it restores: it turns that re-raise (and a signal
    # during start-up) into a clean shutdown, so SIGTERM exits with status 0.
    def stop(signum: int, frame: object) -> None:
        server.should_exit = True

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)

    async def announce() -> None:
        while not server.started:
            if server.should_exit:
                return
            await asyncio.sleep(0.01)
        print(f'READY {base_url}', flush=True)
        LOG.info('serving %s (version=%s, ping=%ss)', base_url, args.version, args.ping)

    announcer = asyncio.create_task(announce())
    await server.serve(sockets=[sock])
    announcer.cancel()


def main() -> int:
    """Parse the command line and serve until SIGTERM/SIGINT."""
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--host', default='127.0.0.1')
    parser.add_argument('--port', type=int, default=0, help='0 picks a free port')
    parser.add_argument(
        '--version',
        choices=['both', '1.0', '0.3'],
        default='both',
        help='protocol versions served: both (1.0 with 0.3 compat), 1.0 only '
        '(0.3 method names -> -32601), or 0.3 (card lists 0.3 only; the SDK still '
        'serves 1.0 method names)',
    )
    parser.add_argument(
        '--ping', type=float, default=15.0, help='SSE keep-alive comment interval, seconds'
    )
    parser.add_argument(
        '--cancel-wait',
        type=float,
        default=60.0,
        help='how long cancel-me waits for a cancel before completing',
    )
    parser.add_argument(
        '--push',
        action='store_true',
        help='keep push-notification configs (never delivered) and serve an extended card',
    )
    parser.add_argument(
        '--grace', type=float, default=3.0, help='graceful shutdown bound, seconds'
    )
    args = parser.parse_args()
    if args.ping <= 0:
        parser.error('--ping must be > 0')
    logging.basicConfig(
        stream=sys.stderr, level=logging.INFO, format='py-peer %(levelname)s %(message)s'
    )
    asyncio.run(serve(args))
    return 0


if __name__ == '__main__':
    sys.exit(main())
