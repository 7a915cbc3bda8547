//! `a2a classify` and `a2a error-id`.
//!
//! `a2a classify --status CODE [--content-type TYPE] [--protocol 0.3|1.0]
//! [--binding jsonrpc|http+json] [--method NAME] [--request-id ID] [--header 'Name: value']...
//! [--stream]` reads a response body from standard input and prints one JSON object with the
//! keys of [`a2a_core::outcome::Outcome::to_json`]; the exit status is the outcome's
//! (0 completed or message, 3 transport/http/malformed/truncated, 4 protocol, 5 failed,
//! 6 canceled/rejected/input-required/auth-required, 7 submitted/working; 2 usage).
//! `--version` is the old spelling of `--protocol`, still accepted (`a2a --version` is the
//! program's version).
//!
//! With `--stream` the body is fed through the SSE decoder and the stream tracker as it is
//! read: one object per stream item (with an extra key `"item"`: `task`, `message`,
//! `status-update`, `artifact-update`, `error` or `malformed`), flushed as it arrives, then
//! the end-of-stream outcome (with an extra key `"end"`: `completed`, `interrupted`,
//! `truncated`, `error` or `not_a_stream`). A body whose content type is given and is not
//! `text/event-stream`, or whose status is not 2xx, is classified whole (an up-front error).
//!
//! `a2a error-id` reads text from standard input and prints the ADK error id (exit 0), or
//! prints nothing and exits 1.
use std::io::{self, Read, Write};
use std::time::Instant;

use a2a_core::classify::{Asked, ResponseInfo, classify, is_event_stream};
use a2a_core::error_id::extract_error_id;
use a2a_core::outcome::json_string;
use a2a_core::sse::{Decoder, Item};
use a2a_core::stream::{StreamItem, StreamTracker};
use a2a_core::time::Millis;
use a2a_core::version::{Binding, ProtocolVersion};

use crate::args::{Args, EXIT_CLOSED_STDOUT, outln, usage_error};

struct Opts {
    status: u16,
    content_type: Option<String>,
    retry_after: Option<String>,
    version: Option<ProtocolVersion>,
    binding: Option<Binding>,
    method: Option<String>,
    request_id: Option<String>,
    stream: bool,
}

fn parse(mut args: Args) -> Result<Opts, String> {
    let stream = args.flag("--stream");
    let status = args
        .parsed::<u16>("--status")?
        .ok_or("--status is required")?;
    if !(100..=999).contains(&status) {
        return Err(format!("--status {status}: not an HTTP status"));
    }
    let mut content_type = args.value("--content-type")?;
    // `--protocol`, as the network commands spell it; `--version` is the old spelling.
    let old = args.value("--version")?.map(|v| ("--version", v));
    let version = match args.value("--protocol")?.map(|v| ("--protocol", v)).or(old) {
        None => None,
        Some((name, v)) => Some(ProtocolVersion::parse(&v).map_err(|e| format!("{name}: {e}"))?),
    };
    let binding = match args.value("--binding")? {
        None => None,
        Some(b) => Some(
            Binding::parse(&b)
                .ok_or_else(|| format!("--binding {b:?}: expected jsonrpc or http+json"))?,
        ),
    };
    let method = args.value("--method")?;
    let request_id = args.value("--request-id")?;
    let mut retry_after = None;
    for h in args.values("--header")? {
        let (name, value) = h
            .split_once(':')
            .ok_or_else(|| format!("--header {h:?}: expected 'Name: value'"))?;
        let (name, value) = (name.trim(), value.trim().to_owned());
        if name.eq_ignore_ascii_case("content-type") {
            content_type.get_or_insert(value);
        } else if name.eq_ignore_ascii_case("retry-after") {
            retry_after = Some(value);
        }
    }
    args.finish()?;
    Ok(Opts {
        status,
        content_type,
        retry_after,
        version,
        binding,
        method,
        request_id,
        stream,
    })
}

