//! Count outcomes per (agent, method, channel, code-or-state), separately from HTTP status,
//! and render them in the Prometheus text exposition format.
//!
//! An HTTP-level dashboard counts a JSON-RPC error inside a 200 response as a success; this
//! tally counts what actually happened, so the real failure rate of each method of each
//! remote agent is visible: `a2a_outcomes_total{agent="planner",method="message/send",
//! channel="protocol",code="TaskNotFound"} 3`.
//!
//! The `code` label is, by channel: protocol → the error name (`TaskNotFound`; for `Other`
//! the numeric code, e.g. `-32050`); http → the status (`503`); task → the state (`failed`);
//! message → `message`; transport → the error name (`Timeout`); malformed → `malformed`.
//!
//! FAILED statuses that leak exception detail (`Outcome::leaked_detail`, ADK's debug errors)
//! are counted per agent as well, so an operator can alert on a remote leaking internals:
//! `a2a_leaked_detail_total{agent="payments"} 1`.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::outcome::{Channel, ErrorName, Outcome};

/// The metric's name in the exposition.
pub const METRIC: &str = "a2a_outcomes_total";
/// The name of the leaked-detail counter in the exposition.
pub const LEAKED_METRIC: &str = "a2a_leaked_detail_total";

/// Outcome counts per (agent, method, channel, code-or-state).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tally {
    counts: BTreeMap<String, Methods>,
    /// Outcomes with `leaked_detail`, per agent.
    leaked: BTreeMap<String, u64>,
}

/// Per method of one agent: counts per channel, then per code (the order of a
/// `(channel, code)` key; nested so that a known code is found by `&str`, without
/// allocating a key on every record).
type Methods = BTreeMap<String, BTreeMap<Channel, BTreeMap<String, u64>>>;

/// One counter of a [`Tally`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TallyEntry<'a> {
    /// The remote agent (the caller's name for it).
    pub agent: &'a str,
    /// The method (wire name or REST path, as the caller recorded it).
    pub method: &'a str,
    /// The outcome's channel.
    pub channel: Channel,
    /// The error name, HTTP status or task state (see the module docs).
    pub code: &'a str,
    /// How many outcomes were counted.
    pub count: u64,
}

/// The `code` label of an outcome (see the module docs).
pub fn code_label(o: &Outcome) -> String {
    label(o).into_owned()
}

/// [`code_label`], borrowed when it is a fixed name (every label but a number): recording
/// an outcome allocates nothing for it.
fn label(o: &Outcome) -> Cow<'static, str> {
    match o.channel {
        Channel::Protocol => match (o.error, o.code) {
            (Some(ErrorName::Other) | None, Some(c)) => Cow::Owned(c.to_string()),
            (Some(n), _) => Cow::Borrowed(n.as_str()),
            (None, None) => Cow::Borrowed("unknown"),
        },
        Channel::Http => o
            .http_status
            .map_or(Cow::Borrowed("unknown"), |s| Cow::Owned(s.to_string())),
        Channel::Task => Cow::Borrowed(o.state.map_or("unknown", |s| s.as_str())),
        Channel::Message => Cow::Borrowed("message"),
        Channel::Transport => Cow::Borrowed(o.error.map_or("unknown", ErrorName::as_str)),
        Channel::Malformed => Cow::Borrowed("malformed"),
    }
}

impl Tally {
    /// An empty tally.
    pub fn new() -> Tally {
        Tally::default()
    }

    /// Counts one outcome of `method` on `agent`.
    pub fn record(&mut self, agent: &str, method: &str, outcome: &Outcome) {
        self.add(agent, method, outcome.channel, &label(outcome), 1);
        if outcome.leaked_detail {
            *self.leaked.entry(agent.to_owned()).or_insert(0) += 1;
        }
    }

    /// How many recorded outcomes of `agent` leaked exception detail.
    pub fn leaked(&self, agent: &str) -> u64 {
        self.leaked.get(agent).copied().unwrap_or(0)
    }

    /// Adds `n` to one counter directly.
    pub fn add(&mut self, agent: &str, method: &str, channel: Channel, code: &str, n: u64) {
        let methods = match self.counts.get_mut(agent) {
            Some(m) => m,
            None => self.counts.entry(agent.to_owned()).or_default(),
        };
        let codes = match methods.get_mut(method) {
            Some(c) => c,
            None => methods.entry(method.to_owned()).or_default(),
        };
        let codes = codes.entry(channel).or_default();
        match codes.get_mut(code) {
            Some(c) => *c += n,
            None => {
                codes.insert(code.to_owned(), n);
            }
        }
    }

