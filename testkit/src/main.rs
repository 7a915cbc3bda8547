//! `a2a-testkit`: the test tooling of a2a-core, kept out of the shipped `a2a` binary.
//!
//! Commands (exit status 2 on a usage error, as `a2a`):
//! - `fault-server [--port N] [--exit-on-eof] [--max-connections N] [--head-timeout-ms MS]`:
//!   a loopback A2A server that misbehaves on demand (contract in `fault_server/mod.rs`); the
//!   core's driver tests, the C tests and the Java tests run against it.
//! - `conformance (--client-cmd CMD | --client a2a) [...]`: runs an A2A client through the
//!   fault server's scenarios and reports what it did against what a correct client does
//!   (contract in `conformance/mod.rs`; `docs/client-conformance.md` publishes the results).
//! - `build-matrix`: every request of both protocol versions over both bindings, one JSON
//!   object per line, for `tests/interop/test_wire_matrix.py`.
//! - `model-read --form F --type T`: reads one document from standard input with the core's
//!   model and writes what it understood (same interop test).
#![forbid(unsafe_code)]

// The argument reader of the `a2a` binary, shared rather than copied (the core takes no CLI
// dependency, and neither does its test tooling). Not every method is used here.
#[allow(dead_code, unused_macros, unused_imports, unexpected_cfgs)]
#[path = "../../core/src/bin/a2a/args.rs"]
mod args;
mod cmd_matrix;
mod conformance;
mod fault_server;

use args::{Args, EXIT_USAGE};

const USAGE: &str = "usage: a2a-testkit <command> [options]

commands (test tooling of a2a-core; not installed for users):
  fault-server [--port N] [--exit-on-eof] [--max-connections N] [--head-timeout-ms MS]
                                            loopback A2A server with fault scenarios
  conformance (--client-cmd CMD | --client a2a) [--name NAME] [--a2a-bin PATH] [--deadline S]
              [--jobs N] [--only ID,...] [--json FILE] [--markdown FILE] [--strict]
                                            run an A2A client through the fault scenarios
  build-matrix                              every request of both versions and bindings, as JSON lines
  model-read --form jsonrpc-0.3|rest-0.3|1.0 --type send|event|task   read one document from standard input
";

fn main() {
    let mut argv = std::env::args().skip(1);
    let Some(command) = argv.next() else {
        eprint!("{USAGE}");
        std::process::exit(EXIT_USAGE);
    };
    let args = Args::new(argv);
    let code = match command.as_str() {
        "fault-server" => fault_server::run(args),
        "conformance" => conformance::run(args),
        "build-matrix" => cmd_matrix::run(args),
        "model-read" => cmd_matrix::run_model_read(args),
        "-h" | "--help" | "help" => {
            print!("{USAGE}");
            0
        }
        other => {
            eprintln!("a2a-testkit: unknown command {other:?}\n\n{USAGE}");
            EXIT_USAGE
        }
    };
    std::process::exit(code);
}
