//! `a2a`: the command line of a2a-core.
//!
//! Exit status (stable): 0 task completed or direct message reply; 1 `a2a sse` saw a limit
//! error, or `a2a error-id` found no id; 2 usage error; 3 transport, http, malformed,
//! card-resolution or truncated-stream outcome; 4 protocol error; 5 task failed;
//! 6 task canceled, rejected, input-required or auth-required; 7 task still submitted or working;
//! 141 standard output closed by its reader (`a2a stream … | head -1`), quietly.

// `positional` and `peek_positional` serve only the network commands of the `driver` feature.
#[cfg_attr(not(feature = "driver"), allow(dead_code))]
mod args;
#[cfg(feature = "driver")]
mod cmd_answer;
mod cmd_classify;
#[cfg(feature = "driver")]
mod cmd_net;
mod cmd_sse;
#[cfg(feature = "trust")]
mod cmd_trust;
#[cfg(feature = "driver")]
mod demo;
#[cfg(feature = "driver")]
mod escape;
#[cfg(all(feature = "trust", feature = "driver"))]
mod oauth2_hook;
// Shared with `a2a-testkit fault-server` (testkit/ includes this file), which uses the parts
// the demo does not.
#[cfg(feature = "driver")]
#[allow(dead_code)]
mod loopback_http;

use args::{Args, EXIT_USAGE, outln};

const USAGE: &str = "usage: a2a <command> [options]
       a2a <command> --help    options of one command
       a2a --version

commands:
  sse        decode an event stream from standard input, one JSON object per event
  classify   classify a response body from standard input
  error-id   find an ADK error_id in standard input
  demo       run an embedded agent and show the driver's behaviour (no network)
  demo --serve [--port N]   keep the embedded agent running on 127.0.0.1 (default port 0:
             a free one); prints READY <url>, the words it answers on stderr; exits 0 on
             SIGTERM
  card URL              fetch, validate and show an agent card; with --verify
             [--jwks FILE | --trust-key PEM | --jku-host HOST] a card whose signature does
             not verify is refused (exit 3); --extended: the extended card
  card canonical < card.json   the bytes a card signature covers (RFC 8785)
  card sign --key PEM --kid ID [--jku URL] < card.json   add a JWS signature to a card
  push verify [--jwks FILE --audience URL] [--token T] [--header 'Name: value']... < body
             check a received push notification; prints the verdict as JSON
  send URL [TEXT]       send a message and wait for the answer
  stream URL [TEXT]     send a message and stream the answer
  get URL TASK_ID       read a task
  cancel URL TASK_ID    cancel a task
  resubscribe URL TASK_ID   stream a task's events again

exit status: 0 completed task or message reply; 1 `sse` limit error or no error id;
  2 usage error (nothing sent); 3 transport, http, malformed, card resolution, truncated
  stream, refused by policy; 4 protocol error; 5 task failed; 6 task canceled, rejected,
  input-required or auth-required; 7 task still submitted or working; 141 standard output
  closed by its reader
";

/// `a2a sse --help`.
const HELP_SSE: &str = "usage: a2a sse [options] < stream

