//! `a2a card|send|stream|get|cancel|resubscribe`: the driver on the command line.
//!
//! Human output by default: the agent's text (artifacts and messages) on standard output as
//! it arrives; state changes, the error_id of a FAILED task and recovery steps on standard
//! error (with a progress line for long streams when standard error is a terminal).
//! `--json` prints the outcome object exactly as `a2a classify` does, plus `correlation`;
//! streams print one object per item and one for the end. The exit status is the outcome's
//! (see `main.rs`). Every remote string in a human line is escaped (see `escape`), so no
//! status text, name or error message can start a line of its own or drive the terminal.

use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

use a2a_core::client::WaitConfig;
use a2a_core::driver::{
    CallOptions, CallResult, CardResolutionError, Client, ClientConfig, Correlation, HttpRequest,
    RequestContext, StreamCall, StreamEvent, StreamFinal, Target,
};
use a2a_core::envelope::check_header;
use a2a_core::outcome::{Channel, Outcome, TaskState};
use a2a_core::resilience::model_text;
use a2a_core::stream::{StreamItem, StreamItemKind};
use a2a_core::time::Millis;
use a2a_core::version::{Binding, ProtocolVersion};
use serde_json::Value;

use crate::args::{Args, EXIT_USAGE, outln, stdout_failed, usage_error};
use crate::cmd_answer::{self, Outgoing};
use crate::escape::line as esc;

/// Exit status for a failure of the command itself (card resolution, transport...): the
/// outcome table's 3.
const EXIT_TRANSPORT: i32 = 3;

/// Options shared by every network subcommand.
struct Common {
    config: ClientConfig,
    opts: CallOptions,
    json: bool,
    model_text: bool,
    /// `--no-card`: URL is the interface itself; no card is fetched.
    no_card: bool,
    /// `--no-version-header`: 1.0 requests go out without `A2A-Version`.
    no_version_header: bool,
    /// How the answer is shown: `--output-dir` (and `--force`), whether standard output is
    /// a terminal, the file parts not saved.
    answer: std::cell::RefCell<cmd_answer::AnswerOut>,
    /// `--oauth2-token-url` and its client: a token fetched and sent as Bearer.
    #[cfg(feature = "trust")]
    oauth2: Option<crate::oauth2_hook::OAuth2>,
}

fn seconds(args: &mut Args, name: &str) -> Result<Option<Duration>, String> {
    match args.value(name)? {
        None => Ok(None),
        Some(v) => {
            let s: f64 = v
                .parse()
                .map_err(|_| format!("{name}: {v:?} is not a number of seconds"))?;
            if !s.is_finite() || s <= 0.0 || s > 86_400.0 {
                return Err(format!("{name}: {v:?} must be between 0 and 86400 seconds"));
            }
            Ok(Some(Duration::from_secs_f64(s)))
        }
    }
}

fn common(args: &mut Args) -> Result<Common, String> {
    let mut config = ClientConfig::default();
    interface_flags(args, &mut config)?;
    transport_flags(args, &mut config)?;
    let mut opts = call_flags(args, config.max_time)?;
    let json = args.flag("--json");
    let model_text = args.flag("--model-text");
    let no_card = args.flag("--no-card");
    if no_card && config.protocol.is_none() {
        return Err(
            "--no-card needs --protocol 0.3|1.0 (there is no card to choose from)".to_owned(),
        );
    }
    if no_card
        && !config.allow_http
        && let Some(url) = args.peek_positional()
        && url
            .get(..7)
            .is_some_and(|p| p.eq_ignore_ascii_case("http://"))
    {
        return Err(format!("--no-card: {ALLOW_HTTP_HINT}"));
    }
    let no_version_header = args.flag("--no-version-header");
    if let Some(n) = args.parsed::<i32>("--history")? {
        if n < 0 {
            return Err("--history: must be 0 or more".to_owned());
        }
        opts.history_length = Some(n);
    }
    let answer = std::cell::RefCell::new(cmd_answer::AnswerOut::new(
        cmd_answer::output_dir(args)?,
        std::io::stdout().is_terminal(),
    ));
    #[cfg(feature = "trust")]
    let oauth2 = crate::oauth2_hook::flags(args, config.allow_http)?;
    #[cfg(feature = "trust")]
    if oauth2.is_some()
        && opts
            .headers
            .iter()
            .any(|(n, _)| n.eq_ignore_ascii_case("authorization"))
    {
        return Err(
            "--client-id (OAuth2) and --bearer-env (or an Authorization --header) exclude each other"
                .into(),
        );
    }
    Ok(Common {
        config,
        opts,
        json,
        model_text,
        no_card,
        no_version_header,
        answer,
        #[cfg(feature = "trust")]
        oauth2,
    })
}

