#!/usr/bin/env bash
# Client conformance of the official SDK clients (issue 27), NON-BLOCKING: every client of
# tests/conformance/run.py (the project's CLI, Python a2a-sdk, Go a2a-go v0.3 and v2, JS
# @a2a-js/sdk, a2a-java 0.3.2.Final over its JDK HTTP client and over the project's drop-in)
# runs through the fault cases once per A2A version it speaks (the fault server speaking 1.0
# for the CLI, the Python SDK, Go v2 and JS; 0.3 for all of them, which is the compat
# transport of the 1.x SDKs): 13 runs, 2 at a time (more, on 2 cores, slow the Python SDK's
# start past the kit's deadline and its row measures the machine). The page is regenerated
# into build/conformance/client-conformance.md and compared with the committed
# docs/client-conformance.md. A difference, a skipped client or a failing run is reported
# here and never fails CI: the SDKs are other projects' code whose behaviour this step
# observes (and it takes about 13 minutes: SDK clients without timeouts wait out the kit's
# 90 s deadline). To publish new results: python3 tests/conformance/run.py (writes docs/).
# Needs what earlier steps installed: 05-setup.sh (.venv, the JS SDK), 55-java.sh (JDK, Maven,
# the drop-in's jar), 65-go-sdk.sh and 66-go-sdk-v2.sh (the a2a-go modules in Go's module
# cache); a missing one makes that client's row "skipped".
set -uo pipefail
cd "$(dirname "$0")/../.."
started=$(date +%s)
if ! cargo build -q -p a2a-core --features driver --bin a2a || ! cargo build -q -p a2a-testkit; then
  echo "76-conformance-sdks: build failed (non-blocking)"
  exit 0
fi
export A2A_BIN="${CARGO_TARGET_DIR:-$PWD/target}/debug/a2a"
export A2A_TESTKIT_BIN="${CARGO_TARGET_DIR:-$PWD/target}/debug/a2a-testkit"
export GOPROXY=off GOTOOLCHAIN=local   # the a2a-go modules come from the cache
mkdir -p build/conformance
if python3 tests/conformance/run.py --parallel 2 --doc build/conformance/client-conformance.md; then
  strip() { sed -n '/^### 4.2 Verdicts/,/^### 4.3/p' "$1"; }
  if diff <(strip docs/client-conformance.md) <(strip build/conformance/client-conformance.md); then
    echo "76-conformance-sdks: the verdicts match docs/client-conformance.md"
  else
    echo "76-conformance-sdks: the verdicts differ from docs/client-conformance.md (above; non-blocking)"
  fi
else
  echo "76-conformance-sdks: run.py failed (non-blocking)"
fi
echo "76-conformance-sdks: done in $(( $(date +%s) - started ))s"
exit 0
