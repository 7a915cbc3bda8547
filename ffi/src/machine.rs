//! The client state machine over the C ABI: any HTTP stack (libcurl, httpx, net/http,
//! java.net.http) performs the requests, the machine decides everything else.
//!
//! Two handles:
//! - `a2a_client_state`: one per remote agent (target, config, breaker, tally, seeded ids),
//!   shared by its calls and internally locked: thread-safe. A call keeps the state alive
//!   (reference-counted), so freeing the state handle while calls run is allowed.
//! - `a2a_call`: one machine, of one of three kinds: a card fetch
//!   (`a2a_call_new_card_fetch`), a non-streaming call or a streaming call (`a2a_call_new`
//!   picks by method; `a2a_call_new_text` for a text message). Every kind has the same
//!   functions: `poll_transmit`, `handle_head` / `_body` / `_end` / `_failure` / `_timeout`,
//!   `cancel`, `poll_timeout`, `poll_event`, `free`.
//!
//! The call order, who owns which bytes and what each event means are in `ffi/README.md`
//! (*The client machine*) and the core's `client` module docs.

use std::ffi::{c_char, c_void};
use std::sync::{Arc, Mutex, MutexGuard};

use a2a::client::{
    CardEvent, CardFetch, ClientState, Correlation, Event, HttpResponse, InputError,
    RequestContext, RequestId, ResolvedCard, StreamCall, StreamConfig, StreamEvent, Target,
    Transmit, TransportFailure, UnaryCall,
};
use a2a::envelope::Method;
use a2a::model::params::Call;
use a2a::model::{WireForm, parse_params};
use a2a::outcome::ErrorName;
use a2a::time::Millis;

use crate::handle::{self, Handle, try_mut, try_out, try_ref};
use crate::header::{a2a_header, headers_from};
use crate::hook::{Hook, a2a_header_hook};
use crate::machine_config::{SharedCardCache, a2a_call_settings, a2a_machine_config};
use crate::outcome::a2a_outcome;
use crate::panic::ffi_panic_boundary;
use crate::request::a2a_method;
use crate::result::a2a_result;
use crate::stream::{
    a2a_stream_end_kind, a2a_stream_item, empty_item, end_kind, item_c, keep_outcome,
};
use crate::view::{a2a_bytes, a2a_str, try_bytes, try_input, try_str};
use crate::vocab::{a2a_binding, a2a_error_name, a2a_protocol_version};

/// What a client state handle shares with its calls.
pub(crate) struct StateCell {
    state: Mutex<ClientState>,
    stream: StreamConfig,
}

impl StateCell {
    /// The state, or `A2A_PANIC` when a panic inside an earlier call poisoned the lock.
    pub(crate) fn lock(&self) -> Result<MutexGuard<'_, ClientState>, a2a_result> {
        self.state.lock().map_err(|_| a2a_result::A2A_PANIC)
    }
}

/// The state of a client of one remote agent: its target (interface URL, version,
/// binding), config, circuit breaker, tally, the tasks it canceled and its seeded random
/// ids. Shared by every call made on it; calls on one state may run on several threads at
/// once (each locks the state for the duration of one function).
///
/// Methods: `a2a_client_state_new`, `a2a_client_state_from_card`, `a2a_client_state_free`,
/// `a2a_client_state_add_header_hook`, `a2a_client_state_adopt_extended_card`,
/// and the calls made on it: `a2a_call_new`, `a2a_call_new_text`.
///
/// Threading: `Send` and thread-safe. `a2a_client_state_free` drops the handle's share: a
/// call made on it keeps the state alive until the call is freed.
pub struct a2a_client_state {
    cell: Arc<StateCell>,
}

impl Handle for a2a_client_state {}

// One per handle, and the handle is on the heap already: boxing the variants buys nothing.
#[allow(clippy::large_enum_variant)]
pub(crate) enum Machine {
    Card(CardFetch),
    Unary(Arc<StateCell>, UnaryCall),
    Stream(Arc<StateCell>, StreamCall),
}

/// The request handed out last and the header views into it.
struct Sent {
    transmit: Transmit,
    headers: Vec<a2a_header>,
    method: &'static str,
}

// SAFETY: the raw pointers in `headers` point into `transmit`'s own strings, which move with
// it (the heap buffers do not move when `Sent` does); nothing else refers to them.
unsafe impl Send for Sent {}

/// What the last `Finished` event's views point into.
#[derive(Default)]
struct FinalViews {
    correlation: Option<Correlation>,
    response: Option<HttpResponse>,
    task_body: Option<Vec<u8>>,
    card: Option<ResolvedCard>,
    answer_text: Option<String>,
}

/// One client machine: a card fetch, a non-streaming call or a streaming call. Drive it
/// with `a2a_call_poll_transmit`, the `a2a_call_handle_*` inputs, `a2a_call_poll_timeout`
/// and `a2a_call_poll_event` until the `A2A_EVENT_KIND_FINISHED` event; free it with
/// `a2a_call_free` (also before it finished: that abandons it, see `a2a_call_cancel`).
///
/// Threading: `Send`, not thread-safe: a second call on the same handle while one runs is
/// refused with `A2A_IN_USE`. Calls on different `a2a_call`s of one client state may run
/// on different threads.
pub struct a2a_call {
    pub(crate) machine: Machine,
    /// Every request handed out, by attempt number (bounded by retries and resubscribes).
    issued: Vec<RequestId>,
    sent: Option<Sent>,
    /// The outcome the last event points to.
    /// Boxed: a call waiting on its stream holds none (see `a2a_call_poll_event`), and the
    /// 320 bytes were a sixth of every call's handle.
    event_outcome: Option<Box<a2a_outcome>>,
    item_artifact: Option<String>,
    task_id: String,
    /// Allocated at the `FINISHED` event: a call waiting on its stream keeps none of it.
    finals: Option<Box<FinalViews>>,
    pub(crate) finished: bool,
    /// A card fetch's cache (its config's), and whether it was consulted yet (at the first
    /// `a2a_call_poll_transmit`, which brings the time).
    pub(crate) card_cache: Option<SharedCardCache>,
    cache_consulted: bool,
    /// Whether the resolved card's host resolved to internal addresses only (set by
    /// `a2a_call_run`'s transport; kept beside the card in the cache).
    pub(crate) card_host_internal: bool,
    /// Events taken from the machine by `a2a_call_run` for the caller, handed out by
    /// `a2a_call_poll_event` before the machine's own.
    pub(crate) held: std::collections::VecDeque<AnyEvent>,
    /// The native transport's request in flight between `a2a_call_run`s (a stream's body).
    /// Boxed, made by the first `a2a_call_run`: a call a host's HTTP stack drives never
    /// uses it, and its 680 bytes inline were a third of every such call's handle (issue
    /// 28: memory per idle stream).
    #[cfg(feature = "driver")]
    pub(crate) in_flight: Option<Box<a2a::driver::InFlight>>,
    /// A card fetch run by `a2a_call_run`: the URL of its first request once the
    /// transport's rebinding check was armed with it (its resolution completes the check).
    #[cfg(feature = "driver")]
    pub(crate) rebinding_armed: Option<String>,
}

