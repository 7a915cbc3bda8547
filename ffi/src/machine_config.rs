//! Configuration of the client machine through opaque builders (rustls-ffi's pattern), so
//! options can be added without changing a struct layout that already-compiled callers
//! depend on. Integer and flag options go through one typed setter per handle, keyed by a
//! C enum with stable numbers (`a2a_client_config_builder_set` with `a2a_client_option`,
//! `a2a_call_settings_set` with `a2a_call_option`, `a2a_call_settings_set_text` with
//! `a2a_call_text_option`): a new option is a new number, not a new export, and a library
//! older than the caller's header refuses a number it does not know. Options with
//! structured arguments keep their own setter (`_set_breaker`, `_set_card_cache`,
//! `a2a_call_settings_add_header`).
//!
//! - `a2a_client_config_builder` → `a2a_client_config_builder_build` → `a2a_machine_config`
//!   (immutable, shared by every `a2a_client_state` and card fetch made from it): timeouts,
//!   retries, body and event limits, breaker, stream idle timeout and resubscribes, card
//!   resolution policy.
//! - `a2a_call_settings`: per-call options (budget, deadline, idempotency key,
//!   `traceparent`, extra headers, messageId), read when a call starts.
//!
//! Text options (`a2a_client_config_builder_set_text` with `a2a_client_text_option`): the
//! hosts a card's interface may point to, and what only the reference driver's transport
//! reads (TLS roots, client certificate, proxy, DNS overrides): the same
//! `a2a_machine_config` makes that transport (`a2a_transport_new`, `driver.rs`).

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
    /// Hosts or origins an agent card's interface may point to besides the card's own
    /// (`A2A_CLIENT_TEXT_OPTION_ALLOW_HOST`); turned into the card policy's allowed origins
    /// when the config is built.
    pub(crate) allow_hosts: Vec<String>,
    /// What only the reference driver's transport reads (`a2a_transport_new`).
    pub(crate) transport: TransportSettings,
}

/// What only the reference driver's transport reads from a machine configuration (the text
/// options but `ALLOW_HOST`, the proxy switch and the pool's idle time): TLS roots, client
/// certificate, proxy, DNS overrides. The machine ignores them (a host with its own HTTP
/// stack configures that stack instead); `driver.rs` turns them into the transport's.
#[derive(Debug, Clone, Default)]
#[cfg_attr(not(feature = "driver"), allow(dead_code))]
pub(crate) struct TransportSettings {
    pub(crate) ca_file: Option<String>,
    pub(crate) client_cert_file: Option<String>,
    pub(crate) client_key_file: Option<String>,
    pub(crate) proxy: Option<String>,
    pub(crate) proxy_disabled: bool,
    pub(crate) no_proxy: Option<String>,
    pub(crate) resolve: Vec<String>,
    /// `None`: the transport's default.
    pub(crate) pool_idle_timeout_ms: Option<u64>,
}

/// A card cache several configs and threads share.
pub(crate) type SharedCardCache = Arc<Mutex<SharedCards>>;

/// The cards of a shared cache and, beside each, whether its host resolved to internal
/// addresses only when the reference driver's transport fetched it (a fresh card served
/// from the cache on another transport carries that finding to its rebinding check; see
/// `a2a::driver`). A card fetched by another HTTP stack counts as not internal.
#[derive(Debug)]
pub(crate) struct SharedCards {
    pub(crate) cards: CardCache,
    host_internal: std::collections::HashSet<String>,
}

impl SharedCards {
    fn with_capacity(capacity: usize) -> SharedCards {
        SharedCards {
            cards: CardCache::with_capacity(capacity),
            host_internal: std::collections::HashSet::new(),
        }
    }

    /// Keeps `entry`, with whether its host resolved to internal addresses only.
    pub(crate) fn put(&mut self, entry: a2a::client::CachedCard, host_internal: bool) {
        let url = entry.url.clone();
        self.cards.put(entry);
        let cards = &self.cards;
        self.host_internal
            .retain(|u| *u != url && cards.get(u).is_some());
        if host_internal {
            self.host_internal.insert(url);
        }
    }

    /// Drops the card at `url`.
    pub(crate) fn remove(&mut self, url: &str) {
        self.cards.remove(url);
        self.host_internal.remove(url);
    }

