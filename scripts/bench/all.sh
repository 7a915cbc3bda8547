#!/usr/bin/env bash
# Every figure the READMEs publish, measured in ONE run, one benchmark after the other, with
# the conditions (machine, load average before and after each step, commit) written beside
# the results. Nothing else should run on the machine meanwhile.
#
#   scripts/bench/all.sh [OUT_DIR]        # default target/bench-run/<UTC time>; ~28 min
#
# Steps (each writes OUT_DIR/<step>.txt):
#   sse-rounds-{lto,bench}   rotated rounds of the SSE decoder, 7 rounds (benches/README.md)
#   criterion-{bench,bench-lto}/  every criterion bench under both profiles (the release build
#                            a user makes with thin LTO and one codegen unit, and cargo's
#                            default bench profile); tables: sse-table.py, criterion-table.py
#   clients                  scripts/bench/clients.py, 3 rotated rounds, placement left to the
#                            scheduler
#   clients-same-cpu         the same with the server and every client on one CPU (--pin same):
#                            the work-bound figure (clients.py's docstring, benches/README.md)
#   python-sse, python-outcome  bindings/python/bench (the installed wheel's compiled path and
#                            the ctypes path side by side)
#   go-bench                 bindings/go benchmarks (the default build links the release library), 8 runs
#   java-sse                 bindings/java SseBench (JIT warmed), release library
# Needs scripts/ci/05-setup.sh's .venv (with the wheel installed by 40-python.sh or
# `pip install ./bindings/python`) and the Java bindings installed into ~/.m2 (55-java.sh).
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
out=${1:-target/bench-run/$(date -u +%Y%m%dT%H%MZ)}
mkdir -p "$out"
out=$(cd "$out" && pwd)
target_dir="${CARGO_TARGET_DIR:-target}"
case "$target_dir" in /*) ;; *) target_dir="$root/$target_dir" ;; esac

{
  echo "commit $(git rev-parse --short HEAD)$(git diff --quiet || echo ' (dirty)')"
  echo "cpu $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) CPUs; $(rustc --version); $(go version | cut -d' ' -f3); $(java -version 2>&1 | head -1)"
} | tee "$out/conditions.txt"

step() {
  local name=$1
  shift
  echo "$(date -u +%T) $name: start, load $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$out/conditions.txt"
  "$@" >"$out/$name.txt" 2>"$out/$name.err" || { echo "$name failed (see $out/$name.err)" >&2; tail -20 "$out/$name.err" >&2; exit 1; }
  echo "$(date -u +%T) $name: end, load $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$out/conditions.txt"
}

# Builds first, so that no compiler runs during a measurement.
cargo build -q --release -p a2a-core-ffi -p a2a-bench-clients
for p in bench bench-lto; do
  cargo bench -q --no-run --profile "$p" -p a2a-benches >/dev/null 2>&1
done
(cd bindings/java && mvn -B -q test-compile >/dev/null)
(cd bindings/java && mvn -B -q -pl a2a-core dependency:build-classpath -Dmdep.outputFile="$out/java-cp.txt" >/dev/null)

step sse-rounds-lto cargo bench -q --profile bench-lto -p a2a-benches --bench sse_rounds -- --rounds 7 --budget-ms 40
step sse-rounds-bench cargo bench -q -p a2a-benches --bench sse_rounds -- --rounds 7 --budget-ms 40
for p in bench bench-lto; do
  for b in sse utf8 classify model once http1 resilience driver; do
    CRITERION_HOME="$out/criterion-$p" step "criterion-$p-$b" \
      cargo bench -q --profile "$p" -p a2a-benches --bench "$b" -- --warm-up-time 0.5 --measurement-time 1
  done
done
step clients scripts/bench/clients.py --rounds 3 --json "$out/clients.json"
step clients-same-cpu scripts/bench/clients.py --rounds 3 --pin same --json "$out/clients-same-cpu.json"
step python-sse .venv/bin/python bindings/python/bench/bench_sse.py
step python-sse-1k .venv/bin/python bindings/python/bench/bench_sse.py --chunk 1024
step python-outcome .venv/bin/python bindings/python/bench/bench_outcome.py
step go-bench \
  bash -c "cd bindings/go && go test -run '^\$' -bench . -benchmem -count 8 -benchtime 0.5s"
A2A_CORE_LIB="$target_dir/release/liba2a_core.so" step java-sse \
  bash -c "cd bindings/java && java -cp a2a-core/target/test-classes:a2a-core/target/classes:\$(cat '$out/java-cp.txt') dev.a2acore.SseBench"

scripts/bench/sse-table.py "$out/criterion-bench" >"$out/table-sse-criterion-bench.md"
scripts/bench/sse-table.py "$out/criterion-bench-lto" >"$out/table-sse-criterion-lto.md"
scripts/bench/criterion-table.py "$out/criterion-bench" "$out/criterion-bench-lto" >"$out/table-criterion.md"
echo "all.sh: results in $out"
