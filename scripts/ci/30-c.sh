#!/usr/bin/env bash
# C ABI: builds liba2a_core (cdylib + staticlib), then compiles the plain-C99 tests in
# tests/c/ with -Wall -Wextra -Werror -pedantic and runs them
#   (a) normally, against the static and against the shared library,
#   (b) under AddressSanitizer + UndefinedBehaviorSanitizer (proving the sanitizer is linked),
#   (c) under valgrind --leak-check=full,
# each with zero findings (tests/c/test_concurrency.c's pthreads included: a free under a
# call in flight is a use-after-free the sanitizer and valgrind report); checks that every
# function the header declares is called by the
# tests; that the header compiles for each tier set; and builds and runs the C example in
# examples/c/.
set -euo pipefail
cd "$(dirname "$0")/../.."

need() { command -v "$1" >/dev/null 2>&1; }
if ! need cc || ! need valgrind || ! need nm; then
  echo "installing the C toolchain and valgrind"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq build-essential valgrind binutils >/dev/null
fi

cargo build -p a2a-core-ffi
# The project's fault server (`a2a-testkit fault-server`, testkit/; tests/c/test_call_run.c
# talks to it): started once, its base URL passed in A2A_TEST_FAULT_URL, stopped (by its
# pid) when this script exits.
cargo build -p a2a-testkit
target_dir="${CARGO_TARGET_DIR:-target}"
# Absolute, so that the shared library's rpath below holds whether CARGO_TARGET_DIR is set
# relative, absolute or not at all.
case "$target_dir" in /*) ;; *) target_dir="$PWD/$target_dir" ;; esac
lib_dir="$target_dir/debug"
out="build/c"
mkdir -p "$out"

# Native libraries a Rust staticlib needs on Linux (`--print native-static-libs`).
static_libs="-lgcc_s -lutil -lrt -lpthread -lm -ldl -lc"
cflags="-pthread -std=c99 -Wall -Wextra -Werror -pedantic -g -Iinclude -Itests/c"
sources=(tests/c/*.c)

run() {
  local name=$1; shift
  echo "--- $name"
  local log="$out/$name.log"
  if ! "$@" >"$log" 2>&1; then
    cat "$log"
    echo "FAILED: $name"
    exit 1
  fi
  tail -n 1 "$log"
  # The last line must be exactly "N passed, 0 failed".
  tail -n 1 "$log" | grep -Eq '^[0-9]+ passed, 0 failed$' || { cat "$log"; echo "FAILED: $name"; exit 1; }
}

fault_log="$out/fault-server.out"
"${target_dir}/debug/a2a-testkit" fault-server --port 0 >"$fault_log" 2>"$out/fault-server.err" &
fault_pid=$!
trap 'kill "$fault_pid" 2>/dev/null || true' EXIT
for _ in $(seq 1 200); do
  grep -q '^READY ' "$fault_log" 2>/dev/null && break
  sleep 0.1
done
A2A_TEST_FAULT_URL=$(sed -n 's/^READY //p' "$fault_log")
[ -n "$A2A_TEST_FAULT_URL" ] || { cat "$out/fault-server.err"; echo "FAILED: fault server did not start within 20 s"; exit 1; }
export A2A_TEST_FAULT_URL

# (a) normal builds: static and shared.
cc $cflags "${sources[@]}" "$lib_dir/liba2a_core.a" $static_libs -o "$out/test_static"
run static "$out/test_static"
cc $cflags "${sources[@]}" -L"$lib_dir" -Wl,-rpath,"$lib_dir" -la2a_core -o "$out/test_shared"
run shared "$out/test_shared"

# (b) ASAN + UBSAN (the Rust code is not instrumented, but its allocations go through the
# sanitizer's malloc, so leaks, double frees and C-side overflows are caught).
# The runtimes are linked statically so that the proof below finds them defined in the
# executable itself.
cc $cflags -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer \
  -static-libasan -static-libubsan "${sources[@]}" "$lib_dir/liba2a_core.a" $static_libs -o "$out/test_asan"
symbols=$(nm "$out/test_asan")
if ! grep -Eq ' T __asan_init$' <<<"$symbols"; then
  echo "FAILED: AddressSanitizer is not linked into $out/test_asan"; exit 1
fi
if ! grep -Eq ' T __ubsan_handle_' <<<"$symbols"; then
  echo "FAILED: UndefinedBehaviorSanitizer is not linked into $out/test_asan"; exit 1
fi
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:strict_string_checks=1 \
UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
  run asan-ubsan "$out/test_asan"

# (c) valgrind on the uninstrumented static build. --fair-sched=yes: valgrind runs one thread
# at a time behind an unfair lock by default, and the two-thread decoder test (a thread
# retrying while the other holds the use gate) then starved for minutes; with the fair lock
# the whole valgrind run takes well under a minute here.
run valgrind valgrind -q --fair-sched=yes --error-exitcode=1 --leak-check=full --suppressions=tests/c/valgrind.supp "$out/test_static"

# Every function the header declares is called somewhere in tests/c/*.c.
declared=$(grep -E '^[a-z].*\(' include/a2a_core.h | grep -v '^typedef' \
  | sed -E 's/^([^(]*[^A-Za-z0-9_(])?([A-Za-z0-9_]+)\(.*/\2/' | sort -u)
