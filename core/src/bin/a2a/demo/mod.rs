//! `a2a demo`: the README's main-job command. Starts an embedded A2A agent on 127.0.0.1
//! (built on the core's server side, see [`agent`]) and drives it with the reference
//! driver through every failure mode the project exists for, explaining each. No network
//! beyond loopback; finishes in a few seconds. Exit status 0 when every step produced the
//! outcome it demonstrates, 1 otherwise.
//!
//! `a2a demo --serve [--port N] [--bearer-token T]` keeps the same agent running on
//! 127.0.0.1 (port N, default 0: a free one) for other clients to be pointed at (with T,
//! every A2A call needs `Authorization: Bearer T` and the card declares the scheme): it prints `READY <url>` on standard
//! output, the words it answers ([`WORDS`]) on standard error, and exits 0 on SIGTERM or
//! SIGINT.

mod agent;
mod store;

use std::time::{Duration, Instant};

use a2a_core::driver::{CallOptions, Client, ClientConfig, StreamEvent};
use a2a_core::outcome::{Channel, ErrorName, Outcome, RequestSent, TaskState};
use a2a_core::resilience::model_text;
use a2a_core::stream::{StreamEndKind, StreamItemKind};

use crate::args::Args;
use crate::escape::line as esc;

struct Step {
    name: &'static str,
    elapsed: Duration,
    ok: bool,
}

fn heading(n: usize, title: &str) {
    println!("\n── {n}. {title}");
}

fn show(o: &Outcome) -> String {
    let mut s = format!("channel={}", o.channel.as_str());
    if let Some(h) = o.http_status {
        s.push_str(&format!(" http={h}"));
    }
    if let Some(e) = o.error {
        s.push_str(&format!(" error={}", e.as_str()));
    }
    if let Some(st) = o.state {
        s.push_str(&format!(" state={}", st.as_str()));
    }
    if let Some(r) = o.request_sent {
        s.push_str(&format!(" request_sent={}", r.as_str()));
    }
    s.push_str(&format!(" retry={}", o.retry.as_str()));
    s
}

/// What `a2a demo --serve` prints about the words the agent answers.
pub const WORDS: &str = "The agent answers by the first word of the message text:
  echo <text>   a completed task whose artifact is <text>
  fail          a FAILED task with an ADK-style error_id
  slow          send: never answered (the connection is held): the caller times out
  input, auth   the task stops in INPUT_REQUIRED / AUTH_REQUIRED; a follow-up message to it
                (message.taskId) is echoed and completes it
  reject        a REJECTED task
  count <n>     stream: n artifact chunks, then completed
  drop          stream: the first chunk, then the connection is cut (resubscribe sends the rest)
  anything else a long-running task: answered at once in WORKING, echoed and completed 10 s
                later (a follow-up message or a cancel settles it first)
Tasks are kept: GetTask (historyLength), ListTasks (filters, pages), CancelTask (any task not
in a terminal state), SubscribeToTask (replays the task's events, or those after
Last-Event-ID, then follows it live), follow-up messages by taskId to any task not in a
terminal state. JSON-RPC at /a2a and HTTP+JSON at the root, protocol 1.0 and 0.3 (the card
lists all four). Push notifications are not offered (-32003).";

/// `a2a demo --serve [--port N] [--bearer-token T] [--sign-card PEM [--card-kid ID]]`: keeps the embedded agent running on
/// 127.0.0.1 until SIGTERM or SIGINT (then exit 0), for other clients to be pointed at.
/// Prints `READY <url>`.
fn serve(options: &agent::AgentOptions) -> i32 {
    let port = options.port;
    use std::io::Write;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};
    let stop = Arc::new(AtomicBool::new(false));
    for sig in [signal_hook::consts::SIGTERM, signal_hook::consts::SIGINT] {
        // signal-hook: a safe API that only sets the flag from the handler.
        if let Err(e) = signal_hook::flag::register(sig, Arc::clone(&stop)) {
            eprintln!("a2a demo --serve: cannot handle signal {sig}: {e}");
            return 1;
        }
    }
    let agent = match agent::Agent::start_with(options) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("a2a demo --serve: cannot listen on 127.0.0.1:{port}: {e}");
            return 1;
        }
    };
    eprintln!("{WORDS}");
    eprintln!("Agent card: {}/.well-known/agent-card.json", agent.base);
    if options.bearer_token.is_some() {
        eprintln!(
            "Every A2A call needs Authorization: Bearer <the token given>; the card is public.\n\
             OAuth2 client credentials: {}/oauth2/token issues that token to client `demo` \
             with the token as its secret.",
            agent.base
        );
    }
    println!("READY {}", agent.base);
    let _ = std::io::stdout().flush();
    while !stop.load(Ordering::SeqCst) {
        std::thread::sleep(Duration::from_millis(50));
    }
    eprintln!("a2a demo --serve: stopping; what the agent served:");
    for line in agent.tally().render_prometheus().lines() {
        if !line.starts_with('#') {
            eprintln!("  {line}");
        }
    }
    0
}

