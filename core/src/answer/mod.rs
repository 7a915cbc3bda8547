//! The answer: what the remote agent returned, normalized, whatever the version and binding.
//!
//! The object model in [`crate::model`] already reads every wire form into one set of types
//! ([`Task`], [`Message`], [`Artifact`], [`Part`] = text | data | file bytes | file URL, with
//! metadata). This module turns a response body or a stream into those values and renders
//! them in one canonical JSON shape, so that the CLI (`--json` `result`), the C ABI and every
//! binding hand the caller the same answer:
//!
//! - [`read_result`]: the result of `SendMessage`, `GetTask` or `CancelTask` from a whole
//!   response body (JSON-RPC `result` or the HTTP+JSON body), borrowing from the body, then
//!   checked ([`check`]): every file's bytes must be valid base64. Content that cannot be
//!   read is a [`ContentError`] that says what and where — never an empty answer.
//! - [`read_event`]: one stream event's data.
//! - [`Assembler`]: a stream's events put together — status updates replace the status,
//!   artifact updates with `append` extend the artifact of the same id, without `append`
//!   they replace it — so the end of a stream hands over the final task with its artifacts
//!   whole (the official SDKs' client-side rule).
//! - [`to_json`] / [`event_to_json`]: the canonical rendering (below) as a tree;
//!   [`to_json_string`] / [`event_to_json_string`]: the same text written directly (what
//!   the C ABI hands out for every call and stream item); [`text`]: the answer's
//!   text (text parts joined with `\n`, the artifacts' first, else the message's).
//! - [`message_from_json`]: a message to send, from the same canonical part shape.
//!
//! # Canonical JSON
//! Keys are snake_case and always present (`null` when absent):
//!
//! ```text
//! task:     {"kind":"task","id","context_id","status":{"state","message","timestamp"},
//!            "artifacts":[artifact],"history":[message],"metadata","text"}
//! message:  {"kind":"message","message_id","role","context_id","task_id","parts":[part],
//!            "metadata","text"}
//! artifact: {"artifact_id","name","description","parts":[part],"metadata"}
//! part:     {"kind":"text","text",...} | {"kind":"data","data":<any JSON>,...}
//!         | {"kind":"file","bytes":"<base64>","size":<decoded length>,...}
//!         | {"kind":"file","uri",...}        each with "media_type","name","metadata"
//! ```
//!
//! Stream events add `status-update` (`task_id`, `context_id`, `status`, `final`,
//! `metadata`) and `artifact-update` (`task_id`, `context_id`, `artifact`, `append`,
//! `last_chunk`, `metadata`).

use std::borrow::Cow;
use std::collections::HashMap;

use base64::Engine as _;
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::model::{
    self, Artifact, Json, Message, Part, PartContent, Role, SendResponse, StreamEvent, Task,
    TaskArtifactUpdateEvent, TaskStatus, WireForm,
};
use crate::outcome::TaskState;
use crate::version::{Binding, ProtocolVersion};

mod render;
#[cfg(test)]
mod tests;

pub use render::{event_to_json_string, to_json_string, write_event_json, write_json};

/// Content of a result that could not be read: what, and where in the result.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{what} at {at}")]
pub struct ContentError {
    /// What could not be read (`invalid base64 in file bytes`, the JSON parser's message).
    pub what: String,
    /// Where: a path into the result (`artifacts[0].parts[1].bytes`) or a position in the
    /// body (`body line 1 column 40`).
    pub at: String,
}

fn json_error(e: &serde_json::Error, what: &str) -> ContentError {
    let msg = e.to_string();
    // serde_json appends " at line L column C"; keep the message and the position apart.
    let text = msg
        .rsplit_once(" at line ")
        .map_or(msg.as_str(), |(head, _)| head)
        .to_owned();
    ContentError {
        what: text,
        at: format!("{what} line {} column {}", e.line(), e.column()),
    }
}

/// The standard base64 decoder of file parts (the `base64` crate; padding optional, since
/// ProtoJSON writers differ), also accepting the URL-safe alphabet ProtoJSON allows.
fn decode_base64(text: &str) -> Result<Vec<u8>, base64::DecodeError> {
    use base64::engine::DecodePaddingMode;
    use base64::engine::general_purpose::{GeneralPurpose, GeneralPurposeConfig};
    const CFG: GeneralPurposeConfig =
        GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent);
    const STD: GeneralPurpose = GeneralPurpose::new(&base64::alphabet::STANDARD, CFG);
    const URL: GeneralPurpose = GeneralPurpose::new(&base64::alphabet::URL_SAFE, CFG);
    STD.decode(text)
        .or_else(|e| URL.decode(text).map_err(|_| e))
}

