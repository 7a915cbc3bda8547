//! Configuration of the client machine through opaque builders (rustls-ffi's pattern): a
//! setter per option, so options can be added without changing a struct layout that
//! already-compiled callers depend on.
//!
//! - `a2a_client_config_builder` → `a2a_client_config_builder_build` → `a2a_machine_config`
//!   (immutable, shared by every `a2a_client_state` and card fetch made from it): timeouts,
//!   retries, body and event limits, breaker, stream idle timeout and resubscribes, card
//!   resolution policy.
//! - `a2a_call_settings`: per-call options (budget, deadline, idempotency key,
//!   `traceparent`, extra headers, messageId), read when a call starts.
//!
//! (`a2a_client_config` is the reference driver's by-value struct; these builders are for
//! the machine in `machine.rs`.)

use std::ffi::c_char;
use std::sync::{Arc, Mutex};

use a2a::card::{Preferences, SelectionOrder};
use a2a::client::{CallOptions, CardCache, CardOptions, ClientConfig, StreamConfig};
use a2a::envelope::RpcId;
use a2a::resilience::CircuitBreaker;
use a2a::time::Millis;

use crate::handle::{self, Handle, try_mut, try_out, try_ref};
use crate::panic::ffi_panic_boundary;
use crate::resilience::{a2a_breaker_config, breaker_config_core, config_code};
use crate::result::a2a_result;
use crate::view::try_str;
use crate::vocab::{a2a_binding, a2a_protocol_version};

/// Everything a client machine decides by: the client's, the streams' and card
/// resolution's settings.
#[derive(Debug, Clone, Default)]
pub(crate) struct MachineConfig {
    pub(crate) client: ClientConfig,
    pub(crate) stream: StreamConfig,
    pub(crate) card: CardOptions,
    /// The card cache every card fetch made with the config uses (shared by the configs
    /// built from one builder after `a2a_client_config_builder_set_card_cache`).
    pub(crate) card_cache: Option<SharedCardCache>,
}

/// A card cache several configs and threads share.
pub(crate) type SharedCardCache = Arc<Mutex<CardCache>>;

/// A mutable set of client options; `a2a_client_config_builder_build` turns it into an
/// immutable `a2a_machine_config`. Starts at the reference driver's defaults: 45 s per
/// call, 3 s to connect, no total limit, no send retries, 16 MiB bodies, no breaker, no
/// client certificate; streams idle out after 60 s, never resubscribe, accept 16 MiB events;
/// card fetches take at most 30 s, accept https only and prefer the client's order.
///
/// Methods: `a2a_client_config_builder_new`, `_free`, `_set_*`, `_build`.
///
/// Threading: `Send`, not thread-safe (concurrent setters are refused with `A2A_IN_USE`).
pub struct a2a_client_config_builder {
    config: MachineConfig,
}

impl Handle for a2a_client_config_builder {}

/// The immutable options of client machines, from `a2a_client_config_builder_build`.
/// Read (never changed) by `a2a_client_state_new`, `a2a_client_state_from_card` and
/// `a2a_call_new_card_fetch`, which copy what they need: the config may be freed right after.
///
/// Threading: `Send` and, having no mutating call, safe to read from several threads.
pub struct a2a_machine_config {
    pub(crate) inner: MachineConfig,
}

impl Handle for a2a_machine_config {}

/// A new builder with the defaults (see `a2a_client_config_builder`). The caller owns it
/// and frees it with `a2a_client_config_builder_free`. Returns NULL only if the library
/// panicked.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_client_config_builder_new() -> *mut a2a_client_config_builder {
    ffi_panic_boundary! {
        handle::into_raw(a2a_client_config_builder { config: MachineConfig::default() })
    }
}

/// Frees a builder. NULL is a no-op; must not be called twice. A config built from it
/// stays valid.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_client_config_builder_free(builder: *mut a2a_client_config_builder) {
    ffi_panic_boundary! {
        // SAFETY: the header requires a pointer from this library, not yet freed.
        unsafe { handle::free(builder) }
    }
}

