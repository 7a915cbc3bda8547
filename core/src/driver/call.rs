//! Non-streaming A2A calls: the core's [`UnaryCall`] machine (which builds, runs the hooks,
//! checks credentials and the breaker, classifies, reads the answer, retries and counts)
//! run by the driver's loop ([`super::run()`]), and the per-call options and records
//! streams share.

use std::borrow::Cow;
use std::collections::VecDeque;
use std::time::{Duration, Instant};

use super::Client;
use super::correlation::{Correlation, new_id, new_traceparent};
use super::exchange::HttpResponse;
use super::run::{EventRole, Exchange, InFlight, Input, RunMachine, run};
use crate::client::{self, Event, RequestId, Transmit, UnaryCall};
use crate::model::params::{Call, GetTaskParams, SendMessageParams, TaskIdParams};
use crate::model::{Json, Message, Part, SendResponse, params};
use crate::outcome::{ErrorName, Outcome, RequestSent};
use crate::time::Millis;

/// Per-call options. Everything is optional; [`CallOptions::default`] is a plain call.
#[derive(Debug, Clone, Default)]
pub struct CallOptions {
    /// The caller's remaining turn budget: the call's deadline is the shorter of this and
    /// the configured call timeout. For streams it bounds the wait for the response head.
    pub timeout: Option<Duration>,
    /// Stream idle timeout for this call (per agent overrides), instead of the configured one.
    pub idle_timeout: Option<Duration>,
    /// The `traceparent` to send; a fresh one is generated when `None`.
    pub traceparent: Option<String>,
    /// The `Idempotency-Key` header to send (kept across retries).
    pub idempotency_key: Option<String>,
    /// The messageId for send and stream calls; a fresh one is generated when `None` (and
    /// then kept across the driver's own retries).
    pub message_id: Option<String>,
    /// The context id to continue (send and stream).
    pub context_id: Option<String>,
    /// The task id to continue (send and stream, e.g. after input-required).
    pub task_id: Option<String>,
    /// Extra headers for this call (checked by the envelope: no CR/LF, no reserved names).
    pub headers: Vec<(String, String)>,
    /// How many history messages the answer's task should carry (send, stream and get;
    /// `historyLength`); `None` leaves it to the agent.
    pub history_length: Option<i32>,
    /// An absolute total deadline for the whole call (a command's start plus its
    /// `--max-time`): as [`super::ClientConfig::max_time`], the earlier wins.
    pub deadline: Option<Instant>,
    /// Send calls: ask the agent to answer at once with the task as it stands
    /// (`returnImmediately` in 1.0, `blocking: false` in 0.3), then follow it with
    /// [`Client::wait_task`]; `false` leaves it to the agent (which waits).
    pub return_immediately: bool,
}

/// The result of one non-streaming call.
#[derive(Debug, Clone)]
pub struct CallResult {
    /// The outcome (exactly one channel).
    pub outcome: Outcome,
    /// The ids to log on both sides.
    pub correlation: Correlation,
    /// The HTTP response, when one arrived (the body carries artifacts, cards, lists).
    pub response: Option<HttpResponse>,
    /// The agent's answer, normalized ([`crate::answer`]): the task (status, artifacts,
    /// history) or message a send, get or cancel returned. `None` for other calls and for
    /// outcomes without one; an answer that could not be read is never `None` with a
    /// success outcome: the outcome is `malformed` instead, saying what and where.
    pub answer: Option<SendResponse<'static>>,
}

impl Client {
    /// Runs any non-streaming call (send, get, list, cancel, push configs, extended card) on
    /// the core's [`UnaryCall`] machine with the driver's loop ([`super::run()`]): it only
    /// performs each request the machine hands out (connect timeout, the deadline it gives,
    /// the body limit), feeds the response or the transport failure back, and sleeps until
    /// a scheduled retry.
    ///
    /// A `SendMessage` is retried only when [`super::ClientConfig::send_retries`] is above 0,
    /// inside the call's budget, always with the same messageId and idempotency key (a new
    /// JSON-RPC id): after `backoff` (provably not received), and after `unknown_outcome`
    /// (a 502/504, a timeout after writing, a dropped connection) only with an idempotency key.
    pub fn call(&self, call: &Call<'_>, opts: &CallOptions) -> CallResult {
        self.call_owned(call.to_static(), opts)
    }

