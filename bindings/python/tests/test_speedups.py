"""The compiled fast path (`a2a_core._speedups`) and its pure-ctypes fallback.

- Which path runs: CI runs this suite twice (scripts/ci/40-python.sh) and says which path it
  expects in `A2A_CORE_EXPECT_SPEEDUPS` (1: the extension, 0: ctypes).
- Both paths give the same objects: with the extension active, every SSE fixture (whole and
  in small chunks) and every outcome-table row is decoded / classified by both, compared.
- The discovery rule holds (in fresh interpreters, on the installed package): a library
  named by `A2A_CORE_LIB` other than the bundled one means ctypes only, and the bundled copy
  is never loaded beside it; naming the bundled file itself keeps the extension;
  `A2A_CORE_PURE=1` forces ctypes.
"""

from __future__ import annotations

import ast
import gc
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import body_of, machine_stream, stream_call
from test_outcomes_fixtures import ROWS, STREAM_ROWS, run
from test_sse_fixtures import CASES, decoder_for, input_of
from test_client_peer import Recorder, recorder  # noqa: F401 - the fixture, by name

import a2a_core
from a2a_core import _lib

ACTIVE = a2a_core.speedups() is not None
needs_extension = pytest.mark.skipif(
    not ACTIVE, reason='compares the extension with ctypes: runs where the extension is active '
    '(CI runs the suite once each way)')


def test_the_expected_path_is_active() -> None:
    expect = os.environ.get('A2A_CORE_EXPECT_SPEEDUPS')
    status = a2a_core.speedups_status()
    if expect is not None:
        assert ACTIVE == (expect == '1'), status
    # The status names the path that runs.
    assert status.startswith('compiled extension') == ACTIVE, status
    assert status.startswith('pure ctypes') == (not ACTIVE), status
    if ACTIVE:
        path = a2a_core.speedups()
        assert path is not None and path.parent == a2a_core.library_path().parent
        assert path.name.startswith('_speedups') and '.abi3.' in path.name


def both(fn: Callable[[], Any]) -> tuple[Any, Any]:
    """`fn()` through the fast path, then through the ctypes code."""
    fast = fn()
    saved, _lib.SPEEDUPS = _lib.SPEEDUPS, None
    try:
        slow = fn()
    finally:
        _lib.SPEEDUPS = saved
    return fast, slow


def decode(case: dict[str, Any], chunks: list[bytes]) -> tuple[list[Any], list[Any], int, list[str]]:
    """feed on one decoder, feed_items on another: events, items, comments, error names."""
    d, di = decoder_for(case), decoder_for(case)
    events, items = [], []
    for c in chunks:
        events += d.feed(c)
        for it in di.feed_items(c):
            # limit errors are exception instances: compare what they say
            items.append((type(it).__name__, str(it)) if isinstance(it, Exception) else it)
    d.finish()
    di.finish()
    return events, items, d.comments, [type(e).__name__ + str(e) for e in d.errors]


@needs_extension
@pytest.mark.parametrize('case', CASES, ids=[c['name'] for c in CASES])
def test_sse_fixtures_decode_the_same_both_ways(case: dict[str, Any]) -> None:
    data = input_of(case)
    for size in (len(data) or 1, 7, 1):
        chunks = [data[i : i + size] for i in range(0, len(data), size)]
        fast, slow = both(lambda: decode(case, chunks))
        assert fast == slow, (case['name'], size)
        assert all(type(e) is a2a_core.Event for e in fast[0])