/// The decoded length of base64 `text` when [`decode_base64`] accepts it (standard or
/// URL-safe alphabet, not mixed; padding optional, but only at the end and never in the
/// first two places of the last quad; no bits set past the last byte), without decoding:
/// the read checks file bytes and the renderer writes their `size` with it, so the bytes are
/// not decoded at all on the way from the body to the canonical JSON. It mirrors the
/// `base64` crate's rules for these engines (property-tested against it in
/// `answer::tests`); the bytes themselves come from [`file_bytes`], which decodes with the
/// crate.
pub(crate) fn base64_len(text: &str) -> Option<usize> {
    let b = text.as_bytes();
    if b.is_empty() {
        return Some(0);
    }
    let rem = b.len() % 4;
    if rem == 1 {
        return None;
    }
    // The quads before the last one hold symbols only.
    let head = b.len() - if rem == 0 { 4 } else { rem };
    let (mut std_only, mut url_only) = (false, false);
    let mut sym = |c: u8| -> Option<u8> {
        Some(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => {
                std_only = true;
                62
            }
            b'/' => {
                std_only = true;
                63
            }
            b'-' => {
                url_only = true;
                62
            }
            b'_' => {
                url_only = true;
                63
            }
            _ => return None,
        })
    };
    for &c in &b[..head] {
        sym(c)?;
    }
    let mut morsels = 0usize;
    let mut padding = 0usize;
    let mut bits = 0u32;
    for (i, &c) in b[head..].iter().enumerate() {
        if c == b'=' {
            if i < 2 {
                return None;
            }
            padding += 1;
            continue;
        }
        if padding > 0 {
            return None;
        }
        bits |= u32::from(sym(c)?) << (26 - 6 * morsels);
        morsels += 1;
    }
    if morsels < 2 || (std_only && url_only) {
        return None;
    }
    let tail = morsels * 6 / 8;
    if bits & (!0u32 >> (tail * 8)) != 0 {
        return None;
    }
    Some(head / 4 * 3 + tail)
}

/// Decodes a file part's base64 bytes.
pub fn file_bytes(part: &Part<'_>) -> Option<Result<Vec<u8>, ContentError>> {
    match &part.content {
        PartContent::Bytes(b) => Some(decode_base64(b).map_err(|e| ContentError {
            what: format!("invalid base64 in file bytes ({e})"),
            at: "bytes".to_owned(),
        })),
        _ => None,
    }
}

/// Encodes file bytes as the standard base64 text a part carries.
pub fn encode_bytes(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// The part of a body that carries the result: JSON-RPC `result`, else the body itself.
fn result_slice(body: &[u8], binding: Binding) -> Result<&[u8], ContentError> {
    if binding != Binding::JsonRpc {
        return Ok(body);
    }
    #[derive(serde::Deserialize)]
    struct Envelope<'a> {
        #[serde(borrow)]
        result: Option<&'a RawValue>,
    }
    let env: Envelope<'_> =
        serde_json::from_slice(body).map_err(|e| json_error(&e, "response body"))?;
    env.result.map(|r| r.get().as_bytes()).ok_or(ContentError {
        what: "no result".to_owned(),
        at: "the JSON-RPC response".to_owned(),
    })
}

/// Reads the task or message a send, get or cancel call returned, borrowing from `body`,
/// and checks its content ([`check`]).
pub fn read_result(
    body: &[u8],
    version: ProtocolVersion,
    binding: Binding,
) -> Result<SendResponse<'_>, ContentError> {
    let r: SendResponse<'_> = read_model(body, version, binding, "result")?;
    check_with(&r, true)?;
    Ok(r)
}

/// [`read_result`] from the tape of `body` when there is one: the one pass over the body
/// that the classifier also reads (`client::read`). A body the tape refused, or a result it
/// cannot give, is read by [`read_result`] for its exact error and position.
pub(crate) fn read_result_once<'a>(
    tape: Option<&crate::tape::Tape<'a>>,
    body: &'a [u8],
    version: ProtocolVersion,
    binding: Binding,
) -> Result<SendResponse<'a>, ContentError> {
    if let Some(t) = tape
        && let Some(r) = read_model_tape::<SendResponse<'a>>(t, version, binding)
    {
        check_with(&r, t.raw_values_need_check())?;
        return Ok(r);
    }
    read_result(body, version, binding)
}

/// [`read_event`] from the tape of `data` when there is one (see [`read_result_once`]).
#[cfg(feature = "client")]
pub(crate) fn read_event_once<'a>(
    tape: Option<&crate::tape::Tape<'a>>,
    data: &'a [u8],
    version: ProtocolVersion,
    binding: Binding,
) -> Result<StreamEvent<'a>, ContentError> {
    if let Some(t) = tape
        && let Some(ev) = read_model_tape::<StreamEvent<'a>>(t, version, binding)
    {
        check_event_with(&ev, t.raw_values_need_check())?;
        return Ok(ev);
    }
    read_event(data, version, binding)
}