    /// [`Client::call`] of a call already owned: the machine keeps it as it is (no copy).
    fn call_owned(&self, call: Call<'static>, opts: &CallOptions) -> CallResult {
        let started = Instant::now();
        let total = self.total_from(started, opts);
        let target = self.target_within(total);
        let options = self.machine_options(opts);
        if let Err(o) = target {
            return unsent(&call, opts, o, started);
        }
        let mut slot = self.machine();
        let Some(m) = slot.as_mut() else {
            drop(slot);
            return unsent(&call, opts, no_state(), started);
        };
        if let Some(o) = &m.breaker_error {
            m.state.record(call.method(), o);
            let o = o.clone();
            drop(slot);
            return unsent(&call, opts, o, started);
        }
        let mut machine = UnaryCall::new(&mut m.state, call, options, self.now());
        drop(slot);
        let mut on = Unary {
            client: self,
            m: &mut machine,
        };
        // Every request is read whole: nothing stays in flight between runs.
        let mut flight = InFlight::default();
        let mut events = VecDeque::new();
        loop {
            let mut now = self.now();
            if let Err(o) = run(&mut on, &mut flight, &mut events, self, None, &mut now) {
                return unsent(machine.call(), opts, o, started);
            }
            while let Some(e) = events.pop_front() {
                if let Event::Finished(r) = e {
                    return from_machine(*r, started);
                }
            }
        }
    }

    /// The machine's options of a call: the caller's budget, deadline and headers.
    pub(crate) fn machine_options(&self, opts: &CallOptions) -> client::CallOptions {
        client::CallOptions {
            budget: opts.timeout.map(super::millis_of),
            deadline: opts.deadline.map(|d| self.millis_at(d)),
            traceparent: opts.traceparent.clone(),
            idempotency_key: opts.idempotency_key.clone(),
            headers: opts.headers.clone(),
            rpc_id: None,
        }
    }

    /// The call budget: the caller's remaining turn budget or the configured call timeout,
    /// whichever is shorter.
    pub(crate) fn call_budget(&self, budget: Option<Duration>) -> Duration {
        match budget {
            Some(b) => b.min(self.inner.config.call_timeout),
            None => self.inner.config.call_timeout,
        }
    }

    /// Sends a user text message (`message/send`, `SendMessage`) and waits for the answer.
    /// The messageId is `opts.message_id` or a fresh one (reported in the correlation).
    pub fn send_text(&self, text: &str, opts: &CallOptions) -> CallResult {
        self.send_parts(vec![Part::text(text)], None, opts)
    }

    /// Sends a user message of any parts (text, data, file bytes, file URL; at least one)
    /// with optional message metadata, and waits for the answer. File URLs are passed on,
    /// never fetched.
    pub fn send_parts(
        &self,
        parts: Vec<Part<'_>>,
        metadata: Option<Json<'_>>,
        opts: &CallOptions,
    ) -> CallResult {
        let message = user_message(parts, metadata, opts);
        // Owned once here (the fresh message id and the parts' list move; borrowed text is
        // copied): the machine keeps this call rather than a second copy of it.
        self.call_owned(
            Call::SendMessage(send_params(message, opts)).into_owned(),
            opts,
        )
    }

    /// Reads a task (`tasks/get`, `GetTask`), with `opts.history_length` history messages.
    pub fn get_task(&self, task_id: &str, opts: &CallOptions) -> CallResult {
        self.call(
            &Call::GetTask(GetTaskParams {
                id: Cow::Borrowed(task_id),
                history_length: opts.history_length,
                metadata: None,
            }),
            opts,
        )
    }

