//! The conformance cases: which fault-server scenario each one uses, what a correct client
//! does there (with the page that says so), and the judge that compares what was observed.
//!
//! Judges look only at what the kit saw: the requests the server received (methods, message
//! ids, idempotency keys, times), the client's exit status, how long it ran and its output.
//! A verdict is `pass`, `warn` (allowed, but a correct client does better: the row says
//! what), `fail` (what the cited page rules out), or `not exercised` (the client never made
//! the call the case is about, for example it sent without streaming in a stream case).

use serde_json::Value;

/// Which call a case asks the client to make (`{mode}` in the client command).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// A non-streaming send (`message/send`, `SendMessage`).
    Send,
    /// A streaming send (`message/stream`, `SendStreamingMessage`).
    Stream,
}

impl Mode {
    /// The word substituted for `{mode}`.
    pub fn word(self) -> &'static str {
        match self {
            Mode::Send => "send",
            Mode::Stream => "stream",
        }
    }
}

/// A verdict on one case.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// What a correct client does.
    Pass,
    /// Allowed, but short of what a correct client does.
    Warn,
    /// Ruled out by the cited page.
    Fail,
    /// The client did not make the call the case is about.
    NotExercised,
}

impl Verdict {
    /// The word in the tables.
    pub fn word(self) -> &'static str {
        match self {
            Verdict::Pass => "pass",
            Verdict::Warn => "warn",
            Verdict::Fail => "fail",
            Verdict::NotExercised => "not exercised",
        }
    }
}

/// What the kit saw of one client run.
pub struct Observed {
    /// The exit status; `None` when the kit stopped the client at its deadline (or a signal
    /// ended it).
    pub exit: Option<i32>,
    /// Whether the kit killed the client at its deadline.
    pub killed: bool,
    /// Wall time from start to exit (or to the kill).
    pub elapsed_ms: u64,
    /// Standard output and standard error, joined (bounded).
    pub output: String,
    /// The scenario's counters and `seen` list (`GET /_counters/<scenario>`).
    pub counters: Value,
    /// Requests counted by a second scenario the case watches (a redirect's or drifted
    /// card's target), when it has one.
    pub watched_requests: u64,
    /// The kit's deadline, for the messages.
    pub deadline_s: u64,
}

/// One message request the server received (a send or a stream, either version).
struct MessageCall<'a> {
    method: &'a str,
    message_id: Option<&'a str>,
    key: Option<&'a str>,
    at_ms: u64,
}

impl Observed {
    fn count(&self, key: &str) -> u64 {
        self.counters[key].as_u64().unwrap_or(0)
    }

    fn messages(&self) -> Vec<MessageCall<'_>> {
        self.counters["seen"]
            .as_array()
            .map(|seen| {
                seen.iter()
                    .filter(|s| {
                        matches!(
                            s["method"].as_str(),
                            Some(
                                "message/send"
                                    | "message/stream"
                                    | "SendMessage"
                                    | "SendStreamingMessage"
                            )
                        )
                    })
                    .map(|s| MessageCall {
                        method: s["method"].as_str().unwrap_or(""),
                        message_id: s["message_id"].as_str(),
                        key: s["idempotency_key"].as_str(),
                        at_ms: s["at_ms"].as_u64().unwrap_or(0),
                    })
                    .collect()
            })
            .unwrap_or_default()
    }

    fn succeeded(&self) -> bool {
        self.exit == Some(0)
    }

    fn says(&self, needle: &str) -> bool {
        self.output.contains(needle)
    }

    /// A summary of the run for the `observed` column.
    fn summary(&self) -> String {
        let msgs = self.messages();
        let how = match (self.killed, self.exit) {
            (true, _) => format!("still running at the kit's {} s deadline", self.deadline_s),
            (false, Some(c)) => format!("exit {c} after {:.1} s", self.elapsed_ms as f64 / 1000.0),
            (false, None) => format!(
                "ended by a signal after {:.1} s",
                self.elapsed_ms as f64 / 1000.0
            ),
        };
        let mut s = format!("{how}; {} message request(s)", msgs.len());
        if let Some(first) = msgs.first() {
            s.push_str(&format!(" ({})", first.method));
        }
        for (what, key) in [
            ("resubscribe(s)", "resubscribes"),
            ("get(s)", "gets"),
            ("card fetch(es)", "cards"),
        ] {
            let n = self.count(key);
            if n > 0 || key == "cards" {
                s.push_str(&format!(", {n} {what}"));
            }
        }
        s
    }
}

