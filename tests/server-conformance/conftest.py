"""Server conformance suite: the server under test, and a small client for each of its
interfaces (protocol 1.0 and 0.3, JSON-RPC and HTTP+JSON), written from the specification
(docs/serving.md, "Conformance") with nothing but httpx, so that what is checked is the wire.

The server under test:
- `A2A_CONFORMANCE_URL` set: that server (its card at `<url>/.well-known/agent-card.json`);
  `A2A_CONFORMANCE_TOKEN` is the bearer token it requires, if it requires one.
- otherwise: `$A2A_BIN demo --serve --bearer-token <random>` (the reference agent), started
  for the session and stopped with SIGTERM (it must exit 0).

The server must answer the reference agent's scripted words (`a2a demo --serve` prints
them): `echo <text>`, `fail`, `input`, `auth`, `count <n>`, `drop`; the binding example
servers run the same agent.
"""

from __future__ import annotations

import json
import os
import secrets
import signal
import subprocess
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field

import httpx
import pytest

TIMEOUT = httpx.Timeout(10.0)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line('markers', 'reference_agent: needs the reference agent\'s scripted '
                            'words (run against `a2a demo --serve` only)')
# One client for the session: `httpx.post` builds a client (and its TLS context) per call,
# half a second each.
HTTP = httpx.Client(timeout=TIMEOUT)


@dataclass
class Server:
    url: str
    token: str | None
    card: dict

    def auth(self) -> dict[str, str]:
        return {'Authorization': f'Bearer {self.token}'} if self.token else {}


