//! `a2a-testkit conformance`: runs an A2A client through the fault server's scenarios and
//! reports, per case, what the client did against what a correct client does.
//!
//! # Contract
//! `a2a-testkit conformance (--client-cmd CMD | --client a2a) [--protocol 0.3|1.0] [--name NAME]
//! [--a2a-bin PATH] [--deadline S] [--jobs N] [--only ID,ID...] [--json FILE] [--markdown FILE]
//! [--strict]`
//!
//! A fault server is started in this process on 127.0.0.1, speaking `--protocol` (default
//! 0.3). In 0.3 its cards list their 0.3 JSON-RPC interface both in the 0.3 form (`url`) and
//! in the 1.0 form (`supportedInterfaces`, protocol version 0.3), as a 1.x SDK server in 0.3
//! compatibility publishes them, except the `version-0.3-only-server` case's (pure 0.3). In
//! 1.0 every scenario speaks A2A 1.0 over JSON-RPC (a card with one interface at protocol
//! version 1.0, 1.0 methods with `A2A-Version: 1.0`, 1.0 results, events and errors: see
//! [`crate::fault_server`]), except the `version-0.3-only-server` case's, which stays 0.3:
//! the two version cases keep their meaning in both runs. For every case (see [`cases`])
//! the client command runs once, through `sh -c`, with `{url}` (the scenario's base URL,
//! `http://127.0.0.1:<port>/<scenario>`; the card is under it at
//! `/.well-known/agent-card.json`), `{text}` (the message) and `{mode}` (`send` or `stream`)
//! replaced by shell-quoted values. The client is expected to fetch the card, make the call
//! and print what it got, exiting 0 only on success. It runs at most `--deadline` seconds
//! (default 90: longer than
//! the project's own default bounds of 3 s connect, 45 s call and 60 s stream silence): a client still running then is killed (its whole process group) and the
//! case records it. What the kit judges: the requests the server received for the scenario
//! (methods, messageIds, Idempotency-Keys, resubscribes, gets, times), the exit status, the
//! time to exit and the output (standard output and error, at most 256 KiB each).
//!
//! `--client a2a` is the built-in adapter of the project's CLI:
//! `<a2a> {mode} {url} {text} --allow-http` with the CLI's default timeouts (`--a2a-bin`,
//! else `$A2A_BIN`, else `a2a` on PATH). The Markdown table goes to standard output (or
//! `--markdown FILE`), the JSON document to `--json FILE`. Exit status: 0 when every case
//! ran (1 with `--strict` when a case's verdict is `fail`), 2 on a usage error.
//! Cases run `--jobs` at a time (default 4): each has its own scenario, so they do not
//! share counters.

mod cases;

use std::io::Read;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use a2a_core::version::ProtocolVersion;
use serde_json::{Value, json};

use crate::args::{Args, EXIT_USAGE};
use crate::fault_server;
use cases::{Case, Observed, Verdict};

const USAGE: &str = "a2a-testkit conformance (--client-cmd CMD | --client a2a) [--protocol 0.3|1.0] [--name NAME] [--a2a-bin PATH] [--deadline S] [--jobs N] [--only ID,ID...] [--json FILE] [--markdown FILE] [--strict]";

/// Output kept per stream of the client.
const OUTPUT_LIMIT: u64 = 256 * 1024;

/// The parsed command line.
struct Options {
    cmd: String,
    protocol: ProtocolVersion,
    name: String,
    deadline: Duration,
    jobs: usize,
    only: Option<Vec<String>>,
    json: Option<String>,
    markdown: Option<String>,
    strict: bool,
}

fn parse(mut args: Args) -> Result<Options, String> {
    let client_cmd = args.value("--client-cmd")?;
    let client = args.value("--client")?;
    let a2a_bin = args.value("--a2a-bin")?;
    let name = args.value("--name")?;
    let protocol = match args.value("--protocol")? {
        Some(p) => fault_server::parse_protocol(&p)?,
        None => ProtocolVersion::V0_3,
    };
    let deadline = args.parsed::<u64>("--deadline")?.unwrap_or(90);
    let jobs = args.parsed::<usize>("--jobs")?.unwrap_or(4);
    let only = args
        .value("--only")?
        .map(|s| s.split(',').map(str::to_owned).collect::<Vec<_>>());
    let json = args.value("--json")?;
    let markdown = args.value("--markdown")?;
    let strict = args.flag("--strict");
    args.finish()?;
    if deadline == 0 || jobs == 0 {
        return Err("--deadline and --jobs must be at least 1".to_owned());
    }
    let (cmd, default_name) = match (client_cmd, client.as_deref()) {
        (Some(cmd), None) => (cmd, "client".to_owned()),
        (None, Some("a2a")) => {
            let bin = a2a_bin
                .or_else(|| std::env::var("A2A_BIN").ok())
                .unwrap_or_else(|| "a2a".to_owned());
            (
                format!("{} {{mode}} {{url}} {{text}} --allow-http", quote(&bin)),
                "a2a CLI".to_owned(),
            )
        }
        (None, Some(other)) => return Err(format!("unknown --client {other:?} (built-in: a2a)")),
        (Some(_), Some(_)) => return Err("give --client-cmd or --client, not both".to_owned()),
        (None, None) => return Err("give --client-cmd CMD or --client a2a".to_owned()),
    };
    if !cmd.contains("{url}") {
        return Err("the client command must contain {url}".to_owned());
    }
    let all = cases::all();
    if let Some(ids) = &only
        && let Some(bad) = ids
            .iter()
            .find(|id| !all.iter().any(|c| c.id == id.as_str()))
    {
        return Err(format!("--only: no case {bad:?}"));
    }
    Ok(Options {
        cmd,
        protocol,
        name: name.unwrap_or(default_name),
        deadline: Duration::from_secs(deadline),
        jobs,
        only,
        json,
        markdown,
        strict,
    })
}