/// The model value a tape carries, read as [`read_model`] reads it from the body; `None`
/// when that fails (the caller reads the body again for the exact error). Read by the
/// direct reader (`model::FromTape`: the common shapes token by token, anything else by
/// serde at its token), which gives what the serde read of the tape gives.
fn read_model_tape<'a, T: model::FromWire<'a> + model::FromTape<'a>>(
    tape: &crate::tape::Tape<'a>,
    version: ProtocolVersion,
    binding: Binding,
) -> Option<T> {
    let at = if binding == Binding::JsonRpc {
        // As `read_model`'s `Envelope { result: Option<T> }` reads it.
        tape.member("result")?
    } else {
        0
    };
    let mut r = T::from_tape(tape, at).ok()?;
    r.settle(WireForm::new(version, binding));
    Some(r)
}

/// Classifies one complete response ([`crate::classify::classify`]) and, when it carries a
/// task or a message, reads that answer ([`read_result`]), parsing the body once: both read
/// the same tape of it. The answer is `None` for any other outcome and an error when the
/// content cannot be read (the caller decides what that makes of the outcome; the client
/// machine turns it into `malformed`).
pub fn classify_and_read<'a>(
    info: &crate::classify::ResponseInfo<'a>,
    version: ProtocolVersion,
    binding: Binding,
) -> (
    crate::outcome::Outcome,
    Option<Result<SendResponse<'a>, ContentError>>,
) {
    // Redirects and 2xx event streams have readers of their own; every other body is read
    // as one JSON document.
    let redirect = (300..400).contains(&info.status);
    let stream =
        (200..300).contains(&info.status) && crate::classify::is_event_stream(info.content_type);
    let as_json = !redirect && !stream;
    let tape = as_json
        .then(|| crate::tape::Tape::parse_spare(info.body))
        .flatten();
    let outcome = crate::classify::classify_tape(info, tape.as_ref());
    if !matches!(
        outcome.channel,
        crate::outcome::Channel::Task | crate::outcome::Channel::Message
    ) {
        if let Some(t) = tape {
            t.keep_as_spare();
        }
        return (outcome, None);
    }
    let answer = read_result_once(tape.as_ref(), info.body, version, binding);
    if let Some(t) = tape {
        t.keep_as_spare();
    }
    (outcome, Some(answer))
}

/// Reads the model value a body carries: in JSON-RPC its `result`, else the body itself.
///
/// In JSON-RPC the envelope and its result are read in one pass. serde_json checks the
/// whole body either way, so this fails exactly when reading the envelope and then its
/// result does; those two steps then run again to say what failed and where (the response
/// body, or a position inside the result), as they always have.
fn read_model<'a, T: model::FromWire<'a>>(
    body: &'a [u8],
    version: ProtocolVersion,
    binding: Binding,
    what: &str,
) -> Result<T, ContentError> {
    let form = WireForm::new(version, binding);
    #[cfg(test)]
    crate::tape::note_serde_pass();
    if binding == Binding::JsonRpc {
        #[derive(serde::Deserialize)]
        #[serde(bound(deserialize = "T: serde::Deserialize<'de>"))]
        struct Envelope<T> {
            result: Option<T>,
        }
        if let Ok(Envelope {
            result: Some(mut r),
        }) = serde_json::from_slice::<Envelope<T>>(body)
        {
            r.settle(form);
            return Ok(r);
        }
    }
    let json = result_slice(body, binding)?;
    model::from_slice(json, form).map_err(|e| json_error(&e.0, what))
}

/// Reads one stream event's data (a JSON-RPC response in JSON-RPC, the event in HTTP+JSON),
/// borrowing from `data`, and checks its content.
pub fn read_event(
    data: &[u8],
    version: ProtocolVersion,
    binding: Binding,
) -> Result<StreamEvent<'_>, ContentError> {
    let ev: StreamEvent<'_> = read_model(data, version, binding, "event")?;
    check_event_with(&ev, true)?;
    Ok(ev)
}

/// A raw JSON value the reader kept as text must also parse as a tree (the raw reader does
/// not apply serde_json's nesting limit; the rendering does).
/// `trees` false skips the tree: the caller knows the value parses (a tape that saw nothing
/// but plain numbers and escapes, below the depth limit).
fn check_json(
    j: Option<&Json<'_>>,
    trees: bool,
    at: impl FnOnce() -> String,
) -> Result<(), ContentError> {
    match j {
        Some(j) if trees => {
            #[cfg(test)]
            crate::tape::note_serde_pass();
            serde_json::from_str::<Value>(j.get())
                .map(|_| ())
                .map_err(|e| ContentError {
                    what: json_error(&e, "").what,
                    at: at(),
                })
        }
        _ => Ok(()),
    }
}

