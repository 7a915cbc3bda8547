"""bindings/fixtures/answers.json through the Python binding: every result body, in every
version and binding, reads to the same answer (typed values whose fields match the
canonical JSON; file bytes decoded, data parts as Python values); every stream assembles;
unreadable bodies raise saying where; messages to send in the canonical shape are accepted
by the library as the fixture says (refused ones without sending anything)."""

from __future__ import annotations

import base64
from typing import Any

import pytest

from a2a_core import (
    Client,
    DataPart,
    FilePart,
    Message,
    ProtocolVersion,
    Binding,
    Task,
    TextPart,
    UnreadableAnswerError,
    read_answer,
)
from a2a_core.answer import message_json
from a2a_core.errors import A2AError

from conftest import load

DOC = load('answers.json')


def vb(case: dict[str, Any]) -> tuple[ProtocolVersion, Binding]:
    return (ProtocolVersion(case['version']),
            Binding.JSONRPC if case['binding'] == 'jsonrpc' else Binding.HTTP_JSON)


def check_parts(parts: tuple, want: list[dict[str, Any]]) -> None:
    assert len(parts) == len(want)
    for p, w in zip(parts, want):
        assert p.kind == w['kind']
        assert p.metadata == w['metadata'] and p.media_type == w['media_type']
        assert p.name == w['name']
        if w['kind'] == 'text':
            assert isinstance(p, TextPart) and p.text == w['text']
        elif w['kind'] == 'data':
            assert isinstance(p, DataPart) and p.data == w['data']
        elif 'bytes' in w:
            assert isinstance(p, FilePart)
            assert p.data == base64.b64decode(w['bytes']) and p.size == w['size']
        else:
            assert isinstance(p, FilePart) and p.uri == w['uri'] and p.data is None


def check_answer(a: Any, want: dict[str, Any]) -> None:
    assert a.kind == want['kind']
    assert a.text == want['text']
    assert a.metadata == want['metadata']
    if isinstance(a, Message):
        assert a.message_id == want['message_id'] and a.role == want['role']
        assert a.context_id == want['context_id']
        check_parts(a.parts, want['parts'])
        return
    assert isinstance(a, Task)
    assert a.id == want['id'] and a.context_id == want['context_id']
    assert a.status.state == want['status']['state']
    assert a.status.timestamp == want['status']['timestamp']
    if want['status']['message']:
        assert a.status.message is not None
        check_answer(a.status.message, want['status']['message'])
    assert len(a.artifacts) == len(want['artifacts'])
    for art, w in zip(a.artifacts, want['artifacts']):
        assert art.artifact_id == w['artifact_id'] and art.name == w['name']
        assert art.description == w['description'] and art.metadata == w['metadata']
        check_parts(art.parts, w['parts'])


@pytest.mark.parametrize('case', DOC['results'], ids=lambda c: c['name'])
def test_every_result_reads_to_the_same_answer(case: dict[str, Any]) -> None:
    import json
    v, b = vb(case)
    check_answer(read_answer(json.dumps(case['body']), v, b), case['expect'])


@pytest.mark.parametrize('case', DOC['streams'], ids=lambda c: c['name'])
def test_every_stream_assembles(case: dict[str, Any]) -> None:
    v, b = vb(case)
    body = ''.join(f'data: {e}\n\n' for e in case['events'])
    check_answer(read_answer(body, v, b, stream=True), case['expect'])


@pytest.mark.parametrize('case', DOC['unreadable'], ids=lambda c: c['name'])
def test_unreadable_bodies_raise_saying_where(case: dict[str, Any]) -> None:
    v, b = vb(case)
    body = (case['body_text'].encode() if 'body_text' in case
            else base64.b64decode(case['body_b64']))
    with pytest.raises(UnreadableAnswerError) as e:
        read_answer(body, v, b)
    where = case.get('at') or case['at_prefix']
    assert where in str(e.value)


def _unreachable() -> Client:
    return Client.with_target('http://127.0.0.1:1/a2a', '1.0', 'JSONRPC', allow_http=True,
                              connect_timeout_ms=200)


@pytest.mark.parametrize('case', DOC['send'], ids=lambda c: c['name'])
def test_messages_to_send_round_trip_through_the_canonical_shape(case: dict[str, Any]) -> None:
    msg = case['message']
    parts = []
    for p in msg['parts']:
        if p['kind'] == 'text':
            parts.append(TextPart(p['text']))
        elif p['kind'] == 'data':
            parts.append(DataPart(p['data']))
        elif 'bytes' in p:
            parts.append(FilePart(data=base64.b64decode(p['bytes']),
                                  media_type=p.get('media_type'), name=p.get('name')))
        else:
            parts.append(FilePart(uri=p['uri'], media_type=p.get('media_type')))
    import json
    assert json.loads(message_json(parts, msg.get('metadata'))) == msg
    # Accepted by the library: the call goes out (and fails in transport, nothing listens).
    o = _unreachable().send(parts=parts, metadata=msg.get('metadata'))
    assert o.channel == 'transport' and o.result is None


def _request_form(message: dict[str, Any]) -> bytes:
    """A fixture message (the canonical answer form: parts by `kind`) as the client
    machine's `SendMessage` params (the A2A 1.0 request form `Client` sends), keeping what
    makes it invalid: a part of no known kind has no content, a file keeps both its bytes
    and its uri, bytes stay as they are, a text part without text has none."""
    import json

    parts = []
    for p in message['parts']:
        kind = p.get('kind')
        q: dict[str, Any] = {}
        if kind == 'text' and 'text' in p:
            q['text'] = p['text']
        elif kind == 'data':
            q['data'] = p['data']
        elif kind == 'file':
            if 'bytes' in p:
                q['raw'] = p['bytes']
            if 'uri' in p:
                q['url'] = p['uri']
        parts.append(q)
    m: dict[str, Any] = {'role': 'ROLE_USER', 'messageId': 'm-1', 'parts': parts}
    if 'metadata' in message:
        m['metadata'] = message['metadata']
    return json.dumps({'message': m}).encode()


@pytest.mark.parametrize('case', DOC['send_invalid'], ids=lambda c: c['name'])
def test_invalid_messages_are_refused_before_sending(case: dict[str, Any]) -> None:
    # The message goes to the client machine (what Client sends through) in its request
    # form; the machine refuses it when the call is made, before anything is sent. (Until
    # issue 22 this went through the typed client's a2a_client_send_message, removed.)
    from a2a_core import _drive, _machine
    from a2a_core.errors import RequestError

    state = _machine.State.for_target(_machine.Config(allow_http=True),
                                      'http://127.0.0.1:1/a2a', 1, 1, 7)
    valid = _request_form({'parts': [{'kind': 'text', 'text': 'x'}]})
    _machine.Call.new(state, _drive.SEND, valid, None, _drive.now_ms()).free()  # accepted
    with pytest.raises(RequestError) as e:
        _machine.Call.new(state, _drive.SEND, _request_form(case['message']), None,
                          _drive.now_ms())
    assert e.value.name == 'A2A_REQUEST_PARAMS'


def test_a_file_part_carries_exactly_one_of_data_and_uri() -> None:
    with pytest.raises(ValueError):
        FilePart()
    with pytest.raises(ValueError):
        FilePart(data=b'x', uri='https://x')
    with pytest.raises(ValueError):
        _unreachable().send()
    assert issubclass(UnreadableAnswerError, ValueError)
    assert not issubclass(UnreadableAnswerError, A2AError)
