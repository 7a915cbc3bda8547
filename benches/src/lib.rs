//! Benchmarks for a2a-core live in `benches/`; this library is empty.
