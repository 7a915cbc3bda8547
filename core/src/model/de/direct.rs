//! The answer's model read straight from a tape's tokens (issue 28): the common shapes
//! (task, message, status, artifact, status and artifact updates, parts) are walked token by
//! token into the same private mirrors serde's derived readers fill (`AnyIn`, `MessageIn`,
//! `StatusIn`, `ArtifactIn`, `PartIn`), which the same conversions then turn into the model,
//! without serde's visitors, its field-name visitor and the moves of every value through
//! their `Result`s (about a third of the driver's reading of an answer, callgrind).
//!
//! Every value is the one the serde read of the tape ([`Tape::read_at`]) gives at the same
//! token, and so is every failure (as a failure: the caller reads the body again with
//! serde_json for its exact error): a plain string, `null`, `true`/`false` and the objects
//! below are read here; any other token where a field's value lies (an escaped string, a
//! number for a string, a `file` part) is read by serde at that token, and an object serde
//! would refuse or read otherwise (an escaped key, a key given twice, any alias of one field
//! given twice; an object where a string was expected) is read whole by serde at its token.
//! Keys no mirror knows are skipped, as serde's derived readers skip them.

use std::borrow::Cow;

use serde::Deserialize;

use super::{AnyIn, ArtifactIn, MessageIn, PartIn, StateIn, StatusIn, Str, send_response};
use crate::model::types::*;
use crate::outcome::TaskState;
use crate::tape::{Kind, Tape, first_seen as first};

type R<T> = Result<T, serde_json::Error>;

/// A model value read from a tape at a token: by the direct reader where it knows the shape,
/// else by serde, with the same result either way (see the module docs).
pub(crate) trait FromTape<'a>: Sized {
    /// The value at token `pos` of `t`.
    fn from_tape(t: &Tape<'a>, pos: usize) -> R<Self>;
}

impl<'a> FromTape<'a> for SendResponse<'a> {
    fn from_tape(t: &Tape<'a>, pos: usize) -> R<Self> {
        match any_in(t, pos) {
            Some(any) => send_response(any?.into_event()?),
            None => t.read_at(pos),
        }
    }
}

impl<'a> FromTape<'a> for StreamEvent<'a> {
    fn from_tape(t: &Tape<'a>, pos: usize) -> R<Self> {
        match any_in(t, pos) {
            Some(any) => any?.into_event(),
            None => t.read_at(pos),
        }
    }
}

/// An optional string field (`Option<Str>`).
#[inline]
fn opt_str<'a>(t: &Tape<'a>, pos: usize) -> R<Option<Str<'a>>> {
    match t.kind(pos) {
        Kind::Null => Ok(None),
        Kind::Str => Ok(Some(Str(Cow::Borrowed(t.str_text(pos))))),
        _ => t.read_at(pos),
    }
}

/// An optional role (`Option<Role>`): a known name here, anything else by serde.
fn opt_role(t: &Tape<'_>, pos: usize) -> R<Option<Role>> {
    match t.kind(pos) {
        Kind::Null => Ok(None),
        Kind::Str => match Role::parse(t.str_text(pos)) {
            Some(r) if t.str_text(pos).len() <= 64 => Ok(Some(r)),
            _ => t.read_at(pos),
        },
        _ => t.read_at(pos),
    }
}

/// An optional task state (`Option<StateIn>`).
fn opt_state(t: &Tape<'_>, pos: usize) -> R<Option<StateIn>> {
    match t.kind(pos) {
        Kind::Null => Ok(None),
        Kind::Str if t.str_text(pos).len() <= 64 => {
            Ok(Some(StateIn(TaskState::parse(t.str_text(pos)))))
        }
        _ => t.read_at(pos),
    }
}

/// An optional flag (`Option<bool>`).
fn opt_bool(t: &Tape<'_>, pos: usize) -> R<Option<bool>> {
    match t.kind(pos) {
        Kind::Null => Ok(None),
        Kind::True => Ok(Some(true)),
        Kind::False => Ok(Some(false)),
        _ => t.read_at(pos),
    }
}