impl Handle for a2a_call {}

/// An event of any of the three machines.
pub(crate) enum AnyEvent {
    Card(CardEvent),
    Unary(Event),
    Stream(StreamEvent),
}

impl AnyEvent {
    /// The request an `ABORT` event names.
    #[cfg(feature = "driver")]
    pub(crate) fn abort_id(&self) -> Option<RequestId> {
        match self {
            AnyEvent::Card(CardEvent::Abort(id))
            | AnyEvent::Unary(Event::Abort(id))
            | AnyEvent::Stream(StreamEvent::Abort(id)) => Some(*id),
            _ => None,
        }
    }
}

/// The machine's next event (none held back).
pub(crate) fn machine_event(m: &mut Machine) -> Option<AnyEvent> {
    match m {
        Machine::Card(m) => m.poll_event().map(AnyEvent::Card),
        Machine::Unary(_, m) => m.poll_event().map(AnyEvent::Unary),
        Machine::Stream(_, m) => m.poll_event().map(AnyEvent::Stream),
    }
}

impl a2a_call {
    fn new(machine: Machine) -> a2a_call {
        a2a_call {
            machine,
            issued: Vec::new(),
            sent: None,
            event_outcome: None,
            item_artifact: None,
            task_id: String::new(),
            finals: None,
            finished: false,
            card_cache: None,
            cache_consulted: false,
            card_host_internal: false,
            held: std::collections::VecDeque::new(),
            #[cfg(feature = "driver")]
            in_flight: None,
            #[cfg(feature = "driver")]
            rebinding_armed: None,
        }
    }

    /// The request id the host names by `id`, or `A2A_CALL_STALE` for one never handed out.
    fn request(&self, id: u32) -> Result<RequestId, a2a_result> {
        self.issued
            .iter()
            .copied()
            .find(|r| r.attempt() == id)
            .ok_or(a2a_result::A2A_CALL_STALE)
    }
}

fn input_code(e: InputError) -> a2a_result {
    match e {
        InputError::Stale => a2a_result::A2A_CALL_STALE,
        InputError::NoHead => a2a_result::A2A_CALL_NO_HEAD,
        InputError::HeadTwice => a2a_result::A2A_CALL_HEAD_TWICE,
        InputError::Finished => a2a_result::A2A_CALL_FINISHED,
        // A refusal added to the core later: the input was not accepted.
        _ => a2a_result::A2A_INVALID_ARGUMENT,
    }
}

fn done(r: Result<(), InputError>) -> a2a_result {
    match r {
        Ok(()) => a2a_result::A2A_OK,
        Err(e) => input_code(e),
    }
}

/// Makes a client state for a known interface: `url` (UTF-8, copied; the interface URL
/// requests go to), `version` (an `a2a_protocol_version`), `binding` (an `a2a_binding`),
/// the options of `config` (copied; it may be freed afterwards) and `seed`, the host's
/// random bits (ids, `traceparent` and retry jitter are drawn from it: give each client a
/// different one). The agent's name (correlation, breaker, tally) is the URL's host.
/// `out`: receives a new state the caller owns (free with `a2a_client_state_free`);
/// written on success only.
///
/// Errors: `A2A_NULL_PARAMETER`, `A2A_INVALID_UTF8`, `A2A_INVALID_ARGUMENT` (version or
/// binding not a member, a version older than the config's minimum
/// (`A2A_CLIENT_OPTION_MIN_PROTOCOL`), empty URL), an `A2A_CONFIG_*` code
/// (breaker).
#[unsafe(no_mangle)]
pub extern "C" fn a2a_client_state_new(
    config: *const a2a_machine_config,
    url: *const c_char,
    url_len: usize,
    version: u32,
    binding: u32,
    seed: u64,
    out: *mut *mut a2a_client_state,
) -> a2a_result {
    ffi_panic_boundary! {
        let config = try_ref!(config);
        let out = try_out!(out);
        let url = try_str!(url, url_len);
        let (Some(v), Some(b)) = (
            a2a_protocol_version::core_from_u32(version),
            a2a_binding::core_from_u32(binding),
        ) else {
            return a2a_result::A2A_INVALID_ARGUMENT;
        };
        if url.is_empty() || config.inner.card.preferences.min_version.is_some_and(|m| v < m) {
            return a2a_result::A2A_INVALID_ARGUMENT;
        }
        state_out(config, Target::new(url, v, b), seed, out)
    }
}

fn state_out(
    config: &a2a_machine_config,
    target: Target,
    seed: u64,
    out: crate::handle::Out<*mut a2a_client_state>,
) -> a2a_result {
    state_out_from(config, target, None, seed, out)
}

/// [`state_out`] remembering where the target's card came from (`card URL`, options).
fn state_out_from(
    config: &a2a_machine_config,
    target: Target,
    origin: Option<(&str, &a2a::client::CardOptions)>,
    seed: u64,
    out: crate::handle::Out<*mut a2a_client_state>,
) -> a2a_result {
    match ClientState::new(target, config.inner.client, seed) {
        Ok(mut state) => {
            if let Some((url, options)) = origin {
                state.set_card_origin(url, options);
            }
            out.set(handle::into_raw(a2a_client_state {
                cell: Arc::new(StateCell {
                    state: Mutex::new(state),
                    stream: config.inner.stream,
                }),
            }));
            a2a_result::A2A_OK
        }
        Err(e) => crate::resilience::config_code(&e),
    }
}

/// Makes a client state for the interface a finished card fetch resolved (its URL,
/// version, binding, tenant, agent name, the credentials the card asks for and the
/// capabilities it declares: a call needing one it does not declare ends unsent as
/// `transport`/`CapabilityNotDeclared`, see `A2A_CLIENT_OPTION_IGNORE_CAPABILITIES`),
/// with the options of `config` and `seed` as in `a2a_client_state_new`. `card` is read only.
/// `out`: as in `a2a_client_state_new`.
///
/// Errors: `A2A_NULL_PARAMETER`, `A2A_IN_USE`, `A2A_CALL_WRONG_KIND` (`card` is not a card
/// fetch, or its `FINISHED` event was not polled yet, or it did not resolve: the event's
/// outcome said why), an `A2A_CONFIG_*` code.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_client_state_from_card(
    config: *const a2a_machine_config,
    card: *mut a2a_call,
    seed: u64,
    out: *mut *mut a2a_client_state,
) -> a2a_result {
    ffi_panic_boundary! {
        let config = try_ref!(config);
        let call = try_mut!(card);
        let out = try_out!(out);
        let Some(resolved) = call.finals.as_ref().and_then(|f| f.card.as_ref()) else {
            return a2a_result::A2A_CALL_WRONG_KIND;
        };
        // The extended card is checked against the URL this card came from.
        let origin = (resolved.card_url.as_str(), &config.inner.card);
        state_out_from(config, resolved.target.clone(), Some(origin), seed, out)
    }
}

