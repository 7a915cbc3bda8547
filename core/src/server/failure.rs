//! The statuses a server reports when its agent fails or refuses work.
//!
//! # FAILED, the ADK way
//! Google's ADK reports an agent failure as a FAILED task whose status message reads
//! `Agent execution failed. (error_id: <12 lowercase hex>)`. The id is the only link between
//! what the caller sees and the server's log; the real cause stays in the log. Build it
//! with [`failure_text`] / [`failed_update`]: the id comes from the caller (or from 6
//! caller-supplied random bytes) and is returned so the caller can log it beside the cause.
//! Detail is appended only when the caller explicitly passes it (debug mode); a stable hint
//! (`[retryable=false]`) can be appended for clients that read it.
//!
//! # CANCELED by admission vs. by request
//! A request refused before it ran (a full queue, a quota) and a cancel the client asked
//! for both end in CANCELED. They are told apart by the status message's metadata key
//! [`CANCEL_ORIGIN_KEY`] (`"admission"` or `"request"`), and, for peers that drop
//! metadata, by the text prefix ([`ADMISSION_PREFIX`]). [`cancel_origin`] reads either.

use std::borrow::Cow;
use std::fmt;

use serde_json::value::RawValue;

use crate::model::{Json, Message, Part, Role, TaskState, TaskStatus, TaskStatusUpdateEvent};
use crate::outcome::RemoteHint;

/// An ADK-style error id: 12 lower-case hex digits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ErrorId([u8; 12]);

impl ErrorId {
    /// The id of 6 random bytes (supplied by the caller: the core has no randomness).
    pub fn from_random(bytes: [u8; 6]) -> ErrorId {
        const HEX: &[u8; 16] = b"0123456789abcdef";
        let mut out = [0u8; 12];
        for (i, b) in bytes.iter().enumerate() {
            out[2 * i] = HEX[usize::from(b >> 4)];
            out[2 * i + 1] = HEX[usize::from(b & 15)];
        }
        ErrorId(out)
    }

    /// Parses an id the caller already has: exactly 12 lower-case hex digits.
    pub fn parse(text: &str) -> Option<ErrorId> {
        let b = text.as_bytes();
        if b.len() != 12 || !b.iter().all(|c| matches!(c, b'0'..=b'9' | b'a'..=b'f')) {
            return None;
        }
        let mut out = [0u8; 12];
        out.copy_from_slice(b);
        Some(ErrorId(out))
    }

    /// The 12 hex digits.
    pub fn as_str(&self) -> &str {
        std::str::from_utf8(&self.0).expect("ids are ASCII hex by construction")
    }
}

impl fmt::Display for ErrorId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The fixed first words of a FAILED status message.
pub const FAILED_PREFIX: &str = "Agent execution failed.";

fn clean(s: &str) -> String {
    s.chars()
        .map(|c| {
            if matches!(c, '[' | ']' | ';' | '=') || c.is_control() {
                '_'
            } else {
                c
            }
        })
        .collect::<String>()
        .trim()
        .to_owned()
}

/// Formats a stable hint: `[retryable=false; reason=quota]`. Characters that would break
/// the grammar (`[ ] ; =` and controls) inside keys and values become `_`.
pub fn format_hint(hint: &RemoteHint) -> String {
    let mut pairs: Vec<(String, String)> = hint
        .pairs
        .iter()
        .map(|(k, v)| (clean(k), clean(v)))
        .filter(|(k, _)| !k.is_empty())
        .collect();
    if let Some(r) = hint.retryable {
        pairs.retain(|(k, _)| k != "retryable");
        pairs.insert(0, ("retryable".to_owned(), r.to_string()));
    }
    let body: Vec<String> = pairs.iter().map(|(k, v)| format!("{k}={v}")).collect();
    format!("[{}]", body.join("; "))
}

/// `Agent execution failed. (error_id: <id>)`, then `: <detail>` only when the caller passes
/// debug detail (ADK's debug shape, `: <ExceptionClass>: <message>`, which clients flag as
/// `leaked_detail`), then ` <hint>` when given.
pub fn failure_text(
    error_id: ErrorId,
    debug_detail: Option<&str>,
    hint: Option<&RemoteHint>,
) -> String {
    let mut text = format!("{FAILED_PREFIX} (error_id: {error_id})");
    if let Some(d) = debug_detail.map(str::trim).filter(|d| !d.is_empty()) {
        text.push_str(": ");
        text.push_str(d);
    }
    if let Some(h) = hint {
        text.push(' ');
        text.push_str(&format_hint(h));
    }
    text
}