/// `--protocol`, `--min-protocol`, `--binding`, `--prefer`: which of the card's interfaces.
fn interface_flags(args: &mut Args, config: &mut ClientConfig) -> Result<(), String> {
    if let Some(p) = args.value("--protocol")? {
        config.protocol = Some(match p.as_str() {
            "0.3" => ProtocolVersion::V0_3,
            "1.0" => ProtocolVersion::V1_0,
            other => return Err(format!("--protocol: {other:?} (expected 0.3 or 1.0)")),
        });
    }
    if let Some(p) = args.value("--min-protocol")? {
        let min = match p.as_str() {
            "0.3" => ProtocolVersion::V0_3,
            "1.0" => ProtocolVersion::V1_0,
            other => return Err(format!("--min-protocol: {other:?} (expected 0.3 or 1.0)")),
        };
        if config.protocol.is_some_and(|v| v < min) {
            return Err("--protocol is older than --min-protocol".to_owned());
        }
        config.min_protocol = Some(min);
    }
    if let Some(b) = args.value("--binding")? {
        config.binding = Some(match b.to_ascii_lowercase().as_str() {
            "jsonrpc" | "json-rpc" => Binding::JsonRpc,
            "http+json" | "rest" => Binding::HttpJson,
            other => {
                return Err(format!(
                    "--binding: {other:?} (expected jsonrpc or http+json)"
                ));
            }
        });
    }
    if let Some(p) = args.value("--prefer")? {
        config.prefer = match p.as_str() {
            "card" => a2a_core::card::SelectionOrder::CardFirst,
            "client" => a2a_core::card::SelectionOrder::ClientFirst,
            other => return Err(format!("--prefer: {other:?} (expected card or client)")),
        };
    }
    Ok(())
}

/// Timeouts, the whole command's `--max-time`, plain http and hosts, TLS files, proxy,
/// `--resolve`, retries, limits, resubscribes, the breaker and the capability opt-out.
fn transport_flags(args: &mut Args, config: &mut ClientConfig) -> Result<(), String> {
    if let Some(d) = seconds(args, "--connect-timeout")? {
        config.connect_timeout = d;
    }
    if let Some(d) = seconds(args, "--timeout")? {
        config.call_timeout = d;
    }
    if let Some(d) = seconds(args, "--idle-timeout")? {
        config.stream_idle_timeout = d;
    }
    // The whole command (card, call, retries, resubscribes, stream) ends by then.
    config.max_time = seconds(args, "--max-time")?;
    config.allow_http = args.flag("--allow-http");
    config.allow_hosts = args.values("--allow-host")?;
    // TLS files are checked now: a missing file is the user's mistake (exit 2).
    let file = |args: &mut Args, name: &str| -> Result<Option<std::path::PathBuf>, String> {
        match args.value(name)? {
            None => Ok(None),
            Some(f) => {
                std::fs::metadata(&f).map_err(|e| format!("{name} {f}: {e}"))?;
                Ok(Some(f.into()))
            }
        }
    };
    config.ca_file = file(args, "--cacert")?;
    config.client_cert_file = file(args, "--cert")?;
    config.client_key_file = file(args, "--key")?;
    if config.client_cert_file.is_some() != config.client_key_file.is_some() {
        return Err("--cert and --key go together".to_owned());
    }
    config.proxy = args.value("--proxy")?;
    config.no_proxy = args.value("--noproxy")?;
    config.resolve = args.values("--resolve")?;
    if let Some(n) = args.parsed::<u32>("--retries")? {
        config.send_retries = n;
    }
    if let Some(n) = args.parsed::<usize>("--max-event")? {
        if n == 0 {
            return Err("--max-event: must be at least 1 byte".to_owned());
        }
        config.max_event_bytes = n;
    }
    if let Some(n) = args.parsed::<u32>("--resubscribes")? {
        config.stream_resubscribe_attempts = n;
    }
    if args.flag("--breaker") {
        config.breaker = Some(a2a_core::resilience::BreakerConfig::default());
    }
    config.ignore_capabilities = args.flag("--ignore-capabilities");
    Ok(())
}

/// Each call's headers (`--header`, `--bearer-env`), deadline (from `--max-time`), context,
/// task and idempotency key.
fn call_flags(args: &mut Args, max_time: Option<Duration>) -> Result<CallOptions, String> {
    let mut opts = CallOptions::default();
    for h in args.values("--header")? {
        let (n, v) = h
            .split_once(':')
            .ok_or_else(|| format!("--header {h:?}: expected 'Name: value'"))?;
        let (n, v) = (n.trim(), v.trim());
        // The envelope's own rule, checked now: a bad header is the user's mistake (exit 2),
        // not a transport outcome of a request that was never built.
        check_header(n, v).map_err(|e| format!("--header {h:?}: {e}"))?;
        opts.headers.push((n.to_owned(), v.to_owned()));
    }
    if let Some(var) = args.value("--bearer-env")? {
        let token = std::env::var(&var)
            .map_err(|_| format!("--bearer-env: environment variable {var} is not set"))?;
        if token.trim().is_empty() {
            return Err(format!("--bearer-env: environment variable {var} is empty"));
        }
        // The token itself is never echoed, not even in this error.
        check_header("Authorization", token.trim()).map_err(|_| {
            format!(
                "--bearer-env: environment variable {var} holds a control character (CR, LF, NUL...) that no header may carry"
            )
        })?;
        opts.headers.push((
            "Authorization".to_owned(),
            format!("Bearer {}", token.trim()),
        ));
    }
    opts.deadline = max_time.map(|d| Instant::now() + d);
    opts.context_id = args.value("--context-id")?;
    opts.task_id = args.value("--task-id")?;
    opts.idempotency_key = args.value("--idempotency-key")?;
    if let Some(k) = &opts.idempotency_key {
        check_header("Idempotency-Key", k).map_err(|e| format!("--idempotency-key: {e}"))?;
        if k.is_empty() {
            return Err("--idempotency-key: empty".to_owned());
        }
    }
    Ok(opts)
}