/// Makes the extended card `call` fetched replace the public card of `state` (A2A §8.6.2:
/// the extended card replaces the public one for an authenticated session): `call` is a
/// finished `GetExtendedAgentCard` call made on `state` (its `FINISHED` event polled, its
/// outcome a success). The card is checked with the public card's rules (preferences and
/// policy of the config `state` was made with) against the URL the public card came from;
/// when it passes, later calls on `state` go to its interface with the credentials and
/// capabilities it declares (the agent name stays). A card that fails changes nothing.
/// `state` must come from `a2a_client_state_from_card`. Both handles are only read
/// (`call` is not consumed; free it as usual).
///
/// Errors: `A2A_NULL_PARAMETER`, `A2A_IN_USE`, `A2A_CLOSED`, `A2A_CALL_WRONG_KIND` (`call`
/// is not a finished, successful `GetExtendedAgentCard`, or `state` was not made from a
/// card), an `A2A_CARD_*` code (the card is refused: `A2A_CARD_HOST_MISMATCH` for an
/// interface on another host, `A2A_CARD_PLAIN_HTTP`, `A2A_CARD_NO_USABLE_INTERFACE`, ...).
#[unsafe(no_mangle)]
pub extern "C" fn a2a_client_state_adopt_extended_card(
    state: *const a2a_client_state,
    call: *mut a2a_call,
) -> a2a_result {
    ffi_panic_boundary! {
        let s = try_input!(try_shared_state(state));
        let call = try_mut!(call);
        let finals = call.finals.as_deref();
        let (Some(correlation), Some(outcome)) =
            (finals.and_then(|f| f.correlation.as_ref()), &call.event_outcome)
        else {
            return a2a_result::A2A_CALL_WRONG_KIND;
        };
        if !call.finished || !matches!(call.machine, Machine::Unary(..)) {
            return a2a_result::A2A_CALL_WRONG_KIND;
        }
        let result = a2a::client::CallResult {
            outcome: outcome.inner.clone(),
            correlation: correlation.clone(),
            response: finals.and_then(|f| f.response.clone()),
            answer: None,
        };
        let mut st = try_input!(s.cell.lock());
        match st.adopt_extended_card(&result) {
            Ok(_) => a2a_result::A2A_OK,
            Err(a2a::client::AdoptError::Card(e)) => match *e {
                a2a::client::ResolveError::Card { error, .. } => crate::card::card_code(&error),
                _ => a2a_result::A2A_CARD_INVALID,
            },
            Err(_) => a2a_result::A2A_CALL_WRONG_KIND,
        }
    }
}

/// Frees the caller's share of a client state. NULL is a no-op; must not be called twice.
/// Calls made on it stay usable (they keep the state alive until `a2a_call_free`).
#[unsafe(no_mangle)]
pub extern "C" fn a2a_client_state_free(state: *mut a2a_client_state) {
    ffi_panic_boundary! {
        // SAFETY: the header requires a pointer from this library, not yet freed.
        unsafe { handle::free(state) }
    }
}

/// Adds a header hook to `state`: it runs for every request the state's calls hand out
/// from now on (each attempt, retry and resubscribe; never the card fetch), after the ones
/// added before it, on the thread calling `a2a_call_poll_transmit`, while the state is
/// locked (it must not call the library for this state). A header it sets replaces one of
/// the same name; a reserved one ends the call unsent as `transport`/`InvalidRequest`
/// naming the header (see `a2a_header_setter_set`). `userdata` is passed back untouched;
/// it must stay valid, and usable from every thread that drives a call on this state,
/// until the state and every call made on it are freed.
///
/// Errors: `A2A_NULL_PARAMETER` (state or hook NULL), `A2A_CLOSED`, `A2A_PANIC`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_client_state_add_header_hook(
    state: *const a2a_client_state,
    hook: a2a_header_hook,
    userdata: *mut c_void,
) -> a2a_result {
    ffi_panic_boundary! {
        let s = try_input!(try_shared_state(state));
        let Some(hook) = Hook::new(hook, userdata) else {
            return a2a_result::A2A_NULL_PARAMETER;
        };
        try_input!(s.cell.lock()).add_header_hook(move |ctx: &RequestContext<'_>, add: &mut Vec<(String, String)>| {
            hook.run(ctx.method, add);
        });
        a2a_result::A2A_OK
    }
}

/// Starts resolving the agent card of `source` (UTF-8, copied): a base URL (the
/// well-known card paths are tried: the current one, then the legacy one on a 404) or the
/// card's own URL, with the card options of `config` (copied). The fetch carries no
/// credentials and follows no redirect. With a card cache on the config
/// (`a2a_client_config_builder_set_card_cache`), the first `a2a_call_poll_transmit`
/// consults it: a fresh card makes no request (it returns `A2A_NONE` and the `FINISHED`
/// event follows), a stale one is revalidated; the `FINISHED` event stores what the
/// response allows. `out`: receives a new call the caller owns (free
/// with `a2a_call_free`); written on success only. An unusable URL is not an error here:
/// the call then finishes at once (its first event) with the outcome saying why.
///
/// Errors: `A2A_NULL_PARAMETER`, `A2A_INVALID_UTF8`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_call_new_card_fetch(
    config: *const a2a_machine_config,
    source: *const c_char,
    source_len: usize,
    out: *mut *mut a2a_call,
) -> a2a_result {
    ffi_panic_boundary! {
        let config = try_ref!(config);
        let out = try_out!(out);
        let source = try_str!(source, source_len);
        let fetch = CardFetch::new(source, config.inner.card.clone());
        let mut call = a2a_call::new(Machine::Card(fetch));
        call.card_cache = config.inner.card_cache.clone();
        out.set(handle::into_raw(call));
        a2a_result::A2A_OK
    }
}

/// Reads call settings (NULL: none).
///
/// # Safety
/// `settings` is NULL or a live settings handle not mutated during the call.
unsafe fn settings_of(settings: *const a2a_call_settings) -> a2a_call_settings {
    if settings.is_null() {
        return a2a_call_settings::default();
    }
    // SAFETY: non-NULL and live by contract.
    unsafe { &*settings }.clone()
}

/// Starts the machine of `call` on `cell` at `now_ms`.
fn start(
    cell: &Arc<StateCell>,
    call: Call<'static>,
    settings: a2a_call_settings,
    now_ms: u64,
) -> Result<a2a_call, a2a_result> {
    let mut state = cell.lock()?;
    let now = Millis(now_ms);
    let call = crate::machine_config::with_return_immediately(call, settings.return_immediately);
    let options = settings.options;
    let machine = match call.method() {
        Method::SendStreamingMessage | Method::SubscribeToTask => {
            let mut stream = cell.stream;
            if let Some(idle) = settings.stream_idle_timeout {
                stream.idle_timeout = idle;
            }
            let m = StreamCall::new(&mut state, call, options, stream, now);
            Machine::Stream(Arc::clone(cell), m)
        }
        _ => Machine::Unary(
            Arc::clone(cell),
            UnaryCall::new(&mut state, call, options, now),
        ),
    };
    Ok(a2a_call::new(machine))
}

