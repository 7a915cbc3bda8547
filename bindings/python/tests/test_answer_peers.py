"""The answer through the Python Client against both real peers (the Python a2a-sdk and the
JS @a2a-js/sdk servers, tests/peers), every protocol version and binding they offer: the
agent's whole answer as typed values (text, data as Python values, file bytes decoded, file
URI), every part kind sent and mirrored back with message metadata, on send and on stream
(the stream's end hands over the assembled answer)."""

from __future__ import annotations

import sys
from collections.abc import Iterator

import pytest
from conftest import REPO

from a2a_core import (
    Client,
    ClientStreamEnd,
    DataPart,
    FilePart,
    Message,
    StreamItem,
    Task,
    TextPart,
)

sys.path.insert(0, str(REPO / 'tests' / 'peers'))
from launch import Peer, peer  # noqa: E402

FAST = {'connect_timeout_ms': 3000, 'call_timeout_ms': 20000, 'stream_idle_timeout_ms': 20000}
COMBOS = [(v, b) for v in ('0.3', '1.0') for b in ('JSONRPC', 'HTTP+JSON')]


@pytest.fixture(scope='module', params=['python', 'js'])
def any_peer(request: pytest.FixtureRequest) -> Iterator[Peer]:
    with peer(request.param) as p:
        yield p


def quirky_rest03(p: Peer, version: str, binding: str) -> bool:
    return version == '0.3' and binding == 'HTTP+JSON'


def file_data(p: Peer, version: str, binding: str, part: FilePart) -> bytes:
    """Known quirk (tests/peers/README.md): the Python SDK's 0.3 HTTP+JSON layer sends file
    bytes base64-encoded twice; the answer is the wire, decoded once."""
    import base64
    assert part.data is not None
    if p.kind == 'python' and quirky_rest03(p, version, binding):
        return base64.b64decode(part.data)
    return part.data


@pytest.mark.parametrize('version,binding', COMBOS)
def test_send_returns_the_whole_answer(any_peer: Peer, version: str, binding: str) -> None:
    with Client(any_peer.url, allow_http=True, protocol=version, binding=binding, **FAST) as c:
        o = c.send('parts hello')
        assert o.state == 'completed' and o.exit_code == 0
        task = o.result
        assert isinstance(task, Task) and task.status.state == 'completed'
        assert task.text == 'hello'
        text, data, blob, link = task.artifacts[0].parts
        assert isinstance(text, TextPart) and text.text == 'hello'
        assert isinstance(data, DataPart)
        assert data.data == {'answer': 42, 'items': ['a', 'b'], 'ok': True}
        assert isinstance(blob, FilePart) and blob.media_type == 'text/plain'
        assert file_data(any_peer, version, binding, blob) == b'hello file\n'
        assert isinstance(link, FilePart) and link.uri == 'https://files.example/report.pdf'
        assert link.data is None and link.media_type == 'application/pdf'


@pytest.mark.parametrize('version,binding', COMBOS)
def test_every_part_kind_sent_comes_back(any_peer: Peer, version: str, binding: str) -> None:
    parts = [DataPart({'k': [1, 2]}), FilePart(uri='https://files.example/a.pdf',
                                               media_type='application/pdf')]
    py03 = any_peer.kind == 'python' and quirky_rest03(any_peer, version, binding)
    if not py03:  # the Python SDK's 0.3 HTTP+JSON layer cannot read file bytes (quirk)
        parts.insert(1, FilePart(data=b'\x00\x01binary\xff', name='b.bin',
                                 media_type='application/octet-stream'))
    with Client(any_peer.url, allow_http=True, protocol=version, binding=binding, **FAST) as c:
        o = c.send('mirror me', parts=parts, metadata={'trace': 'py'})
        assert o.state == 'completed', o
        art = o.result.artifacts[0]
        assert art.metadata == {'trace': 'py'}
        got = art.parts
        assert isinstance(got[0], TextPart) and got[0].text == 'mirror me'
        assert got[1] == DataPart({'k': [1, 2]})
        if not py03:
            assert got[2].data == b'\x00\x01binary\xff'
            assert got[2].media_type == 'application/octet-stream'
        assert got[-1].uri == 'https://files.example/a.pdf'

        # The same message as a stream: the end's answer is the assembled task.
        events = list(c.stream('mirror me', parts=parts, metadata={'trace': 'py'}))
        end = events[-1]
        assert isinstance(end, ClientStreamEnd) and not end.lost_content
        assert end.outcome.state == 'completed'
        assert isinstance(end.answer, Task)
        assert [p.kind for p in end.answer.artifacts[0].parts] == [p.kind for p in got]
        items = [e for e in events if isinstance(e, StreamItem)]
        updates = [i.outcome.result for i in items if i.kind == 'artifact-update']
        assert updates and updates[0].artifact.parts == end.answer.artifacts[0].parts


def test_a_direct_message_is_the_answer(any_peer: Peer) -> None:
    with Client(any_peer.url, allow_http=True, **FAST) as c:
        o = c.send('message hi there')
        assert isinstance(o.result, Message) and o.result.role == 'agent'
        assert o.result.text == 'hi there'


@pytest.mark.parametrize('version,binding', COMBOS)
def test_history_length_trims_the_tasks_history(any_peer: Peer, version: str,
                                                binding: str) -> None:
    """`history_length` (A2A historyLength) reaches the peer: a task with three history
    messages (input, the agent's question, the follow-up) comes back with all three when
    unset and with the last one when 1; a send of 1.0 with 0 carries none (0 is not unset)."""
    with Client(any_peer.url, allow_http=True, protocol=version, binding=binding, **FAST) as c:
        first = c.send('input')
        assert first.state == 'input-required'
        assert isinstance(first.result, Task)
        task_id = first.result.id
        assert c.send('more', task_id=task_id).state == 'completed'
        full = c.get(task_id).result
        assert isinstance(full, Task) and len(full.history) == 3
        one = c.get(task_id, history_length=1).result
        assert isinstance(one, Task) and len(one.history) == 1
        assert one.history[0].text == 'more'
        if version == '1.0':
            default = c.send('echo x').result
            none = c.send('echo x', history_length=0).result
            assert isinstance(default, Task) and len(default.history) >= 1
            assert isinstance(none, Task) and none.history == ()
        with pytest.raises(ValueError):
            c.get(task_id, history_length=-1)
