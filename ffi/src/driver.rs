//! The blocking reference driver (built with the `driver` feature, the default): a client
//! with safe timeouts that resolves the card, sends calls, polls streams item by item, and
//! lets the caller add headers through a C callback.
//!
//! Unlike the rest of the library these calls do network I/O and block the calling thread
//! (bounded by the configured timeouts).

use std::ffi::{c_char, c_void};
use std::sync::Arc;
use std::time::Duration;

use a2a::card::SelectionOrder;
use a2a::driver::{self, Client, ClientConfig, StreamCall, StreamEvent, Target};

use crate::handle::{self, Handle, try_mut, try_out, try_shared};
use crate::header::{a2a_header, headers_from};
use crate::hook::{Hook, a2a_header_hook};
use crate::outcome::a2a_outcome;
use crate::panic::ffi_panic_boundary;
use crate::resilience::a2a_breaker_config;
use crate::result::a2a_result;
use crate::stream::{a2a_stream_end_kind, a2a_stream_item, end_kind, item_c};
use crate::view::{a2a_str, input_str, try_input, try_str};
use crate::vocab::{a2a_binding, a2a_protocol_version};

/// Client configuration (milliseconds). Get the defaults with `a2a_client_config_default`
/// (connect 3 s, call 45 s, stream idle 60 s, 32 MiB responses, https only, the card's
/// interface order, no breaker), then change fields. Read during the call only. Fields are
/// only ever appended.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct a2a_client_config {
    /// TCP (and TLS) connect timeout.
    pub connect_timeout_ms: u64,
    /// Whole-call timeout of non-streaming calls.
    pub call_timeout_ms: u64,
    /// Stream idle timeout (no bytes, events or comments for that long).
    pub stream_idle_timeout_ms: u64,
    /// Largest response body read.
    pub max_response_bytes: u64,
    /// Pooled connections are retired after this idle time.
    pub pool_idle_timeout_ms: u64,
    /// Allow plain `http://` (local development).
    pub allow_http: bool,
    /// Extra origins the card's interface may point to (UTF-8 views).
    pub allow_hosts: *const a2a_str,
    /// Number of `allow_hosts`.
    pub allow_hosts_len: usize,
    /// An `a2a_protocol_version` to insist on, or 0 for the card's best.
    pub protocol: u32,
    /// An `a2a_binding` to insist on, or 0 for the card's best.
    pub binding: u32,
    /// Resolve the card on the first call instead of in `a2a_client_new`.
    pub defer_card_resolution: bool,
    /// Resubscribes after a cut stream (0: none).
    pub stream_resubscribe_attempts: u32,
    /// Resends of a send the driver may make itself (0: none). Always the same messageId and
    /// idempotency key, a new JSON-RPC id. Without an idempotency key a send is resent only
    /// when the request provably did not reach the agent (connect failure, a refusal before
    /// the request was written, 429, 503 with `Retry-After`); after a 502, 504, other 5xx, a
    /// timeout after writing or a dropped connection (the outcome is unknown) only with a key.
    pub send_retries: u32,
    /// Whose order picks the interface among the card's usable ones: false (the default) the
    /// card's (its `preferredTransport` / first `supportedInterfaces` entry), true the
    /// client's (1.0 then 0.3, JSON-RPC then HTTP+JSON). `protocol` and `binding` win over both.
    pub prefer_client_order: bool,
    /// Turns on the client's circuit breaker (false: off, the default): one breaker per
    /// client, i.e. per agent, shared by every thread using the client. While open, calls fail
    /// at once with a transport `CircuitOpen` outcome (`request_sent` no).
    pub breaker_enabled: bool,
    /// The breaker's configuration when `breaker_enabled` (`a2a_client_config_default` fills
    /// it with `a2a_breaker_config_default`'s values).
    pub breaker: a2a_breaker_config,
    /// A PEM file of CA certificates replacing the system trust store (curl's `--cacert`);
    /// empty: the system store, honouring `SSL_CERT_FILE` and `SSL_CERT_DIR`.
    pub ca_file: a2a_str,
    /// A PEM client certificate chain for mutual TLS (empty: none); needs
    /// `client_key_file`. It also satisfies a card's `mutualTLS` scheme.
    pub client_cert_file: a2a_str,
    /// The PEM private key of `client_cert_file` (empty: none).
    pub client_key_file: a2a_str,
    /// The proxy for every URL (curl's `--proxy`, `http://[user:password@]host:port`);
    /// empty: from the environment (`https_proxy`, `HTTPS_PROXY`, `http_proxy`,
    /// `all_proxy`, `ALL_PROXY`, with curl's rules).
    pub proxy: a2a_str,
    /// Never use a proxy, whatever `proxy` and the environment say.
    pub proxy_disabled: bool,
    /// Hosts reached without the proxy (curl's `--noproxy` list); empty: from `no_proxy` /
    /// `NO_PROXY`.
    pub no_proxy: a2a_str,
    /// Fixed resolutions `HOST:PORT:ADDR[,ADDR...]` (curl's `--resolve`; UTF-8 views).
    pub resolve: *const a2a_str,
    /// Number of `resolve`.
    pub resolve_len: usize,
    /// A total deadline per call in ms (card fetch, retries, resubscribes, a whole
    /// stream; curl's `--max-time`); 0: none (streams have no total limit).
    pub max_time_ms: u64,
    /// Send calls the agent card does not declare (false, the default: a stream or
    /// resubscribe without `capabilities.streaming`, a push-config call without
    /// `pushNotifications`, the extended card without its capability is refused before
    /// anything is sent, as `transport`/`CapabilityNotDeclared`). A client made without a
    /// card (`a2a_client_new_with_target`) checks nothing.
    pub ignore_capabilities: bool,
    /// The oldest `a2a_protocol_version` accepted, or 0 for none (A2A §3.6.3: never below
    /// it, no silent downgrade): a card offering only older interfaces is a card resolution
    /// error, nothing is sent to the agent. A `protocol` older than it is
    /// `A2A_INVALID_ARGUMENT`. Appended field: see the CHANGELOG.
    pub min_protocol: u32,
}