    /// Whether the host of the card at `url` resolved to internal addresses only when the
    /// driver's transport fetched it.
    #[cfg_attr(not(feature = "driver"), allow(dead_code))]
    pub(crate) fn host_internal(&self, url: &str) -> bool {
        self.host_internal.contains(url)
    }
}

/// A mutable set of client options; `a2a_client_config_builder_build` turns it into an
/// immutable `a2a_machine_config`. Starts at the reference driver's defaults: 45 s per
/// call, 3 s to connect, no total limit, no send retries, 16 MiB bodies, no breaker, no
/// client certificate; streams idle out after 60 s, never resubscribe, accept 16 MiB events;
/// card fetches take at most 30 s, accept https only and prefer the client's order.
///
/// Methods: `a2a_client_config_builder_new`, `_free`, `_set` (every integer and flag option,
/// by `a2a_client_option`), `_set_text` (by `a2a_client_text_option`), `_set_breaker`,
/// `_set_card_cache`, `_build`.
///
/// Threading: `Send`, not thread-safe (concurrent setters are refused with `A2A_IN_USE`).
pub struct a2a_client_config_builder {
    pub(crate) config: MachineConfig,
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

/// The integer and flag options of `a2a_client_config_builder_set`, one per setting. The
/// numbers are stable: never renumbered or reused; new options get new numbers, and a
/// library older than the caller's header refuses a number it does not know with
/// `A2A_INVALID_ARGUMENT`, changing nothing. Flags take 0 (false) or 1 (true), any other
/// value is refused; counts take at most `UINT32_MAX`.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum a2a_client_option {
    /// The whole-call timeout of a non-streaming call, and the time a stream's response
    /// head may take. Milliseconds, 1 to `UINT64_MAX` (0 refused); default 45000.
    CallTimeoutMs = 1,
    /// How long connecting may take, for calls and card fetches (the host enforces it with
    /// the `connect_by_ms` of each transmit). Milliseconds, 1 to `UINT64_MAX` (0 refused);
    /// default 3000.
    ConnectTimeoutMs = 2,
    /// A total deadline for each call, counted from its start (retries and resubscribes
    /// included). Milliseconds, any value; 0 (the default) means none.
    MaxTimeMs = 3,
    /// How many times a `SendMessage` may be sent again after a failure the retry policy
    /// allows. A count, 0 to `UINT32_MAX`; default 0 (never). Without an idempotency key
    /// (`A2A_CALL_TEXT_OPTION_IDEMPOTENCY_KEY`) a request that may have arrived is never
    /// resent.
    SendRetries = 4,
    /// The largest response body (and agent card) accepted. Past it the attempt fails as
    /// `transport`/`ResponseTooLarge` and the host is told to drop the request. Bytes, 1 to
    /// `UINT64_MAX` (0 refused); default 16 MiB.
    MaxResponseBytes = 5,
    /// Whether the host presents a client certificate (satisfies a card's `mutualTLS`
    /// requirement). A flag; default 0.
    ClientCertificate = 6,
    /// Whether calls the agent card's capabilities do not declare are sent anyway (for an
    /// agent whose card under-declares). A flag; default 0: a client state made from a card
    /// (`a2a_client_state_from_card`) ends such a call before any request as
    /// `transport`/`CapabilityNotDeclared` (`request_sent = no`): `SendStreamingMessage` and
    /// `SubscribeToTask` need `capabilities.streaming`, the push-notification-config
    /// methods `capabilities.pushNotifications`, `GetExtendedAgentCard` the extended card. A
    /// state made from a URL (`a2a_client_state_new`) checks nothing.
    IgnoreCapabilities = 7,
    /// A stream's longest silence (no bytes, events or keep-alive comments) before it is
    /// given up as idle. Milliseconds, 1 to `UINT64_MAX` (0 refused); default 60000.
    StreamIdleTimeoutMs = 8,
    /// How many times a stream cut or gone idle (with its task id known) is resubscribed
    /// to, never resent. A count, 0 to `UINT32_MAX`; default 0.
    StreamResubscribes = 9,
    /// The largest SSE event accepted. A larger one is dropped and reported as a
    /// `malformed` item. Bytes, 1 to `SIZE_MAX` (0 and larger values refused); default
    /// 16 MiB.
    MaxEventBytes = 10,
    /// Whether card resolution accepts a plain `http://` card and interface (local
    /// development and test servers only). A flag; default 0.
    AllowHttp = 11,
    /// How long each card fetch may take. Milliseconds, 1 to `UINT64_MAX` (0 refused);
    /// default 30000.
    CardTimeoutMs = 12,
    /// Whose order picks the interface when the card offers several. A flag: the client's
    /// preferences (0, the default: 1.0 before 0.3, JSON-RPC before HTTP+JSON) or the
    /// card's own order (1, the spec's rule).
    PreferCardOrder = 13,
    /// The protocol version card resolution insists on, as the reference driver's
    /// `protocol`. An `a2a_protocol_version`, or 0 for any (1.0 before 0.3, the default). A
    /// card that offers no interface matching it and `A2A_CLIENT_OPTION_INTERFACE_BINDING`
    /// is refused (the fetch's outcome lists what it offered). Other values are refused.
    InterfaceVersion = 14,
    /// The binding card resolution insists on, as the reference driver's `binding`. An
    /// `a2a_binding`, or 0 for any (JSON-RPC before HTTP+JSON, the default). Other values
    /// are refused.
    InterfaceBinding = 15,
    /// The oldest protocol version card resolution accepts (A2A §3.6.3, never below it, no
    /// silent downgrade). An `a2a_protocol_version`, or 0 for none (the default); other
    /// values are refused. A card that offers only older interfaces is refused before
    /// anything is sent to the agent: the card fetch finishes as `transport`/`CardResolution`
    /// whose message names what the card offers (the core's `no_usable_interface`). It
    /// applies whatever `A2A_CLIENT_OPTION_INTERFACE_VERSION` insists on.
    MinProtocol = 16,
    /// Never use a proxy, whatever `A2A_CLIENT_TEXT_OPTION_PROXY` and the environment say.
    /// A flag; default 0. Read by the reference driver's transport only (`a2a_transport_new`);
    /// a library built without the driver accepts and ignores it.
    ProxyDisabled = 17,
    /// How long a pooled connection of the reference driver's transport may stay idle before
    /// it is retired. Milliseconds, 1 to `UINT64_MAX` (0 refused); default 3000. Read by the
    /// transport only; a library built without the driver accepts and ignores it.
    PoolIdleTimeoutMs = 18,
}

