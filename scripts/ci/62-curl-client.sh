#!/usr/bin/env bash
# examples/c/curl_client.c: libcurl driving the core's client machine through the C ABI.
# Installs libcurl's development package from Debian when it is missing, builds the example
# against the built shared library, and runs it against the fault server (a2a-testkit
# fault-server) and the Python SDK peer (tests/peers/python), asserting outputs and exit
# codes (the outcome's CLI exit code: docs/outcomes.md).
# Needs scripts/ci/05-setup.sh (.venv with the Python peer's pinned SDK).
set -euo pipefail
cd "$(dirname "$0")/../.."
if [ ! -x .venv/bin/python ]; then
  echo "62-curl-client: .venv is missing: run scripts/ci/05-setup.sh" >&2
  exit 1
fi
if ! echo '#include <curl/curl.h>' | cc -E -x c - >/dev/null 2>&1; then
  echo "62-curl-client: installing libcurl4-openssl-dev from Debian"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq libcurl4-openssl-dev >/dev/null
fi

cargo build -p a2a-core-ffi
cargo build -p a2a-testkit
target_dir="${CARGO_TARGET_DIR:-target}"
lib_dir="$target_dir/debug"
out="build/c"
mkdir -p "$out"
exe="$out/curl_client"
cc -std=c99 -Wall -Wextra -Werror -pedantic -g -Iinclude examples/c/curl_client.c \
  -L"$lib_dir" -Wl,-rpath,"$PWD/$lib_dir" -la2a_core -lcurl -o "$exe"

pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT

# Starts a server printing "READY <url>" on stdout; sets $ready_url.
start() {
  local name=$1; shift
  "$@" >"$out/$name.out" 2>"$out/$name.err" &
  pids+=($!)
  for _ in $(seq 1 300); do
    grep -q '^READY ' "$out/$name.out" 2>/dev/null && break
    sleep 0.1
  done
  ready_url=$(sed -n 's/^READY //p' "$out/$name.out" | head -n 1)
  [ -n "$ready_url" ] || { cat "$out/$name.err"; echo "FAILED: $name did not start within 30 s"; exit 1; }
}

failures=0
# expect NAME WANT_EXIT WANT_STDOUT ARGS...: runs the example (bounded), compares the exit
# code, and the whole standard output with WANT_STDOUT (a shell pattern: `*` for random ids).
expect() {
  local name=$1 want_code=$2 want_out=$3; shift 3
  local got_out got_code=0
  got_out=$(timeout 60 "$exe" "$@" 2>"$out/curl-$name.err") || got_code=$?
  # shellcheck disable=SC2053 # the right side is a pattern on purpose
  if [ "$got_code" = "$want_code" ] && [[ "$got_out" == $want_out ]]; then
    echo "ok   $name (exit $got_code)"
  else
    echo "FAIL $name: exit $got_code (want $want_code), stdout:"
    printf '%s\n' "$got_out" | sed 's/^/  | /'
    echo "  want:"; printf '%s\n' "$want_out" | sed 's/^/  | /'
    sed 's/^/  stderr: /' "$out/curl-$name.err"
    failures=$((failures + 1))
  fi
}

start fault-server "$target_dir/debug/a2a-testkit" fault-server --port 0
fault=$ready_url
expect fault-send 0 "hello" "$fault/ok/" send hello
expect fault-stream 0 "$(printf 'hello\nend: completed')" "$fault/ok/" stream hello
expect fault-flow 0 "$(printf 'hi\nend: completed')" "$fault/flow-100-300/" stream hi
expect fault-failed 5 "Agent execution failed. (error_id: 0f1e2d3c4b5a)" "$fault/ok/" send fail-now
expect fault-503 3 "" "$fault/status-503/" send hi
expect fault-unreadable 3 "" "$fault/badbytes/" send hi
expect fault-stream-cut 3 "$(printf 'part one, \nend: working')" "$fault/stream-drop/" stream hi
expect fault-card-redirect 3 "" "$fault/card-302/" send hi
expect refused 3 "" "http://127.0.0.1:1/" send hi
grep -q 'HTTP 302' "$out/curl-fault-card-redirect.err" || { echo "FAIL: the redirect is not reported"; failures=$((failures + 1)); }
expect usage 2 "" "$fault/ok/" shout hi

start python-peer .venv/bin/python tests/peers/python/peer.py --port 0 --ping 1
peer=$ready_url
expect peer-send 0 "hello from curl" "$peer/" send "echo hello from curl"
expect peer-stream 0 "$(printf 'chunk 0\nchunk 1\nchunk 2\nend: completed')" "$peer/" stream "stream 3"
expect peer-failed 5 "Agent execution failed. (error_id: *)" "$peer/" send "fail on purpose"
expect peer-stream-failed 5 "$(printf 'Agent execution failed. (error_id: *)\nend: failed')" "$peer/" stream "fail on purpose"

[ "$failures" = 0 ] || { echo "curl_client: $failures case(s) failed"; exit 1; }
echo "curl_client: all cases passed"