/// Reads a whole `text/event-stream` body (a captured stream) and assembles its events into
/// the final answer; the first event that cannot be read is an error naming it
/// (`event 3: ...`). Events with empty data are skipped, as the stream tracker does.
pub fn read_event_stream(
    body: &[u8],
    version: ProtocolVersion,
    binding: Binding,
) -> Result<Option<SendResponse<'static>>, ContentError> {
    let mut asm = Assembler::new();
    let mut n = 0usize;
    // The one SSE parser, with its default limits; an event dropped over a limit is content
    // that could not be read, so it fails the read like an unreadable event.
    let mut decoder = crate::sse::Decoder::new();
    let mut feed = decoder.feed(body);
    loop {
        match feed.next_item() {
            Ok(Some(crate::sse::Item::Event(ev))) => {
                if ev.data.iter().all(u8::is_ascii_whitespace) {
                    continue;
                }
                n += 1;
                match read_event(ev.data, version, binding) {
                    Ok(read) => asm.push(&read),
                    Err(e) => {
                        return Err(ContentError {
                            what: e.what,
                            at: format!("event {n}: {}", e.at),
                        });
                    }
                }
            }
            Ok(Some(_)) => {}
            Ok(None) => break,
            Err(limit) => {
                return Err(ContentError {
                    what: limit.to_string(),
                    at: format!("event {}", n + 1),
                });
            }
        }
    }
    Ok(asm.finish())
}

/// `e` found inside `at` (the path is built only for an error, never on the success path).
fn under(at: impl FnOnce() -> String) -> impl FnOnce(ContentError) -> ContentError {
    move |mut e| {
        e.at = format!("{}{}", at(), e.at);
        e
    }
}

