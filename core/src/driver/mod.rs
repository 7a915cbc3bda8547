//! The blocking reference driver (feature `driver`): a small ureq client that drives the
//! sans-IO core correctly. A plain `http://` request with no proxy takes a fast path of its
//! own (`plain`: the same bytes on the wire and the same outcomes, a third less work per
//! send); https, proxies and anything unusual go through ureq.
//!
//! # What it fixes by default
//! Stock HTTP clients wait forever, follow redirects, turn JSON-RPC errors in 4xx/5xx
//! bodies into exceptions, gzip event streams and replay requests on stale connections.
//! This driver: connect timeout 3 s, whole-call timeout 45 s (or the caller's remaining
//! turn budget), a stream idle timeout (60 s) measured by the core's tracker with no total
//! limit on streams unless `max_time` asks for one, redirects never followed (reported as `http`/`Redirect`, card fetch
//! included), every status handed to the classifier, identity encoding asked on streams
//! (a gzipped stream is decoded, never passed on as garbage), bounded response bodies,
//! pooled connections retired (3 s) before servers close them (5 s), and no request ever
//! re-sent by itself: a failure after bytes were written is reported as
//! `request_sent = unknown` instead.
//!
//! # Networks
//! - `tls`: the system trust store (`SSL_CERT_FILE`/`SSL_CERT_DIR` honoured), a CA file
//!   instead (`ca_file`), a client certificate (`client_cert_file`/`client_key_file`);
//!   failures are `transport`/`Tls` with a `reason` and a hint.
//! - `proxy`: curl's proxy variables and rules, CONNECT tunnels, `transport`/`Proxy`.
//! - `dns`: the card's address rules applied to resolved addresses (rebinding),
//!   `transport`/`AddressRefused`; fixed answers (`resolve`) or an injected [`Resolve`].
//! - a total deadline per call ([`ClientConfig::max_time`], [`CallOptions::deadline`]),
//!   handed to the machine as a value.
//!
//! # Layers
//! - `io`: a ureq transport wrapper that records whether request bytes were written, cuts
//!   reads at the stream's idle deadline, and lets another thread abort a call
//!   ([`AbortHandle`]: the socket is shut down, so a blocked read returns at once).
//! - `exchange`: one HTTP exchange, every failure mapped to a `transport` outcome.
//! - `plain`: the exchange of a plain `http://` request with no proxy, on the driver's own
//!   pooled connections and the core's HTTP/1.1 response reader.
//! - `raw` ([`RawStream`], [`AbortHandle`]): an event-stream body read chunk by chunk with a
//!   per-read deadline, abortable from another thread.
//! - `run` ([`run()`], [`RunMachine`]): THE I/O loop over the core's client machines,
//!   [`crate::client::CardFetch`], [`crate::client::UnaryCall`] and
//!   [`crate::client::StreamCall`]. The machine decides (build, hooks and the reserved-header
//!   rule, credentials, the card's capabilities, breaker, classification, answer, retries,
//!   SSE decoding and the stream tracker, resubscribes, tally, deadlines as values); the
//!   loop performs each request it hands out on a [`Client`]'s transport (whole, or a
//!   stream's head and then its body chunk by chunk, each read bounded by the machine's
//!   next deadline), feeds back the response or the failure, sleeps until a retry is due,
//!   and returns once the machine has an event for its caller. Time comes in as a value
//!   and an [`AbortHandle`] cancels the call from another thread. It is public: the C
//!   ABI's `a2a_call_run` is this loop over an `a2a_call`.
//! - [`Client`]: configuration, the typed A2A calls and streams. Card resolution (`card`),
//!   every non-streaming call (`call`) and every stream (`stream`) are the loop over a
//!   machine on the client's [`crate::client::ClientState`] (one lock, held only while a
//!   machine is fed); its [`Interceptor`]s run as the machine's header hook. Every
//!   deadline, the total one included, is a value a call carries: the driver keeps no
//!   deadline per thread.
//!
//! # Capabilities
//! A client made from a card ([`Client::new`]) sends no call the card does not declare: a
//! stream or resubscribe without `capabilities.streaming`, a push-config call without
//! `capabilities.pushNotifications`, the extended card without `capabilities.extendedAgentCard`
//! (0.3: `supportsAuthenticatedExtendedCard`) ends unsent as `transport`/`CapabilityNotDeclared`
//! (`request_sent = no`, retry `never`), naming the method and the capability.
//! [`ClientConfig::ignore_capabilities`] (`--ignore-capabilities`) sends them anyway, for an
//! agent whose card under-declares; [`Client::with_target`] without a card checks nothing.
//!
//! # Example
//! ```no_run
//! use a2a_core::driver::{CallOptions, Client, ClientConfig, HttpRequest, RequestContext, StreamEvent};
//!
//! // Fetches, validates and chooses the interface now (a failure is a CardResolutionError).
//! let client = Client::new("https://agent.example.com", ClientConfig::default())?;
//! // Credentials travel only to the validated interface host.
//! client.add_interceptor(|_ctx: &RequestContext<'_>, req: &mut HttpRequest| {
//!     req.set_header("Authorization", "Bearer <token from the caller's cache>");
//! });
//! let r = client.send_text("hello", &CallOptions::default());
//! println!("{} (traceparent {})", r.outcome.to_json(), r.correlation.traceparent);
//! for event in client.stream_text("write a report", &CallOptions::default()) {
//!     match event {
//!         StreamEvent::Item(item) => println!("{}", item.outcome.text.unwrap_or_default()),
//!         StreamEvent::Resubscribing { task_id, .. } => eprintln!("resuming {task_id}"),
//!         StreamEvent::End(end) => std::process::exit(end.outcome.exit_code()),
//!     }
//! }
//! # Ok::<(), a2a_core::driver::CardResolutionError>(())
//! ```
//!
//! Failures are values: every call returns an [`Outcome`] (boxing it to shrink `Result`s
//! would cost an allocation on every failure path for no caller benefit).
#![allow(clippy::result_large_err, clippy::large_enum_variant)]

