#!/usr/bin/env bash
# Python binding (bindings/python): installs the package into the repository's .venv (made
# by 05-setup.sh) the way users install it (`pip install ./bindings/python`: setuptools-rust
# builds the release liba2a_core and bundles it in a py3-none-<platform> wheel, with the
# optional compiled fast path a2a_core._speedups linked to it), checks that it loads its
# bundled library and its extension from outside the repository with no variable set, then
# runs the pytest suite twice: on the pure-ctypes path against the debug build of 30-c.sh,
# named in A2A_CORE_LIB (the extension is then never loaded), and on the compiled path
# against the bundled release library (A2A_CORE_EXPECT_SPEEDUPS says which path each run
# must find, tests/test_speedups.py checks it and compares the two paths). Every shared
# fixture, the header coverage check, the struct layout check (every ctypes mirror against the
# C compiler's sizeof/offsetof of include/a2a_core.h, via scripts/c-layout.py), the API tests, the discovery rule, and the end-to-end
# tests against the real Python a2a-sdk server (tests/peers, started on 127.0.0.1), and the
# threads tests (tests/test_threads.py: a shared Client closed while calls are in flight, one
# SseDecoder fed from two threads and closed during a feed), and the asyncio client
# (tests/test_async_client.py: AsyncClient on the core's client machine with httpx, from
# tests/requirements.txt, against the project's fault server `a2a-testkit fault-server`,
# built here, the fixture rows and the Python a2a-sdk server), on both paths.
# Last, the sdist: built with PyPA's `build` in a scratch venv, it must carry the Rust sources
# (rust/) and the extension's source, and install from itself, library and extension bundled.
set -euo pipefail
cd "$(dirname "$0")/../.."
if [ ! -x .venv/bin/python ]; then
  echo "40-python: .venv is missing: run scripts/ci/05-setup.sh first" >&2
  exit 1
fi
started=$(date +%s)
root=$PWD

# The package's distribution name was `a2a-core` before it became `a2a-core-native`: a .venv
# made then still has it, owning the same a2a_core/ files.
if .venv/bin/python -m pip show -q a2a-core >/dev/null 2>&1; then
  .venv/bin/python -m pip uninstall --disable-pip-version-check -y -q a2a-core
fi
.venv/bin/python -m pip install --disable-pip-version-check -q ./bindings/python
# From outside the repository, no variable: the library inside the installed package.
(cd /tmp && env -u A2A_CORE_LIB -u A2A_CORE_PURE "$root/.venv/bin/python" -c '
import a2a_core, pathlib
lib = a2a_core.library_path()
assert lib.parent == pathlib.Path(a2a_core.__file__).parent, lib
print("40-python: bundled", lib, f"{lib.stat().st_size // 1024} KiB", a2a_core.library_version())
ext = a2a_core.speedups()
assert ext is not None and ext.parent == lib.parent, a2a_core.speedups_status()
print("40-python: compiled fast path", ext)')

cargo build -p a2a-core-ffi -p a2a-testkit
target_dir="${CARGO_TARGET_DIR:-target}"
case "$target_dir" in /*) ;; *) target_dir="$root/$target_dir" ;; esac
# The tests run against the debug build, named explicitly (the only way a debug build loads).
export A2A_CORE_LIB="$target_dir/debug/liba2a_core.so"
test -f "$A2A_CORE_LIB"
(cd /tmp && "$root/.venv/bin/python" -c 'import a2a_core, sys; print("40-python: a2a_core", a2a_core.__version__, "from", a2a_core.__file__, "library", a2a_core.library_path())')
echo "40-python: pytest on the pure-ctypes path (debug library)"
A2A_CORE_EXPECT_SPEEDUPS=0 .venv/bin/python -m pytest bindings/python/tests -q -p no:cacheprovider
echo "40-python: pytest on the compiled path (bundled release library)"
env -u A2A_CORE_LIB -u A2A_CORE_PURE A2A_CORE_EXPECT_SPEEDUPS=1 \
  .venv/bin/python -m pytest bindings/python/tests -q -p no:cacheprovider

# --- the sdist -----------------------------------------------------------------------------
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 -m venv "$work/venv"
"$work/venv/bin/pip" install --disable-pip-version-check -q build==1.2.2.post1
"$work/venv/bin/python" -m build --sdist --outdir "$work/dist" bindings/python >"$work/sdist.log" 2>&1 \
  || { cat "$work/sdist.log"; exit 1; }
sdist=$(ls "$work"/dist/a2a_core_native-*.tar.gz)
listing=$(tar -tzf "$sdist")   # (not piped into grep -q: tar would die of SIGPIPE)
for f in rust/Cargo.toml rust/Cargo.lock rust/README.md rust/ffi/Cargo.toml rust/ffi/src/lib.rs rust/core/src/lib.rs \
         rust/include/a2a_core.h src/a2a_core/_speedups.c setup.py; do
  grep -q "^a2a_core_native-[^/]*/$f$" <<<"$listing" || { echo "40-python: the sdist lacks $f" >&2; exit 1; }
done
# Built away from the checkout (from the unpacked sdist), sharing only Cargo's target
# directory so that the dependencies compiled above are reused.
unset A2A_CORE_LIB
CARGO_TARGET_DIR="$target_dir" "$work/venv/bin/pip" install --disable-pip-version-check -q "$sdist"
(cd "$work" && "$work/venv/bin/python" -c '
import a2a_core, pathlib
p = a2a_core.library_path()
assert p.parent == pathlib.Path(a2a_core.__file__).parent, p
assert a2a_core.speedups() is not None, a2a_core.speedups_status()
print("40-python: from the sdist:", p, a2a_core.library_version(), a2a_core.speedups().name)')
echo "40-python: done in $(( $(date +%s) - started ))s"