/// Starts a call of `method` (an `a2a_method`) with its parameters `params_json` (a JSON
/// object read tolerantly, any version's keys, in any one canonical form; `(NULL,
/// 0)` for none, e.g. `GetExtendedAgentCard`) on `state`, at `now_ms` on the host's
/// monotonic clock (the call's deadlines count from it), with `settings` (NULL: none;
/// copied). `SendStreamingMessage` and `SubscribeToTask` run the stream machine (items as
/// they arrive, idle deadline, resubscribes); every other method the non-streaming one.
/// Nothing is sent until `a2a_call_poll_transmit`. `out`: receives a new call the caller
/// owns (free with `a2a_call_free`); written on success only.
///
/// Errors: `A2A_NULL_PARAMETER`, `A2A_INVALID_ARGUMENT` (method not a member),
/// `A2A_REQUEST_PARAMS` (params not JSON or of the wrong shape; a message with no part,
/// file bytes that are not base64 or metadata that is no object), `A2A_IN_USE` (settings
/// being changed), `A2A_CLOSED`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_call_new(
    state: *const a2a_client_state,
    method: u32,
    params_json: *const u8,
    params_json_len: usize,
    settings: *const a2a_call_settings,
    now_ms: u64,
    out: *mut *mut a2a_call,
) -> a2a_result {
    ffi_panic_boundary! {
        let s = try_shared_state(state);
        let s = try_input!(s);
        let out = try_out!(out);
        let params = try_bytes!(params_json, params_json_len);
        let Some(method) = a2a_method::core_from_u32(method) else {
            return a2a_result::A2A_INVALID_ARGUMENT;
        };
        let form = {
            let st = try_input!(s.cell.lock());
            WireForm::new(st.target().version, st.target().binding)
        };
        let json = (!params.is_empty()).then_some(params);
        let call = match parse_params(method, json, form) {
            Ok(p) => p.call.into_owned(),
            Err(_) => return a2a_result::A2A_REQUEST_PARAMS,
        };
        // A message the agent would have to refuse is refused here, before anything is
        // sent: no part, file bytes that are not base64, metadata that is no object.
        if let Call::SendMessage(p) | Call::SendStreamingMessage(p) = &call
            && a2a::answer::check_outgoing(&p.message).is_err()
        {
            return a2a_result::A2A_REQUEST_PARAMS;
        }
        // SAFETY: the header requires NULL or a live settings handle.
        let settings = unsafe { settings_of(settings) };
        let call = try_input!(start(&s.cell, call, settings, now_ms));
        out.set(handle::into_raw(call));
        a2a_result::A2A_OK
    }
}

/// Starts sending one user text message (`text`, UTF-8, copied) on `state`: a
/// `SendMessage` (non-streaming machine) when `streaming` is false, a
/// `SendStreamingMessage` (stream machine) when true. The messageId is the settings' (see
/// `A2A_CALL_TEXT_OPTION_MESSAGE_ID`) or a fresh one drawn from the state's seed (the
/// `FINISHED` event's correlation reports it). Otherwise as `a2a_call_new`.
///
/// Errors: `A2A_NULL_PARAMETER`, `A2A_INVALID_UTF8`, `A2A_IN_USE`, `A2A_CLOSED`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_call_new_text(
    state: *const a2a_client_state,
    streaming: bool,
    text: *const c_char,
    text_len: usize,
    settings: *const a2a_call_settings,
    now_ms: u64,
    out: *mut *mut a2a_call,
) -> a2a_result {
    ffi_panic_boundary! {
        let s = try_input!(try_shared_state(state));
        let out = try_out!(out);
        let text = try_str!(text, text_len);
        // SAFETY: the header requires NULL or a live settings handle.
        let settings = unsafe { settings_of(settings) };
        let message_id = match &settings.message_id {
            Some(id) => id.clone(),
            None => try_input!(s.cell.lock()).fresh_id(),
        };
        let call = match a2a::envelope::text_message(&message_id, text) {
            Call::SendMessage(p) if streaming => Call::SendStreamingMessage(p),
            c => c,
        }
        .into_owned();
        let call = try_input!(start(&s.cell, call, settings, now_ms));
        out.set(handle::into_raw(call));
        a2a_result::A2A_OK
    }
}

/// The state behind a handle, counted in for the duration of the call.
fn try_shared_state<'a>(
    state: *const a2a_client_state,
) -> Result<crate::handle::Shared<'a, a2a_client_state>, a2a_result> {
    if state.is_null() {
        return Err(a2a_result::A2A_NULL_PARAMETER);
    }
    // SAFETY: non-NULL; the header requires a live state handle.
    unsafe { handle::enter_shared(state) }
}

/// One HTTP request to perform, from `a2a_call_poll_transmit`. Every view points into the
/// call and stays valid until the next `a2a_call_poll_transmit` that returns `A2A_OK` on
/// the same call, or `a2a_call_free` (so a host may stream the body out while it hands the
/// response in). Copy what must live longer.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct a2a_transmit {
    /// Names this request: pass it to every `a2a_call_handle_*` input about it (the attempt
    /// number, 1 for the first request of the call).
    pub request_id: u32,
    /// `GET`, `POST` or `DELETE` (static text).
    pub method: a2a_str,
    /// The absolute URL.
    pub url: a2a_str,
    /// The headers to send, in order (names compare case-insensitively); `headers_len`
    /// entries, each a (name, value) pair of UTF-8 views.
    pub headers: *const a2a_header,
    /// Number of `headers`.
    pub headers_len: usize,
    /// The body (empty for `GET` and `DELETE`).
    pub body: a2a_bytes,
    /// The connection must be up by then (host clock, ms): the host enforces it and reports
    /// a connect timeout with `a2a_call_handle_failure(..., A2A_ERROR_NAME_TIMEOUT, written
    /// = false, ...)`.
    pub connect_by_ms: u64,
    /// The whole exchange must be over by then (for a stream: the response head); the
    /// machine enforces it through `a2a_call_poll_timeout` / `a2a_call_handle_timeout`.
    pub deadline_ms: u64,
}

/// Writes the next request to perform at `now_ms` to `*out`. Returns `A2A_OK`, or
/// `A2A_NONE` (`*out` untouched) when none is due: then look at `a2a_call_poll_event` (a
/// request the breaker or a header rule refused ends its attempt without a transmit) and
/// `a2a_call_poll_timeout`. Call it after the call's start and after every input until it
/// returns `A2A_NONE`. Views: see `a2a_transmit`.
///
/// Errors: `A2A_NULL_PARAMETER`, `A2A_IN_USE`, `A2A_CLOSED`, `A2A_PANIC`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_call_poll_transmit(
    call: *mut a2a_call,
    now_ms: u64,
    out: *mut a2a_transmit,
) -> a2a_result {
    ffi_panic_boundary! {
        let c = try_mut!(call);
        let out = try_out!(out);
        if try_input!(next_transmit(c, Millis(now_ms))).is_none() {
            return a2a_result::A2A_NONE;
        }
        let Some(sent) = c.sent.as_ref() else {
            return a2a_result::A2A_NONE;
        };
        out.set(a2a_transmit {
            request_id: sent.transmit.id.attempt(),
            method: a2a_str::from_static(sent.method),
            url: a2a_str::from_str(&sent.transmit.request.url),
            headers: sent.headers.as_ptr(),
            headers_len: sent.headers.len(),
            body: a2a_bytes::from_slice(&sent.transmit.request.body),
            connect_by_ms: sent.transmit.connect_by.0,
            deadline_ms: sent.transmit.deadline.0,
        });
        a2a_result::A2A_OK
    }
}