/// Per-call options; read during the call only. NULL means none.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct a2a_client_call_options {
    /// The caller's remaining turn budget in ms (0: none; the call timeout applies).
    pub timeout_ms: u64,
    /// Stream idle timeout for this call in ms (0: the configured one).
    pub idle_timeout_ms: u64,
    /// The `traceparent` to send (empty: a fresh one).
    pub traceparent: a2a_str,
    /// The `Idempotency-Key` to send (empty: none).
    pub idempotency_key: a2a_str,
    /// The messageId for send and stream calls (empty: a fresh one).
    pub message_id: a2a_str,
    /// The context id to continue (empty: none).
    pub context_id: a2a_str,
    /// The task id to continue (empty: none).
    pub task_id: a2a_str,
    /// Extra headers for this call.
    pub headers: *const a2a_header,
    /// Number of `headers`.
    pub headers_len: usize,
    /// Whether `history_length` is set. `false` (as in a zeroed struct) leaves the history
    /// to the agent; `true` with `history_length` 0 asks for no history at all.
    pub has_history_length: bool,
    /// When `has_history_length`: how many history messages the answer's task should carry
    /// (A2A `historyLength`; send, stream and get; at most `INT32_MAX`, larger is
    /// `A2A_INVALID_ARGUMENT`). Ignored otherwise.
    pub history_length: u32,
    /// Whether a send asks the agent to answer at once with the task as it stands (A2A 1.0
    /// `returnImmediately: true`, 0.3 `blocking: false`); `false` (as in a zeroed struct)
    /// leaves it to the agent. Other calls ignore it. Appended field: see the CHANGELOG.
    pub return_immediately: bool,
}

/// What `a2a_client_stream_next` produced.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum a2a_client_stream_event_kind {
    /// One typed item in `item`.
    Item = 1,
    /// The stream was cut with the task still running; the driver is resubscribing to
    /// `task_id` (attempt `attempt`). Never a resend.
    Resubscribing = 2,
    /// The last event: `end_kind` (when a stream was opened) and `outcome`.
    End = 3,
}

/// One event of a client stream. Views and the borrowed outcome point into the stream
/// handle: valid until the next mutating call on it.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct a2a_client_stream_event {
    /// What this is.
    pub kind: a2a_client_stream_event_kind,
    /// `ITEM`: the item (its `outcome` is borrowed from the stream handle).
    pub item: a2a_stream_item,
    /// `RESUBSCRIBING`: the task id.
    pub task_id: a2a_str,
    /// `RESUBSCRIBING`: 1 for the first resubscribe.
    pub attempt: u32,
    /// `END`: whether a stream was opened (`end_kind` applies).
    pub has_end_kind: bool,
    /// `END`: how the last stream ended.
    pub end_kind: a2a_stream_end_kind,
    /// `END`: the call's outcome, borrowed from the stream handle (never free it).
    pub outcome: *const a2a_outcome,
    /// `END`: resubscribes made.
    pub resubscribes: u32,
    /// `END`: events dropped for exceeding the event size limit (each was also an item of
    /// kind malformed). Nonzero: the answer is incomplete even if the call completed.
    pub dropped_events: u32,
    /// `END`: events that arrived whole but could not be read (each was also an item of
    /// kind malformed saying what and where). Nonzero: the answer is incomplete.
    pub unreadable_events: u32,
}

impl driver::Interceptor for Hook {
    fn on_request(&self, ctx: &driver::RequestContext<'_>, req: &mut driver::HttpRequest) {
        self.run(ctx.method, &mut req.headers);
    }
}