/// The judgement of one case: verdict and what the client did, in words.
pub struct Judgement {
    /// The verdict.
    pub verdict: Verdict,
    /// What the client did (the summary, then the reason for the verdict).
    pub observed: String,
}

fn judged(o: &Observed, verdict: Verdict, why: impl Into<String>) -> Judgement {
    let why = why.into();
    Judgement {
        verdict,
        observed: if why.is_empty() {
            o.summary()
        } else {
            format!("{}: {why}", o.summary())
        },
    }
}

/// One conformance case.
pub struct Case {
    /// The stable id (a row of the tables).
    pub id: &'static str,
    /// The fault-server scenario (first path segment); the client is given
    /// `http://127.0.0.1:<port>/<scenario>` as the agent's base URL.
    pub scenario: &'static str,
    /// The client is given the full-backlog listener's URL instead of the scenario's (its
    /// connects time out: nothing, not even the card, can be fetched).
    pub blackholed: bool,
    /// Another scenario whose requests the case counts (`watched_requests`), or `""`.
    pub watch: &'static str,
    /// The call asked for.
    pub mode: Mode,
    /// The message text (`{text}`).
    pub text: &'static str,
    /// What a correct client does, in a sentence.
    pub expect: &'static str,
    /// The page and section that say so.
    pub cite: &'static str,
    /// Compares what was observed with `expect`.
    pub judge: fn(&Case, &Observed) -> Judgement,
}

const ERROR_ID: &str = "0f1e2d3c4b5a";

/// Success with the echoed text, one message request.
fn judge_success(c: &Case, o: &Observed) -> Judgement {
    let msgs = o.messages();
    if msgs.is_empty() {
        return judged(o, Verdict::Fail, "no message reached the server");
    }
    if c.mode == Mode::Stream && !msgs.iter().any(|m| is_stream(m.method)) {
        return judged(
            o,
            Verdict::NotExercised,
            "the client sent without streaming",
        );
    }
    if msgs.len() > 1 {
        return judged(o, Verdict::Fail, "the message was sent more than once");
    }
    if !o.succeeded() {
        return judged(
            o,
            Verdict::Fail,
            "a completed task was not reported as success",
        );
    }
    if !o.says(c.text) {
        return judged(
            o,
            Verdict::Fail,
            "exit 0 but the answer's text is not in the output",
        );
    }
    judged(o, Verdict::Pass, "")
}

fn is_stream(method: &str) -> bool {
    matches!(method, "message/stream" | "SendStreamingMessage")
}

/// Checks the rule of docs/outcomes.md §6 on the message requests: a resend carries the same
/// messageId and the same Idempotency-Key as the first attempt, unless `resend_allowed`
/// (the answer proved non-receipt). Returns the failure, if any.
fn blind_resend(o: &Observed, resend_allowed: bool) -> Option<String> {
    let msgs = o.messages();
    let first = msgs.first()?;
    if msgs.len() < 2 || resend_allowed {
        return None;
    }
    let keyed = first.key.is_some()
        && msgs
            .iter()
            .all(|m| m.key == first.key && m.message_id == first.message_id);
    if keyed {
        return None;
    }
    let same_id = msgs.iter().all(|m| m.message_id == first.message_id);
    Some(if same_id {
        format!(
            "resent {} time(s) with the same messageId but no Idempotency-Key",
            msgs.len() - 1
        )
    } else {
        format!(
            "resent {} time(s) with a new messageId (a second task for the agent)",
            msgs.len() - 1
        )
    })
}

/// The client must give up by itself, with a non-zero exit, and never resend blindly.
fn judge_gives_up(_c: &Case, o: &Observed) -> Judgement {
    if o.killed {
        return judged(o, Verdict::Fail, "never gave up (unbounded wait)");
    }
    if o.succeeded() {
        return judged(o, Verdict::Fail, "exit 0 although no answer came");
    }
    if let Some(why) = blind_resend(o, false) {
        return judged(o, Verdict::Fail, why);
    }
    judged(o, Verdict::Pass, "")
}

/// A JSON-RPC error: non-zero exit, the error's message or code shown, no blind resend.
fn judge_rpc_error(c: &Case, o: &Observed) -> Judgement {
    let base = judge_gives_up(c, o);
    if base.verdict != Verdict::Pass {
        return base;
    }
    if !(o.says("-32603") || o.says("internal error") || o.says("answered")) {
        return judged(
            o,
            Verdict::Warn,
            "failed, but neither the error's code nor its message is in the output",
        );
    }
    judged(o, Verdict::Pass, "")
}