/// The machine's next request at `now`, kept in the call (`c.sent`, with the header views
/// `a2a_transmit` hands out) and recorded as issued; `None` when none is due.
pub(crate) fn next_transmit(
    c: &mut a2a_call,
    now: Millis,
) -> Result<Option<&Transmit>, a2a_result> {
    let Some(transmit) = issue_transmit(c, now)? else {
        return Ok(None);
    };
    let headers = transmit
        .request
        .headers
        .iter()
        .map(|(n, v)| a2a_header {
            name: n.as_ptr().cast(),
            name_len: n.len(),
            value: v.as_ptr().cast(),
            value_len: v.len(),
        })
        .collect();
    let method = transmit.request.method.as_str();
    let sent = c.sent.insert(Sent {
        transmit,
        headers,
        method,
    });
    Ok(Some(&sent.transmit))
}

/// The machine's next request at `now`, recorded as issued, for a caller that performs it
/// itself (`a2a_call_run`: no views are handed out, so the call keeps no copy of it; an open
/// stream kept its request and its header views, about 1 KiB, while it waited; issue 28).
pub(crate) fn issue_transmit(
    c: &mut a2a_call,
    now: Millis,
) -> Result<Option<Transmit>, a2a_result> {
    let t = match &mut c.machine {
        Machine::Card(m) => {
            if let Some(cache) = c.card_cache.as_ref().filter(|_| !c.cache_consulted) {
                let cache = cache
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner);
                m.use_cache(&cache.cards, now);
            }
            c.cache_consulted = true;
            m.poll_transmit(now)
        }
        Machine::Unary(cell, m) => m.poll_transmit(&mut *cell.lock()?, now),
        Machine::Stream(cell, m) => m.poll_transmit(&mut *cell.lock()?, now),
    };
    let Some(transmit) = t else {
        return Ok(None);
    };
    c.issued.push(transmit.id);
    Ok(Some(transmit))
}

/// Hands in the response head of request `request_id`: the final status (not a 1xx) and
/// the headers (`headers_len` name/value pairs, UTF-8; read during the call only), at
/// `now_ms`.
///
/// Errors (nothing changed): `A2A_NULL_PARAMETER`, `A2A_INVALID_UTF8`,
/// `A2A_INVALID_ARGUMENT` (status not 200..=599), `A2A_CALL_STALE` (a request the machine
/// no longer waits for: drop it and ignore the error), `A2A_CALL_HEAD_TWICE`,
/// `A2A_CALL_FINISHED`, `A2A_IN_USE`, `A2A_CLOSED`, `A2A_PANIC`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_call_handle_head(
    call: *mut a2a_call,
    request_id: u32,
    status: u16,
    headers: *const a2a_header,
    headers_len: usize,
    now_ms: u64,
) -> a2a_result {
    ffi_panic_boundary! {
        let c = try_mut!(call);
        // SAFETY: the header requires `headers_len` readable a2a_header entries.
        let hs = try_input!(unsafe { headers_from(headers, headers_len) });
        if !(200..=599).contains(&status) {
            return a2a_result::A2A_INVALID_ARGUMENT;
        }
        if c.finished {
            return a2a_result::A2A_CALL_FINISHED;
        }
        let id = try_input!(c.request(request_id));
        let hs: Vec<(String, String)> = hs.into_iter().map(|(n, v)| (n.to_owned(), v.to_owned())).collect();
        let now = Millis(now_ms);
        done(match &mut c.machine {
            Machine::Card(m) => m.handle_head(id, status, hs, now),
            Machine::Unary(cell, m) => m.handle_head(&mut *try_input!(cell.lock()), id, status, hs, now),
            Machine::Stream(cell, m) => m.handle_head(&mut *try_input!(cell.lock()), id, status, hs, now),
        })
    }
}

/// Hands in a chunk of request `request_id`'s body (after content decoding; any size, any
/// split; read during the call only, copied into the machine as needed) at `now_ms`.
/// A chunk handed at or after an open stream's idle deadline counts (it waited unread while
/// the host was away) and moves the deadline on; at or after a request's call deadline or
/// the stream's total deadline, the attempt times out instead, as `a2a_call_handle_timeout`
/// would.
///
/// Errors (nothing changed): `A2A_NULL_PARAMETER`, `A2A_CALL_STALE`, `A2A_CALL_NO_HEAD`,
/// `A2A_CALL_FINISHED`, `A2A_IN_USE`, `A2A_CLOSED`, `A2A_PANIC`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_call_handle_body(
    call: *mut a2a_call,
    request_id: u32,
    chunk: *const u8,
    chunk_len: usize,
    now_ms: u64,
) -> a2a_result {
    ffi_panic_boundary! {
        let c = try_mut!(call);
        let chunk = try_bytes!(chunk, chunk_len);
        if c.finished {
            return a2a_result::A2A_CALL_FINISHED;
        }
        let id = try_input!(c.request(request_id));
        let now = Millis(now_ms);
        done(match &mut c.machine {
            Machine::Card(m) => m.handle_body(id, chunk, now),
            Machine::Unary(cell, m) => m.handle_body(&mut *try_input!(cell.lock()), id, chunk, now),
            Machine::Stream(cell, m) => m.handle_body(&mut *try_input!(cell.lock()), id, chunk, now),
        })
    }
}

/// Says that request `request_id`'s body is complete (for a stream: the server closed it)
/// at `now_ms`.
///
/// Errors (nothing changed): `A2A_NULL_PARAMETER`, `A2A_CALL_STALE`, `A2A_CALL_NO_HEAD`,
/// `A2A_CALL_FINISHED`, `A2A_IN_USE`, `A2A_CLOSED`, `A2A_PANIC`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_call_handle_end(
    call: *mut a2a_call,
    request_id: u32,
    now_ms: u64,
) -> a2a_result {
    ffi_panic_boundary! {
        let c = try_mut!(call);
        if c.finished {
            return a2a_result::A2A_CALL_FINISHED;
        }
        let id = try_input!(c.request(request_id));
        let now = Millis(now_ms);
        done(match &mut c.machine {
            Machine::Card(m) => m.handle_end(id, now),
            Machine::Unary(cell, m) => m.handle_end(&mut *try_input!(cell.lock()), id, now),
            Machine::Stream(cell, m) => m.handle_end(&mut *try_input!(cell.lock()), id, now),
        })
    }
}