mod call;
mod card;
mod config;
mod correlation;
mod dns;
mod exchange;
mod io;
#[cfg(feature = "trust")]
mod jku;
mod linefed;
mod lock;
mod plain;
mod proxy;
mod raw;
mod reserved;
mod run;
mod stream;
mod tcp;
mod tls;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

pub use crate::client::HttpResponse;
pub use call::{CallOptions, CallResult};
pub use card::{CardResolutionError, ExtendedCardError};
pub use config::ClientConfig;
pub use correlation::{Correlation, new_id, new_traceparent};
pub use dns::Resolve;
pub use exchange::HttpRequest;
#[cfg(feature = "trust")]
pub use jku::{JkuError, MAX_JWKS_BYTES, VerifiedCardError};
pub use raw::{AbortHandle, RawStream, ReadEnd};
pub use run::{EventRole, Exchange, InFlight, Input, RunMachine, run};
pub use stream::{StreamCall, StreamEvent, StreamFinal};

use crate::outcome::Outcome;
use lock::Locked;

/// The interface a client talks to, chosen from the card (or given directly).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// The interface URL (requests are sent here and nowhere else).
    pub url: String,
    /// The protocol version spoken.
    pub version: crate::version::ProtocolVersion,
    /// The binding used.
    pub binding: crate::version::Binding,
    /// The 1.0 tenant from the card's interface (empty or `None` = unset).
    pub tenant: Option<String>,
    /// The remote agent's name for correlation records and the tally.
    pub agent_name: String,
    /// The card as fetched (raw JSON), when resolved from a card.
    pub card_json: Option<String>,
    /// The credentials the card asks for; a call carrying none of them is not sent.
    pub credentials: Option<crate::card::CredentialPlan>,
    /// The capabilities the card declares; a call needing one it does not declare is not
    /// sent (unless [`ClientConfig::ignore_capabilities`]). `None`: no card, not checked.
    pub capabilities: Option<crate::card::Capabilities>,
}

impl Target {
    /// A target for a known interface URL (no card): the agent name is the URL's host.
    pub fn new(
        url: &str,
        version: crate::version::ProtocolVersion,
        binding: crate::version::Binding,
    ) -> Target {
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
            card_json: None,
            credentials: None,
            capabilities: None,
        }
    }
}