    /// The count of one counter (0 when never recorded).
    pub fn count(&self, agent: &str, method: &str, channel: Channel, code: &str) -> u64 {
        self.counts
            .get(agent)
            .and_then(|m| m.get(method))
            .and_then(|c| c.get(&channel))
            .and_then(|c| c.get(code))
            .copied()
            .unwrap_or(0)
    }

    /// Every counter, sorted by agent, method, channel, code.
    pub fn entries(&self) -> impl Iterator<Item = TallyEntry<'_>> {
        self.counts.iter().flat_map(|(agent, methods)| {
            methods.iter().flat_map(move |(method, channels)| {
                channels.iter().flat_map(move |(channel, codes)| {
                    codes.iter().map(move |(code, count)| TallyEntry {
                        agent,
                        method,
                        channel: *channel,
                        code,
                        count: *count,
                    })
                })
            })
        })
    }

    /// The total of every counter.
    pub fn total(&self) -> u64 {
        self.entries().map(|e| e.count).sum()
    }

    /// Renders the Prometheus text exposition format (version 0.0.4): `# HELP`, `# TYPE`
    /// and one sample line per counter, label values escaped (`\\`, `\"`, `\n`).
    pub fn render_prometheus(&self) -> String {
        let mut s = String::new();
        s.push_str("# HELP a2a_outcomes_total Outcomes of A2A calls by remote agent, method, channel and error code or task state.\n");
        s.push_str("# TYPE a2a_outcomes_total counter\n");
        for e in self.entries() {
            s.push_str(METRIC);
            s.push_str("{agent=\"");
            escape_label(&mut s, e.agent);
            s.push_str("\",method=\"");
            escape_label(&mut s, e.method);
            s.push_str("\",channel=\"");
            s.push_str(e.channel.as_str());
            s.push_str("\",code=\"");
            escape_label(&mut s, e.code);
            let _ = writeln!(s, "\"}} {}", e.count);
        }
        if !self.leaked.is_empty() {
            s.push_str("# HELP a2a_leaked_detail_total FAILED statuses that carried exception detail beyond their error id, by remote agent.\n");
            s.push_str("# TYPE a2a_leaked_detail_total counter\n");
            for (agent, n) in &self.leaked {
                s.push_str(LEAKED_METRIC);
                s.push_str("{agent=\"");
                escape_label(&mut s, agent);
                let _ = writeln!(s, "\"}} {n}");
            }
        }
        s
    }
}

/// Escapes a label value per the text format: backslash, double quote and line feed.
pub fn escape_label(out: &mut String, v: &str) {
    for c in v.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outcome::{RequestSent, TaskState};

    #[test]
    fn counts_separately_from_http_status() {
        let mut t = Tally::new();
        let mut p = Outcome::empty(Channel::Protocol);
        p.error = Some(ErrorName::TaskNotFound);
        p.code = Some(-32001);
        p.http_status = Some(200);
        let mut f = Outcome::empty(Channel::Task);
        f.state = Some(TaskState::Failed);
        f.http_status = Some(200);
        let mut other = Outcome::empty(Channel::Protocol);
        other.error = Some(ErrorName::Other);
        other.code = Some(-32050);
        t.record("a", "tasks/get", &p);
        t.record("a", "tasks/get", &p);
        t.record("a", "message/send", &f);
        t.record("a", "message/send", &other);
        t.record(
            "b",
            "message/send",
            &Outcome::transport(ErrorName::Timeout, RequestSent::Unknown, "t"),
        );
        assert_eq!(
            t.count("a", "tasks/get", Channel::Protocol, "TaskNotFound"),
            2
        );
        assert_eq!(t.count("a", "message/send", Channel::Task, "failed"), 1);
        assert_eq!(t.count("a", "message/send", Channel::Protocol, "-32050"), 1);
        assert_eq!(
            t.count("b", "message/send", Channel::Transport, "Timeout"),
            1
        );
        assert_eq!(t.count("a", "tasks/get", Channel::Http, "200"), 0);
        assert_eq!(t.total(), 5);
    }

    #[test]
    fn exposition_escapes_labels() {
        let mut t = Tally::new();
        t.add("we\"ird\\a\ngent", "m", Channel::Http, "503", 7);
        let s = t.render_prometheus();
        assert!(s.contains(
            "a2a_outcomes_total{agent=\"we\\\"ird\\\\a\\ngent\",method=\"m\",channel=\"http\",code=\"503\"} 7\n"
        ));
        assert!(s.starts_with("# HELP a2a_outcomes_total "));
    }
}
