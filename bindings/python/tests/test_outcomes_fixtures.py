"""bindings/fixtures/outcomes.json (the single outcome table) through `classify` /
`Outcome.transport`: every expected key of every row, the exit code, the hint and message
substrings; and every text/event-stream row a second time through the library's client
machine (sans-IO, the body in 1-byte, 7-byte and whole pieces), whose end outcome must
agree with the row."""

from __future__ import annotations

import json
from typing import Any

import pytest
from conftest import body_of, load, machine_stream

from a2a_core import (
    JSON_KEYS,
    Outcome,
    classify,
    is_event_stream,
)

ROWS = load('outcomes.json')['rows']
STREAM_ROWS = [
    r
    for r in ROWS
    if 'transport' not in r['input']
    and 200 <= r['input']['status'] < 300
    and is_event_stream(r['input'].get('content_type'))
    # body_repeat rows test the whole-body classifier's decoder limits; a streaming caller
    # gets the decoder's limit error as its own item (see the table's `about`).
    and 'body_repeat' not in r['input']
]


def run(row: dict[str, Any]) -> Outcome:
    inp = row['input']
    if 'transport' in inp:
        t = inp['transport']
        return Outcome.transport(t['error'], t['request_sent'], t['message'])
    return classify(
        inp['status'],
        body_of(inp),
        content_type=inp.get('content_type'),
        version=inp.get('version'),
        binding=inp.get('binding'),
        method=inp.get('method'),
        request_id=inp.get('request_id'),
        headers=inp.get('headers'),
        now_unix_seconds=inp.get('now_unix_seconds'),
    )


def check_expect(row: dict[str, Any], got: dict[str, Any], skip: tuple[str, ...] = ()) -> None:
    for k, want in row['expect'].items():
        if k in skip:
            continue
        assert got[k] == want, f'{row["id"]}: {k}: want {want!r}, got {got[k]!r}'


def test_table_is_substantial() -> None:
    assert len(ROWS) >= 150
    assert len({r['id'] for r in ROWS}) == len(ROWS)
    assert all(r.get('source') for r in ROWS)
    assert len(STREAM_ROWS) >= 20


@pytest.mark.parametrize('row', ROWS, ids=[r['id'] for r in ROWS])
def test_row(row: dict[str, Any]) -> None:
    o = run(row)
    d = o.to_dict()
    assert list(d) == list(JSON_KEYS)
    # to_json is the same object, as the CLI prints it
    assert json.loads(o.to_json()) == d
    check_expect(row, d)
    assert o.exit_code == row['exit_code'], f'{row["id"]}: exit {o.exit_code}, want {row["exit_code"]}'
    for part in row.get('hint_contains', []):
        assert part in (o.hint or ''), f'{row["id"]}: hint {o.hint!r} lacks {part!r}'
    if 'retry_after_secs' in row:
        assert o.retry_after == row['retry_after_secs'], f'{row["id"]}: retry_after {o.retry_after}'
    if 'message_contains' in row:
        assert row['message_contains'] in (o.message or ''), row['id']
    # typed view of the same values
    assert o.channel == d['channel']
    assert (o.state is None) == (d['state'] is None)
    assert o.success == (o.channel == 'message' or o.state == 'completed')


@pytest.mark.parametrize('row', STREAM_ROWS, ids=[r['id'] for r in STREAM_ROWS])
@pytest.mark.parametrize('chunk', [1, 7, 1 << 20])
def test_stream_row_through_the_client_machine(row: dict[str, Any], chunk: int) -> None:
    items, end = machine_stream(row['input'], chunk)
    # The machine is told the status: every key of the row, http_status included.
    check_expect(row, end.to_dict())
    assert end.exit_code == row['exit_code'], row['id']
    # The items do not depend on how the body was cut.
    whole, _ = machine_stream(row['input'], 1 << 20)
    assert [o.to_dict() for o in items] == [o.to_dict() for o in whole], row['id']