impl a2a_client_option {
    /// The option a C number names, if any.
    fn from_u32(n: u32) -> Option<Self> {
        use a2a_client_option as O;
        const ALL: [a2a_client_option; 18] = [
            O::CallTimeoutMs,
            O::ConnectTimeoutMs,
            O::MaxTimeMs,
            O::SendRetries,
            O::MaxResponseBytes,
            O::ClientCertificate,
            O::IgnoreCapabilities,
            O::StreamIdleTimeoutMs,
            O::StreamResubscribes,
            O::MaxEventBytes,
            O::AllowHttp,
            O::CardTimeoutMs,
            O::PreferCardOrder,
            O::InterfaceVersion,
            O::InterfaceBinding,
            O::MinProtocol,
            O::ProxyDisabled,
            O::PoolIdleTimeoutMs,
        ];
        ALL.into_iter().find(|o| *o as u32 == n)
    }
}

/// A flag value: 0 or 1, anything else refused.
fn flag(value: u64) -> Result<bool, a2a_result> {
    match value {
        0 => Ok(false),
        1 => Ok(true),
        _ => Err(a2a_result::A2A_INVALID_ARGUMENT),
    }
}

/// A duration or size that must not be 0.
fn nonzero(value: u64) -> Result<u64, a2a_result> {
    if value == 0 {
        Err(a2a_result::A2A_INVALID_ARGUMENT)
    } else {
        Ok(value)
    }
}

/// A count that must fit a `uint32_t`.
fn count(value: u64) -> Result<u32, a2a_result> {
    u32::try_from(value).map_err(|_| a2a_result::A2A_INVALID_ARGUMENT)
}

/// 0 (none) or an `a2a_protocol_version` member.
fn version_or_none(value: u64) -> Result<Option<a2a::version::ProtocolVersion>, a2a_result> {
    match value {
        0 => Ok(None),
        n => u32::try_from(n)
            .ok()
            .and_then(a2a_protocol_version::core_from_u32)
            .map(Some)
            .ok_or(a2a_result::A2A_INVALID_ARGUMENT),
    }
}

