//! The client state machine (feature `client`): what makes an A2A call correct, without
//! any I/O, so that any HTTP stack can drive it.
//!
//! This module contains no networking code and reads no clock: every input that depends on
//! time takes `now` ([`Millis`] on the host's monotonic clock, any origin), and the machine
//! only *reports* when it wants to be woken ([`UnaryCall::poll_timeout`]). It draws no
//! randomness either: the host seeds a [`ClientState`] once, and the ids, the
//! `traceparent` and the retry jitter come from that seed. The reference driver, ureq,
//! httpx, net/http, java.net.http or libcurl move the bytes and keep the time; the machine
//! decides what to send, what the response means, when to give up and when to send again.
//!
//! # The objects
//! - [`ClientState`]: one per remote agent, owned by the host and shared by all its calls:
//!   the [`Target`] (interface URL, version, binding, agent name), the [`ClientConfig`]
//!   (timeouts, retries, body limit, breaker), the circuit breaker, the [`Tally`], the task
//!   ids this client canceled (to tell a requested cancel from a remote one), the header
//!   hooks and the random generator. The machine never keeps a reference to it: each call
//!   that may start or end an attempt takes `&mut ClientState`, so a host that runs calls
//!   on several threads keeps it behind one lock (held only for the duration of one
//!   `handle_*`/`poll_transmit` call) and the C ABI behind one handle.
//! - [`CardFetch`]: resolves the agent card (fetch, parse, choose and validate the
//!   interface) into the [`Target`], in the same shape as the call machine; the fetch
//!   carries no credentials and follows no redirect.
//! - [`UnaryCall`]: one per non-streaming call (send, get, list tasks, cancel, push-config
//!   create/get/list/delete, extended card: every [`Call`] the protocol answers with one
//!   response). [`StreamCall`] is the machine of one stream, in the same shape (see
//!   *Streams*).
//!   [`TaskPages`] lists tasks page by page, one `UnaryCall` per page; [`TaskWait`] waits
//!   for a task to settle, one `GetTask` call per poll.
//!
//! # Method families (quinn-proto's naming)
//! - **Construction**: [`UnaryCall::new`]`(state, call, options, now)`; `now` is the start
//!   of the call: the call deadline and the caller's budget count from it.
//! - **Inputs**, named `handle_*`, each about one request (its [`RequestId`]):
//!   [`UnaryCall::handle_head`] (status and headers), [`UnaryCall::handle_body`] (a chunk
//!   of the body, any size, any split), [`UnaryCall::handle_end`] (the body is complete),
//!   [`UnaryCall::handle_failure`] (the transport failed, saying whether request bytes
//!   were written), and [`UnaryCall::handle_timeout`]`(now)` (a deadline the machine
//!   handed out has passed). An input about a request the machine already gave up (a
//!   late chunk after a timeout) is refused with [`InputError::Stale`] and changes
//!   nothing; a host can ignore that error. An input given at or after the request's
//!   deadline is too late: the attempt times out instead, as `handle_timeout` would. The
//!   one exception is an open stream's idle deadline: bytes handed after it waited unread
//!   while the host was away (a caller slower than the idle timeout), so they count and
//!   move the deadline on; the stream's total deadline stays strict.
//! - **Commands**: [`UnaryCall::cancel`] (the caller abandons the call).
//! - **Outputs**, named `poll_*`: [`UnaryCall::poll_transmit`] (the next HTTP request to
//!   perform, a [`Transmit`]), [`UnaryCall::poll_timeout`] (the next deadline),
//!   [`UnaryCall::poll_event`] (what happened: [`Event`]).
//!
//! The simplest correct way to drive it: after construction and after each input or
//! command, call `poll_transmit` until it returns `None` and perform each request, then
//! call `poll_event` until it returns `None` and act on each event, then sleep until the
//! next input or `poll_timeout`, whichever comes first. The call is over after
//! [`Event::Finished`], which is always the last event.
//!
//! ```text
//!  new ──► Ready ──poll_transmit──► InFlight ──handle_head──► Reading ──handle_end──┐
//!            ▲           │ (breaker refusal, bad header: no request)  │ handle_body  │
//!            │           ▼                                            ▼              ▼
//!            │        attempt outcome ◄── handle_failure / handle_timeout ◄──────────┘
//!            │           │
//!            │           ├─ retry policy says RetryAfter(delay) ──► Waiting ──handle_timeout──┘
//!            │           └─ otherwise ──► Finished(CallResult)
//! ```
//!
//! A host loop, with an in-memory agent standing in for the HTTP stack (it answers every
//! request with a completed task, echoing the JSON-RPC id):
//!
//! ```
//! use a2a_core::client::{CallOptions, ClientConfig, ClientState, Event, HttpRequest, Target, UnaryCall};
//! use a2a_core::envelope::text_message;
//! use a2a_core::outcome::TaskState;
//! use a2a_core::time::Millis;
//! use a2a_core::version::{Binding, ProtocolVersion};
//!
//! // The host's HTTP stack: status, headers and body for a request.
//! fn perform(request: &HttpRequest) -> (u16, Vec<(String, String)>, Vec<u8>) {
//!     let sent: serde_json::Value = serde_json::from_slice(&request.body).unwrap();
//!     let body = serde_json::json!({"jsonrpc": "2.0", "id": sent["id"], "result": {
//!         "kind": "task", "id": "t-1", "contextId": "c-1", "status": {"state": "completed"}}});
//!     let headers = vec![("content-type".to_owned(), "application/json".to_owned())];
//!     (200, headers, body.to_string().into_bytes())
//! }
//!
//! let target = Target::new("https://agent.example/a2a", ProtocolVersion::V0_3, Binding::JsonRpc);
//! // The seed is the host's random bits (ids, traceparent, jitter).
//! let mut state = ClientState::new(target, ClientConfig::default(), 0x5eed).unwrap();
//! let mut now = Millis(0); // the host's monotonic clock
//! let call = text_message("msg-1", "hello");
//! let mut m = UnaryCall::new(&mut state, call, CallOptions::default(), now);
//! let result = loop {
//!     while let Some(t) = m.poll_transmit(&mut state, now) {
//!         // Perform t.request, connected by t.connect_by and done by t.deadline.
//!         let (status, headers, body) = perform(&t.request);
//!         m.handle_head(&mut state, t.id, status, headers, now).unwrap();
//!         for chunk in body.chunks(16) {
//!             m.handle_body(&mut state, t.id, chunk, now).unwrap();
//!         }
//!         m.handle_end(&mut state, t.id, now).unwrap();
//!     }
//!     match m.poll_event() {
//!         Some(Event::Finished(result)) => break result,
//!         Some(_) => {} // Abort: drop that request; Retrying: log it
//!         None => {
//!             // Sleep until the next deadline (or the next input), then tell the machine.
//!             now = m.poll_timeout().expect("an unfinished call waits for something");
//!             m.handle_timeout(&mut state, now);
//!         }
//!     }
//! };
//! assert_eq!(result.outcome.state, Some(TaskState::Completed));
//! assert_eq!(result.correlation.message_id.as_deref(), Some("msg-1"));
//! ```
//!
//! # Who owns which bytes
//! - A [`Transmit`] is an owned value (method, absolute URL, headers, body): the host may
//!   keep it as long as it likes and hand the body to its stack without copying.
//! - [`UnaryCall::handle_body`] borrows the chunk only for the call: the machine appends it
//!   to its own response buffer (bounded by [`ClientConfig::max_response_bytes`]; past it
//!   the attempt fails as `transport`/`ResponseTooLarge` and [`Event::Abort`] asks the host
//!   to drop the connection). The host hands over the body after content decoding (a host
//!   that cannot decode a `Content-Encoding` reports a failure instead).
//! - The [`CallResult`] in [`Event::Finished`] is owned: the outcome, the correlation
//!   record, the response (status, headers, body) and the normalized answer.
//!
//! # Deadlines
//! Every deadline is a value on the host's clock, handed out; none is ambient state.
//! - The **call deadline** is `start + min(config.call_timeout, options.budget)` (the
//!   caller's remaining turn budget wins when shorter), and never later than the **total
//!   deadline**: the earlier of `start + config.max_time` and `options.deadline`. Retries
//!   stop at the call deadline too (the retry policy is given it).
//! - Each [`Transmit`] carries `deadline` (the call deadline: the whole exchange, body
//!   included, must be over by then) and `connect_by` (`now + config.connect_timeout`,
//!   never later than `deadline`). The host enforces `connect_by` itself (it owns the
//!   socket) and reports a connect timeout as a failure with `written = false`.
//! - [`UnaryCall::poll_timeout`] returns the in-flight request's deadline, or the moment a
//!   scheduled retry may go out. When `handle_timeout(now)` finds the request's deadline
//!   passed, the attempt ends as `transport`/`Timeout` with `request_sent = unknown`
//!   (the machine cannot know that nothing arrived: a host that knows should have reported
//!   a failure with `written = false` first) and [`Event::Abort`] tells the host to drop
//!   that request. When the total deadline is the one that passed, the outcome says so
//!   (the same words as the driver's `--max-time`).
//!
//! # Retries and idempotency
//! A `SendMessage` is retried only when [`ClientConfig::send_retries`] is above 0, through
//! [`crate::resilience::RetryPolicy`]: after `backoff` always, after `unknown_outcome` (a
//! 502/504, a timeout after writing, a dropped connection) only when the call carries an
//! idempotency key. A retry is a new [`Transmit`] with a new [`RequestId`], handed out
//! once the delay (returned by `poll_timeout`) has passed: the same messageId and
//! `Idempotency-Key`, a new JSON-RPC id. [`Event::Retrying`] reports each one.
//!
//! # Headers
//! The machine builds each request with [`crate::envelope::build`]: `traceparent` (the
//! caller's or a fresh one, the same for every attempt), `Idempotency-Key` (when given),
//! the call's own headers, then the headers of each [`HeaderHook`] registered on the
//! [`ClientState`] (credentials from the host's cache, routing keys), which replace an
//! earlier header of the same name. Every added header passes the one reserved-header rule
//! ([`crate::envelope::reserved_header`], applied in `request::admit_headers`) before
//! anything is sent; a refused one ends the call as `transport`/`InvalidRequest` with
//! `request_sent = no`, naming the header and why it is reserved.
//!
//! # The extended card
//! After a successful `GetExtendedAgentCard`, [`ClientState::adopt_extended_card`] (fed the
//! call's [`CallResult`]) replaces the public card with the extended one for the rest of the
//! state's life (spec §8.6.2): checked with the public card's rules against the URL the public
//! card came from ([`ClientState::from_card`] or [`ClientState::set_card_origin`] records it),
//! then its interface, credentials and capabilities are used. A refused card changes nothing.
//!
//! # Capabilities
//! A client built from an agent card ([`Target::capabilities`] is `Some`) sends no call the
//! card does not declare support for: `SendStreamingMessage` and `SubscribeToTask` need
//! `capabilities.streaming`, the four push-notification-config methods
//! `capabilities.pushNotifications`, and `GetExtendedAgentCard` `capabilities.extendedAgentCard`
//! (0.3: `supportsAuthenticatedExtendedCard`). Such a call ends before any request as
//! `transport`/`CapabilityNotDeclared` (`request_sent = no`, retry `never`), naming the method
//! and the capability. A target given without a card is not checked;
//! [`ClientConfig::ignore_capabilities`] turns the check off for an agent whose card
//! under-declares.
//!
//! # Breaker and tally
//! Before each request the machine asks the breaker (when [`ClientConfig::breaker`] is
//! set); a refusal is the attempt's outcome and nothing is sent. After each attempt it
//! reports the outcome to the breaker and counts it in the [`Tally`]; a call canceled
//! mid-request returns its breaker permit instead ([`crate::resilience::CircuitBreaker::release`]).
//!
//! # The answer
//! At the end of each response the machine classifies it ([`crate::classify`]) and, for a
//! task or message from send, get or cancel, reads the agent's answer ([`crate::answer`]);
//! an answer that cannot be read turns the outcome into `malformed` saying what and where,
//! never an empty success. Both happen in one function (`read::read_response`); the body
//! is still parsed twice there (the classifier's borrowed scan, then the model), which
//! issue 22 asks to make one pass.
//!
//! # Streams
//! [`StreamCall`] takes `SendStreamingMessage` or `SubscribeToTask` with the same method
//! families and call order ([`StreamCall::new`] also takes a [`StreamConfig`]: idle timeout,
//! resubscribe allowance, event size limit). Body chunks go through the core's SSE decoder
//! and stream tracker ([`crate::stream`]) as they are handed in, and each event comes out at
//! once as [`StreamEvent::Item`], its model read and added to the answer being assembled.
//! - **Deadlines** from [`StreamCall::poll_timeout`]: the head deadline (`now +` the call
//!   budget, for each request), then, once a 2xx `text/event-stream` head is given, the idle
//!   deadline (counted from that head; every chunk, event and keep-alive comment moves it
//!   on); always capped by the total deadline. A response that is not an event stream is
//!   read whole (within a fresh call budget) and classified.
//! - **Over**: on 0.3 `final`, a terminal or (1.0) interrupted state, a message or an error
//!   event the call finishes and [`StreamEvent::Abort`] asks the host to drop the
//!   connection. An idle stream is aborted too.
//! - **Resubscribe, never resend**: the `SendStreamingMessage` leaves the machine with the
//!   first request. A stream cut (`handle_end` or `handle_failure` before the end) or gone
//!   idle once the task id is known is resubscribed to (`SubscribeToTask`, same
//!   `traceparent`, a new [`RequestId`]) while [`StreamConfig::resubscribe_attempts`] allows
//!   and the total deadline has not passed, announced by [`StreamEvent::Resubscribing`]; a
//!   resubscribe stream keeps the task id even if it stays silent, and one whose head never
//!   arrives counts as a failed resubscribe. Past the allowance the call ends with the
//!   task id and advice `resubscribe`. A resubscribe answered `TaskNotFound` or
//!   `UnsupportedOperation` is followed by one `GetTask`, whose answer is the result
//!   ([`StreamResult::fetched_by_get`]). The total deadline ends the call, never resubscribing.
//!   A host that waits for the task hands the final outcome to [`TaskWait::after_stream`]:
//!   a stream that could not be resumed before the task settled continues as `GetTask` polls.
//! - **The end**: [`StreamEvent::Finished`] carries a [`StreamResult`]: how the last stream
//!   ended, the outcome (with the response's status, as [`crate::classify::classify`] gives
//!   it), the correlation, the assembled answer, and the counts (`resubscribes`,
//!   `dropped_events`, `unreadable_events`). Each connection's end is counted in the tally
//!   and reported to the breaker as it happens. A host that abandons a stream calls
//!   [`StreamCall::cancel`], which returns the breaker permit.
//! - **The reference driver** is a loop over it (`driver/stream.rs`): it performs each
//!   [`Transmit`] (the get-task fallback, [`StreamCall::is_fetching`], as a plain call read
//!   whole), hands over the head, then the body as its reads return it (each read bounded by
//!   [`StreamCall::poll_timeout`]), the end or the failure, calls
//!   [`StreamCall::handle_timeout`] when a read hits that deadline, drops a connection on
//!   [`StreamEvent::Abort`], and cancels the machine when the caller drops the stream. The
//!   total deadline is the machine's value ([`StreamCall::total_deadline`]), never state
//!   of the thread.
//!
//! # Not here yet (issue 22)
//! - The C ABI on the machine: one handle for a [`ClientState`] and one per machine.
//! - One parse per body (see *The answer*).

