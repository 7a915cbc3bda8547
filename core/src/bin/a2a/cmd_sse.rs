//! `a2a sse`: placeholder until the SSE layer lands.
use crate::args::{Args, EXIT_USAGE};

/// Runs `a2a sse`.
pub fn run(_args: Args) -> i32 {
    eprintln!("a2a sse: not built yet");
    EXIT_USAGE
}