/// Runs one of the network subcommands (`command` is its name).
#[allow(
    clippy::too_many_lines,
    reason = "one arm per network subcommand, each a few lines dispatching to its runner"
)]
pub fn run(command: &str, mut args: Args) -> i32 {
    type Parsed = (
        Common,
        String,
        Option<String>,
        Option<Outgoing>,
        Option<WaitConfig>,
    );
    #[cfg(feature = "trust")]
    let mut verify = None;
    let mut extended = false;
    let parsed = (|| -> Result<Parsed, String> {
        let c = common(&mut args)?;
        if command == "card" {
            extended = args.flag("--extended");
        }
        #[cfg(feature = "trust")]
        if command == "card" {
            verify = crate::cmd_trust::verify_options(&mut args)?;
        }
        let sends = matches!(command, "send" | "stream");
        // `--file` is read inside the command's deadline: --max-time, else the call timeout.
        let file_deadline = c
            .opts
            .deadline
            .unwrap_or_else(|| Instant::now() + c.config.call_timeout);
        let file_limit = cmd_answer::file_limit(c.config.max_response_bytes);
        let flags = sends
            .then(|| cmd_answer::outgoing_flags(&mut args, file_limit, file_deadline))
            .transpose()?;
        let wait = match command {
            "send" | "get" | "stream" => wait_flags(&mut args)?,
            _ => None,
        };
        args.no_unknown_options()?;
        let url = args.positional("URL")?;
        check_url(&url)?;
        if c.no_card && command == "card" {
            return Err("--no-card: `a2a card` reads the card; drop --no-card".to_owned());
        }
        let second = match command {
            "card" => None,
            "send" | "stream" => args
                .peek_positional()
                .is_some()
                .then(|| args.positional("TEXT"))
                .transpose()?,
            _ => Some(args.positional("TASK_ID")?),
        };
        let outgoing = match flags {
            Some(f) => Some(f.with_text(second.clone())?),
            None => None,
        };
        Ok((c, url, second, outgoing, wait))
    })();
    let (c, url, second, outgoing, wait) = match parsed.and_then(|p| args.finish().map(|_| p)) {
        Ok(p) => p,
        Err(e) => return usage_error(command, &e),
    };
    let client = if c.no_card {
        let version = c.config.protocol.unwrap_or(ProtocolVersion::V1_0);
        let binding = c.config.binding.unwrap_or(Binding::JsonRpc);
        Client::with_target(Target::new(&url, version, binding), c.config.clone())
    } else {
        match Client::new(&url, c.config.clone()) {
            Ok(client) => client,
            Err(e) => return card_failure(&c, &url, &e),
        }
    };
    #[cfg(feature = "trust")]
    if let Some(creds) = c.oauth2.clone()
        && let Err(e) = crate::oauth2_hook::install(&client, creds)
    {
        eprintln!("a2a {command}: {}", esc(&e));
        return EXIT_TRANSPORT;
    }
    if c.no_version_header {
        // A testing and compatibility aid: reproduces a client that omits the header (the
        // servers then read a 1.0 call as 0.3 and answer with a version error).
        client.add_interceptor(|_: &RequestContext<'_>, req: &mut HttpRequest| {
            req.remove_header("A2A-Version");
        });
    }
    let second = second.unwrap_or_default();
    let (parts, metadata) = outgoing.map_or((Vec::new(), None), |o| (o.parts, o.metadata));
    match command {
        "card" => {
            #[cfg(feature = "trust")]
            let verified = match verified_signature(&c, &client, verify.as_ref()) {
                Ok(v) => v,
                Err(code) => return code,
            };
            #[cfg(not(feature = "trust"))]
            let verified = None;
            if extended {
                // The driver adopts the extended card (checked against the public card's
                // URL) or refuses it; either way `card` shows the target it keeps.
                let r = client.extended_card(&c.opts);
                if !r.outcome.is_success() {
                    if c.json {
                        outln!(
                            "{}",
                            with_correlation(&r.outcome, Some(&r.correlation), &[])
                        );
                    }
                    eprintln!(
                        "a2a card: extended card: {}",
                        esc(r.outcome.message.as_deref().unwrap_or("failed"))
                    );
                    return r.outcome.exit_code();
                }
            }
            card(&c, &client, verified, extended)
        }
        "send" => match wait {
            None => unary(&c, &client, client.send_parts(parts, metadata, &c.opts)),
            Some(wait) => {
                let opts = CallOptions {
                    return_immediately: true,
                    ..c.opts.clone()
                };
                let sent = client.send_parts(parts, metadata, &opts);
                unary(&c, &client, follow(&client, sent, wait, &c.opts))
            }
        },
        "get" => match wait {
            None => unary(&c, &client, client.get_task(&second, &c.opts)),
            Some(wait) => unary(&c, &client, client.wait_task(&second, wait, &c.opts)),
        },
        "cancel" => unary(&c, &client, client.cancel_task(&second, &c.opts)),
        "stream" => {
            let s = client.stream_parts(parts, metadata, &c.opts);
            stream(&c, s, wait.map(|w| (&client, w)))
        }
        "resubscribe" => stream(&c, client.resubscribe(&second, &c.opts), None),
        other => {
            eprintln!("a2a: unknown command {other:?}");
            EXIT_USAGE
        }
    }
}

