//! A complete response read into the outcome and the answer, behind one function.
//!
//! Phase 1 of issue 22 keeps the two readers the driver uses: the classifier's borrowed
//! scan ([`crate::classify::classify`]), then, for a task or message from send, get or
//! cancel, the model reader ([`crate::answer::read_result`]). So a body is still parsed
//! twice; making it one pass changes `classify` and `answer` themselves and is left for the
//! next phase, behind this same function.

use crate::classify::{Asked, ResponseInfo, classify};
use crate::envelope::Method;
use crate::model::SendResponse;
use crate::outcome::{Channel, Outcome, RetryAdvice};
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
    let outcome = classify(&info);
    if !answers(method, &outcome) {
        return (outcome, None);
    }
    match crate::answer::read_result(response.body, version, binding) {
        Ok(r) => (outcome, Some(r.into_owned())),
        Err(e) => (unreadable(&outcome, &e, "the agent's answer"), None),
    }
}

/// Whether a call's outcome carries an answer to read: a task or message from send, get or
/// cancel.
pub(crate) fn answers(method: Method, o: &Outcome) -> bool {
    matches!(
        method,
        Method::SendMessage | Method::GetTask | Method::CancelTask
    ) && matches!(o.channel, Channel::Task | Channel::Message)
}

/// The `malformed` outcome of content that could not be read, keeping the ids and last
/// state the classifier saw; advice `poll` when the task is known (read it again), else
/// `never`. (The one copy: the driver's streams use it too.)
pub(crate) fn unreadable(o: &Outcome, e: &crate::answer::ContentError, what: &str) -> Outcome {
    let mut m = Outcome::empty(Channel::Malformed);
    m.http_status = o.http_status;
    m.message = Some(format!("{what} could not be read: {e}"));
    m.task_id.clone_from(&o.task_id);
    m.context_id.clone_from(&o.context_id);
    m.state = o.state;
    m.version = o.version;
    m.binding = o.binding;
    m.retry = if m.task_id.is_some() {
        RetryAdvice::Poll
    } else {
        RetryAdvice::Never
    };
    m
}