    /// Waits for task `task_id` to settle: polls it with `GetTask` (each poll a full call
    /// with `opts`: timeout, hooks, breaker) at the growing, bounded intervals of `wait`
    /// (see [`client::TaskWait`]) until it reaches a terminal or interrupted state, a poll
    /// fails in a way another would not change, or `wait.max_time` (or `opts.deadline`,
    /// the earlier) passes. The result is the last poll's, except after the deadline: then
    /// its outcome is `transport`/`Timeout` naming the task and its last state (advice
    /// `poll`), with the last poll's answer kept. Blocks the calling thread.
    pub fn wait_task(
        &self,
        task_id: &str,
        wait: client::WaitConfig,
        opts: &CallOptions,
    ) -> CallResult {
        let started = Instant::now();
        let mut wait = wait;
        if let Some(d) = opts.deadline {
            let left = d.saturating_duration_since(started).as_millis() as u64;
            wait.max_time = Millis(wait.max_time.0.min(left));
        }
        let mut plan = client::TaskWait::new(task_id, opts.history_length, wait, Millis(0));
        let deadline = started + Duration::from_millis(plan.deadline().0);
        let poll_opts = CallOptions {
            deadline: Some(deadline),
            ..opts.clone()
        };
        loop {
            let mut r = self.call(&plan.poll_call(), &poll_opts);
            let now = Millis(started.elapsed().as_millis() as u64);
            match plan.read(&r.outcome, now) {
                client::WaitStep::Done => return r,
                client::WaitStep::GaveUp(o) => {
                    r.outcome = *o;
                    return r;
                }
                client::WaitStep::PollAt(at) => {
                    let at = started + Duration::from_millis(at.0);
                    std::thread::sleep(at.saturating_duration_since(Instant::now()));
                }
            }
        }
    }

    /// Falls back from a stream to polling: when the stream that ended with `end` left its
    /// task unsettled and could not be resumed (its resubscribes spent or refused, the one
    /// `GetTask` after a refusal still unsettled, a state this client does not know; see
    /// [`Client::stream_fallback`]), waits for the task as [`Client::wait_task`] does, within
    /// what remains of `opts.deadline` (or `wait.max_time`, the shorter). `None`: the
    /// stream's result stands.
    pub fn wait_after_stream(
        &self,
        end: &super::StreamFinal,
        wait: client::WaitConfig,
        opts: &CallOptions,
    ) -> Option<CallResult> {
        let (task, wait) = self.stream_fallback(end, wait, opts)?;
        Some(self.wait_task(&task, wait, opts))
    }

    /// Whether a stream that ended with `end` continues as polls (the core's
    /// [`client::TaskWait::after_stream`], given what remains of `opts.deadline`): the task
    /// to wait for and the wait's configuration, or `None` when the stream's result stands.
    pub fn stream_fallback(
        &self,
        end: &super::StreamFinal,
        wait: client::WaitConfig,
        opts: &CallOptions,
    ) -> Option<(String, client::WaitConfig)> {
        let mut wait = wait;
        if let Some(d) = opts.deadline {
            let left = d.saturating_duration_since(Instant::now()).as_millis() as u64;
            wait.max_time = Millis(wait.max_time.0.min(left));
        }
        let plan =
            client::TaskWait::after_stream(&end.outcome, opts.history_length, wait, Millis(0))?;
        match plan.poll_call() {
            Call::GetTask(p) => Some((p.id.into_owned(), wait)),
            _ => None,
        }
    }

    /// Lists tasks (`ListTasks`, protocol 1.0 only; a 0.3 target gets an `InvalidRequest`
    /// outcome without sending anything).
    pub fn list_tasks(
        &self,
        params: &params::ListTasksParams<'_>,
        opts: &CallOptions,
    ) -> CallResult {
        self.call(&Call::ListTasks(params.clone()), opts)
    }

    /// Cancels a task (`tasks/cancel`, `CancelTask`); success is a task in state `canceled`.
    pub fn cancel_task(&self, task_id: &str, opts: &CallOptions) -> CallResult {
        self.call(&Call::CancelTask(TaskIdParams::new(task_id)), opts)
    }

    /// Fetches the extended (authenticated) agent card and, when the call succeeds, makes it
    /// replace the public card for this client and its clones (spec §8.6.2): later calls use
    /// its interface, credentials and capabilities, and [`super::Target::card_json`] is the
    /// extended card. It is checked with the public card's rules against the URL the public
    /// card came from ([`crate::client::ClientState::adopt_extended_card`]): a card that
    /// cannot be used (an interface on another host, plain http, no usable interface) is
    /// refused, the public card stays, and the result's outcome is `transport`/
    /// `CardResolution` saying why (without `request_sent`: the agent answered; the response
    /// is kept). A client
    /// made for a bare interface ([`Client::with_target`]) keeps its target.
    pub fn extended_card(&self, opts: &CallOptions) -> CallResult {
        let mut r = self.call(&Call::GetExtendedAgentCard, opts);
        if let (true, Some(resp)) = (r.outcome.is_success(), &r.response)
            && let Err(e @ super::ExtendedCardError::Card(_)) = self.adopt_extended_card(&resp.body)
        {
            // Only a refused card changes the result: a client made for a bare interface
            // (no card origin) just keeps its target.
            r.outcome = e
                .to_outcome()
                .with_request_sent(None)
                .with_http_status(resp.status);
        }
        r
    }

