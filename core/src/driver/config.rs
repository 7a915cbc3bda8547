//! Client configuration with the defaults a production caller would pick.

use std::path::PathBuf;
use std::time::Duration;

use crate::card::SelectionOrder;
use crate::version::{Binding, ProtocolVersion};

/// How a [`super::Client`] connects, times out and recovers.
///
/// Every default is chosen for an agent calling another agent inside a user's turn; see
/// each field. Build with [`ClientConfig::default`] and change what you need.
#[derive(Clone)]
pub struct ClientConfig {
    /// TCP (and TLS) connect timeout. Default 3 s: a healthy peer on any network answers a
    /// SYN in well under a second; a dead one should cost little.
    pub connect_timeout: Duration,
    /// Whole-call timeout for non-streaming calls (connect, send, wait, read the body).
    /// Default 45 s, inside a typical 60 s turn budget. A call may pass its remaining turn
    /// budget instead ([`super::CallOptions::timeout`]); the shorter one wins.
    pub call_timeout: Duration,
    /// Stream idle timeout: no byte and no keep-alive comment for this long ends the stream
    /// with a `transport`/`Timeout` outcome. Default 60 s (the rule: twice the server's
    /// longest quiet period; the Python SDK pings every 15 s). Streams have no total timeout
    /// unless [`ClientConfig::max_time`] sets one.
    pub stream_idle_timeout: Duration,
    /// Largest response body read for a non-streaming call (after decompression).
    /// Default 32 MiB: a task with file parts travels base64-encoded in one body.
    pub max_response_bytes: u64,
    /// Largest SSE event (its data) and line a stream accepts. Default 16 MiB (the core's
    /// decoder default: one base64 file part in one event). A bigger event is dropped, the
    /// stream goes on, and the caller sees a `malformed` item saying so and
    /// [`super::StreamFinal::dropped_events`]; memory stays bounded by about twice this.
    pub max_event_bytes: usize,
    /// How long an idle pooled connection may be reused. Default 3 s: both reference servers
    /// close idle connections after about 5 s, and a request written onto a connection the
    /// server is closing may or may not have been processed. A host name's DNS answer is
    /// reused for as long (a call on a pooled connection needs none; zero looks every call
    /// up), and forgotten when a connect to it fails.
    pub pool_idle_timeout: Duration,
    /// Allow plain `http://` URLs (cards and interfaces). Default false.
    pub allow_http: bool,
    /// Hosts (besides the card's own) an interface URL may name. Default empty.
    pub allow_hosts: Vec<String>,
    /// Protocol version to use; `None` lets [`ClientConfig::prefer`] pick among the card's.
    pub protocol: Option<ProtocolVersion>,
    /// The oldest protocol version accepted: a card that offers only older ones is
    /// refused (a card resolution error naming what it offers), never silently used in an
    /// older version. `None` accepts every version this core speaks.
    pub min_protocol: Option<ProtocolVersion>,
    /// Binding to use; `None` lets [`ClientConfig::prefer`] pick among the card's.
    pub binding: Option<Binding>,
    /// Resolve the card on the first call instead of in [`super::Client::new`], so an
    /// optional specialist can degrade instead of stopping the caller's start-up.
    pub defer_card_resolution: bool,
    /// After a stream drop or idle timeout with a known task id: how many times to
    /// resubscribe (never resending the message). Default 0 (off).
    pub stream_resubscribe_attempts: u32,
    /// Opt-in resends of `send`, always with the same messageId (and idempotency key) and a
    /// new JSON-RPC id. After `backoff` (the request provably did not reach the agent: connect
    /// failure, 429, 503 with `Retry-After`) always; after `unknown_outcome` (502, 504, other
    /// 5xx, a timeout after writing, a dropped connection) only with
    /// [`super::CallOptions::idempotency_key`], so a resend can never book twice. Default 0
    /// (off).
    pub send_retries: u32,
    /// The name the tally and correlation records use for the remote agent. Default: the
    /// card's `name`, or the URL's host when there is no card.
    pub agent_name: Option<String>,
    /// An opt-in circuit breaker for this agent (the core's
    /// [`crate::resilience::CircuitBreaker`]): while open, calls fail at once with a
    /// `transport`/`CircuitOpen` outcome (`request_sent = no`) instead of costing a timeout.
    /// Default `None` (off).
    pub breaker: Option<crate::resilience::BreakerConfig>,
    /// The `User-Agent` header.
    pub user_agent: String,
    /// Whose order picks the interface when the card offers several the client can speak.
    /// Default [`SelectionOrder::CardFirst`]: the card's order, so its `preferredTransport`
    /// (0.3) or first `supportedInterfaces` entry (1.0) wins, as the spec and the seeds say
    /// clients should. [`SelectionOrder::ClientFirst`] restores the client's order (1.0 then
    /// 0.3, JSON-RPC then HTTP+JSON). [`ClientConfig::protocol`] and [`ClientConfig::binding`]
    /// win over both (they filter).
    pub prefer: SelectionOrder,
    /// Trust anchors for TLS. `None` (default): the system trust store, honouring
    /// `SSL_CERT_FILE` and `SSL_CERT_DIR` as OpenSSL, Python and Go do. `Some(file)`: only
    /// the CA certificates in this PEM file, replacing the system store (curl's `--cacert`).
    pub ca_file: Option<PathBuf>,
    /// A client certificate chain (PEM) presented when a server asks for one (mutual TLS;
    /// it also satisfies a card's `mutualTLS` scheme). Needs [`ClientConfig::client_key_file`].
    pub client_cert_file: Option<PathBuf>,
    /// The private key (PEM: PKCS#8, PKCS#1 or SEC1) of [`ClientConfig::client_cert_file`].
    pub client_key_file: Option<PathBuf>,
    /// The proxy for every URL, as curl's `--proxy` (`http://[user:password@]host:port`, or
    /// `https://` for TLS to the proxy). `None` (default): from the environment, as curl
    /// reads it (`https_proxy`/`HTTPS_PROXY` for https URLs, `http_proxy` for http URLs,
    /// lowercase only, then `all_proxy`/`ALL_PROXY`). `Some("")`: no proxy at all.
    pub proxy: Option<String>,
    /// Hosts reached without the proxy, as curl's `--noproxy` (comma-separated names,
    /// domain suffixes, IP addresses or CIDR ranges; `*` for all). `None` (default): from
    /// `no_proxy`/`NO_PROXY`.
    pub no_proxy: Option<String>,
    /// Fixed name resolutions, as curl's `--resolve HOST:PORT:ADDR[,ADDR...]` (`*` as PORT
    /// for any port): these answers replace DNS for that host and port. Default empty.
    pub resolve: Vec<String>,
    /// A resolver used instead of the system's (service discovery, tests). Its answers go
    /// through the same address checks as DNS answers, and are reused as DNS answers are
    /// (see [`ClientConfig::pool_idle_timeout`]); IP literals never reach it. Default `None`.
    pub resolver: Option<std::sync::Arc<dyn super::dns::Resolve>>,
    /// A total deadline for each call of this client (curl's `--max-time`): the card
    /// resolution it triggers, its retries, resubscribes and a whole stream. On expiry the
    /// outcome is `transport`/`Timeout` with `request_sent = unknown`, and nothing is
    /// resent. Default `None`: calls are bounded by [`ClientConfig::call_timeout`] and
    /// streams by the idle timeout only.
    pub max_time: Option<Duration>,
    /// Send calls the agent card's capabilities do not declare (`streaming` for streams and
    /// resubscribes, `pushNotifications` for push configs, the extended card). Default
    /// false: such a call is refused before anything is sent, as
    /// `transport`/`CapabilityNotDeclared`; turn it on for an agent whose card
    /// under-declares. A client made from a URL without a card checks nothing.
    pub ignore_capabilities: bool,
}