fn agent_message<'a>(
    message_id: Cow<'a, str>,
    task_id: &Cow<'a, str>,
    context_id: &Cow<'a, str>,
    text: String,
    metadata: Option<Json<'static>>,
) -> Message<'a> {
    let mut m = Message::new(message_id, Role::Agent, vec![Part::text(text)]);
    m.task_id = Some(task_id.clone());
    m.context_id = Some(context_id.clone());
    m.metadata = metadata;
    m
}

/// The final FAILED status update of a task, with the ADK text. Returns it with the id
/// used, to log beside the real cause.
pub fn failed_update<'a>(
    task_id: impl Into<Cow<'a, str>>,
    context_id: impl Into<Cow<'a, str>>,
    message_id: impl Into<Cow<'a, str>>,
    error_id: ErrorId,
    debug_detail: Option<&str>,
    hint: Option<&RemoteHint>,
) -> (TaskStatusUpdateEvent<'a>, ErrorId) {
    let (task_id, context_id) = (task_id.into(), context_id.into());
    let text = failure_text(error_id, debug_detail, hint);
    let status = TaskStatus {
        state: TaskState::Failed,
        message: Some(Box::new(agent_message(
            message_id.into(),
            &task_id,
            &context_id,
            text,
            None,
        ))),
        timestamp: None,
    };
    (
        TaskStatusUpdateEvent {
            task_id,
            context_id,
            status,
            is_final: true,
            metadata: None,
        },
        error_id,
    )
}

// The cancel vocabulary lives in `outcome` (the client's classifier reads the same marker).
pub use crate::outcome::{ADMISSION_PREFIX, CANCEL_ORIGIN_KEY, CancelOrigin, REQUESTED_TEXT};

fn origin_meta(origin: &str) -> Json<'static> {
    Json::from_value(&serde_json::json!({ CANCEL_ORIGIN_KEY: origin })).expect("static JSON")
}

/// The CANCELED status of a request refused before it ran, with the caller's reason.
pub fn admission_canceled<'a>(
    task_id: impl Into<Cow<'a, str>>,
    context_id: impl Into<Cow<'a, str>>,
    message_id: impl Into<Cow<'a, str>>,
    reason: &str,
) -> TaskStatus<'a> {
    let (task_id, context_id) = (task_id.into(), context_id.into());
    let text = format!("{ADMISSION_PREFIX} {}", reason.trim());
    TaskStatus {
        state: TaskState::Canceled,
        message: Some(Box::new(agent_message(
            message_id.into(),
            &task_id,
            &context_id,
            text,
            Some(origin_meta("admission")),
        ))),
        timestamp: None,
    }
}

/// The CANCELED status of a cancel the client asked for.
pub fn requested_cancel<'a>(
    task_id: impl Into<Cow<'a, str>>,
    context_id: impl Into<Cow<'a, str>>,
    message_id: impl Into<Cow<'a, str>>,
) -> TaskStatus<'a> {
    let (task_id, context_id) = (task_id.into(), context_id.into());
    TaskStatus {
        state: TaskState::Canceled,
        message: Some(Box::new(agent_message(
            message_id.into(),
            &task_id,
            &context_id,
            REQUESTED_TEXT.to_owned(),
            Some(origin_meta("request")),
        ))),
        timestamp: None,
    }
}

/// The origin of a CANCELED status: from the metadata key, else from the text; `None` for
/// other states or a cancel this module did not build.
pub fn cancel_origin(status: &TaskStatus<'_>) -> Option<CancelOrigin> {
    if status.state != TaskState::Canceled {
        return None;
    }
    let msg = status.message.as_deref()?;
    if let Some(meta) = &msg.metadata {
        #[derive(serde::Deserialize)]
        struct Meta<'m> {
            #[serde(borrow, rename = "a2aCoreCancelOrigin")]
            origin: Option<&'m RawValue>,
        }
        if let Ok(Meta { origin: Some(o) }) = serde_json::from_str::<Meta<'_>>(meta.get()) {
            match o.get() {
                "\"admission\"" => return Some(CancelOrigin::Admission),
                "\"request\"" => return Some(CancelOrigin::Requested),
                _ => {}
            }
        }
    }
    CancelOrigin::from_status_text(&msg.text()?)
}