missing=()
for f in $declared; do
  grep -qE "\b$f\(" tests/c/*.c || missing+=("$f")
done
if [ ${#missing[@]} -ne 0 ]; then
  echo "FAILED: functions declared in include/a2a_core.h but never called in tests/c/*.c:"
  printf '  %s\n' "${missing[@]}"
  exit 1
fi
echo "--- coverage: all $(echo "$declared" | wc -w) header functions are called by tests/c"

# The header's tiers: with A2A_FEATURES_EXPLICIT it compiles for every build's feature set
# (the core alone, + client, + server, + client and driver, all).
for tiers in "" "-DA2A_FEATURE_CLIENT" "-DA2A_FEATURE_SERVER" "-DA2A_FEATURE_CLIENT -DA2A_FEATURE_DRIVER" \
  "-DA2A_FEATURE_TRUST" "-DA2A_FEATURE_CLIENT -DA2A_FEATURE_SERVER -DA2A_FEATURE_DRIVER" \
  "-DA2A_FEATURE_CLIENT -DA2A_FEATURE_SERVER -DA2A_FEATURE_DRIVER -DA2A_FEATURE_TRUST"; do
  # shellcheck disable=SC2086 # the flags split on purpose
  printf '#include "a2a_core.h"\nint main(void) { return a2a_version().len == 0; }\n' \
    | cc -std=c99 -Wall -Wextra -Werror -pedantic -Iinclude -DA2A_FEATURES_EXPLICIT $tiers -x c - -fsyntax-only \
    || { echo "FAILED: the header does not compile with -DA2A_FEATURES_EXPLICIT $tiers"; exit 1; }
done
echo "--- header tiers: compiles for the core alone and each feature set"

# The example program, built exactly as ffi/README.md documents.
if [ -d examples/c ]; then
  for src in examples/c/*.c; do
    # curl_client needs libcurl and live servers: scripts/ci/62-curl-client.sh runs it.
    [ "$(basename "$src")" = curl_client.c ] && continue
    exe="$out/$(basename "$src" .c)"
    cc -std=c99 -Wall -Wextra -Werror -pedantic -Iinclude "$src" \
      -L"$lib_dir" -Wl,-rpath,"$lib_dir" -la2a_core -o "$exe"
    echo "--- example $(basename "$exe")"
    valgrind -q --error-exitcode=1 --leak-check=full "$exe" >"$out/example.log"
    cat "$out/example.log"
  done
fi
echo "C ABI: all checks passed"