/// `--wait [--poll-interval S]`: how to wait for a task (`None` without `--wait`).
fn wait_flags(args: &mut Args) -> Result<Option<WaitConfig>, String> {
    let wait = args.flag("--wait");
    let interval = seconds(args, "--poll-interval")?;
    if !wait {
        return match interval {
            Some(_) => Err("--poll-interval needs --wait".to_owned()),
            None => Ok(None),
        };
    }
    let mut config = WaitConfig::default();
    if let Some(i) = interval {
        config.first_interval = Millis(i.as_millis() as u64);
        config.max_interval = Millis(config.max_interval.0.max(config.first_interval.0));
    }
    Ok(Some(config))
}

/// After a send with `--wait`: a task the agent answered before it settled is followed
/// with [`Client::wait_task`]; anything else (a message, a settled task, a failure) is the
/// answer as it is.
fn follow(client: &Client, sent: CallResult, wait: WaitConfig, opts: &CallOptions) -> CallResult {
    let o = &sent.outcome;
    let pending = o
        .state
        .is_some_and(|s| !s.is_terminal() && !s.is_interrupted());
    match (&o.task_id, pending) {
        (Some(task), true) => {
            let state = o.state.map_or("unknown", |s| s.as_str());
            eprintln!(
                "a2a send: task {} is {state}; waiting for it to settle",
                esc(task)
            );
            client.wait_task(task, wait, opts)
        }
        _ => sent,
    }
}

/// A URL that does not parse, or whose scheme is not http(s), is the user's mistake: a usage
/// error before anything is sent. (Plain http stays the policy refusal of exit 3.)
fn check_url(url: &str) -> Result<(), String> {
    let parsed = a2a_core::card::Url::parse(url).map_err(|e| format!("URL {url:?}: {e}"))?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err(format!(
            "URL {url:?}: scheme {:?} is not http or https",
            parsed.scheme()
        ));
    }
    Ok(())
}

/// The CLI's wording of the plain-http refusal (the library's names the config field).
const ALLOW_HTTP_HINT: &str =
    "plain http is refused by default; pass --allow-http to allow it (local development only)";

fn card_failure(c: &Common, url: &str, e: &CardResolutionError) -> i32 {
    let mut o = e.to_outcome();
    if e.kind() == "plain_http" {
        o = o.with_hint(ALLOW_HTTP_HINT.to_owned());
    }
    if c.json {
        outln!("{}", with_correlation(&o, None, &[]));
    } else {
        eprintln!("a2a: card resolution failed: {}", esc(&e.to_string()));
        if let Some(h) = &o.hint {
            eprintln!("  hint: {}", esc(h));
        }
    }
    let host = url
        .split("://")
        .nth(1)
        .and_then(|r| r.split(['/', '?']).next())
        .unwrap_or(url);
    if c.model_text
        && let Some(line) = model_text(host, &o)
    {
        eprintln!("{line}");
    }
    EXIT_TRANSPORT
}

/// `a2a card URL --verify`: `Ok(None)` without `--verify`, `Ok(Some(line))` when a signature
/// verified (with the keys given, or those of the card's `jku`s), `Err(3)` (reported) when
/// none did.
#[cfg(feature = "trust")]
fn verified_signature(
    c: &Common,
    client: &Client,
    verify: Option<&crate::cmd_trust::Verify>,
) -> Result<Option<Value>, i32> {
    let Some(verify) = verify else {
        return Ok(None);
    };
    let Ok(t) = client.target() else {
        return Ok(None); // reported by `card`
    };
    let hosts: Vec<&str> = verify.jku_hosts.iter().map(String::as_str).collect();
    match client.verified_card(verify.keys.as_ref(), &hosts) {
        Ok(v) => Ok(Some(serde_json::json!({
            "verified": true, "index": v.index, "alg": v.alg.as_str(), "kid": v.kid, "jku": v.jku,
        }))),
        Err(e) => {
            if c.json {
                outln!(
                    "{}",
                    serde_json::json!({"verified": false, "error": e.kind(), "message": e.to_string(), "url": t.url})
                );
            }
            // The reasons quote the card's own texts (kid, header, jku): escaped.
            eprintln!(
                "a2a card: refused: the card's signature does not verify: {}",
                esc(&e.to_string())
            );
            Err(EXIT_TRANSPORT)
        }
    }
}

