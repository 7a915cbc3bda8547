"""Loading liba2a_core and declaring the C functions this package calls (ctypes).

Nothing here is public API. Every function gets explicit `argtypes`/`restype`, so a wrong
argument type fails in Python instead of corrupting memory. The declarations, the structs and
the enum numbers are generated from include/a2a_core.h into `_abi.py` by
scripts/gen-bindings.py (CI checks that the committed file is current); tests/test_abi.py and
tests/test_layout.py check them against the header and the C compiler's layout.
"""

from __future__ import annotations

import ctypes
import os
import sys
from ctypes import (  # noqa: F401
    POINTER,
    Structure,
    c_bool,
    c_char_p,
    c_int32,
    c_int64,
    c_size_t,
    c_uint16,
    c_uint32,
    c_uint64,
    c_void_p,
)
from collections.abc import Mapping
from pathlib import Path

ENV_VAR = 'A2A_CORE_LIB'

if sys.platform == 'darwin':
    LIB_FILE = 'liba2a_core.dylib'
elif sys.platform == 'win32':
    LIB_FILE = 'a2a_core.dll'
else:
    LIB_FILE = 'liba2a_core.so'


class LibraryNotFoundError(ImportError):
    """liba2a_core could not be found or loaded; the message says where it looked."""


# --- structs, enum numbers, callback types: generated from include/a2a_core.h -------------
# (scripts/gen-bindings.py writes _abi.py; the names used here, Str, Header, HeaderHook, ...,
# are re-exported so that `_lib.Str` keeps working).
from ._abi import *  # noqa: E402,F401,F403
from ._abi import FUNCTIONS, TIERS  # noqa: E402,F401


# --- locating the library ------------------------------------------------------------------


def _candidate_roots() -> list[Path]:
    """Directories that may be the repository root: cwd and this file's location, upwards."""
    roots: list[Path] = []
    for start in (Path.cwd(), Path(__file__).resolve().parent):
        for d in (start, *start.parents):
            if (d / 'Cargo.toml').is_file() and (d / 'ffi').is_dir() and d not in roots:
                roots.append(d)
    return roots


def _release_build(root: Path) -> Path:
    target = os.environ.get('CARGO_TARGET_DIR')
    tdir = (root / target) if target else (root / 'target')
    return tdir / 'release' / LIB_FILE


#: The library inside the installed package (put there by the wheel build, setup.py).
BUNDLED = Path(__file__).resolve().parent / LIB_FILE

BUILD_HINT = (
    'install the package with its library (`pip install ./bindings/python` from an a2a-core '
    'checkout builds and bundles it), build it with `cargo build -p a2a-core-ffi --release`, '
    f'or set ${ENV_VAR} to the library file'
)


def find_library() -> Path:
    """The path of the shared library this package loads (see README: Finding the library).

    The rule every binding of a2a-core follows:
    1. `$A2A_CORE_LIB`: the library file itself, or a directory holding it (the only way to
       load a debug build: CI names its build this way).
    2. The library bundled in this package (`a2a_core/liba2a_core.so`, from the wheel).
    3. For development in a checkout: the repository's release build, found from the working
       directory or this package's location (walking up to the directory with `Cargo.toml`
       and `ffi/`), in `$CARGO_TARGET_DIR` or `target/`. Never the debug build.
    """
    explicit = os.environ.get(ENV_VAR)
    if explicit:
        p = Path(explicit)
        if p.is_dir():
            p = p / LIB_FILE
        if p.is_file():
            return p
        raise LibraryNotFoundError(f'${ENV_VAR}={explicit!r}: no such file ({p})')
    if BUNDLED.is_file():
        return BUNDLED
    looked = [str(BUNDLED)]
    for root in _candidate_roots():
        p = _release_build(root)
        if p.is_file():
            return p
        looked.append(str(p))
    raise LibraryNotFoundError(
        f'{LIB_FILE} not found: {BUILD_HINT}. Looked at: {", ".join(looked)}'
    )


def _load() -> tuple[ctypes.CDLL, Path]:
    path = find_library()
    try:
        return ctypes.CDLL(str(path)), path
    except OSError as e:
        raise LibraryNotFoundError(f'cannot load {path}: {e}') from e


lib, LIB_PATH = _load()

_P = POINTER
u8p = c_char_p  # const uint8_t * / const char *: bytes passed without a copy
vp = c_void_p


def _decl(name: str, restype: object, *argtypes: object) -> None:
    try:
        f = getattr(lib, name)
    except AttributeError:
        raise LibraryNotFoundError(
            f'{LIB_PATH} has no symbol {name}: it was built from older sources than this '
            f'package; rebuild it (cargo build -p a2a-core-ffi --release, or reinstall the package)'
        ) from None
    f.restype = restype
    f.argtypes = list(argtypes)


#: Functions of the header this package deliberately does not bind, with the reason
#: (tests/test_abi.py fails on any other unbound function).
NOT_BOUND: dict[str, str] = {}
#: Prefixes of the layers the client machine replaced (issue 22): the bring-your-own request
#: builder and HTTP/1.1 framing, and the standalone stream tracker, retry policy and
#: breaker (the machine owns one breaker per client state; `a2a_breaker_config_default`
#: stays: `BreakerConfig` reads it). No code of this package calls them; they are left
#: unbound so that the package loads both before and after they leave the C ABI, and only
#: those still declared by the header are listed (tests/test_abi.py).
RETIRED_PREFIXES = ('a2a_request_', 'a2a_http1_', 'a2a_stream_tracker_', 'a2a_retry_policy_',
                    'a2a_breaker_')
#: Names that match a retired prefix but are not retired.
RETIRED_KEEP = frozenset({'a2a_request_sent_to_str', 'a2a_breaker_config_default'})


