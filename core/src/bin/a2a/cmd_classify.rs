//! `a2a classify` and `a2a error-id`: placeholders until the classifier lands.
use crate::args::{Args, EXIT_USAGE};

/// Runs `a2a classify`.
pub fn run_classify(_args: Args) -> i32 {
    eprintln!("a2a classify: not built yet");
    EXIT_USAGE
}

/// Runs `a2a error-id`.
pub fn run_error_id(_args: Args) -> i32 {
    eprintln!("a2a error-id: not built yet");
    EXIT_USAGE
}
