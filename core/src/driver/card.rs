//! Card resolution on the core's [`CardFetch`] machine (fetch, never following a redirect
//! and never sending the caller's credentials; parse; choose an interface; validate its
//! URL), with the driver doing the I/O and arming the resolver's rebinding check.

use std::sync::Arc;
use std::time::Instant;

use super::exchange::HttpRequest;
use super::lock::Locked;
use super::{AbortHandle, Client, Target};
use crate::card::{Policy, Preferences};
use crate::client::{CardEvent, CardFetch, CardOptions, TransportFailure};
use crate::outcome::Outcome;
use crate::time::Millis;

/// Why a client could not resolve its target from the agent card (the "card resolution"
/// channel): the machine's [`crate::client::ResolveError`]. Raised by [`Client::new`], or
/// by the first call when resolution is deferred (then as a `transport` outcome with error
/// `CardResolution`; see [`CardResolutionError::to_outcome`]).
pub use crate::client::ResolveError as CardResolutionError;

/// Why [`Client::extended_card`] did not adopt the extended card it fetched (the public
/// card stays): the machine's [`crate::client::AdoptError`].
pub use crate::client::AdoptError as ExtendedCardError;

/// Where a client's card came from: what its extended card is checked against.
pub(crate) struct CardOrigin {
    /// The URL the public card was fetched from.
    pub(crate) card_url: String,
    /// The preferences and policy it was resolved with.
    pub(crate) options: CardOptions,
}

/// The driver's target for a machine target and the card's JSON.
fn driver_target(t: crate::client::Target, card_json: Option<String>) -> Target {
    Target {
        url: t.url,
        version: t.version,
        binding: t.binding,
        tenant: t.tenant,
        agent_name: t.agent_name,
        card_json,
        credentials: t.credentials,
        capabilities: t.capabilities,
    }
}

impl ExtendedCardError {
    /// The refusal as a `transport` outcome with error `CardResolution` (retry `never`).
    pub fn to_outcome(&self) -> Outcome {
        match self {
            ExtendedCardError::Card(e) => e.to_outcome().with_message(self.to_string()),
            _ => Outcome::transport(
                crate::outcome::ErrorName::CardResolution,
                crate::outcome::RequestSent::No,
                self.to_string(),
            )
            .with_retry(crate::outcome::RetryAdvice::Never),
        }
    }
}