/// 0 (any) or an `a2a_binding` member.
fn binding_or_any(value: u64) -> Result<Option<a2a::version::Binding>, a2a_result> {
    match value {
        0 => Ok(None),
        n => u32::try_from(n)
            .ok()
            .and_then(a2a_binding::core_from_u32)
            .map(Some)
            .ok_or(a2a_result::A2A_INVALID_ARGUMENT),
    }
}

/// Applies one option to `config`, or says why not (nothing changed then).
fn apply_client_option(
    config: &mut MachineConfig,
    option: a2a_client_option,
    value: u64,
) -> Result<(), a2a_result> {
    use a2a_client_option as O;
    let (client, stream, card) = (&mut config.client, &mut config.stream, &mut config.card);
    match option {
        O::CallTimeoutMs => client.call_timeout = Millis(nonzero(value)?),
        O::ConnectTimeoutMs => {
            let ms = Millis(nonzero(value)?);
            client.connect_timeout = ms;
            card.connect_timeout = ms;
        }
        O::MaxTimeMs => client.max_time = (value > 0).then_some(Millis(value)),
        O::SendRetries => client.send_retries = count(value)?,
        O::MaxResponseBytes => {
            let bytes = nonzero(value)?;
            client.max_response_bytes = bytes;
            card.max_bytes = bytes;
        }
        O::ClientCertificate => client.client_certificate = flag(value)?,
        O::IgnoreCapabilities => client.ignore_capabilities = flag(value)?,
        O::StreamIdleTimeoutMs => stream.idle_timeout = Millis(nonzero(value)?),
        O::StreamResubscribes => stream.resubscribe_attempts = count(value)?,
        O::MaxEventBytes => {
            stream.max_event_bytes =
                usize::try_from(nonzero(value)?).map_err(|_| a2a_result::A2A_INVALID_ARGUMENT)?;
        }
        O::AllowHttp => card.policy.allow_http = flag(value)?,
        O::CardTimeoutMs => card.timeout = Millis(nonzero(value)?),
        O::PreferCardOrder => {
            card.preferences.order = if flag(value)? {
                SelectionOrder::CardFirst
            } else {
                SelectionOrder::ClientFirst
            };
        }
        O::InterfaceVersion => {
            card.preferences.versions = match version_or_none(value)? {
                Some(v) => vec![v],
                None => Preferences::default().versions,
            };
        }
        O::InterfaceBinding => {
            card.preferences.bindings = match binding_or_any(value)? {
                Some(b) => vec![b],
                None => Preferences::default().bindings,
            };
        }
        O::MinProtocol => card.preferences.min_version = version_or_none(value)?,
        O::ProxyDisabled => config.transport.proxy_disabled = flag(value)?,
        O::PoolIdleTimeoutMs => config.transport.pool_idle_timeout_ms = Some(nonzero(value)?),
    }
    Ok(())
}

/// A text option of `a2a_client_config_builder_set_text`. Numbers are stable, never
/// renumbered or reused; a library older than the caller's header refuses a number it does
/// not know with `A2A_INVALID_ARGUMENT`, changing nothing. Empty text clears an option (for
/// `RESOLVE` and `ALLOW_HOST`: every entry added so far). All but `ALLOW_HOST` are read by
/// the reference driver's transport only (`a2a_transport_new`); a library built without
/// the driver accepts and ignores them (a host with its own HTTP stack configures that
/// stack instead).
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum a2a_client_text_option {
    /// A PEM file of CA certificates replacing the system trust store (curl's `--cacert`);
    /// unset: the system store, honouring `SSL_CERT_FILE` and `SSL_CERT_DIR`. A file that
    /// cannot be read fails every call on the transport before anything is sent.
    CaFile = 1,
    /// A PEM client certificate chain for mutual TLS; needs `CLIENT_KEY_FILE`. Setting it
    /// also sets `A2A_CLIENT_OPTION_CLIENT_CERTIFICATE` (the certificate satisfies a card's
    /// `mutualTLS` scheme); clearing it clears that flag.
    ClientCertFile = 2,
    /// The PEM private key (PKCS#8, PKCS#1 or SEC1) of `CLIENT_CERT_FILE`.
    ClientKeyFile = 3,
    /// The proxy for every URL (curl's `--proxy`, `http://[user:password@]host:port`);
    /// unset: from the environment (`https_proxy`, `HTTPS_PROXY`, `http_proxy`,
    /// `all_proxy`, `ALL_PROXY`, with curl's rules). `A2A_CLIENT_OPTION_PROXY_DISABLED`
    /// wins over it.
    Proxy = 4,
    /// Hosts reached without the proxy (curl's `--noproxy` list); unset: from `no_proxy` /
    /// `NO_PROXY`.
    NoProxy = 5,
    /// Adds one fixed resolution `HOST:PORT:ADDR[,ADDR...]` (curl's `--resolve`; `*` as
    /// PORT for any port): its answers replace DNS for that host and port. Each call adds
    /// an entry.
    Resolve = 6,
    /// Adds one host (`agent.internal`, allowed on https, and on http when
    /// `A2A_CLIENT_OPTION_ALLOW_HTTP` is set) or origin (`https://agent.internal:8443`) an
    /// agent card's interface may point to besides the card's own origin (the machine's
    /// card rules refuse any other). The reference driver's transport also accepts this
    /// host's internal addresses. Each call adds one.
    AllowHost = 7,
}

