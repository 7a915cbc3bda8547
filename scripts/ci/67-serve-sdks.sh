#!/usr/bin/env bash
# The binding example servers (issue 25) driven by the official SDK clients: the Python ASGI
# server (bindings/python/examples/serve.py under uvicorn), the Go http.Handler
# (bindings/go/examples/serve) and the Java HttpHandler (bindings/java/examples/ServeExample)
# each run on 127.0.0.1, and each is driven by
#   - the Python a2a-sdk client in 1.0, and in its 0.3 compat (the card's 0.3 interfaces only),
#   - the JavaScript @a2a-js/sdk client,
#   - the Go SDK's 0.3 client (github.com/a2aproject/a2a-go v0.3.3, tests/go-sdk/cmd/serve-client),
#   - the Go SDK's v2 client (a2a-go/v2 v2.3.1, tests/go-sdk-v2/cmd/serve-client) in 1.0 and in
#     its a2av0 compat,
# through send, stream, get (and of an unknown task), cancel and a handler's InvalidParams on a
# send and a stream (tests/server-conformance/clients/);
# then the project's server conformance suite (tests/server-conformance) runs against each,
# without the tests marked reference_agent (they need the reference agent's scripted words;
# 62-conformance.sh runs the whole suite against `a2a demo --serve`). Every check must pass.
# Needs what earlier steps installed: 05-setup.sh (.venv, the JS SDK), 40-python.sh (nothing
# beyond .venv: the example runs from bindings/python/src on the debug library), 55-java.sh
# (JDK, Maven and the a2a-core module's dependencies), 65-go-sdk.sh and 66-go-sdk-v2.sh (the
# a2a-go modules in Go's module cache; Go >= 1.24 on PATH or fetched by 50-go.sh).
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
started=$(date +%s)

[ -x .venv/bin/python ] || { echo "67-serve-sdks: .venv is missing: run scripts/ci/05-setup.sh" >&2; exit 1; }
[ -d tests/peers/js/node_modules/@a2a-js/sdk ] || { echo "67-serve-sdks: the JS SDK is missing: run scripts/ci/05-setup.sh" >&2; exit 1; }
GO=""
for g in "$(command -v go || true)" "$root"/build/go-toolchain/go*/bin/go; do
  [ -n "$g" ] && [ -x "$g" ] || continue
  v=$("$g" env GOVERSION 2>/dev/null) || continue
  v=${v#go}; major=${v%%.*}; rest=${v#*.}; minor=${rest%%[.a-z]*}
  if [ "$major" -gt 1 ] || { [ "$major" -eq 1 ] && [ "$minor" -ge 24 ]; }; then GO=$g; break; fi
done
[ -n "$GO" ] || { echo "67-serve-sdks: Go >= 1.24 is required (scripts/ci/50-go.sh fetches one)" >&2; exit 1; }
case "$GO" in "$root"/build/go-toolchain/*) export GOROOT="$(dirname "$(dirname "$GO")")" ;; esac
export GOTOOLCHAIN=local

cargo build -p a2a-core-ffi
target_dir="${CARGO_TARGET_DIR:-target}"
case "$target_dir" in /*) ;; *) target_dir="$root/$target_dir" ;; esac
lib_dir="$target_dir/debug"
export A2A_CORE_LIB="$lib_dir/liba2a_core.so"
test -f "$A2A_CORE_LIB"

work=$(mktemp -d)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

# --- the three example servers, built --------------------------------------------------------
tags=(-tags a2a_debug)
if [ "$lib_dir" != "$root/target/debug" ]; then
  tags=(-tags a2a_system)
  export CGO_LDFLAGS="-L$lib_dir -Wl,-rpath,$lib_dir ${CGO_LDFLAGS:-}"
fi
(cd bindings/go && CGO_ENABLED=1 GOFLAGS=-mod=mod "$GO" build "${tags[@]}" -o "$work/go-serve" ./examples/serve)
(cd tests/go-sdk && GOFLAGS=-mod=mod GOPROXY=off "$GO" build -o "$work/go-sdk-client" ./cmd/serve-client)
(cd tests/go-sdk-v2 && GOFLAGS=-mod=mod GOPROXY=off "$GO" build -o "$work/go-sdk-v2-client" ./cmd/serve-client)
(cd bindings/java && mvn -B -q -pl a2a-core compile dependency:build-classpath -Dmdep.includeScope=runtime \
  -Dmdep.outputFile="$work/cp.txt" >/dev/null)
java_cp="$root/bindings/java/a2a-core/target/classes:$(cat "$work/cp.txt")"
mkdir -p "$work/java"
javac -d "$work/java" -cp "$java_cp" bindings/java/examples/ServeExample.java

# Starts a server command under the name $1 (in this shell, so cleanup knows its pid); its
# URL is then in "$work/$1.url".
start() {
  local name=$1
  shift
  "$@" >"$work/$name.stdout" 2>"$work/$name.stderr" &
  pids+=("$!")
  for _ in $(seq 1 200); do
    if grep -q '^READY ' "$work/$name.stdout" 2>/dev/null; then
      sed -n 's/^READY //p' "$work/$name.stdout" | head -n 1 >"$work/$name.url"
      return 0
    fi
    sleep 0.1
  done
  echo "67-serve-sdks: the $name example did not print READY within 20 s" >&2
  cat "$work/$name.stderr" >&2
  return 1
}
start python env PYTHONPATH="$root/bindings/python/src" .venv/bin/python bindings/python/examples/serve.py
start go "$work/go-serve"
start java java -cp "$work/java:$java_cp" ServeExample

# --- every SDK client against every server ----------------------------------------------------
fails=0
# Runs one client (label, then its command line); counts a failed run and shows its output.
run_client() {
  local label=$1 out
  shift
  if out=$("$@" 2>"$work/client.stderr"); then
    echo "$label: $(grep -c '^ok ' <<<"$out") checks passed"
  else
    fails=$((fails + 1))
    echo "$label: FAILED"
    echo "$out"
    tail -n 5 "$work/client.stderr"
  fi
}
for server in python go java; do
  url=$(cat "$work/$server.url")
  run_client "$server example / Python a2a-sdk 1.0" .venv/bin/python tests/server-conformance/clients/python_sdk.py "$url" 1.0
  run_client "$server example / Python a2a-sdk 0.3 compat" .venv/bin/python tests/server-conformance/clients/python_sdk.py "$url" 0.3
  run_client "$server example / JS @a2a-js/sdk" node tests/server-conformance/clients/js_sdk.mjs "$url"
  run_client "$server example / Go a2a-go v0.3.3" "$work/go-sdk-client" "$url"
  run_client "$server example / Go a2a-go/v2 1.0" "$work/go-sdk-v2-client" "$url" 1.0
  run_client "$server example / Go a2a-go/v2 0.3 compat" "$work/go-sdk-v2-client" "$url" 0.3
  if ! A2A_CONFORMANCE_URL="$url" .venv/bin/python -m pytest tests/server-conformance -q -p no:cacheprovider \
      -m "not reference_agent" >"$work/conformance.out" 2>&1; then
    fails=$((fails + 1))
    cat "$work/conformance.out"
  fi
  echo "$server example / tests/server-conformance: $(tail -n 1 "$work/conformance.out")"
done
if [ "$fails" -ne 0 ]; then
  echo "67-serve-sdks: $fails client runs failed (above)" >&2
  exit 1
fi
echo "67-serve-sdks: done in $(( $(date +%s) - started ))s"
