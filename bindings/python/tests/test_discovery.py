"""The library discovery rule (README: Finding the library), run in fresh interpreters:
$A2A_CORE_LIB, then the library bundled in the installed package, then (development) the
repository's release build; never a debug build that was not named."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import a2a_core
from conftest import REPO

SRC = REPO / 'bindings' / 'python' / 'src'
PROBE = 'import a2a_core; print(a2a_core.library_path())'


def run(cwd: Path, env: dict[str, str], source: bool) -> subprocess.CompletedProcess[str]:
    """`PROBE` in a new interpreter; `source`: import the package from the checkout's src/
    (no bundled library there) instead of the installed one."""
    full = {k: v for k, v in os.environ.items() if k not in ('A2A_CORE_LIB', 'CARGO_TARGET_DIR', 'PYTHONPATH')}
    full.update(env)
    if source:
        full['PYTHONPATH'] = str(SRC)
    return subprocess.run(
        [sys.executable, '-c', PROBE], cwd=cwd, env=full, capture_output=True, text=True, timeout=60
    )


def test_the_installed_package_bundles_its_library(tmp_path: Path) -> None:
    r = run(tmp_path, {}, source=False)
    assert r.returncode == 0, r.stderr
    loaded = Path(r.stdout.strip())
    assert loaded.parent == Path(a2a_core.__file__).parent, loaded
    assert loaded.name == 'liba2a_core.so'


def test_the_variable_wins_and_a_wrong_one_is_an_error(tmp_path: Path) -> None:
    named = a2a_core.library_path()  # what CI named (or the bundled one)
    r = run(tmp_path, {'A2A_CORE_LIB': str(named)}, source=False)
    assert r.returncode == 0 and Path(r.stdout.strip()) == named, r.stderr
    r = run(tmp_path, {'A2A_CORE_LIB': str(tmp_path / 'nope.so')}, source=False)
    assert r.returncode != 0
    assert 'A2A_CORE_LIB' in r.stderr and 'nope.so' in r.stderr


def test_a_checkout_uses_its_release_build_never_the_debug_one(tmp_path: Path) -> None:
    lib = a2a_core.library_path()
    target = tmp_path / 'target'
    (target / 'debug').mkdir(parents=True)
    shutil.copy(lib, target / 'debug' / lib.name)
    # Only a debug build: an error naming the variable and the build command.
    r = run(REPO, {'CARGO_TARGET_DIR': str(target)}, source=True)
    assert r.returncode != 0
    assert 'A2A_CORE_LIB' in r.stderr, r.stderr
    assert 'cargo build -p a2a-core-ffi --release' in r.stderr, r.stderr
    assert 'debug' not in r.stdout
    # With a release build beside it (older than the debug one): the release build.
    (target / 'release').mkdir()
    shutil.copy(lib, target / 'release' / lib.name)
    os.utime(target / 'release' / lib.name, (1, 1))
    r = run(REPO, {'CARGO_TARGET_DIR': str(target)}, source=True)
    assert r.returncode == 0, r.stderr
    assert Path(r.stdout.strip()) == target / 'release' / lib.name
