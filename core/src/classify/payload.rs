//! Success shapes: a Task, a status update, an artifact update, a Message, or another
//! method's result; in both versions' shapes, wrapped in JSON-RPC or bare (REST).

use crate::error_id::{extract_error_id, leaked_detail};
use crate::outcome::{CancelOrigin, Outcome, TaskState};
use crate::version::{Binding, ProtocolVersion};

use super::method::MethodKind;
use super::scan::{BodyShape, ErrField, Msg, MsgField, Nested, StatusField, id_text};
use super::{CallContext, hint, malformed, protocol};

/// The kind of payload a success body (or stream event) carried.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PayloadKind {
    Task,
    StatusUpdate,
    ArtifactUpdate,
    Message,
    /// A result of a method whose result is neither task nor message.
    OtherResult,
}

/// A success payload read out of a body, before it becomes an outcome.
pub(crate) struct Payload {
    pub kind: PayloadKind,
    pub outcome: Outcome,
    /// 0.3 `final` on a status update.
    pub final_: Option<bool>,
    /// Artifact update: (artifact id, append, lastChunk).
    pub artifact: Option<(Option<String>, bool, bool)>,
}

/// Classifies a 2xx body that carries no protocol error.
pub(crate) fn success(ctx: &CallContext<'_>, obj: &BodyShape<'_>, body: &[u8]) -> Outcome {
    match read(ctx, obj, body) {
        Ok(p) => p.outcome,
        Err(o) => *o,
    }
}

/// Reads a success payload, or returns the malformed outcome that explains why not.
pub(crate) fn read(
    ctx: &CallContext<'_>,
    obj: &BodyShape<'_>,
    body: &[u8],
) -> Result<Payload, Box<Outcome>> {
    if matches!(obj.error, ErrField::BodyShape(_)) {
        return Err(Box::new(malformed(
            ctx,
            "error object without an integer code",
            body,
        )));
    }
    let is_rpc = obj.jsonrpc.0.is_some() || (obj.id.0.is_some() && obj.result.is_present());
    let (payload_obj, binding) = if is_rpc {
        match obj.jsonrpc.0.map(|r| r.get()) {
            Some("\"2.0\"") => {}
            Some(other) => {
                return Err(Box::new(malformed(
                    ctx,
                    format!("not JSON-RPC 2.0: jsonrpc is {other}, expected \"2.0\""),
                    body,
                )));
            }
            None => {
                return Err(Box::new(malformed(
                    ctx,
                    "not JSON-RPC 2.0: missing \"jsonrpc\"",
                    body,
                )));
            }
        }
        if let Some(bad) = protocol::id_problem(ctx, obj, false) {
            return Err(Box::new(malformed(ctx, bad, body)));
        }
        match &obj.result {
            Nested::BodyShape(r) => (r.as_ref(), Binding::JsonRpc),
            Nested::Absent => {
                return Err(Box::new(malformed(
                    ctx,
                    "JSON-RPC response with neither result nor error",
                    body,
                )));
            }
            Nested::Null | Nested::Other => {
                return other_result(ctx, Binding::JsonRpc, body);
            }
        }
    } else {
        if ctx.asked_binding() == Some(Binding::JsonRpc) {
            return Err(Box::new(malformed(
                ctx,
                "not a JSON-RPC 2.0 response: no \"jsonrpc\", \"result\" or \"error\"",
                body,
            )));
        }
        (obj, Binding::HttpJson)
    };
    let mut p = shape(ctx, payload_obj, binding, body)?;
    let version = match p.outcome.version {
        // 0.3 JSON-RPC results carry `kind` and kebab-case states; without both it is 1.0.
        None if binding == Binding::JsonRpc => Some(ProtocolVersion::V1_0),
        v => v,
    };
    // Set in place: the `with_*` chain moved the whole outcome, per stream event.
    p.outcome.binding = Some(binding);
    p.outcome.version = version;
    if let (Some(asked), Some(seen)) = (ctx.asked_version(), version)
        && asked != seen
    {
        p.outcome = p.outcome.with_hint(hint::other_shape(asked, seen));
    }
    Ok(p)
}

