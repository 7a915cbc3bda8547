"""Build of the a2a-core-native wheel: setuptools-rust compiles the release `liba2a_core`
(the C ABI crate, ffi/) and puts it inside the package as `a2a_core/liba2a_core.so`, where
`a2a_core._lib` loads it. Everything else is in pyproject.toml.

Where the Rust sources come from:
- from a checkout (`pip install ./bindings/python`): the repository itself, `../../ffi`;
- from the sdist: the copy under `rust/` that `sdist` below puts in it (the workspace manifest
  without its non-library members, Cargo.lock, README.md, core/ and ffi/ sources, the header),
  so an sdist builds anywhere Cargo can reach crates.io.

The optional fast path `a2a_core._speedups` (src/a2a_core/_speedups.c) is a small C
extension over the C ABI, built against CPython's stable ABI (Py_LIMITED_API 3.10, one
`_speedups.abi3.so` for every CPython 3.10+) and linked to the library bundled beside it
(`-la2a_core`, rpath `$ORIGIN` / `@loader_path`): never a second copy of the library. It is
`optional`: without a C compiler or Python's headers the wheel is built without it, and the
package runs on its pure-ctypes code (a2a_core/_lib.py chooses at import).
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.bdist_wheel import bdist_wheel
from setuptools.command.build_ext import build_ext
from setuptools.command.sdist import sdist
from setuptools_rust import Binding, RustExtension, Strip
from setuptools_rust.build import build_rust

HERE = Path(__file__).resolve().parent
VENDORED = 'rust'
if sys.platform == 'darwin':
    LIB_FILE = 'liba2a_core.dylib'
elif sys.platform == 'win32':
    LIB_FILE = 'a2a_core.dll'
else:
    LIB_FILE = 'liba2a_core.so'


def _repo_root() -> Path | None:
    root = HERE.parent.parent
    return root if (root / 'ffi' / 'Cargo.toml').is_file() else None


def _manifest() -> str:
    if (HERE / VENDORED / 'ffi' / 'Cargo.toml').is_file():
        return os.path.join(VENDORED, 'ffi', 'Cargo.toml')
    if _repo_root() is None:
        raise SystemExit('a2a-core-native: neither rust/ffi/Cargo.toml (sdist) nor ../../ffi (checkout)')
    return os.path.join('..', '..', 'ffi', 'Cargo.toml')


class BuildRust(build_rust):
    """Names the library as the C world does (`liba2a_core.so`), not as a CPython module."""

    def get_dylib_ext_path(self, ext: RustExtension, target_fname: str) -> str:
        path = super().get_dylib_ext_path(ext, target_fname)
        return os.path.join(os.path.dirname(path), LIB_FILE)


def _header_dir() -> str:
    """Where include/a2a_core.h is: the sdist's copy, else the checkout's."""
    if (HERE / VENDORED / 'include' / 'a2a_core.h').is_file():
        return os.path.join(VENDORED, 'include')
    return os.path.join('..', '..', 'include')


class BuildExt(build_ext):
    """Builds the Rust library before the C extension, which links to it. (setuptools-rust
    runs `build_rust` after the C extensions, and again after this: Cargo finds nothing to
    do and the same file is copied once more.)"""

    def run(self) -> None:
        if self.extensions and self.distribution.rust_extensions:
            rust = self.get_finalized_command('build_rust')
            rust.inplace = self.inplace
            plat = getattr(self, '_get_wheel_plat_name', lambda: None)()
            rust.plat_name = plat or self.plat_name
            rust.run()
            if self.inplace:
                libdir = self.get_finalized_command('build_py').get_package_dir('a2a_core')
            else:
                libdir = os.path.join(self.build_lib, 'a2a_core')
            for ext in self.extensions:
                ext.library_dirs.append(libdir)
        super().run()

    def build_extensions(self) -> None:
        # The extension finds the library beside it first: the rpath goes before the ones the
        # interpreter's own link command carries (pyenv's adds its lib/ directory).
        rpath = _RPATH.get(sys.platform)
        linker = getattr(self.compiler, 'linker_so', None)
        if rpath and isinstance(linker, list) and linker:
            self.compiler.linker_so = [linker[0], rpath, *linker[1:]]
        super().build_extensions()


#: The extension's run-time search path: the package's own directory (Windows finds a DLL
#: beside the extension by itself).
_RPATH = {'linux': '-Wl,-rpath,$ORIGIN', 'darwin': '-Wl,-rpath,@loader_path'}


def _speedups() -> list[Extension]:
    return [
        Extension(
            'a2a_core._speedups',
            sources=['src/a2a_core/_speedups.c'],
            include_dirs=[_header_dir()],
            libraries=['a2a_core'],  # the bundled library; rpath set in BuildExt
            py_limited_api=True,  # the source defines Py_LIMITED_API 0x030A0000
            optional=True,  # no compiler or headers: the wheel runs on ctypes alone
        )
    ]


class BdistWheel(bdist_wheel):
    """The library is called through ctypes, not the CPython ABI: one wheel per platform
    serves every Python 3 (`py3-none-<platform>`). The optional extension is built for the
    stable ABI of CPython 3.10+ (the package's own minimum); an interpreter that cannot
    import it (another implementation) runs the ctypes code."""

    def get_tag(self) -> tuple[str, str, str]:
        _, _, plat = super().get_tag()
        return 'py3', 'none', plat


class Sdist(sdist):
    """Adds the Rust sources the library is built from (they live outside this project)."""

    def make_release_tree(self, base_dir: str, files: list[str]) -> None:
        super().make_release_tree(base_dir, files)
        root = _repo_root()
        if root is None:  # an sdist made from an sdist: rust/ is already among the files
            return
        dest = Path(base_dir) / VENDORED
        ignore = shutil.ignore_patterns('tests', 'fuzz', 'examples', 'target', '*.proptest-regressions')
        for crate in ('core', 'ffi'):
            (dest / crate).mkdir(parents=True, exist_ok=True)
            shutil.copy2(root / crate / 'Cargo.toml', dest / crate / 'Cargo.toml')
            shutil.copytree(root / crate / 'src', dest / crate / 'src', ignore=ignore)
        (dest / 'include').mkdir(exist_ok=True)
        shutil.copy2(root / 'include' / 'a2a_core.h', dest / 'include' / 'a2a_core.h')
        shutil.copy2(root / 'Cargo.lock', dest / 'Cargo.lock')
        shutil.copy2(root / 'README.md', dest / 'README.md')  # the workspace's front page
        workspace = (root / 'Cargo.toml').read_text(encoding='utf-8')
        members = '\n'.join(
            line if not line.startswith('members') else 'members = ["core", "ffi"]'
            for line in workspace.splitlines()
        )
        members = members.replace('default-members = ["core", "ffi"]\n', '')
        (dest / 'Cargo.toml').write_text(members + '\n', encoding='utf-8')


setup(
    rust_extensions=[
        RustExtension(
            'a2a_core.liba2a_core',
            path=_manifest(),
            binding=Binding.NoBinding,
            # Always the release profile: a debug library is ~5x slower (CI tests a debug
            # build by naming it in A2A_CORE_LIB instead).
            debug=False,
            # Line tables stay in target/release for profiling; the wheel does not need them.
            strip=Strip.Debug,
            # From the checkout, exactly the committed Cargo.lock; the sdist's workspace has
            # fewer members, so Cargo prunes their entries from its copy (versions unchanged).
            args=['--locked'] if _manifest().startswith('..') else [],
            py_limited_api=False,
        )
    ],
    ext_modules=_speedups(),
    cmdclass={
        'build_rust': BuildRust,
        'build_ext': BuildExt,
        'bdist_wheel': BdistWheel,
        'sdist': Sdist,
    },
    zip_safe=False,
)