/// Quotes a word for `sh` (single quotes; a single quote itself as `'\''`).
fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// Runs `a2a-testkit conformance`.
pub fn run(args: Args) -> i32 {
    let opts = match parse(args) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("a2a-testkit conformance: {e}\nusage: {USAGE}");
            return EXIT_USAGE;
        }
    };
    let running = match fault_server::start_for_conformance(opts.protocol) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("a2a-testkit conformance: cannot start the fault server: {e}");
            return 1;
        }
    };
    let server = Arc::clone(&running.server);
    let cases: Vec<Case> = cases::all()
        .into_iter()
        .filter(|c| {
            opts.only
                .as_ref()
                .is_none_or(|ids| ids.iter().any(|id| id == c.id))
        })
        .collect();
    let started = Instant::now();
    // Cases are taken from a shared index by `jobs` worker threads.
    let next = Mutex::new(0usize);
    let results: Mutex<Vec<Option<Value>>> = Mutex::new(vec![None; cases.len()]);
    std::thread::scope(|scope| {
        for _ in 0..opts.jobs.min(cases.len()) {
            scope.spawn(|| {
                loop {
                    let i = {
                        let mut n = next.lock().unwrap_or_else(|e| e.into_inner());
                        let i = *n;
                        *n += 1;
                        i
                    };
                    let Some(case) = cases.get(i) else { break };
                    let row = run_case(&server, case, &opts);
                    eprintln!(
                        "a2a-testkit conformance: {} {}: {}",
                        opts.name, case.id, row["verdict"]
                    );
                    results.lock().unwrap_or_else(|e| e.into_inner())[i] = Some(row);
                }
            });
        }
    });
    let rows: Vec<Value> = results
        .into_inner()
        .unwrap_or_else(|e| e.into_inner())
        .into_iter()
        .flatten()
        .collect();
    let doc = json!({
        "client": opts.name,
        "command": opts.cmd,
        "protocol": opts.protocol.as_str(),
        "deadline_s": opts.deadline.as_secs(),
        "kit": format!("a2a-testkit {}", env!("CARGO_PKG_VERSION")),
        "seconds": started.elapsed().as_secs_f64(),
        "rows": rows,
    });
    let md = markdown(&doc);
    let written = (|| -> std::io::Result<()> {
        if let Some(path) = &opts.json {
            std::fs::write(path, format!("{:#}\n", doc))?;
        }
        match &opts.markdown {
            Some(path) => std::fs::write(path, &md)?,
            None => print!("{md}"),
        }
        Ok(())
    })();
    if let Err(e) = written {
        eprintln!("a2a-testkit conformance: cannot write the report: {e}");
        return 1;
    }
    drop(running);
    let failed = rows.iter().any(|r| r["verdict"] == Verdict::Fail.word());
    if opts.strict && failed { 1 } else { 0 }
}