@needs_extension
def test_both_ways_of_making_events_agree() -> None:
    """Events are allocated directly on CPython 3.10-3.13 and made by tuple's constructor
    elsewhere (3.14 caches tuple hashes): both give the same events, hashable as tuples."""
    args, direct, answer = _lib.SPEEDUPS_SETUP[:5], _lib.SPEEDUPS_SETUP[5], _lib.SPEEDUPS_SETUP[6:]
    assert direct == (sys.version_info < (3, 14))
    data = b''.join(input_of(c) for c in CASES if 'input' in c and not c['options'])
    chunks = [data[i : i + 64] for i in range(0, len(data), 64)]
    results = []
    try:
        for way in (True, False):
            _lib.SPEEDUPS.setup(*args, way, *answer)  # type: ignore[attr-defined]
            d = a2a_core.SseDecoder()
            evs = [e for c in chunks for e in d.feed(c)]
            assert evs and all(type(e) is a2a_core.Event for e in evs)
            assert [hash(e) for e in evs] == [hash(tuple(e)) for e in evs]
            results.append(evs)
    finally:
        _lib.SPEEDUPS.setup(*args, direct, *answer)  # type: ignore[attr-defined]
    assert results[0] == results[1]


@needs_extension
def test_events_are_event_tuples_sharing_repeated_types() -> None:
    d = a2a_core.SseDecoder()
    evs = d.feed(b'data: 1\n\ndata: 2\n\nevent: x\nid: 7\ndata: \xc3\n\n')
    assert evs == [('message', '1', ''), ('message', '2', ''), ('x', '\ufffd', '7')]
    assert all(type(e) is a2a_core.Event for e in evs)
    assert evs[0].type is evs[1].type  # one str for the batch's repeated type
    assert evs[2]._replace(data='y') == ('x', 'y', '7')
    assert hash(evs[0]) == hash(('message', '1', ''))
    # Three str and no __dict__: never in a cycle, so not tracked by the cycle collector.
    assert not any(gc.is_tracked(e) for e in evs)


@needs_extension
def test_outcome_table_rows_copy_the_same_both_ways() -> None:
    assert len(ROWS) >= 150
    for row in ROWS:
        fast, slow = both(lambda: run(row))
        # Dataclass equality covers every field but the handle's owner.
        assert fast == slow, row['id']
        assert fast.to_json() == slow.to_json(), row['id']
        assert fast._ptr() != 0  # the handle is kept (resilience calls need it)


def test_ctypes_outcome_reads_agree_field_by_field_and_unpacked() -> None:
    """The ctypes path reads `a2a_outcome_info` with one struct unpack where the layout
    allows it (checked at import), else field by field: both give the same outcomes."""
    from a2a_core import outcome as mod

    assert mod._INFO_UNPACK is not None  # every 64-bit platform CI runs on
    saved = _lib.SPEEDUPS, mod._INFO_UNPACK
    _lib.SPEEDUPS = None
    try:
        for row in ROWS:
            unpacked = run(row)
            mod._INFO_UNPACK = None
            try:
                by_field = run(row)
            finally:
                mod._INFO_UNPACK = saved[1]
            assert unpacked == by_field, row['id']
    finally:
        _lib.SPEEDUPS, mod._INFO_UNPACK = saved


@needs_extension
def test_machine_stream_items_are_the_same_both_ways() -> None:
    # Every event-stream row through the client machine (sans-IO): its items' and end's
    # outcomes copied by the extension and by ctypes.
    rows = [r for r in STREAM_ROWS if r['input'].get('method')]
    assert len(rows) >= 10

    def items(row: dict[str, Any]) -> list[Any]:
        got, end = machine_stream(row['input'], 7)
        return [*got, end]

    for row in rows:
        fast, slow = both(lambda: items(row))
        assert fast == slow, row['id']


