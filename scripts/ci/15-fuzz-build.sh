#!/usr/bin/env bash
# Fuzz targets (core/fuzz, its own workspace) must keep compiling. Plain `cargo build` on the
# stable toolchain: libfuzzer-sys builds libFuzzer with the system C++ compiler, and no
# cargo-fuzz install or nightly flag is needed to compile. Running them: core/fuzz/README.md.
set -euo pipefail
started=$(date +%s)
cargo build --manifest-path core/fuzz/Cargo.toml --locked --bins
echo "fuzz targets built in $(( $(date +%s) - started ))s"