fn other_result(
    ctx: &CallContext<'_>,
    binding: Binding,
    body: &[u8],
) -> Result<Payload, Box<Outcome>> {
    let expects_other = ctx.method.is_some_and(|m| {
        matches!(
            m.kind,
            MethodKind::PushConfigCreate
                | MethodKind::PushConfigGet
                | MethodKind::PushConfigList
                | MethodKind::PushConfigDelete
                | MethodKind::ListTasks
                | MethodKind::ExtendedCard
        )
    });
    if !expects_other {
        return Err(Box::new(malformed(
            ctx,
            "result is not a Task or Message object",
            body,
        )));
    }
    Ok(Payload {
        kind: PayloadKind::OtherResult,
        outcome: Outcome::message().with_binding(binding),
        final_: None,
        artifact: None,
    })
}

/// Dispatches on the payload's shape: 1.0 wrappers, 0.3 `kind`, bare Task / Message.
fn shape(
    ctx: &CallContext<'_>,
    p: &BodyShape<'_>,
    binding: Binding,
    body: &[u8],
) -> Result<Payload, Box<Outcome>> {
    // 1.0 (and REST) one-key wrappers.
    let wrapped_version = match binding {
        Binding::JsonRpc => Some(ProtocolVersion::V1_0),
        Binding::HttpJson => None,
    };
    if let Some(t) = p.task.obj() {
        return task(ctx, t, PayloadKind::Task, wrapped_version, body);
    }
    if let MsgField::BodyShape(m) = &p.message {
        return Ok(message(m, wrapped_version));
    }
    if let Some(u) = p.status_update.obj() {
        return task(ctx, u, PayloadKind::StatusUpdate, wrapped_version, body);
    }
    if let Some(u) = p.artifact_update.obj() {
        return task(ctx, u, PayloadKind::ArtifactUpdate, wrapped_version, body);
    }
    // 0.3 `kind` discriminators.
    let v03 = Some(ProtocolVersion::V0_3);
    match p.kind.get() {
        Some("task") => return task(ctx, p, PayloadKind::Task, v03, body),
        Some("status-update") => return task(ctx, p, PayloadKind::StatusUpdate, v03, body),
        Some("artifact-update") => return task(ctx, p, PayloadKind::ArtifactUpdate, v03, body),
        Some("message") => return Ok(message(&as_msg(p), v03)),
        Some(other) => {
            return Err(Box::new(malformed(
                ctx,
                format!(
                    "unknown result kind {other:?}: expected task, message, status-update or artifact-update"
                ),
                body,
            )));
        }
        None => {}
    }
    // Bare Task (1.0 GetTask/CancelTask, REST get) and bare Message.
    if matches!(p.status, StatusField::BodyShape(_)) && p.id.0.is_some() {
        return task(ctx, p, PayloadKind::Task, None, body);
    }
    if p.message_id.0.is_some() && (p.parts.present || p.content.present) {
        return Ok(message(&as_msg(p), None));
    }
    if p.task_id.0.is_some() && matches!(p.status, StatusField::BodyShape(_)) {
        return task(ctx, p, PayloadKind::StatusUpdate, None, body);
    }
    if p.task_id.0.is_some() && p.artifact.is_some() {
        return task(ctx, p, PayloadKind::ArtifactUpdate, None, body);
    }
    other_result(ctx, binding, body).map_err(|_| {
        Box::new(malformed(
            ctx,
            "result fits neither version: expected a Task, a Message, or a task/status/artifact wrapper",
            body,
        ))
    })
}

fn as_msg<'a>(p: &BodyShape<'a>) -> Msg<'a> {
    Msg {
        kind: p.kind.clone(),
        message_id: p.message_id.clone(),
        context_id: p.context_id.clone(),
        task_id: p.task_id.clone(),
        role: p.role.clone(),
        parts: p.parts.clone(),
        content: p.content.clone(),
    }
}

fn message(m: &Msg<'_>, version: Option<ProtocolVersion>) -> Payload {
    let version = version.or_else(|| {
        let v03 = m.kind.0.is_some()
            || m.parts.has_kind
            || m.content.present
            || m.role.get().is_some_and(|r| !r.starts_with("ROLE_"));
        v03.then_some(ProtocolVersion::V0_3)
    });
    Payload {
        kind: PayloadKind::Message,
        outcome: Outcome::message()
            .with_text(m.text().map(str::to_owned))
            .with_context_id(m.context_id.get().map(str::to_owned))
            .with_task_id(m.task_id.get().map(str::to_owned))
            .with_version(version),
        final_: None,
        artifact: None,
    }
}