/// An optional raw JSON value (`Option<Json>`), as serde's raw-value token reads it.
fn opt_json<'a>(t: &Tape<'a>, pos: usize) -> R<Option<Json<'a>>> {
    match t.kind(pos) {
        Kind::Null => Ok(None),
        _ => t.read_at::<Json<'a>>(pos).map(Some),
    }
}

/// An optional list (`Option<Vec<T>>`) whose elements `elem` reads.
fn opt_vec<'a, T: Deserialize<'a>>(
    t: &Tape<'a>,
    pos: usize,
    elem: impl Fn(&Tape<'a>, usize) -> R<T>,
) -> R<Option<Vec<T>>> {
    match t.kind(pos) {
        Kind::Null => Ok(None),
        Kind::Arr => {
            let end = t.after(pos);
            let (mut at, mut n) = (pos + 1, 0);
            while at < end {
                at = t.after(at);
                n += 1;
            }
            let mut v = Vec::with_capacity(n);
            at = pos + 1;
            while at < end {
                v.push(elem(t, at)?);
                at = t.after(at);
            }
            Ok(Some(v))
        }
        _ => t.read_at(pos),
    }
}

/// One element of a list of strings (`Str`).
fn str_elem<'a>(t: &Tape<'a>, pos: usize) -> R<Str<'a>> {
    match t.kind(pos) {
        Kind::Str => Ok(Str(Cow::Borrowed(t.str_text(pos)))),
        _ => t.read_at(pos),
    }
}

/// A part (`Part`).
fn part<'a>(t: &Tape<'a>, pos: usize) -> R<Part<'a>> {
    match part_in(t, pos) {
        Some(p) => p?.into_model(),
        None => t.read_at(pos),
    }
}

fn part_in<'a>(t: &Tape<'a>, pos: usize) -> Option<R<PartIn<'a>>> {
    let mut p = PartIn::default();
    let mut seen = 0u32;
    for (key, v) in t.members(pos)? {
        let r = match key {
            "kind" if first(&mut seen, 0) => opt_str(t, v).map(|x| p.kind = x),
            "type" if first(&mut seen, 1) => opt_str(t, v).map(|x| p.legacy_kind = x),
            "text" if first(&mut seen, 2) => opt_str(t, v).map(|x| p.text = x),
            "raw" if first(&mut seen, 3) => opt_str(t, v).map(|x| p.raw = x),
            "url" if first(&mut seen, 4) => opt_str(t, v).map(|x| p.url = x),
            // Kept even when `null` (`some_json`).
            "data" if first(&mut seen, 5) => t.read_at::<Json<'a>>(v).map(|x| p.data = Some(x)),
            // A 0.3 file part: serde reads the part.
            "file" if first(&mut seen, 6) && t.kind(v) == Kind::Null => Ok(()),
            "metadata" if first(&mut seen, 7) => opt_json(t, v).map(|x| p.metadata = x),
            "filename" | "file_name" if first(&mut seen, 8) => {
                opt_str(t, v).map(|x| p.filename = x)
            }
            "mediaType" | "media_type" if first(&mut seen, 9) => {
                opt_str(t, v).map(|x| p.media_type = x)
            }
            "kind" | "type" | "text" | "raw" | "url" | "data" | "file" | "metadata"
            | "filename" | "file_name" | "mediaType" | "media_type" => return None,
            _ => Ok(()),
        };
        if let Err(e) = r {
            return Some(Err(e));
        }
    }
    Some(Ok(p))
}

/// A message (`Message`).
fn message<'a>(t: &Tape<'a>, pos: usize) -> R<Message<'a>> {
    match message_in(t, pos) {
        Some(m) => m?.into_model(),
        None => t.read_at(pos),
    }
}

