#!/usr/bin/env bash
# Rust: formatting, lints with warnings as errors, every test of the workspace.
set -euo pipefail
cargo fmt --all -- --check
cargo clippy --workspace --all-targets --all-features -- -D warnings
cargo test --workspace --all-features