/// A Task, status update or artifact update.
fn task(
    ctx: &CallContext<'_>,
    t: &BodyShape<'_>,
    kind: PayloadKind,
    version: Option<ProtocolVersion>,
    body: &[u8],
) -> Result<Payload, Box<Outcome>> {
    let task_id = match kind {
        PayloadKind::Task => t.id.0.and_then(id_text).and_then(Result::ok),
        _ => t.task_id.0.clone(),
    };
    let Some(task_id) = task_id else {
        let what = match kind {
            PayloadKind::Task => "task without an id",
            PayloadKind::StatusUpdate => "status update without a taskId",
            _ => "artifact update without a taskId",
        };
        return Err(Box::new(malformed(ctx, what, body)));
    };
    let mut version = version;
    let mut artifact = None;
    let mut outcome = if kind == PayloadKind::ArtifactUpdate {
        let Some(a) = &t.artifact else {
            return Err(Box::new(malformed(
                ctx,
                "artifact update without an artifact",
                body,
            )));
        };
        artifact = Some((
            a.artifact_id.get().map(str::to_owned),
            t.append.0.unwrap_or(false),
            t.last_chunk.0.unwrap_or(false),
        ));
        if a.parts.has_kind {
            version = version.or(Some(ProtocolVersion::V0_3));
        }
        let mut out = Outcome::artifact_update();
        out.text = a.parts.text.as_deref().map(str::to_owned);
        out
    } else {
        let StatusField::BodyShape(status) = &t.status else {
            return Err(Box::new(malformed(
                ctx,
                "task without a status object",
                body,
            )));
        };
        let Some(state_text) = status.state.get() else {
            return Err(Box::new(malformed(
                ctx,
                "task status without a state",
                body,
            )));
        };
        let state = TaskState::parse(state_text);
        version = version.or_else(|| version_of_state(state_text));
        let mut text = None;
        if let MsgField::BodyShape(m) = &status.message {
            text = m.text().map(str::to_owned);
            if m.content.present || m.parts.has_kind {
                version = version.or(Some(ProtocolVersion::V0_3));
            }
        }
        with_status_text(Outcome::task(state), text)
    };
    if t.final_.0.is_some() {
        version = version.or(Some(ProtocolVersion::V0_3));
    }
    // Set in place rather than through the `with_*` chain: each of those moved the whole
    // outcome (a few hundred bytes), per stream event.
    outcome.task_id = Some(task_id.into_owned());
    outcome.context_id = t.context_id.get().map(str::to_owned);
    outcome.version = version;
    Ok(Payload {
        kind,
        outcome,
        final_: t.final_.0,
        artifact,
    })
}

/// A task outcome ([`Outcome::task`]) with its status text and what the text says beyond
/// the state (shared by the classifier and the stream tracker): a FAILED text's `error_id`
/// and `leaked_detail`; a CANCELED text's marker (`cancel_origin`); a terminal text's stable
/// hint (`remote_hint`), whose `retryable=false` (the seeds'
/// `[retryable=false; contact=payments-oncall]`) turns the advice into never.
pub(crate) fn with_status_text(out: Outcome, text: Option<String>) -> Outcome {
    let Some(state) = out.state else {
        return out.with_text(text);
    };
    let t = text.as_deref();
    let mut out = out;
    if state == TaskState::Failed {
        out = out
            .with_error_id(t.and_then(extract_error_id).map(str::to_owned))
            .with_leaked_detail(t.is_some_and(leaked_detail));
    }
    if state == TaskState::Canceled {
        out = out.with_cancel_origin(t.and_then(CancelOrigin::from_status_text));
    }
    if state.is_terminal() {
        let remote = t.and_then(hint::parse_remote_hint);
        let refused = remote.as_ref().and_then(|h| h.retryable) == Some(false);
        out = out.with_remote_hint(remote);
        if refused {
            out = out.with_retry(crate::outcome::RetryAdvice::Never);
        }
    }
    out.with_text(text)
}

/// 0.3 JSON-RPC spells states in kebab-case; the 0.3 proto spells canceled with two Ls.
fn version_of_state(state: &str) -> Option<ProtocolVersion> {
    if state == "TASK_STATE_CANCELLED" {
        Some(ProtocolVersion::V0_3)
    } else if state.starts_with("TASK_STATE_") {
        None
    } else if state.bytes().all(|b| b.is_ascii_lowercase() || b == b'-') {
        Some(ProtocolVersion::V0_3)
    } else {
        None
    }
}
