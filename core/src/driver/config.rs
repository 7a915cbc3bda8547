//! Client configuration with the defaults a production caller would pick.

use std::time::Duration;

use crate::card::SelectionOrder;
use crate::version::{Binding, ProtocolVersion};

/// How a [`super::Client`] connects, times out and recovers.
///
/// Every default is chosen for an agent calling another agent inside a user's turn; see
/// each field. Build with [`ClientConfig::default`] and change what you need.
#[derive(Debug, Clone)]
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
    /// longest quiet period; the Python SDK pings every 15 s). Streams have no total timeout.
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
    /// server is closing may or may not have been processed.
    pub pool_idle_timeout: Duration,
    /// Allow plain `http://` URLs (cards and interfaces). Default false.
    pub allow_http: bool,
    /// Hosts (besides the card's own) an interface URL may name. Default empty.
    pub allow_hosts: Vec<String>,
    /// Protocol version to use; `None` lets [`ClientConfig::prefer`] pick among the card's.
    pub protocol: Option<ProtocolVersion>,
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
            binding: None,
            defer_card_resolution: false,
            stream_resubscribe_attempts: 0,
            send_retries: 0,
            agent_name: None,
            breaker: None,
            user_agent: concat!("a2a-core/", env!("CARGO_PKG_VERSION")).to_owned(),
            prefer: SelectionOrder::CardFirst,
        }
    }
}
