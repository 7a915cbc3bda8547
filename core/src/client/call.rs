//! The machine of one non-streaming call ([`UnaryCall`]); see the module docs of
//! [`crate::client`] for the contract.

use std::collections::VecDeque;

use super::common::{
    Outgoing, build_request, total_deadline, total_deadline_outcome as max_time_outcome,
};
use super::read::{Response, read_response};
use super::request::{HttpRequest, RequestId, Transmit, TransportFailure};
use super::{Call, ClientState};
use crate::classify::Asked;
use crate::envelope::{Method, RpcId};
use crate::model::SendResponse;
use crate::outcome::{ErrorName, Outcome, RequestSent, RetryAdvice};
use crate::resilience::{CallKind, RetryAction, RetryConfig, RetryPolicy};
use crate::time::Millis;

/// Per-call options. [`CallOptions::default`] is a plain call.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CallOptions {
    /// The caller's remaining turn budget: the call deadline is the shorter of this and
    /// [`super::ClientConfig::call_timeout`], counted from the call's start.
    pub budget: Option<Millis>,
    /// An absolute total deadline on the host's clock (a command's start plus its
    /// `--max-time`); with [`super::ClientConfig::max_time`], the earlier wins.
    pub deadline: Option<Millis>,
    /// The `traceparent` to send (the same on every attempt); a fresh one when `None`.
    pub traceparent: Option<String>,
    /// The `Idempotency-Key` header to send (kept across retries); it also allows a
    /// retry after an unknown outcome.
    pub idempotency_key: Option<String>,
    /// Extra headers for this call (checked by the reserved-header rule).
    pub headers: Vec<(String, String)>,
    /// The JSON-RPC id of the first request, for a host that numbers its requests; a
    /// fresh id is drawn when `None`, and always for a retry.
    pub rpc_id: Option<RpcId>,
}

/// The ids both sides can log for one call.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Correlation {
    /// The remote agent's name.
    pub agent: String,
    /// The A2A method called (`SendMessage`, `GetTask`, ...).
    pub method: String,
    /// The JSON-RPC id of the last request sent (JSON-RPC binding only).
    pub jsonrpc_id: Option<String>,
    /// The messageId sent (send calls).
    pub message_id: Option<String>,
    /// The task id, from the request or the response.
    pub task_id: Option<String>,
    /// The context id, from the request or the response.
    pub context_id: Option<String>,
    /// The remote's error_id, when present.
    pub error_id: Option<String>,
    /// The `traceparent` sent.
    pub traceparent: String,
    /// The `Idempotency-Key` sent, if any.
    pub idempotency_key: Option<String>,
    /// Time from the call's start to its result, on the host's clock.
    pub elapsed: Millis,
    /// Requests handed out (more than 1 only with retries).
    pub attempts: u32,
}

/// A complete HTTP response as the machine received it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpResponse {
    /// The status code.
    pub status: u16,
    /// The headers as the host reported them.
    pub headers: Vec<(String, String)>,
    /// The body.
    pub body: Vec<u8>,
}

impl HttpResponse {
    /// The first value of `name` (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The `Content-Type` header, if any.
    pub fn content_type(&self) -> Option<&str> {
        self.header("content-type")
    }
}

/// The result of one call: exactly one outcome, and what goes with it.
#[derive(Debug, Clone)]
pub struct CallResult {
    /// The outcome of the last attempt (exactly one channel).
    pub outcome: Outcome,
    /// The ids to log on both sides.
    pub correlation: Correlation,
    /// The last response, when one arrived (the body carries cards, lists, configs).
    pub response: Option<HttpResponse>,
    /// The agent's answer, normalized ([`crate::answer`]), for a task or message from
    /// send, get or cancel; never `None` with a success outcome for those methods.
    pub answer: Option<SendResponse<'static>>,
}

/// What a machine reports, in order, through [`UnaryCall::poll_event`].
///
/// Exhaustive on purpose: a host acts on every event (a new one would be ignored and the call
/// would hang), so a new kind is a deliberate breaking change.
#[derive(Debug, Clone)]
pub enum Event {
    /// Stop request `0` now (drop its connection): the machine gave up on it (its deadline
    /// passed, its body grew past the limit, or the call was canceled). Later inputs about
    /// it are refused as [`InputError::Stale`].
    Abort(RequestId),
    /// An attempt failed and the call will be sent again: a new request once `delay` has
    /// passed ([`UnaryCall::poll_timeout`] says when).
    Retrying {
        /// The attempt that will be made (2 for the first retry).
        attempt: u32,
        /// How long after the failed attempt's end.
        delay: Millis,
        /// Why the last attempt failed (boxed: events stay small).
        outcome: Box<Outcome>,
    },
    /// The call is over; always the last event.
    Finished(Box<CallResult>),
}

