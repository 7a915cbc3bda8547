//! `a2a`: the command line of a2a-core.
//!
//! Exit status (stable): 0 task completed or direct message reply; 1 `a2a sse` saw a limit
//! error, or `a2a error-id` found no id; 2 usage error; 3 transport, http, malformed,
//! card-resolution or truncated-stream outcome; 4 protocol error; 5 task failed;
//! 6 task canceled, rejected, input-required or auth-required; 7 task still submitted or working.

// `positional` and `peek_positional` serve only the network commands of the `driver` feature.
#[cfg_attr(not(feature = "driver"), allow(dead_code))]
mod args;
#[cfg(feature = "driver")]
mod cmd_answer;
mod cmd_classify;
#[cfg(feature = "driver")]
mod cmd_net;
mod cmd_sse;
#[cfg(feature = "driver")]
mod demo;
// Shared with `a2a-testkit fault-server` (testkit/ includes this file), which uses the parts
// the demo does not.
#[cfg(feature = "driver")]
#[allow(dead_code)]
mod loopback_http;

use args::{Args, EXIT_USAGE};

const USAGE: &str = "usage: a2a <command> [options]

commands:
  sse        decode an event stream from standard input, one JSON object per event
  classify   classify a response body from standard input
  error-id   find an ADK error_id in standard input
  demo       run an embedded agent and show the driver's behaviour (no network)
  demo --serve [--port N]   keep the embedded agent running on 127.0.0.1 (default port 0:
             a free one); prints READY <url>, the words it answers on stderr; exits 0 on
             SIGTERM
  card URL              fetch, validate and show an agent card
  send URL [TEXT]       send a message and wait for the answer
  stream URL [TEXT]     send a message and stream the answer
  get URL TASK_ID       read a task
  cancel URL TASK_ID    cancel a task
  resubscribe URL TASK_ID   stream a task's events again

network options (card, send, stream, get, cancel, resubscribe):
  --protocol 0.3|1.0  --binding jsonrpc|http+json  --connect-timeout S  --timeout S
  --prefer card|client (whose order picks the interface: the card's, i.e. its
    preferredTransport, by default; --protocol and --binding win over both)
  --idle-timeout S  --max-time S (whole command; streams have no total limit without it)
  --header 'Name: value' (repeatable)  --bearer-env VAR
  --context-id ID  --task-id ID  --json  --allow-http  --allow-host HOST (repeatable)
  --retries N  --idempotency-key K  --resubscribes N  --model-text  --breaker
  --max-event BYTES (stream event size limit, default 16 MiB)
  --retries N resends a send: without --idempotency-key only when the request provably did
    not reach the agent (connect failure, 429, 503 with Retry-After); after 502, 504, other
    5xx, a timeout or a dropped connection (outcome unknown) only with a key
  --cacert FILE (PEM CAs replacing the system trust store)  --cert FILE --key FILE
  --proxy URL (\"\" for none)  --noproxy LIST  --resolve HOST:PORT:ADDR[,ADDR] (repeatable)
  --no-card (URL is the interface itself; needs --protocol)
  --no-version-header (testing/compat aid: 1.0 requests without A2A-Version)

message and answer options (send, stream; --history also get):
  --data JSON (repeatable: a data part)  --file PATH[;type=TYPE] (repeatable: file bytes,
  media type from the extension unless given)  --file-url URL[;type=TYPE] (repeatable: a
  file by reference, never fetched)  --metadata JSON (message metadata object)
  parts go out in command-line order, TEXT first; at least one part is needed
  --history N (history messages in the answer's task)
  --output-dir DIR (write the answer's inline files there; never outside it)  --force
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
