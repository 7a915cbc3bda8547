"""Every ctypes mirror of a C struct against the C compiler's layout of include/a2a_core.h.

scripts/c-layout.py compiles a program against the header and prints sizeof, _Alignof and
the offset and size of every field of every struct. Each `ctypes.Structure` in the package
names its C struct in its docstring (`a2a_...`); it must have the same size, alignment and
fields (same names, same order, same offsets and sizes) as the header. A field appended to a
header struct without a mirror therefore fails here, as does every struct a bound function
reaches (by argument, or through another struct's fields) that has no mirror.
"""

from __future__ import annotations

import ctypes
import importlib
import importlib.util
import inspect
import json
import pkgutil
import re
import subprocess
import sys
from typing import Any

import pytest
from conftest import REPO

import a2a_core
from a2a_core import _lib

# Header structs that a bound function reaches but the package never reads or writes through
# a mirror, each with the reason. Empty: every reached struct is mirrored.
NOT_MIRRORED: dict[str, str] = {}


@pytest.fixture(scope='module')
def table() -> dict[str, Any]:
    done = subprocess.run([sys.executable, str(REPO / 'scripts' / 'c-layout.py')],
                          capture_output=True, text=True, check=False, timeout=300)
    assert done.returncode == 0, done.stderr
    t = json.loads(done.stdout)
    assert len(t['structs']) >= 30, 'the header lost its structs?'
    return t


def mirrors() -> dict[type, str]:
    """Every ctypes Structure the package defines, with the C struct its docstring names."""
    found: dict[type, str] = {}
    for info in pkgutil.walk_packages(a2a_core.__path__, 'a2a_core.'):
        # Python sources only: an installed package also carries the C library itself
        # (liba2a_core.so), which is loaded through ctypes, never imported.
        spec = importlib.util.find_spec(info.name)
        if spec is None or not (spec.origin or '').endswith('.py'):
            continue
        mod = importlib.import_module(info.name)
        for _, cls in inspect.getmembers(mod, inspect.isclass):
            if issubclass(cls, (ctypes.Structure, ctypes.Union)) and cls.__module__ == mod.__name__:
                m = re.search(r'`(a2a_\w+)`', cls.__doc__ or '')
                found[cls] = m.group(1) if m else ''
    return found


def ctypes_fields(cls: type) -> list[dict[str, Any]]:
    return [{'name': name, 'offset': getattr(cls, name).offset, 'size': getattr(cls, name).size}
            for name, *_ in cls._fields_]


def mismatches(cls: type, c: dict[str, Any]) -> list[str]:
    """How the mirror `cls` differs from the C layout `c` (empty when it matches)."""
    out = []
    if ctypes.sizeof(cls) != c['size']:
        out.append(f'size {ctypes.sizeof(cls)} != C {c["size"]}')
    if ctypes.alignment(cls) != c['align']:
        out.append(f'alignment {ctypes.alignment(cls)} != C {c["align"]}')
    mine = ctypes_fields(cls)
    for k in range(max(len(mine), len(c['fields']))):
        if k >= len(mine):
            f = c['fields'][k]
            out.append(f'C field {f["name"]} (offset {f["offset"]}, {f["size"]} bytes) has no mirror')
        elif k >= len(c['fields']):
            out.append(f'field {mine[k]["name"]} does not exist in C')
        elif mine[k] != c['fields'][k]:
            out.append(f'field #{k}: {mine[k]} != C {c["fields"][k]}')
    return out


def test_every_mirror_names_a_header_struct(table: dict[str, Any]) -> None:
    found = mirrors()
    assert len(found) >= 28
    unnamed = [cls.__qualname__ for cls, c in found.items() if c not in table['structs']]
    assert not unnamed, f'Structure classes whose docstring names no header struct: {unnamed}'


def test_every_mirror_matches_the_c_layout(table: dict[str, Any]) -> None:
    bad = {}
    for cls, cname in mirrors().items():
        diff = mismatches(cls, table['structs'][cname])
        if diff:
            bad[f'{cls.__module__}.{cls.__qualname__} ({cname})'] = diff
    assert not bad, 'ctypes mirrors that disagree with include/a2a_core.h:\n' + '\n'.join(
        f'  {k}: {"; ".join(v)}' for k, v in bad.items())


def test_every_struct_a_bound_function_reaches_is_mirrored(table: dict[str, Any]) -> None:
    bound = [n for n in table['functions'] if n not in _lib.NOT_BOUND]
    assert len(bound) > 80
    reached: dict[str, str] = {}
    todo = [(s, fn) for fn in bound for s in table['functions'][fn] if s in table['structs']]
    while todo:
        s, via = todo.pop()
        if s not in reached:
            reached[s] = via
            todo += [(r, s) for r in table['structs'][s]['refs'] if r in table['structs']]
    mirrored = set(mirrors().values())
    missing = {s: via for s, via in reached.items() if s not in mirrored and s not in NOT_MIRRORED}
    assert not missing, f'header structs used (via) without a ctypes mirror: {missing}'
    assert set(NOT_MIRRORED) <= set(table['structs'])


# The check itself: a mirror that is wrong in each way the header can change is reported.


def test_the_check_catches_a_wrong_type_a_missing_field_and_an_extra_field(table: dict[str, Any]) -> None:
    c_str = table['structs']['a2a_str']

    class NarrowLen(ctypes.Structure):
        _fields_ = [('ptr', ctypes.c_char_p), ('len', ctypes.c_uint32)]

    class NoLen(ctypes.Structure):
        _fields_ = [('ptr', ctypes.c_char_p)]

    class Extra(ctypes.Structure):
        _fields_ = [('ptr', ctypes.c_char_p), ('len', ctypes.c_size_t), ('cap', ctypes.c_size_t)]

    class Renamed(ctypes.Structure):
        _fields_ = [('ptr', ctypes.c_char_p), ('length', ctypes.c_size_t)]

    assert mismatches(_lib.Str, c_str) == []
    assert any('size' in m for m in mismatches(NarrowLen, c_str))
    assert any('len' in m and 'no mirror' in m for m in mismatches(NoLen, c_str))
    assert any('cap' in m and 'does not exist' in m for m in mismatches(Extra, c_str))
    assert mismatches(Renamed, c_str) and ctypes.sizeof(Renamed) == c_str['size']
    # A field appended to a C struct (what growing a2a_breaker_config does) without a mirror.
    grown = dict(table['structs']['a2a_breaker_config'])
    grown['fields'] = [*grown['fields'], {'name': 'new_knob', 'offset': grown['size'], 'size': 4}]
    grown['size'] += 8
    assert any('new_knob' in m for m in mismatches(_lib.BreakerConfig, grown))