mod affinity;
mod call;
#[cfg(test)]
mod capability_tests;
mod card;
mod card_cache;
mod common;
mod extended;
#[cfg(test)]
mod extended_tests;
mod ids;
#[cfg(test)]
mod once_tests;
mod pages;
mod read;
mod request;
mod stream;
#[cfg(test)]
mod stream_tests;
#[cfg(test)]
mod tests;
mod wait;

use std::collections::VecDeque;

pub use call::{CallOptions, CallResult, Correlation, Event, HttpResponse, InputError, UnaryCall};
pub use card::{CardEvent, CardFetch, CardOptions, ResolveError, ResolvedCard};
pub use card_cache::{CachedCard, CardCache, MAX_CARDS};
pub use extended::AdoptError;
pub use pages::{MAX_PAGES, PageError, TaskPages};
pub use request::{HeaderHook, HttpRequest, RequestContext, RequestId, Transmit, TransportFailure};
pub use stream::{StreamCall, StreamConfig, StreamEvent, StreamResult};
pub use wait::{TaskWait, WaitConfig, WaitStep};
// The one copy of each rule, for the reference driver's raw exchanges (outside any machine).
#[cfg(feature = "driver")]
pub(crate) use common::total_deadline_outcome as max_time_outcome;
#[cfg(feature = "driver")]
pub(crate) use request::refused;