/// An HTTP error status on a send. A resend is allowed without a key only after a 503 with
/// `Retry-After` (or a 429), and then not before the wait; otherwise only with the key.
fn judge_status(c: &Case, o: &Observed) -> Judgement {
    let proves_non_receipt = c.scenario == "status-503";
    let retry_after_ms = if c.scenario == "status-503" || c.scenario.ends_with("-ra") {
        Some(1000)
    } else {
        None
    };
    if o.killed {
        return judged(
            o,
            Verdict::Fail,
            "still retrying (or waiting) at the deadline: no bound on the attempts",
        );
    }
    if o.succeeded() {
        return judged(o, Verdict::Fail, "exit 0 although every attempt failed");
    }
    if let Some(why) = blind_resend(o, proves_non_receipt) {
        return judged(o, Verdict::Fail, why);
    }
    let msgs = o.messages();
    if let Some(wait) = retry_after_ms {
        // 50 ms of slack for the clocks of two processes.
        if let Some(w) = msgs
            .windows(2)
            .find(|w| w[1].at_ms + 50 < w[0].at_ms + wait)
        {
            return judged(
                o,
                Verdict::Fail,
                format!(
                    "resent {} ms after the answer said Retry-After: 1",
                    w[1].at_ms - w[0].at_ms
                ),
            );
        }
    }
    let code = &c.scenario["status-".len()..c.scenario.len().min("status-".len() + 3)];
    if !o.says(code) {
        return judged(
            o,
            Verdict::Warn,
            format!("failed, but the status {code} is not in the output"),
        );
    }
    judged(o, Verdict::Pass, "")
}

/// A redirect on the interface: never followed.
fn judge_redirect(c: &Case, o: &Observed) -> Judgement {
    if o.watched_requests > 0 {
        return judged(
            o,
            Verdict::Fail,
            format!(
                "followed the redirect ({} request(s) at the target)",
                o.watched_requests
            ),
        );
    }
    judge_gives_up(c, o)
}

/// A stream that stops before a terminal state: resubscribe (or get) and finish, never
/// resend; reporting the truncation without recovering is allowed but short.
fn judge_truncated(_c: &Case, o: &Observed) -> Judgement {
    let msgs = o.messages();
    if !msgs.iter().any(|m| is_stream(m.method)) {
        return judged(
            o,
            Verdict::NotExercised,
            "the client sent without streaming",
        );
    }
    if msgs.len() > 1 {
        return judged(
            o,
            Verdict::Fail,
            "sent the message again instead of resubscribing (a second task)",
        );
    }
    if o.killed {
        return judged(o, Verdict::Fail, "never finished");
    }
    let recovered = o.count("resubscribes") + o.count("gets") > 0;
    match (o.succeeded(), recovered) {
        (true, true) if o.says("part two") => {
            judged(o, Verdict::Pass, "resubscribed (or polled) and finished")
        }
        (true, true) => judged(
            o,
            Verdict::Fail,
            "exit 0 but the rest of the answer (\"part two\") is not in the output",
        ),
        (true, false) => judged(o, Verdict::Fail, "took the cut stream for a completed task"),
        (false, true) => judged(
            o,
            Verdict::Warn,
            "resubscribed (or polled) but did not finish",
        ),
        (false, false) => judged(
            o,
            Verdict::Warn,
            "reported the stream as broken without resubscribing",
        ),
    }
}

/// A stream that goes silent: give up (or resubscribe) by itself, never resend.
fn judge_idle(_c: &Case, o: &Observed) -> Judgement {
    let msgs = o.messages();
    if !msgs.iter().any(|m| is_stream(m.method)) {
        return judged(
            o,
            Verdict::NotExercised,
            "the client sent without streaming",
        );
    }
    if msgs.len() > 1 {
        return judged(o, Verdict::Fail, "sent the message again (a second task)");
    }
    if o.killed {
        return judged(o, Verdict::Fail, "never gave up on the silent stream");
    }
    if o.succeeded() && o.count("resubscribes") == 0 && o.count("gets") == 0 {
        return judged(o, Verdict::Fail, "exit 0 although the task never ended");
    }
    judged(o, Verdict::Pass, "")
}