/// Sets the whole-call timeout of a non-streaming call, and the time a stream's response
/// head may take, in milliseconds (default 45000).
///
/// Errors: `A2A_NULL_PARAMETER`, `A2A_INVALID_ARGUMENT` (0), `A2A_IN_USE`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_client_config_builder_set_call_timeout_ms(
    builder: *mut a2a_client_config_builder,
    ms: u64,
) -> a2a_result {
    ffi_panic_boundary! {
        let b = try_mut!(builder);
        if ms == 0 {
            return a2a_result::A2A_INVALID_ARGUMENT;
        }
        b.config.client.call_timeout = Millis(ms);
        a2a_result::A2A_OK
    }
}

/// Sets how long connecting may take, in milliseconds (default 3000; calls and card
/// fetches). The host enforces it with the `connect_by_ms` of each transmit.
///
/// Errors: `A2A_NULL_PARAMETER`, `A2A_INVALID_ARGUMENT` (0), `A2A_IN_USE`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_client_config_builder_set_connect_timeout_ms(
    builder: *mut a2a_client_config_builder,
    ms: u64,
) -> a2a_result {
    ffi_panic_boundary! {
        let b = try_mut!(builder);
        if ms == 0 {
            return a2a_result::A2A_INVALID_ARGUMENT;
        }
        b.config.client.connect_timeout = Millis(ms);
        b.config.card.connect_timeout = Millis(ms);
        a2a_result::A2A_OK
    }
}

/// Sets a total deadline for each call, counted from its start, in milliseconds (retries
/// and resubscribes included); 0 (the default) means none.
///
/// Errors: `A2A_NULL_PARAMETER`, `A2A_IN_USE`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_client_config_builder_set_max_time_ms(
    builder: *mut a2a_client_config_builder,
    ms: u64,
) -> a2a_result {
    ffi_panic_boundary! {
        let b = try_mut!(builder);
        b.config.client.max_time = (ms > 0).then_some(Millis(ms));
        a2a_result::A2A_OK
    }
}

/// Sets how many times a `SendMessage` may be sent again after a failure the retry policy
/// allows (default 0: never). Without an idempotency key (`a2a_call_settings_set_idempotency_key`)
/// a request that may have arrived is never resent.
///
/// Errors: `A2A_NULL_PARAMETER`, `A2A_IN_USE`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_client_config_builder_set_send_retries(
    builder: *mut a2a_client_config_builder,
    retries: u32,
) -> a2a_result {
    ffi_panic_boundary! {
        let b = try_mut!(builder);
        b.config.client.send_retries = retries;
        a2a_result::A2A_OK
    }
}

/// Sets the largest response body (and agent card) accepted, in bytes (default 16 MiB);
/// past it the attempt fails as `transport`/`ResponseTooLarge` and the host is told to drop
/// the request.
///
/// Errors: `A2A_NULL_PARAMETER`, `A2A_INVALID_ARGUMENT` (0), `A2A_IN_USE`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_client_config_builder_set_max_response_bytes(
    builder: *mut a2a_client_config_builder,
    bytes: u64,
) -> a2a_result {
    ffi_panic_boundary! {
        let b = try_mut!(builder);
        if bytes == 0 {
            return a2a_result::A2A_INVALID_ARGUMENT;
        }
        b.config.client.max_response_bytes = bytes;
        b.config.card.max_bytes = bytes;
        a2a_result::A2A_OK
    }
}

/// Turns the circuit breaker on with `*breaker` (copied; start from
/// `a2a_breaker_config_default`), or off with NULL (the default). One breaker per client
/// state, shared by its calls.
///
/// Errors (nothing changed): `A2A_NULL_PARAMETER` (builder), `A2A_IN_USE`, the
/// `A2A_CONFIG_*` code of an unusable breaker configuration.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_client_config_builder_set_breaker(
    builder: *mut a2a_client_config_builder,
    breaker: *const a2a_breaker_config,
) -> a2a_result {
    ffi_panic_boundary! {
        let b = try_mut!(builder);
        if breaker.is_null() {
            b.config.client.breaker = None;
            return a2a_result::A2A_OK;
        }
        // SAFETY: non-NULL; the header requires a readable a2a_breaker_config.
        let c = breaker_config_core(unsafe { &*breaker });
        if let Err(e) = CircuitBreaker::new("config check", c) {
            return config_code(&e);
        }
        b.config.client.breaker = Some(c);
        a2a_result::A2A_OK
    }
}