fn message_in<'a>(t: &Tape<'a>, pos: usize) -> Option<R<MessageIn<'a>>> {
    let mut m = MessageIn::default();
    let mut seen = 0u32;
    for (key, v) in t.members(pos)? {
        let r = match key {
            "messageId" | "message_id" if first(&mut seen, 0) => {
                opt_str(t, v).map(|x| m.message_id = x)
            }
            "role" if first(&mut seen, 1) => opt_role(t, v).map(|x| m.role = x),
            "parts" if first(&mut seen, 2) => opt_vec(t, v, part).map(|x| m.parts = x),
            "content" if first(&mut seen, 3) => opt_vec(t, v, part).map(|x| m.content = x),
            "contextId" | "context_id" if first(&mut seen, 4) => {
                opt_str(t, v).map(|x| m.context_id = x)
            }
            "taskId" | "task_id" if first(&mut seen, 5) => opt_str(t, v).map(|x| m.task_id = x),
            "referenceTaskIds" | "reference_task_ids" if first(&mut seen, 6) => {
                opt_vec(t, v, str_elem).map(|x| m.reference_task_ids = x)
            }
            "extensions" if first(&mut seen, 7) => {
                opt_vec(t, v, str_elem).map(|x| m.extensions = x)
            }
            "metadata" if first(&mut seen, 8) => opt_json(t, v).map(|x| m.metadata = x),
            "kind" if first(&mut seen, 9) => opt_str(t, v).map(|x| m.kind = x),
            "messageId" | "message_id" | "role" | "parts" | "content" | "contextId"
            | "context_id" | "taskId" | "task_id" | "referenceTaskIds" | "reference_task_ids"
            | "extensions" | "metadata" | "kind" => return None,
            _ => Ok(()),
        };
        if let Err(e) = r {
            return Some(Err(e));
        }
    }
    Some(Ok(m))
}

/// A task status (`TaskStatus`).
fn status<'a>(t: &Tape<'a>, pos: usize) -> R<TaskStatus<'a>> {
    match status_in(t, pos) {
        Some(s) => Ok(s?.into_model()),
        None => t.read_at(pos),
    }
}

fn status_in<'a>(t: &Tape<'a>, pos: usize) -> Option<R<StatusIn<'a>>> {
    let mut s = StatusIn::default();
    let mut seen = 0u32;
    for (key, v) in t.members(pos)? {
        let r = match key {
            "state" if first(&mut seen, 0) => opt_state(t, v).map(|x| s.state = x),
            "message" | "update" if first(&mut seen, 1) => match t.kind(v) {
                Kind::Null => Ok(()),
                _ => message(t, v).map(|x| s.message = Some(x)),
            },
            "timestamp" if first(&mut seen, 2) => opt_str(t, v).map(|x| s.timestamp = x),
            "state" | "message" | "update" | "timestamp" => return None,
            _ => Ok(()),
        };
        if let Err(e) = r {
            return Some(Err(e));
        }
    }
    Some(Ok(s))
}

/// An artifact (`Artifact`).
fn artifact<'a>(t: &Tape<'a>, pos: usize) -> R<Artifact<'a>> {
    match artifact_in(t, pos) {
        Some(a) => a?.into_model(),
        None => t.read_at(pos),
    }
}

fn artifact_in<'a>(t: &Tape<'a>, pos: usize) -> Option<R<ArtifactIn<'a>>> {
    let mut a = ArtifactIn::default();
    let mut seen = 0u32;
    for (key, v) in t.members(pos)? {
        let r = match key {
            "artifactId" | "artifact_id" if first(&mut seen, 0) => {
                opt_str(t, v).map(|x| a.artifact_id = x)
            }
            "name" if first(&mut seen, 1) => opt_str(t, v).map(|x| a.name = x),
            "description" if first(&mut seen, 2) => opt_str(t, v).map(|x| a.description = x),
            "parts" if first(&mut seen, 3) => opt_vec(t, v, part).map(|x| a.parts = x),
            "metadata" if first(&mut seen, 4) => opt_json(t, v).map(|x| a.metadata = x),
            "extensions" if first(&mut seen, 5) => {
                opt_vec(t, v, str_elem).map(|x| a.extensions = x)
            }
            "artifactId" | "artifact_id" | "name" | "description" | "parts" | "metadata"
            | "extensions" => return None,
            _ => Ok(()),
        };
        if let Err(e) = r {
            return Some(Err(e));
        }
    }
    Some(Ok(a))
}