/// Says that request `request_id` failed in transport at `now_ms`: `error` is an
/// `a2a_error_name` of the transport group (`A2A_ERROR_NAME_CONNECT_FAILED`, `_DNS`,
/// `_TIMEOUT`, `_RESET`, `_TLS`, ...); `written` whether any request byte may have reached
/// the server (when in doubt, true: such a request is never resent without an idempotency
/// key); `message` (UTF-8, copied; `(NULL, 0)` for none) says what the stack saw.
///
/// Errors (nothing changed): `A2A_NULL_PARAMETER`, `A2A_INVALID_UTF8`,
/// `A2A_INVALID_ARGUMENT` (`error` not a transport name), `A2A_CALL_STALE`,
/// `A2A_CALL_FINISHED`, `A2A_IN_USE`, `A2A_CLOSED`, `A2A_PANIC`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_call_handle_failure(
    call: *mut a2a_call,
    request_id: u32,
    error: u32,
    written: bool,
    message: *const c_char,
    message_len: usize,
    now_ms: u64,
) -> a2a_result {
    ffi_panic_boundary! {
        let c = try_mut!(call);
        let message = try_str!(message, message_len);
        let Some(error) = a2a_error_name::core_from_u32(error).filter(|e| is_transport(*e)) else {
            return a2a_result::A2A_INVALID_ARGUMENT;
        };
        if c.finished {
            return a2a_result::A2A_CALL_FINISHED;
        }
        let id = try_input!(c.request(request_id));
        let message = if message.is_empty() { "transport failure" } else { message };
        let failure = TransportFailure::new(error, written, message);
        let now = Millis(now_ms);
        done(match &mut c.machine {
            Machine::Card(m) => m.handle_failure(id, failure, now),
            Machine::Unary(cell, m) => m.handle_failure(&mut *try_input!(cell.lock()), id, failure, now),
            Machine::Stream(cell, m) => m.handle_failure(&mut *try_input!(cell.lock()), id, failure, now),
        })
    }
}

fn is_transport(e: ErrorName) -> bool {
    (a2a_error_name::from_core(e) as u32) >= 201
}

/// Tells the machine the time is `now_ms` (call it once `a2a_call_poll_timeout`'s deadline
/// has passed; earlier calls do nothing). A request whose deadline passed is given up
/// (an `ABORT` event, then a retry, a resubscribe or `FINISHED`); a scheduled retry becomes
/// due (`a2a_call_poll_transmit`).
///
/// Errors: `A2A_NULL_PARAMETER`, `A2A_IN_USE`, `A2A_CLOSED`, `A2A_PANIC`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_call_handle_timeout(call: *mut a2a_call, now_ms: u64) -> a2a_result {
    ffi_panic_boundary! {
        let c = try_mut!(call);
        let now = Millis(now_ms);
        match &mut c.machine {
            Machine::Card(m) => m.handle_timeout(now),
            Machine::Unary(cell, m) => m.handle_timeout(&mut *try_input!(cell.lock()), now),
            Machine::Stream(cell, m) => m.handle_timeout(&mut *try_input!(cell.lock()), now),
        }
        a2a_result::A2A_OK
    }
}

/// Abandons the call at `now_ms`: the request in flight is aborted (an `ABORT` event), the
/// breaker permit returned, and the call finishes (a `FINISHED` event with a
/// `transport`/`Canceled` outcome). A card fetch is given up the same way. Nothing happens
/// when the call already finished.
///
/// Errors: `A2A_NULL_PARAMETER`, `A2A_IN_USE`, `A2A_CLOSED`, `A2A_PANIC`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_call_cancel(call: *mut a2a_call, now_ms: u64) -> a2a_result {
    ffi_panic_boundary! {
        let c = try_mut!(call);
        let now = Millis(now_ms);
        match &mut c.machine {
            Machine::Card(m) => m.cancel(now),
            Machine::Unary(cell, m) => m.cancel(&mut *try_input!(cell.lock()), now),
            Machine::Stream(cell, m) => m.cancel(&mut *try_input!(cell.lock()), now),
        }
        a2a_result::A2A_OK
    }
}

/// Writes the next moment (host clock, ms) the machine wants `a2a_call_handle_timeout`
/// called to `*out`: the in-flight request's deadline, a stream's idle deadline, or when a
/// scheduled retry may go out. Returns false (`*out` untouched) when it waits for nothing
/// in time (finished, or a request is due from `a2a_call_poll_transmit`), and when `call`
/// or `out` is NULL or the call is in use. Changes nothing and invalidates no view.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_call_poll_timeout(call: *mut a2a_call, out: *mut u64) -> bool {
    ffi_panic_boundary! {
        let c = try_mut!(call);
        let out = try_out!(out);
        let t = match &c.machine {
            Machine::Card(m) => m.poll_timeout(),
            Machine::Unary(_, m) => m.poll_timeout(),
            Machine::Stream(_, m) => m.poll_timeout(),
        };
        match t {
            Some(t) => {
                out.set(t.0);
                true
            }
            None => false,
        }
    }
}

/// What an `a2a_event` reports.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum a2a_event_kind {
    /// Drop request `request_id` now (close its connection): its deadline passed, its body
    /// grew past the limit, its stream is over or idle, or the call was canceled. Later
    /// inputs about it return `A2A_CALL_STALE`.
    Abort = 1,
    /// An attempt failed and the call will be sent again (`attempt`, after `delay_ms`;
    /// `a2a_call_poll_timeout` says when): `outcome` says why the last one failed. The same
    /// messageId and `Idempotency-Key`, a new request.
    Retrying = 2,
    /// The stream was cut or went idle with its task running: the machine resubscribes to
    /// `task_id` (`attempt`, 1 for the first; a new request from
    /// `a2a_call_poll_transmit`), never resending the message. `outcome`: how the last
    /// connection ended.
    Resubscribing = 3,
    /// A stream item, as it arrived: `item` (its kind, final flag, artifact chunk flags),
    /// `outcome` (the event classified) and `answer_json` (the event's canonical JSON;
    /// absent for an item that could not be read).
    Item = 4,
    /// The call is over; always the last event. `outcome`, `exit_code`, `answer_json`,
    /// `correlation`, and per machine the response, stream counts or resolved card.
    Finished = 5,
}

/// The ids to log on both sides of a call (`FINISHED` events of calls, not card fetches).
/// Views as in `a2a_event`; absent ones are `(NULL, 0)`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct a2a_correlation {
    /// The agent's name (the card's, or the interface URL's host).
    pub agent: a2a_str,
    /// The A2A method (`SendMessage`, ...).
    pub method: a2a_str,
    /// The JSON-RPC id of the last request.
    pub jsonrpc_id: a2a_str,
    /// The messageId sent.
    pub message_id: a2a_str,
    /// The task id (sent or answered).
    pub task_id: a2a_str,
    /// The context id.
    pub context_id: a2a_str,
    /// The error id the agent reported, if any.
    pub error_id: a2a_str,
    /// The `traceparent` sent with every attempt.
    pub traceparent: a2a_str,
    /// The `Idempotency-Key` sent, if any.
    pub idempotency_key: a2a_str,
    /// Milliseconds from the call's start to its end.
    pub elapsed_ms: u64,
    /// Requests made (attempts and resubscribes).
    pub attempts: u32,
}

