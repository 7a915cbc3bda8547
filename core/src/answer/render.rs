//! The canonical JSON written straight into a `String`, without building a
//! `serde_json::Value` tree first: the C ABI hands this text out for every send and every
//! stream item, so the tree (one map and one key `String` per field) was most of its cost.
//!
//! The output is byte for byte what [`super::to_json`] / [`super::event_to_json`] give
//! through `Value::to_string()` (a test compares them on every fixture): keys in the order a
//! `serde_json::Map` keeps them (sorted by bytes: the workspace does not enable serde_json's
//! `preserve_order`), strings escaped as serde_json escapes them (through the crate's one
//! escaper, `crate::json`), and the values kept as raw JSON (`data`, `metadata`) written
//! verbatim when their text already is what serde_json's tree would print ([`canonical`]:
//! compact, keys in ascending order, plain integers, the escapes serde_json writes), which is
//! what agents send in practice; any other raw value is rendered through serde_json's tree
//! as before, so the output never depends on the way.

use std::fmt::Write as _;

use crate::model::{
    Artifact, Json, Message, Part, PartContent, SendResponse, StreamEvent, Task, TaskStatus,
};

use super::{base64_len, role};
use crate::json::{escape_into, write_str};

/// An optional string: the string, or `null`.
fn opt(out: &mut String, s: Option<&str>) {
    match s {
        Some(s) => write_str(out, s),
        None => out.push_str("null"),
    }
}

/// A raw JSON value the answer carries (`data`, `metadata`), through serde_json's tree as
/// [`super::to_json`] renders it (sorted keys, serde_json's number forms); `null` when absent.
fn raw(out: &mut String, j: Option<&Json<'_>>) {
    match j {
        Some(j) if canonical(j.get()) => out.push_str(j.get()),
        // `Display` of a `Value` is its compact JSON; writing to a `String` cannot fail.
        Some(j) => {
            let _ = write!(out, "{}", j.to_value());
        }
        None => out.push_str("null"),
    }
}

/// The deepest raw value written verbatim: serde_json's tree reads 127 levels.
const CANONICAL_DEPTH: usize = 127;

/// Whether the raw JSON `text` is exactly what serde_json prints for its tree (compact
/// `Display` of a `Value`, without `preserve_order`): no whitespace between tokens, object
/// keys without escapes in strictly ascending byte order (so no duplicates), integers in
/// their plain form that serde_json keeps as integers (at most 18 digits, not `-0`), and
/// strings whose only escapes are the ones serde_json writes (`\"`, `\\`, `\b`, `\f`,
/// `\n`, `\r`, `\t`). Conservative: `false` sends the value through the tree.
pub(crate) fn canonical(text: &str) -> bool {
    let b = text.as_bytes();
    canonical_value(b, 0, 0) == Some(b.len())
}

/// The end of the canonical value at `i`, if it is one.
fn canonical_value(b: &[u8], i: usize, depth: usize) -> Option<usize> {
    match *b.get(i)? {
        b'{' | b'[' if depth >= CANONICAL_DEPTH => None,
        b'{' => {
            let mut i = i + 1;
            if b.get(i) == Some(&b'}') {
                return Some(i + 1);
            }
            let mut prev: Option<&[u8]> = None;
            loop {
                let end = canonical_string(b, i)?;
                let k = &b[i + 1..end - 1];
                if k.contains(&b'\\') || prev.is_some_and(|p| p >= k) {
                    return None;
                }
                prev = Some(k);
                if b.get(end) != Some(&b':') {
                    return None;
                }
                i = canonical_value(b, end + 1, depth + 1)?;
                match *b.get(i)? {
                    b',' => i += 1,
                    b'}' => return Some(i + 1),
                    _ => return None,
                }
            }
        }
        b'[' => {
            let mut i = i + 1;
            if b.get(i) == Some(&b']') {
                return Some(i + 1);
            }
            loop {
                i = canonical_value(b, i, depth + 1)?;
                match *b.get(i)? {
                    b',' => i += 1,
                    b']' => return Some(i + 1),
                    _ => return None,
                }
            }
        }
        b'"' => canonical_string(b, i),
        b'n' => b[i..].starts_with(b"null").then_some(i + 4),
        b't' => b[i..].starts_with(b"true").then_some(i + 4),
        b'f' => b[i..].starts_with(b"false").then_some(i + 5),
        b'-' | b'0'..=b'9' => {
            let neg = b[i] == b'-';
            let start = i + usize::from(neg);
            let mut end = start;
            while b.get(end).is_some_and(u8::is_ascii_digit) {
                end += 1;
            }
            let digits = &b[start..end];
            let plain = match digits {
                [] => false,
                [b'0'] => !neg,
                [b'0', ..] => false,
                _ => digits.len() <= 18,
            };
            let more = matches!(b.get(end), Some(b'.' | b'e' | b'E'));
            (plain && !more).then_some(end)
        }
        _ => None,
    }
}

