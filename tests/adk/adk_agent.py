"""A deterministic ADK agent (no model) served over A2A with ADK's own `to_a2a`, on 127.0.0.1.

    python adk_agent.py [--port N]      prints `READY http://127.0.0.1:<port>` once serving

The agent answers by the first word of the user's text: `fail` raises inside the agent run
(ADK's A2A executor turns it into a FAILED task), `error-event` yields an ADK error event
(`error_code`, `error_message`), anything else is echoed back as the agent's reply."""

from __future__ import annotations

import argparse
import socket
import warnings
from typing import AsyncGenerator

import uvicorn
from google.adk.a2a.utils.agent_to_a2a import to_a2a
from google.adk.agents.base_agent import BaseAgent
from google.adk.agents.invocation_context import InvocationContext
from google.adk.events.event import Event
from google.genai import types


class EchoAgent(BaseAgent):
    """Echoes the user's text; fails on demand."""

    async def _run_async_impl(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
        parts = ctx.user_content.parts if ctx.user_content and ctx.user_content.parts else []
        text = ''.join(p.text or '' for p in parts)
        if text.startswith('fail'):
            raise RuntimeError('upstream declined the request')
        if text.startswith('error-event'):
            yield Event(author=self.name, invocation_id=ctx.invocation_id,
                        error_code='UPSTREAM_DECLINED', error_message='upstream declined the request')
            return
        yield Event(author=self.name, invocation_id=ctx.invocation_id,
                    content=types.Content(role='model', parts=[types.Part(text=text)]))


# ADK marks its A2A support experimental and says so on every use.
warnings.filterwarnings('ignore', message=r'\[EXPERIMENTAL\]')


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument('--port', type=int, default=0)
    port = ap.parse_args().port
    sock = socket.socket()
    sock.bind(('127.0.0.1', port))
    port = sock.getsockname()[1]
    app = to_a2a(EchoAgent(name='echo', description='echoes the text; fail fails'),
                 host='127.0.0.1', port=port)
    server = uvicorn.Server(uvicorn.Config(app, log_level='warning'))
    # Listening before uvicorn starts: connections wait in the accept queue until it serves.
    sock.listen(128)
    print(f'READY http://127.0.0.1:{port}', flush=True)
    server.run(sockets=[sock])


if __name__ == '__main__':
    main()