Decodes a text/event-stream from standard input and prints one JSON object per event:
{\"type\":..,\"data\":..,\"id\":..}. A limit error is reported on standard error, decoding
goes on, and the exit status is 1.

options:
  --chunk N            feed the decoder N bytes at a time (default: as read)
  --dispatch-at-eof    dispatch an unterminated last event at end of input
  --max-line BYTES     longest line accepted
  --max-event BYTES    largest event accepted
  -h, --help           this help
";

/// `a2a classify --help`.
const HELP_CLASSIFY: &str = "usage: a2a classify --status CODE [options] < body

Classifies an A2A response body read from standard input and prints the outcome as one JSON
object; the exit status is the outcome's (see `a2a --help`).

options:
  --status CODE             HTTP status of the response (required)
  --content-type TYPE       its Content-Type
  --protocol 0.3|1.0        protocol version of the request (`--version` is an old alias)
  --binding jsonrpc|http+json   binding of the request
  --method NAME             the JSON-RPC method asked
  --request-id ID           the JSON-RPC id asked
  --header 'Name: value'    a response header (Content-Type, Retry-After); repeatable
  --stream                  decode an event stream item by item, one object per item, then
                            the end-of-stream outcome
  -h, --help                this help
";

/// `a2a error-id --help`.
const HELP_ERROR_ID: &str = "usage: a2a error-id < text

Prints the ADK error_id found in the text on standard input (exit 0), or nothing (exit 1).

options:
  -h, --help   this help
";

/// `a2a demo --help`.
const HELP_DEMO: &str =
    "usage: a2a demo [--serve [--port N] [--bearer-token T] [--sign-card PEM [--card-kid ID]]]

Runs an embedded agent on the loopback interface and shows, step by step, what the driver
does with it (retries, streams, failures). Sends nothing off this machine.

options:
  --serve      keep the embedded agent running on 127.0.0.1 instead: prints READY <url>,
               lists the words it answers on standard error, exits 0 on SIGTERM
  --port N     the port for --serve (default 0: a free one)
  --bearer-token T  declare an HTTP bearer scheme on the card, require `Authorization:
               Bearer T` on every call and serve the extended card to it; an OAuth2
               client-credentials scheme is declared beside it, whose token endpoint
               (/oauth2/token) issues T to client `demo` with secret T
  --sign-card PEM   sign the served card with this private key (see `a2a card sign`)
  --card-kid ID     the signature's kid (default demo)
  -h, --help   this help
";

/// The options every network command takes, for their help.
const NET_OPTIONS: &str = "options:
  --protocol 0.3|1.0          protocol version (default: the card's choice)
  --min-protocol 0.3|1.0      never below this version: a card offering only older ones is
                              refused (exit 3), not used in the older version
  --binding jsonrpc|http+json binding (default: the card's choice)
  --no-card                   URL is the interface itself, no card is fetched (needs --protocol)
  --connect-timeout S         connect timeout in seconds
  --timeout S                 timeout of the whole call in seconds
  --idle-timeout S            longest silence on a stream in seconds
  --header 'Name: value'      an extra request header; repeatable
  --bearer-env VAR            send `Authorization: Bearer $VAR` (the token is never printed)
  --oauth2-token-url URL      fetch an OAuth2 client-credentials token there (RFC 6749 §4.4)
                              and send it as Bearer to the validated interface only, refreshed
                              before it expires; with --client-id ID, --client-secret-file FILE
                              (or A2A_CLIENT_SECRET) and optionally --scope S. Without it,
                              --client-id uses the card's clientCredentials flow: its tokenUrl
                              (https; http only to loopback with --allow-http) and, without
                              --scope, the scopes the card's requirements name
  --context-id ID             continue this context
  --task-id ID                continue this task
  --max-time S                a total deadline for the whole command (card, retries,
                              resubscribes, a stream); streams have no total limit without it
  --prefer card|client        whose order picks the interface: the card's (its
                              preferredTransport) by default; --protocol and --binding win
  --idempotency-key K         send this Idempotency-Key (kept across retries)
  --retries N                 resends of a send: without --idempotency-key only when the
                              request provably did not reach the agent (connect failure, 429,
                              503 with Retry-After); after 502, 504, other 5xx, a timeout or a
                              dropped connection (outcome unknown) only with a key
  --resubscribes N            resubscriptions after a stream is cut
  --breaker                   a circuit breaker over the calls
  --ignore-capabilities       send calls the card does not declare (stream, resubscribe,
                              push configs, extended card); by default they are refused
                              unsent (exit 3, CapabilityNotDeclared)
  --max-event BYTES           largest stream event accepted (default 16 MiB)
  --allow-http                allow plain http (local development only)
  --allow-host HOST           a host besides the card's own an interface may name, and whose
                              internal addresses are accepted; repeatable
  --cacert FILE               PEM CA certificates replacing the system trust store
  --cert FILE --key FILE      a client certificate for mutual TLS
  --proxy URL                 the proxy for every URL (\"\" for none; default: https_proxy,
                              http_proxy, all_proxy with curl's rules)
  --noproxy LIST              hosts reached without the proxy (default: no_proxy)
  --resolve HOST:PORT:ADDR[,ADDR]  fixed name resolution, as curl's; repeatable
  --json                      the outcome as the JSON object of `a2a classify`, with
                              `correlation`; streams: one object per item, then the end
  --model-text                also print the one-line failure text for a model
  --no-version-header         1.0 requests without A2A-Version (a testing aid)
  -h, --help                  this help

message and answer options (send, stream; --history also get):
  --data JSON                 a data part; repeatable
  --file PATH[;type=TYPE]     a file part with the file's bytes (media type from the
                              extension unless given); repeatable; regular files only,
                              24 MiB at most together, read within the deadline
  --file-url URL[;type=TYPE]  a file part by reference (never fetched); repeatable
  --metadata JSON             the message's metadata object
                              parts go out in command-line order, TEXT first; at least one
  --history N                 history messages in the answer's task
  --output-dir DIR            write the answer's inline files there (never outside it:
                              a symbolic link in the way is refused, not followed); a part
                              that cannot be saved is reported, the rest saved, exit 3
  --force                     overwrite existing regular files in --output-dir

waiting (send, get, stream):
  --wait                      send: ask for an immediate answer (returnImmediately), then
                              poll the task until it is terminal, input-required or
                              auth-required; get: poll until then; stream: a stream cut
                              before the task settled that cannot be resumed (resubscribes
                              spent or refused, an unknown state) continues as polls.
                              Bounded by --max-time (default 10 minutes for the polls); at
                              the limit exit 3, naming the state
  --poll-interval S           the first delay between polls (default 0.5 s; each next one
                              is 1.5 times longer, at most 5 s or S)

URL is the agent's base URL or the URL of its card; a URL that does not parse or is not
http(s) is a usage error (exit 2, nothing sent).
";

/// `a2a <network command> --help`: what it does, then the shared options.
fn net_help(command: &str) -> Option<String> {
    let (synopsis, what) = match command {
        "card" => (
            "card URL",
            "Fetches, validates and shows the agent card behind URL.\n\n\
             --verify            refuse the card (exit 3, with the reason) unless one of its\n\
             \x20                   signatures verifies with a key given below (A2A 1.0 §8.4)\n\
             --jwks FILE         trust the keys of this JWK Set (repeatable)\n\
             --trust-key PEM     trust this public key, any kid (repeatable)\n\
             \x20                   without --jwks and --trust-key: the JWK Set each\n\
             \x20                   signature's protected jku names is fetched, https only\n\
             \x20                   and only from the card's host\n\
             --jku-host HOST     a jku may also be on HOST (repeatable)\n\
             --extended          then fetch the extended (authenticated) card with the\n\
             \x20                   credentials given and show it instead: it replaces the\n\
             \x20                   public card once checked with the same rules against the\n\
             \x20                   public card's URL (an interface on another host: exit 3);\n\
             \x20                   --verify checks the public card's signature\n\n\
             See also `a2a card canonical --help` and `a2a card sign --help`.",
        ),
        "send" => (
            "send URL [TEXT]",
            "Sends a message (TEXT and the parts of --data, --file, --file-url) and waits for the\nanswer: every part on standard output, the task state on standard error.",
        ),
        "stream" => (
            "stream URL [TEXT]",
            "Sends a message (TEXT and the parts of --data, --file, --file-url) and streams the\nanswer as it arrives.",
        ),
        "get" => ("get URL TASK_ID", "Reads a task."),
        "cancel" => ("cancel URL TASK_ID", "Cancels a task."),
        "resubscribe" => ("resubscribe URL TASK_ID", "Streams a task's events again."),
        _ => return None,
    };
    Some(format!(
        "usage: a2a {synopsis} [options]\n\n{what}\n\n{NET_OPTIONS}"
    ))
}

/// The help of a documented subcommand, `None` for anything else.
fn help_of(command: &str) -> Option<String> {
    match command {
        "sse" => Some(HELP_SSE.to_owned()),
        "classify" => Some(HELP_CLASSIFY.to_owned()),
        "error-id" => Some(HELP_ERROR_ID.to_owned()),
        "demo" => Some(HELP_DEMO.to_owned()),
        #[cfg(feature = "trust")]
        "push" => Some(cmd_trust::HELP_PUSH.to_owned()),
        other => net_help(other),
    }
}

/// `a2a --version`: the version, and whether the network commands are built in.
fn version_line() -> String {
    let v = env!("CARGO_PKG_VERSION");
    if cfg!(feature = "driver") {
        format!("a2a {v}")
    } else {
        format!("a2a {v} (built without the `driver` feature: no network commands)")
    }
}

fn main() {
    args::quiet_on_closed_stdout();
    let mut argv = std::env::args().skip(1);
    let Some(command) = argv.next() else {
        eprint!("{USAGE}");
        std::process::exit(EXIT_USAGE);
    };
    let args = Args::new(argv);
    #[cfg(feature = "trust")]
    let args = match local_card_command(&command, args) {
        Ok(code) => std::process::exit(code),
        Err(args) => args,
    };
    if args.wants_help()
        && let Some(help) = help_of(&command)
    {
        outln!("{}", help.trim_end());
        std::process::exit(0);
    }
    let code = match command.as_str() {
        "sse" => cmd_sse::run(args),
        "classify" => cmd_classify::run_classify(args),
        "error-id" => cmd_classify::run_error_id(args),
        "demo" => demo(args),
        #[cfg(feature = "trust")]
        "push" => cmd_trust::run_push(args),
        "card" | "send" | "stream" | "get" | "cancel" | "resubscribe" => net(&command, args),
        "-h" | "--help" | "help" => match args.peek_positional().and_then(help_of) {
            // `a2a help send`, as git has it.
            Some(help) => {
                outln!("{}", help.trim_end());
                0
            }
            None => {
                outln!("{}", USAGE.trim_end());
                0
            }
        },
        "-V" | "--version" => {
            outln!("{}", version_line());
            0
        }
        other if other.starts_with('-') => {
            eprintln!("a2a: unknown option {other}\nTry 'a2a --help' for more information.");
            EXIT_USAGE
        }
        other => {
            eprintln!("a2a: unknown command {other:?}\nTry 'a2a --help' for the list of commands.");
            EXIT_USAGE
        }
    };
    std::process::exit(code);
}

/// `a2a card canonical|sign`: local commands under `card` (a card URL always has a scheme, so
/// neither word is ever a URL). `Err` hands the arguments back for everything else.
#[cfg(feature = "trust")]
fn local_card_command(command: &str, mut args: Args) -> Result<i32, Args> {
    let sub = match (command, args.peek_positional()) {
        ("card", Some(s @ ("canonical" | "sign"))) => s.to_owned(),
        _ => return Err(args),
    };
    let _ = args.positional("SUBCOMMAND");
    if args.wants_help() {
        let help = if sub == "sign" {
            cmd_trust::HELP_SIGN
        } else {
            cmd_trust::HELP_CANONICAL
        };
        outln!("{help}");
        return Ok(0);
    }
    Ok(cmd_trust::run_local(&sub, args))
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