/// A send whose connection is cut after the agent processed it.
fn judge_send_dropped(c: &Case, o: &Observed) -> Judgement {
    if o.killed {
        return judged(o, Verdict::Fail, "never gave up");
    }
    if let Some(why) = blind_resend(o, false) {
        return judged(o, Verdict::Fail, why);
    }
    let msgs = o.messages();
    if o.succeeded() {
        if msgs.len() > 1 && o.says(c.text) {
            return judged(
                o,
                Verdict::Pass,
                "resent with the same messageId and key and got the first task",
            );
        }
        return judged(o, Verdict::Fail, "exit 0 although no answer came");
    }
    judged(o, Verdict::Pass, "")
}

/// A FAILED task: non-zero exit, the error id shown.
fn judge_failed(_c: &Case, o: &Observed) -> Judgement {
    if o.messages().is_empty() {
        return judged(o, Verdict::Fail, "no message reached the server");
    }
    if o.killed {
        return judged(o, Verdict::Fail, "never finished");
    }
    if o.succeeded() {
        return judged(o, Verdict::Fail, "exit 0 for a FAILED task");
    }
    if o.messages().len() > 1 {
        return judged(
            o,
            Verdict::Fail,
            "sent the message again after a FAILED task",
        );
    }
    if !o.says(ERROR_ID) {
        return judged(o, Verdict::Fail, "the error_id is not in the output");
    }
    judged(o, Verdict::Pass, "")
}

/// A FAILED task whose text leaks an exception: as `judge_failed`, and the leak is flagged or
/// kept out of the output.
fn judge_leak(c: &Case, o: &Observed) -> Judgement {
    let base = judge_failed(c, o);
    if base.verdict != Verdict::Pass {
        return base;
    }
    let leaked = o.says("4111111111111111") || o.says("IllegalStateException");
    let flagged = o.output.to_ascii_lowercase().contains("leak");
    match (leaked, flagged) {
        (false, _) => judged(
            o,
            Verdict::Pass,
            "error id shown, exception detail kept out",
        ),
        (true, true) => judged(
            o,
            Verdict::Pass,
            "error id shown, the leaked detail flagged",
        ),
        (true, false) => judged(
            o,
            Verdict::Warn,
            "error id shown; the remote's exception text passed on unflagged",
        ),
    }
}

/// A server of the other protocol version: either speak the version the card offers and
/// succeed, or fail clearly; never success without the answer, never a hang.
fn judge_version(c: &Case, o: &Observed) -> Judgement {
    let msgs = o.messages();
    let used = match msgs.first().map(|m| m.method) {
        Some(m) if m.contains('/') => "spoke 0.3",
        Some(_) => "spoke 1.0",
        None => "sent no message",
    };
    if o.killed {
        return judged(o, Verdict::Fail, format!("{used}; never finished"));
    }
    if o.succeeded() {
        if o.says(c.text) {
            return judged(o, Verdict::Pass, format!("{used} and got the answer"));
        }
        return judged(
            o,
            Verdict::Fail,
            format!("{used}; exit 0 without the answer"),
        );
    }
    if msgs.len() > 1 && blind_resend(o, false).is_some() {
        return judged(o, Verdict::Fail, format!("{used}; resent the message"));
    }
    let lower = o.output.to_ascii_lowercase();
    if lower.contains("version")
        || o.says("-32009")
        || o.says("-32601")
        || lower.contains("not found")
    {
        return judged(
            o,
            Verdict::Pass,
            format!("{used}; failed with a version or method error"),
        );
    }
    judged(
        o,
        Verdict::Warn,
        format!("{used}; failed without saying the versions do not match"),
    )
}

/// A card naming another origin: not followed without the caller's leave.
fn judge_drift(c: &Case, o: &Observed) -> Judgement {
    if o.watched_requests > 0 {
        return judged(
            o,
            Verdict::Fail,
            format!(
                "sent the message to the card's other origin ({} request(s) there)",
                o.watched_requests
            ),
        );
    }
    if o.count("messages") > 0 {
        return judged(
            o,
            Verdict::Warn,
            "called the URL it was given instead of the card's interface",
        );
    }
    judge_gives_up(c, o)
}

