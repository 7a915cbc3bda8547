//! `a2a`: the command line of a2a-core.
//!
//! Exit status (stable): 0 task completed or direct message reply; 1 `a2a sse` saw a limit
//! error, or `a2a error-id` found no id; 2 usage error; 3 transport, http, malformed,
//! card-resolution or truncated-stream outcome; 4 protocol error; 5 task failed;
//! 6 task canceled, rejected, input-required or auth-required; 7 task still submitted or working.

mod args;
mod cmd_classify;
mod cmd_matrix;
#[cfg(feature = "driver")]
mod cmd_net;
mod cmd_sse;
#[cfg(feature = "driver")]
mod demo;
mod fault_server;

use args::{Args, EXIT_USAGE};

const USAGE: &str = "usage: a2a <command> [options]

commands:
  sse        decode an event stream from standard input, one JSON object per event
  classify   classify a response body from standard input
  error-id   find an ADK error_id in standard input
  demo       run an embedded agent and show the driver's behaviour (no network)
  card URL              fetch, validate and show an agent card
  send URL TEXT         send a text message and wait for the answer
  stream URL TEXT       send a text message and stream the answer
  get URL TASK_ID       read a task
  cancel URL TASK_ID    cancel a task
  resubscribe URL TASK_ID   stream a task's events again

network options (card, send, stream, get, cancel, resubscribe):
  --protocol 0.3|1.0  --binding jsonrpc|http+json  --connect-timeout S  --timeout S
  --idle-timeout S  --max-time S (whole command; streams have no total limit without it)
  --header 'Name: value' (repeatable)  --bearer-env VAR
  --context-id ID  --task-id ID  --json  --allow-http  --allow-host HOST (repeatable)
  --retries N  --idempotency-key K  --resubscribes N  --model-text  --breaker
  --max-event BYTES (stream event size limit, default 16 MiB)
  --cacert FILE (PEM CAs replacing the system trust store)  --cert FILE --key FILE
  --proxy URL (\"\" for none)  --noproxy LIST  --resolve HOST:PORT:ADDR[,ADDR] (repeatable)
  --no-card (URL is the interface itself; needs --protocol)
  --no-version-header (testing/compat aid: 1.0 requests without A2A-Version)
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
        "demo" => demo(args),
        "card" | "send" | "stream" | "get" | "cancel" | "resubscribe" => net(&command, args),
        // Hidden: the fault-injecting loopback test server (see fault_server/mod.rs).
        "fault-server" => fault_server::run(args),
        // Hidden: the request matrix for the interop tests (not in the usage text).
        "build-matrix" => cmd_matrix::run(args),
        "model-read" => cmd_matrix::run_model_read(args),
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

#[cfg(feature = "driver")]
fn net(command: &str, args: Args) -> i32 {
    cmd_net::run(command, args)
}

#[cfg(feature = "driver")]
fn demo(args: Args) -> i32 {
    demo::run(args)
}

#[cfg(not(feature = "driver"))]
fn demo(_args: Args) -> i32 {
    eprintln!(
        "a2a demo: this a2a was built without the `driver` feature (cargo build --features driver)"
    );
    EXIT_USAGE
}

#[cfg(not(feature = "driver"))]
fn net(command: &str, _args: Args) -> i32 {
    eprintln!(
        "a2a {command}: this a2a was built without the `driver` feature (cargo build --features driver)"
    );
    EXIT_USAGE
}