fn card(c: &Common, client: &Client, signature: Option<Value>, extended: bool) -> i32 {
    let t = match client.target() {
        Ok(t) => t,
        Err(o) => {
            eprintln!(
                "a2a card: {}",
                esc(o.message.as_deref().unwrap_or("no target"))
            );
            return o.exit_code();
        }
    };
    let card: Value = t
        .card_json
        .as_deref()
        .and_then(|j| serde_json::from_str(j).ok())
        .unwrap_or(Value::Null);
    if c.json {
        let mut v = serde_json::json!({
            "agent": t.agent_name, "url": t.url, "version": t.version.as_str(),
            "binding": binding_name(t.binding), "tenant": t.tenant, "card": card,
        });
        if extended {
            v["extended"] = Value::Bool(true);
        }
        if let Some(s) = &signature {
            v["signature"] = s.clone();
        }
        outln!("{v}");
    } else {
        // The card's texts are the agent's: escaped on every output (see `escape`).
        outln!(
            "{}{}\n  interface: {} ({} {})",
            esc(&t.agent_name),
            if extended { " (extended card)" } else { "" },
            esc(&t.url),
            binding_name(t.binding),
            t.version
        );
        if let Some(d) = card.get("description").and_then(Value::as_str) {
            outln!("  description: {}", esc(d));
        }
        if let Some(s) = &signature {
            outln!(
                "  signature: verified ({}, kid {}, signatures[{}])",
                s["alg"].as_str().unwrap_or("?"),
                esc(s["kid"].as_str().unwrap_or("none")),
                s["index"]
            );
        }
        if let Some(skills) = card.get("skills").and_then(Value::as_array) {
            for s in skills {
                outln!(
                    "  skill: {} — {}",
                    esc(s.get("name").and_then(Value::as_str).unwrap_or("?")),
                    esc(s.get("description").and_then(Value::as_str).unwrap_or(""))
                );
            }
        }
        if let Some(plan) = &t.credentials
            && !plan.alternatives.is_empty()
        {
            let names: Vec<String> = plan
                .alternatives
                .iter()
                .map(|a| {
                    a.iter()
                        .map(|n| n.scheme.clone())
                        .collect::<Vec<_>>()
                        .join(" + ")
                })
                .collect();
            outln!("  credentials: {}", esc(&names.join(" or ")));
        }
    }
    0
}

fn binding_name(b: Binding) -> &'static str {
    match b {
        Binding::JsonRpc => "JSON-RPC",
        _ => "HTTP+JSON",
    }
}

fn unary(c: &Common, client: &Client, r: CallResult) -> i32 {
    let agent = client
        .target()
        .map(|t| t.agent_name.clone())
        .unwrap_or_default();
    let mut code = r.outcome.exit_code();
    if c.json {
        outln!(
            "{}",
            with_answer(
                with_correlation(&r.outcome, Some(&r.correlation), &[]),
                &[],
                r.answer.as_ref().map(a2a_core::answer::to_json)
            )
        );
    } else {
        let mut out = std::io::stdout().lock();
        if let Some(a) = &r.answer {
            cmd_answer::print_answer(&mut out, a, &mut c.answer.borrow_mut());
        }
        report(&r.outcome, &r.correlation);
        if c.answer.borrow().not_saved() > 0 {
            code = code.max(EXIT_TRANSPORT);
        }
    }
    warn_leak(&agent, &r.outcome);
    if c.model_text
        && let Some(line) = model_text(&agent, &r.outcome)
    {
        eprintln!("{line}");
    }
    code
}

/// A FAILED status that leaks exception detail: a warning on standard error in every mode
/// (the model text already leaves the detail out), so the remote's operator can be told.
fn warn_leak(agent: &str, o: &Outcome) {
    if o.leaked_detail {
        eprintln!(
            "warning: {} leaked exception detail in a FAILED status{}; the model text carries only the error id: tell the agent's operator",
            esc(agent),
            o.error_id
                .as_deref()
                .map(|id| format!(" (error_id {})", esc(id)))
                .unwrap_or_default()
        );
    }
}