impl Default for ClientConfig {
    fn default() -> Self {
        ClientConfig {
            connect_timeout: Duration::from_secs(3),
            call_timeout: Duration::from_secs(45),
            stream_idle_timeout: Duration::from_secs(60),
            max_response_bytes: 32 * 1024 * 1024,
            max_event_bytes: crate::sse::DEFAULT_MAX_EVENT,
            pool_idle_timeout: Duration::from_secs(3),
            allow_http: false,
            allow_hosts: Vec::new(),
            protocol: None,
            min_protocol: None,
            binding: None,
            defer_card_resolution: false,
            stream_resubscribe_attempts: 0,
            send_retries: 0,
            agent_name: None,
            breaker: None,
            user_agent: concat!("a2a-core/", env!("CARGO_PKG_VERSION")).to_owned(),
            prefer: SelectionOrder::CardFirst,
            ca_file: None,
            client_cert_file: None,
            client_key_file: None,
            proxy: None,
            no_proxy: None,
            resolve: Vec::new(),
            resolver: None,
            max_time: None,
            ignore_capabilities: false,
        }
    }
}

impl std::fmt::Debug for ClientConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientConfig")
            .field("connect_timeout", &self.connect_timeout)
            .field("call_timeout", &self.call_timeout)
            .field("stream_idle_timeout", &self.stream_idle_timeout)
            .field("max_response_bytes", &self.max_response_bytes)
            .field("max_event_bytes", &self.max_event_bytes)
            .field("pool_idle_timeout", &self.pool_idle_timeout)
            .field("allow_http", &self.allow_http)
            .field("allow_hosts", &self.allow_hosts)
            .field("protocol", &self.protocol)
            .field("min_protocol", &self.min_protocol)
            .field("binding", &self.binding)
            .field("defer_card_resolution", &self.defer_card_resolution)
            .field(
                "stream_resubscribe_attempts",
                &self.stream_resubscribe_attempts,
            )
            .field("send_retries", &self.send_retries)
            .field("agent_name", &self.agent_name)
            .field("breaker", &self.breaker)
            .field("ignore_capabilities", &self.ignore_capabilities)
            .field("user_agent", &self.user_agent)
            .field("ca_file", &self.ca_file)
            .field("client_cert_file", &self.client_cert_file)
            .field("client_key_file", &self.client_key_file)
            // Credentials in a proxy URL are never printed.
            .field("proxy", &self.proxy.as_deref().map(super::proxy::redact))
            .field("no_proxy", &self.no_proxy)
            .field("resolve", &self.resolve)
            .field("resolver", &self.resolver.as_ref().map(|_| "custom"))
            .field("max_time", &self.max_time)
            .finish()
    }
}