@pytest.fixture(scope='session')
def server() -> Iterator[Server]:
    url = os.environ.get('A2A_CONFORMANCE_URL')
    if url:
        url = url.rstrip('/')
        card = HTTP.get(url + '/.well-known/agent-card.json', timeout=TIMEOUT).json()
        yield Server(url, os.environ.get('A2A_CONFORMANCE_TOKEN') or None, card)
        return
    binary = os.environ.get('A2A_BIN')
    if not binary:
        pytest.skip('set A2A_CONFORMANCE_URL (a running server) or A2A_BIN (the a2a binary)')
    token = secrets.token_urlsafe(16)
    proc = subprocess.Popen([binary, 'demo', '--serve', '--bearer-token', token],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline() if proc.stdout else ''
        assert line.startswith('READY http://127.0.0.1:'), line
        url = line.split()[1]
        card = HTTP.get(url + '/.well-known/agent-card.json', timeout=TIMEOUT).json()
        yield Server(url, token, card)
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            code = proc.wait(timeout=10)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait(timeout=5)
        assert code == 0, proc.stderr.read() if proc.stderr else ''


# The spec's error names, their JSON-RPC codes (spec §5.4) and HTTP statuses (HTTP+JSON).
CODES = {
    'ParseError': -32700, 'InvalidRequest': -32600, 'MethodNotFound': -32601,
    'InvalidParams': -32602, 'Internal': -32603, 'TaskNotFound': -32001,
    'TaskNotCancelable': -32002, 'PushNotificationNotSupported': -32003,
    'UnsupportedOperation': -32004, 'ContentTypeNotSupported': -32005,
    'VersionNotSupported': -32009,
}
# HTTP+JSON statuses: spec v1.0.1 §5.4 answers every precondition error 400; v1.0.0 had 409
# for TaskNotCancelable (docs/wire.md). Either is conformant.
HTTP_STATUS = {
    'InvalidParams': {400}, 'TaskNotFound': {404}, 'TaskNotCancelable': {400, 409},
    'PushNotificationNotSupported': {400}, 'UnsupportedOperation': {400},
    'VersionNotSupported': {400}, 'MethodNotFound': {404, 405},
}
REASONS = {
    'TaskNotFound': 'TASK_NOT_FOUND', 'TaskNotCancelable': 'TASK_NOT_CANCELABLE',
    'PushNotificationNotSupported': 'PUSH_NOTIFICATION_NOT_SUPPORTED',
    'UnsupportedOperation': 'UNSUPPORTED_OPERATION', 'VersionNotSupported': 'VERSION_NOT_SUPPORTED',
    'InvalidParams': 'INVALID_PARAMS', 'MethodNotFound': 'METHOD_NOT_FOUND',
}

JSONRPC_NAMES = {
    '1.0': {'send': 'SendMessage', 'stream': 'SendStreamingMessage', 'get': 'GetTask',
            'cancel': 'CancelTask', 'list': 'ListTasks', 'subscribe': 'SubscribeToTask',
            'push_set': 'CreateTaskPushNotificationConfig',
            'extended_card': 'GetExtendedAgentCard'},
    '0.3': {'send': 'message/send', 'stream': 'message/stream', 'get': 'tasks/get',
            'cancel': 'tasks/cancel', 'subscribe': 'tasks/resubscribe',
            'push_set': 'tasks/pushNotificationConfig/set'},
}


def state_name(raw: str) -> str:
    """`TASK_STATE_INPUT_REQUIRED` (1.0, 0.3 REST) and `input-required` (0.3 JSON-RPC) both
    as `input-required`."""
    s = raw.removeprefix('TASK_STATE_').lower().replace('_', '-')
    return 'canceled' if s == 'cancelled' else s


@dataclass
class Reply:
    """One answer: the HTTP status, headers and JSON body, and the result or the error
    name it carries."""
    status: int
    headers: httpx.Headers
    body: object
    result: object = None
    error: str | None = None
    error_body: dict = field(default_factory=dict)


@dataclass
class Peer:
    """A client of one interface of the server."""
    server: Server
    version: str
    binding: str
    url: str

    @property
    def label(self) -> str:
        return f'{self.version}-{self.binding}'

    @property
    def rest(self) -> bool:
        return self.binding == 'HTTP+JSON'

    def headers(self, extra: dict | None = None) -> dict[str, str]:
        h = {'Content-Type': 'application/json', **self.server.auth()}
        if self.version == '1.0':
            h['A2A-Version'] = '1.0'
        h.update(extra or {})
        return h

    # ---- messages in the interface's own form
    def message(self, text: str, task_id: str | None = None, context_id: str | None = None) -> dict:
        m: dict = {'messageId': str(uuid.uuid4())}
        if self.version == '0.3' and not self.rest:
            m.update(kind='message', role='user', parts=[{'kind': 'text', 'text': text}])
        elif self.version == '0.3':
            m.update(role='ROLE_USER', content=[{'text': text}])
        else:
            m.update(role='ROLE_USER', parts=[{'text': text}])
        if task_id:
            m['taskId'] = task_id
        if context_id:
            m['contextId'] = context_id
        return m

    # ---- calls
    def rpc(self, method: str, params: dict | None, *, rpc_id: object = 1,
            headers: dict | None = None) -> Reply:
        body = {'jsonrpc': '2.0', 'id': rpc_id, 'method': method}
        if params is not None:
            body['params'] = params
        return self.post_raw(json.dumps(body).encode(), headers)

    def post_raw(self, data: bytes, headers: dict | None = None) -> Reply:
        r = HTTP.post(self.url, content=data, headers=self.headers(headers), timeout=TIMEOUT)
        return self._read(r)

    def _read(self, r: httpx.Response) -> Reply:
        try:
            body = r.json()
        except ValueError:
            body = r.text
        reply = Reply(r.status_code, r.headers, body)
        if self.rest:
            if r.status_code >= 400:
                err = body.get('error', {}) if isinstance(body, dict) else {}
                reply.error_body = err
                reasons = [d.get('reason') for d in err.get('details', []) if isinstance(d, dict)]
                reply.error = next((n for n, why in REASONS.items() if why in reasons), None)
                if reply.error is None:
                    reply.error = {400: 'InvalidParams', 404: 'TaskNotFound',
                                   409: 'TaskNotCancelable'}.get(r.status_code, str(r.status_code))
            else:
                reply.result = body
        elif isinstance(body, dict) and 'error' in body:
            reply.error_body = body['error']
            code = body['error'].get('code')
            reply.error = next((n for n, c in CODES.items() if c == code), str(code))
        elif isinstance(body, dict):
            reply.result = body.get('result')
        return reply

    def call(self, what: str, params: dict, *, task_id: str | None = None,
             query: dict | None = None) -> Reply:
        """One A2A operation by its short name (`send`, `get`, `cancel`, `list`,
        `push_set`, `extended_card`)."""
        if not self.rest:
            return self.rpc(JSONRPC_NAMES[self.version][what], params)
        prefix = self.url + ('/v1' if self.version == '0.3' else '')
        verb, path = {
            'send': ('POST', '/message:send'),
            'get': ('GET', f'/tasks/{task_id}'),
            'cancel': ('POST', f'/tasks/{task_id}:cancel'),
            'list': ('GET', '/tasks'),
            'push_set': ('POST', f'/tasks/{task_id}/pushNotificationConfigs'),
            'extended_card': ('GET', '/extendedAgentCard'),
        }[what]
        body = json.dumps(params).encode() if verb == 'POST' and params else None
        r = HTTP.request(verb, prefix + path, content=body, params=query,
                          headers=self.headers(), timeout=TIMEOUT)
        return self._read(r)

    def send(self, text: str, **kw) -> Reply:
        return self.call('send', {'message': self.message(text, **kw)})

    def get(self, task_id: str, history_length: int | None = None) -> Reply:
        if self.rest:
            q = {} if history_length is None else {'historyLength': history_length}
            return self.call('get', {}, task_id=task_id, query=q)
        p: dict = {'id': task_id}
        if history_length is not None:
            p['historyLength'] = history_length
        return self.call('get', p)

    def cancel(self, task_id: str) -> Reply:
        return self.call('cancel', {} if self.rest else {'id': task_id}, task_id=task_id)

    def list(self, **filters) -> Reply:
        if self.rest:
            q = {k: (str(v).lower() if isinstance(v, bool) else v) for k, v in filters.items()}
            return self.call('list', {}, query=q)
        return self.call('list', filters)

    def stream(self, what: str, params: dict, *, task_id: str | None = None,
               headers: dict | None = None, limit: int = 200,
               on_event=None) -> tuple[int, str, list[dict], list[str]]:
        """A streaming call: (HTTP status, content type, the events' JSON, their SSE ids).
        `on_event` is called with each event as it arrives."""
        if self.rest:
            prefix = self.url + ('/v1' if self.version == '0.3' else '')
            path = '/message:stream' if what == 'stream' else f'/tasks/{task_id}:subscribe'
            req = ('POST', prefix + path, json.dumps(params).encode() if params else None)
        else:
            body = {'jsonrpc': '2.0', 'id': 7, 'method': JSONRPC_NAMES[self.version][what],
                    'params': params}
            req = ('POST', self.url, json.dumps(body).encode())
        events: list[dict] = []
        ids: list[str] = []
        with HTTP.stream(req[0], req[1], content=req[2], headers=self.headers(headers),
                          timeout=TIMEOUT) as r:
            ctype = r.headers.get('content-type', '')
            if not ctype.startswith('text/event-stream'):
                r.read()
                return r.status_code, ctype, [r.json()], []
            data: list[str] = []
            event_id = ''
            try:
                for line in r.iter_lines():
                    if line.startswith('data:'):
                        data.append(line[5:].lstrip(' '))
                    elif line.startswith('id:'):
                        event_id = line[3:].strip()
                    elif line == '' and data:
                        events.append(json.loads('\n'.join(data)))
                        ids.append(event_id)
                        if on_event:
                            on_event(events[-1])
                        data, event_id = [], ''
                        if len(events) >= limit:
                            break
            except httpx.RemoteProtocolError:
                # The server cut the stream (the `drop` script does): what arrived stands.
                ids.append('CUT')
            return r.status_code, ctype, events, ids

    def event_payload(self, event: dict) -> dict:
        """The stream event itself (JSON-RPC wraps it in a response)."""
        return event if self.rest else event.get('result', event)


def task_of(result: object) -> dict:
    """The task in a send or get result: 1.0 and REST wrap it (`{"task": ...}`), 0.3
    JSON-RPC sends it bare (`kind: task`)."""
    assert isinstance(result, dict), result
    return result['task'] if 'task' in result else result


def event_kind(payload: dict) -> tuple[str, dict]:
    """(kind, body) of a stream event in any form: `task`, `status`, `artifact`, `message`."""
    for key, kind in (('task', 'task'), ('statusUpdate', 'status'), ('status_update', 'status'),
                      ('artifactUpdate', 'artifact'), ('artifact_update', 'artifact'),
                      ('message', 'message'), ('msg', 'message')):
        if key in payload and isinstance(payload[key], dict):
            return kind, payload[key]
    kind = {'task': 'task', 'status-update': 'status', 'artifact-update': 'artifact',
            'message': 'message'}.get(payload.get('kind', ''), '?')
    return kind, payload


def interfaces(card: dict) -> list[tuple[str, str, str]]:
    """(version, binding, url) of every interface the card declares."""
    out = []
    for i in card.get('supportedInterfaces', []):
        v = '1.0' if i.get('protocolVersion', '').startswith('1.') else '0.3'
        out.append((v, i.get('protocolBinding', ''), i.get('url', '')))
    if not out and card.get('url'):
        out.append(('0.3', card.get('preferredTransport', 'JSONRPC'), card['url']))
        for extra in card.get('additionalInterfaces', []):
            out.append(('0.3', extra.get('transport', ''), extra.get('url', '')))
    return [o for o in dict.fromkeys(out) if o[1] in ('JSONRPC', 'HTTP+JSON')]


ALL = [('1.0', 'JSONRPC'), ('0.3', 'JSONRPC'), ('1.0', 'HTTP+JSON'), ('0.3', 'HTTP+JSON')]


@pytest.fixture(params=ALL, ids=lambda p: f'{p[0]}-{p[1]}')
def peer(request, server: Server) -> Peer:
    version, binding = request.param
    for v, b, url in interfaces(server.card):
        if (v, b) == (version, binding):
            return Peer(server, version, binding, url)
    pytest.skip(f'the card declares no {version} {binding} interface')


@pytest.fixture(params=[p for p in ALL if p[1] == 'JSONRPC'], ids=lambda p: f'{p[0]}-{p[1]}')
def rpc_peer(request, server: Server) -> Peer:
    version, binding = request.param
    for v, b, url in interfaces(server.card):
        if (v, b) == (version, binding):
            return Peer(server, version, binding, url)
    pytest.skip(f'the card declares no {version} JSON-RPC interface')
