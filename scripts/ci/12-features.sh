#!/usr/bin/env bash
# Cargo features of a2a-core (core/Cargo.toml): the parser and classifier are always built;
# `model`, `http1`, `card`, `server`, `resilience` (the default), `trust`, `driver` and `client`
# are optional. Checks the library and the `a2a` binary for every combination of the five default
# features (32, `cargo check`, warnings are errors), each of them with `driver` on top, then
# `client` alone (it pulls in only what it needs), and builds the two ends (nothing optional;
# everything) so an embedder's smallest and largest builds link; last, the two library crates
# on the minimum supported Rust version.
set -euo pipefail
cd "$(dirname "$0")/../.."
started=$(date +%s)
features=(model http1 card server resilience)
check() {
  local label=$1; shift
  local log
  if ! log=$(cargo check -q -p a2a-core --lib --bins --message-format short "$@" 2>&1); then
    echo "$log"; echo "12-features: FAILED: $label"; exit 1
  fi
  if grep -E '^(warning|error)' <<<"$log"; then
    echo "12-features: FAILED (warnings): $label"; exit 1
  fi
}
n=0
for ((mask = 0; mask < 1 << ${#features[@]}; mask++)); do
  set_=()
  for i in "${!features[@]}"; do
    (( mask & (1 << i) )) && set_+=("${features[$i]}")
  done
  list=$(IFS=,; echo "${set_[*]}")
  check "[$list]" --no-default-features --features "$list"
  check "[$list,driver]" --no-default-features --features "${list:+$list,}driver"
  n=$((n + 2))
done
check "[client]" --no-default-features --features client
# `trust` (signed cards; on by default) alone, and under the driver's CLI commands.
check "[trust]" --no-default-features --features trust
check "[trust,driver]" --no-default-features --features trust,driver
n=$((n + 3))
echo "12-features: $n combinations check without warnings"
# The C library's tiers (ffi/Cargo.toml): the core alone and each feature on its own.
for tiers in "" client server driver trust; do
  if ! log=$(cargo check -q -p a2a-core-ffi --lib --message-format short --no-default-features ${tiers:+--features $tiers} 2>&1) \
    || grep -E '^(warning|error)' <<<"$log"; then
    echo "$log"; echo "12-features: FAILED: a2a-core-ffi [$tiers]"; exit 1
  fi
done
echo "12-features: a2a-core-ffi checks without warnings for [], [client], [server], [driver], [trust]"
# The minimum supported Rust version (`rust-version` in Cargo.toml): the two crates users
# build, a2a-core and a2a-core-ffi, every target (tests and examples too) and feature,
# checked with that toolchain, fetched by rustup (minimal profile, about 30 s) into its own
# target directory. The bench harness and the testkit are the project's tools, not held to
# it (a bench baseline, a2a-protocol-client 0.15, needs Rust 1.94). rustup's server is not one of the registries
# this CI is promised; where it cannot be reached the step says so loudly and the version is
# held only by clippy's `incompatible_msrv` lint (10-rust: no std API newer than it).
msrv=$(sed -n 's/^rust-version = "\(.*\)"/\1/p' Cargo.toml)
[ -n "$msrv" ] || { echo "12-features: no rust-version in Cargo.toml" >&2; exit 1; }
if rustup run "$msrv" rustc --version >/dev/null 2>&1 \
  || timeout 300 rustup toolchain install "$msrv" --profile minimal >/dev/null 2>&1; then
  if ! log=$(CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}/msrv" \
      cargo +"$msrv" check -q -p a2a-core -p a2a-core-ffi --all-targets --all-features \
        --message-format short 2>&1); then
    echo "$log"; echo "12-features: FAILED: a2a-core or a2a-core-ffi does not build with Rust $msrv (rust-version)"; exit 1
  fi
  echo "12-features: a2a-core and a2a-core-ffi (all targets, all features) check with Rust $msrv, the declared rust-version"
else
  echo "12-features: WARNING: Rust $msrv could not be installed by rustup (no route to its server);"
  echo "12-features: WARNING: rust-version $msrv is held only by clippy's incompatible_msrv lint"
fi
cargo build -q -p a2a-core --no-default-features
cargo build -q -p a2a-core --all-features
echo "12-features: built with no optional feature and with all; done in $(( $(date +%s) - started ))s"
