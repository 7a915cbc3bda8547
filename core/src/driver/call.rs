//! Non-streaming A2A calls: build with the core's envelope, send through the exchange,
//! classify with the core's classifier, count in the tally, and return the outcome with its
//! correlation record.

use std::borrow::Cow;
use std::time::{Duration, Instant};

use super::correlation::{Correlation, new_id, new_traceparent};
use super::exchange::{HttpRequest, HttpResponse};
use super::{Client, Target};
use crate::classify::{Asked, ResponseInfo, classify};
use crate::envelope::{self, Interface, Method, RpcId};
use crate::model::params::{Call, GetTaskParams, SendMessageParams, TaskIdParams};
use crate::model::{Json, Message, Part, SendResponse, params};
use crate::outcome::{Channel, ErrorName, Outcome, RequestSent, RetryAdvice};
use crate::resilience::policy::{CallKind, RetryAction, RetryConfig, RetryPolicy};
use crate::time::Millis;
use crate::version::Binding;

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

/// A call ready to go out: the HTTP request and what the classifier must know.
pub(crate) struct Prepared {
    pub http: HttpRequest,
    pub method: Method,
    pub wire_method: String,
    pub rpc_id: Option<String>,
    pub target: std::sync::Arc<Target>,
}

impl Prepared {
    pub(crate) fn asked(&self) -> Asked<'_> {
        Asked {
            version: Some(self.target.version),
            binding: Some(self.target.binding),
            method: Some(&self.wire_method),
            request_id: self.rpc_id.as_deref(),
        }
    }
}

/// Joins the interface URL and an envelope path (empty for JSON-RPC).
fn join(url: &str, path: &str) -> String {
    if path.is_empty() {
        url.to_owned()
    } else {
        format!("{}{}", url.trim_end_matches('/'), path)
    }
}

fn invalid(message: String) -> Outcome {
    let mut o = Outcome::transport(ErrorName::InvalidRequest, RequestSent::No, message);
    o.retry = RetryAdvice::Never;
    o
}

impl Client {
    /// Builds `call` for the target with a fresh JSON-RPC id and runs the interceptors.
    pub(crate) fn prepare(
        &self,
        call: &Call<'_>,
        opts: &CallOptions,
        traceparent: &str,
    ) -> Result<Prepared, Outcome> {
        if let Err(e) = crate::traceparent::TraceParent::parse(traceparent) {
            return Err(invalid(format!(
                "request not sent: invalid traceparent {traceparent:?}: {e}"
            )));
        }
        let target = self.target()?;
        let iface = Interface {
            version: target.version,
            binding: target.binding,
            tenant: target.tenant.clone(),
        };
        let rpc_id = RpcId::String(new_id());
        let mut headers: Vec<(&str, &str)> = vec![("traceparent", traceparent)];
        if let Some(k) = &opts.idempotency_key {
            headers.push(("Idempotency-Key", k));
        }
        for (n, v) in &opts.headers {
            headers.push((n, v));
        }
        let built = envelope::build(
            &iface,
            call,
            &envelope::CallOptions {
                id: Some(rpc_id),
                extensions: &[],
                headers: &headers,
            },
        )
        .map_err(|e| invalid(format!("request not built: {e}")))?;
        let method = built.a2a_method;
        let wire_method = match target.binding {
            Binding::JsonRpc => method
                .jsonrpc_name(target.version)
                .unwrap_or(method.name())
                .to_owned(),
            _ => format!("{} {}", built.method.as_str(), built.path),
        };
        let mut http = HttpRequest {
            method: built.method.as_str().to_owned(),
            url: join(&target.url, &built.path),
            headers: built.headers,
            body: built.body,
        };
        self.intercept(method.name(), &target, &mut http)
            .map_err(|mut o| {
                o.version = Some(target.version);
                o.binding = Some(target.binding);
                o
            })?;
        if let Some(plan) = &target.credentials
            && let Some(o) = super::card::missing_credential(
                plan,
                &http,
                self.inner.config.client_cert_file.is_some(),
            )
        {
            return Err(o);
        }
        Ok(Prepared {
            http,
            method,
            wire_method,
            rpc_id: built.rpc_id.map(|i| i.to_string()),
            target,
        })
    }