impl a2a_client_text_option {
    /// The option a C number names, if any.
    fn from_u32(n: u32) -> Option<Self> {
        use a2a_client_text_option as O;
        const ALL: [a2a_client_text_option; 7] = [
            O::CaFile,
            O::ClientCertFile,
            O::ClientKeyFile,
            O::Proxy,
            O::NoProxy,
            O::Resolve,
            O::AllowHost,
        ];
        ALL.into_iter().find(|o| *o as u32 == n)
    }
}

/// Applies one text option to `config` (empty `text` clears it).
fn apply_text_option(config: &mut MachineConfig, option: a2a_client_text_option, text: &str) {
    use a2a_client_text_option as O;
    let value = (!text.is_empty()).then(|| text.to_owned());
    let t = &mut config.transport;
    match option {
        O::CaFile => t.ca_file = value,
        O::ClientCertFile => {
            // A presented certificate satisfies a card's `mutualTLS` scheme.
            config.client.client_certificate = value.is_some();
            t.client_cert_file = value;
        }
        O::ClientKeyFile => t.client_key_file = value,
        O::Proxy => t.proxy = value,
        O::NoProxy => t.no_proxy = value,
        O::Resolve => match value {
            Some(entry) => t.resolve.push(entry),
            None => t.resolve.clear(),
        },
        O::AllowHost => match value {
            Some(host) => config.allow_hosts.push(host),
            None => config.allow_hosts.clear(),
        },
    }
}

/// The card policy's allowed origins for `allow_hosts`: an origin as given, a bare host on
/// https, and on http too when plain http is allowed.
fn allowed_origins(allow_hosts: &[String], allow_http: bool) -> Vec<String> {
    let mut origins = Vec::new();
    for h in allow_hosts {
        if h.contains("://") {
            origins.push(h.clone());
        } else {
            origins.push(format!("https://{h}"));
            if allow_http {
                origins.push(format!("http://{h}"));
            }
        }
    }
    origins
}

/// Sets one text option of the builder (`option` an `a2a_client_text_option`; its
/// documentation gives each one's meaning). `text`: UTF-8, copied; `(NULL, 0)` or empty
/// clears the option. `builder` is used during the call only. On an error nothing changes.
///
/// Errors: `A2A_NULL_PARAMETER` (builder, or `text` NULL with a length),
/// `A2A_INVALID_UTF8`, `A2A_INVALID_ARGUMENT` (an `option` this library does not know, e.g.
/// from a newer header), `A2A_IN_USE`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_client_config_builder_set_text(
    builder: *mut a2a_client_config_builder,
    option: u32,
    text: *const c_char,
    text_len: usize,
) -> a2a_result {
    ffi_panic_boundary! {
        let b = try_mut!(builder);
        let Some(option) = a2a_client_text_option::from_u32(option) else {
            return a2a_result::A2A_INVALID_ARGUMENT;
        };
        let text = try_str!(text, text_len);
        apply_text_option(&mut b.config, option, text);
        a2a_result::A2A_OK
    }
}

