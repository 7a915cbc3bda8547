"""The Python layer itself: typed errors carry the library's message, copies survive later
calls (memory rule), the fast batch path equals the field-by-field path on random streams,
the encoder, the tally."""

from __future__ import annotations

import ctypes
import random

import pytest

import a2a_core
from a2a_core import (
    BindingUnknownError,
    Comment,
    Event,
    Outcome,
    SseDecoder,
    SseEncoder,
    SseValueError,
    Tally,
    VersionMalformedError,
    VersionUnsupportedError,
    classify,
)

TASK_03 = (
    '{"jsonrpc":"2.0","id":1,"result":{"kind":"task","id":"t-1","contextId":"c-1",'
    '"status":{"state":"%s"}}}'
)


# --- errors ---------------------------------------------------------------------------


def test_version_errors_are_typed_with_library_message() -> None:
    with pytest.raises(VersionMalformedError) as e:
        a2a_core.parse_protocol_version('one')
    assert e.value.code == 200 and e.value.name == 'A2A_VERSION_MALFORMED'
    assert 'version' in str(e.value).lower()
    with pytest.raises(VersionUnsupportedError):
        a2a_core.parse_protocol_version('2.0')
    with pytest.raises(ValueError):  # the typed errors are ValueErrors too
        classify(200, b'{}', version='0.x')
    assert a2a_core.parse_protocol_version('0.3.0') == '0.3'
    assert a2a_core.parse_protocol_version(' 1.2 ') == a2a_core.ProtocolVersion.V1_0
    assert a2a_core.ProtocolVersion.V1_0.header_value == '1.0'
    assert a2a_core.ProtocolVersion.V0_3.header_value is None
    # The names before the V<major>_<minor> scheme are aliases of the same members.
    assert a2a_core.ProtocolVersion.V10 is a2a_core.ProtocolVersion.V1_0
    assert a2a_core.ProtocolVersion.V03 is a2a_core.ProtocolVersion.V0_3
    assert list(a2a_core.ProtocolVersion) == [a2a_core.ProtocolVersion.V0_3, a2a_core.ProtocolVersion.V1_0]


def test_binding_and_state_parsing() -> None:
    with pytest.raises(BindingUnknownError) as e:
        a2a_core.parse_binding('GRPC')
    assert 'JSONRPC' in e.value.message
    assert a2a_core.parse_binding('rest') == 'HTTP+JSON'
    assert a2a_core.parse_binding('json-rpc') is a2a_core.Binding.JSON_RPC
    assert a2a_core.Binding.JSONRPC is a2a_core.Binding.JSON_RPC  # deprecated alias
    assert a2a_core.parse_task_state('TASK_STATE_CANCELLED') == 'canceled'
    assert a2a_core.parse_task_state('4') == 'failed'
    assert a2a_core.parse_task_state('nonsense') == 'unknown'
    assert a2a_core.TaskState.REJECTED.terminal and not a2a_core.TaskState.WORKING.terminal
    assert a2a_core.TaskState.AUTH_REQUIRED.interrupted
    assert a2a_core.ErrorName.of_code(-32001) == 'TaskNotFound'
    assert a2a_core.ErrorName.of_code(12345) == 'Other'


def test_enums_print_and_serialise_as_words() -> None:
    o = classify(200, TASK_03 % 'completed', version='0.3', binding='jsonrpc')
    assert str(o.channel) == 'task' and f'{o.state}' == 'completed'
    assert o.to_json().startswith('{"channel":"task","http_status":200,')
    assert o.success and o.retry == 'none'


def test_sse_value_errors() -> None:
    d = SseDecoder()
    with pytest.raises(SseValueError) as e:
        d.last_event_id = 'a\x00b'
    assert e.value.code == 302
    d.last_event_id = '41'
    assert d.feed(b'data: x\n\n') == [Event('message', 'x', '41')]
    enc = SseEncoder()
    with pytest.raises(SseValueError) as e2:
        enc.event('x', type='a\nb')
    assert e2.value.code == 303
    with pytest.raises(ValueError):
        SseDecoder(max_line=0)