/// A blocking A2A client (connection pool, resolved target, hooks).
///
/// Methods: `a2a_client_config_default`, `a2a_client_new`, `a2a_client_new_with_target`,
/// `a2a_client_free`, `a2a_client_add_header_hook`, `a2a_client_send_text`,
/// `a2a_client_send_message`, `a2a_client_get_task`, `a2a_client_cancel_task`,
/// `a2a_client_stream_text`, `a2a_client_stream_message`, `a2a_client_resubscribe`.
///
/// Threading: unlike other handles a client is thread-safe for its calls (`send`, `get`,
/// `cancel`, opening streams, the raw exchanges) — it pools connections. Each call is
/// counted in the client while it runs: `a2a_client_add_header_hook` during a call returns
/// `A2A_IN_USE`, and `a2a_client_free` waits for the calls in flight (a call entering
/// meanwhile returns `A2A_CLOSED`). No call may start once `a2a_client_free` returned.
pub struct a2a_client {
    pub(crate) inner: Arc<Client>,
}

impl Handle for a2a_client {}

fn duration(ms: u64) -> Duration {
    Duration::from_millis(ms)
}

fn config_c(c: &ClientConfig) -> a2a_client_config {
    a2a_client_config {
        connect_timeout_ms: c.connect_timeout.as_millis() as u64,
        call_timeout_ms: c.call_timeout.as_millis() as u64,
        stream_idle_timeout_ms: c.stream_idle_timeout.as_millis() as u64,
        max_response_bytes: c.max_response_bytes,
        pool_idle_timeout_ms: c.pool_idle_timeout.as_millis() as u64,
        allow_http: c.allow_http,
        allow_hosts: std::ptr::null(),
        allow_hosts_len: 0,
        protocol: c
            .protocol
            .map_or(0, |p| a2a_protocol_version::from_core(p) as u32),
        binding: c.binding.map_or(0, |b| a2a_binding::from_core(b) as u32),
        defer_card_resolution: c.defer_card_resolution,
        stream_resubscribe_attempts: c.stream_resubscribe_attempts,
        send_retries: c.send_retries,
        prefer_client_order: c.prefer == SelectionOrder::ClientFirst,
        breaker_enabled: c.breaker.is_some(),
        breaker: crate::resilience::breaker_config_c(&c.breaker.unwrap_or_default()),
        ca_file: a2a_str::NONE,
        client_cert_file: a2a_str::NONE,
        client_key_file: a2a_str::NONE,
        proxy: a2a_str::NONE,
        proxy_disabled: false,
        no_proxy: a2a_str::NONE,
        resolve: std::ptr::null(),
        resolve_len: 0,
        max_time_ms: c.max_time.map_or(0, |d| d.as_millis() as u64),
        ignore_capabilities: c.ignore_capabilities,
        min_protocol: c
            .min_protocol
            .map_or(0, |v| a2a_protocol_version::from_core(v) as u32),
    }
}

/// An array of `len` UTF-8 views, copied (empty when `len` is 0).
///
/// # Safety
/// `ptr`, when `len > 0`, must point to `len` readable views, each valid.
unsafe fn str_list(ptr: *const a2a_str, len: usize) -> Result<Vec<String>, a2a_result> {
    if len == 0 {
        return Ok(Vec::new());
    }
    if ptr.is_null() {
        return Err(a2a_result::A2A_NULL_PARAMETER);
    }
    if len > isize::MAX as usize / std::mem::size_of::<a2a_str>() {
        return Err(a2a_result::A2A_INVALID_ARGUMENT);
    }
    // SAFETY: non-NULL, size checked, readable by contract.
    let views = unsafe { std::slice::from_raw_parts(ptr, len) };
    views
        .iter()
        // SAFETY: forwarded contract.
        .map(|v| unsafe { input_str(v.ptr, v.len) }.map(str::to_owned))
        .collect()
}