/// Says whether the host presents a client certificate (satisfies a card's `mutualTLS`
/// requirement; default false).
///
/// Errors: `A2A_NULL_PARAMETER`, `A2A_IN_USE`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_client_config_builder_set_client_certificate(
    builder: *mut a2a_client_config_builder,
    present: bool,
) -> a2a_result {
    ffi_panic_boundary! {
        let b = try_mut!(builder);
        b.config.client.client_certificate = present;
        a2a_result::A2A_OK
    }
}

/// Says whether calls the agent card's capabilities do not declare are sent anyway (for an
/// agent whose card under-declares; default false). Off, a client state made from a card
/// (`a2a_client_state_from_card`) ends such a call before any request as
/// `transport`/`CapabilityNotDeclared` (`request_sent = no`): `SendStreamingMessage` and
/// `SubscribeToTask` need `capabilities.streaming`, the push-notification-config methods
/// `capabilities.pushNotifications`, `GetExtendedAgentCard` the extended card. A state made
/// from a URL (`a2a_client_state_new`) checks nothing.
///
/// Errors: `A2A_NULL_PARAMETER`, `A2A_IN_USE`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_client_config_builder_set_ignore_capabilities(
    builder: *mut a2a_client_config_builder,
    ignore: bool,
) -> a2a_result {
    ffi_panic_boundary! {
        let b = try_mut!(builder);
        b.config.client.ignore_capabilities = ignore;
        a2a_result::A2A_OK
    }
}

/// Sets a stream's longest silence (no bytes, events or keep-alive comments) before it is
/// given up as idle, in milliseconds (default 60000).
///
/// Errors: `A2A_NULL_PARAMETER`, `A2A_INVALID_ARGUMENT` (0), `A2A_IN_USE`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_client_config_builder_set_stream_idle_timeout_ms(
    builder: *mut a2a_client_config_builder,
    ms: u64,
) -> a2a_result {
    ffi_panic_boundary! {
        let b = try_mut!(builder);
        if ms == 0 {
            return a2a_result::A2A_INVALID_ARGUMENT;
        }
        b.config.stream.idle_timeout = Millis(ms);
        a2a_result::A2A_OK
    }
}

/// Sets how many times a stream cut or gone idle (with its task id known) is resubscribed
/// to, never resent (default 0).
///
/// Errors: `A2A_NULL_PARAMETER`, `A2A_IN_USE`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_client_config_builder_set_stream_resubscribes(
    builder: *mut a2a_client_config_builder,
    attempts: u32,
) -> a2a_result {
    ffi_panic_boundary! {
        let b = try_mut!(builder);
        b.config.stream.resubscribe_attempts = attempts;
        a2a_result::A2A_OK
    }
}

/// Sets the largest SSE event accepted, in bytes (default 16 MiB); a larger one is dropped
/// and reported as a `malformed` item.
///
/// Errors: `A2A_NULL_PARAMETER`, `A2A_INVALID_ARGUMENT` (0 or above `SIZE_MAX`), `A2A_IN_USE`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_client_config_builder_set_max_event_bytes(
    builder: *mut a2a_client_config_builder,
    bytes: u64,
) -> a2a_result {
    ffi_panic_boundary! {
        let b = try_mut!(builder);
        match usize::try_from(bytes) {
            Ok(n) if n > 0 => {
                b.config.stream.max_event_bytes = n;
                a2a_result::A2A_OK
            }
            _ => a2a_result::A2A_INVALID_ARGUMENT,
        }
    }
}

/// Card resolution: whether a plain `http://` card and interface are accepted (local
/// development and test servers only; default false).
///
/// Errors: `A2A_NULL_PARAMETER`, `A2A_IN_USE`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_client_config_builder_set_allow_http(
    builder: *mut a2a_client_config_builder,
    allow: bool,
) -> a2a_result {
    ffi_panic_boundary! {
        let b = try_mut!(builder);
        b.config.card.policy.allow_http = allow;
        a2a_result::A2A_OK
    }
}