def test_closed_handles_refuse_calls() -> None:
    d = SseDecoder()
    d.close()
    d.close()  # harmless
    with pytest.raises(ValueError):
        d.feed(b'data: x\n\n')
    with SseDecoder() as d2:
        assert d2.feed(b'data: y\n\n')[0].data == 'y'
    with pytest.raises(ValueError):
        d2.finish()


# --- memory rule: everything returned is a copy ------------------------------------------


def test_results_survive_later_calls_and_buffer_mutation() -> None:
    d = SseDecoder()
    buf = bytearray(b'event: a\ndata: first\nid: 1\n\ndata: par')
    first = d.feed(buf)
    buf[:] = b'X' * len(buf)  # the caller reuses its buffer
    second = d.feed(bytearray(b'tial\n\n'))
    third = d.feed_items(b': ping\n\n' * 3)
    d.finish()
    assert first == [Event('a', 'first', '1')]
    assert second == [Event('message', 'partial', '1')]
    assert third == [Comment(' ping')] * 3
    assert d.comments == 3


def _encode(events: list[tuple[str | None, str, str | None]], eol: str) -> bytes:
    """A hand-written SSE writer (independent of the library)."""
    out = []
    for typ, data, ident in events:
        if ident is not None:
            out.append(f'id: {ident}{eol}')
        if typ is not None:
            out.append(f'event:{typ}{eol}')
        for line in data.split('\n'):
            out.append(f'data: {line}{eol}')
        out.append(eol)
    return ''.join(out).encode('utf-8')


@pytest.mark.parametrize('seed', range(40))
def test_random_streams_random_chunks(seed: int) -> None:
    rng = random.Random(seed)
    alphabet = 'ab {}":,é€😀\u00a0x'
    events = []
    for _ in range(rng.randint(1, 60)):
        typ = rng.choice([None, None, 'update', 'error', 'ü'])
        data = ''.join(rng.choice(alphabet) for _ in range(rng.randint(0, 80)))
        if rng.random() < 0.2:
            data += '\n' + data[::-1]
        ident = rng.choice([None, None, str(rng.randint(0, 999)), ''])
        events.append((typ, data, ident))
    raw = _encode(events, rng.choice(['\n', '\r\n', '\r']))
    # expected: type 'message' when absent, id = last id in effect
    want, last = [], ''
    for typ, data, ident in events:
        if ident is not None:
            last = ident
        want.append(Event(typ or 'message', data, last))
    d = SseDecoder()
    got: list[Event] = []
    i = 0
    while i < len(raw):
        n = rng.choice([1, 3, 17, 64, 500, 4096, 1 << 16])
        got += d.feed(raw[i : i + n])
        i += n
    d.finish()
    # '\r' endings: a final lone CR is a complete line terminator
    assert got == want
    assert all(type(e.data) is str for e in got)


def test_invalid_utf8_is_replaced_in_the_batch_path() -> None:
    d = SseDecoder()
    evs = d.feed(b'data: ok\n\n' * 5 + b'data: a\xffb\n\n' + b'data: \xe2\x82\n\n')
    assert [e.data for e in evs] == ['ok'] * 5 + ['a\ufffdb', '\ufffd']


def test_limits_are_reported_and_decoding_goes_on() -> None:
    d = SseDecoder(max_line=16)
    evs = d.feed(b'data: 1\n\ndata: ' + b'x' * 40 + b'\n\ndata: 2\n\n')
    assert [e.data for e in evs] == ['1', '2']
    assert len(d.errors) == 1
    err = d.errors[0]
    assert isinstance(err, a2a_core.SseLineTooLongError) and err.limit == 16
    assert '16' in str(err)


def test_retry_and_reconnect() -> None:
    d = SseDecoder()
    assert d.retry is None
    d.feed(b'retry: 2500\nid: 9\ndata: a\n\ndata: half')
    assert d.retry == 2500
    d.reset_for_reconnect()
    assert d.feed(b'data: b\n\n') == [Event('message', 'b', '9')]
    assert d.last_event_id == '9'