/// The end of the string at `i` (after its closing quote) when its escapes are the ones
/// serde_json writes.
fn canonical_string(b: &[u8], i: usize) -> Option<usize> {
    if b.get(i) != Some(&b'"') {
        return None;
    }
    let mut i = i + 1;
    loop {
        let at = memchr::memchr2(b'"', b'\\', b.get(i..)?)?;
        i += at;
        if b[i] == b'"' {
            return Some(i + 1);
        }
        match b.get(i + 1)? {
            b'"' | b'\\' | b'b' | b'f' | b'n' | b'r' | b't' => i += 2,
            _ => return None,
        }
    }
}

/// `"key":` (keys are plain ASCII, nothing to escape).
fn key(out: &mut String, k: &str) {
    out.push('"');
    out.push_str(k);
    out.push_str("\":");
}

fn part(out: &mut String, p: &Part<'_>) {
    out.push('{');
    match &p.content {
        PartContent::Text(t) => {
            key(out, "kind");
            out.push_str("\"text\",");
            common(out, p);
            out.push(',');
            key(out, "text");
            write_str(out, t);
        }
        PartContent::Data(d) => {
            key(out, "data");
            raw(out, Some(d));
            out.push(',');
            key(out, "kind");
            out.push_str("\"data\",");
            common(out, p);
        }
        PartContent::Bytes(b) => {
            key(out, "bytes");
            write_str(out, b);
            out.push(',');
            key(out, "kind");
            out.push_str("\"file\",");
            common(out, p);
            out.push(',');
            key(out, "size");
            match base64_len(b) {
                Some(n) => {
                    let _ = write!(out, "{n}");
                }
                None => out.push_str("null"),
            }
        }
        PartContent::Url(u) => {
            key(out, "kind");
            out.push_str("\"file\",");
            common(out, p);
            out.push(',');
            key(out, "uri");
            write_str(out, u);
        }
    }
    out.push('}');
}

/// A part's `media_type`, `metadata` and `name` (in that order, no separator around them).
fn common(out: &mut String, p: &Part<'_>) {
    key(out, "media_type");
    opt(out, p.media_type.as_deref());
    out.push(',');
    key(out, "metadata");
    raw(out, p.metadata.as_ref());
    out.push(',');
    key(out, "name");
    opt(out, p.filename.as_deref());
}

fn parts(out: &mut String, ps: &[Part<'_>]) {
    list(out, ps, part);
}

/// A JSON array of `items`, each written by `one`.
fn list<T>(out: &mut String, items: &[T], one: fn(&mut String, &T)) {
    out.push('[');
    for (i, x) in items.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        one(out, x);
    }
    out.push(']');
}

fn message(out: &mut String, m: &Message<'_>) {
    out.push('{');
    key(out, "context_id");
    opt(out, m.context_id.as_deref());
    out.push(',');
    key(out, "kind");
    out.push_str("\"message\",");
    key(out, "message_id");
    write_str(out, &m.message_id);
    out.push(',');
    key(out, "metadata");
    raw(out, m.metadata.as_ref());
    out.push(',');
    key(out, "parts");
    parts(out, &m.parts);
    out.push(',');
    key(out, "role");
    write_str(out, role(m.role));
    out.push(',');
    key(out, "task_id");
    opt(out, m.task_id.as_deref());
    out.push(',');
    key(out, "text");
    text_or_null(out, m.parts.iter().filter_map(Part::as_text));
    out.push('}');
}

/// The joined text, or `null` when there is none.
fn text_or_null<'p>(out: &mut String, texts: impl Iterator<Item = &'p str>) {
    if !join(out, texts) {
        out.push_str("null");
    }
}

/// Writes the texts joined with `\n` as one JSON string; `false` (nothing written) when
/// there are none.
fn join<'p>(out: &mut String, mut texts: impl Iterator<Item = &'p str>) -> bool {
    let Some(first) = texts.next() else {
        return false;
    };
    out.push('"');
    escape_into(out, first);
    for t in texts {
        out.push_str("\\n");
        escape_into(out, t);
    }
    out.push('"');
    true
}