/// What an interceptor sees about the call being made.
#[derive(Debug)]
pub struct RequestContext<'a> {
    /// The protocol method (`message/send`, `SendMessage`, ...).
    pub method: &'a str,
    /// The interface and card the call goes to.
    pub target: &'a Target,
}

/// An ordered request hook: adds or replaces headers (credentials, `traceparent`, routing
/// keys, `A2A-Extensions`) on every A2A call. Interceptors only ever see requests to the
/// validated interface URL: the card fetch and redirects (never followed) do not reach them.
///
/// The crate's reserved headers ([`crate::envelope::reserved_header`]: framing such as
/// `Content-Length` and `Host`, connection management such as `Connection`, and the
/// protocol's `A2A-Version`, `Content-Type`, `Accept`) are the client's: a call whose
/// interceptors added or changed one is refused before anything is sent, with a
/// `transport`/`InvalidRequest` outcome naming the header (`request_sent = no`, retry
/// `never`). Removing a protocol header the builder wrote is allowed (see
/// [`HttpRequest::remove_header`]).
pub trait Interceptor: Send + Sync {
    /// Called once per HTTP request, in registration order.
    fn on_request(&self, ctx: &RequestContext<'_>, request: &mut HttpRequest);
}

impl<F> Interceptor for F
where
    F: Fn(&RequestContext<'_>, &mut HttpRequest) + Send + Sync,
{
    fn on_request(&self, ctx: &RequestContext<'_>, request: &mut HttpRequest) {
        self(ctx, request)
    }
}

/// The blocking A2A client for one remote agent. It pools connections, is `Send + Sync`,
/// and clones cheaply (clones share the pool, the target, the interceptors, the tally and
/// the breaker); a [`StreamCall`] holds a clone, so it may outlive the handle it came from.
#[derive(Clone)]
pub struct Client {
    inner: Arc<Inner>,
}

struct Inner {
    agent: ureq::Agent,
    /// The plain-HTTP fast path (`plain`), when plain http is allowed.
    plain: Option<Arc<plain::Plain>>,
    /// The proxies chosen from the configuration and the environment.
    proxies: proxy::Proxies,
    /// What the resolver checks (set by card resolution).
    guard: dns::Guard,
    /// Why the configuration cannot be used (a missing CA file, a bad proxy URL): every
    /// call fails with it, nothing is sent.
    setup_error: Option<Outcome>,
    config: ClientConfig,
    /// Shared with the machine's header hook that runs them ([`RunInterceptors`]).
    interceptors: Arc<Mutex<Vec<Arc<dyn Interceptor>>>>,
    /// The resolved target; `None` until the card is resolved (deferred resolution).
    target: Mutex<Option<Arc<Target>>>,
    /// What the caller gave: base URL or card URL, for deferred resolution.
    source: Option<String>,
    /// The machine's state for this client (breaker, tally, cancels, header hooks, ids),
    /// made when the target is known; one lock, held only while the machine is fed.
    machine: Mutex<Option<Machine>>,
    /// Origin of the driver's `now` for the core's sans-IO state machines.
    epoch: Instant,
}

/// The core's [`crate::client::ClientState`] of a client, and why its breaker could not be
/// built (then every call fails with that outcome, nothing sent).
struct Machine {
    state: crate::client::ClientState,
    breaker_error: Option<Outcome>,
    /// The target the interceptors see, shared with [`RunInterceptors`] (replaced when
    /// the extended card is adopted).
    hook_target: Arc<Mutex<Arc<Target>>>,
}

/// The machine's header hook that runs the driver's [`Interceptor`]s, in order, on each
/// built request ([`crate::client::HeaderHook::edit`]: the machine then applies the
/// reserved-header rule and the credential check).
struct RunInterceptors {
    interceptors: Arc<Mutex<Vec<Arc<dyn Interceptor>>>>,
    target: Arc<Mutex<Arc<Target>>>,
}

impl crate::client::HeaderHook for RunInterceptors {
    fn headers(&mut self, _: &crate::client::RequestContext<'_>, _: &mut Vec<(String, String)>) {}

    fn edit(
        &mut self,
        ctx: &crate::client::RequestContext<'_>,
        request: &mut crate::client::HttpRequest,
    ) {
        let hooks = self.interceptors.locked().clone();
        if hooks.is_empty() {
            return;
        }
        let mut http = HttpRequest {
            method: request.method.as_str().to_owned(),
            url: request.url.clone(),
            headers: std::mem::take(&mut request.headers),
            body: std::mem::take(&mut request.body),
        };
        let target = Arc::clone(&self.target.locked());
        let ctx = RequestContext {
            method: ctx.method,
            target: &target,
        };
        for hook in &hooks {
            hook.on_request(&ctx, &mut http);
        }
        // The method and URL stay the machine's: credentials go to the validated host only.
        request.headers = http.headers;
        request.body = http.body;
    }

    /// No interceptor: nothing to edit (one added meanwhile applies from the next request,
    /// as one added just after this request was built would).
    fn edits(&self) -> bool {
        !self.interceptors.locked().is_empty()
    }
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("config", &self.inner.config)
            .field(
                "interceptors",
                &self.inner.interceptors.lock().map_or(0, |v| v.len()),
            )
            .finish()
    }
}

impl Client {
    /// A client with `config` and no target: use [`Client::exchange`] and
    /// [`Client::open_stream`] directly, or make it the transport of [`run()`].
    pub fn raw(config: ClientConfig) -> Client {
        Client::build(config, None)
    }

    fn build(config: ClientConfig, source: Option<String>) -> Client {
        let guard = dns::Guard::default();
        let built = exchange::build_agent(&config, guard.clone()).and_then(|(agent, plain)| {
            Ok((
                agent,
                plain,
                proxy::Proxies::from_settings(config.proxy.as_deref(), config.no_proxy.as_deref())?,
            ))
        });
        let (agent, plain, proxies, setup_error) = match built {
            Ok((agent, plain, proxies)) => (agent, plain, proxies, None),
            Err(e) => {
                let o = Outcome::transport(
                    crate::outcome::ErrorName::InvalidRequest,
                    crate::outcome::RequestSent::No,
                    format!("request not sent: the client configuration cannot be used: {e}"),
                )
                .with_retry(crate::outcome::RetryAdvice::Never);
                // Never used: every call returns the error first.
                let idle = ureq::Agent::config_builder()
                    .proxy(None)
                    .build()
                    .new_agent();
                (idle, None, proxy::Proxies::default(), Some(o))
            }
        };
        Client {
            inner: Arc::new(Inner {
                agent,
                plain,
                proxies,
                guard,
                setup_error,
                config,
                interceptors: Arc::new(Mutex::new(Vec::new())),
                target: Mutex::new(None),
                source,
                machine: Mutex::new(None),
                epoch: Instant::now(),
            }),
        }
    }

    /// A client for the agent at `url` (its base URL or its card URL): fetches the card,
    /// validates it and chooses the interface now, unless
    /// [`ClientConfig::defer_card_resolution`] is set (then on the first call).
    ///
    /// # Errors
    /// [`CardResolutionError`] when the card cannot be fetched (including a redirect, never
    /// followed), parsed, or offers no usable and valid interface.
    pub fn new(url: &str, config: ClientConfig) -> Result<Client, CardResolutionError> {
        let client = Client::build(config, Some(url.to_owned()));
        if !client.inner.config.defer_card_resolution {
            let (t, origin) = client.resolve_card(url, None)?;
            let t = Arc::new(t);
            client.install(&t, Some(origin));
            *client.inner.target.locked() = Some(t);
        }
        Ok(client)
    }

    /// A client for a known interface, without fetching a card (the caller vouches for the
    /// URL, version and binding).
    pub fn with_target(target: Target, config: ClientConfig) -> Client {
        let client = Client::raw(config);
        let target = Arc::new(target);
        client.install(&target, None);
        *client.inner.target.locked() = Some(target);
        client
    }

    /// Makes the machine's state for `target`: the configuration's timeouts, retries, body
    /// limit, breaker and client certificate, a seed for ids, and the interceptors as the
    /// machine's header hook.
    fn install(&self, target: &Arc<Target>, origin: Option<card::CardOrigin>) {
        let c = &self.inner.config;
        let mut config = crate::client::ClientConfig {
            call_timeout: millis_of(c.call_timeout),
            connect_timeout: millis_of(c.connect_timeout),
            max_time: c.max_time.map(millis_of),
            send_retries: c.send_retries,
            max_response_bytes: c.max_response_bytes,
            breaker: c.breaker,
            client_certificate: c.client_cert_file.is_some(),
            ignore_capabilities: c.ignore_capabilities,
        };
        let machine_target = crate::client::Target {
            url: target.url.clone(),
            version: target.version,
            binding: target.binding,
            tenant: target.tenant.clone(),
            agent_name: target.agent_name.clone(),
            credentials: target.credentials.clone(),
            capabilities: target.capabilities,
        };
        let seed = correlation::random_u64();
        // A breaker configuration that cannot be used fails every call with this outcome
        // (nothing sent); the state is made without a breaker.
        let breaker_error = c.breaker.and_then(|b| {
            let e = crate::resilience::CircuitBreaker::new(target.agent_name.clone(), b).err()?;
            Some(
                Outcome::transport(
                    crate::outcome::ErrorName::InvalidRequest,
                    crate::outcome::RequestSent::No,
                    format!("request not sent: invalid breaker configuration: {e}"),
                )
                .with_retry(crate::outcome::RetryAdvice::Never),
            )
        });
        if breaker_error.is_some() {
            config.breaker = None;
        }
        // Without a breaker there is nothing the state can refuse.
        let Ok(mut state) = crate::client::ClientState::new(machine_target, config, seed) else {
            return;
        };
        if let Some(o) = origin {
            state.set_card_origin(&o.card_url, &o.options);
        }
        let hook_target = Arc::new(Mutex::new(Arc::clone(target)));
        state.add_header_hook(RunInterceptors {
            interceptors: Arc::clone(&self.inner.interceptors),
            target: Arc::clone(&hook_target),
        });
        *self.machine() = Some(Machine {
            state,
            breaker_error,
            hook_target,
        });
    }

    /// The machine's state (locked; `None` until the target is known).
    fn machine(&self) -> std::sync::MutexGuard<'_, Option<Machine>> {
        self.inner.machine.locked()
    }

    /// Runs `f` on the machine's state; `None` when the client has no target yet.
    pub(crate) fn with_state<R>(
        &self,
        f: impl FnOnce(&mut crate::client::ClientState) -> R,
    ) -> Option<R> {
        self.machine().as_mut().map(|m| f(&mut m.state))
    }

    /// [`Client::with_state`] for the loop: the no-target outcome when there is no state.
    pub(crate) fn state<R>(
        &self,
        f: impl FnOnce(&mut crate::client::ClientState) -> R,
    ) -> Result<R, Outcome> {
        self.with_state(f).ok_or_else(call::no_state)
    }

    /// The target calls go to, resolving a deferred card first.
    ///
    /// # Errors
    /// A `transport` outcome with error `CardResolution` (`request_sent = no`) when the
    /// card cannot be fetched, parsed or validated, or when the client has no target.
    pub fn target(&self) -> Result<Arc<Target>, Outcome> {
        self.target_within(None)
    }

    /// [`Client::target`], a deferred card fetch bounded by a call's total deadline `total`
    /// too (a value the call hands over).
    pub(crate) fn target_within(&self, total: Option<Instant>) -> Result<Arc<Target>, Outcome> {
        let mut slot = self.inner.target.locked();
        if let Some(t) = slot.as_ref() {
            return Ok(Arc::clone(t));
        }
        let Some(source) = self.inner.source.as_deref() else {
            return Err(Outcome::transport(
                crate::outcome::ErrorName::CardResolution,
                crate::outcome::RequestSent::No,
                "this client has no target (built with Client::raw)",
            ));
        };
        let (t, origin) = self
            .resolve_card(source, total)
            .map_err(|e| e.to_outcome())?;
        let t = Arc::new(t);
        self.install(&t, Some(origin));
        *slot = Some(Arc::clone(&t));
        Ok(t)
    }

    /// Whether the breaker is open now (`None` without a breaker), for metrics.
    pub fn breaker_state(&self) -> Option<crate::resilience::BreakerState> {
        let now = self.now();
        self.with_state(|s| s.breaker_state(now)).flatten()
    }

    /// A copy of the per-method tally of every outcome this client produced.
    pub fn tally(&self) -> crate::tally::Tally {
        self.with_state(|s| s.tally().clone()).unwrap_or_default()
    }

    /// The driver's clock on the core's scale.
    pub(crate) fn now(&self) -> crate::time::Millis {
        now_millis(self.inner.epoch)
    }

    /// A driver instant on the core's scale (an instant before the epoch is 0).
    pub(crate) fn millis_at(&self, at: Instant) -> crate::time::Millis {
        millis_of(at.saturating_duration_since(self.inner.epoch))
    }

    /// The total deadline of an operation starting at `start` ([`ClientConfig::max_time`]
    /// and [`CallOptions::deadline`], the earlier).
    pub(crate) fn total_from(&self, start: Instant, opts: &CallOptions) -> Option<Instant> {
        let own = self.inner.config.max_time.map(|m| start + m);
        match (own, opts.deadline) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// The configuration.
    pub fn config(&self) -> &ClientConfig {
        &self.inner.config
    }

    /// Appends an interceptor (run after those added before it, for every later call of
    /// this client and its clones).
    pub fn add_interceptor(&self, hook: impl Interceptor + 'static) {
        self.inner.interceptors.locked().push(Arc::new(hook));
    }

    /// Sends one request and reads the whole response, under the whole-call timeout
    /// (`timeout`, or the configured one when `None`; the shorter wins) and the body limit.
    /// No interceptor runs. Non-2xx statuses and 3xx are responses, not errors. The request
    /// may carry protocol headers (`Accept`, `Content-Type`, `A2A-Version`) but no framing
    /// or transport header (`Host`, `Content-Length`, `Connection`, ...): the driver writes
    /// and manages those.
    ///
    /// # Errors
    /// A `transport` outcome: connect failure (`request_sent = no`), timeout or reset
    /// (`unknown` once bytes were written), body over the limit, a framing or transport
    /// header (`InvalidRequest`, nothing sent).
    pub fn exchange(
        &self,
        request: &HttpRequest,
        timeout: Option<Duration>,
    ) -> Result<HttpResponse, Outcome> {
        self.exchange_abortable(request, timeout, &AbortHandle::new())
    }

    /// [`Client::exchange`], abortable from another thread through `abort` (a fresh
    /// [`AbortHandle`] for this call; an abort before the call starts makes it fail
    /// without sending).
    ///
    /// # Errors
    /// As [`Client::exchange`]; an aborted call fails with a `transport` `Reset` outcome.
    pub fn exchange_abortable(
        &self,
        request: &HttpRequest,
        timeout: Option<Duration>,
        abort: &AbortHandle,
    ) -> Result<HttpResponse, Outcome> {
        let connect = self.inner.config.connect_timeout;
        self.perform_with(request, self.call_budget(timeout), connect, abort)
    }

    /// One whole exchange of `request` within `timeout`, connected within `connect`.
    fn perform_with(
        &self,
        request: &HttpRequest,
        timeout: Duration,
        connect: Duration,
        abort: &AbortHandle,
    ) -> Result<HttpResponse, Outcome> {
        if let Some(o) = &self.inner.setup_error {
            return Err(o.clone());
        }
        reserved::check_raw(request)?;
        exchange::unary(
            self.net(),
            request,
            timeout,
            connect,
            self.inner.config.max_response_bytes,
            abort.io(),
        )
    }

    /// Performs one request a client machine handed out ([`crate::client::Transmit`]) for
    /// the loop ([`run()`]): the whole exchange within `timeout` (the time left before the
    /// transmit's `deadline`; NOT capped by [`ClientConfig::call_timeout`], the machine's
    /// deadline is the call's), connected within `connect` (the time left before its
    /// `connect_by`) or this client's connect timeout, whichever is shorter, the body
    /// limit, abortable through `abort`.
    ///
    /// # Errors
    /// As [`Client::exchange`].
    pub(crate) fn exchange_for_machine(
        &self,
        request: &HttpRequest,
        timeout: Duration,
        connect: Duration,
        abort: &AbortHandle,
    ) -> Result<HttpResponse, Outcome> {
        let connect = connect.min(self.inner.config.connect_timeout);
        self.perform_with(request, timeout, connect, abort)
    }

    /// [`Client::open_stream`] for a stream machine's transmit, as
    /// [`Client::exchange_for_machine`]: the head within `timeout` (not capped by the call
    /// timeout), connected within `connect` or the connect timeout, the shorter.
    ///
    /// # Errors
    /// As [`Client::open_stream`].
    pub(crate) fn open_stream_for_machine(
        &self,
        request: &HttpRequest,
        timeout: Duration,
        connect: Duration,
        abort: &AbortHandle,
    ) -> Result<Result<RawStream, HttpResponse>, Outcome> {
        let connect = connect.min(self.inner.config.connect_timeout);
        self.open_with(request, timeout, connect, abort)
    }

    /// Sends a streaming request and returns the open event stream, or the whole response
    /// when the server answered anything but a 2xx `text/event-stream` (for example a
    /// JSON-RPC error as `application/json`). The response head must arrive within the
    /// call timeout; the body has no total deadline. Headers as for [`Client::exchange`].
    ///
    /// # Errors
    /// A `transport` outcome, as for [`Client::exchange`].
    pub fn open_stream(
        &self,
        request: &HttpRequest,
        timeout: Option<Duration>,
    ) -> Result<Result<RawStream, HttpResponse>, Outcome> {
        self.open_stream_abortable(request, timeout, &AbortHandle::new())
    }

    /// [`Client::open_stream`], abortable from another thread through `abort` while the
    /// head is awaited and afterwards (the returned [`RawStream`] shares the handle).
    ///
    /// # Errors
    /// As [`Client::open_stream`]; an aborted call fails with a `transport` `Reset` outcome.
    pub fn open_stream_abortable(
        &self,
        request: &HttpRequest,
        timeout: Option<Duration>,
        abort: &AbortHandle,
    ) -> Result<Result<RawStream, HttpResponse>, Outcome> {
        let connect = self.inner.config.connect_timeout;
        self.open_with(request, self.call_budget(timeout), connect, abort)
    }

    /// Sends a streaming request and awaits its head within `budget`, connected within
    /// `connect` (see [`Client::open_stream`]).
    fn open_with(
        &self,
        request: &HttpRequest,
        budget: Duration,
        connect: Duration,
        abort: &AbortHandle,
    ) -> Result<Result<RawStream, HttpResponse>, Outcome> {
        if let Some(o) = &self.inner.setup_error {
            return Err(o.clone());
        }
        reserved::check_raw(request)?;
        let io = Arc::clone(abort.io());
        match exchange::open_stream(
            self.net(),
            request,
            budget,
            connect,
            self.inner.config.max_response_bytes,
            &io,
        )? {
            exchange::Opened::Events {
                status,
                headers,
                reader,
            } => Ok(Ok(RawStream::new(io, reader, status, headers))),
            exchange::Opened::Whole(r) => Ok(Err(r)),
        }
    }

    /// What exchanges go through.
    fn net(&self) -> exchange::Net<'_> {
        exchange::Net {
            agent: &self.inner.agent,
            proxies: &self.inner.proxies,
            plain: self.inner.plain.as_ref(),
        }
    }
}

/// The outcome of an operation cut by its total deadline (the machine's, one copy).
pub(crate) use crate::client::max_time_outcome;

/// Milliseconds since `epoch` on the driver's monotonic clock, for the core's `now`.
pub(crate) fn now_millis(epoch: Instant) -> crate::time::Millis {
    crate::time::Millis(epoch.elapsed().as_millis().min(u128::from(u64::MAX)) as u64)
}

/// A duration on the core's millisecond scale.
pub(crate) fn millis_of(d: Duration) -> crate::time::Millis {
    crate::time::Millis(d.as_millis().min(u128::from(u64::MAX)) as u64)
}