/// An optional boxed value read by `read` unless `null` (the wrappers, `artifact`).
fn opt_box<'a, T>(
    t: &Tape<'a>,
    pos: usize,
    read: impl FnOnce(&Tape<'a>, usize) -> R<T>,
) -> R<Option<Box<T>>> {
    match t.kind(pos) {
        Kind::Null => Ok(None),
        _ => read(t, pos).map(|x| Some(Box::new(x))),
    }
}

fn task<'a>(t: &Tape<'a>, pos: usize) -> R<Task<'a>> {
    match any_in(t, pos) {
        Some(any) => any?.into_task(),
        None => t.read_at(pos),
    }
}

fn status_update<'a>(t: &Tape<'a>, pos: usize) -> R<TaskStatusUpdateEvent<'a>> {
    match any_in(t, pos) {
        Some(any) => any?.into_status_update(),
        None => t.read_at(pos),
    }
}

fn artifact_update<'a>(t: &Tape<'a>, pos: usize) -> R<TaskArtifactUpdateEvent<'a>> {
    match any_in(t, pos) {
        Some(any) => any?.into_artifact_update(),
        None => t.read_at(pos),
    }
}

/// The union object of a task, message or update (`AnyIn`).
fn any_in<'a>(t: &Tape<'a>, pos: usize) -> Option<R<AnyIn<'a>>> {
    let mut a = AnyIn::default();
    let mut seen = 0u32;
    for (key, v) in t.members(pos)? {
        let r = match key {
            "kind" if first(&mut seen, 0) => opt_str(t, v).map(|x| a.kind = x),
            "task" if first(&mut seen, 1) => opt_box(t, v, task).map(|x| a.task = x),
            "message" | "msg" if first(&mut seen, 2) => {
                opt_box(t, v, message).map(|x| a.message = x)
            }
            "statusUpdate" | "status_update" if first(&mut seen, 3) => {
                opt_box(t, v, status_update).map(|x| a.status_update = x)
            }
            "artifactUpdate" | "artifact_update" if first(&mut seen, 4) => {
                opt_box(t, v, artifact_update).map(|x| a.artifact_update = x)
            }
            "id" if first(&mut seen, 5) => opt_str(t, v).map(|x| a.id = x),
            "contextId" | "context_id" if first(&mut seen, 6) => {
                opt_str(t, v).map(|x| a.context_id = x)
            }
            "status" if first(&mut seen, 7) => match t.kind(v) {
                Kind::Null => Ok(()),
                _ => status(t, v).map(|x| a.status = Some(x)),
            },
            "artifacts" if first(&mut seen, 8) => opt_vec(t, v, artifact).map(|x| a.artifacts = x),
            "history" if first(&mut seen, 9) => opt_vec(t, v, message).map(|x| a.history = x),
            "metadata" if first(&mut seen, 10) => opt_json(t, v).map(|x| a.metadata = x),
            "messageId" | "message_id" if first(&mut seen, 11) => {
                opt_str(t, v).map(|x| a.message_id = x)
            }
            "role" if first(&mut seen, 12) => opt_role(t, v).map(|x| a.role = x),
            "parts" if first(&mut seen, 13) => opt_vec(t, v, part).map(|x| a.parts = x),
            "content" if first(&mut seen, 14) => opt_vec(t, v, part).map(|x| a.content = x),
            "taskId" | "task_id" if first(&mut seen, 15) => opt_str(t, v).map(|x| a.task_id = x),
            "referenceTaskIds" | "reference_task_ids" if first(&mut seen, 16) => {
                opt_vec(t, v, str_elem).map(|x| a.reference_task_ids = x)
            }
            "extensions" if first(&mut seen, 17) => {
                opt_vec(t, v, str_elem).map(|x| a.extensions = x)
            }
            "final" if first(&mut seen, 18) => opt_bool(t, v).map(|x| a.is_final = x),
            "artifact" if first(&mut seen, 19) => opt_box(t, v, artifact).map(|x| a.artifact = x),
            "append" if first(&mut seen, 20) => opt_bool(t, v).map(|x| a.append = x),
            "lastChunk" | "last_chunk" if first(&mut seen, 21) => {
                opt_bool(t, v).map(|x| a.last_chunk = x)
            }
            "kind" | "task" | "message" | "msg" | "statusUpdate" | "status_update"
            | "artifactUpdate" | "artifact_update" | "id" | "contextId" | "context_id"
            | "status" | "artifacts" | "history" | "metadata" | "messageId" | "message_id"
            | "role" | "parts" | "content" | "taskId" | "task_id" | "referenceTaskIds"
            | "reference_task_ids" | "extensions" | "final" | "artifact" | "append"
            | "lastChunk" | "last_chunk" => return None,
            _ => Ok(()),
        };
        if let Err(e) = r {
            return Some(Err(e));
        }
    }
    Some(Ok(a))
}