/// Sets one integer or flag option of the builder (`option` an `a2a_client_option`; its
/// documentation gives each one's meaning, unit, valid range and default). `builder` is
/// used during the call only (nothing keeps it). On an error nothing changes.
///
/// Errors: `A2A_NULL_PARAMETER` (builder), `A2A_INVALID_ARGUMENT` (an `option` this library
/// does not know, e.g. from a newer header; or a `value` out of the option's range: a 0 the
/// option refuses, a flag other than 0 or 1, a count above `UINT32_MAX`, a number that is
/// not a member of the option's enum), `A2A_IN_USE`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_client_config_builder_set(
    builder: *mut a2a_client_config_builder,
    option: u32,
    value: u64,
) -> a2a_result {
    ffi_panic_boundary! {
        let b = try_mut!(builder);
        let Some(option) = a2a_client_option::from_u32(option) else {
            return a2a_result::A2A_INVALID_ARGUMENT;
        };
        match apply_client_option(&mut b.config, option, value) {
            Ok(()) => a2a_result::A2A_OK,
            Err(code) => code,
        }
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
            Some(Arc::new(Mutex::new(SharedCards::with_capacity(
                max_entries as usize,
            ))))
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
        let mut config = b.config.clone();
        config.card.policy.allowed_origins =
            allowed_origins(&config.allow_hosts, config.card.policy.allow_http);
        out.set(handle::into_raw(a2a_machine_config { inner: config }));
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
/// Methods: `a2a_call_settings_new`, `_free`, `_set` (integer and flag options, by
/// `a2a_call_option`), `_set_text` (text options, by `a2a_call_text_option`),
/// `_add_header`.
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

/// The integer and flag options of `a2a_call_settings_set`. Stable numbers, never reused; a
/// number this library does not know is refused with `A2A_INVALID_ARGUMENT`, changing
/// nothing.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum a2a_call_option {
    /// The caller's remaining budget for the call. The call deadline is the shorter of the
    /// call timeout and this, counted from the call's start. Milliseconds, any value; 0
    /// (the default) clears it.
    BudgetMs = 1,
    /// An absolute deadline on the host's clock (the same scale as every `now_ms`), after
    /// which the call ends whatever the timeouts say (retries and resubscribes included).
    /// Milliseconds, any value; 0 (the default) clears it.
    DeadlineMs = 2,
    /// How long this call's stream may stay silent (no event, no keep-alive comment) before
    /// it is given up as idle, replacing the state's (`A2A_CLIENT_OPTION_STREAM_IDLE_TIMEOUT_MS`)
    /// for this call only. Milliseconds, any value; 0 (the default) clears it.
    /// Non-streaming calls ignore it.
    StreamIdleTimeoutMs = 3,
    /// Whether a non-streaming send (`SendMessage`, by `a2a_call_new` or
    /// `a2a_call_new_text`) asks the agent to answer at once with the task as it stands
    /// instead of when it settles. A flag (0 or 1, other values refused): A2A 1.0
    /// `configuration.returnImmediately: true`, 0.3 `configuration.blocking: false`
    /// (replacing what the params said). Wait for the task with `a2a_task_wait_new`. Other
    /// methods ignore it. 0 (the default) leaves the params as they are.
    ReturnImmediately = 4,
    /// A numeric JSON-RPC id for the call's first request (later attempts get fresh ones).
    /// The value is the `int64_t` id's two's-complement bits (C: `(uint64_t)id`), any value. It replaces
    /// a string id set with `A2A_CALL_TEXT_OPTION_RPC_ID`; clear either with that option
    /// and `(NULL, 0)`. Default: none (the machine draws one from the client's seed).
    RpcIdNumber = 5,
}

impl a2a_call_option {
    /// The option a C number names, if any.
    fn from_u32(n: u32) -> Option<Self> {
        use a2a_call_option as O;
        [
            O::BudgetMs,
            O::DeadlineMs,
            O::StreamIdleTimeoutMs,
            O::ReturnImmediately,
            O::RpcIdNumber,
        ]
        .into_iter()
        .find(|o| *o as u32 == n)
    }
}

/// The text options of `a2a_call_settings_set_text`. Stable numbers, never reused; a
/// number this library does not know is refused with `A2A_INVALID_ARGUMENT`, changing
/// nothing. Every text is UTF-8 and copied; `(NULL, 0)` (or any empty text) clears the
/// option, back to its default.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum a2a_call_text_option {
    /// The `Idempotency-Key` sent with every attempt. It lets a `SendMessage` whose request
    /// may have arrived be retried. Default: none.
    IdempotencyKey = 1,
    /// The W3C `traceparent` to send (the same for every attempt). A text that is not a
    /// valid `traceparent` is refused with `A2A_INVALID_ARGUMENT`. Default: a fresh one
    /// from the client's seed.
    Traceparent = 2,
    /// The messageId `a2a_call_new_text` sends (reuse it to send the same message again).
    /// Default: a fresh one drawn from the client's seed.
    MessageId = 3,
    /// A string JSON-RPC id for the call's first request (later attempts get fresh ones),
    /// for hosts that log or replay their own ids. It replaces a numeric id set with
    /// `A2A_CALL_OPTION_RPC_ID_NUMBER`, and empty clears either. Default: none (the machine
    /// draws one from the client's seed).
    RpcId = 4,
}