use crate::card::{Capabilities, CredentialPlan};
pub use crate::model::params::Call;
use crate::outcome::Outcome;
use crate::resilience::{BreakerConfig, BreakerState, CircuitBreaker, ConfigError};
use crate::tally::Tally;
use crate::time::Millis;
use crate::version::{Binding, ProtocolVersion};

/// The interface a client talks to: given by the host, or resolved from the agent card by
/// a [`CardFetch`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// The interface URL (requests are sent here and nowhere else).
    pub url: String,
    /// The protocol version spoken.
    pub version: ProtocolVersion,
    /// The binding used.
    pub binding: Binding,
    /// The 1.0 tenant from the card's interface (`None` = unset).
    pub tenant: Option<String>,
    /// The remote agent's name for correlation records, the breaker and the tally.
    pub agent_name: String,
    /// The credentials the card asks for; a request carrying none of them is not sent
    /// (`None`: no card, nothing checked).
    pub credentials: Option<CredentialPlan>,
    /// The capabilities the card declares; a call needing one it does not declare is not
    /// sent (`None`: no card, nothing checked; see *Capabilities* in the module docs).
    pub capabilities: Option<Capabilities>,
}

impl Target {
    /// A target for a known interface URL: the agent name is the URL's host.
    pub fn new(url: &str, version: ProtocolVersion, binding: Binding) -> Target {
        let host = url
            .split("://")
            .nth(1)
            .and_then(|r| r.split(['/', '?']).next())
            .unwrap_or(url);
        Target {
            url: url.to_owned(),
            version,
            binding,
            tenant: None,
            agent_name: host.to_owned(),
            credentials: None,
            capabilities: None,
        }
    }
}