/// An input the machine cannot take. Nothing changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum InputError {
    /// The input is about a request the machine no longer waits for (it was aborted or
    /// its attempt ended): ignore it, and drop that request.
    #[error("the request is no longer in flight")]
    Stale,
    /// Body or end of body before the response head.
    #[error("body input before the response head")]
    NoHead,
    /// A second response head for the same request.
    #[error("the response head was already given")]
    HeadTwice,
    /// The call is over.
    #[error("the call is finished")]
    Finished,
}

/// The response head of the request in flight.
#[derive(Debug)]
struct Head {
    status: u16,
    headers: Vec<(String, String)>,
}

/// Where the call is.
#[derive(Debug)]
enum Phase {
    /// The next request is due: [`UnaryCall::poll_transmit`] hands it out.
    Ready,
    /// A request is out.
    InFlight {
        id: RequestId,
        deadline: Millis,
        head: Option<Head>,
        body: Vec<u8>,
        /// What the classifier must know about the request.
        wire_method: std::borrow::Cow<'static, str>,
    },
    /// A retry is scheduled for `until`.
    Waiting { until: Millis },
    /// [`Event::Finished`] was queued.
    Done,
}

/// What an attempt's end is reported to.
#[derive(Debug, Clone, Copy)]
struct Report {
    tally: bool,
    breaker: bool,
}

/// The state machine of one non-streaming call. See [`crate::client`] for the call order.
///
/// A streaming method (`SendStreamingMessage`, `SubscribeToTask`) is accepted too, read as a
/// whole body: its event stream is classified at the end, as [`crate::classify::classify`]
/// does, with no items and no answer; [`super::StreamCall`] is the machine for streams
/// (items as they arrive, idle deadline, resubscribe).
#[derive(Debug)]
pub struct UnaryCall {
    call: Call<'static>,
    method: Method,
    /// The `traceparent` (in the correlation) was drawn here, not given by the caller.
    traceparent_drawn: bool,
    headers: Vec<(String, String)>,
    first_rpc_id: Option<RpcId>,
    started: Millis,
    /// The shorter of the call timeout and the caller's budget.
    budget: Millis,
    /// `started + budget`, never after the total deadline.
    call_deadline: Millis,
    /// The total deadline, when it is the one that decides `call_deadline`.
    total_decides: bool,
    policy: Option<RetryPolicy>,
    attempt: u32,
    phase: Phase,
    correlation: Correlation,
    events: VecDeque<Event>,
}

impl UnaryCall {
    /// A call of `call` starting at `now` (the deadlines count from it). Nothing is sent
    /// until [`UnaryCall::poll_transmit`].
    pub fn new(
        state: &mut ClientState,
        call: Call<'static>,
        options: CallOptions,
        now: Millis,
    ) -> UnaryCall {
        let method = call.method();
        let config = state.config;
        let traceparent_drawn = options.traceparent.is_none();
        let traceparent = options
            .traceparent
            .unwrap_or_else(|| state.random.traceparent());
        let mut correlation = Correlation {
            agent: state.target.agent_name.clone(),
            method: method.name().to_owned(),
            traceparent,
            idempotency_key: options.idempotency_key,
            ..Correlation::default()
        };
        if let Call::SendMessage(p) | Call::SendStreamingMessage(p) = &call {
            correlation.message_id = Some(p.message.message_id.to_string());
            correlation.context_id = p.message.context_id.as_deref().map(str::to_owned);
            correlation.task_id = p.message.task_id.as_deref().map(str::to_owned);
        }
        if let Call::CancelTask(p) = &call {
            state.note_cancel_sent(&p.id);
        }
        let budget = options
            .budget
            .map_or(config.call_timeout, |b| b.min(config.call_timeout));
        let own = now.saturating_add(budget);
        let total = total_deadline(&config, options.deadline, now);
        let (call_deadline, total_decides) = match total {
            Some(t) if t <= own => (t, true),
            _ => (own, false),
        };
        let policy = (method == Method::SendMessage && config.send_retries > 0)
            .then(|| {
                let retry = RetryConfig {
                    kind: if correlation.idempotency_key.is_some() {
                        CallKind::WithIdempotencyKey
                    } else {
                        CallKind::SideEffecting
                    },
                    max_attempts: config.send_retries.saturating_add(1),
                    max_follow_ups: 0,
                    max_new_tasks: 0,
                    deadline: Some(call_deadline),
                    streaming: false,
                    ..RetryConfig::default()
                };
                RetryPolicy::new(retry, now).ok()
            })
            .flatten();
        UnaryCall {
            call,
            method,
            traceparent_drawn,
            headers: options.headers,
            first_rpc_id: options.rpc_id,
            started: now,
            budget,
            call_deadline,
            total_decides,
            policy,
            attempt: 0,
            phase: Phase::Ready,
            correlation,
            events: VecDeque::new(),
        }
    }

