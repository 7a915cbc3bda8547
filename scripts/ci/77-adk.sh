#!/usr/bin/env bash
# ADK for Python both ways (issue 27; tests/adk): the `a2a` CLI against a deterministic ADK
# agent (no model) served over A2A by ADK's `to_a2a`, and ADK's `RemoteA2aAgent` calling
# `a2a demo --serve` (a FAILED task's error_id must reach ADK's events) and the fault
# server's `rpc-error` agent (a JSON-RPC error must reach them). Loopback only.
# google-adk[a2a] 2.13.0 goes into its own environment, build/adk-venv (it brings its own
# a2a-sdk and a newer uvicorn than the peers in .venv pin); pinned in tests/adk/requirements.txt.
set -euo pipefail
cd "$(dirname "$0")/../.."
started=$(date +%s)
if ! build/adk-venv/bin/python -c 'import sys' >/dev/null 2>&1; then
  rm -rf build/adk-venv
  python3 -m venv build/adk-venv
fi
build/adk-venv/bin/python -m pip install --disable-pip-version-check -q -r tests/adk/requirements.txt
installed=$(date +%s)
cargo build -p a2a-core --features driver --bin a2a
cargo build -p a2a-testkit
export A2A_BIN="${CARGO_TARGET_DIR:-$PWD/target}/debug/a2a"
export A2A_TESTKIT_BIN="${CARGO_TARGET_DIR:-$PWD/target}/debug/a2a-testkit"
build/adk-venv/bin/python -m pytest tests/adk -q -p no:cacheprovider -W 'ignore::UserWarning'
echo "77-adk: install $(( installed - started ))s, done in $(( $(date +%s) - started ))s"