/// What a client decides by (the reference driver's defaults).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClientConfig {
    /// The whole-call timeout of a non-streaming call (45 s).
    pub call_timeout: Millis,
    /// How long connecting may take, within the call timeout (3 s).
    pub connect_timeout: Millis,
    /// A total deadline for each call, counted from its start (`None`: none).
    pub max_time: Option<Millis>,
    /// How many times a `SendMessage` may be sent again (0: never; see the module docs).
    pub send_retries: u32,
    /// The largest response body accepted, in bytes (16 MiB).
    pub max_response_bytes: u64,
    /// The circuit breaker, when wanted (`None`: no breaker).
    pub breaker: Option<BreakerConfig>,
    /// Whether the host presents a client certificate (satisfies a card's `mutualTLS`).
    pub client_certificate: bool,
    /// Send calls the card's capabilities do not declare (for an agent whose card
    /// under-declares); off: such a call is refused unsent.
    pub ignore_capabilities: bool,
}

impl Default for ClientConfig {
    /// The driver's defaults: 45 s per call, 3 s to connect, no total limit, no retries,
    /// 16 MiB bodies, no breaker, no client certificate, capabilities checked.
    fn default() -> Self {
        ClientConfig {
            call_timeout: Millis(45_000),
            connect_timeout: Millis(3_000),
            max_time: None,
            send_retries: 0,
            max_response_bytes: 16 * 1024 * 1024,
            breaker: None,
            client_certificate: false,
            ignore_capabilities: false,
        }
    }
}