/// Card resolution: how long each card fetch may take, in milliseconds (default 30000).
///
/// Errors: `A2A_NULL_PARAMETER`, `A2A_INVALID_ARGUMENT` (0), `A2A_IN_USE`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_client_config_builder_set_card_timeout_ms(
    builder: *mut a2a_client_config_builder,
    ms: u64,
) -> a2a_result {
    ffi_panic_boundary! {
        let b = try_mut!(builder);
        if ms == 0 {
            return a2a_result::A2A_INVALID_ARGUMENT;
        }
        b.config.card.timeout = Millis(ms);
        a2a_result::A2A_OK
    }
}

/// Card resolution: whose order picks the interface when the card offers several: the
/// client's preferences (false, the default: 1.0 before 0.3, JSON-RPC before HTTP+JSON) or
/// the card's own order (true, the spec's rule).
///
/// Errors: `A2A_NULL_PARAMETER`, `A2A_IN_USE`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_client_config_builder_set_prefer_card_order(
    builder: *mut a2a_client_config_builder,
    card_first: bool,
) -> a2a_result {
    ffi_panic_boundary! {
        let b = try_mut!(builder);
        b.config.card.preferences.order = if card_first {
            SelectionOrder::CardFirst
        } else {
            SelectionOrder::ClientFirst
        };
        a2a_result::A2A_OK
    }
}

/// Card resolution: the interface to insist on, as the reference driver's `protocol` and
/// `binding`: `version` an `a2a_protocol_version` (0: any, 1.0 before 0.3) and `binding`
/// an `a2a_binding` (0: any, JSON-RPC before HTTP+JSON). A card that offers no interface
/// matching both is refused (the fetch's outcome lists what it offered). Default: 0, 0.
///
/// Errors: `A2A_NULL_PARAMETER`, `A2A_INVALID_ARGUMENT` (neither 0 nor a member),
/// `A2A_IN_USE`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_client_config_builder_set_interface(
    builder: *mut a2a_client_config_builder,
    version: u32,
    binding: u32,
) -> a2a_result {
    ffi_panic_boundary! {
        let b = try_mut!(builder);
        let defaults = Preferences::default();
        let versions = match version {
            0 => defaults.versions,
            n => match a2a_protocol_version::core_from_u32(n) {
                Some(v) => vec![v],
                None => return a2a_result::A2A_INVALID_ARGUMENT,
            },
        };
        let bindings = match binding {
            0 => defaults.bindings,
            n => match a2a_binding::core_from_u32(n) {
                Some(b) => vec![b],
                None => return a2a_result::A2A_INVALID_ARGUMENT,
            },
        };
        b.config.card.preferences.versions = versions;
        b.config.card.preferences.bindings = bindings;
        a2a_result::A2A_OK
    }
}

/// Card resolution: the oldest protocol version accepted (A2A §3.6.3: never below it, no
/// silent downgrade), an `a2a_protocol_version`, or 0 for none (the default). A card that
/// offers only older interfaces is refused before anything is sent to the agent: the card
/// fetch finishes as `transport`/`CardResolution` whose message names what the card
/// offers (the core's `no_usable_interface`). It applies whatever
/// `a2a_client_config_builder_set_interface` insists on.
///
/// Errors: `A2A_NULL_PARAMETER`, `A2A_INVALID_ARGUMENT` (neither 0 nor a member),
/// `A2A_IN_USE`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_client_config_builder_set_min_protocol(
    builder: *mut a2a_client_config_builder,
    version: u32,
) -> a2a_result {
    ffi_panic_boundary! {
        let b = try_mut!(builder);
        b.config.card.preferences.min_version = match version {
            0 => None,
            n => match a2a_protocol_version::core_from_u32(n) {
                Some(v) => Some(v),
                None => return a2a_result::A2A_INVALID_ARGUMENT,
            },
        };
        a2a_result::A2A_OK
    }
}