impl Client {
    /// Fetches and validates the card behind `source` (a base URL or a card URL) and
    /// returns the interface to use. The fetch is bounded by `max_time` on its own, and by
    /// `total` (the enclosing call's total deadline when resolution was deferred to it).
    #[allow(
        clippy::too_many_lines,
        reason = "card resolution's steps (cache, fetch, validate, choose) in order, with the deadlines threaded through"
    )]
    pub(crate) fn resolve_card(
        &self,
        source: &str,
        total: Option<Instant>,
    ) -> Result<(Target, CardOrigin), CardResolutionError> {
        let config = &self.inner.config;
        let own = config.max_time.map(|m| Instant::now() + m);
        let total = match (own, total) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        let options = CardOptions {
            preferences: self.preferences(),
            policy: self.policy(),
            agent_name: config.agent_name.clone(),
            timeout: super::millis_of(config.call_timeout).min(Millis(30_000)),
            connect_timeout: super::millis_of(config.connect_timeout),
            max_bytes: config.max_response_bytes,
        };
        let mut fetch = CardFetch::new(source, options.clone());
        let shared = shared_card_cache();
        fetch.use_cache(&shared.locked().view(self.now()), self.now());
        let mut armed = false;
        let resolved = loop {
            if let Some(t) = fetch.poll_transmit(self.now()) {
                if !armed {
                    // The rebinding check compares the interface's addresses with the
                    // card host's (see `dns`).
                    let card_host = t
                        .request
                        .url
                        .split_once("://")
                        .map_or("", |(_, r)| super::proxy::host_of(r));
                    self.inner.guard.begin_card(card_host);
                    armed = true;
                }
                let id = t.id;
                let deadline = t.deadline;
                let request = HttpRequest::from(t.request);
                let timeout = self
                    .instant_of(deadline)
                    .saturating_duration_since(Instant::now());
                let result = self.perform(&request, timeout, total, &AbortHandle::new());
                // The exchange kept the deadline itself: what it reports happened in time.
                let at = self.now().min(deadline.saturating_sub(Millis(1)));
                // The fetch is the one in flight: these inputs cannot be refused.
                let _ = match result {
                    Ok(r) => fetch
                        .handle_head(id, r.status, r.headers, at)
                        .and_then(|()| fetch.handle_body(id, &r.body, at))
                        .and_then(|()| fetch.handle_end(id, at)),
                    Err(o) => fetch.handle_failure(id, TransportFailure::from_outcome(o), at),
                };
                continue;
            }
            match fetch.poll_event() {
                Some(CardEvent::Resolved(r)) => break *r,
                Some(CardEvent::Abort(_)) => {}
                // Each fetch is performed whole above, so the machine always has a request
                // or a result; a deadline is the only other thing it can wait for.
                None => {
                    fetch.handle_timeout(self.now().max(fetch.poll_timeout().unwrap_or_default()))
                }
            }
        }?;
        let card_host = resolved
            .card_url
            .split_once("://")
            .map_or("", |(_, r)| super::proxy::host_of(r));
        if resolved.from_cache && !armed {
            // A fresh card made no request: what its host's lookup found when it was
            // fetched stands in for the rebinding check.
            let internal = shared.locked().internal_of(&resolved.card_url);
            self.inner.guard.begin_cached_card(card_host, internal);
        }
        match resolved.cache_entry.clone() {
            Some(entry) => {
                let internal = self.inner.guard.card_resolved_internal();
                shared.locked().put(entry, self.now(), internal);
            }
            None => shared.locked().cards.remove(&resolved.card_url),
        }
        let iface_host = resolved
            .target
            .url
            .split_once("://")
            .map_or("", |(_, r)| super::proxy::host_of(r));
        let allowed = config.allow_hosts.iter().any(|h| {
            let rest = h.split_once("://").map_or(h.as_str(), |(_, r)| r);
            super::proxy::host_of(rest).eq_ignore_ascii_case(iface_host)
        });
        self.inner
            .guard
            .finish_card(resolved.card_class, iface_host, allowed);
        let origin = CardOrigin {
            card_url: resolved.card_url.clone(),
            options,
        };
        Ok((
            driver_target(resolved.target, Some(resolved.card_json)),
            origin,
        ))
    }

    /// Makes the extended card in `body` (a successful `GetExtendedAgentCard` response)
    /// replace the public card: the machine's state checks and adopts it, then the driver's
    /// target and the resolver's check follow.
    pub(crate) fn adopt_extended_card(&self, body: &[u8]) -> Result<(), ExtendedCardError> {
        let mut slot = self.machine();
        let m = slot.as_mut().ok_or(ExtendedCardError::NoCardOrigin)?;
        let (t, json) = m.state.adopt_extended_card_body(body)?;
        let old_host = m
            .hook_target
            .locked()
            .url
            .split_once("://")
            .map_or("", |(_, r)| super::proxy::host_of(r))
            .to_owned();
        let t = Arc::new(driver_target(t.clone(), Some(json)));
        let iface_host = t
            .url
            .split_once("://")
            .map_or("", |(_, r)| super::proxy::host_of(r));
        if !iface_host.eq_ignore_ascii_case(&old_host) {
            // Only the policy's allowed origins admit another host (the card rules refused
            // any other), and an allowed host's internal addresses are accepted.
            self.inner
                .guard
                .finish_card(crate::card::AddressClass::Public, iface_host, true);
        }
        *m.hook_target.locked() = Arc::clone(&t);
        drop(slot);
        *self.inner.target.locked() = Some(t);
        Ok(())
    }

    fn preferences(&self) -> Preferences {
        let mut p = Preferences::default();
        if let Some(v) = self.inner.config.protocol {
            p.versions = vec![v];
        }
        p.min_version = self.inner.config.min_protocol;
        if let Some(b) = self.inner.config.binding {
            p.bindings = vec![b];
        }
        p.order = self.inner.config.prefer;
        p
    }

    fn policy(&self) -> Policy {
        let mut allowed_origins = Vec::new();
        for h in &self.inner.config.allow_hosts {
            if h.contains("://") {
                allowed_origins.push(h.clone());
            } else {
                allowed_origins.push(format!("https://{h}"));
                if self.inner.config.allow_http {
                    allowed_origins.push(format!("http://{h}"));
                }
            }
        }
        Policy {
            allow_http: self.inner.config.allow_http,
            allowed_origins,
        }
    }
}

/// The card cache every driver client of this process shares (cards are public documents,
/// fetched without credentials): a fresh card is not fetched again, a stale one is
/// revalidated. Its times are on [`cache_now`]'s clock; beside each card, whether its host
/// resolved to internal addresses only when it was fetched (for the rebinding check).
#[derive(Debug, Default)]
struct SharedCards {
    cards: crate::client::CardCache,
    internal: Vec<(String, bool)>,
}

impl SharedCards {
    /// The cards on the clock of a client whose time is `client_now`.
    fn view(&self, client_now: Millis) -> crate::client::CardCache {
        self.cards.on_clock(cache_now(), client_now)
    }

    /// Stores an entry made on a client's clock (`client_now`).
    fn put(&mut self, entry: crate::client::CachedCard, client_now: Millis, internal: bool) {
        let url = entry.url.clone();
        let mut one = crate::client::CardCache::default();
        one.put(entry);
        if let Some(e) = one.on_clock(client_now, cache_now()).get(&url) {
            self.cards.put(e.clone());
        }
        self.internal
            .retain(|(u, _)| self.cards.get(u).is_some() && *u != url);
        self.internal.push((url, internal));
    }

    fn internal_of(&self, url: &str) -> bool {
        self.internal.iter().any(|(u, i)| u == url && *i)
    }
}

fn shared_card_cache() -> &'static std::sync::Mutex<SharedCards> {
    static CACHE: std::sync::OnceLock<std::sync::Mutex<SharedCards>> = std::sync::OnceLock::new();
    CACHE.get_or_init(Default::default)
}

/// The shared cache's clock: milliseconds since the cache was first used.
fn cache_now() -> Millis {
    static EPOCH: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();
    Millis(EPOCH.get_or_init(Instant::now).elapsed().as_millis() as u64)
}
