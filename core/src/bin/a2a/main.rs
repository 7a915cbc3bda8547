//! `a2a`: the command line of a2a-core.
//!
//! Exit status (stable): 0 task completed or direct message reply; 1 `a2a sse` saw a limit
//! error, or `a2a error-id` found no id; 2 usage error; 3 transport, http, malformed,
//! card-resolution or truncated-stream outcome; 4 protocol error; 5 task failed;
//! 6 task canceled, rejected, input-required or auth-required; 7 task still submitted or working.

mod args;
mod cmd_classify;
mod cmd_matrix;
mod cmd_sse;

use args::{Args, EXIT_USAGE};

const USAGE: &str = "usage: a2a <command> [options]

commands:
  sse        decode an event stream from standard input, one JSON object per event
  classify   classify a response body from standard input
  error-id   find an ADK error_id in standard input
";

fn main() {
    let mut argv = std::env::args().skip(1);
    let Some(command) = argv.next() else {
        eprint!("{USAGE}");
        std::process::exit(EXIT_USAGE);
    };
    let args = Args::new(argv);
    let code = match command.as_str() {
        "sse" => cmd_sse::run(args),
        "classify" => cmd_classify::run_classify(args),
        "error-id" => cmd_classify::run_error_id(args),
        // Hidden: the request matrix for the interop tests (not in the usage text).
        "build-matrix" => cmd_matrix::run(args),
        "-h" | "--help" | "help" => {
            print!("{USAGE}");
            0
        }
        other => {
            eprintln!("a2a: unknown command {other:?}\n\n{USAGE}");
            EXIT_USAGE
        }
    };
    std::process::exit(code);
}