/// Runs the client once for `case` and judges what it did.
fn run_case(server: &fault_server::Server, case: &Case, opts: &Options) -> Value {
    let url = if case.blackholed {
        format!("{}/{}", server.full_url(), case.scenario)
    } else {
        format!("{}/{}", server.base(), case.scenario)
    };
    let cmd = opts
        .cmd
        .replace("{url}", &quote(&url))
        .replace("{text}", &quote(case.text))
        .replace("{mode}", case.mode.word());
    let started = Instant::now();
    let (exit, killed, output) = match spawn_bounded(&cmd, opts.deadline) {
        Ok(r) => r,
        Err(e) => (
            None,
            false,
            format!("a2a-testkit: cannot run the client: {e}"),
        ),
    };
    let elapsed_ms = started.elapsed().as_millis() as u64;
    // A request in flight when the client stopped is still counted: give the server's
    // threads a moment to record it.
    std::thread::sleep(Duration::from_millis(100));
    let counters = server.scenario_json(case.scenario);
    let watched_requests = if case.watch.is_empty() {
        0
    } else {
        server.scenario_json(case.watch)["requests"]
            .as_u64()
            .unwrap_or(0)
    };
    let observed = Observed {
        exit,
        killed,
        elapsed_ms,
        output,
        counters,
        watched_requests,
        deadline_s: opts.deadline.as_secs(),
    };
    let j = (case.judge)(case, &observed);
    let seen: Vec<Value> = observed.counters["seen"]
        .as_array()
        .map(|s| {
            s.iter()
                .map(|e| {
                    json!({"method": e["method"], "message_id": e["message_id"],
                           "idempotency_key": e["idempotency_key"], "a2a_version": e["a2a_version"],
                           "at_ms": e["at_ms"]})
                })
                .collect()
        })
        .unwrap_or_default();
    json!({
        "id": case.id,
        "scenario": case.scenario,
        "mode": case.mode.word(),
        "expect": case.expect,
        "cite": case.cite,
        "verdict": j.verdict.word(),
        "observed": j.observed,
        "exit": exit,
        "killed_at_deadline": killed,
        "elapsed_ms": elapsed_ms,
        "requests": observed.counters["requests"],
        "cards": observed.counters["cards"],
        "messages": observed.counters["messages"],
        "resubscribes": observed.counters["resubscribes"],
        "gets": observed.counters["gets"],
        "watched_requests": watched_requests,
        "calls": seen,
        "output_tail": tail(&observed.output, 600),
    })
}

/// The last `n` characters of `s` (whole characters).
fn tail(s: &str, n: usize) -> String {
    let count = s.chars().count();
    s.chars().skip(count.saturating_sub(n)).collect()
}

/// Runs `cmd` through `sh -c` in its own process group, killing the group at `deadline`.
/// Returns the exit status (`None` when killed or signalled), whether it was killed, and the
/// output (standard output, then standard error).
fn spawn_bounded(cmd: &str, deadline: Duration) -> std::io::Result<(Option<i32>, bool, String)> {
    use std::os::unix::process::CommandExt;
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(cmd)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn()?;
    let reader = |r: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            if let Some(r) = r {
                let mut limited = r.take(OUTPUT_LIMIT);
                let _ = limited.read_to_end(&mut buf);
                // Drain the rest so the client never blocks on a full pipe.
                let mut rest = limited.into_inner();
                let _ = std::io::copy(&mut rest, &mut std::io::sink());
            }
            buf
        })
    };
    let out = reader(
        child
            .stdout
            .take()
            .map(|s| Box::new(s) as Box<dyn Read + Send>),
    );
    let err = reader(
        child
            .stderr
            .take()
            .map(|s| Box::new(s) as Box<dyn Read + Send>),
    );
    let end = Instant::now() + deadline;
    let mut killed = false;
    let status = loop {
        if let Some(st) = child.try_wait()? {
            break st;
        }
        if Instant::now() >= end {
            killed = true;
            kill_group(child.id());
            break child.wait()?;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    // A grandchild may still hold the pipes after `sh` exits: end the group so the readers
    // finish (it is ours; nothing else is in it).
    kill_group(child.id());
    let out = out.join().unwrap_or_default();
    let err = err.join().unwrap_or_default();
    let mut output = String::from_utf8_lossy(&out).into_owned();
    output.push_str(&String::from_utf8_lossy(&err));
    Ok((if killed { None } else { status.code() }, killed, output))
}

/// Sends SIGKILL to the process group `pgid` (the client's, made by `process_group(0)`).
fn kill_group(pgid: u32) {
    // std has no killpg and the kit takes no libc dependency: kill(1) does it.
    let _ = Command::new("kill")
        .args(["-KILL", "--", &format!("-{pgid}")])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
}

/// The Markdown table of one client's run.
fn markdown(doc: &Value) -> String {
    let mut s = format!(
        "## {}\n\nCommand: `{}`; protocol {}; deadline {} s per case; {:.0} s in all.\n\n| case | verdict | what a correct client does | observed |\n|---|---|---|---|\n",
        doc["client"].as_str().unwrap_or(""),
        doc["command"].as_str().unwrap_or("").replace('|', "\\|"),
        doc["protocol"].as_str().unwrap_or(""),
        doc["deadline_s"],
        doc["seconds"].as_f64().unwrap_or(0.0),
    );
    for r in doc["rows"].as_array().into_iter().flatten() {
        let cell = |k: &str| r[k].as_str().unwrap_or("").replace('|', "\\|");
        s.push_str(&format!(
            "| `{}` | {} | {} ([source]({})) | {} |\n",
            cell("id"),
            cell("verdict"),
            cell("expect"),
            cell("cite"),
            cell("observed"),
        ));
    }
    s
}
