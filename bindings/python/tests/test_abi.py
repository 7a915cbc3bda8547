"""The binding against include/a2a_core.h: every function the header declares is bound (or
listed in `_lib.NOT_BOUND` with a reason), every enum number this package maps equals the
header's, every result code has a name, the loaded library is the header's version, and
every object owning a handle frees it through a header `_free` function."""

from __future__ import annotations

import re

import pytest
from conftest import REPO

import a2a_core
from a2a_core import _lib, errors, vocab

HEADER = (REPO / 'include' / 'a2a_core.h').read_text(encoding='utf-8')


def header_functions() -> set[str]:
    names = set()
    for line in HEADER.splitlines():
        if re.match(r'^[a-z].*\(', line) and not line.startswith('typedef'):
            m = re.search(r'([A-Za-z0-9_]+)\(', line)
            assert m
            names.add(m.group(1))
    return names


def header_constants() -> dict[str, int]:
    return {m.group(1): int(m.group(2)) for m in re.finditer(r'^\s+(A2A_[A-Z0-9_]+) = (\d+),', HEADER, re.M)}


def test_every_header_function_is_bound_or_excused() -> None:
    declared = header_functions()
    assert len(declared) > 80
    bound = {n for n in declared if getattr(_lib.lib, n).argtypes is not None}
    missing = declared - bound - set(_lib.NOT_BOUND)
    assert not missing, f'functions of the header this package does not bind: {sorted(missing)}'
    assert set(_lib.NOT_BOUND) <= declared


def test_retired_functions_are_neither_bound_nor_called() -> None:
    # The layers the client machine replaced (issue 22: the request builder, HTTP/1.1
    # framing, the standalone stream tracker, retry policy and breaker) leave the C ABI:
    # whichever of them the header still declares is left unbound, and no source of the
    # package (Python or the compiled extension) names one, so removing them from the
    # header breaks nothing here.
    retired = {n for n in header_functions() if _lib.is_retired(n)}
    for name in retired:
        assert name in _lib.NOT_BOUND, name
        assert getattr(_lib.lib, name).argtypes is None, f'{name} is bound'
    assert not _lib.is_retired('a2a_breaker_config_default')  # BreakerConfig reads it
    assert not _lib.is_retired('a2a_request_sent_to_str')  # vocabulary, not the builder
    assert _lib.is_retired('a2a_request_build') and _lib.is_retired('a2a_http1_write_request')
    src = REPO / 'bindings' / 'python' / 'src' / 'a2a_core'
    for path in [*src.glob('*.py'), src / '_speedups.c']:
        if path.name in ('_abi.py', '_lib.py'):  # the generated declarations; the rule itself
            continue
        for name in re.findall(r'a2a_[a-z0-9_]+', path.read_text(encoding='utf-8')):
            assert not _lib.is_retired(name), f'{path.name} names {name}'


def test_version_matches_header() -> None:
    parts = dict(re.findall(r'#define A2A_VERSION_(MAJOR|MINOR|PATCH) (\d+)', HEADER))
    want = f'{parts["MAJOR"]}.{parts["MINOR"]}.{parts["PATCH"]}'
    assert a2a_core.library_version() == want


def test_result_codes_match_header() -> None:
    block = re.search(r'enum a2a_result\n.*?\{(.*?)\};', HEADER, re.S)
    assert block
    names = dict(re.findall(r'(A2A_[A-Z0-9_]+) = (\d+)', block.group(1)))
    assert {int(v): k for k, v in names.items()} == errors.RESULT_NAMES
    for code in errors.RESULT_NAMES:
        assert errors.describe(code) not in ('', 'unknown result code')


@pytest.mark.parametrize(
    ('cls', 'prefix'),
    [
        (vocab.StreamItemKind, 'A2A_STREAM_ITEM_KIND_'),
        (vocab.StreamEndKind, 'A2A_STREAM_END_KIND_'),
        (vocab.Channel, 'A2A_CHANNEL_'),
        (vocab.Retry, 'A2A_RETRY_'),
        (vocab.TaskState, 'A2A_TASK_STATE_'),
    ],
)
def test_enum_numbers_match_header(cls: type, prefix: str) -> None:
    c = header_constants()
    table = vocab._num(cls)
    assert set(table) == set(cls), f'{cls.__name__}: members without a C number'
    for member, n in table.items():
        cname = prefix + member.name
        assert c.get(cname) == n, f'{cls.__name__}.{member.name}: {n} vs header {c.get(cname)}'


def test_every_library_word_is_a_member() -> None:
    # _build() maps every number the library names; each enum must cover all of them.
    for cls in (vocab.Channel, vocab.TaskState, vocab.Retry, vocab.RequestSent,
                vocab.ErrorName, vocab.ProtocolVersion, vocab.Binding):
        assert set(vocab._num(cls)) == set(cls), cls.__name__


def test_struct_sizes_are_plausible() -> None:
    import ctypes

    # a2a_sse_item on a 64-bit C ABI: u32 kind, 3 views, u64, u32, size_t = 80 bytes
    if ctypes.sizeof(ctypes.c_void_p) == 8:
        assert ctypes.sizeof(_lib.SseItem) == 80
        # a2a_response: 96 bytes up to `asked`, then the appended u64 now_unix_seconds
        assert ctypes.sizeof(_lib.Response) == 104


def test_driver_and_request_enum_numbers_match_header() -> None:
    from a2a_core import _drive, client, request

    c = header_constants()
    for member, n in request._METHOD_NUM.items():
        assert c.get('A2A_METHOD_' + member.name) == n, member.name
    # (the typed client's stream event kinds went with it: Client runs the machine)
    assert c['A2A_CLIENT_CARD_RESOLUTION'] == _drive._CARD_RESOLUTION
    assert (c['A2A_METHOD_GET_TASK'], c['A2A_METHOD_CANCEL_TASK']) == (
        client._GET_TASK, client._CANCEL_TASK)


def test_every_handle_owner_frees_with_a_header_free_function() -> None:
    # Every object owning a library handle derives from _guard.Owned; one that forgot its
    # `_free` would leak silently (the failure is inside __del__, which Python ignores).
    import importlib
    import importlib.util
    import pkgutil

    from a2a_core import _guard

    for info in pkgutil.walk_packages(a2a_core.__path__, 'a2a_core.'):
        spec = importlib.util.find_spec(info.name)  # Python sources only (not the .so files)
        if spec is not None and (spec.origin or '').endswith('.py'):
            importlib.import_module(info.name)
    owners, todo = [], [_guard.Owned]
    while todo:
        cls = todo.pop()
        for sub in cls.__subclasses__():
            todo.append(sub)
            if sub is not _guard.OwnedHandle:
                owners.append(sub)
    assert len(owners) >= 12, [c.__name__ for c in owners]
    declared = header_functions()
    for cls in owners:
        free = cls._free
        assert free is not None, f'{cls.__qualname__} has no _free'
        assert free.__name__.endswith('_free') and free.__name__ in declared, cls.__qualname__