/// Runs `a2a classify`.
pub fn run_classify(args: Args) -> i32 {
    let opts = match parse(args) {
        Ok(o) => o,
        Err(msg) => return usage_error("classify", &msg),
    };
    let result = if opts.stream && should_stream(&opts) {
        run_stream(&opts, io::stdin().lock(), io::stdout().lock())
    } else {
        run_whole(&opts, io::stdin().lock(), io::stdout().lock())
    };
    match result {
        Ok(code) => code,
        // The reader went away (`| head -1`): stop quietly.
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => EXIT_CLOSED_STDOUT,
        Err(e) => {
            eprintln!("a2a classify: {e}");
            3
        }
    }
}

fn should_stream(o: &Opts) -> bool {
    (200..300).contains(&o.status)
        && o.content_type
            .as_deref()
            .is_none_or(|ct| is_event_stream(Some(ct)))
}

fn asked(o: &Opts) -> Asked<'_> {
    Asked {
        version: o.version,
        binding: o.binding,
        method: o.method.as_deref(),
        request_id: o.request_id.as_deref(),
    }
}

fn run_whole(o: &Opts, mut input: impl Read, mut out: impl Write) -> io::Result<i32> {
    let mut body = Vec::new();
    input.read_to_end(&mut body)?;
    let info = ResponseInfo {
        status: o.status,
        content_type: o.content_type.as_deref(),
        retry_after: o.retry_after.as_deref(),
        body: &body,
        asked: asked(o),
        // The CLI has a clock: a Retry-After HTTP-date becomes seconds from now.
        now_unix_seconds: std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .ok()
            .map(|d| d.as_secs()),
    };
    let outcome = classify(&info);
    writeln!(out, "{}", outcome.to_json())?;
    out.flush()?;
    Ok(outcome.exit_code())
}

fn run_stream(o: &Opts, mut input: impl Read, out: impl Write) -> io::Result<i32> {
    let mut out = io::BufWriter::new(out);
    let start = Instant::now();
    let now = || Millis(u64::try_from(start.elapsed().as_millis()).unwrap_or(u64::MAX));
    let mut tracker = StreamTracker::new(asked(o), None, now());
    let mut decoder = Decoder::new();
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = match input.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        tracker.on_bytes(now());
        let mut feed = decoder.feed(&buf[..n]);
        loop {
            match feed.next_item() {
                Ok(None) => break,
                Ok(Some(Item::Event(ev))) => {
                    if let Some(item) = tracker.on_event(now(), ev.event_type, ev.data, Some(ev.id))
                    {
                        write_item(&mut out, &item)?;
                    }
                }
                Ok(Some(Item::Comment(_))) => tracker.on_comment(now()),
                Ok(Some(_)) => {}
                Err(e) => eprintln!("a2a classify: {e}"),
            }
        }
        out.flush()?;
    }
    let finish = decoder.finish();
    if let Some(ev) = finish.event
        && let Some(item) = tracker.on_event(now(), ev.event_type, ev.data, Some(ev.id))
    {
        write_item(&mut out, &item)?;
    }
    let end = tracker.finish();
    let outcome = end.outcome.with_http_status(o.status);
    let mut s = String::new();
    outcome.write_json_fields(&mut s);
    s.push_str(",\"end\":");
    json_string(&mut s, end.kind.as_str());
    s.push('}');
    writeln!(out, "{s}")?;
    out.flush()?;
    Ok(outcome.exit_code())
}

fn write_item(out: &mut impl Write, item: &StreamItem) -> io::Result<()> {
    let mut s = String::new();
    let mut o = item.outcome.clone();
    o.http_status.get_or_insert(200);
    o.write_json_fields(&mut s);
    s.push_str(",\"item\":");
    json_string(&mut s, item.kind.as_str());
    s.push('}');
    writeln!(out, "{s}")
}

/// Runs `a2a error-id`.
pub fn run_error_id(args: Args) -> i32 {
    if let Err(msg) = args.finish() {
        return usage_error("error-id", &msg);
    }
    let mut text = Vec::new();
    if let Err(e) = io::stdin().lock().read_to_end(&mut text) {
        eprintln!("a2a error-id: {e}");
        return 3;
    }
    let text = String::from_utf8_lossy(&text);
    match extract_error_id(&text) {
        Some(id) => {
            outln!("{id}");
            0
        }
        None => 1,
    }
}