/// State, error_id and failure detail on standard error; every remote text escaped to one
/// line (see `escape`), so none can pass for a line of the CLI's own.
fn report(o: &Outcome, k: &Correlation) {
    match o.channel {
        Channel::Task => {
            let state = o.state.map_or("unknown", TaskState::as_str);
            let task = esc(o.task_id.as_deref().unwrap_or("?"));
            eprintln!("task {task}: {state}");
            if o.state == Some(TaskState::Failed) {
                if let Some(t) = &o.text {
                    eprintln!("  {}", esc(t));
                }
                if let Some(id) = &o.error_id {
                    eprintln!("  error_id: {}", esc(id));
                }
            } else if o.state == Some(TaskState::Canceled) {
                if let Some(origin) = o.cancel_origin {
                    eprintln!("  canceled: {}", origin.as_str());
                }
                if let Some(t) = &o.text {
                    eprintln!("  {}", esc(t));
                }
            } else if o
                .state
                .is_some_and(|s| s.is_interrupted() || s == TaskState::Rejected)
                && let Some(t) = &o.text
            {
                eprintln!("  {}", esc(t));
            }
        }
        Channel::Message => {}
        _ => {
            let what = o.error.map_or(o.channel.as_str(), |e| e.as_str());
            eprintln!(
                "{} {what}: {} (retry: {})",
                o.channel.as_str(),
                esc(o
                    .message
                    .as_deref()
                    .or(o.body_excerpt.as_deref())
                    .unwrap_or("")),
                o.retry.as_str()
            );
            if let Some(h) = &o.hint {
                eprintln!("  hint: {}", esc(h));
            }
        }
    }
    if let Some(h) = &o.remote_hint {
        let pairs: Vec<String> = h.pairs.iter().map(|(k, v)| format!("{k}={v}")).collect();
        eprintln!(
            "  remote hint: {}{}",
            esc(&pairs.join("; ")),
            if h.retryable == Some(false) {
                " (the remote asks not to retry)"
            } else {
                ""
            }
        );
    }
    eprintln!(
        "  traceparent {}  jsonrpc id {}  {} ms",
        k.traceparent,
        esc(k.jsonrpc_id.as_deref().unwrap_or("-")),
        k.elapsed.as_millis()
    );
}

/// A stream must run this long before the progress line appears ("long streams").
const PROGRESS_AFTER: Duration = Duration::from_secs(1);
/// How often the progress line is redrawn while the stream is quiet.
const PROGRESS_TICK: Duration = Duration::from_millis(250);

/// What the progress line shows, shared with the ticker thread.
struct ProgressState {
    /// The line is on the terminal now.
    shown: bool,
    events: u64,
    /// A partial line of the agent's text is pending on standard output.
    open_line: bool,
    done: bool,
}

/// The progress line on standard error (only when it is a terminal and `--json` is off):
/// `… <n> events, <s> s`, redrawn in place after each event and every 250 ms while the
/// stream is quiet (a long task sends keep-alives, not events). Every other output is written
/// under the same lock after erasing the line, so state lines and the agent's text are never
/// mixed into it, and a partial text line on a terminal standard output is never erased.
struct Progress {
    shared: std::sync::Arc<(std::sync::Mutex<ProgressState>, std::sync::Condvar)>,
    ticker: Option<std::thread::JoinHandle<()>>,
}

/// Erases the line if it is drawn.
fn progress_clear(st: &mut ProgressState) {
    if st.shown {
        eprint!("\r\x1b[2K");
        let _ = std::io::stderr().flush();
        st.shown = false;
    }
}

/// Draws the line once the stream has run for [`PROGRESS_AFTER`].
fn progress_draw(st: &mut ProgressState, started: Instant, stdout_tty: bool) {
    let elapsed = started.elapsed();
    if st.done || elapsed < PROGRESS_AFTER || (st.open_line && stdout_tty) {
        return;
    }
    eprint!(
        "\r\x1b[2K… {} events, {:.1} s",
        st.events,
        elapsed.as_secs_f64()
    );
    let _ = std::io::stderr().flush();
    st.shown = true;
}

impl Progress {
    fn start(on: bool) -> Progress {
        let shared = std::sync::Arc::new((
            std::sync::Mutex::new(ProgressState {
                shown: false,
                events: 0,
                open_line: false,
                done: false,
            }),
            std::sync::Condvar::new(),
        ));
        let ticker = on.then(|| {
            let shared = std::sync::Arc::clone(&shared);
            let started = Instant::now();
            let stdout_tty = std::io::stdout().is_terminal();
            std::thread::spawn(move || {
                let (lock, cv) = &*shared;
                let mut st = lock.lock().unwrap_or_else(|e| e.into_inner());
                while !st.done {
                    progress_draw(&mut st, started, stdout_tty);
                    st = cv
                        .wait_timeout(st, PROGRESS_TICK)
                        .unwrap_or_else(|e| e.into_inner())
                        .0;
                }
            })
        });
        Progress { shared, ticker }
    }

    /// Locks the terminal for other output, the progress line erased.
    fn output(&self) -> std::sync::MutexGuard<'_, ProgressState> {
        let mut st = self.shared.0.lock().unwrap_or_else(|e| e.into_inner());
        progress_clear(&mut st);
        st
    }

    /// Erases the line for good and stops the ticker.
    fn stop(mut self) {
        {
            let mut st = self.output();
            st.done = true;
        }
        self.shared.1.notify_all();
        if let Some(t) = self.ticker.take() {
            let _ = t.join();
        }
    }
}

