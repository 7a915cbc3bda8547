#!/usr/bin/env bash
# Client conformance of the project's own client (issue 27): `a2a-testkit conformance` runs
# the `a2a` CLI through every fault case four times (its defaults, and with --resubscribes 2;
# each against the fault server speaking A2A 0.3 and speaking 1.0) and the step fails when a
# verdict differs from tests/conformance/expected.json (a case not listed there must pass).
# Loopback only; every case is bounded by the kit's 90 s deadline, and the four runs go side
# by side in about 70 s (the hung call and the silent stream wait for the CLI's own 45 s call
# and 60 s idle timeouts; the other cases take well under a second each). Needs python3
# (standard library only).
# The official SDK clients run in the next, non-blocking step (76-conformance-sdks.sh).
set -euo pipefail
cd "$(dirname "$0")/../.."
started=$(date +%s)
cargo build -p a2a-core --features driver --bin a2a
cargo build -p a2a-testkit
export A2A_BIN="${CARGO_TARGET_DIR:-$PWD/target}/debug/a2a"
export A2A_TESTKIT_BIN="${CARGO_TARGET_DIR:-$PWD/target}/debug/a2a-testkit"
python3 tests/conformance/run.py --clients a2a,a2a-resubscribe --parallel 4 --check-project --no-render
echo "75-conformance: done in $(( $(date +%s) - started ))s"