/// `--sign-card PEM [--card-kid ID]`: the key (and kid, default `demo`) the served card is
/// signed with.
#[cfg(feature = "trust")]
fn card_signer(args: &mut Args) -> Result<Option<agent::CardSigner>, String> {
    let Some(path) = args.value("--sign-card")? else {
        return Ok(None);
    };
    let kid = args
        .value("--card-kid")?
        .unwrap_or_else(|| "demo".to_owned());
    let pem = std::fs::read(&path).map_err(|e| format!("--sign-card {path}: {e}"))?;
    let key =
        a2a_core::trust::jws::SigningKey::from_pem(&pem, &a2a_core::trust::SystemRandom::new())
            .map_err(|e| format!("--sign-card {path}: {e}"))?;
    Ok(Some((key, kid)))
}

#[cfg(not(feature = "trust"))]
fn card_signer(_args: &mut Args) -> Result<Option<agent::CardSigner>, String> {
    Ok(None)
}

/// Runs `a2a demo`: the serving mode, or the embedded agent and the six steps of
/// docs/demo-agent.md in order, then the timings and both tallies.
pub fn run(args: Args) -> i32 {
    let options = match serve_options(args) {
        Ok(o) => o,
        Err(e) => return crate::args::usage_error("demo", &e),
    };
    if let Some(options) = options {
        return serve(&options);
    }
    let agent = match agent::Agent::start() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("a2a demo: cannot start the embedded agent: {e}");
            return 1;
        }
    };
    let Some(client) = connect(&agent) else {
        return 1;
    };
    let agent_name = client
        .target()
        .expect("resolved at construction")
        .agent_name
        .clone();
    let opts = CallOptions::default();
    let steps = [
        completed_send(&client, &opts),
        stream(&client, &opts),
        failed_task(&client, &opts, &agent, &agent_name),
        error_in_http_200(&client, &opts),
        hung_call(&client, &opts, &agent_name),
        dropped_stream(&client, &opts),
    ];
    summary(&steps, &client, &agent)
}

/// The `--serve` options, `None` without `--serve`; a usage error as its message.
fn serve_options(mut args: Args) -> Result<Option<agent::AgentOptions>, String> {
    let serve_mode = args.flag("--serve");
    let port = args.parsed::<u16>("--port")?;
    let bearer_token = args.value("--bearer-token")?;
    let signer = card_signer(&mut args)?;
    args.finish()?;
    if port.is_some() && !serve_mode {
        return Err("--port needs --serve".to_owned());
    }
    if bearer_token.is_some() && !serve_mode {
        return Err("--bearer-token needs --serve".to_owned());
    }
    if bearer_token
        .as_deref()
        .is_some_and(|t| t.is_empty() || t.contains(char::is_whitespace))
    {
        return Err("--bearer-token must be one non-empty word".to_owned());
    }
    if signer.is_some() && !serve_mode {
        return Err("--sign-card needs --serve".to_owned());
    }
    Ok(serve_mode.then(|| agent::AgentOptions {
        port: port.unwrap_or(0),
        bearer_token,
        signer: signer.map(std::sync::Arc::new),
    }))
}