/// Card resolution: HTTP caching of agent cards (A2A §8.6.2, RFC 9111 for a private
/// cache), used by every `a2a_call_new_card_fetch` made with the configs built from this
/// builder from now on: a card still fresh (`Cache-Control: max-age` less `Age`) resolves
/// with no request, a stale one is fetched with `If-None-Match` / `If-Modified-Since` and a
/// `304` reuses it, a `no-store` response is never kept. Which cache:
/// - `max_entries` 0: none (the default; `share` is ignored);
/// - `share` NULL: a new thread-safe cache of at most `max_entries` cards (at most 64; the
///   least recently stored is forgotten first), owned by the configs built from now on;
/// - `share` a config (read only, may be freed afterwards): the cache `share` uses, so
///   clients with different options (and their card fetches, on any thread) share one
///   cache; `max_entries` is then ignored.
///
/// Freshness is counted on the `now_ms` clock the host passes to `a2a_call_poll_transmit`
/// and the `a2a_call_handle_*` inputs: use one monotonic clock for every call made with
/// configs that share a cache.
///
/// Errors: `A2A_NULL_PARAMETER` (builder), `A2A_INVALID_ARGUMENT` (`share` has no cache),
/// `A2A_IN_USE`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_client_config_builder_set_card_cache(
    builder: *mut a2a_client_config_builder,
    max_entries: u32,
    share: *const a2a_machine_config,
) -> a2a_result {
    ffi_panic_boundary! {
        let b = try_mut!(builder);
        b.config.card_cache = if max_entries == 0 {
            None
        } else if share.is_null() {
            Some(Arc::new(Mutex::new(CardCache::with_capacity(max_entries as usize))))
        } else {
            let share = try_ref!(share);
            match &share.inner.card_cache {
                Some(cache) => Some(Arc::clone(cache)),
                None => return a2a_result::A2A_INVALID_ARGUMENT,
            }
        };
        a2a_result::A2A_OK
    }
}

/// Builds an immutable config from the builder's current options (the builder stays usable
/// and unchanged). `out`: receives a new config the caller owns and frees with
/// `a2a_machine_config_free`; written on success only.
///
/// Errors: `A2A_NULL_PARAMETER`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_client_config_builder_build(
    builder: *const a2a_client_config_builder,
    out: *mut *mut a2a_machine_config,
) -> a2a_result {
    ffi_panic_boundary! {
        let b = try_ref!(builder);
        let out = try_out!(out);
        out.set(handle::into_raw(a2a_machine_config { inner: b.config.clone() }));
        a2a_result::A2A_OK
    }
}

/// Frees a config. NULL is a no-op; must not be called twice. States and calls made from
/// it keep their own copy.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_machine_config_free(config: *mut a2a_machine_config) {
    ffi_panic_boundary! {
        // SAFETY: the header requires a pointer from this library, not yet freed.
        unsafe { handle::free(config) }
    }
}

/// Per-call options, read (copied) when a call starts (`a2a_call_new`, `a2a_call_new_text`);
/// one settings object may serve many calls. NULL settings mean none of them.
///
/// Methods: `a2a_call_settings_new`, `_free`, `_set_budget_ms`, `_set_deadline_ms`,
/// `_set_idempotency_key`, `_set_traceparent`, `_add_header`, `_set_message_id`,
/// `_set_rpc_id`, `_set_stream_idle_timeout_ms`, `_set_return_immediately`.
///
/// Threading: `Send`, not thread-safe (concurrent setters are refused with `A2A_IN_USE`).
#[derive(Debug, Clone, Default)]
pub struct a2a_call_settings {
    pub(crate) options: CallOptions,
    pub(crate) message_id: Option<String>,
    /// A stream's idle timeout for this call, replacing the state's.
    pub(crate) stream_idle_timeout: Option<Millis>,
    /// Whether a non-streaming send asks the agent to answer at once (A2A 1.0
    /// `returnImmediately`, 0.3 `blocking: false`).
    pub(crate) return_immediately: bool,
}

impl Handle for a2a_call_settings {}

/// New empty call settings, owned by the caller (free with `a2a_call_settings_free`).
/// Returns NULL only if the library panicked.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_call_settings_new() -> *mut a2a_call_settings {
    ffi_panic_boundary! {
        handle::into_raw(a2a_call_settings::default())
    }
}