/// # Safety
/// `c`, when non-NULL, must be readable with valid views.
pub(crate) unsafe fn config_from(c: *const a2a_client_config) -> Result<ClientConfig, a2a_result> {
    let mut cfg = ClientConfig::default();
    if c.is_null() {
        return Ok(cfg);
    }
    // SAFETY: non-NULL, readable by contract.
    let c = unsafe { &*c };
    cfg.connect_timeout = duration(c.connect_timeout_ms);
    cfg.call_timeout = duration(c.call_timeout_ms);
    cfg.stream_idle_timeout = duration(c.stream_idle_timeout_ms);
    cfg.max_response_bytes = c.max_response_bytes;
    cfg.pool_idle_timeout = duration(c.pool_idle_timeout_ms);
    cfg.allow_http = c.allow_http;
    // SAFETY: forwarded contract.
    cfg.allow_hosts = unsafe { str_list(c.allow_hosts, c.allow_hosts_len) }?;
    cfg.protocol = match c.protocol {
        0 => None,
        n => Some(a2a_protocol_version::core_from_u32(n).ok_or(a2a_result::A2A_INVALID_ARGUMENT)?),
    };
    cfg.binding = match c.binding {
        0 => None,
        n => Some(a2a_binding::core_from_u32(n).ok_or(a2a_result::A2A_INVALID_ARGUMENT)?),
    };
    cfg.defer_card_resolution = c.defer_card_resolution;
    cfg.stream_resubscribe_attempts = c.stream_resubscribe_attempts;
    cfg.send_retries = c.send_retries;
    cfg.prefer = if c.prefer_client_order {
        SelectionOrder::ClientFirst
    } else {
        SelectionOrder::CardFirst
    };
    if c.breaker_enabled {
        let b = crate::resilience::breaker_config_core(&c.breaker);
        // Refused here, not on the first call: a configuration error is the caller's.
        if a2a::resilience::CircuitBreaker::new("config", b).is_err() {
            return Err(a2a_result::A2A_INVALID_ARGUMENT);
        }
        cfg.breaker = Some(b);
    }
    // SAFETY: forwarded contract (every view in `c`).
    unsafe {
        cfg.ca_file = opt_string(&c.ca_file)?.map(Into::into);
        cfg.client_cert_file = opt_string(&c.client_cert_file)?.map(Into::into);
        cfg.client_key_file = opt_string(&c.client_key_file)?.map(Into::into);
        cfg.proxy = if c.proxy_disabled {
            Some(String::new())
        } else {
            opt_string(&c.proxy)?
        };
        cfg.no_proxy = opt_string(&c.no_proxy)?;
    }
    // SAFETY: forwarded contract.
    cfg.resolve = unsafe { str_list(c.resolve, c.resolve_len) }?;
    cfg.max_time = (c.max_time_ms > 0).then(|| duration(c.max_time_ms));
    cfg.ignore_capabilities = c.ignore_capabilities;
    cfg.min_protocol = match c.min_protocol {
        0 => None,
        n => Some(a2a_protocol_version::core_from_u32(n).ok_or(a2a_result::A2A_INVALID_ARGUMENT)?),
    };
    if let (Some(p), Some(min)) = (cfg.protocol, cfg.min_protocol)
        && p < min
    {
        return Err(a2a_result::A2A_INVALID_ARGUMENT);
    }
    Ok(cfg)
}

/// # Safety
/// `v` must satisfy the input rules.
unsafe fn opt_string(v: &a2a_str) -> Result<Option<String>, a2a_result> {
    // SAFETY: forwarded contract.
    let s = unsafe { input_str(v.ptr, v.len) }?;
    Ok((!s.is_empty()).then(|| s.to_owned()))
}

/// # Safety
/// `o`, when non-NULL, must be readable with valid views.
unsafe fn call_options_from(
    o: *const a2a_client_call_options,
) -> Result<driver::CallOptions, a2a_result> {
    let mut opts = driver::CallOptions::default();
    if o.is_null() {
        return Ok(opts);
    }
    // SAFETY: non-NULL, readable by contract.
    let o = unsafe { &*o };
    opts.timeout = (o.timeout_ms > 0).then(|| duration(o.timeout_ms));
    opts.idle_timeout = (o.idle_timeout_ms > 0).then(|| duration(o.idle_timeout_ms));
    if o.has_history_length {
        let n = i32::try_from(o.history_length).map_err(|_| a2a_result::A2A_INVALID_ARGUMENT)?;
        opts.history_length = Some(n);
    }
    opts.return_immediately = o.return_immediately;
    // SAFETY: forwarded contract (every view and the header array in `o`).
    unsafe {
        opts.traceparent = opt_string(&o.traceparent)?;
        opts.idempotency_key = opt_string(&o.idempotency_key)?;
        opts.message_id = opt_string(&o.message_id)?;
        opts.context_id = opt_string(&o.context_id)?;
        opts.task_id = opt_string(&o.task_id)?;
        opts.headers = headers_from(o.headers, o.headers_len)?
            .into_iter()
            .map(|(n, v)| (n.to_owned(), v.to_owned()))
            .collect();
    }
    Ok(opts)
}

/// Writes the default client configuration to `*out`.
///
/// Errors: `A2A_NULL_PARAMETER`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_client_config_default(out: *mut a2a_client_config) -> a2a_result {
    ffi_panic_boundary! {
        let out = try_out!(out);
        out.set(config_c(&ClientConfig::default()));
        a2a_result::A2A_OK
    }
}

