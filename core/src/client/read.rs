//! A complete response read into the outcome and the answer, behind one function.
//!
//! For send, get and cancel the body is tokenized once ([`crate::tape::Tape`], through
//! [`crate::answer::classify_and_read`]): the classifier's union object and, for a task or
//! message, the answer's model are both read from that tape, so the bytes are parsed once
//! (issue 22); other methods' bodies are only classified (one scan). Only a body the tape refuses (not
//! JSON, nested deeper than serde_json reads) or an answer that cannot be read goes back to
//! serde_json, for the exact error and position the readers have always given.

use crate::classify::{Asked, ResponseInfo, classify};
use crate::envelope::Method;
use crate::model::SendResponse;
use crate::outcome::{Outcome, RetryAdvice};
use crate::version::{Binding, ProtocolVersion};

/// One complete response and what was asked.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Response<'a> {
    /// The status code.
    pub status: u16,
    /// The headers as received.
    pub headers: &'a [(String, String)],
    /// The whole body.
    pub body: &'a [u8],
}

/// The outcome of `response` and, when it carries one, the agent's answer. An answer that
/// cannot be read turns the outcome into `malformed` (what and where), never an empty
/// success.
pub(crate) fn read_response(
    response: Response<'_>,
    asked: Asked<'_>,
    method: Method,
    version: ProtocolVersion,
    binding: Binding,
) -> (Outcome, Option<SendResponse<'static>>) {
    let mut info = ResponseInfo::new(response.status, response.body).asked(asked);
    for (n, v) in response.headers {
        info = info.header(n, v);
    }
    if !reads_answer(method) {
        return (classify(&info), None);
    }
    match crate::answer::classify_and_read(&info, version, binding) {
        (outcome, None) => (outcome, None),
        (outcome, Some(Ok(r))) => (outcome, Some(r.into_owned())),
        (outcome, Some(Err(e))) => (unreadable(&outcome, &e, "the agent's answer"), None),
    }
}

/// Whether a method's result is a task or a message: send, get or cancel.
fn reads_answer(method: Method) -> bool {
    matches!(
        method,
        Method::SendMessage | Method::GetTask | Method::CancelTask
    )
}

/// The `malformed` outcome of content that could not be read, keeping the ids and last
/// state the classifier saw; advice `poll` when the task is known (read it again), else
/// `never`. (The one copy: the driver's streams use it too.)
pub(crate) fn unreadable(o: &Outcome, e: &crate::answer::ContentError, what: &str) -> Outcome {
    let retry = if o.task_id.is_some() {
        RetryAdvice::Poll
    } else {
        RetryAdvice::Never
    };
    let mut m = Outcome::malformed(format!("{what} could not be read: {e}"), retry)
        .with_task_id(o.task_id.clone())
        .with_context_id(o.context_id.clone())
        .with_last_state(o.state)
        .with_version(o.version)
        .with_binding(o.binding);
    if let Some(status) = o.http_status {
        m = m.with_http_status(status);
    }
    m
}