    /// Runs any non-streaming call (send, get, list, cancel, push configs, extended card).
    ///
    /// A `SendMessage` is retried only when [`super::ClientConfig::send_retries`] is above 0,
    /// inside the call's budget, always with the same messageId and idempotency key (a new
    /// JSON-RPC id): after `backoff` (provably not received), and after `unknown_outcome`
    /// (a 502/504, a timeout after writing, a dropped connection) only with an idempotency key.
    pub fn call(&self, call: &Call<'_>, opts: &CallOptions) -> CallResult {
        let started = Instant::now();
        let traceparent = opts.traceparent.clone().unwrap_or_else(new_traceparent);
        let mut correlation = Correlation {
            traceparent: traceparent.clone(),
            idempotency_key: opts.idempotency_key.clone(),
            method: call.method().name().to_owned(),
            ..Correlation::default()
        };
        if let Call::CancelTask(p) = call {
            self.note_cancel_sent(&p.id);
        }
        if let Call::SendMessage(p) | Call::SendStreamingMessage(p) = call {
            correlation.message_id = Some(p.message.message_id.to_string());
            correlation.context_id = p.message.context_id.as_deref().map(str::to_owned);
            correlation.task_id = p.message.task_id.as_deref().map(str::to_owned);
        }
        let total = self.total_from(started, opts);
        let _within = super::within(total);
        let mut budget = self.call_budget(opts.timeout);
        if let Some(t) = total {
            // Retries stop at the total deadline too.
            budget = budget.min(t.saturating_duration_since(started));
        }
        let retries = if call.method() == Method::SendMessage {
            self.inner.config.send_retries
        } else {
            0
        };
        let mut policy = self.send_policy(retries, opts, budget);
        let mut attempt = 0u32;
        loop {
            attempt += 1;
            if let Some(p) = policy.as_mut() {
                p.begin_attempt(self.now());
            }
            let left = budget.saturating_sub(started.elapsed());
            let (outcome, response, answer) =
                self.call_once(call, opts, &traceparent, left, &mut correlation);
            correlation.attempts = attempt;
            let action = policy
                .as_mut()
                .map(|p| p.next(&outcome, self.now(), super::correlation::random_u64()));
            if let Some(RetryAction::RetryAfter(delay)) = action {
                std::thread::sleep(Duration::from_millis(delay.0));
                continue;
            }
            correlation.elapsed = started.elapsed();
            let mut outcome = outcome;
            self.settle_cancel_origin(&mut outcome);
            fill_correlation(&mut correlation, &outcome);
            return CallResult {
                outcome,
                correlation,
                response,
                answer,
            };
        }
    }

    /// The retry policy of an opted-in send: same messageId and idempotency key, a new
    /// JSON-RPC id; after `unknown_outcome` only with an idempotency key (the resilience
    /// rule), after `backoff` always; never past the call's budget.
    fn send_policy(
        &self,
        retries: u32,
        opts: &CallOptions,
        budget: Duration,
    ) -> Option<RetryPolicy> {
        if retries == 0 {
            return None;
        }
        let now = self.now();
        let config = RetryConfig {
            kind: if opts.idempotency_key.is_some() {
                CallKind::WithIdempotencyKey
            } else {
                CallKind::SideEffecting
            },
            max_attempts: retries.saturating_add(1),
            max_follow_ups: 0,
            max_new_tasks: 0,
            deadline: Some(now.saturating_add(Millis(budget.as_millis() as u64))),
            streaming: false,
            ..RetryConfig::default()
        };
        RetryPolicy::new(config, now).ok()
    }

    /// One attempt: prepare (fresh JSON-RPC id), exchange, classify, read the answer, count.
    fn call_once(
        &self,
        call: &Call<'_>,
        opts: &CallOptions,
        traceparent: &str,
        budget: Duration,
        correlation: &mut Correlation,
    ) -> (Outcome, Option<HttpResponse>, Option<SendResponse<'static>>) {
        let prepared = match self.prepare(call, opts, traceparent) {
            Ok(p) => p,
            Err(o) => return (o, None, None),
        };
        correlation.agent = prepared.target.agent_name.clone();
        correlation.jsonrpc_id = prepared.rpc_id.clone();
        if let Err(o) = self.breaker_allows(&prepared.target.agent_name) {
            self.record(&prepared.target.agent_name, prepared.method, &o);
            return (o, None, None);
        }
        let result = self.exchange(&prepared.http, Some(budget));
        let (mut outcome, response) = match result {
            Ok(resp) => {
                let mut info = ResponseInfo::new(resp.status, &resp.body).asked(prepared.asked());
                for (n, v) in &resp.headers {
                    info = info.header(n, v);
                }
                (classify(&info), Some(resp))
            }
            Err(mut o) => {
                o.version = Some(prepared.target.version);
                o.binding = Some(prepared.target.binding);
                (o, None)
            }
        };
        let answer = match &response {
            Some(resp) if answers(prepared.method, &outcome) => {
                read_answer(&resp.body, &prepared.target, &mut outcome)
            }
            _ => None,
        };
        self.record(&prepared.target.agent_name, prepared.method, &outcome);
        self.breaker_record(&outcome);
        (outcome, response, answer)
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
        self.call(&Call::SendMessage(send_params(message, opts)), opts)
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

    /// Fetches the extended (authenticated) agent card.
    pub fn extended_card(&self, opts: &CallOptions) -> CallResult {
        self.call(&Call::GetExtendedAgentCard, opts)
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
    if let Some(n) = opts.history_length {
        p.configuration = Some(params::SendConfiguration {
            history_length: Some(n),
            ..params::SendConfiguration::default()
        });
    }
    p
}

/// Whether a call's outcome carries an answer to read: a task or message from send, get or
/// cancel.
fn answers(method: Method, o: &Outcome) -> bool {
    matches!(
        method,
        Method::SendMessage | Method::GetTask | Method::CancelTask
    ) && matches!(o.channel, Channel::Task | Channel::Message)
}

/// Reads the answer from a response body the classifier accepted; content that cannot be
/// read turns the outcome into a `malformed` one that says what and where (never an empty
/// success).
pub(crate) fn read_answer(
    body: &[u8],
    target: &Target,
    outcome: &mut Outcome,
) -> Option<SendResponse<'static>> {
    match crate::answer::read_result(body, target.version, target.binding) {
        Ok(r) => Some(r.into_owned()),
        Err(e) => {
            *outcome = unreadable(outcome, &e, "the agent's answer");
            None
        }
    }
}

/// The `malformed` outcome of content that could not be read, keeping the ids and last
/// state the classifier saw; advice `poll` when the task is known (read it again), else
/// `never`.
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
