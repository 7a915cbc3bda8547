#!/usr/bin/env bash
# Regenerates include/a2a_core.h from ffi/src with the cbindgen pinned in Cargo.lock
# (a dev-dependency of a2a-core-ffi), by running the drift test in "bless" mode.
# No cbindgen binary is needed. Then regenerates the bindings' mirrors of the header
# (scripts/gen-bindings.py: Python's _abi.py, Java's AbiEnums.java and AbiFunctions.java).
# Commit the result.
set -euo pipefail
cd "$(dirname "$0")/.."
A2A_BLESS_HEADER=1 cargo test -p a2a-core-ffi --test header committed_header_matches_generated -- --exact
python3 scripts/gen-bindings.py
git --no-pager diff --stat -- include/a2a_core.h bindings/python/src/a2a_core/_abi.py \
  bindings/java/a2a-core/src/main/java/dev/a2acore/AbiEnums.java \
  bindings/java/a2a-core/src/main/java/dev/a2acore/internal/AbiFunctions.java || true