/// A client for an agent given by base URL or card URL (UTF-8): fetches and validates the
/// card now (unless `defer_card_resolution`), with `*config` (NULL: defaults). BLOCKS for
/// the card fetch.
///
/// `out`: a new client the caller owns (free with `a2a_client_free`), on success only.
/// `error`: may be NULL; on `A2A_CLIENT_CARD_RESOLUTION` receives a new transport outcome
/// (CardResolution, with advice and message) the caller owns.
///
/// Errors: `A2A_NULL_PARAMETER`, `A2A_INVALID_UTF8`, `A2A_INVALID_ARGUMENT`,
/// `A2A_CLIENT_CARD_RESOLUTION`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_client_new(
    url: *const c_char,
    url_len: usize,
    config: *const a2a_client_config,
    out: *mut *mut a2a_client,
    error: *mut *mut a2a_outcome,
) -> a2a_result {
    ffi_panic_boundary! {
        let out = try_out!(out);
        let url = try_str!(url, url_len);
        // SAFETY: the header requires `config` to be NULL or a readable config.
        let cfg = try_input!(unsafe { config_from(config) });
        match Client::new(url, cfg) {
            Ok(c) => {
                out.set(handle::into_raw(a2a_client { inner: Arc::new(c) }));
                a2a_result::A2A_OK
            }
            Err(e) => {
                if !error.is_null() {
                    // SAFETY: non-NULL; the header requires a writable pointer.
                    unsafe { error.write(a2a_outcome::into_raw(e.to_outcome())) };
                }
                a2a_result::A2A_CLIENT_CARD_RESOLUTION
            }
        }
    }
}

/// A client for a known interface (no card): `url` (UTF-8) spoken in `version` over
/// `binding`, with `*config` (NULL: defaults). Does no I/O.
///
/// Errors: `A2A_NULL_PARAMETER`, `A2A_INVALID_UTF8`, `A2A_INVALID_ARGUMENT` (also a
/// `version` older than the config's `min_protocol`).
#[unsafe(no_mangle)]
pub extern "C" fn a2a_client_new_with_target(
    url: *const c_char,
    url_len: usize,
    version: u32,
    binding: u32,
    config: *const a2a_client_config,
    out: *mut *mut a2a_client,
) -> a2a_result {
    ffi_panic_boundary! {
        let out = try_out!(out);
        let url = try_str!(url, url_len);
        // SAFETY: the header requires `config` to be NULL or a readable config.
        let cfg = try_input!(unsafe { config_from(config) });
        let (Some(v), Some(b)) = (a2a_protocol_version::core_from_u32(version), a2a_binding::core_from_u32(binding)) else {
            return a2a_result::A2A_INVALID_ARGUMENT;
        };
        if cfg.min_protocol.is_some_and(|min| v < min) {
            return a2a_result::A2A_INVALID_ARGUMENT;
        }
        let client = Client::with_target(Target::new(url, v, b), cfg);
        out.set(handle::into_raw(a2a_client { inner: Arc::new(client) }));
        a2a_result::A2A_OK
    }
}

/// Frees a client. NULL is a no-op; must not be called twice. Streams opened on it keep
/// the connection pool alive until they are freed.
///
/// Calls in flight on other threads are waited for: this marks the client closing (a call
/// that enters from now on returns `A2A_CLOSED` and does nothing), BLOCKS until every call
/// inside has returned (bounded only by those calls' own timeouts: connect, call, card
/// fetch, `max_time_ms`), then frees. Still the caller's duty: no call may start after
/// this returned (a use-after-free), and never call it from a header hook of this client
/// (it would wait for the hook's own call forever).
#[unsafe(no_mangle)]
pub extern "C" fn a2a_client_free(client: *mut a2a_client) {
    ffi_panic_boundary! {
        // SAFETY: the header requires a pointer from this library, not yet freed.
        unsafe { handle::free(client) }
    }
}

/// Adds a header hook, called for every A2A request in registration order. `userdata` is
/// passed back untouched; it must stay valid (and usable from the threads that make calls)
/// until the client is freed. Hooks must be added before the first stream is opened.
///
/// Errors: `A2A_NULL_PARAMETER` (client or hook NULL), `A2A_INVALID_ARGUMENT` (a stream on
/// this client is still alive), `A2A_IN_USE` (a call on the client is running: add hooks
/// before making calls), `A2A_CLOSED` (the client is being freed).
#[unsafe(no_mangle)]
pub extern "C" fn a2a_client_add_header_hook(
    client: *mut a2a_client,
    hook: a2a_header_hook,
    userdata: *mut c_void,
) -> a2a_result {
    ffi_panic_boundary! {
        let c = try_mut!(client);
        let Some(hook) = Hook::new(hook, userdata) else {
            return a2a_result::A2A_NULL_PARAMETER;
        };
        let Some(inner) = Arc::get_mut(&mut c.inner) else {
            return a2a_result::A2A_INVALID_ARGUMENT;
        };
        inner.add_interceptor(hook);
        a2a_result::A2A_OK
    }
}

/// Shared body of the three non-streaming calls.
fn call(
    client: *const a2a_client,
    text: *const c_char,
    text_len: usize,
    opts: *const a2a_client_call_options,
    out: *mut *mut a2a_outcome,
    f: impl FnOnce(&Client, &str, &driver::CallOptions) -> driver::CallResult,
) -> a2a_result {
    let c = try_shared!(client);
    let out = try_out!(out);
    let text = try_str!(text, text_len);
    // SAFETY: the header requires `opts` to be NULL or readable options.
    let o = try_input!(unsafe { call_options_from(opts) });
    let r = f(&c.inner, text, &o);
    out.set(a2a_outcome::into_raw_with(
        r.outcome,
        crate::answer::render(r.answer.as_ref()),
    ));
    a2a_result::A2A_OK
}