@needs_extension
def test_drive_yields_the_same_stream_items_both_ways() -> None:
    # `_drive.drive` (AsyncClient's and Client(http_client=)'s loop) polls with the
    # extension's `poll`, which builds an ITEM's StreamItem in C, or with ctypes and
    # `item_of`: every event-stream row, fed in 5-byte pieces, yields the same values.
    from a2a_core import _drive
    from a2a_core.outcome import Outcome

    rows = [r for r in STREAM_ROWS if r['input'].get('method')]

    batches: list[int] = []

    def values(row: dict[str, Any], piece: int = 5) -> list[Any]:
        inp = row['input']
        call = stream_call(inp)
        body = body_of(inp)
        steps = _drive.drive(call, lambda ev, c: Outcome._from_ptr(ev.outcome, owned=False),
                             _drive.item_of)
        inputs = [lambda rid: call.handle_head(rid, inp['status'], [
            (b'Content-Type', inp['content_type'].encode('utf-8'))], 2)]
        inputs += [lambda rid, i=i: call.handle_body(rid, body[i:i + piece], 2)
                   for i in range(0, len(body), piece)]
        inputs.append(lambda rid: call.handle_end(rid, 2))
        out: list[Any] = []
        rid = None
        action = next(steps)
        for _ in range(len(inputs) + 1000):  # bounded
            if isinstance(action, _drive.Start):
                rid = action.request_id
                action = steps.send(None)
            elif isinstance(action, _drive.Emit):
                out.append(action.value)
                try:
                    action = steps.send(None)
                except StopIteration:
                    return out
            elif isinstance(action, _drive.Abort):
                out.append(('abort', action.request_id))
                action = steps.send(None)
            elif isinstance(action, list):
                assert action, f'{row["id"]}: an empty list of items'
                batches.append(len(action))
                out.extend(action)
                action = steps.send(None)
            elif isinstance(action, _drive.Wait):
                assert rid is not None and inputs, row['id']
                inputs.pop(0)(rid)
                action = steps.send(False)
            else:
                raise AssertionError(f'{row["id"]}: {action!r}')
        raise AssertionError(f'{row["id"]}: the call did not finish')

    seen_items = 0
    for row in rows:
        fast, slow = both(lambda: values(row))
        assert fast == slow, row['id']
        assert fast, row['id']
        seen_items += sum(1 for v in fast if v.__class__.__name__ == 'StreamItem')
    assert seen_items >= 10
    # A body that arrives whole: the extension hands every item queued by it out in one
    # list (one resume of the generators per body chunk, not per item), the same values.
    batches.clear()
    for row in rows:
        fast, slow = both(lambda: values(row, 1 << 20))
        assert fast == slow, row['id']
    assert max(batches) >= 3, batches


def _random_json(rng: Any, depth: int = 0) -> Any:
    """A random JSON value with the shapes answers carry (known and unknown keys, escapes,
    non-ASCII, big and small numbers) and some the canonical reader leaves to json."""
    import string

    pick = rng.randrange(12 if depth < 4 else 7)
    if pick == 0:
        return None
    if pick == 1:
        return rng.random() < 0.5
    if pick == 2:
        return rng.choice([0, -1, 7, 10**17, -(10**18) + 1, 10**18, 2**70, -5])
    if pick == 3:
        return rng.choice([0.5, -1e-9, 1e300, 3.0])
    if pick in (4, 5, 6):
        alphabet = string.ascii_letters + ' "\\/\n\t\r\b\f\x01\x1f\u00e9\u4e2d\U0001f600\u2028'
        return ''.join(rng.choice(alphabet) for _ in range(rng.randrange(12)))
    if pick in (7, 8):
        return [_random_json(rng, depth + 1) for _ in range(rng.randrange(4))]
    names = ['kind', 'text', 'parts', 'metadata', 'task_id', 'x', 'é', 'a"b', 'artifact_id']
    return {rng.choice(names): _random_json(rng, depth + 1) for _ in range(rng.randrange(5))}


@needs_extension
def test_the_canonical_reader_reads_what_json_reads_or_leaves_it_to_json() -> None:
    """The extension's reader of the library's canonical JSON gives json.loads's value
    (type for type, key order included) or gives up (None), never another value; the
    answer it feeds is then the same either way (test above)."""
    import json
    import random

    read = _lib.SPEEDUPS.canonical_json  # type: ignore[attr-defined]

    def typed(v: Any) -> Any:  # equal values of equal types (True != 1 here)
        if isinstance(v, dict):
            return ('d', [(k, typed(x)) for k, x in v.items()])
        if isinstance(v, list):
            return ('l', [typed(x) for x in v])
        return (type(v).__name__, v)

    rng = random.Random(28)
    read_by_it = 0
    for n in range(3000):
        value = _random_json(rng)
        for text in (json.dumps(value, ensure_ascii=False, separators=(',', ':')),
                     json.dumps(value, ensure_ascii=n % 2 == 0, indent=n % 3 or None)):
            got = read(text)
            if got is None and text != 'null':
                continue
            read_by_it += 1
            assert typed(got) == typed(json.loads(text)), text
    assert read_by_it > 2000  # it does read most of them itself
    # What it gives up on: json reads (or refuses) it.
    for text in ['1.5', '1e3', '"\\u00e9"', '123456789012345678901', '01', '[1,2', '{"a":1,}',
                 '"\x01"', 'NaN', '[1] x', '"\\q"', '[' * 70 + ']' * 70, '']:
        assert read(text) is None, text
    assert read('{"kind":"text","text":"a\\nb"}') == {'kind': 'text', 'text': 'a\nb'}


