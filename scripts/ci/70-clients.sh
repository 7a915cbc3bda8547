#!/usr/bin/env bash
# Client-overhead harness, smoke mode (scripts/bench/clients.py --smoke): every client of
# the benchmark (raw floor, Rust driver, Go/Python/Java bindings on the driver, the
# bindings' host-stack clients on the client machine: Python AsyncClient in 0.3 and 1.0, Go
# HTTPClient on net/http, Java's async calls on java.net.http; Go SDK a2a-go v0.3.3 and v2.3.1,
# Python a2a-sdk 1.3.0 and JS @a2a-js/sdk 1.3.0 each in 1.0 and 0.3, a2a-java 0.3.2.Final over its
# JdkA2AHttpClient and over the drop-in) makes a few calls against the loopback bench server
# (benches/clients/rust/src/bin/server.rs) with every answer asserted; no figures are kept.
# Installs nothing: it needs what earlier steps installed: 05-setup.sh (.venv, the JS
# peer's node_modules), 50-go.sh (Go >= 1.24), 55-java.sh (JDK, Maven, the bindings' jars
# and a2a-java 0.3.2.Final in ~/.m2; the Java clients build with `mvn -o`, offline),
# 65-go-sdk.sh and 66-go-sdk-v2.sh (a2a-go v0.3.3 and v2.3.1 in Go's module cache). Reuses the Cargo target
# directory (a `--release` build of a2a-bench-clients and a2a-core-ffi).
set -euo pipefail
cd "$(dirname "$0")/../.."
started=$(date +%s)
if [ ! -x .venv/bin/python ] || [ ! -d tests/peers/js/node_modules/@a2a-js/sdk ]; then
  echo "70-clients: .venv or the JS peer's node_modules is missing: run scripts/ci/05-setup.sh" >&2
  exit 1
fi
for a in a2a-core a2a-java-http; do
  [ -f "$HOME/.m2/repository/dev/a2acore/$a/0.1.0/$a-0.1.0.jar" ] \
    || { echo "70-clients: $a-0.1.0.jar is not installed: run scripts/ci/55-java.sh" >&2; exit 1; }
done
export GOFLAGS=-mod=mod GOPROXY=off   # the a2a-go modules must come from the cache (65, 66)
python3 scripts/bench/clients.py --smoke
echo "70-clients: done in $(( $(date +%s) - started ))s"