def is_retired(name: str) -> bool:
    """Whether `name` is a C function of a layer the client machine replaced (issue 22)."""
    return name.startswith(RETIRED_PREFIXES) and name not in RETIRED_KEEP


NOT_BOUND.update(
    {
        name: 'replaced by the client machine (issue 22): never called, leaving the C ABI'
        for name in FUNCTIONS
        if is_retired(name)
    }
)

# Every function of the header but those: argtypes and restype from the generated table.
for _name, (_restype, _argtypes) in FUNCTIONS.items():
    if _name not in NOT_BOUND:
        _decl(_name, _restype, *_argtypes)
del _name, _restype, _argtypes

string_at = ctypes.string_at


def view_bytes(v: Str | Bytes) -> bytes | None:
    """Copies a view out (None when absent)."""
    if not v.ptr:
        return None
    return string_at(v.ptr, v.len) if v.len else b''


def view_str(v: Str | Bytes) -> str | None:
    """Copies a UTF-8 view out as str (None when absent)."""
    if not v.ptr:
        return None
    return string_at(v.ptr, v.len).decode('utf-8', 'replace') if v.len else ''


def enc(s: str | bytes | None) -> tuple[bytes | None, int]:
    """A (ptr, len) input pair from text: `(None, 0)` for None."""
    if s is None:
        return None, 0
    b = s.encode('utf-8') if isinstance(s, str) else bytes(s)
    return b, len(b)


# --- the compiled fast path ----------------------------------------------------------------

#: Set (to anything but '' or '0') to run the pure-ctypes code even where the compiled
#: extension is installed (CI runs the suite both ways).
PURE_ENV = 'A2A_CORE_PURE'

#: The compiled extension `a2a_core._speedups` once `enable_speedups` has registered the
#: package's classes with it; None while the ctypes code runs.
SPEEDUPS = None
#: The arguments `enable_speedups` gave the extension's setup (for the tests).
SPEEDUPS_SETUP: tuple[object, ...] = ()
#: Why the fast path is or is not in use (`a2a_core.speedups_status()`).
SPEEDUPS_STATUS = 'not set up yet'


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a.samefile(b)
    except OSError:
        return False


def _import_speedups() -> tuple[object | None, str]:
    """The extension module, when it may be used with the library loaded above.

    The extension is linked to the bundled library (rpath `$ORIGIN`). Importing it when
    another library was loaded ($A2A_CORE_LIB naming a debug build, or a checkout's release
    build) would load the bundled copy beside it, and handles of one would reach the other:
    the extension is then not imported at all, and the ctypes code runs on the library the
    discovery rule chose. When it is imported, the address of `a2a_version` it sees must be
    the one ctypes sees: one library, loaded once."""
    flag = os.environ.get(PURE_ENV, '')
    if flag not in ('', '0'):
        return None, f'pure ctypes: ${PURE_ENV}={flag}'
    if not _same_file(LIB_PATH, BUNDLED):
        return None, (f'pure ctypes: the library loaded ({LIB_PATH}) is not the one bundled in '
                      f'the package, which the compiled extension is linked to')
    try:
        from . import _speedups  # type: ignore[attr-defined]
    except ImportError as e:
        return None, f'pure ctypes: the compiled extension is not available ({e})'
    mine = ctypes.cast(lib.a2a_version, c_void_p).value
    if _speedups.library_address() != mine:
        return None, 'pure ctypes: the compiled extension sees another copy of the library'
    return _speedups, f'compiled extension {_speedups.__file__}'


def enable_speedups(outcome: type, stream_item: type, event: type, read_answer: object,
                    tables: tuple[Mapping[int, object], ...],
                    answer: tuple[tuple[type, ...], object, object, object] | None = None,
                    ) -> None:
    """Registers the classes the extension builds (called once, by the package's
    __init__, after every module is loaded) and turns the fast path on when it can run.
    `answer` is (the answer's classes, the json scanner, answer_from_json, the outcome's
    "not read yet" sentinel): the extension then builds answers itself (on first access); those of its classes whose fields are not what it sets
    make it fall back to `read_answer` for every answer."""
    global SPEEDUPS, SPEEDUPS_STATUS
    import dataclasses

    mod, why = _import_speedups()
    if mod is not None:
        # Events may be allocated directly on the CPython versions whose tuple construction
        # for a subclass is exactly "allocate, set the items" (3.10-3.13; 3.14 caches the
        # hash in the tuple, which only tuple's own constructor initialises).
        global SPEEDUPS_SETUP
        direct = sys.implementation.name == 'cpython' and sys.version_info < (3, 14)
        SPEEDUPS_SETUP = (outcome, stream_item, event, read_answer, tables, direct)
        if answer is not None:
            SPEEDUPS_SETUP += answer
        fields, item_fields, answer_fields = mod.setup(*SPEEDUPS_SETUP)  # type: ignore[attr-defined]
        if answer is not None and any(
                names is not None and set(names) != {f.name for f in dataclasses.fields(cls)}
                for cls, names in zip(answer[0], answer_fields)):
            # built for other answer classes: answers are read by read_answer
            SPEEDUPS_SETUP = (outcome, stream_item, event, read_answer, tables, direct)
            mod.setup(*SPEEDUPS_SETUP)  # type: ignore[attr-defined]
        want = {f.name for f in dataclasses.fields(outcome)}
        want_item = {f.name for f in dataclasses.fields(stream_item)}
        if set(fields) != want or set(item_fields) != want_item:
            mod, why = None, ('pure ctypes: the compiled extension was built for other Outcome '
                              'or StreamItem fields')
    SPEEDUPS, SPEEDUPS_STATUS = mod, why
