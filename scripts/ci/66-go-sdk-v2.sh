#!/usr/bin/env bash
# Interop with the official Go SDK at A2A 1.0 (github.com/a2aproject/a2a-go/v2 v2.3.1, fetched
# through the Go module proxy as tests/go-sdk-v2/go.sum pins it), both directions, loopback
# only: the `a2a` CLI against an a2asrv server on both of its HTTP bindings (JSON-RPC and
# HTTP+JSON, at 1.0), and the SDK's client against `a2a demo --serve` (JSON-RPC at 1.0 and,
# through the SDK's a2av0 compat transport, at 0.3; HTTP+JSON when the demo's card offers
# it). Also builds the Go v2 conformance client (tests/go-sdk-v2/cmd/conformance-client),
# and drives an a2asrv server with a2a-core's Go HTTPClient over net/http
# (tests/go-sdk-v2/httpclient: through the card, JSON-RPC and HTTP+JSON at 1.0), and runs the
# binding's trust functions against the SDK (tests/go-sdk-v2/trust: a card signed by the core
# carried through the SDK's AgentCard and served by a2asrv verifies in HTTPClient; the SDK's
# push senders, v2 and v0.3, deliver to the binding's PushVerifier.Handler).
# Needs Go >= 1.25 (a2a-go/v2's go.mod): the one on PATH, or the toolchain
# scripts/ci/50-go.sh fetched.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
started=$(date +%s)

GO=""
for g in "$(command -v go || true)" "$root"/build/go-toolchain/go*/bin/go; do
  [ -n "$g" ] && [ -x "$g" ] || continue
  v=$("$g" env GOVERSION 2>/dev/null) || continue   # e.g. go1.26.8
  v=${v#go}; major=${v%%.*}; rest=${v#*.}; minor=${rest%%[.a-z]*}
  if [ "$major" -gt 1 ] || { [ "$major" -eq 1 ] && [ "$minor" -ge 25 ]; }; then
    GO=$g
    break
  fi
done
if [ -z "$GO" ]; then
  echo "66-go-sdk-v2: Go >= 1.25 is required (run scripts/ci/50-go.sh first: it fetches one)" >&2
  exit 1
fi
case "$GO" in "$root"/build/go-toolchain/*) export GOROOT="$(dirname "$(dirname "$GO")")" ;; esac
export GOTOOLCHAIN=local   # never switch toolchains behind our back

cargo build -p a2a-core --features driver --bin a2a
# The library for a2a-core's Go binding (tests/go-sdk-v2/httpclient: HTTPClient over
# net/http against the SDK's server), linked as scripts/ci/50-go.sh links it.
cargo build -p a2a-core-ffi
export A2A_BIN="${CARGO_TARGET_DIR:-$root/target}/debug/a2a"
target_dir="${CARGO_TARGET_DIR:-target}"
case "$target_dir" in /*) ;; *) target_dir="$root/$target_dir" ;; esac
tags=(-tags a2a_debug)
if [ "$target_dir" != "$root/target" ]; then
  tags=(-tags a2a_system)
  export CGO_LDFLAGS="-L$target_dir/debug -Wl,-rpath,$target_dir/debug ${CGO_LDFLAGS:-}"
fi
export CGO_ENABLED=1
cd tests/go-sdk-v2
"$GO" vet "${tags[@]}" ./...
"$GO" test "${tags[@]}" -count=1 -v ./...
echo "66-go-sdk-v2: a2a-go/v2 v2.3.1 interop passed in $(( $(date +%s) - started ))s"
