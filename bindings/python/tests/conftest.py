"""Shared helpers: the conformance fixtures of bindings/fixtures/ (read from the repository
this test suite lives in; no other path is read)."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[3]
FIXTURES = REPO / 'bindings' / 'fixtures'


def load(name: str) -> Any:
    """One fixture file, parsed."""
    return json.loads((FIXTURES / name).read_text(encoding='utf-8'))


def body_of(inp: dict[str, Any]) -> bytes:
    """An outcome row's body: `body` (UTF-8 text), `body_base64`, or `body_repeat`
    (head + fill * count + tail, for bodies too large to write out)."""
    if 'body_base64' in inp:
        return base64.b64decode(inp['body_base64'])
    if 'body_repeat' in inp:
        r = inp['body_repeat']
        return (r['head'] + r['fill'] * r['count'] + r['tail']).encode('utf-8')
    return inp['body'].encode('utf-8')


#: An outcome row's streaming `method` as the machine's method number (`a2a_method`:
#: SendStreamingMessage 2, SubscribeToTask 6), whatever version and binding name it.
_STREAM_METHODS = {'message/stream': 2, 'SendStreamingMessage': 2, 'POST /message:stream': 2,
                   'POST /v1/message:stream': 2, 'tasks/resubscribe': 6}


def stream_call(inp: dict[str, Any]) -> Any:
    """A new streaming `_machine.Call` for an outcome row's input (see `machine_stream`), its
    request not yet handed out."""
    from a2a_core import _abi, _drive, _lib, _machine
    from a2a_core.errors import check

    method = _STREAM_METHODS[inp['method']]
    version, binding = _drive.interface_codes(inp['version'], inp['binding'])
    config = _machine.Config(allow_http=True, send_retries=0, stream_resubscribes=0)
    state = _machine.State.for_target(config, 'http://agent.test/a2a', version, binding, 1)
    settings = _machine.Settings()
    rid = inp.get('request_id')
    if rid is not None:
        b = str(rid).encode('utf-8')
        if hasattr(_abi, 'A2A_CALL_TEXT_OPTION_RPC_ID'):  # the typed option setters (h-cfg22)
            check(_lib.lib.a2a_call_settings_set_text(settings.ptr,
                                                      _abi.A2A_CALL_TEXT_OPTION_RPC_ID, b, len(b)))
        else:
            check(_lib.lib.a2a_call_settings_set_rpc_id(settings.ptr, _abi.A2A_RPC_ID_KIND_STRING,
                                                         0, b, len(b)))
    params = ({'id': 'task-row'} if method == 6 else
              {'message': {'role': 'ROLE_USER', 'messageId': 'm-row', 'parts': [{'text': 'row'}]}})
    return _machine.Call.new(state, method, json.dumps(params).encode(), settings, 1)


def machine_stream(inp: dict[str, Any], chunk: int) -> tuple[list[Any], Any]:
    """Runs an outcome row's text/event-stream response through the library's client
    machine, sans-IO (the way every client of the package reads a stream): a streaming call
    on the row's interface (no card; no resubscribe, no resend) with the row's JSON-RPC id,
    whose one request is answered with the row's status, Content-Type and body in pieces of
    `chunk` bytes at a fixed time. Returns the items' outcomes and the end's outcome."""
    from a2a_core import _machine
    from a2a_core.outcome import Outcome

    call = stream_call(inp)
    t = call.poll_transmit(1)
    assert t is not None and call.poll_transmit(1) is None
    request_id = int(t.request_id)
    headers = [(b'Content-Type', inp['content_type'].encode('utf-8'))]
    body = body_of(inp)
    items: list[Any] = []
    end: list[Any] = []

    def drain() -> None:
        while not end and (ev := call.poll_event()) is not None:
            if ev.kind == _machine.EVENT_ITEM:
                items.append(Outcome._from_ptr(ev.outcome, owned=False))
            elif ev.kind == _machine.EVENT_FINISHED:
                end.append(Outcome._from_ptr(ev.outcome, owned=False))

    call.handle_head(request_id, inp['status'], headers, 2)
    drain()
    for i in range(0, len(body), chunk):
        if end:
            break
        call.handle_body(request_id, body[i:i + chunk], 2)
        drain()
    if not end:
        call.handle_end(request_id, 2)
        drain()
    assert end, 'the machine did not finish the call'
    return items, end[0]