impl a2a_correlation {
    const NONE: a2a_correlation = a2a_correlation {
        agent: a2a_str::NONE,
        method: a2a_str::NONE,
        jsonrpc_id: a2a_str::NONE,
        message_id: a2a_str::NONE,
        task_id: a2a_str::NONE,
        context_id: a2a_str::NONE,
        error_id: a2a_str::NONE,
        traceparent: a2a_str::NONE,
        idempotency_key: a2a_str::NONE,
        elapsed_ms: 0,
        attempts: 0,
    };

    fn of(c: &Correlation) -> a2a_correlation {
        a2a_correlation {
            agent: a2a_str::from_str(&c.agent),
            method: a2a_str::from_str(&c.method),
            jsonrpc_id: a2a_str::from_opt(c.jsonrpc_id.as_deref()),
            message_id: a2a_str::from_opt(c.message_id.as_deref()),
            task_id: a2a_str::from_opt(c.task_id.as_deref()),
            context_id: a2a_str::from_opt(c.context_id.as_deref()),
            error_id: a2a_str::from_opt(c.error_id.as_deref()),
            traceparent: a2a_str::from_str(&c.traceparent),
            idempotency_key: a2a_str::from_opt(c.idempotency_key.as_deref()),
            elapsed_ms: c.elapsed.0,
            attempts: c.attempts,
        }
    }
}

/// One event of a call, from `a2a_call_poll_event`: one packed struct for every kind; the
/// fields a kind does not use are zero / absent. Every view and pointer in it points into
/// the call: valid until the next mutating call on the call (any `a2a_call_*` taking
/// `a2a_call *`, except `a2a_call_poll_timeout`) or `a2a_call_free`. Copy what must live
/// longer. Fields are only ever appended.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct a2a_event {
    /// An `a2a_event_kind`.
    pub kind: a2a_event_kind,
    /// `ABORT`: the request to drop.
    pub request_id: u32,
    /// `RETRYING`: the attempt that will be made (2 for the first retry); `RESUBSCRIBING`:
    /// the resubscribe (1 for the first).
    pub attempt: u32,
    /// `RETRYING`: the delay after the failed attempt's end, in ms.
    pub delay_ms: u64,
    /// `RESUBSCRIBING`: the task resubscribed to.
    pub task_id: a2a_str,
    /// `RETRYING`, `RESUBSCRIBING`: why; `ITEM`: the event classified; `FINISHED`: the
    /// call's outcome (for a card fetch that resolved: NULL). BORROWED: never free it; read
    /// it with `a2a_outcome_get_info` (its `result_json` is `answer_json`) before the next
    /// mutating call on the call.
    pub outcome: *const a2a_outcome,
    /// `ITEM`: the item (its `outcome` is `outcome`).
    pub item: a2a_stream_item,
    /// `ITEM`: the event's canonical JSON; `FINISHED`: the answer's canonical JSON (a
    /// stream's assembled from its events), absent when the call returned none (see
    /// `ffi/README.md`, *The answer*).
    pub answer_json: a2a_str,
    /// `FINISHED`: the `a2a` CLI's exit status for this call (0 success; a stream that lost
    /// content exits 3 even when its outcome is a success; see `docs/outcomes.md`).
    pub exit_code: i32,
    /// `FINISHED` of a call: the correlation record.
    pub correlation: a2a_correlation,
    /// `FINISHED` of a non-streaming call: whether a response arrived (`response_status`,
    /// `response_body`: the raw body, e.g. of list tasks, push configs, the extended card);
    /// of a stream: whether the get-task fallback answered (its body).
    pub has_response: bool,
    /// The last response's HTTP status.
    pub response_status: u16,
    /// The last response's body.
    pub response_body: a2a_bytes,
    /// `FINISHED` of a stream: whether a stream was opened (`end_kind` is then set).
    pub has_end_kind: bool,
    /// How the last stream ended.
    pub end_kind: a2a_stream_end_kind,
    /// `FINISHED` of a stream: resubscribes made.
    pub resubscribes: u32,
    /// `FINISHED` of a stream: events dropped over the size limit (nonzero: incomplete).
    pub dropped_events: u32,
    /// `FINISHED` of a stream: events that could not be read (nonzero: incomplete).
    pub unreadable_events: u32,
    /// `FINISHED` of a card fetch that resolved: the card URL read.
    pub card_url: a2a_str,
    /// The card as received (JSON).
    pub card_json: a2a_str,
    /// The chosen interface URL (requests go there; see `a2a_client_state_from_card`).
    pub interface_url: a2a_str,
    /// The chosen interface's `a2a_protocol_version`.
    pub interface_version: u32,
    /// The chosen interface's `a2a_binding`.
    pub interface_binding: u32,
    /// `ITEM`: the event's text (the outcome's `text`); `FINISHED`: the answer's text (its
    /// text parts joined with `\n`, the `text` of `answer_json`); absent when there is none.
    pub answer_text: a2a_str,
}

impl a2a_event {
    fn empty(kind: a2a_event_kind) -> a2a_event {
        a2a_event {
            kind,
            request_id: 0,
            attempt: 0,
            delay_ms: 0,
            task_id: a2a_str::NONE,
            outcome: std::ptr::null(),
            item: empty_item(),
            answer_json: a2a_str::NONE,
            exit_code: 0,
            correlation: a2a_correlation::NONE,
            has_response: false,
            response_status: 0,
            response_body: a2a_bytes::from_slice(&[]),
            has_end_kind: false,
            end_kind: a2a_stream_end_kind::Error,
            resubscribes: 0,
            dropped_events: 0,
            unreadable_events: 0,
            card_url: a2a_str::NONE,
            card_json: a2a_str::NONE,
            interface_url: a2a_str::NONE,
            interface_version: 0,
            interface_binding: 0,
            answer_text: a2a_str::NONE,
        }
    }
}