    /// Creates (0.3: sets) a push notification config.
    pub fn create_push_config(
        &self,
        config: &crate::model::TaskPushNotificationConfig<'_>,
        opts: &CallOptions,
    ) -> CallResult {
        self.call(&Call::CreatePushConfig(config.clone()), opts)
    }

    /// Reads a push notification config.
    pub fn get_push_config(
        &self,
        task_id: &str,
        config_id: Option<&str>,
        opts: &CallOptions,
    ) -> CallResult {
        self.call(
            &Call::GetPushConfig(params::PushConfigRef {
                task_id: Cow::Borrowed(task_id),
                config_id: config_id.map(Cow::Borrowed),
                metadata: None,
            }),
            opts,
        )
    }

    /// Lists a task's push notification configs.
    pub fn list_push_configs(&self, task_id: &str, opts: &CallOptions) -> CallResult {
        self.call(
            &Call::ListPushConfigs(params::ListPushConfigsParams {
                task_id: Cow::Borrowed(task_id),
                page_size: None,
                page_token: None,
                metadata: None,
            }),
            opts,
        )
    }

    /// Deletes a push notification config.
    pub fn delete_push_config(
        &self,
        task_id: &str,
        config_id: &str,
        opts: &CallOptions,
    ) -> CallResult {
        self.call(
            &Call::DeletePushConfig(params::PushConfigRef {
                task_id: Cow::Borrowed(task_id),
                config_id: Some(Cow::Borrowed(config_id)),
                metadata: None,
            }),
            opts,
        )
    }
}

/// A non-streaming call's machine on its client's state, as the loop runs it.
struct Unary<'a> {
    client: &'a Client,
    m: &'a mut UnaryCall,
}

impl RunMachine for Unary<'_> {
    type Event = Event;
    type Error = Outcome;

    fn poll_transmit(&mut self, now: Millis) -> Result<Option<Transmit>, Outcome> {
        let m = &mut *self.m;
        self.client.state(|s| m.poll_transmit(s, now))
    }

    fn exchange(&self) -> Exchange {
        Exchange::Whole
    }

    fn handle(&mut self, id: RequestId, input: Input<'_>, now: Millis) -> Result<(), Outcome> {
        let m = &mut *self.m;
        // The request is the one in flight: the input cannot be refused.
        self.client.state(|s| {
            let _ = input.to_unary(m, s, id, now);
        })
    }

    fn handle_timeout(&mut self, now: Millis) -> Result<(), Outcome> {
        let m = &mut *self.m;
        self.client.state(|s| m.handle_timeout(s, now))
    }

    fn cancel(&mut self, now: Millis) -> Result<(), Outcome> {
        let m = &mut *self.m;
        self.client.state(|s| m.cancel(s, now))
    }

    fn poll_timeout(&self) -> Option<Millis> {
        self.m.poll_timeout()
    }

    fn poll_event(&mut self) -> Option<Event> {
        self.m.poll_event()
    }

    fn role(event: &Event) -> EventRole {
        match event {
            Event::Abort(id) => EventRole::Abort(*id),
            Event::Finished(_) => EventRole::Finished,
            _ => EventRole::Other,
        }
    }
}

/// A user message of `parts` carrying the options' ids.
pub(crate) fn user_message<'a>(
    parts: Vec<Part<'a>>,
    metadata: Option<Json<'a>>,
    opts: &'a CallOptions,
) -> Message<'a> {
    let id = opts
        .message_id
        .as_deref()
        .map(Cow::Borrowed)
        .unwrap_or_else(|| Cow::Owned(new_id()));
    let mut m = Message::new(id, crate::model::Role::User, parts);
    m.context_id = opts.context_id.as_deref().map(Cow::Borrowed);
    m.task_id = opts.task_id.as_deref().map(Cow::Borrowed);
    m.metadata = metadata;
    m
}

/// Send params for `message`, asking for `opts.history_length` history messages.
pub(crate) fn send_params<'a>(message: Message<'a>, opts: &CallOptions) -> SendMessageParams<'a> {
    let mut p = SendMessageParams::new(message);
    if opts.history_length.is_some() || opts.return_immediately {
        p.configuration = Some(params::SendConfiguration {
            history_length: opts.history_length,
            blocking: opts.return_immediately.then_some(false),
            ..params::SendConfiguration::default()
        });
    }
    p
}