/// A gzip-encoded stream: decoded and read, or refused with an error; never success without
/// the content.
fn judge_gzip(c: &Case, o: &Observed) -> Judgement {
    let msgs = o.messages();
    if !msgs.iter().any(|m| is_stream(m.method)) {
        return judged(
            o,
            Verdict::NotExercised,
            "the client sent without streaming",
        );
    }
    if o.killed {
        return judged(o, Verdict::Fail, "never finished");
    }
    if msgs.len() > 1 {
        return judged(o, Verdict::Fail, "sent the message again");
    }
    match (o.succeeded(), o.says(c.text)) {
        (true, true) => judged(o, Verdict::Pass, "decoded the stream"),
        (true, false) => judged(o, Verdict::Fail, "exit 0 without the answer (content lost)"),
        (false, _) => judged(
            o,
            Verdict::Warn,
            "refused the gzip-encoded stream (an error, not lost content)",
        ),
    }
}

/// A stream with keep-alive comments: they are not events.
fn judge_keepalive(c: &Case, o: &Observed) -> Judgement {
    let base = judge_success(c, o);
    if base.verdict == Verdict::Pass && o.says("keep-alive") {
        return judged(
            o,
            Verdict::Fail,
            "a keep-alive comment was shown as content",
        );
    }
    base
}

/// A malformed 200 answer to a send: an error, never success, no blind resend.
fn judge_malformed(c: &Case, o: &Observed) -> Judgement {
    if !o.killed && o.succeeded() {
        return judged(
            o,
            Verdict::Fail,
            "exit 0 for an answer that cannot be read as sent (content lost or replaced)",
        );
    }
    judge_gives_up(c, o)
}