    /// The call this machine sends.
    #[cfg(feature = "driver")]
    pub(crate) fn call(&self) -> &Call<'static> {
        &self.call
    }

    /// The call deadline (see the module docs): every request of this call is over by then.
    pub fn deadline(&self) -> Millis {
        self.call_deadline
    }

    /// Whether [`Event::Finished`] has been queued (it may not have been polled yet).
    pub fn is_finished(&self) -> bool {
        matches!(self.phase, Phase::Done)
    }

    /// The next request to perform, when one is due at `now`; `None` otherwise (then look at
    /// [`UnaryCall::poll_event`]: a request that could not be sent, because the breaker
    /// refused it or a header was refused, ends its attempt without a [`Transmit`]).
    #[must_use]
    pub fn poll_transmit(&mut self, state: &mut ClientState, now: Millis) -> Option<Transmit> {
        if let Phase::Waiting { until } = self.phase
            && now >= until
        {
            self.phase = Phase::Ready;
        }
        if !matches!(self.phase, Phase::Ready) {
            return None;
        }
        self.attempt += 1;
        let id = RequestId(self.attempt);
        if now >= self.call_deadline {
            // Nothing of this attempt went out (earlier ones may have: the total
            // deadline's outcome says `unknown`).
            let o = if self.total_decides {
                max_time_outcome()
            } else {
                Outcome::transport(
                    ErrorName::Timeout,
                    RequestSent::No,
                    format!(
                        "call timeout after {} ms before the request was sent",
                        self.budget.0
                    ),
                )
            };
            let report = Report {
                tally: true,
                breaker: false,
            };
            self.end_attempt(state, o, None, None, now, report);
            return None;
        }
        if let Some(p) = self.policy.as_mut() {
            p.begin_attempt(now);
        }
        let (request, wire_method, rpc_id) = match self.build(state, id) {
            Ok(built) => built,
            Err(o) => {
                let report = Report {
                    tally: false,
                    breaker: false,
                };
                self.end_attempt(state, o, None, None, now, report);
                return None;
            }
        };
        if let Some(b) = state.breaker.as_mut()
            && !b.allow(now)
        {
            let o = b.refusal(now);
            let report = Report {
                tally: true,
                breaker: false,
            };
            self.end_attempt(state, o, None, None, now, report);
            return None;
        }
        // The request's JSON-RPC id is the correlation's (read from there by the classifier).
        self.correlation.jsonrpc_id = rpc_id;
        self.phase = Phase::InFlight {
            id,
            deadline: self.call_deadline,
            head: None,
            body: Vec::new(),
            wire_method,
        };
        Some(Transmit {
            id,
            request,
            connect_by: now
                .saturating_add(state.config.connect_timeout)
                .min(self.call_deadline),
            deadline: self.call_deadline,
        })
    }

    /// When the machine wants [`UnaryCall::handle_timeout`] called: the in-flight request's
    /// deadline, or the moment a scheduled retry may go out. `None` when it waits for
    /// nothing (a request is due, or the call is over).
    #[must_use]
    pub fn poll_timeout(&self) -> Option<Millis> {
        match self.phase {
            Phase::InFlight { deadline, .. } => Some(deadline),
            Phase::Waiting { until } => Some(until),
            Phase::Ready | Phase::Done => None,
        }
    }

    /// The next event, in order; `None` when there is none now.
    #[must_use]
    pub fn poll_event(&mut self) -> Option<Event> {
        self.events.pop_front()
    }

    /// The response head of request `id`: its status and headers (names in any case).
    ///
    /// # Errors
    /// [`InputError`] when `id` is not in flight or its head was already given.
    pub fn handle_head(
        &mut self,
        state: &mut ClientState,
        id: RequestId,
        status: u16,
        headers: Vec<(String, String)>,
        now: Millis,
    ) -> Result<(), InputError> {
        self.current(id)?;
        if self.late(state, now) {
            return Ok(());
        }
        let Phase::InFlight { head, .. } = &mut self.phase else {
            unreachable!("checked by current()")
        };
        if head.is_some() {
            return Err(InputError::HeadTwice);
        }
        *head = Some(Head { status, headers });
        Ok(())
    }

    /// A chunk of request `id`'s body (any size; the machine copies it). A body past
    /// [`super::ClientConfig::max_response_bytes`] ends the attempt as
    /// `transport`/`ResponseTooLarge` and queues [`Event::Abort`].
    ///
    /// # Errors
    /// [`InputError`] when `id` is not in flight or no head was given.
    pub fn handle_body(
        &mut self,
        state: &mut ClientState,
        id: RequestId,
        chunk: &[u8],
        now: Millis,
    ) -> Result<(), InputError> {
        if let Some(body) = self.admit_body(state, id, chunk.len(), now)? {
            body.extend_from_slice(chunk);
        }
        Ok(())
    }

    /// [`UnaryCall::handle_body`] with a body the driver read whole: the first chunk's
    /// buffer becomes the body (no copy and no second allocation per response).
    #[cfg(feature = "driver")]
    pub(crate) fn handle_body_vec(
        &mut self,
        state: &mut ClientState,
        id: RequestId,
        chunk: Vec<u8>,
        now: Millis,
    ) -> Result<(), InputError> {
        if let Some(body) = self.admit_body(state, id, chunk.len(), now)? {
            if body.is_empty() {
                *body = chunk;
            } else {
                body.extend_from_slice(&chunk);
            }
        }
        Ok(())
    }

    /// The checks of a body chunk of `len` bytes for request `id`: the body to append it
    /// to, or `None` when the chunk is dropped (the call is late, or the body grew past the
    /// limit and the attempt ended).
    fn admit_body(
        &mut self,
        state: &mut ClientState,
        id: RequestId,
        len: usize,
        now: Millis,
    ) -> Result<Option<&mut Vec<u8>>, InputError> {
        self.current(id)?;
        if matches!(&self.phase, Phase::InFlight { head: None, .. }) {
            return Err(InputError::NoHead);
        }
        if self.late(state, now) {
            return Ok(None);
        }
        let limit = state.config.max_response_bytes;
        let Phase::InFlight { body, .. } = &self.phase else {
            unreachable!("checked by current()")
        };
        if (body.len() as u64).saturating_add(len as u64) > limit {
            self.phase = Phase::Ready;
            // The server answered: the same call would produce the same body.
            let o = Outcome::transport(
                ErrorName::ResponseTooLarge,
                RequestSent::Unknown,
                format!("response body larger than the {limit}-byte limit"),
            )
            .with_retry(RetryAdvice::Never);
            self.events.push_back(Event::Abort(id));
            self.end_attempt(state, o, None, None, now, Report::BOTH);
            return Ok(None);
        }
        let Phase::InFlight { body, .. } = &mut self.phase else {
            unreachable!("checked by current()")
        };
        Ok(Some(body))
    }

    /// The end of request `id`'s body: the machine reads the response (outcome and
    /// answer), then retries or finishes.
    ///
    /// # Errors
    /// [`InputError`] when `id` is not in flight or no head was given.
    pub fn handle_end(
        &mut self,
        state: &mut ClientState,
        id: RequestId,
        now: Millis,
    ) -> Result<(), InputError> {
        self.current(id)?;
        if matches!(&self.phase, Phase::InFlight { head: None, .. }) {
            return Err(InputError::NoHead);
        }
        if self.late(state, now) {
            return Ok(());
        }
        let Phase::InFlight {
            head: Some(head),
            body,
            wire_method,
            ..
        } = std::mem::replace(&mut self.phase, Phase::Ready)
        else {
            unreachable!("checked above")
        };
        let target = &state.target;
        let asked = Asked {
            version: Some(target.version),
            binding: Some(target.binding),
            method: Some(&wire_method),
            request_id: self.correlation.jsonrpc_id.as_deref(),
        };
        let response = Response {
            status: head.status,
            headers: &head.headers,
            body: &body,
        };
        let (outcome, answer) =
            read_response(response, asked, self.method, target.version, target.binding);
        let response = HttpResponse {
            status: head.status,
            headers: head.headers,
            body,
        };
        self.end_attempt(state, outcome, Some(response), answer, now, Report::BOTH);
        Ok(())
    }

    /// The transport of request `id` failed (see [`TransportFailure::new`]). Once a head
    /// was given, the request was written whatever the failure says.
    ///
    /// # Errors
    /// [`InputError`] when `id` is not in flight.
    pub fn handle_failure(
        &mut self,
        state: &mut ClientState,
        id: RequestId,
        failure: TransportFailure,
        now: Millis,
    ) -> Result<(), InputError> {
        self.current(id)?;
        if self.late(state, now) {
            return Ok(());
        }
        let mut o = failure.outcome;
        if matches!(&self.phase, Phase::InFlight { head: Some(_), .. })
            && o.request_sent == Some(RequestSent::No)
        {
            // The advice follows: what may have arrived is not resent without a key.
            let retry = match o.retry {
                RetryAdvice::Backoff => RetryAdvice::UnknownOutcome,
                r => r,
            };
            o = o.with_request_sent(RequestSent::Unknown).with_retry(retry);
        }
        self.phase = Phase::Ready;
        self.end_attempt(state, o, None, None, now, Report::BOTH);
        Ok(())
    }

    /// Time has reached `now`: an in-flight request past its deadline times out (queuing
    /// [`Event::Abort`]); a scheduled retry becomes due. Calling it early does nothing.
    pub fn handle_timeout(&mut self, state: &mut ClientState, now: Millis) {
        match self.phase {
            Phase::InFlight { .. } => {
                self.late(state, now);
            }
            Phase::Waiting { until } if now >= until => self.phase = Phase::Ready,
            _ => {}
        }
    }

    /// The caller abandons the call: a request in flight is aborted ([`Event::Abort`]) and
    /// its breaker permit returned, and the call finishes as `transport`/`Reset` (never
    /// retried by the machine). Does nothing once the call is over.
    pub fn cancel(&mut self, state: &mut ClientState, now: Millis) {
        let sent = match std::mem::replace(&mut self.phase, Phase::Ready) {
            Phase::Done => {
                self.phase = Phase::Done;
                return;
            }
            Phase::InFlight { id, .. } => {
                self.events.push_back(Event::Abort(id));
                if let Some(b) = state.breaker.as_mut() {
                    b.release(now);
                }
                RequestSent::Unknown
            }
            // An earlier attempt may have reached the server.
            Phase::Ready | Phase::Waiting { .. } if self.attempt > 0 => RequestSent::Unknown,
            Phase::Ready | Phase::Waiting { .. } => RequestSent::No,
        };
        let mut o = Outcome::transport(ErrorName::Reset, sent, "canceled by the caller");
        o = self.with_interface(state, o);
        state
            .tally
            .record(&state.target.agent_name, self.method.name(), &o);
        self.correlation.attempts = self.attempt;
        self.finish(state, o, None, None, now);
    }

    /// Checks that `id` is the request in flight.
    fn current(&self, id: RequestId) -> Result<(), InputError> {
        match &self.phase {
            Phase::InFlight { id: cur, .. } if *cur == id => Ok(()),
            Phase::Done => Err(InputError::Finished),
            _ => Err(InputError::Stale),
        }
    }

    /// Times the request in flight out when `now` is at or past its deadline (queuing
    /// [`Event::Abort`]); whether it did.
    fn late(&mut self, state: &mut ClientState, now: Millis) -> bool {
        let Phase::InFlight { id, deadline, .. } = self.phase else {
            return false;
        };
        if now < deadline {
            return false;
        }
        self.phase = Phase::Ready;
        self.events.push_back(Event::Abort(id));
        let o = self.timeout_outcome();
        self.end_attempt(state, o, None, None, now, Report::BOTH);
        true
    }

    /// The outcome of a request cut by the call deadline.
    fn timeout_outcome(&self) -> Outcome {
        if self.total_decides {
            return max_time_outcome();
        }
        Outcome::transport(
            ErrorName::Timeout,
            RequestSent::Unknown,
            format!("call timeout after {} ms", self.budget.0),
        )
    }

    /// Builds attempt `id`'s request: headers admitted by the reserved-header rule, the
    /// envelope with a JSON-RPC id, the URL joined. (A failure is the attempt's outcome
    /// itself, built once on a path that ends the call: boxing it would buy nothing.)
    #[allow(clippy::result_large_err)]
    fn build(
        &mut self,
        state: &mut ClientState,
        id: RequestId,
    ) -> Result<(HttpRequest, std::borrow::Cow<'static, str>, Option<String>), Outcome> {
        let rpc_id = match self.first_rpc_id.take() {
            Some(given) if id.0 == 1 => Some(given),
            _ => None,
        };
        let built = build_request(
            state,
            Outgoing {
                call: &self.call,
                traceparent: &self.correlation.traceparent,
                traceparent_drawn: self.traceparent_drawn,
                idempotency_key: self.correlation.idempotency_key.as_deref(),
                headers: &self.headers,
                rpc_id,
                attempt: id.0,
            },
        )?;
        Ok((built.request, built.wire_method, built.rpc_id))
    }

    /// Ends the current attempt with `outcome`: reports it (tally, breaker), asks the retry
    /// policy, and schedules the next attempt or finishes.
    fn end_attempt(
        &mut self,
        state: &mut ClientState,
        mut outcome: Outcome,
        response: Option<HttpResponse>,
        answer: Option<SendResponse<'static>>,
        now: Millis,
        report: Report,
    ) {
        outcome = self.with_interface(state, outcome);
        if report.tally {
            state
                .tally
                .record(&state.target.agent_name, self.method.name(), &outcome);
        }
        if report.breaker
            && let Some(b) = state.breaker.as_mut()
        {
            b.record(&outcome, now);
        }
        self.correlation.attempts = self.attempt;
        let action = match self.policy.as_mut() {
            Some(p) => p.next(&outcome, now, state.random.next_u64()),
            None => RetryAction::Done,
        };
        if let RetryAction::RetryAfter(delay) = action {
            self.events.push_back(Event::Retrying {
                attempt: self.attempt + 1,
                delay,
                outcome: Box::new(outcome),
            });
            self.phase = Phase::Waiting {
                until: now.saturating_add(delay),
            };
            return;
        }
        self.finish(state, outcome, response, answer, now);
    }

    /// Queues [`Event::Finished`].
    fn finish(
        &mut self,
        state: &ClientState,
        mut outcome: Outcome,
        response: Option<HttpResponse>,
        answer: Option<SendResponse<'static>>,
        now: Millis,
    ) {
        state.settle_cancel_origin(&mut outcome);
        let c = &mut self.correlation;
        if outcome.task_id.is_some() {
            c.task_id.clone_from(&outcome.task_id);
        }
        if outcome.context_id.is_some() {
            c.context_id.clone_from(&outcome.context_id);
        }
        if outcome.error_id.is_some() {
            c.error_id.clone_from(&outcome.error_id);
        }
        c.elapsed = now.saturating_sub(self.started);
        self.phase = Phase::Done;
        self.events.push_back(Event::Finished(Box::new(CallResult {
            outcome,
            // The call is over: its record moves out (nothing reads it after this).
            correlation: std::mem::take(&mut self.correlation),
            response,
            answer,
        })));
    }

    /// The target's version and binding on an outcome that has none (a transport failure).
    fn with_interface(&self, state: &ClientState, o: Outcome) -> Outcome {
        let version = o.version.or(Some(state.target.version));
        let binding = o.binding.or(Some(state.target.binding));
        o.with_version(version).with_binding(binding)
    }
}

impl Report {
    /// Counted in the tally and reported to the breaker.
    const BOTH: Report = Report {
        tally: true,
        breaker: true,
    };
}

/// What the reference driver reports into the shared [`ClientState`] for a call that never
/// reached a machine (an unusable breaker configuration), so that the tally stays one per
/// client.
#[cfg(feature = "driver")]
impl ClientState {
    /// Counts `outcome` of a `method` call in the tally.
    pub(crate) fn record(&mut self, method: Method, outcome: &Outcome) {
        self.tally
            .record(&self.target.agent_name, method.name(), outcome);
    }
}