/// Writes the next event to `*out` (views: see `a2a_event`). Returns `A2A_OK`, or
/// `A2A_NONE` (`*out` untouched) when there is none now. After the `FINISHED` event it
/// always returns `A2A_NONE`.
///
/// Errors: `A2A_NULL_PARAMETER`, `A2A_IN_USE`, `A2A_CLOSED`, `A2A_PANIC`.
#[unsafe(no_mangle)]
#[allow(
    clippy::too_many_lines,
    reason = "copies every event kind's fields into the C struct, one arm per kind, inside the panic boundary"
)]
pub extern "C" fn a2a_call_poll_event(call: *mut a2a_call, out: *mut a2a_event) -> a2a_result {
    ffi_panic_boundary! {
        let c = try_mut!(call);
        let out = try_out!(out);
        let mut e;
        let Some(next) = c.held.pop_front().or_else(|| machine_event(&mut c.machine)) else {
            // The last event's views die at this (mutating) call: until the next event, a
            // call waiting on its stream keeps no outcome, answer or artifact of the last
            // item (an idle stream's first item was about 1 KiB of C heap). A finished
            // call keeps its FINISHED outcome (`a2a_client_state_adopt_extended_card`).
            if !c.finished {
                c.event_outcome = None;
                c.item_artifact = None;
            }
            return a2a_result::A2A_NONE;
        };
        #[cfg(feature = "driver")]
        if let Some(id) = next.abort_id() {
            // The caller canceled between runs: a body the native transport holds closes.
            if let Some(flight) = c.in_flight.as_deref_mut() {
                flight.drop_request(id);
            }
        }
        match next {
            AnyEvent::Card(ev) => match ev {
                CardEvent::Abort(id) => {
                    e = a2a_event::empty(a2a_event_kind::Abort);
                    e.request_id = id.attempt();
                }
                CardEvent::Resolved(r) => {
                    e = a2a_event::empty(a2a_event_kind::Finished);
                    c.finished = true;
                    c.event_outcome = None;
                    match *r {
                        Ok(card) => {
                            if let Some(cache) = &c.card_cache {
                                let mut cache =
                                    cache.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
                                match &card.cache_entry {
                                    Some(entry) => cache.put(entry.clone(), c.card_host_internal),
                                    None => cache.remove(&card.card_url),
                                }
                            }
                            let card = c.finals.get_or_insert_with(Box::default).card.insert(card);
                            e.card_url = a2a_str::from_str(&card.card_url);
                            e.card_json = a2a_str::from_str(&card.card_json);
                            e.interface_url = a2a_str::from_str(&card.target.url);
                            e.interface_version = a2a_protocol_version::from_core(card.target.version) as u32;
                            e.interface_binding = a2a_binding::from_core(card.target.binding) as u32;
                        }
                        Err(err) => {
                            let o = err.to_outcome();
                            e.exit_code = o.exit_code();
                            e.outcome = keep_outcome(&mut c.event_outcome, o, None);
                        }
                    }
                }
            },
            AnyEvent::Unary(ev) => match ev {
                Event::Abort(id) => {
                    e = a2a_event::empty(a2a_event_kind::Abort);
                    e.request_id = id.attempt();
                }
                Event::Retrying { attempt, delay, outcome } => {
                    e = a2a_event::empty(a2a_event_kind::Retrying);
                    e.attempt = attempt;
                    e.delay_ms = delay.0;
                    e.outcome = keep_outcome(&mut c.event_outcome, *outcome, None);
                }
                Event::Finished(r) => {
                    e = a2a_event::empty(a2a_event_kind::Finished);
                    c.finished = true;
                    let r = *r;
                    e.exit_code = r.outcome.exit_code();
                    let finals = c.finals.get_or_insert_with(Box::default);
                    finals.answer_text = r.answer.as_ref().and_then(a2a::answer::text);
                    let answer = crate::answer::render(r.answer.as_ref());
                    e.outcome = keep_outcome(&mut c.event_outcome, r.outcome, answer);
                    let corr = finals.correlation.insert(r.correlation);
                    e.correlation = a2a_correlation::of(corr);
                    finals.response = r.response;
                    if let Some(resp) = &finals.response {
                        e.has_response = true;
                        e.response_status = resp.status;
                        e.response_body = a2a_bytes::from_slice(&resp.body);
                    }
                }
            },
            AnyEvent::Stream(ev) => match ev {
                StreamEvent::Abort(id) => {
                    e = a2a_event::empty(a2a_event_kind::Abort);
                    e.request_id = id.attempt();
                }
                StreamEvent::Item(item) => {
                    e = a2a_event::empty(a2a_event_kind::Item);
                    e.item = item_c(*item, &mut c.event_outcome, &mut c.item_artifact);
                    e.outcome = e.item.outcome;
                }
                StreamEvent::Resubscribing { task_id, attempt, outcome } => {
                    e = a2a_event::empty(a2a_event_kind::Resubscribing);
                    c.task_id = task_id;
                    e.task_id = a2a_str::from_str(&c.task_id);
                    e.attempt = attempt;
                    e.outcome = keep_outcome(&mut c.event_outcome, *outcome, None);
                }
                StreamEvent::Finished(r) => {
                    e = a2a_event::empty(a2a_event_kind::Finished);
                    c.finished = true;
                    let r = *r;
                    e.exit_code = r.exit_code();
                    e.has_end_kind = r.kind.is_some();
                    if let Some(k) = r.kind {
                        e.end_kind = end_kind(k);
                    }
                    e.resubscribes = r.resubscribes;
                    e.dropped_events = r.dropped_events;
                    e.unreadable_events = r.unreadable_events;
                    let finals = c.finals.get_or_insert_with(Box::default);
                    finals.answer_text = r.answer.as_ref().and_then(a2a::answer::text);
                    let answer = crate::answer::render(r.answer.as_ref());
                    e.outcome = keep_outcome(&mut c.event_outcome, r.outcome, answer);
                    let corr = finals.correlation.insert(r.correlation);
                    e.correlation = a2a_correlation::of(corr);
                    finals.task_body = r.task_body;
                    if let Some(body) = &finals.task_body {
                        e.has_response = true;
                        e.response_status = 200;
                        e.response_body = a2a_bytes::from_slice(body);
                    }
                }
            },
        }
        if let Some(o) = unsafe_outcome_json(e.outcome) {
            e.answer_json = o;
        }
        match e.kind {
            a2a_event_kind::Finished => {
                e.answer_text = a2a_str::from_opt(c.finals.as_ref().and_then(|f| f.answer_text.as_deref()))
            }
            a2a_event_kind::Item => {
                e.answer_text = a2a_str::from_opt(c.event_outcome.as_ref().and_then(|o| o.inner.text.as_deref()))
            }
            _ => {}
        }
        out.set(e);
        a2a_result::A2A_OK
    }
}

/// The answer view of an outcome the call holds (NULL: none).
fn unsafe_outcome_json(o: *const a2a_outcome) -> Option<a2a_str> {
    if o.is_null() {
        return None;
    }
    // SAFETY: `o` points into the call's own outcome slot, alive for this function.
    let o = unsafe { &*o };
    o.result.as_deref().map(a2a_str::from_str)
}

/// Frees a call. NULL is a no-op; must not be called twice. A call freed before its
/// `FINISHED` event is abandoned: call `a2a_call_cancel` first to return its breaker
/// permit and close its request's connection yourself. Every view into it dies.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_call_free(call: *mut a2a_call) {
    ffi_panic_boundary! {
        // SAFETY: the header requires a pointer from this library, not yet freed.
        unsafe { handle::free(call) }
    }
}

/// Starts `call` on the state behind `state` at `now_ms` with `settings` (NULL: none;
/// copied, then adjusted by `adjust`): for calls the library makes itself (a wait's poll).
pub(crate) fn start_on_state(
    state: *const a2a_client_state,
    call: Call<'static>,
    settings: *const a2a_call_settings,
    now_ms: u64,
    adjust: impl FnOnce(&mut a2a_call_settings),
) -> Result<a2a_call, a2a_result> {
    let s = try_shared_state(state)?;
    // SAFETY: the caller's header requires NULL or a live settings handle.
    let mut settings = unsafe { settings_of(settings) };
    adjust(&mut settings);
    start(&s.cell, call, settings, now_ms)
}