/// Sends a user message of any parts and waits for the answer (BLOCKS, bounded by the call
/// timeout). `message` is UTF-8 JSON, read during the call only:
/// `{"parts":[part,...],"metadata":{...}}` with at least one part, each
/// `{"kind":"text","text":..}`, `{"kind":"data","data":<any JSON>}`,
/// `{"kind":"file","bytes":"<base64>"}` or `{"kind":"file","uri":".."}`, optionally with
/// `media_type`, `name` and `metadata` (the shape `a2a_outcome_info.result_json` renders parts
/// in). File URIs are passed on, never fetched. `out`: the call's outcome, a new handle the
/// caller owns, carrying the answer (`a2a_outcome_info.result_json`).
///
/// Errors: `A2A_NULL_PARAMETER`, `A2A_INVALID_UTF8`, `A2A_INVALID_ARGUMENT` (options),
/// `A2A_ANSWER_MESSAGE` (the message is not of that shape; nothing is sent), `A2A_CLOSED`
/// (the client is being freed; nothing is sent), `A2A_IN_USE` (a header hook is being added
/// concurrently; nothing is sent).
#[unsafe(no_mangle)]
pub extern "C" fn a2a_client_send_message(
    client: *const a2a_client,
    message: *const c_char,
    message_len: usize,
    opts: *const a2a_client_call_options,
    out: *mut *mut a2a_outcome,
) -> a2a_result {
    ffi_panic_boundary! {
        let json = try_str!(message, message_len);
        let (parts, metadata) = try_input!(crate::answer::message_parts(json));
        call(client, std::ptr::null(), 0, opts, out, |c, _, o| {
            c.send_parts(parts, metadata, o)
        })
    }
}

/// Sends a user text message (UTF-8) and waits for the answer (BLOCKS, bounded by the call
/// timeout). `out`: the call's outcome, a new handle the caller owns — every failure,
/// including connect errors and timeouts, is an outcome, not an error code. The outcome
/// carries the agent's answer (`a2a_outcome_info.result_json`), also for get and cancel.
///
/// Errors: `A2A_NULL_PARAMETER`, `A2A_INVALID_UTF8`, `A2A_INVALID_ARGUMENT` (options),
/// `A2A_CLOSED` (the client is being freed: `a2a_client_free` is waiting for the calls in
/// flight; nothing is sent), `A2A_IN_USE` (a header hook is being added concurrently;
/// nothing is sent).
#[unsafe(no_mangle)]
pub extern "C" fn a2a_client_send_text(
    client: *const a2a_client,
    text: *const c_char,
    text_len: usize,
    opts: *const a2a_client_call_options,
    out: *mut *mut a2a_outcome,
) -> a2a_result {
    ffi_panic_boundary! {
        call(client, text, text_len, opts, out, |c, t, o| c.send_text(t, o))
    }
}

/// Reads a task (UTF-8 id); as `a2a_client_send_text`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_client_get_task(
    client: *const a2a_client,
    task_id: *const c_char,
    task_id_len: usize,
    opts: *const a2a_client_call_options,
    out: *mut *mut a2a_outcome,
) -> a2a_result {
    ffi_panic_boundary! {
        call(client, task_id, task_id_len, opts, out, |c, t, o| c.get_task(t, o))
    }
}

/// Cancels a task (UTF-8 id); as `a2a_client_send_text`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_client_cancel_task(
    client: *const a2a_client,
    task_id: *const c_char,
    task_id_len: usize,
    opts: *const a2a_client_call_options,
    out: *mut *mut a2a_outcome,
) -> a2a_result {
    ffi_panic_boundary! {
        call(client, task_id, task_id_len, opts, out, |c, t, o| c.cancel_task(t, o))
    }
}

/// A streaming call being polled with `a2a_client_stream_next`.
///
/// Methods: `a2a_client_stream_text`, `a2a_client_resubscribe`, `a2a_client_stream_next`,
/// `a2a_client_stream_free`.
///
/// Threading: `Send`, not thread-safe: `a2a_client_stream_next` while another thread is
/// inside it returns `A2A_IN_USE`; `a2a_client_stream_free` waits for a `next` in progress
/// (bounded by its idle timeout).
pub struct a2a_client_stream {
    /// Owns a clone of the client (a cheap handle), so it outlives the `a2a_client`.
    call: StreamCall,
    item_outcome: Option<a2a_outcome>,
    item_artifact: Option<String>,
    task_id: String,
    done: bool,
    /// Marks the client as in use by a stream: `a2a_client_add_header_hook` refuses (via
    /// `Arc::get_mut`) while any stream handle is alive, as the header documents.
    _client: Arc<Client>,
}

impl Handle for a2a_client_stream {}

