"""bindings/fixtures/sse.json through SseDecoder: every case whole, split into two chunks at
every byte offset, and in one-byte chunks; the results must equal the expectation each time
(events, comment count, retry values, limit errors, finish report, last event ID)."""

from __future__ import annotations

import base64
from typing import Any

import pytest
from conftest import load

from a2a_core import (
    Comment,
    Event,
    RetryItem,
    SseDecoder,
    SseEventTooLargeError,
    SseLimitError,
    SseLineTooLongError,
)

CASES = load('sse.json')['cases']
LIMIT_NAMES = {SseLineTooLongError: 'max_line', SseEventTooLargeError: 'max_event'}


def input_of(case: dict[str, Any]) -> bytes:
    if 'input_base64' in case:
        return base64.b64decode(case['input_base64'])
    return case['input'].encode('utf-8')


def decoder_for(case: dict[str, Any]) -> SseDecoder:
    o = case['options']
    return SseDecoder(
        max_line=o.get('max_line'),
        max_event=o.get('max_event'),
        dispatch_at_eof=o.get('dispatch_at_eof', False),
    )


def run_items(case: dict[str, Any], chunks: list[bytes]) -> dict[str, Any]:
    """Decodes with feed_items; returns the observations in the fixture's terms."""
    d = decoder_for(case)
    events: list[dict[str, str]] = []
    comments = 0
    retries: list[int] = []
    errors: list[str] = []
    for c in chunks:
        for it in d.feed_items(c):
            if isinstance(it, Event):
                assert all(isinstance(v, str) for v in (it.type, it.data, it.id))
                events.append({'type': it.type, 'data': it.data, 'id': it.id})
            elif isinstance(it, Comment):
                comments += 1
            elif isinstance(it, RetryItem):
                retries.append(it.ms)
            elif isinstance(it, SseLimitError):
                errors.append(LIMIT_NAMES[type(it)])
                assert it.limit and it.limit > 0
                assert str(it)
            else:
                raise AssertionError(f'unexpected item {it!r}')
    assert d.comments == comments
    f = d.finish()
    finish = {
        'discarded': None
        if f.discarded is None
        else {'partial_line': f.discarded.partial_line, 'event': f.discarded.event,
              'id': f.discarded.id},
        'event': None
        if f.event is None
        else {'type': f.event.type, 'data': f.event.data, 'id': f.event.id},
        'error': None if f.error is None else LIMIT_NAMES[type(f.error)],
    }
    return {
        'events': events,
        'comments': comments,
        'retries': retries,
        'errors': errors,
        'finish': finish,
        'last_event_id': d.last_event_id,
    }


def run_feed(case: dict[str, Any], chunks: list[bytes]) -> tuple[list[dict[str, str]], int, int]:
    """Decodes with feed (events only); returns events, comment count, error count."""
    d = decoder_for(case)
    events = [
        {'type': e.type, 'data': e.data, 'id': e.id} for c in chunks for e in d.feed(c)
    ]
    return events, d.comments, len(d.errors)


def check(case: dict[str, Any], chunks: list[bytes], how: str) -> None:
    got = run_items(case, chunks)
    for key in ('events', 'comments', 'retries', 'errors', 'finish'):
        assert got[key] == case[key], f'{case["name"]} ({how}): {key}'
    if 'last_event_id' in case:
        assert got['last_event_id'] == case['last_event_id'], f'{case["name"]} ({how})'
    events, comments, nerr = run_feed(case, chunks)
    assert events == case['events'], f'{case["name"]} ({how}): feed() events'
    assert comments == case['comments'], f'{case["name"]} ({how}): feed() comments'
    assert nerr == len(case['errors']), f'{case["name"]} ({how}): feed() errors'


def test_fixture_is_substantial() -> None:
    assert len(CASES) >= 50
    assert len({c['name'] for c in CASES}) == len(CASES)
    assert all(c.get('source') for c in CASES)


@pytest.mark.parametrize('case', CASES, ids=[c['name'] for c in CASES])
def test_whole(case: dict[str, Any]) -> None:
    check(case, [input_of(case)], 'whole')


@pytest.mark.parametrize('case', CASES, ids=[c['name'] for c in CASES])
def test_split_at_every_byte(case: dict[str, Any]) -> None:
    data = input_of(case)
    for i in range(len(data) + 1):
        check(case, [data[:i], data[i:]], f'split at {i}')


@pytest.mark.parametrize('case', CASES, ids=[c['name'] for c in CASES])
def test_one_byte_chunks(case: dict[str, Any]) -> None:
    data = input_of(case)
    check(case, [data[i : i + 1] for i in range(len(data))], '1-byte chunks')