/// Shows a stream as it arrives; with `wait` (`a2a stream --wait`), a stream that ends
/// before its task settled and cannot be resumed continues as polls
/// ([`Client::wait_after_stream`]), whose result is the command's.
fn stream(c: &Common, s: StreamCall, wait: Option<(&Client, WaitConfig)>) -> i32 {
    let progress = Progress::start(!c.json && std::io::stderr().is_terminal());
    let mut last_state: Option<TaskState> = None;
    let mut out = std::io::stdout();
    let mut parts_seen = 0usize;
    for ev in s {
        let mut st = progress.output();
        let written = match ev {
            StreamEvent::Item(item) => {
                st.events += 1;
                if c.json {
                    writeln!(out, "{}", item_json(&item)).and_then(|()| out.flush())
                } else {
                    // Writes to standard output end the process quietly when the reader is
                    // gone (`checked`); a file that cannot be saved is reported and counted.
                    human_item(
                        c,
                        &item,
                        &mut out,
                        &mut st.open_line,
                        &mut last_state,
                        &mut parts_seen,
                    );
                    Ok(())
                }
            }
            StreamEvent::Resubscribing { task_id, attempt } => {
                if c.json {
                    writeln!(
                        out,
                        "{}",
                        serde_json::json!({"resubscribing": task_id, "attempt": attempt})
                    )
                    .and_then(|()| out.flush())
                } else {
                    eprintln!(
                        "stream cut; resubscribing to task {} (attempt {attempt})",
                        esc(&task_id)
                    );
                    Ok(())
                }
            }
            StreamEvent::End(end) => {
                if st.open_line {
                    writeln!(out).unwrap_or_else(|e| stdout_failed(&e));
                }
                drop(st);
                progress.stop();
                if let Some((client, w)) = wait
                    && let Some(polled) = poll_after_stream(c, client, &end, w)
                {
                    return polled;
                }
                let agent = end.correlation.agent.clone();
                let code = finish_stream(c, &end, &agent);
                return if c.answer.borrow().not_saved() > 0 {
                    code.max(EXIT_TRANSPORT)
                } else {
                    code
                };
            }
        };
        if let Err(e) = written {
            // The reader is gone (`| head -1`): stop here, quietly; the stream is dropped
            // with the process, and no resubscription or retry starts.
            drop(st);
            progress.stop();
            stdout_failed(&e);
        }
    }
    progress.stop();
    EXIT_TRANSPORT
}

/// `a2a stream --wait`: the poll loop after a stream that left its task unsettled and
/// could not be resumed, announced on standard error (and as a `{"fallback":"poll",...}`
/// line with `--json`); `None` when the stream's result stands.
fn poll_after_stream(c: &Common, client: &Client, end: &StreamFinal, w: WaitConfig) -> Option<i32> {
    let (task, w) = client.stream_fallback(end, w, &c.opts)?;
    let why = end.outcome.message.clone().unwrap_or_else(|| {
        format!(
            "task {}",
            end.outcome.state.map_or("unknown", |s| s.as_str())
        )
    });
    if c.json {
        outln!(
            "{}",
            serde_json::json!({"fallback": "poll", "task_id": task, "stream_outcome": why})
        );
    }
    eprintln!(
        "a2a stream: the stream ended before task {} settled ({}); polling it",
        esc(&task),
        esc(&why)
    );
    Some(unary(c, client, client.wait_task(&task, w, &c.opts)))
}

fn finish_stream(c: &Common, end: &StreamFinal, agent: &str) -> i32 {
    if c.json {
        let kind = end.kind.map_or("not_opened", |k| k.as_str());
        outln!(
            "{}",
            with_answer(
                with_correlation(
                    &end.outcome,
                    Some(&end.correlation),
                    &[
                        ("end", Value::from(kind)),
                        ("resubscribes", Value::from(end.resubscribes)),
                        ("fetched_by_get", Value::from(end.fetched_by_get)),
                        ("dropped_events", Value::from(end.dropped_events)),
                    ]
                ),
                &[("unreadable_events", Value::from(end.unreadable_events))],
                end.answer.as_ref().map(a2a_core::answer::to_json)
            )
        );
    } else {
        if end.fetched_by_get
            && let Some(a) = &end.answer
        {
            cmd_answer::print_answer(&mut std::io::stdout().lock(), a, &mut c.answer.borrow_mut());
        }
        eprintln!("stream {}", end.kind.map_or("not opened", |k| k.as_str()));
        if end.unreadable_events > 0 {
            eprintln!(
                "  warning: {} event(s) could not be read (see the [malformed] lines above); the answer is incomplete{}",
                end.unreadable_events,
                end.correlation
                    .task_id
                    .as_deref()
                    .map(|t| format!(": `a2a get` task {} for the full result", esc(t)))
                    .unwrap_or_default()
            );
        }
        if end.dropped_events > 0 {
            eprintln!(
                "  warning: {} event(s) dropped for exceeding the event size limit (--max-event); the output above is incomplete{}",
                end.dropped_events,
                end.correlation
                    .task_id
                    .as_deref()
                    .map(|t| format!(": `a2a get` task {} for the full result", esc(t)))
                    .unwrap_or_default()
            );
        }
        report(&end.outcome, &end.correlation);
    }
    warn_leak(agent, &end.outcome);
    if c.model_text
        && let Some(line) = model_text(agent, &end.outcome)
    {
        eprintln!("{line}");
    }
    end.exit_code()
}