# --- the discovery rule in fresh interpreters ------------------------------------------------

PROBE = '''
import a2a_core, sys
maps = open("/proc/self/maps").read() if sys.platform.startswith("linux") else ""
print(a2a_core.library_path())
print(a2a_core.speedups())
print(a2a_core.speedups_status())
print(sorted({line.split()[-1] for line in maps.splitlines() if "a2a_core" in line.split()[-1]}))
'''


def probe(tmp_path: Path, env: dict[str, str]) -> list[str]:
    full = {k: v for k, v in os.environ.items()
            if k not in ('A2A_CORE_LIB', 'A2A_CORE_PURE', 'PYTHONPATH', 'CARGO_TARGET_DIR')}
    full.update(env)
    r = subprocess.run([sys.executable, '-c', PROBE], cwd=tmp_path, env=full,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    return r.stdout.splitlines()


def installed(tmp_path: Path) -> tuple[Path, bool]:
    """The installed package's bundled library, and whether the package has the extension."""
    lib, ext, status, _maps = probe(tmp_path, {})
    return Path(lib), ext != 'None'


def test_another_library_named_means_ctypes_and_no_second_copy(tmp_path: Path) -> None:
    bundled, _ = installed(tmp_path)
    other = tmp_path / 'lib' / bundled.name
    other.parent.mkdir()
    shutil.copy(bundled, other)
    lib, ext, status, maps = probe(tmp_path, {'A2A_CORE_LIB': str(other)})
    assert Path(lib) == other
    assert ext == 'None' and 'not the one bundled' in status, status
    if sys.platform.startswith('linux'):
        # Only the named library is mapped: the bundled one (which the extension would have
        # pulled in) is not.
        assert str(other) in maps and str(bundled) not in maps, maps


def test_naming_the_bundled_library_keeps_the_extension(tmp_path: Path) -> None:
    bundled, has_ext = installed(tmp_path)
    lib, ext, status, maps = probe(tmp_path, {'A2A_CORE_LIB': str(bundled)})
    assert Path(lib) == bundled
    if has_ext:
        assert ext != 'None' and Path(ext).parent == bundled.parent, status
        if sys.platform.startswith('linux'):
            # the extension and one library file, mapped once
            libs = [m for m in ast.literal_eval(maps) if m.endswith(bundled.name)]
            assert libs == [str(bundled)], maps
    else:
        assert ext == 'None' and 'not available' in status, status


def test_the_variable_forces_ctypes(tmp_path: Path) -> None:
    lib, ext, status, _maps = probe(tmp_path, {'A2A_CORE_PURE': '1'})
    assert ext == 'None' and 'A2A_CORE_PURE=1' in status, status
    lib0, ext0, status0, _ = probe(tmp_path, {'A2A_CORE_PURE': '0'})
    assert lib0 == lib and ('A2A_CORE_PURE' not in status0)


def _answer_texts() -> list[tuple[str, str]]:
    """(name, canonical JSON text) of every answer in bindings/fixtures/answers.json, plus
    shapes the compiled builder hands back to Python (file parts, unknown kinds, missing or
    odd values) and stream-item kinds with every optional field."""
    import json

    from conftest import load

    doc = load('answers.json')
    out = [(c['name'], json.dumps(c['expect'], ensure_ascii=False, separators=(',', ':')))
           for c in doc['results'] + doc['streams']]
    text = {'kind': 'text', 'text': 'hi', 'metadata': {'m': [1, 2.5, None]}, 'media_type': 't/p',
            'name': 'n'}
    status = {'state': 'working', 'message': {'kind': 'message', 'message_id': 'm',
                                               'role': 'agent', 'parts': [text]},
              'timestamp': '2025-01-01T00:00:00Z'}
    extra: list[tuple[str, Any]] = [
        ('status update', {'kind': 'status-update', 'task_id': 't', 'context_id': 'c',
                           'status': status, 'final': True, 'metadata': {'k': 'v'}}),
        ('status update without optional fields', {'kind': 'status-update', 'task_id': 't',
                                                   'status': {'state': 'working'}}),
        ('status update, empty message and final 1',
         {'kind': 'status-update', 'task_id': 't', 'status': {'state': 'x', 'message': {}},
          'final': 1}),
        ('artifact update', {'kind': 'artifact-update', 'task_id': 't', 'context_id': None,
                             'artifact': {'artifact_id': 'a', 'parts': [
                                 text, {'kind': 'data', 'data': [1, {'x': None}]}],
                                 'name': 'n', 'description': 'd', 'metadata': {}},
                             'append': True, 'last_chunk': False}),
        ('file parts', {'kind': 'message', 'message_id': 'm', 'role': 'agent', 'parts': [
            {'kind': 'file', 'bytes': 'aGk', 'name': 'f'}, {'kind': 'file', 'uri': 'u://x'}]}),
        ('unknown kind', {'kind': 'nope'}),
        ('unknown part kind', {'kind': 'message', 'message_id': 'm', 'role': 'r',
                               'parts': [{'kind': 'video'}]}),
        ('missing key', {'kind': 'task', 'id': 't', 'status': {'state': 's'}, 'artifacts': []}),
        ('parts not a list', {'kind': 'message', 'message_id': 'm', 'role': 'r', 'parts': 'ab'}),
        ('kind not a str', {'kind': 1}),
        ('not an object', [1, 2]),
    ]
    out += [(n, json.dumps(d, separators=(',', ':'))) for n, d in extra]
    out.append(('whitespace around the value', ' {"kind":"message","message_id":"m",'
                '"role":"r","parts":[]} '))
    out.append(('not JSON', '{"kind":'))
    # Shapes the compiled reader of the text gives up on (the dict path then reads them):
    # a repeated key (the last one counts), a key no class has, a structure where a value
    # was expected and the reverse, an escaped kind, a stream item's usual text with spaces.
    upd = ('{"append":false,"artifact":{"artifact_id":"chunk-0","description":null,'
           '"metadata":null,"name":null,"parts":[{"kind":"text","media_type":null,'
           '"metadata":null,"name":null,"text":"chunk 0"}]},"context_id":"c-1",'
           '"kind":"artifact-update","last_chunk":true,"metadata":null,"task_id":"t-1"}')
    out += [
        ('stream chunk', upd),
        ('stream chunk, spaced', upd.replace(',', ' , ').replace(':', ' : ')),
        ('repeated key', upd.replace('"append":false', '"append":false,"append":true')),
        ('repeated kind', upd.replace('"kind":"artifact-update"',
                                      '"kind":"task","kind":"artifact-update"')),
        ('unknown key', upd.replace('"append":false', '"appendix":1,"append":false')),
        # Keys matched where they stand (a known key's bytes, then its quote): a known key
        # as another's prefix or with more after it, a short one, an escaped one.
        ('key a known prefix', upd.replace('"artifact_id"', '"artifact"')),
        ('key longer than a known one', upd.replace('"kind":"text"', '"kinds":"text"')),
        ('key shorter than a known one', upd.replace('"append"', '"appen"')),
        ('escaped key', upd.replace('"last_chunk"', '"last\\u005fchunk"')),
        ('key at the end of the text', '{"kind'),
        # The usual chunk (`upd`) is read by its template; texts off the template by a
        # little are read by the general reader (the same objects either way).
        ('stream chunk, other flags', upd.replace('"append":false', '"append":true')
         .replace('"last_chunk":true', '"last_chunk":false')),
        ('stream chunk, empty strings', upd.replace('"chunk-0"', '""').replace('"chunk 0"', '""')
         .replace('"t-1"', '""').replace('"c-1"', '""')),
        ('stream chunk, context null', upd.replace('"c-1"', 'null')),
        ('stream chunk, escaped text', upd.replace('"chunk 0"', '"a\\nb\\"c"')),
        ('stream chunk, non-ASCII text', upd.replace('"chunk 0"', '"\u00e9\u4e2d\U0001f600"')),
        ('stream chunk, a name', upd.replace('"name":null,"parts"', '"name":"n","parts"')),
        ('stream chunk, part metadata', upd.replace('"metadata":null,"name":null,"text"',
                                                    '"metadata":{},"name":null,"text"')),
        ('stream chunk, two parts', upd.replace('"text":"chunk 0"}]',
                                                '"text":"chunk 0"},{"kind":"text","text":"b"}]')),
        ('stream chunk, flag not a bool', upd.replace('"append":false', '"append":0')),
        ('stream chunk, trailing space', upd + ' '),
        ('stream chunk, cut short', upd[:-1]),
        ('stream chunk, more after it', upd + '}'),
        ('artifact null', '{"kind":"artifact-update","task_id":"t","artifact":null}'),
        ('parts an object', upd.replace('"parts":[', '"parts":[[').replace(']}', ']]}')),
        ('status message false', '{"kind":"status-update","task_id":"t","status":'
                                 '{"state":"x","message":false}}'),
        ('status message a str', '{"kind":"status-update","task_id":"t","status":'
                                 '{"state":"x","message":"m"}}'),
        ('escaped kind', upd.replace('"kind":"text"', '"kind":"te\\u0078t"')),
        ('escaped ids', upd.replace('"t-1"', '"t\\"1"').replace('"c-1"', '"c\\u00e9"')),
        ('non-ASCII ids', upd.replace('"t-1"', '"t\u00e9"').replace('"c-1"', '"\u4e2d"')),
        ('task with history', '{"artifacts":[],"context_id":"c","history":[{"context_id":"c",'
                              '"kind":"message","message_id":"m","metadata":null,"parts":[],'
                              '"role":"user","task_id":"t","text":null}],"id":"t",'
                              '"kind":"task","metadata":{"a":[1,{"b":null}]},"status":'
                              '{"message":null,"state":"submitted","timestamp":null},'
                              '"text":null}'),
    ]
    return out


def _read(fn: Callable[[str], Any], text: str) -> tuple[str, Any]:
    try:
        return 'ok', fn(text)
    except Exception as e:  # the same exception, both ways
        return 'raised', (type(e), str(e))


@needs_extension
@pytest.mark.parametrize('name,text', _answer_texts(), ids=[n for n, _ in _answer_texts()])
def test_answers_are_built_the_same_in_c_and_in_python(name: str, text: str) -> None:
    import json

    from a2a_core.answer import _result_from_text, answer_from_json

    fast = _read(_lib.SPEEDUPS.answer, text)  # type: ignore[attr-defined]
    slow = _read(_result_from_text, text)
    plain = _read(lambda t: answer_from_json(json.loads(t)), text)
    # Dataclass equality checks the class too; repr shows every field, kind included.
    assert fast == slow == plain, name
    assert repr(fast) == repr(slow), name
    if fast[0] == 'ok':
        assert fast[1] is not None


@needs_extension
def test_the_usual_chunk_is_read_by_its_template_and_nothing_else() -> None:
    """The texts on the usual stream chunk's template (and only those) are read by it, to the
    answer the general reader gives."""
    from a2a_core.answer import _result_from_text

    on = {'stream chunk', 'stream chunk, other flags', 'stream chunk, empty strings',
          'stream chunk, non-ASCII text', 'non-ASCII ids'}
    for name, text in _answer_texts():
        got = _lib.SPEEDUPS.chunk_answer(text)  # type: ignore[attr-defined]
        if name in on:
            assert got is not None and got == _result_from_text(text), name
            assert repr(got) == repr(_result_from_text(text)), name
        else:
            assert got is None, name


@needs_extension
def test_the_extension_builds_the_answers_itself() -> None:
    """setup handed the answer's classes over (their fields matched), so answers are built
    in C, not by calling back into Python's reader."""
    from a2a_core import answer as mod

    assert len(_lib.SPEEDUPS_SETUP) == 10
    calls = []
    saved = mod.answer_from_json
    text = _answer_texts()[0][1]
    try:
        # the extension holds its own references: patching the module does not reach it
        mod.answer_from_json = lambda d: calls.append(d)  # type: ignore[assignment]
        assert _lib.SPEEDUPS.answer(text) is not None  # type: ignore[attr-defined]
    finally:
        mod.answer_from_json = saved
    assert calls == []


def _three_ways(fn: Callable[[], Any]) -> tuple[Any, Any, Any]:
    """`fn()` through the compiled `unary`, through the compiled `step_items` loop (the generic
    path, taken while debug logging is on) and through the ctypes code."""
    import logging

    fast, slow = both(fn)
    log = logging.getLogger('a2a_core')
    level = log.level
    log.setLevel(logging.DEBUG)
    try:
        stepped = fn()
    finally:
        log.setLevel(level)
    return fast, stepped, slow


@needs_extension
def test_client_calls_give_the_same_outcomes_every_way(recorder: str) -> None:
    """send / get / cancel in one call of the extension (`_speedups.unary`), step by step
    (`_speedups.step_items`) and through ctypes: a refused connection (nothing listens on port 1
    of loopback) is the same transport outcome, with its handle; an answered send the same
    outcome and answer."""
    with a2a_core.Client.with_target('http://127.0.0.1:1/', '0.3', 'jsonrpc', allow_http=True,
                                     connect_timeout_ms=2000) as c:
        for call in (lambda: c.send('hi'), lambda: c.send(parts=['a', 'b']),
                     lambda: c.get('t-1'), lambda: c.cancel('t-1'),
                     lambda: c.send('hi', traceparent=None, headers={'x-a': 'b'})):
            fast, stepped, slow = _three_ways(call)
            assert fast == stepped == slow
            assert fast.channel == 'transport' and fast.request_sent == 'no', fast
            assert fast._ptr() != 0 and fast._ptr() != slow._ptr()
            assert a2a_core.model_text('x', fast) == a2a_core.model_text('x', slow)
        with pytest.raises(UnicodeEncodeError):
            c.send('\ud800')  # a lone surrogate: the same error as the ctypes path's encode
    with a2a_core.Client.with_target(recorder, '1.0', 'jsonrpc', allow_http=True) as c:
        fast, stepped, slow = _three_ways(lambda: c.send('hi', message_id='m-1'))
        assert fast.success and fast.result.id == 't-1', fast
        assert fast == stepped == slow
        assert a2a_core.model_text('x', fast) == a2a_core.model_text('x', slow)


def test_the_answer_is_read_on_first_access_and_looks_eager(recorder: str) -> None:
    """`Outcome.result` is built when first read (both paths): before that, equality, repr,
    hash, dataclasses.replace/asdict, copying and pickling all see the answer, as if it had
    been built with the outcome."""
    import copy
    import dataclasses
    import pickle

    from a2a_core.outcome import _UNREAD, Outcome

    c = a2a_core.Client.with_target(recorder, '1.0', 'jsonrpc', allow_http=True)

    def fresh() -> Outcome:
        o = c.send('hi')
        assert Outcome.__dict__['result'].slot.__get__(o) is _UNREAD  # the slot: not built yet
        assert o._result_text is not None
        return o

    try:
        read = fresh()
        assert read.result.id == 't-1' and read.result.status.state == 'completed'
        assert read._result_text is None  # built once, the text dropped
        assert read.result is read.result
        for probe in (lambda o: o, repr, copy.copy,
                      lambda o: dataclasses.asdict(o)['result'],
                      lambda o: dataclasses.replace(o, code=None),
                      lambda o: pickle.loads(pickle.dumps(dataclasses.replace(o, _owned=None)))):
            assert probe(fresh()) == probe(read)
        assert fresh() == read and read == fresh()
        assert hash(fresh().result) == hash(read.result)
        # copies share the handle's owner (a copy must not free it a second time)
        deep = copy.deepcopy(fresh())
        assert deep._owned is not None and deep._ptr() != 0 and deep == read
        assert pickle.loads(pickle.dumps(fresh()))._owned is None
        assert [f.name for f in dataclasses.fields(Outcome) if f.compare][-3:] == [
            'result', 'leaked_detail', 'cancel_origin']
        # outcomes without an answer: None, nothing pending
        none = a2a_core.classify(503, b'', retry_after='5')
        assert none.result is None and none._result_text is None
        # The compiled path keeps the text as the library's UTF-8 (bytes): Python's own
        # readers (the extension's descriptor without the extension, outcome.py's
        # descriptor) read it as the str it stands for.
        if _lib.SPEEDUPS is not None:
            from a2a_core.outcome import _LazyResult
            kept, other = fresh(), fresh()
            assert isinstance(kept._result_text, bytes)
            saved = _lib.SPEEDUPS
            try:
                _lib.SPEEDUPS = None
                assert kept.result == read.result
                assert _LazyResult(Outcome.__dict__['result'].__get__(None, Outcome)).__get__(
                    other, Outcome) == read.result
            finally:
                _lib.SPEEDUPS = saved
    finally:
        c.close()


@needs_extension
def test_dechunk_reads_chunked_bodies_as_the_python_parser_does() -> None:
    # AsyncClient's HTTP/1.1 parser takes the well-formed front of a chunked body through
    # the extension's `dechunk` and the rest (extensions, white space, trailers, anything
    # malformed) in Python: random bodies, good and bad, in random pieces give the same body
    # bytes, ends and failures both ways, and the same bytes as the body that was framed.
    import random

    from a2a_core import _asyncio_http as h
    from test_asyncio_http import _conn, _summary

    # The C side names the parser's states by number.
    assert (h._SIZE, h._DATA, h._DATA_END) == (4, 5, 6)
    rng = random.Random(28)
    head = b'HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n'

    def framed(data: list[bytes], bad: bool) -> bytes:
        out = []
        for d in data:
            size = f'{len(d):x}'
            style = rng.randrange(8)
            if style == 0:
                size = size.upper()
            elif style == 1:
                size = '000' + size
            elif style == 2:
                size += ';ext=1'
            elif style == 3:
                size += ' '
            out.append(size.encode() + (b'\n' if style == 4 else b'\r\n') + d + b'\r\n')
        out.append(b'0\r\n' + (b'X-T: 1\r\n' if rng.random() < 0.3 else b'') + b'\r\n')
        body = b''.join(out)
        if bad:
            i = rng.randrange(len(body))
            body = body[:i] + rng.choice([b'z', b'\r', b'\n', b';', b'', b'1' * 20]) + body[i + 1:]
        return body

    def parse(response: bytes, cuts: list[int]) -> tuple[Any, ...]:
        pool = h.NativePool()
        conn, rec, _ = _conn(pool)
        at = 0
        for c in [*cuts, len(response)]:
            if response[at:c]:
                conn.data_received(response[at:c])
            at = c
        failures = tuple(g for g in rec.got if g[0] == 'failed')
        pool._idle.clear()
        return _summary(rec.got), failures

    compared = bad_seen = 0
    for n in range(400):
        data = [bytes(rng.randrange(256) for _ in range(rng.randrange(1, 40)))
                for _ in range(rng.randrange(1, 12))]
        bad = n % 3 == 0
        response = head + framed(data, bad)
        cuts = sorted(rng.sample(range(1, len(response)), min(len(response) - 1, rng.randrange(0, 6))))
        fast, slow = both(lambda: parse(response, cuts))
        assert fast == slow, (response, cuts)
        if not bad:
            (heads, body, ends), failures = fast
            assert body == b''.join(data) and ends == ['end'] and not failures, response
        else:
            bad_seen += bool(fast[1])
        compared += 1
    assert compared == 400 and bad_seen > 20