impl a2a_call_text_option {
    /// The option a C number names, if any.
    fn from_u32(n: u32) -> Option<Self> {
        use a2a_call_text_option as O;
        [O::IdempotencyKey, O::Traceparent, O::MessageId, O::RpcId]
            .into_iter()
            .find(|o| *o as u32 == n)
    }
}

/// Sets one integer or flag option of the call settings (`option` an `a2a_call_option`;
/// its documentation gives each one's meaning, unit, valid range and default). `settings`
/// is used during the call only. On an error nothing changes.
///
/// Errors: `A2A_NULL_PARAMETER`, `A2A_INVALID_ARGUMENT` (an `option` this library does not
/// know, or a flag other than 0 or 1), `A2A_IN_USE`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_call_settings_set(
    settings: *mut a2a_call_settings,
    option: u32,
    value: u64,
) -> a2a_result {
    ffi_panic_boundary! {
        use a2a_call_option as O;
        let s = try_mut!(settings);
        let Some(option) = a2a_call_option::from_u32(option) else {
            return a2a_result::A2A_INVALID_ARGUMENT;
        };
        let ms = (value > 0).then_some(Millis(value));
        match option {
            O::BudgetMs => s.options.budget = ms,
            O::DeadlineMs => s.options.deadline = ms,
            O::StreamIdleTimeoutMs => s.stream_idle_timeout = ms,
            O::ReturnImmediately => match flag(value) {
                Ok(on) => s.return_immediately = on,
                Err(code) => return code,
            },
            // The C side passes the int64_t's bits: reinterpret them, never range-check.
            O::RpcIdNumber => s.options.rpc_id = Some(RpcId::Number(value as i64)),
        }
        a2a_result::A2A_OK
    }
}

/// Sets one text option of the call settings (`option` an `a2a_call_text_option`; its
/// documentation gives each one's meaning and default). `text` (UTF-8, `text_len` bytes) is
/// read during the call only and copied (the caller keeps ownership and may free it on
/// return); `(NULL, 0)` clears the option. `settings` is used during the call only. On an
/// error nothing changes.
///
/// Errors: `A2A_NULL_PARAMETER` (settings, or `(NULL, n > 0)`), `A2A_INVALID_UTF8`,
/// `A2A_INVALID_ARGUMENT` (an `option` this library does not know, or a `traceparent` that
/// is not valid), `A2A_IN_USE`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_call_settings_set_text(
    settings: *mut a2a_call_settings,
    option: u32,
    text: *const c_char,
    text_len: usize,
) -> a2a_result {
    ffi_panic_boundary! {
        use a2a_call_text_option as O;
        let s = try_mut!(settings);
        let text = try_str!(text, text_len);
        let Some(option) = a2a_call_text_option::from_u32(option) else {
            return a2a_result::A2A_INVALID_ARGUMENT;
        };
        let value = (!text.is_empty()).then(|| text.to_owned());
        match option {
            O::IdempotencyKey => s.options.idempotency_key = value,
            O::Traceparent => {
                if value.is_some() && a2a::traceparent::TraceParent::parse(text).is_err() {
                    return a2a_result::A2A_INVALID_ARGUMENT;
                }
                s.options.traceparent = value;
            }
            O::MessageId => s.message_id = value,
            O::RpcId => s.options.rpc_id = value.map(RpcId::String),
        }
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
