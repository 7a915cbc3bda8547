"""Traceparent through the binding: parse, format, child spans, refusals."""

from __future__ import annotations

import pytest

from a2a_core import Traceparent, TraceparentError

W3C = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01'  # W3C Trace Context example


def test_parse_and_format_round_trip() -> None:
    tp = Traceparent.parse(W3C)
    assert tp.trace_id == bytes.fromhex('4bf92f3577b34da6a3ce929d0e0e4736')
    assert tp.parent_id == bytes.fromhex('00f067aa0ba902b7')
    assert tp.sampled and str(tp) == W3C


def test_new_and_child() -> None:
    a = Traceparent.new(sampled=False)
    assert len(str(a)) == 55 and not a.sampled
    assert Traceparent.parse(str(a)) == a
    c = a.child()
    assert c.trace_id == a.trace_id and c.parent_id != a.parent_id and c.flags == a.flags


@pytest.mark.parametrize('bad', [
    '', '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7',
    '00-00000000000000000000000000000000-00f067aa0ba902b7-01',
    '00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01',
    '00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01',
    'ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
    '00_4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
])
def test_refusals(bad: str) -> None:
    with pytest.raises(TraceparentError) as e:
        Traceparent.parse(bad)
    assert e.value.message