fn open_stream(
    client: *const a2a_client,
    text: *const c_char,
    text_len: usize,
    opts: *const a2a_client_call_options,
    out: *mut *mut a2a_client_stream,
    resubscribe: bool,
    message: Option<MessageParts>,
) -> a2a_result {
    let c = try_shared!(client);
    let out = try_out!(out);
    let text = try_str!(text, text_len);
    // SAFETY: the header requires `opts` to be NULL or readable options.
    let o = try_input!(unsafe { call_options_from(opts) });
    // The StreamCall holds its own clone of the client handle: no borrow to keep alive.
    let call = match (resubscribe, message) {
        (true, _) => c.inner.resubscribe(text, &o),
        (false, Some((parts, metadata))) => c.inner.stream_parts(parts, metadata, &o),
        (false, None) => c.inner.stream_text(text, &o),
    };
    out.set(handle::into_raw(a2a_client_stream {
        call,
        item_outcome: None,
        item_artifact: None,
        task_id: String::new(),
        done: false,
        _client: Arc::clone(&c.inner),
    }));
    a2a_result::A2A_OK
}

/// Starts a streaming send of a user text message (UTF-8). Opening is eager: this call
/// resolves a deferred card, sends the request and BLOCKS until the response head arrives
/// (bounded by the call timeout, or `opts`' timeout if shorter); a response that is not an
/// event stream is read whole. It returns `A2A_OK` even when the call failed (connect
/// failure, timeout, card resolution, breaker open, an up-front JSON-RPC error): the failure
/// is the stream's `END` event, handed out by the first `a2a_client_stream_next`. `out`: a
/// new stream the caller owns (free with `a2a_client_stream_free`).
///
/// Errors: `A2A_NULL_PARAMETER`, `A2A_INVALID_UTF8`, `A2A_INVALID_ARGUMENT`, `A2A_CLOSED`
/// and `A2A_IN_USE` (as `a2a_client_send_text`; nothing is sent).
#[unsafe(no_mangle)]
pub extern "C" fn a2a_client_stream_text(
    client: *const a2a_client,
    text: *const c_char,
    text_len: usize,
    opts: *const a2a_client_call_options,
    out: *mut *mut a2a_client_stream,
) -> a2a_result {
    ffi_panic_boundary! {
        open_stream(client, text, text_len, opts, out, false, None)
    }
}

/// The parts and metadata of a message to send.
type MessageParts = (
    Vec<a2a::model::Part<'static>>,
    Option<a2a::model::Json<'static>>,
);

/// Starts a streaming send of a user message of any parts (`message` as for
/// `a2a_client_send_message`); otherwise as `a2a_client_stream_text`. The `END` event's
/// outcome carries the answer put together from the stream (`a2a_outcome_info.result_json`),
/// each item's outcome the event it was.
///
/// Errors: `A2A_NULL_PARAMETER`, `A2A_INVALID_UTF8`, `A2A_INVALID_ARGUMENT`,
/// `A2A_ANSWER_MESSAGE`, `A2A_CLOSED`, `A2A_IN_USE` (nothing is sent).
#[unsafe(no_mangle)]
pub extern "C" fn a2a_client_stream_message(
    client: *const a2a_client,
    message: *const c_char,
    message_len: usize,
    opts: *const a2a_client_call_options,
    out: *mut *mut a2a_client_stream,
) -> a2a_result {
    ffi_panic_boundary! {
        let json = try_str!(message, message_len);
        let parts = try_input!(crate::answer::message_parts(json));
        open_stream(client, std::ptr::null(), 0, opts, out, false, Some(parts))
    }
}

/// Resubscribes to a running task's events (UTF-8 id); as `a2a_client_stream_text`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_client_resubscribe(
    client: *const a2a_client,
    task_id: *const c_char,
    task_id_len: usize,
    opts: *const a2a_client_call_options,
    out: *mut *mut a2a_client_stream,
) -> a2a_result {
    ffi_panic_boundary! {
        open_stream(client, task_id, task_id_len, opts, out, true, None)
    }
}