/// The parts' content, with `at` relative to the list (`[1].bytes`).
fn check_parts(parts: &[Part<'_>], trees: bool) -> Result<(), ContentError> {
    for (i, p) in parts.iter().enumerate() {
        if let PartContent::Bytes(b) = &p.content
            && base64_len(b).is_none()
            && let Some(Err(mut e)) = file_bytes(p)
        {
            e.at = format!("[{i}].bytes");
            return Err(e);
        }
        if let PartContent::Data(d) = &p.content {
            check_json(Some(d), trees, || format!("[{i}].data"))?;
        }
        check_json(p.metadata.as_ref(), trees, || format!("[{i}].metadata"))?;
    }
    Ok(())
}

/// A message's content, with `at` relative to the message (`metadata`, `parts[0].bytes`).
fn check_message(m: &Message<'_>, trees: bool) -> Result<(), ContentError> {
    check_json(m.metadata.as_ref(), trees, || "metadata".to_owned())?;
    check_parts(&m.parts, trees).map_err(under(|| "parts".to_owned()))
}

/// An artifact's content, with `at` relative to the artifact (`.metadata`, `.parts[0].data`).
fn check_artifact(a: &Artifact<'_>, trees: bool) -> Result<(), ContentError> {
    check_json(a.metadata.as_ref(), trees, || ".metadata".to_owned())?;
    check_parts(&a.parts, trees).map_err(under(|| ".parts".to_owned()))
}

fn check_task(t: &Task<'_>, trees: bool) -> Result<(), ContentError> {
    // Without trees to check, only file bytes can fail: a task with none is fine without
    // the walk below and its error paths (about 1k instructions for a 2 KB task).
    let bytes = |parts: &[Part<'_>]| {
        parts
            .iter()
            .any(|p| matches!(p.content, PartContent::Bytes(_)))
    };
    if !trees
        && !t.status.message.as_ref().is_some_and(|m| bytes(&m.parts))
        && !t.artifacts.iter().any(|a| bytes(&a.parts))
        && !t.history.iter().any(|m| bytes(&m.parts))
    {
        return Ok(());
    }
    if let Some(m) = &t.status.message {
        check_message(m, trees).map_err(under(|| "status.message.".to_owned()))?;
    }
    check_json(t.metadata.as_ref(), trees, || "metadata".to_owned())?;
    for (i, a) in t.artifacts.iter().enumerate() {
        check_artifact(a, trees).map_err(under(|| format!("artifacts[{i}]")))?;
    }
    for (i, m) in t.history.iter().enumerate() {
        check_message(m, trees).map_err(under(|| format!("history[{i}].")))?;
    }
    Ok(())
}

/// Checks a message before it is sent: at least one part, every file part's bytes valid
/// base64, and the message's `metadata` (when present) a JSON object, as A2A's `Message`
/// requires. The error says what and where (`parts`, `parts[1].bytes`, `metadata`).
pub fn check_outgoing(m: &Message<'_>) -> Result<(), ContentError> {
    if m.parts.is_empty() {
        return Err(ContentError {
            what: "a message needs at least one part".to_owned(),
            at: "parts".to_owned(),
        });
    }
    if let Some(meta) = &m.metadata
        && !meta.get().trim_start().starts_with('{')
    {
        return Err(ContentError {
            what: "metadata must be a JSON object".to_owned(),
            at: "metadata".to_owned(),
        });
    }
    check_message(m, false)
}

/// Checks what the model reader leaves open: every file part's bytes decode as base64, and
/// every raw JSON value (`data`, `metadata`) also parses as a serde_json tree.
pub fn check(r: &SendResponse<'_>) -> Result<(), ContentError> {
    check_with(r, true)
}

fn check_with(r: &SendResponse<'_>, trees: bool) -> Result<(), ContentError> {
    match r {
        SendResponse::Task(t) => check_task(t, trees),
        SendResponse::Message(m) => check_message(m, trees),
    }
}

fn check_event_with(ev: &StreamEvent<'_>, trees: bool) -> Result<(), ContentError> {
    match ev {
        StreamEvent::Task(t) => check_task(t, trees),
        StreamEvent::Message(m) => check_message(m, trees),
        StreamEvent::StatusUpdate(u) => match &u.status.message {
            Some(m) => check_message(m, trees).map_err(under(|| "status.message.".to_owned())),
            None => Ok(()),
        },
        StreamEvent::ArtifactUpdate(a) => {
            check_artifact(&a.artifact, trees).map_err(under(|| "artifact".to_owned()))
        }
    }
}

/// The answer's text: the text parts of the task's artifacts joined with `\n`, else those
/// of its status message; for a message, its text parts. `None` when there is no text part.
pub fn text(r: &SendResponse<'_>) -> Option<String> {
    match r {
        SendResponse::Message(m) => m.text(),
        SendResponse::Task(t) => {
            let texts: Vec<&str> = t
                .artifacts
                .iter()
                .flat_map(|a| a.parts.iter().filter_map(Part::as_text))
                .collect();
            if texts.is_empty() {
                t.status.message.as_ref().and_then(|m| m.text())
            } else {
                Some(texts.join("\n"))
            }
        }
    }
}

// ------------------------------------------------------------------------------ rendering

fn text_value(v: &Option<Cow<'_, str>>) -> Value {
    v.as_deref().map_or(Value::Null, Value::from)
}

fn meta(v: &Option<Json<'_>>) -> Value {
    v.as_ref().map_or(Value::Null, Json::to_value)
}

/// One part in the canonical shape.
pub fn part_to_json(p: &Part<'_>) -> Value {
    let mut m = Map::new();
    match &p.content {
        PartContent::Text(t) => {
            m.insert("kind".into(), "text".into());
            m.insert("text".into(), Value::from(&**t));
        }
        PartContent::Data(d) => {
            m.insert("kind".into(), "data".into());
            m.insert("data".into(), d.to_value());
        }
        PartContent::Bytes(b) => {
            m.insert("kind".into(), "file".into());
            m.insert("bytes".into(), Value::from(&**b));
            let size = decode_base64(b).map_or(Value::Null, |v| Value::from(v.len()));
            m.insert("size".into(), size);
        }
        PartContent::Url(u) => {
            m.insert("kind".into(), "file".into());
            m.insert("uri".into(), Value::from(&**u));
        }
    }
    m.insert("media_type".into(), text_value(&p.media_type));
    m.insert("name".into(), text_value(&p.filename));
    m.insert("metadata".into(), meta(&p.metadata));
    Value::Object(m)
}

fn parts(ps: &[Part<'_>]) -> Value {
    Value::Array(ps.iter().map(part_to_json).collect())
}

fn role(r: Role) -> &'static str {
    match r {
        Role::User => "user",
        Role::Agent => "agent",
        Role::Unspecified => "unspecified",
    }
}

/// A message in the canonical shape.
pub fn message_to_json(m: &Message<'_>) -> Value {
    serde_json::json!({
        "kind": "message",
        "message_id": &*m.message_id,
        "role": role(m.role),
        "context_id": text_value(&m.context_id),
        "task_id": text_value(&m.task_id),
        "parts": parts(&m.parts),
        "metadata": meta(&m.metadata),
        "text": m.text(),
    })
}

fn status_to_json(st: &TaskStatus<'_>) -> Value {
    serde_json::json!({
        "state": st.state.as_str(),
        "message": st.message.as_deref().map_or(Value::Null, message_to_json),
        "timestamp": text_value(&st.timestamp),
    })
}

/// An artifact in the canonical shape.
pub fn artifact_to_json(a: &Artifact<'_>) -> Value {
    serde_json::json!({
        "artifact_id": &*a.artifact_id,
        "name": text_value(&a.name),
        "description": text_value(&a.description),
        "parts": parts(&a.parts),
        "metadata": meta(&a.metadata),
    })
}

fn task_to_json(t: &Task<'_>, text: Option<String>) -> Value {
    serde_json::json!({
        "kind": "task",
        "id": &*t.id,
        "context_id": (!t.context_id.is_empty()).then_some(&*t.context_id),
        "status": status_to_json(&t.status),
        "artifacts": t.artifacts.iter().map(artifact_to_json).collect::<Vec<_>>(),
        "history": t.history.iter().map(message_to_json).collect::<Vec<_>>(),
        "metadata": meta(&t.metadata),
        "text": text,
    })
}

/// The answer in the canonical shape (see the module docs).
pub fn to_json(r: &SendResponse<'_>) -> Value {
    match r {
        SendResponse::Message(m) => message_to_json(m),
        SendResponse::Task(t) => task_to_json(t, text(r)),
    }
}

/// One stream event in the canonical shape.
pub fn event_to_json(ev: &StreamEvent<'_>) -> Value {
    match ev {
        StreamEvent::Task(t) => {
            let r = SendResponse::Task(t.clone());
            to_json(&r)
        }
        StreamEvent::Message(m) => message_to_json(m),
        StreamEvent::StatusUpdate(u) => serde_json::json!({
            "kind": "status-update",
            "task_id": &*u.task_id,
            "context_id": (!u.context_id.is_empty()).then_some(&*u.context_id),
            "status": status_to_json(&u.status),
            "final": u.is_final,
            "metadata": meta(&u.metadata),
        }),
        StreamEvent::ArtifactUpdate(a) => serde_json::json!({
            "kind": "artifact-update",
            "task_id": &*a.task_id,
            "context_id": (!a.context_id.is_empty()).then_some(&*a.context_id),
            "artifact": artifact_to_json(&a.artifact),
            "append": a.append,
            "last_chunk": a.last_chunk,
            "metadata": meta(&a.metadata),
        }),
    }
}

// -------------------------------------------------------------------------------- sending

/// Why a message to send could not be built from its canonical JSON.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct PartsError(pub String);

fn opt_str(o: &Map<String, Value>, key: &str, at: &str) -> Result<Option<String>, PartsError> {
    match o.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(v)) => Ok(Some(v.clone())),
        Some(_) => Err(PartsError(format!("{at}.{key}: expected a string"))),
    }
}