/// Frees call settings. NULL is a no-op; must not be called twice.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_call_settings_free(settings: *mut a2a_call_settings) {
    ffi_panic_boundary! {
        // SAFETY: the header requires a pointer from this library, not yet freed.
        unsafe { handle::free(settings) }
    }
}

/// The caller's remaining budget for the call, in milliseconds: the call deadline is the
/// shorter of the call timeout and this, counted from the call's start. 0 clears it.
///
/// Errors: `A2A_NULL_PARAMETER`, `A2A_IN_USE`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_call_settings_set_budget_ms(
    settings: *mut a2a_call_settings,
    ms: u64,
) -> a2a_result {
    ffi_panic_boundary! {
        let s = try_mut!(settings);
        s.options.budget = (ms > 0).then_some(Millis(ms));
        a2a_result::A2A_OK
    }
}

/// An absolute deadline on the host's clock (the same scale as every `now_ms`), after
/// which the call ends whatever the timeouts say (retries and resubscribes included).
/// 0 clears it.
///
/// Errors: `A2A_NULL_PARAMETER`, `A2A_IN_USE`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_call_settings_set_deadline_ms(
    settings: *mut a2a_call_settings,
    deadline_ms: u64,
) -> a2a_result {
    ffi_panic_boundary! {
        let s = try_mut!(settings);
        s.options.deadline = (deadline_ms > 0).then_some(Millis(deadline_ms));
        a2a_result::A2A_OK
    }
}

/// The `Idempotency-Key` sent with every attempt (UTF-8, copied); it lets a `SendMessage`
/// whose request may have arrived be retried. `(NULL, 0)` clears it.
///
/// Errors: `A2A_NULL_PARAMETER`, `A2A_INVALID_UTF8`, `A2A_IN_USE`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_call_settings_set_idempotency_key(
    settings: *mut a2a_call_settings,
    key: *const c_char,
    key_len: usize,
) -> a2a_result {
    ffi_panic_boundary! {
        let s = try_mut!(settings);
        let key = try_str!(key, key_len);
        s.options.idempotency_key = (!key.is_empty()).then(|| key.to_owned());
        a2a_result::A2A_OK
    }
}

/// The W3C `traceparent` to send (copied; the same for every attempt); without one the
/// machine makes a fresh one from the client's seed. `(NULL, 0)` clears it.
///
/// Errors: `A2A_NULL_PARAMETER`, `A2A_INVALID_UTF8`, `A2A_INVALID_ARGUMENT` (not a valid
/// `traceparent`), `A2A_IN_USE`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_call_settings_set_traceparent(
    settings: *mut a2a_call_settings,
    traceparent: *const c_char,
    traceparent_len: usize,
) -> a2a_result {
    ffi_panic_boundary! {
        let s = try_mut!(settings);
        let tp = try_str!(traceparent, traceparent_len);
        if tp.is_empty() {
            s.options.traceparent = None;
            return a2a_result::A2A_OK;
        }
        if a2a::traceparent::TraceParent::parse(tp).is_err() {
            return a2a_result::A2A_INVALID_ARGUMENT;
        }
        s.options.traceparent = Some(tp.to_owned());
        a2a_result::A2A_OK
    }
}

/// Appends a header sent with every request of the call (name and value UTF-8, copied).
/// Reserved headers (`Content-Type`, `Host`, the A2A version header, ...) are refused when
/// the call builds its request: the call then ends as `transport`/`InvalidRequest` with
/// nothing sent, naming the header.
///
/// Errors: `A2A_NULL_PARAMETER`, `A2A_INVALID_UTF8`, `A2A_INVALID_ARGUMENT` (empty name),
/// `A2A_IN_USE`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_call_settings_add_header(
    settings: *mut a2a_call_settings,
    name: *const c_char,
    name_len: usize,
    value: *const c_char,
    value_len: usize,
) -> a2a_result {
    ffi_panic_boundary! {
        let s = try_mut!(settings);
        let name = try_str!(name, name_len);
        let value = try_str!(value, value_len);
        if name.is_empty() {
            return a2a_result::A2A_INVALID_ARGUMENT;
        }
        s.options.headers.push((name.to_owned(), value.to_owned()));
        a2a_result::A2A_OK
    }
}