/// Prints one stream item for a human: text chunks as they come (a line ends with the
/// artifact's last chunk), data and file parts on lines of their own; states on standard
/// error.
/// A write to standard output: a reader that went away (`| head -1`) ends the command here,
/// quietly, with no further call ([`stdout_failed`]).
fn checked(r: std::io::Result<()>) {
    if let Err(e) = r {
        stdout_failed(&e);
    }
}

fn human_item(
    c: &Common,
    item: &StreamItem,
    out: &mut std::io::Stdout,
    open_line: &mut bool,
    last_state: &mut Option<TaskState>,
    parts_seen: &mut usize,
) {
    let terminal = c.answer.borrow().terminal();
    match item.kind {
        StreamItemKind::ArtifactUpdate | StreamItemKind::Message => {
            let parts = item
                .event
                .as_deref()
                .map_or(&[][..], cmd_answer::event_parts);
            let message = item.kind == StreamItemKind::Message;
            for p in parts {
                if let Some(t) = p.as_text() {
                    let t = crate::escape::answer(t, terminal);
                    checked(write!(out, "{t}"));
                    *open_line = !t.ends_with('\n');
                    if message && *open_line {
                        checked(writeln!(out));
                        *open_line = false;
                    }
                    *parts_seen += 1;
                } else {
                    if *open_line {
                        checked(writeln!(out));
                        *open_line = false;
                    }
                    cmd_answer::print_parts(
                        out,
                        std::slice::from_ref(p),
                        &mut c.answer.borrow_mut(),
                        parts_seen,
                    );
                }
            }
            if item.last_chunk && *open_line {
                checked(writeln!(out));
                *open_line = false;
            }
            checked(out.flush());
        }
        StreamItemKind::Task | StreamItemKind::StatusUpdate => {
            if item.outcome.state != *last_state {
                *last_state = item.outcome.state;
                if let Some(s) = item.outcome.state {
                    eprintln!("[{}]", s.as_str());
                }
            }
        }
        // Errors, malformed events, and kinds a newer core may add: say what arrived.
        _ => {
            eprintln!(
                "[{}] {}",
                item.kind.as_str(),
                esc(item.outcome.message.as_deref().unwrap_or(""))
            );
        }
    }
}

fn item_json(item: &StreamItem) -> String {
    let mut s = String::with_capacity(256);
    item.outcome.write_json_fields(&mut s);
    let extra = serde_json::json!({
        "item": item.kind.as_str(),
        "final": item.final_flag,
        "artifact_id": item.artifact_id,
        "append": item.append,
        "last_chunk": item.last_chunk,
        "ends_stream": item.ends_stream,
    });
    if let Value::Object(m) = extra {
        for (k, v) in m {
            s.push_str(&format!(",{}:{}", Value::from(k), v));
        }
    }
    s.push('}');
    with_answer(
        s,
        &[],
        item.event.as_deref().map(a2a_core::answer::event_to_json),
    )
}

/// Appends, after every existing key of a `--json` object, the answer's keys: `extra`, then
/// `result` (the normalized answer, or the stream item's event; `null` when there is none).
/// The one place the answer enters the CLI's JSON.
fn with_answer(mut json: String, extra: &[(&str, Value)], result: Option<Value>) -> String {
    if json.ends_with('}') {
        json.pop();
        for (key, v) in extra {
            json.push_str(&format!(",{}:{}", Value::from(*key), v));
        }
        json.push_str(",\"result\":");
        json.push_str(&result.unwrap_or(Value::Null).to_string());
        json.push('}');
    }
    json
}

fn correlation_json(k: &Correlation) -> Value {
    serde_json::json!({
        "agent": k.agent, "method": k.method, "jsonrpc_id": k.jsonrpc_id,
        "message_id": k.message_id, "task_id": k.task_id, "context_id": k.context_id,
        "error_id": k.error_id, "traceparent": k.traceparent,
        "idempotency_key": k.idempotency_key,
        "elapsed_ms": k.elapsed.as_millis() as u64, "attempts": k.attempts,
    })
}

/// The `a2a classify` object with `correlation` (and any extra keys) appended.
fn with_correlation(o: &Outcome, k: Option<&Correlation>, extra: &[(&str, Value)]) -> String {
    let mut s = String::with_capacity(512);
    o.write_json_fields(&mut s);
    for (key, v) in extra {
        s.push_str(&format!(",{}:{}", Value::from(*key), v));
    }
    s.push_str(",\"correlation\":");
    s.push_str(&k.map_or(Value::Null, correlation_json).to_string());
    s.push('}');
    s
}