/// How many task ids a client remembers having canceled.
const CANCELS_REMEMBERED: usize = 256;

/// What a client keeps across its calls: target, configuration, breaker, tally, cancels,
/// header hooks, random generator. Owned by the host; see the module docs.
pub struct ClientState {
    target: Target,
    config: ClientConfig,
    breaker: Option<CircuitBreaker>,
    tally: Tally,
    /// The last [`CANCELS_REMEMBERED`] task ids this client sent `CancelTask` for.
    canceled: VecDeque<String>,
    hooks: Vec<Box<dyn HeaderHook>>,
    random: ids::Random,
    /// Where the target's card came from (for adopting the extended card).
    card_origin: Option<extended::CardOrigin>,
    /// The token storage of the stream events' tapes, reused from one event to the next
    /// (one allocation fewer per event; one per client rather than per stream, so an
    /// idle stream holds none).
    tape_buf: crate::tape::TapeBuf,
}

impl std::fmt::Debug for ClientState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientState")
            .field("target", &self.target)
            .field("config", &self.config)
            .field("hooks", &self.hooks.len())
            .finish_non_exhaustive()
    }
}

impl ClientState {
    /// The state of a client for `target`; `seed` is the host's random bits (any value,
    /// different per client: ids, `traceparent` and jitter are drawn from it).
    ///
    /// # Errors
    /// The breaker configuration's [`ConfigError`].
    pub fn new(target: Target, config: ClientConfig, seed: u64) -> Result<Self, ConfigError> {
        let breaker = config
            .breaker
            .map(|b| CircuitBreaker::new(target.agent_name.clone(), b))
            .transpose()?;
        Ok(ClientState {
            target,
            config,
            breaker,
            tally: Tally::new(),
            canceled: VecDeque::new(),
            hooks: Vec::new(),
            random: ids::Random::new(seed),
            card_origin: None,
            tape_buf: crate::tape::TapeBuf::default(),
        })
    }