/// The reference driver's client of the embedded agent, with the demo's short timeouts;
/// `None` (after saying why) when its card does not resolve.
fn connect(agent: &agent::Agent) -> Option<Client> {
    println!(
        "a2a demo — an embedded A2A agent is listening on {} (loopback only).",
        agent.base
    );
    println!("The client is a2a-core's reference driver with short demo timeouts:");
    println!("connect 1 s, call 1.5 s, stream idle 3 s, one automatic resubscribe.");
    let config = ClientConfig {
        allow_http: true,
        connect_timeout: Duration::from_secs(1),
        call_timeout: Duration::from_millis(1500),
        stream_idle_timeout: Duration::from_secs(3),
        stream_resubscribe_attempts: 1,
        ..ClientConfig::default()
    };
    let t = Instant::now();
    let client = match Client::new(&agent.base, config) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("a2a demo: card resolution failed: {}", esc(&e.to_string()));
            return None;
        }
    };
    let target = client.target().expect("resolved at construction");
    println!(
        "Card fetched and validated in {} ms: {} speaks protocol {} over JSON-RPC at {}.",
        t.elapsed().as_millis(),
        esc(&target.agent_name),
        target.version,
        esc(&target.url)
    );
    Some(client)
}

/// Step 1: a send the agent completes, its artifact text shown.
fn completed_send(client: &Client, opts: &CallOptions) -> Step {
    heading(1, "A completed send");
    let r = client.send_text("echo hello from a2a-core", opts);
    let text = r
        .response
        .as_ref()
        .and_then(|resp| serde_json::from_slice::<serde_json::Value>(&resp.body).ok())
        .and_then(|v| {
            v.pointer("/result/task/artifacts/0/parts/0/text")
                .and_then(|t| t.as_str().map(str::to_owned))
        })
        .unwrap_or_default();
    println!("   agent says: {text:?}");
    println!("   outcome:    {}", show(&r.outcome));
    println!(
        "   traceparent {} (the agent can log the same one)",
        r.correlation.traceparent
    );
    Step {
        name: "completed send",
        elapsed: r.correlation.elapsed,
        ok: r.outcome.is_success() && text == "hello from a2a-core",
    }
}

/// Step 2: a stream whose four chunks are printed as they arrive.
fn stream(client: &Client, opts: &CallOptions) -> Step {
    heading(2, "A stream: items arrive as the agent produces them");
    let t = Instant::now();
    let mut chunks = 0;
    let mut ok = false;
    print!("   ");
    for ev in client.stream_text("count 4", opts).take(1000) {
        match ev {
            StreamEvent::Item(i) if i.kind == StreamItemKind::ArtifactUpdate => {
                chunks += 1;
                print!("{}", esc(&i.outcome.text.unwrap_or_default()));
                let _ = std::io::Write::flush(&mut std::io::stdout());
            }
            StreamEvent::End(end) => {
                println!(
                    "\n   end: {} — {}",
                    end.kind.map_or("-", |k| k.as_str()),
                    show(&end.outcome)
                );
                ok = end.kind == Some(StreamEndKind::Completed) && chunks == 4;
            }
            _ => {}
        }
    }
    Step {
        name: "stream",
        elapsed: t.elapsed(),
        ok,
    }
}

/// Step 3: a FAILED task, its `error_id` found in the agent's log.
fn failed_task(client: &Client, opts: &CallOptions, agent: &agent::Agent, name: &str) -> Step {
    heading(
        3,
        "A task that FAILED: neither an HTTP error nor a protocol error",
    );
    let r = client.send_text("fail", opts);
    println!("   outcome:  {}", show(&r.outcome));
    println!(
        "   status:   {}",
        esc(r.outcome.text.as_deref().unwrap_or(""))
    );
    let id = r.outcome.error_id.clone().unwrap_or_default();
    println!("   error_id: {}  (fresh each run)", esc(&id));
    let logged = agent
        .log()
        .into_iter()
        .find(|l| !id.is_empty() && l.contains(&id));
    println!("   the agent's log, found by that id:");
    println!("   {}", esc(logged.as_deref().unwrap_or("(not found)")));
    if let Some(line) = model_text(name, &r.outcome) {
        println!("   what the orchestrating model reads: {line}");
    }
    Step {
        name: "failed task + error_id",
        elapsed: r.correlation.elapsed,
        ok: r.outcome.state == Some(TaskState::Failed) && logged.is_some(),
    }
}