/// Copies the ids the outcome carries into the correlation record.
pub(crate) fn fill_correlation(c: &mut Correlation, o: &Outcome) {
    if o.task_id.is_some() {
        c.task_id = o.task_id.clone();
    }
    if o.context_id.is_some() {
        c.context_id = o.context_id.clone();
    }
    if o.error_id.is_some() {
        c.error_id = o.error_id.clone();
    }
}

/// The result of a call that never reached the machine (no target, an unusable breaker
/// configuration): the outcome, and the ids the call would have carried.
pub(crate) fn unsent(
    call: &Call<'_>,
    opts: &CallOptions,
    outcome: Outcome,
    started: Instant,
) -> CallResult {
    let mut correlation = Correlation {
        traceparent: opts.traceparent.clone().unwrap_or_else(new_traceparent),
        idempotency_key: opts.idempotency_key.clone(),
        method: call.method().name().to_owned(),
        attempts: 1,
        ..Correlation::default()
    };
    if let Call::SendMessage(p) | Call::SendStreamingMessage(p) = call {
        correlation.message_id = Some(p.message.message_id.to_string());
        correlation.context_id = p.message.context_id.as_deref().map(str::to_owned);
        correlation.task_id = p.message.task_id.as_deref().map(str::to_owned);
    }
    fill_correlation(&mut correlation, &outcome);
    correlation.elapsed = started.elapsed();
    CallResult {
        outcome,
        correlation,
        response: None,
        answer: None,
    }
}

/// The driver's result of a machine's: the same outcome, response and answer; the elapsed
/// time on the driver's clock.
fn from_machine(r: client::CallResult, started: Instant) -> CallResult {
    CallResult {
        outcome: r.outcome,
        correlation: correlation_of(r.correlation, started),
        response: r.response,
        answer: r.answer,
    }
}

/// The driver's correlation record of a machine's, the elapsed time on the driver's clock.
pub(crate) fn correlation_of(c: client::Correlation, started: Instant) -> Correlation {
    Correlation {
        agent: c.agent,
        method: c.method,
        jsonrpc_id: c.jsonrpc_id,
        message_id: c.message_id,
        task_id: c.task_id,
        context_id: c.context_id,
        error_id: c.error_id,
        traceparent: c.traceparent,
        idempotency_key: c.idempotency_key,
        elapsed: started.elapsed(),
        attempts: c.attempts,
    }
}

/// [`correlation_of`] into `dst`, reusing its strings' buffers: a stream's driver refreshes
/// its correlation after every read, where the ids rarely change (a fresh copy was 0.4 of
/// an allocation per stream event, callgrind `bench-driver`).
pub(crate) fn refresh_correlation(
    dst: &mut Correlation,
    c: &client::Correlation,
    started: Instant,
) {
    // Every field named: a field added to either struct is a compile error here.
    let Correlation {
        agent,
        method,
        jsonrpc_id,
        message_id,
        task_id,
        context_id,
        error_id,
        traceparent,
        idempotency_key,
        elapsed,
        attempts,
    } = dst;
    let client::Correlation {
        agent: agent_in,
        method: method_in,
        jsonrpc_id: jsonrpc_id_in,
        message_id: message_id_in,
        task_id: task_id_in,
        context_id: context_id_in,
        error_id: error_id_in,
        traceparent: traceparent_in,
        idempotency_key: idempotency_key_in,
        elapsed: _,
        attempts: attempts_in,
    } = c;
    agent.clone_from(agent_in);
    method.clone_from(method_in);
    jsonrpc_id.clone_from(jsonrpc_id_in);
    message_id.clone_from(message_id_in);
    task_id.clone_from(task_id_in);
    context_id.clone_from(context_id_in);
    error_id.clone_from(error_id_in);
    traceparent.clone_from(traceparent_in);
    idempotency_key.clone_from(idempotency_key_in);
    *elapsed = started.elapsed();
    *attempts = *attempts_in;
}

/// A client with a target always has the machine's state; this is the outcome if not.
pub(crate) fn no_state() -> Outcome {
    Outcome::transport(
        ErrorName::CardResolution,
        RequestSent::No,
        "this client has no target (built with Client::raw)",
    )
}