/// Every case, in table order.
pub fn all() -> Vec<Case> {
    let c = |id, scenario, mode, text, expect, cite, judge| Case {
        id,
        scenario,
        blackholed: false,
        watch: "",
        mode,
        text,
        expect,
        cite,
        judge,
    };
    let mut cases = vec![
        c(
            "baseline-send",
            "c-baseline-send",
            Mode::Send,
            "conformance hello",
            "reports the completed task and its text, exit 0, one request",
            "docs/wire.md#15-task-states",
            judge_success as fn(&Case, &Observed) -> Judgement,
        ),
        c(
            "baseline-stream",
            "c-baseline-stream",
            Mode::Stream,
            "conformance hello",
            "streams to the completed task and shows its text, exit 0, one request",
            "docs/wire.md#18-event-streams-03",
            judge_success,
        ),
        Case {
            blackholed: true,
            ..c(
                "connect-blackholed",
                "c-blackholed",
                Mode::Send,
                "conformance hello",
                "gives up by itself on a connect that never completes (the agent's URL is a listener whose accept queue is full), exit non-zero",
                "docs/client-conformance.md#21-every-wait-is-bounded",
                judge_gives_up,
            )
        },
        c(
            "call-hung",
            "hang",
            Mode::Send,
            "conformance hello",
            "gives up on a call that is never answered by itself (call timeout), exit non-zero; resends only with the same messageId and Idempotency-Key",
            "docs/outcomes.md#6-sends-no-blind-resend",
            judge_gives_up,
        ),
        c(
            "rpc-error-http-200",
            "rpc-error",
            Mode::Send,
            "conformance hello",
            "reports the JSON-RPC error carried in HTTP 200 (code or message), exit non-zero, no blind resend",
            "docs/wire.md#52-json-rpc-specifics-10",
            judge_rpc_error,
        ),
        c(
            "rpc-error-http-500",
            "status-500-rpc",
            Mode::Send,
            "conformance hello",
            "reads the JSON-RPC error inside the 500 and reports it, exit non-zero, no blind resend",
            "docs/wire.md#7-classification-rules-a2a-core-applies",
            judge_rpc_error,
        ),
        c(
            "rpc-error-http-400",
            "status-400-rpc",
            Mode::Send,
            "conformance hello",
            "reads the JSON-RPC error inside the 400 and reports it, exit non-zero, no resend",
            "docs/wire.md#7-classification-rules-a2a-core-applies",
            judge_rpc_error,
        ),
    ];
    for (id, scenario, expect) in [
        (
            "send-502",
            "status-502",
            "a 502 on a send may have been forwarded: no resend without the same messageId and key; reports the status, exit non-zero",
        ),
        (
            "send-502-retry-after",
            "status-502-ra",
            "as a 502; a resend (with the key) waits for Retry-After",
        ),
        (
            "send-503-retry-after",
            "status-503",
            "a 503 with Retry-After proves non-receipt: a resend is allowed, not before the wait; bounded attempts, then exit non-zero with the status",
        ),
        (
            "send-503",
            "status-503-bare",
            "a 503 without Retry-After may come from a proxy that forwarded the send: no resend without the key; exit non-zero with the status",
        ),
        (
            "send-504",
            "status-504",
            "a 504 may have been forwarded: no resend without the key; exit non-zero with the status",
        ),
        (
            "send-504-retry-after",
            "status-504-ra",
            "as a 504; a resend (with the key) waits for Retry-After",
        ),
    ] {
        cases.push(c(
            id,
            scenario,
            Mode::Send,
            "conformance hello",
            expect,
            "docs/outcomes.md#6-sends-no-blind-resend",
            judge_status,
        ));
    }
    cases.extend([
        Case { watch: "redirect-target", ..c("redirect", "redirect", Mode::Send, "conformance hello",
          "does not follow a 3xx on the interface (a POST is not replayed elsewhere); exit non-zero",
          "docs/outcomes.md#2-retry-advice-and-channels", judge_redirect) },
        c("send-dropped", "idem-drop", Mode::Send, "conformance hello",
          "the connection is cut after the agent processed the send: no resend, or a resend with the same messageId and Idempotency-Key (which gets the first task)",
          "docs/outcomes.md#6-sends-no-blind-resend", judge_send_dropped),
        c("stream-truncated", "stream-truncated", Mode::Stream, "conformance hello",
          "a stream that ends cleanly before a terminal state is truncated, not completed: resubscribe (or get) and finish, never resend",
          "docs/outcomes.md#2-retry-advice-and-channels", judge_truncated),
        c("stream-dropped", "stream-drop", Mode::Stream, "conformance hello",
          "a stream cut mid-task: resubscribe to the task (or get it) and finish, never send the message again",
          "docs/outcomes.md#2-retry-advice-and-channels", judge_truncated),
        c("stream-idle", "stall", Mode::Stream, "conformance hello",
          "a stream that goes silent (no events, no keep-alives) is given up (idle timeout) or resubscribed by the client itself, never resent",
          "docs/client-conformance.md#21-every-wait-is-bounded", judge_idle),
        c("failed-error-id", "c-failed", Mode::Send, "fail",
          "a FAILED task exits non-zero and shows its error_id (the only key to the agent's log)",
          "docs/sdks.md#22-the-error_id-of-a-failed-agent-run", judge_failed),
        c("failed-leaked-detail", "c-failed-leak", Mode::Send, "fail-leak",
          "shows the error_id; the exception text ADK's debug mode appends is flagged or kept out",
          "docs/outcomes.md#7-remote-hints-leaked-detail-and-cancel-origin", judge_leak),
        c("version-1.0-only-server", "v1-only", Mode::Send, "conformance hello",
          "the card offers only 1.0: speak 1.0 and succeed, or fail saying the versions do not match; never a hang or an empty success",
          "docs/wire.md#55-headers-10", judge_version),
        c("version-0.3-only-server", "v03-only", Mode::Send, "conformance hello",
          "the card offers only 0.3: speak 0.3 and succeed, or fail saying the versions do not match",
          "docs/wire.md#3-version-03-agent-card", judge_version),
        Case { watch: "card-drift-target", ..c("card-url-drift", "card-drift", Mode::Send, "conformance hello",
          "the card names another origin (localhost): nothing is sent there without the caller's leave; exit non-zero",
          "docs/cards.md#3-where-credentials-may-go", judge_drift) },
        c("stream-gzip", "gzip", Mode::Stream, "conformance hello",
          "a stream sent with Content-Encoding: gzip (although identity was asked) is decoded, or refused with an error; never success without the content",
          "docs/client-conformance.md#22-content-encoding-on-a-stream", judge_gzip),
        c("stream-keepalive", "keepalive-300-2000", Mode::Stream, "conformance hello",
          "keep-alive comments for 2 s are not events and do not end the stream; then the answer, exit 0",
          "docs/sse.md#15-fields", judge_keepalive),
        c("malformed-html-200", "html200", Mode::Send, "conformance hello",
          "an HTML page in HTTP 200 is a malformed answer: exit non-zero, no blind resend",
          "docs/outcomes.md#2-retry-advice-and-channels", judge_malformed),
        c("malformed-utf8", "badutf8", Mode::Send, "conformance hello",
          "an answer that is not UTF-8 cannot be read: exit non-zero, never success",
          "docs/outcomes.md#2-retry-advice-and-channels", judge_malformed),
    ]);
    cases
}
