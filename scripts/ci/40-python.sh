#!/usr/bin/env bash
# Python binding (bindings/python): builds liba2a_core like 30-c.sh (debug), installs the
# package into the repository's .venv (made by 05-setup.sh) the way users install it
# (`pip install ./bindings/python`), and runs its pytest suite: every shared fixture, the
# header coverage check, the struct layout check (every ctypes mirror against the C
# compiler's sizeof/offsetof of include/a2a_core.h, via scripts/c-layout.py), the API tests, and the end-to-end tests against the real Python
# a2a-sdk server (tests/peers, started on 127.0.0.1 by the tests).
set -euo pipefail
cd "$(dirname "$0")/../.."
if [ ! -x .venv/bin/python ]; then
  echo "40-python: .venv is missing: run scripts/ci/05-setup.sh first" >&2
  exit 1
fi

cargo build -p a2a-core-ffi
target_dir="${CARGO_TARGET_DIR:-target}"
case "$target_dir" in /*) ;; *) target_dir="$PWD/$target_dir" ;; esac
# Name the library explicitly: a stale release build in the same tree must not be loaded.
export A2A_CORE_LIB="$target_dir/debug/liba2a_core.so"
test -f "$A2A_CORE_LIB"

.venv/bin/python -m pip install --disable-pip-version-check -q ./bindings/python
# Import from the installed package, not from the source tree.
(cd /tmp && "$OLDPWD/.venv/bin/python" -c 'import a2a_core, sys; print("40-python: a2a_core", a2a_core.__version__, "from", a2a_core.__file__, "library", a2a_core.library_path())')
.venv/bin/python -m pytest bindings/python/tests -q -p no:cacheprovider