    /// The target calls go to.
    pub fn target(&self) -> &Target {
        &self.target
    }

    /// The configuration.
    pub fn config(&self) -> &ClientConfig {
        &self.config
    }

    /// Every outcome this client's calls produced, per method.
    pub fn tally(&self) -> &Tally {
        &self.tally
    }

    /// The breaker's state at `now` (`None` without a breaker).
    pub fn breaker_state(&self, now: Millis) -> Option<BreakerState> {
        self.breaker.as_ref().map(|b| b.state(now))
    }

    /// A fresh id drawn from this client's seeded generator (UUID v4 layout): a messageId
    /// for a host that has no random source of its own (the C ABI's text calls).
    pub fn fresh_id(&mut self) -> String {
        self.random.uuid()
    }

    /// Appends a header hook, run after those added before it on every later request.
    pub fn add_header_hook(&mut self, hook: impl HeaderHook + 'static) {
        self.hooks.push(Box::new(hook));
    }

    /// Remembers that this client is canceling `task_id` (bounded: the oldest is forgotten).
    fn note_cancel_sent(&mut self, task_id: &str) {
        if !self.canceled.iter().any(|t| t == task_id) {
            if self.canceled.len() == CANCELS_REMEMBERED {
                self.canceled.pop_front();
            }
            self.canceled.push_back(task_id.to_owned());
        }
    }

    /// Sets `cancel_origin` of a CANCELED outcome the server did not mark: `requested` when
    /// this client sent `CancelTask` for the task, else `remote`.
    fn settle_cancel_origin(&self, o: &mut Outcome) {
        use crate::outcome::{CancelOrigin, TaskState};
        if o.state != Some(TaskState::Canceled) || o.cancel_origin.is_some() {
            return;
        }
        let ours = o
            .task_id
            .as_deref()
            .is_some_and(|t| self.canceled.iter().any(|c| c == t));
        o.cancel_origin = Some(if ours {
            CancelOrigin::Requested
        } else {
            CancelOrigin::Remote
        });
    }
}