/// Step 4: TaskNotFound inside an HTTP 200.
fn error_in_http_200(client: &Client, opts: &CallOptions) -> Step {
    heading(4, "A JSON-RPC error inside an HTTP 200");
    let r = client.get_task("t-does-not-exist", opts);
    println!("   outcome: {}", show(&r.outcome));
    println!("   An HTTP dashboard counts this call as a success; the tally counts TaskNotFound.");
    Step {
        name: "error in HTTP 200",
        elapsed: r.correlation.elapsed,
        ok: r.outcome.http_status == Some(200)
            && r.outcome.channel == Channel::Protocol
            && r.outcome.error == Some(ErrorName::TaskNotFound),
    }
}

/// Step 5: a call the agent never answers, cut by the call timeout.
fn hung_call(client: &Client, opts: &CallOptions, name: &str) -> Step {
    heading(
        5,
        "A hung call, cut by the call timeout (1.5 s) instead of hanging the turn",
    );
    let r = client.send_text("slow", opts);
    println!(
        "   after {} ms: {}",
        r.correlation.elapsed.as_millis(),
        show(&r.outcome)
    );
    if let Some(line) = model_text(name, &r.outcome) {
        println!("   what the orchestrating model reads: {line}");
    }
    println!("   (the request was written, so it may have been received: never resent blindly)");
    Step {
        name: "hung call cut",
        elapsed: r.correlation.elapsed,
        ok: r.outcome.error == Some(ErrorName::Timeout)
            && r.outcome.request_sent == Some(RequestSent::Unknown)
            && r.correlation.elapsed < Duration::from_secs(4),
    }
}

/// Step 6: a stream the agent cuts, recovered by one resubscribe (never a resend).
fn dropped_stream(client: &Client, opts: &CallOptions) -> Step {
    heading(
        6,
        "A dropped stream, recovered by resubscribing (the message is not resent)",
    );
    let t = Instant::now();
    let mut ok = false;
    print!("   ");
    for ev in client.stream_text("drop", opts).take(1000) {
        match ev {
            StreamEvent::Item(i) if i.kind == StreamItemKind::ArtifactUpdate => {
                print!("{}", esc(&i.outcome.text.unwrap_or_default()));
            }
            StreamEvent::Resubscribing { task_id, attempt } => {
                print!(
                    "\n   [stream cut; resubscribing to {}, attempt {attempt}]\n   ",
                    esc(&task_id)
                );
            }
            StreamEvent::End(end) => {
                println!(
                    "\n   end: {} after {} resubscribe — {}",
                    end.kind.map_or("-", |k| k.as_str()),
                    end.resubscribes,
                    show(&end.outcome)
                );
                ok = end.kind == Some(StreamEndKind::Completed) && end.resubscribes == 1;
            }
            _ => {}
        }
    }
    Step {
        name: "dropped stream resubscribed",
        elapsed: t.elapsed(),
        ok,
    }
}

/// The timings, both tallies, and the exit status (0 when every step behaved).
fn summary(steps: &[Step], client: &Client, agent: &agent::Agent) -> i32 {
    println!("\n── Timings");
    for s in steps {
        println!(
            "   {:<30} {:>6} ms  {}",
            s.name,
            s.elapsed.as_millis(),
            if s.ok { "as expected" } else { "UNEXPECTED" }
        );
    }
    println!("\n── The client's tally (Prometheus text), per method and outcome");
    for line in client
        .tally()
        .render_prometheus()
        .lines()
        .filter(|l| !l.starts_with('#'))
    {
        println!("   {line}");
    }
    println!("\n── The agent's own tally (what it served)");
    for line in agent
        .tally()
        .render_prometheus()
        .lines()
        .filter(|l| !l.starts_with('#'))
    {
        println!("   {line}");
    }
    if steps.iter().all(|s| s.ok) {
        println!("\nEvery step behaved as described.");
        0
    } else {
        println!("\nSome steps did not behave as described (marked UNEXPECTED).");
        1
    }
}