fn opt_meta(o: &Map<String, Value>, at: &str) -> Result<Option<Json<'static>>, PartsError> {
    match o.get("metadata") {
        None | Some(Value::Null) => Ok(None),
        Some(v @ Value::Object(_)) => Json::from_value(v)
            .map(Some)
            .map_err(|e| PartsError(format!("{at}.metadata: {e}"))),
        Some(_) => Err(PartsError(format!("{at}.metadata: expected an object"))),
    }
}

/// One part from its canonical JSON (`kind` text, data or file; a file carries `bytes`
/// (base64) or `uri`, optionally `media_type`, `name`; any part `metadata`).
pub fn part_from_json(v: &Value, at: &str) -> Result<Part<'static>, PartsError> {
    let o = v
        .as_object()
        .ok_or_else(|| PartsError(format!("{at}: expected an object")))?;
    let kind = opt_str(o, "kind", at)?.unwrap_or_default();
    let content = match kind.as_str() {
        "text" => PartContent::Text(Cow::Owned(
            opt_str(o, "text", at)?
                .ok_or_else(|| PartsError(format!("{at}: a text part needs \"text\"")))?,
        )),
        "data" => {
            let d = o
                .get("data")
                .ok_or_else(|| PartsError(format!("{at}: a data part needs \"data\"")))?;
            PartContent::Data(
                Json::from_value(d).map_err(|e| PartsError(format!("{at}.data: {e}")))?,
            )
        }
        "file" => match (opt_str(o, "bytes", at)?, opt_str(o, "uri", at)?) {
            (Some(b), None) => {
                decode_base64(&b)
                    .map_err(|e| PartsError(format!("{at}.bytes: invalid base64 ({e})")))?;
                PartContent::Bytes(Cow::Owned(b))
            }
            (None, Some(u)) => PartContent::Url(Cow::Owned(u)),
            _ => {
                return Err(PartsError(format!(
                    "{at}: a file part needs exactly one of \"bytes\" and \"uri\""
                )));
            }
        },
        other => {
            return Err(PartsError(format!(
                "{at}.kind: {other:?} (expected text, data or file)"
            )));
        }
    };
    Ok(Part {
        content,
        media_type: opt_str(o, "media_type", at)?.map(Cow::Owned),
        filename: opt_str(o, "name", at)?.map(Cow::Owned),
        metadata: opt_meta(o, at)?,
    })
}

/// The parts and metadata of a message to send, from `{"parts":[part,...],"metadata":{..}}`
/// (canonical part shape; at least one part).
pub fn message_from_json(
    json: &str,
) -> Result<(Vec<Part<'static>>, Option<Json<'static>>), PartsError> {
    let v: Value = serde_json::from_str(json).map_err(|e| PartsError(format!("message: {e}")))?;
    let o = v
        .as_object()
        .ok_or_else(|| PartsError("message: expected an object".to_owned()))?;
    let list = o
        .get("parts")
        .and_then(Value::as_array)
        .ok_or_else(|| PartsError("message: \"parts\" must be an array".to_owned()))?;
    if list.is_empty() {
        return Err(PartsError("message: no parts".to_owned()));
    }
    let parts = list
        .iter()
        .enumerate()
        .map(|(i, p)| part_from_json(p, &format!("parts[{i}]")))
        .collect::<Result<Vec<_>, _>>()?;
    Ok((parts, opt_meta(o, "message")?))
}

// ------------------------------------------------------------------------------- assembly

