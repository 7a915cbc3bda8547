#!/usr/bin/env bash
# The official Go SDK's 0.3 client (github.com/a2aproject/a2a-go v0.3.3, fetched through the
# Go module proxy as tests/go-sdk/go.sum pins it) against `a2a demo --serve`: the card's 0.3
# fields let it pick an interface; send, a FAILED task with its error_id, a stream; SIGTERM
# stops the server with exit status 0 (issue 12). And the other way round: the Go SDK's
# server (a2asrv) with an agent that goes silent across several idle timeouts, driven by
# `a2a stream` (resubscribes to the same task, issue 21). Loopback only.
# Needs Go >= 1.24: the one on PATH, or the toolchain scripts/ci/50-go.sh fetched.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD

GO=""
for g in "$(command -v go || true)" "$root"/build/go-toolchain/go*/bin/go; do
  [ -n "$g" ] && [ -x "$g" ] || continue
  v=$("$g" env GOVERSION 2>/dev/null) || continue   # e.g. go1.26.8
  v=${v#go}; major=${v%%.*}; rest=${v#*.}; minor=${rest%%[.a-z]*}
  if [ "$major" -gt 1 ] || { [ "$major" -eq 1 ] && [ "$minor" -ge 24 ]; }; then
    GO=$g
    break
  fi
done
if [ -z "$GO" ]; then
  echo "65-go-sdk: Go >= 1.24 is required (run scripts/ci/50-go.sh first: it fetches one)" >&2
  exit 1
fi
case "$GO" in "$root"/build/go-toolchain/*) export GOROOT="$(dirname "$(dirname "$GO")")" ;; esac
export GOTOOLCHAIN=local   # never switch toolchains behind our back

cargo build -p a2a-core --features driver --bin a2a
export A2A_BIN="${CARGO_TARGET_DIR:-$root/target}/debug/a2a"
cd tests/go-sdk
"$GO" vet ./...
"$GO" test -count=1 ./...
echo "65-go-sdk: the Go SDK v0.3.3 client passed against a2a demo --serve"
