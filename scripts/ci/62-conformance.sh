#!/usr/bin/env bash
# Server conformance against the reference agent (`a2a demo --serve`):
#   1. tests/server-conformance: the project's own suite, written from the spec (docs/serving.md §7),
#      on every interface the card declares (1.0 and 0.3, JSON-RPC and HTTP+JSON), with the
#      bearer token enforced;
#   2. a2a-lint (PyPI): the card and a live send and stream, asserted conformant with no
#      errors and no warnings (--strict); run on an agent without credentials, because
#      a2a-lint reads only 0.3 security schemes and the card serves the 1.0 form by default;
#   3. a2a-proof (PyPI): the contract scenarios of tests/server-conformance/a2a-proof.yaml, with the
#      token, every scenario asserted passed.
# The official TCK (a2aproject/a2a-tck) is not on a registry, so CI cannot run it; its
# results, taken by hand, are in docs/serving.md.
# Needs scripts/ci/05-setup.sh (.venv with tests/requirements.txt).
set -euo pipefail
cd "$(dirname "$0")/../.."
if [ ! -x .venv/bin/python ] || [ ! -x .venv/bin/a2a-lint ] || [ ! -x .venv/bin/a2a-proof ]; then
  echo "62-conformance: .venv (with a2a-lint and a2a-proof) is missing: run scripts/ci/05-setup.sh" >&2
  exit 1
fi
started=$(date +%s)
root=$PWD
cargo build -p a2a-core --features driver --bin a2a
export A2A_BIN="${CARGO_TARGET_DIR:-$PWD/target}/debug/a2a"

.venv/bin/python -m pytest tests/server-conformance -q

work=$(mktemp -d)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

# Starts `a2a demo --serve` with the given extra arguments under the name $1 (in this shell,
# not a subshell, so that cleanup knows its pid); its URL is then in "$work/$1.url".
start_agent() {
  local out="$work/$1"
  shift
  "$A2A_BIN" demo --serve "$@" >"$out.stdout" 2>"$out.stderr" &
  pids+=("$!")
  for _ in $(seq 1 100); do
    if grep -q '^READY ' "$out.stdout" 2>/dev/null; then
      sed -n 's/^READY //p' "$out.stdout" >"$out.url"
      return 0
    fi
    sleep 0.1
  done
  echo "62-conformance: the agent did not print READY within 10 s" >&2
  cat "$out.stderr" >&2
  return 1
}

start_agent open
open_url=$(cat "$work/open.url")
.venv/bin/a2a-lint "$open_url" --live --strict --json >"$work/lint.json" || {
  cat "$work/lint.json" >&2
  echo "62-conformance: a2a-lint found errors or warnings" >&2
  exit 1
}
.venv/bin/python - "$work/lint.json" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
assert report['ok'] is True, report
assert report['summary']['errors'] == 0 and report['summary']['warnings'] == 0, report['summary']
assert report.get('streamEvents', 0) >= 2, 'the live stream check ran'
print(f"62-conformance: a2a-lint grade {report['summary']['grade']}, live round trip and stream checked")
PY

token=$(.venv/bin/python -c 'import secrets; print(secrets.token_urlsafe(16))')
start_agent proof --bearer-token "$token"
proof_url=$(cat "$work/proof.url")
(cd "$work" && A2A_PROOF_URL="$proof_url" A2A_PROOF_TOKEN="$token" \
  "$root/.venv/bin/a2a-proof" run "$root/tests/server-conformance/a2a-proof.yaml" --format json -o "$work/proof.json") || {
  cat "$work/proof.json" >&2 || true
  echo "62-conformance: a2a-proof scenarios failed" >&2
  exit 1
}
.venv/bin/python - "$work/proof.json" tests/server-conformance/a2a-proof.yaml <<'PY'
import json, sys
import yaml
report = json.load(open(sys.argv[1]))
declared = yaml.safe_load(open(sys.argv[2]))['scenarios']
assert report['passed'] is True, report
ran = [s['name'] for s in report['scenarios'] if s['passed']]
assert ran == [s['name'] for s in declared], (ran, declared)
print(f'62-conformance: a2a-proof passed all {len(ran)} scenarios')
PY
echo "62-conformance: done in $(( $(date +%s) - started ))s"
