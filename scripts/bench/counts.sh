#!/usr/bin/env bash
# Instruction and allocation counts per send and per stream event of the project's clients
# (load-immune: valgrind counts work, not time, so it can run beside other jobs). Each figure
# is a slope: the whole client process is counted at two sizes of the same run and the
# difference is divided by the difference in sends or events, so start-up, imports and the
# warm-up cancel out.
#
#   scripts/bench/counts.sh [OUT_FILE]      # ~10 minutes; prints and writes name: count lines
#
# Rows: the Python binding's blocking Client and AsyncClient (benches/clients/python, the
# .venv's installed wheel, against the 0.3 and the 1.0 wire), per send and per event; the
# Rust reference driver (bench-driver) per send, its allocations per send (memcheck's malloc
# count) and per event. Needs valgrind, the release bench clients (built here) and
# scripts/ci/05-setup.sh's .venv with the wheel (40-python.sh or `pip install ./bindings/python`).
# PY=<python> picks another interpreter with a2a_core importable.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
out=${1:-/dev/null}
: >"$out"
target_dir="${CARGO_TARGET_DIR:-target}"
case "$target_dir" in /*) ;; *) target_dir="$root/$target_dir" ;; esac
bin="$target_dir/release"
py=${PY:-$root/.venv/bin/python}
command -v valgrind >/dev/null || { echo "counts.sh: valgrind is needed" >&2; exit 1; }
cargo build -q --release -p a2a-bench-clients --bin bench-driver --bin a2a-bench-server

server_out=$(mktemp)
# The server lives as long as its stdin: closed when this script ends.
exec 3> >("$bin/a2a-bench-server" >"$server_out" 2>/dev/null)
for _ in $(seq 1 100); do grep -q . "$server_out" && break; sleep 0.1; done
url=$(awk '{print $2; exit}' "$server_out")
[ -n "$url" ] || { echo "counts.sh: the bench server did not start" >&2; exit 1; }

# total TOOL COMMAND...: the count valgrind's TOOL reports for one whole run of COMMAND; a run
# that did not end cleanly is an error (its count would miss the part after the failure).
total() {
  local tool=$1 log status=0
  shift
  if [ "$tool" = callgrind ]; then
    log=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 >/dev/null) || status=$?
  else
    log=$(valgrind --tool=memcheck "$@" 2>&1 >/dev/null) || status=$?
  fi
  if [ "$status" != 0 ]; then
    # Seen here before the bench clients read their CPU clock through libc: some builds of
    # bench-driver died under valgrind in rustix's own vDSO set-up (a SIGSEGV in
    # `check_elf_base`, as the measured section started its clock).
    echo "counts.sh: $* ended with status $status under valgrind (no count taken)" >&2
    grep -m1 -A2 'Process terminating' <<<"$log" >&2 || true
    return 1
  fi
  if [ "$tool" = callgrind ]; then
    sed -n 's/.*Collected : \([0-9]*\).*/\1/p' <<<"$log"
  else
    sed -n 's/.*total heap usage: \([0-9,]*\) allocs.*/\1/p' <<<"$log" | tr -d ,
  fi
}

# run_slope NAME TOOL VAR N1 N2 DIVISOR ENV... -- COMMAND...
run_slope() {
  local name=$1 tool=$2 var=$3 n1=$4 n2=$5 div=$6
  shift 6
  local envs=()
  while [ "$1" != -- ]; do envs+=("$1"); shift; done
  shift
  local a b
  a=$(export BENCH_URL="$url" "${envs[@]}" "$var=$n1" && total "$tool" "$@")
  b=$(export BENCH_URL="$url" "${envs[@]}" "$var=$n2" && total "$tool" "$@")
  echo "$name: $(((b - a) / div))" | tee -a "$out"
}

sends=(BENCH_WARMUP=50 BENCH_EVENTS=10 BENCH_WARMUP_EVENTS=10 BENCH_IDLE=0)
events=(BENCH_SENDS=1 BENCH_WARMUP=1 BENCH_WARMUP_EVENTS=500 BENCH_IDLE=0)
cd "$root/benches/clients/python"
for client in binding.py async_binding.py; do
  for wire in 0.3 1.0; do
    args=("$client")
    [ "$wire" = 1.0 ] && args+=(1.0)
    run_slope "python $client $wire per send" callgrind BENCH_SENDS 500 2500 2000 "${sends[@]}" -- "$py" "${args[@]}"
    run_slope "python $client $wire per event" callgrind BENCH_EVENTS 2000 12000 10000 "${events[@]}" -- "$py" "${args[@]}"
  done
done
cd "$root"
drv_sends=(BENCH_SENDS=1 BENCH_EVENTS=20 BENCH_WARMUP_EVENTS=4 BENCH_IDLE=0)
run_slope "driver per send" callgrind BENCH_WARMUP 100 300 200 "${drv_sends[@]}" -- "$bin/bench-driver"
run_slope "driver allocations per send" memcheck BENCH_WARMUP 100 300 200 "${drv_sends[@]}" -- "$bin/bench-driver"
run_slope "driver per event" callgrind BENCH_WARMUP_EVENTS 2000 12000 10000 \
  BENCH_SENDS=0 BENCH_EVENTS=4 BENCH_IDLE=0 BENCH_WARMUP=5 -- "$bin/bench-driver"
rm -f "$server_out"