/// Waits for the next event of the stream (BLOCKS, bounded by the idle timeout) and
/// writes it to `*out` (views and the borrowed outcome valid until the next mutating call
/// on the stream). Returns `A2A_OK`, or `A2A_NONE` once the `END` event was handed out.
///
/// Errors: `A2A_NULL_PARAMETER`, `A2A_IN_USE` (another thread is inside `next` on this
/// stream), `A2A_CLOSED` (the stream is being freed).
#[unsafe(no_mangle)]
pub extern "C" fn a2a_client_stream_next(
    stream: *mut a2a_client_stream,
    out: *mut a2a_client_stream_event,
) -> a2a_result {
    ffi_panic_boundary! {
        let s = try_mut!(stream);
        let out = try_out!(out);
        if s.done {
            return a2a_result::A2A_NONE;
        }
        s.item_outcome = None;
        s.item_artifact = None;
        let Some(ev) = s.call.next() else {
            s.done = true;
            return a2a_result::A2A_NONE;
        };
        let mut e = a2a_client_stream_event {
            kind: a2a_client_stream_event_kind::End,
            item: crate::stream::empty_item(),
            task_id: a2a_str::NONE,
            attempt: 0,
            has_end_kind: false,
            end_kind: a2a_stream_end_kind::Error,
            outcome: std::ptr::null(),
            resubscribes: 0,
            dropped_events: 0,
            unreadable_events: 0,
        };
        match ev {
            StreamEvent::Item(item) => {
                e.kind = a2a_client_stream_event_kind::Item;
                e.item = item_c(item, &mut s.item_outcome, &mut s.item_artifact);
            }
            StreamEvent::Resubscribing { task_id, attempt } => {
                e.kind = a2a_client_stream_event_kind::Resubscribing;
                s.task_id = task_id;
                e.task_id = a2a_str::from_str(&s.task_id);
                e.attempt = attempt;
            }
            StreamEvent::End(fin) => {
                s.done = true;
                e.has_end_kind = fin.kind.is_some();
                if let Some(k) = fin.kind {
                    e.end_kind = end_kind(k);
                }
                e.resubscribes = fin.resubscribes;
                e.dropped_events = fin.dropped_events;
                e.unreadable_events = fin.unreadable_events;
                let result = crate::answer::render(fin.answer.as_ref());
                let o: &a2a_outcome = s.item_outcome.insert(a2a_outcome { inner: fin.outcome, result });
                e.outcome = o as *const a2a_outcome;
            }
        }
        out.set(e);
        a2a_result::A2A_OK
    }
}

/// Frees a stream (closing its connection). NULL is a no-op; must not be called twice.
/// Waits for a `a2a_client_stream_next` in progress on another thread to return.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_client_stream_free(stream: *mut a2a_client_stream) {
    ffi_panic_boundary! {
        // SAFETY: the header requires a pointer from this library, not yet freed.
        unsafe { handle::free(stream) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hook::{a2a_header_setter, a2a_header_setter_set};
    use crate::outcome::*;
    use crate::vocab::{a2a_channel, a2a_error_name, a2a_request_sent};
    use std::ptr::{null, null_mut};
    use std::sync::atomic::{AtomicUsize, Ordering};

    unsafe extern "C" fn hook(
        ud: *mut c_void,
        method: *const c_char,
        len: usize,
        s: *mut a2a_header_setter,
    ) {
        // SAFETY: the test passes a live AtomicUsize; the method view is valid for the call.
        let (count, m) = unsafe {
            (
                &*(ud as *const AtomicUsize),
                std::slice::from_raw_parts(method.cast::<u8>(), len),
            )
        };
        assert!(m == b"SendMessage" || m == b"message/send", "{m:?}");
        count.fetch_add(1, Ordering::SeqCst);
        assert_eq!(
            a2a_header_setter_set(s, b"X-Key".as_ptr().cast(), 5, b"v".as_ptr().cast(), 1),
            a2a_result::A2A_OK
        );
        assert_eq!(
            a2a_header_setter_set(s, b"X-Key".as_ptr().cast(), 5, b"a\nb".as_ptr().cast(), 3),
            a2a_result::A2A_INVALID_ARGUMENT
        );
    }

    #[test]
    fn refused_connection_is_a_transport_outcome_and_hooks_run() {
        let mut cfg = std::mem::MaybeUninit::<a2a_client_config>::uninit();
        assert_eq!(
            a2a_client_config_default(cfg.as_mut_ptr()),
            a2a_result::A2A_OK
        );
        // SAFETY: written on A2A_OK.
        let mut cfg = unsafe { cfg.assume_init() };
        assert_eq!(cfg.connect_timeout_ms, 3000);
        cfg.allow_http = true;
        let url = "http://127.0.0.1:1/a2a";
        let mut c = null_mut();
        assert_eq!(
            a2a_client_new_with_target(url.as_ptr().cast(), url.len(), 1, 1, &cfg, &mut c),
            a2a_result::A2A_OK
        );
        let count = AtomicUsize::new(0);
        assert_eq!(
            a2a_client_add_header_hook(c, Some(hook), &count as *const _ as *mut c_void),
            a2a_result::A2A_OK
        );
        let mut o = null_mut();
        assert_eq!(
            a2a_client_send_text(c, b"hi".as_ptr().cast(), 2, null(), &mut o),
            a2a_result::A2A_OK
        );
        assert_eq!(count.load(Ordering::SeqCst), 1);
        assert_eq!(
            crate::outcome::tests::info(o).channel,
            a2a_channel::Transport
        );
        assert_eq!(
            crate::outcome::tests::error_name(o),
            Some(a2a_error_name::ConnectFailed)
        );
        assert_eq!(
            crate::outcome::tests::request_sent(o),
            Some(a2a_request_sent::No)
        );
        a2a_outcome_free(o);
        a2a_client_free(c);
    }
}