#[cfg(test)]
pub(crate) mod tests {
    //! The direct reader against the serde read of the same tape at the same token, on
    //! generated objects of every shape it reads: each key spelled either way, given twice,
    //! escaped, `null`, of the wrong type, unknown keys, nested wrappers.

    use proptest::prelude::*;

    use super::*;

    /// Deterministic choices from proptest's bytes.
    struct Gen<'b> {
        b: &'b [u8],
        i: usize,
    }

    impl Gen<'_> {
        fn next(&mut self) -> usize {
            let v = self.b.get(self.i).copied().unwrap_or(0);
            self.i += 1;
            usize::from(v)
        }
        fn one_in(&mut self, n: usize) -> bool {
            self.next().is_multiple_of(n)
        }
        fn pick<'s>(&mut self, xs: &[&'s str]) -> &'s str {
            xs[self.next() % xs.len()]
        }
    }

    #[derive(Clone, Copy)]
    enum Shape {
        Any,
        Message,
        Status,
        Artifact,
        Part,
        Str,
        Strs,
        Bool,
        Json,
        Role,
        State,
        List(&'static Shape),
    }

    const WORDS: &[&str] = &[
        "\"user\"",
        "\"agent\"",
        "\"ROLE_USER\"",
        "\"completed\"",
        "\"TASK_STATE_WORKING\"",
        "\"task\"",
        "\"message\"",
        "\"status-update\"",
        "\"artifact-update\"",
        "\"text\"",
        "\"file\"",
        "\"data\"",
        "\"t-1\"",
        "\"a\\nb\"",
        "\"\\u0075ser\"",
        "null",
        "true",
        "false",
        "1",
        "-2",
        "2.5",
        "[]",
        "{}",
        "[\"a\",\"b\"]",
        "{\"a\":[1,null]}",
    ];

    /// The keys of a shape's mirror, each with its spellings and the shape of its value.
    fn keys(shape: Shape) -> &'static [(&'static [&'static str], Shape)] {
        use Shape::*;
        const PARTS: Shape = List(&Part);
        match shape {
            Part => &[
                (&["kind"], Str),
                (&["type"], Str),
                (&["text"], Str),
                (&["raw"], Str),
                (&["url"], Str),
                (&["data"], Json),
                (&["file"], Json),
                (&["metadata"], Json),
                (&["filename", "file_name"], Str),
                (&["mediaType", "media_type"], Str),
            ],
            Message => &[
                (&["messageId", "message_id"], Str),
                (&["role"], Role),
                (&["parts"], PARTS),
                (&["content"], PARTS),
                (&["contextId", "context_id"], Str),
                (&["taskId", "task_id"], Str),
                (&["referenceTaskIds", "reference_task_ids"], Strs),
                (&["extensions"], Strs),
                (&["metadata"], Json),
                (&["kind"], Str),
            ],
            Status => &[
                (&["state"], State),
                (&["message", "update"], Message),
                (&["timestamp"], Str),
            ],
            Artifact => &[
                (&["artifactId", "artifact_id"], Str),
                (&["name"], Str),
                (&["description"], Str),
                (&["parts"], PARTS),
                (&["metadata"], Json),
                (&["extensions"], Strs),
            ],
            _ => &[
                (&["kind"], Str),
                (&["task"], Any),
                (&["message", "msg"], Message),
                (&["statusUpdate", "status_update"], Any),
                (&["artifactUpdate", "artifact_update"], Any),
                (&["id"], Str),
                (&["contextId", "context_id"], Str),
                (&["status"], Status),
                (&["artifacts"], List(&Artifact)),
                (&["history"], List(&Message)),
                (&["metadata"], Json),
                (&["messageId", "message_id"], Str),
                (&["role"], Role),
                (&["parts"], PARTS),
                (&["content"], PARTS),
                (&["taskId", "task_id"], Str),
                (&["referenceTaskIds", "reference_task_ids"], Strs),
                (&["extensions"], Strs),
                (&["final"], Bool),
                (&["artifact"], Artifact),
                (&["append"], Bool),
                (&["lastChunk", "last_chunk"], Bool),
            ],
        }
    }

    fn value(g: &mut Gen<'_>, shape: Shape, depth: usize, out: &mut String) {
        if g.one_in(24) || (depth > 4 && !matches!(shape, Shape::Str | Shape::Bool)) {
            out.push_str(g.pick(WORDS));
            return;
        }
        match shape {
            Shape::Str => out.push_str(g.pick(&["\"t-1\"", "\"hi\"", "\"text\"", "\"a\\\"b\""])),
            Shape::Role => {
                out.push_str(g.pick(&["\"user\"", "\"agent\"", "\"ROLE_AGENT\"", "\"x\""]))
            }
            Shape::State => {
                out.push_str(g.pick(&["\"completed\"", "\"TASK_STATE_FAILED\"", "\"?\""]))
            }
            Shape::Bool => out.push_str(g.pick(&["true", "false", "null"])),
            Shape::Json => out.push_str(g.pick(&["{\"k\":\"v\"}", "null", "[1,2.5e3]", "\"s\""])),
            Shape::Strs => out.push_str(g.pick(&["[\"a\",\"b\"]", "[]", "[\"a\",1]", "[null]"])),
            Shape::List(inner) => {
                out.push('[');
                for i in 0..g.next() % 3 {
                    if i > 0 {
                        out.push(',');
                    }
                    value(g, *inner, depth + 1, out);
                }
                out.push(']');
            }
            _ => {
                let keys = keys(shape);
                out.push('{');
                // Mostly the keys that make a valid object of the shape first, so that
                // most objects read (and not only their failures are compared).
                let base: &[&str] = if g.one_in(4) {
                    &[]
                } else {
                    match shape {
                        Shape::Part => &[g.pick(&[
                            r#""text":"hi""#,
                            r#""kind":"text","text":"hi""#,
                            r#""kind":"data","data":{"a":1}"#,
                            r#""url":"https://x""#,
                        ])],
                        Shape::Message => &[r#""messageId":"m""#],
                        Shape::Status => &[r#""state":"working""#],
                        Shape::Artifact => &[r#""artifactId":"a""#],
                        _ => &[g.pick(&[
                            r#""kind":"task","id":"t","status":{"state":"completed"}"#,
                            r#""id":"t","status":{}"#,
                            r#""kind":"message","messageId":"m""#,
                            r#""kind":"status-update","taskId":"t","status":{}"#,
                            r#""taskId":"t","artifact":{"artifactId":"a"}"#,
                        ])],
                    }
                };
                out.push_str(&base.concat());
                for i in 0..g.next() % 6 {
                    if i > 0 || !base.is_empty() {
                        out.push(',');
                    }
                    if g.one_in(16) {
                        out.push_str("\"unknown\":");
                        out.push_str(g.pick(WORDS));
                        continue;
                    }
                    let (names, vshape) = keys[g.next() % keys.len()];
                    let name = names[g.next() % names.len()];
                    if g.one_in(40) {
                        // The same key with an escape.
                        out.push_str(&format!("\"\\u{:04x}{}\":", name.as_bytes()[0], &name[1..]));
                    } else {
                        out.push_str(&format!("\"{name}\":"));
                    }
                    value(g, vshape, depth + 1, out);
                }
                out.push('}');
            }
        }
    }

    fn same<'a, T: FromTape<'a> + Deserialize<'a> + std::fmt::Debug>(t: &Tape<'a>, doc: &str) {
        let direct = T::from_tape(t, 0).map(|v| format!("{v:?}")).ok();
        let serde = t.read_at::<T>(0).map(|v| format!("{v:?}")).ok();
        assert_eq!(direct, serde, "{doc}");
    }

    /// A generated object of any shape the direct reader reads, from proptest's bytes (the
    /// classifier's direct reader is tested on them too).
    pub(crate) fn generated_object(choices: &[u8]) -> String {
        let mut g = Gen { b: choices, i: 0 };
        let mut doc = String::new();
        value(&mut g, Shape::Any, 0, &mut doc);
        doc
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 4096, ..ProptestConfig::default() })]

        /// Generated objects read the same both ways, as a send result and as an event.
        #[test]
        fn the_direct_reader_reads_what_serde_reads(choices in prop::collection::vec(any::<u8>(), 0..400)) {
            let doc = generated_object(&choices);
            let tape = Tape::parse(doc.as_bytes()).expect("generated JSON tokenizes");
            same::<SendResponse<'_>>(&tape, &doc);
            same::<StreamEvent<'_>>(&tape, &doc);
        }
    }

    /// A plain task, message and both updates read by the direct reader itself (no
    /// serde fallback), equal to serde's reading.
    #[test]
    fn common_shapes_read_the_same() {
        for doc in [
            r#"{"id":"t","contextId":"c","status":{"state":"completed","timestamp":"2026"},"artifacts":[{"artifactId":"a","name":"echo","parts":[{"kind":"text","text":"ping"}]}],"history":[{"role":"user","parts":[{"kind":"text","text":"ping"}],"messageId":"m","taskId":"t","contextId":"c","kind":"message"}],"kind":"task"}"#,
            r#"{"kind":"message","messageId":"m","role":"agent","parts":[{"kind":"data","data":{"a":1}},{"kind":"file","file":{"bytes":"aGk="}}],"metadata":{"k":"v"}}"#,
            r#"{"task":{"id":"t","contextId":"c","status":{"state":"TASK_STATE_WORKING"}}}"#,
            r#"{"kind":"status-update","taskId":"t","contextId":"c","status":{"state":"working","message":{"messageId":"m","role":"agent","parts":[{"text":"a\nb"}]}},"final":false}"#,
            r#"{"artifactUpdate":{"taskId":"t","artifact":{"artifactId":"a","parts":[{"text":"x"}]},"append":true,"lastChunk":false}}"#,
        ] {
            let tape = Tape::parse(doc.as_bytes()).expect("tokenizes");
            assert!(StreamEvent::from_tape(&tape, 0).is_ok(), "{doc}");
            same::<SendResponse<'_>>(&tape, doc);
            same::<StreamEvent<'_>>(&tape, doc);
        }
    }
}