fn status(out: &mut String, st: &TaskStatus<'_>) {
    out.push('{');
    key(out, "message");
    match st.message.as_deref() {
        Some(m) => message(out, m),
        None => out.push_str("null"),
    }
    out.push(',');
    key(out, "state");
    write_str(out, st.state.as_str());
    out.push(',');
    key(out, "timestamp");
    opt(out, st.timestamp.as_deref());
    out.push('}');
}

fn artifact(out: &mut String, a: &Artifact<'_>) {
    out.push('{');
    key(out, "artifact_id");
    write_str(out, &a.artifact_id);
    out.push(',');
    key(out, "description");
    opt(out, a.description.as_deref());
    out.push(',');
    key(out, "metadata");
    raw(out, a.metadata.as_ref());
    out.push(',');
    key(out, "name");
    opt(out, a.name.as_deref());
    out.push(',');
    key(out, "parts");
    parts(out, &a.parts);
    out.push('}');
}

/// `"context_id":` with the id, `null` when empty.
fn context_id(out: &mut String, c: &str) {
    key(out, "context_id");
    opt(out, (!c.is_empty()).then_some(c));
}

fn task(out: &mut String, t: &Task<'_>) {
    out.push('{');
    key(out, "artifacts");
    list(out, &t.artifacts, artifact);
    out.push(',');
    context_id(out, &t.context_id);
    out.push(',');
    key(out, "history");
    list(out, &t.history, message);
    out.push(',');
    key(out, "id");
    write_str(out, &t.id);
    out.push(',');
    key(out, "kind");
    out.push_str("\"task\",");
    key(out, "metadata");
    raw(out, t.metadata.as_ref());
    out.push(',');
    key(out, "status");
    status(out, &t.status);
    out.push(',');
    key(out, "text");
    // The artifacts' text parts, else the status message's (as `super::text`).
    if !join(
        out,
        t.artifacts
            .iter()
            .flat_map(|a| a.parts.iter().filter_map(Part::as_text)),
    ) {
        match &t.status.message {
            Some(m) => text_or_null(out, m.parts.iter().filter_map(Part::as_text)),
            None => out.push_str("null"),
        }
    }
    out.push('}');
}

/// Appends the answer's canonical JSON to `out`.
pub fn write_json(out: &mut String, r: &SendResponse<'_>) {
    match r {
        SendResponse::Message(m) => message(out, m),
        SendResponse::Task(t) => task(out, t),
    }
}

/// Appends one stream event's canonical JSON to `out`.
pub fn write_event_json(out: &mut String, ev: &StreamEvent<'_>) {
    match ev {
        StreamEvent::Task(t) => task(out, t),
        StreamEvent::Message(m) => message(out, m),
        StreamEvent::StatusUpdate(u) => {
            out.push('{');
            context_id(out, &u.context_id);
            out.push(',');
            key(out, "final");
            out.push_str(if u.is_final { "true," } else { "false," });
            key(out, "kind");
            out.push_str("\"status-update\",");
            key(out, "metadata");
            raw(out, u.metadata.as_ref());
            out.push(',');
            key(out, "status");
            status(out, &u.status);
            out.push(',');
            key(out, "task_id");
            write_str(out, &u.task_id);
            out.push('}');
        }
        StreamEvent::ArtifactUpdate(a) => {
            out.push('{');
            key(out, "append");
            out.push_str(if a.append { "true," } else { "false," });
            key(out, "artifact");
            artifact(out, &a.artifact);
            out.push(',');
            context_id(out, &a.context_id);
            out.push(',');
            key(out, "kind");
            out.push_str("\"artifact-update\",");
            key(out, "last_chunk");
            out.push_str(if a.last_chunk { "true," } else { "false," });
            key(out, "metadata");
            raw(out, a.metadata.as_ref());
            out.push(',');
            key(out, "task_id");
            write_str(out, &a.task_id);
            out.push('}');
        }
    }
}

/// The answer's canonical JSON (the text of [`super::to_json`], without the tree).
pub fn to_json_string(r: &SendResponse<'_>) -> String {
    let mut out = String::with_capacity(256);
    write_json(&mut out, r);
    out
}

/// One stream event's canonical JSON (the text of [`super::event_to_json`], without the
/// tree).
pub fn event_to_json_string(ev: &StreamEvent<'_>) -> String {
    let mut out = String::with_capacity(256);
    write_event_json(&mut out, ev);
    out
}
