#!/usr/bin/env bash
# Interop tests against the real A2A peers (tests/peers: Python a2a-sdk and JS @a2a-js/sdk
# servers started and stopped by the tests themselves on 127.0.0.1).
# Needs scripts/ci/05-setup.sh (.venv and tests/peers/js/node_modules); some tests drive the
# project's `a2a` binary, found through $A2A_BIN, and its test tooling (`a2a-testkit
# build-matrix`, `model-read`), found through $A2A_TESTKIT_BIN.
set -euo pipefail
cd "$(dirname "$0")/../.."
if [ ! -x .venv/bin/python ] || [ ! -d tests/peers/js/node_modules/@a2a-js/sdk ]; then
  echo "60-interop: .venv or the JS peer's node_modules is missing: run scripts/ci/05-setup.sh" >&2
  exit 1
fi
cargo build -p a2a-core --features driver --bin a2a --example tally_render --example card_render
cargo build -p a2a-testkit
export A2A_BIN="${CARGO_TARGET_DIR:-$PWD/target}/debug/a2a"
export A2A_TESTKIT_BIN="${CARGO_TARGET_DIR:-$PWD/target}/debug/a2a-testkit"
export A2A_TALLY_RENDER="${CARGO_TARGET_DIR:-$PWD/target}/debug/examples/tally_render"
export A2A_CARD_RENDER="${CARGO_TARGET_DIR:-$PWD/target}/debug/examples/card_render"
.venv/bin/python -m pytest tests/interop tests/python -q