/// Puts a stream's events together into the final answer (see the module docs).
#[derive(Debug, Clone, Default)]
pub struct Assembler {
    answer: Option<SendResponse<'static>>,
    events: u64,
    /// The position of each artifact id in the task's artifacts (the first, if an answer
    /// given to [`Assembler::replace`] repeats one): an update finds its artifact without
    /// walking the list, so a stream of many distinct artifacts stays linear.
    index: ArtifactIndex,
}

/// The position of each artifact id in a task's artifacts, keyed by the id's (randomly
/// keyed SipHash) hash rather than a copy of the id: every position found is checked
/// against the artifact's own id, and an id whose hash another id already holds goes to
/// `collided` (keyed by the id itself; practically never used). Against a
/// `HashMap<String, usize>`: no copy of each new id, and one SipHash per update instead of
/// two (lookup, then insert): 1.3k -> 0.8k instructions and one allocation fewer per new
/// artifact (callgrind, `bench-driver`'s stream of distinct artifacts).
#[derive(Debug, Clone, Default)]
struct ArtifactIndex {
    keys: std::collections::hash_map::RandomState,
    by_hash: HashMap<u64, usize, std::hash::BuildHasherDefault<HashIsKey>>,
    collided: HashMap<String, usize>,
}

/// The hasher of [`ArtifactIndex::by_hash`]: its keys are already SipHash values.
#[derive(Debug, Clone, Copy, Default)]
struct HashIsKey(u64);

impl std::hash::Hasher for HashIsKey {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        // Only `u64` keys are hashed (write_u64); a fallback that still mixes every byte.
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

impl ArtifactIndex {
    /// The hash of `id` and the position of the artifact with that id, if any.
    fn find(&self, artifacts: &[Artifact<'static>], id: &str) -> (u64, Option<usize>) {
        use std::hash::BuildHasher as _;
        let h = self.keys.hash_one(id);
        let at = match self.by_hash.get(&h) {
            None => None,
            Some(&i) if artifacts.get(i).is_some_and(|a| a.artifact_id == id) => Some(i),
            Some(_) => self.collided.get(id).copied(),
        };
        (h, at)
    }

    /// Records `at` as the position of `id` (hash `h`), which [`ArtifactIndex::find`] did
    /// not find.
    fn add(&mut self, h: u64, id: &str, at: usize) {
        match self.by_hash.entry(h) {
            std::collections::hash_map::Entry::Vacant(v) => {
                v.insert(at);
            }
            std::collections::hash_map::Entry::Occupied(_) => {
                self.collided.insert(id.to_owned(), at);
            }
        }
    }

    fn clear(&mut self) {
        self.by_hash.clear();
        self.collided.clear();
    }
}

fn empty_task(id: &str, context_id: &str) -> Task<'static> {
    Task {
        id: Cow::Owned(id.to_owned()),
        context_id: Cow::Owned(context_id.to_owned()),
        status: TaskStatus::new(TaskState::Unknown),
        artifacts: Vec::new(),
        history: Vec::new(),
        metadata: None,
    }
}

/// Adds or extends one artifact by id; `index` maps the ids of `artifacts` to positions.
fn apply_artifact(
    artifacts: &mut Vec<Artifact<'static>>,
    index: &mut ArtifactIndex,
    a: Artifact<'static>,
    append: bool,
) {
    let (h, at) = index.find(artifacts, &a.artifact_id);
    match at.and_then(|i| artifacts.get_mut(i)) {
        Some(x) if append => {
            x.parts.extend(a.parts);
            extend_appended(x, a.name, a.description, a.metadata, a.extensions);
        }
        Some(x) => *x = a,
        None => {
            index.add(h, &a.artifact_id, artifacts.len());
            artifacts.push(a);
        }
    }
}

/// What an appended chunk changes in the artifact it extends besides its parts: the name,
/// description and metadata it carries replace the artifact's, its extensions are added once.
fn extend_appended(
    x: &mut Artifact<'static>,
    name: Option<Cow<'static, str>>,
    description: Option<Cow<'static, str>>,
    metadata: Option<Json<'static>>,
    extensions: impl IntoIterator<Item = Cow<'static, str>>,
) {
    if name.is_some() {
        x.name = name;
    }
    if description.is_some() {
        x.description = description;
    }
    if metadata.is_some() {
        x.metadata = metadata;
    }
    for e in extensions {
        if !x.extensions.contains(&e) {
            x.extensions.push(e);
        }
    }
}

/// [`apply_artifact`] of a borrowed artifact: copies only what is kept (the new parts
/// alone when they are appended).
fn apply_artifact_ref(
    artifacts: &mut Vec<Artifact<'static>>,
    index: &mut ArtifactIndex,
    a: &Artifact<'_>,
    append: bool,
) {
    let (h, at) = index.find(artifacts, &a.artifact_id);
    match at.and_then(|i| artifacts.get_mut(i)) {
        Some(x) if append => {
            x.parts.extend(a.parts.iter().map(Part::to_static));
            let copy = |c: &Cow<'_, str>| Cow::Owned(c.as_ref().to_owned());
            extend_appended(
                x,
                a.name.as_ref().map(copy),
                a.description.as_ref().map(copy),
                a.metadata.as_ref().map(|m| m.clone().into_owned()),
                a.extensions.iter().map(copy),
            );
        }
        Some(x) => *x = a.to_static(),
        None => {
            index.add(h, &a.artifact_id, artifacts.len());
            artifacts.push(a.to_static());
        }
    }
}

/// The index of `artifacts` (the first position of each id).
fn index_of(artifacts: &[Artifact<'static>]) -> ArtifactIndex {
    let mut index = ArtifactIndex::default();
    index.by_hash.reserve(artifacts.len());
    for (i, a) in artifacts.iter().enumerate() {
        if let (h, None) = index.find(artifacts, &a.artifact_id) {
            index.add(h, &a.artifact_id, i);
        }
    }
    index
}

/// The task being assembled (a fresh one, with an empty index, unless the answer is one).
fn task_mut<'a>(
    answer: &'a mut Option<SendResponse<'static>>,
    index: &mut ArtifactIndex,
    id: &str,
    context_id: &str,
) -> &'a mut Task<'static> {
    if !matches!(answer, Some(SendResponse::Task(_))) {
        *answer = Some(SendResponse::Task(empty_task(id, context_id)));
        index.clear();
    }
    match answer {
        Some(SendResponse::Task(t)) => {
            if t.context_id.is_empty() && !context_id.is_empty() {
                t.context_id = Cow::Owned(context_id.to_owned());
            }
            t
        }
        _ => unreachable!("set just above"),
    }
}

impl Assembler {
    /// An assembler that has seen nothing.
    pub fn new() -> Assembler {
        Assembler::default()
    }