/// The messageId `a2a_call_new_text` sends (copied; reuse it to send the same message
/// again); without one it draws a fresh one from the client's seed. `(NULL, 0)` clears it.
///
/// Errors: `A2A_NULL_PARAMETER`, `A2A_INVALID_UTF8`, `A2A_IN_USE`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_call_settings_set_message_id(
    settings: *mut a2a_call_settings,
    message_id: *const c_char,
    message_id_len: usize,
) -> a2a_result {
    ffi_panic_boundary! {
        let s = try_mut!(settings);
        let id = try_str!(message_id, message_id_len);
        s.message_id = (!id.is_empty()).then(|| id.to_owned());
        a2a_result::A2A_OK
    }
}

/// The JSON-RPC id of the call's first request (later attempts get fresh ones): `kind` an
/// `a2a_rpc_id_kind`: `A2A_RPC_ID_KIND_NUMBER` (`number`), `A2A_RPC_ID_KIND_STRING` (`text`,
/// UTF-8, copied) or `A2A_RPC_ID_KIND_NONE` (clears it: the machine draws one from the
/// client's seed, the default). For hosts that log or replay their own ids.
///
/// Errors: `A2A_NULL_PARAMETER`, `A2A_INVALID_UTF8`, `A2A_INVALID_ARGUMENT` (kind not a
/// member), `A2A_IN_USE`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_call_settings_set_rpc_id(
    settings: *mut a2a_call_settings,
    kind: u32,
    number: i64,
    text: *const c_char,
    text_len: usize,
) -> a2a_result {
    ffi_panic_boundary! {
        let s = try_mut!(settings);
        let text = try_str!(text, text_len);
        s.options.rpc_id = match kind {
            0 => None,
            1 => Some(RpcId::Number(number)),
            2 => Some(RpcId::String(text.to_owned())),
            _ => return a2a_result::A2A_INVALID_ARGUMENT,
        };
        a2a_result::A2A_OK
    }
}

/// How long this call's stream may stay silent (no event, no keep-alive comment) before it
/// is given up as idle, in milliseconds, replacing the state's
/// (`a2a_client_config_builder_set_stream_idle_timeout_ms`) for this call only; 0 clears
/// it. Non-streaming calls ignore it.
///
/// Errors: `A2A_NULL_PARAMETER`, `A2A_IN_USE`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_call_settings_set_stream_idle_timeout_ms(
    settings: *mut a2a_call_settings,
    ms: u64,
) -> a2a_result {
    ffi_panic_boundary! {
        let s = try_mut!(settings);
        s.stream_idle_timeout = (ms > 0).then_some(Millis(ms));
        a2a_result::A2A_OK
    }
}

/// Whether a non-streaming send (`SendMessage`, by `a2a_call_new` or `a2a_call_new_text`)
/// asks the agent to answer at once with the task as it stands instead of when it settles:
/// A2A 1.0 `configuration.returnImmediately: true`, 0.3 `configuration.blocking: false`
/// (replacing what the params said). Wait for the task with `a2a_task_wait_new`. Other
/// methods ignore it. false (the default) leaves the params as they are.
///
/// Errors: `A2A_NULL_PARAMETER`, `A2A_IN_USE`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_call_settings_set_return_immediately(
    settings: *mut a2a_call_settings,
    return_immediately: bool,
) -> a2a_result {
    ffi_panic_boundary! {
        let s = try_mut!(settings);
        s.return_immediately = return_immediately;
        a2a_result::A2A_OK
    }
}

/// `call` with `blocking: false` in its send configuration when `return_immediately` and it
/// is a `SendMessage` (what the driver's `CallOptions::return_immediately` sends).
pub(crate) fn with_return_immediately(
    call: a2a::model::params::Call<'static>,
    return_immediately: bool,
) -> a2a::model::params::Call<'static> {
    use a2a::model::params::{Call, SendConfiguration};
    match call {
        Call::SendMessage(mut p) if return_immediately => {
            let c = p
                .configuration
                .get_or_insert_with(SendConfiguration::default);
            c.blocking = Some(false);
            Call::SendMessage(p)
        }
        c => c,
    }
}
