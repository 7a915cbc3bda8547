//! Card resolution on the core's [`CardFetch`] machine (fetch, never following a redirect
//! and never sending the caller's credentials; parse; choose an interface; validate its
//! URL), with the driver doing the I/O and arming the resolver's rebinding check.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::sync::Arc;
use std::time::Instant;

use super::lock::Locked;
use super::run::{EventRole, Exchange, InFlight, Input, RunMachine, run};
use super::{Client, Target};
use crate::card::{Policy, Preferences};
use crate::client::{CardEvent, CardFetch, CardOptions, RequestId, Transmit};
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
        let mut on = Card {
            client: self,
            fetch: &mut fetch,
            total: total.map(|t| self.millis_at(t)),
            armed: None,
            sent: None,
        };
        // Each fetch is read whole: nothing stays in flight between runs.
        let mut flight = InFlight::default();
        let mut events = VecDeque::new();
        let resolved = loop {
            let mut now = self.now();
            // The card fetch needs no client state: nothing can fail here.
            let Ok(()) = run(&mut on, &mut flight, &mut events, self, None, &mut now);
            if let Some(CardEvent::Resolved(r)) = events.pop_front() {
                break *r;
            }
        };
        let sent = on.armed.is_some();
        let resolved = match resolved {
            Ok(r) => r,
            Err(e) => {
                if let Some(url) = on.armed.take() {
                    self.abandon_rebinding_check(&url);
                }
                return Err(e);
            }
        };
        // A fresh card made no request: what its host's lookup found when it was fetched
        // stands in for the rebinding check.
        let cached_internal = !sent && shared.locked().internal_of(&resolved.card_url);
        let internal = self.finish_rebinding_check(&resolved, sent, cached_internal);
        match resolved.cache_entry.clone() {
            Some(entry) => shared.locked().put(entry, self.now(), internal),
            None => shared.locked().cards.remove(&resolved.card_url),
        }
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
                .finish_card("", crate::card::AddressClass::Public, iface_host, true);
        }
        *m.hook_target.locked() = Arc::clone(&t);
        drop(slot);
        *self.inner.target.locked() = Some(t);
        Ok(())
    }

    /// Arms the rebinding check (see `dns`) for a card fetch that a client machine runs on
    /// this client's transport (`a2a_call_run`): give it the URL of the fetch's first
    /// request, before that request is sent, so the card host's answers are recorded.
    pub fn begin_rebinding_check(&self, card_url: &str) {
        self.inner.guard.begin_card(host_of_url(card_url));
    }

    /// Forgets a card fetch armed with [`Client::begin_rebinding_check`] that did not
    /// resolve (nothing is checked because of it).
    pub fn abandon_rebinding_check(&self, card_url: &str) {
        self.inner.guard.forget_card(host_of_url(card_url));
    }

    /// Completes the rebinding check for a card resolution run on this client's transport:
    /// from now on, the interface host of a public card (written public, or whose host
    /// resolved to a public address) has its answers checked here, unless the caller
    /// allows that host. `sent`: the fetch made a request (armed with
    /// [`Client::begin_rebinding_check`]); a card served fresh from a cache made none, and
    /// `cached_internal` (whether its host resolved to internal addresses only when it was
    /// fetched, kept beside the cache) stands in. Returns that finding for this card, to
    /// keep beside its cache entry.
    pub fn finish_rebinding_check(
        &self,
        resolved: &crate::client::ResolvedCard,
        sent: bool,
        cached_internal: bool,
    ) -> bool {
        let card_host = host_of_url(&resolved.card_url);
        if !sent {
            self.inner
                .guard
                .begin_cached_card(card_host, cached_internal);
        }
        let internal = self.inner.guard.card_resolved_internal(card_host);
        let iface_host = host_of_url(&resolved.target.url);
        let allowed = self.inner.config.allow_hosts.iter().any(|h| {
            let rest = h.split_once("://").map_or(h.as_str(), |(_, r)| r);
            super::proxy::host_of(rest).eq_ignore_ascii_case(iface_host)
        });
        self.inner
            .guard
            .finish_card(card_host, resolved.card_class, iface_host, allowed);
        internal
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

/// A card fetch as the loop runs it for a client: arms the resolver's rebinding check at
/// the first request, and keeps the enclosing call's total deadline (the machine has none).
struct Card<'a> {
    client: &'a Client,
    fetch: &'a mut CardFetch,
    total: Option<Millis>,
    /// The URL of the fetch's first request once the rebinding check was armed with it (a
    /// request went out).
    armed: Option<String>,
    /// The request in flight and its own deadline (the loop sees it cut to `total`).
    sent: Option<(RequestId, Millis)>,
}

impl Card<'_> {
    /// Ends the request in flight with the max-time outcome, fed at `now` (before its own
    /// deadline: the total one cut it).
    fn cut(&mut self, id: RequestId, deadline: Millis, now: Millis) {
        let o = Input::Failure(super::max_time_outcome());
        // The fetch is the one in flight: the input cannot be refused.
        let _ = o.to_card(self.fetch, id, now.min(deadline.saturating_sub(Millis(1))));
    }
}

impl RunMachine for Card<'_> {
    type Event = CardEvent;
    type Error = Infallible;

    fn poll_transmit(&mut self, now: Millis) -> Result<Option<Transmit>, Infallible> {
        while let Some(mut t) = self.fetch.poll_transmit(now) {
            if self.armed.is_none() {
                // The rebinding check compares the interface's addresses with the card
                // host's (see `dns`).
                self.client.begin_rebinding_check(&t.request.url);
                self.armed = Some(t.request.url.clone());
            }
            if let Some(total) = self.total {
                if now >= total {
                    // Nothing is left of the total deadline: not sent.
                    self.cut(t.id, t.deadline, now);
                    continue;
                }
                self.sent = Some((t.id, t.deadline));
                t.deadline = t.deadline.min(total);
                t.connect_by = t.connect_by.min(total);
            }
            return Ok(Some(t));
        }
        Ok(None)
    }

    fn exchange(&self) -> Exchange {
        Exchange::Whole
    }

    fn handle(&mut self, id: RequestId, input: Input<'_>, now: Millis) -> Result<(), Infallible> {
        self.sent = None;
        // The fetch is the one in flight: the input cannot be refused.
        let _ = input.to_card(self.fetch, id, now);
        Ok(())
    }

    fn handle_timeout(&mut self, now: Millis) -> Result<(), Infallible> {
        match (self.total, self.sent.take()) {
            // The total deadline cut the fetch before its own.
            (Some(total), Some((id, deadline))) if now >= total => self.cut(id, deadline, now),
            _ => self.fetch.handle_timeout(now),
        }
        Ok(())
    }

    fn cancel(&mut self, now: Millis) -> Result<(), Infallible> {
        self.fetch.cancel(now);
        Ok(())
    }

    fn poll_timeout(&self) -> Option<Millis> {
        self.fetch.poll_timeout()
    }

    fn poll_event(&mut self) -> Option<CardEvent> {
        self.fetch.poll_event()
    }

    fn role(event: &CardEvent) -> EventRole {
        match event {
            CardEvent::Abort(id) => EventRole::Abort(*id),
            CardEvent::Resolved(_) => EventRole::Finished,
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

/// The host of an absolute URL (empty when it has no scheme).
fn host_of_url(url: &str) -> &str {
    url.split_once("://")
        .map_or("", |(_, r)| super::proxy::host_of(r))
}