    /// Events applied so far.
    pub fn events(&self) -> u64 {
        self.events
    }

    /// Applies one event (copied: the assembler owns what it keeps). Status and artifact
    /// updates, most of a stream, copy only what the answer keeps (the status; the artifact,
    /// or only its new parts when appended), never the event's ids: two allocations fewer
    /// per artifact update than copying the event whole (callgrind, `bench-driver`).
    pub fn push(&mut self, ev: &StreamEvent<'_>) {
        match ev {
            StreamEvent::StatusUpdate(u) => {
                self.events += 1;
                let t = task_mut(&mut self.answer, &mut self.index, &u.task_id, &u.context_id);
                t.status = u.status.to_static();
            }
            StreamEvent::ArtifactUpdate(a) => {
                self.events += 1;
                let t = task_mut(&mut self.answer, &mut self.index, &a.task_id, &a.context_id);
                apply_artifact_ref(&mut t.artifacts, &mut self.index, &a.artifact, a.append);
            }
            StreamEvent::Task(_) | StreamEvent::Message(_) => {
                self.push_owned(ev.clone().into_owned());
            }
        }
    }

    /// Applies one event the caller already owns (no copy is made).
    pub fn push_owned(&mut self, ev: StreamEvent<'static>) {
        self.events += 1;
        match ev {
            StreamEvent::Task(snapshot) => {
                let (id, ctx) = (snapshot.id.clone(), snapshot.context_id.clone());
                let t = task_mut(&mut self.answer, &mut self.index, &id, &ctx);
                let mut kept = std::mem::take(&mut t.artifacts);
                for a in snapshot.artifacts {
                    apply_artifact(&mut kept, &mut self.index, a, false);
                }
                let history = if snapshot.history.is_empty() {
                    std::mem::take(&mut t.history)
                } else {
                    snapshot.history
                };
                *t = Task {
                    artifacts: kept,
                    history,
                    ..snapshot
                };
            }
            StreamEvent::Message(m) => match &mut self.answer {
                Some(SendResponse::Task(t)) => t.history.push(m),
                _ => {
                    self.answer = Some(SendResponse::Message(m));
                    self.index.clear();
                }
            },
            StreamEvent::StatusUpdate(u) => {
                let t = task_mut(&mut self.answer, &mut self.index, &u.task_id, &u.context_id);
                t.status = u.status;
            }
            StreamEvent::ArtifactUpdate(a) => {
                let TaskArtifactUpdateEvent {
                    task_id,
                    context_id,
                    artifact,
                    append,
                    ..
                } = a;
                let t = task_mut(&mut self.answer, &mut self.index, &task_id, &context_id);
                apply_artifact(&mut t.artifacts, &mut self.index, artifact, append);
            }
        }
    }

    /// The answer so far: the task with its artifacts put together, or the message.
    pub fn answer(&self) -> Option<&SendResponse<'static>> {
        self.answer.as_ref()
    }

    /// Replaces the answer with a whole one read afterwards (the driver's get-task fallback).
    pub fn replace(&mut self, r: SendResponse<'static>) {
        self.index = match &r {
            SendResponse::Task(t) => index_of(&t.artifacts),
            SendResponse::Message(_) => ArtifactIndex::default(),
        };
        self.answer = Some(r);
    }

    /// The answer, consuming the assembler.
    pub fn finish(self) -> Option<SendResponse<'static>> {
        self.answer
    }
}