def test_encoder_round_trip() -> None:
    enc = SseEncoder()
    enc.event('{"a":1}\nline2', type='update', id='7', retry_ms=1000).comment('hi').keep_alive()
    enc.event('plain')
    raw = enc.output()
    d = SseDecoder()
    items = d.feed_items(raw)
    assert Event('update', '{"a":1}\nline2', '7') in items
    assert Event('message', 'plain', '7') in items
    assert d.retry == 1000 and d.comments == 2
    enc.clear()
    assert enc.output() == b''


# --- outcome helpers and tally ----------------------------------------------------------


def test_helpers() -> None:
    assert a2a_core.parse_retry_after('3') == 3
    assert a2a_core.parse_retry_after('Wed, 21 Oct 2015 07:28:00 GMT') is None
    assert a2a_core.is_event_stream('Text/Event-Stream; charset=utf-8')
    assert not a2a_core.is_event_stream(None)
    assert a2a_core.leaked_exception(
        'Agent execution failed. (error_id: 0a1b2c3d4e5f): java.lang.IllegalStateException: boom'
    ) == ('java.lang.IllegalStateException', 'boom')
    assert a2a_core.leaked_exception('all fine') is None
    o = classify(429, b'slow down', 'text/plain', headers={'Retry-After': '7'})
    assert o.channel == 'http' and o.retry_after == 7 and o.retry == 'backoff'


def test_tally() -> None:
    t = Tally()
    t.record('planner', 'message/send', Outcome.transport('Timeout', 'unknown', 'read timed out'))
    t.record('planner', 'message/send', classify(200, TASK_03 % 'failed', version='0.3'))
    t.add('planner', 'message/send', 'task', 'failed', 2)
    assert t.count('planner', 'message/send', 'task', 'failed') == 3
    assert t.total == 4
    text = t.render_prometheus()
    assert 'a2a_outcomes_total{' in text and 'planner' in text


@pytest.mark.parametrize('seed', range(20))
def test_packed_path_agrees_with_the_field_by_field_path(seed: int) -> None:
    """The packed buffer split at CR against the same feed's items read field by field
    through their views (both stay valid until the next call on the decoder), with
    invalid and truncated UTF-8, comments and retry values mixed in; and against the
    layout the ABI guarantees (offsets: value k is [offsets[k], offsets[k+1] - 1), ended
    by CR)."""
    from a2a_core import sse

    rng = random.Random(1000 + seed)
    raw = b''
    for _ in range(rng.randint(1, 40)):
        typ = rng.choice([b'', b'event: x\n', b'event: \xc3\xa9\n', b'event: \xe2\x82\n'])
        data = b''.join(rng.choice([b'a', b'b', b'\xe2\x82\xac', b' ', b'\xff', b'\xf0\x9f'])
                        for _ in range(rng.randint(0, 30)))
        ident = rng.choice([b'', b'id: 7\n', b'id\n', b'id: \xc3\n'])
        extra = rng.choice([b'', b': ping\n', b'retry: 5\n'])
        raw += typ + ident + extra + b'data: ' + data + rng.choice([b'\n', b'\r\n', b'\r']) + b'\n'
    d = SseDecoder()
    i = seen = 0
    while i < len(raw):
        n_bytes = rng.choice([5, 50, 400, 5000])
        w = d._feed_packed(raw[i : i + n_bytes])
        i += n_bytes
        bp, bl, op, n, _nc, _nl, ip, ni = w
        if not ni:
            continue
        fast = sse._events(bp, bl, n) if n else []
        general = [d._item_at(ip, k) for k in range(ni)]
        assert [e for e in general if type(e) is Event] == fast
        block = ctypes.string_at(bp, bl)
        offsets = memoryview(ctypes.string_at(op, 8 * (3 * n + 1))).cast('Q').tolist()
        assert offsets[0] == 0 and offsets[-1] == bl and block.count(b'\r') == 3 * n
        values = [block[offsets[k] : offsets[k + 1] - 1].decode('utf-8', 'replace')
                  for k in range(3 * n)]
        assert [tuple(values[3 * k : 3 * k + 3]) for k in range(n)] == fast
        seen += n
    assert seen > 0
    assert sse._WORDS  # the eight-word read is the path measured on this platform
