#!/usr/bin/env bash
# Rust: formatting, lints with warnings as errors, every test of the workspace; and the
# bindings' generated mirrors of the C ABI (Python's _abi.py, Java's AbiEnums.java and
# AbiFunctions.java) against the committed header: scripts/gen-bindings.py --check
# regenerates them and fails with a diff when a committed file differs (ffi/tests/header.rs,
# run by `cargo test` below, checks the header itself against ffi/src; scripts/gen-header.sh
# regenerates both).
set -euo pipefail
cargo fmt --all -- --check
python3 scripts/gen-bindings.py --check
cargo clippy --workspace --all-targets --all-features -- -D warnings
# The core without its default `driver` feature (what `default-features = false` users get):
# the sans-IO library and an `a2a` without the network commands must build warning-free.
cargo clippy -p a2a-core --no-default-features --lib --bins -- -D warnings
cargo clippy -p a2a-core-ffi --no-default-features --lib -- -D warnings
# No product function over 80 lines (clippy.toml sets the threshold) unless it says why in
# an `#[allow(clippy::too_many_lines, reason = "...")]` (issue 29). Tests and the testkit
# are not product code and are not checked.
cargo clippy -p a2a-core -p a2a-core-ffi --all-features --lib --bins -- -D clippy::too_many_lines
# The API documentation, private items included, builds without a warning: a broken or
# ambiguous intra-doc link fails it (what users read on docs.rs, maintainers with
# --document-private-items). The two crates share the library name a2a_core, so one at a time.
RUSTDOCFLAGS="-D warnings" cargo doc -q -p a2a-core --all-features --no-deps --document-private-items
RUSTDOCFLAGS="-D warnings" cargo doc -q -p a2a-core-ffi --all-features --no-deps --document-private-items
# The C library first: ffi/tests/header.rs inspects the built liba2a_core.so (exported
# symbols), which `cargo test` alone does not produce.
cargo build -p a2a-core-ffi --all-features
cargo test --workspace --all-features
