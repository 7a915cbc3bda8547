//! Card resolution as a machine ([`CardFetch`]): the card URL(s) to fetch, the response
//! read, the card parsed, an interface chosen and its URL validated ([`crate::card`]), and
//! the result as the [`Target`] calls go to. The same shape as [`super::UnaryCall`]:
//! `poll_transmit`, `handle_*`, `poll_timeout`, `poll_event`.
//!
//! The fetch never carries the caller's credentials (no header hook runs on it), never
//! follows a redirect (a 3xx is [`ResolveError::Status`]) and falls back from the current
//! well-known path to the legacy one only on a 404.
// A resolution error carries the fetch's outcome; it is made once, on a path that ends the
// resolution, and travels boxed in `CardEvent`: boxing it inside the error would buy nothing.
#![allow(clippy::result_large_err)]

use std::collections::VecDeque;

use super::Target;
use super::call::InputError;
use super::card_cache::{CachedCard, CardCache};
use super::request::{HttpRequest, RequestId, Transmit, TransportFailure};
use crate::card::{self, AddressClass, AgentCard, CardError, CredentialPlan, Policy, Preferences};
use crate::classify::{ResponseInfo, classify};
use crate::envelope::HttpMethod;
use crate::outcome::{ErrorName, Outcome, RequestSent, RetryAdvice};
use crate::time::Millis;

/// How a card is resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CardOptions {
    /// Which versions and bindings the client speaks, and whose order wins.
    pub preferences: Preferences,
    /// Plain http and the extra origins an interface may point to.
    pub policy: Policy,
    /// The agent's name for correlation, the breaker and the tally (`None`: the card's).
    pub agent_name: Option<String>,
    /// How long each fetch may take (30 s, the driver's).
    pub timeout: Millis,
    /// How long connecting may take, within `timeout` (3 s).
    pub connect_timeout: Millis,
    /// The largest card accepted, in bytes (16 MiB).
    pub max_bytes: u64,
}

impl Default for CardOptions {
    /// Both versions and bindings, https only, the card's name, 30 s, 3 s, 16 MiB.
    fn default() -> Self {
        CardOptions {
            preferences: Preferences::default(),
            policy: Policy::default(),
            agent_name: None,
            timeout: Millis(30_000),
            connect_timeout: Millis(3_000),
            max_bytes: 16 * 1024 * 1024,
        }
    }
}

/// Why a card could not be resolved.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ResolveError {
    /// The URL given is not a usable base or card URL.
    #[error("agent card URL {url:?}: {error}")]
    Location {
        /// The URL as given.
        url: String,
        /// Why.
        error: CardError,
    },
    /// The card could not be fetched (connect failure, timeout, reset, body too large).
    #[error("agent card at {url} could not be fetched: {}", .outcome.message.as_deref().unwrap_or("transport failure"))]
    Fetch {
        /// The card URL tried last.
        url: String,
        /// The transport outcome.
        outcome: Outcome,
    },
    /// The card URL answered something other than 200 (a redirect is never followed).
    #[error("agent card at {url} answered HTTP {status}{}", .location.as_deref().map(|l| format!(" (redirect to {l}, not followed)")).unwrap_or_default())]
    Status {
        /// The card URL.
        url: String,
        /// The HTTP status.
        status: u16,
        /// The `Location` of a redirect.
        location: Option<String>,
        /// The response classified (`http` channel, `Redirect` for a 3xx).
        outcome: Outcome,
    },
    /// The card could not be parsed, offers no usable interface, or names an interface
    /// URL that fails validation (another host, plain http).
    #[error("agent card at {url}: {error}")]
    Card {
        /// The card URL.
        url: String,
        /// Why.
        error: CardError,
    },
}

impl ResolveError {
    /// The error as a `transport` outcome with error `CardResolution` (a fetch that failed
    /// with `Tls`, `Proxy` or `AddressRefused` keeps that error): nothing was sent to the
    /// agent. Retry advice: `backoff` when the fetch failed or the server answered 5xx,
    /// `never` when the card itself is wrong (a redirect, a bad interface, a 4xx).
    pub fn to_outcome(&self) -> Outcome {
        if let ResolveError::Fetch { outcome, .. } = self
            && matches!(
                outcome.error,
                Some(ErrorName::Tls | ErrorName::Proxy | ErrorName::AddressRefused)
            )
        {
            return outcome.clone().with_message(self.to_string());
        }
        let retry = match self {
            ResolveError::Fetch { .. } => RetryAdvice::Backoff,
            ResolveError::Status { status, .. } if *status >= 500 => RetryAdvice::Backoff,
            _ => RetryAdvice::Never,
        };
        let mut o =
            Outcome::transport(ErrorName::CardResolution, RequestSent::No, self.to_string())
                .with_retry(retry);
        if let ResolveError::Status { outcome, .. } = self {
            // The card fetch's own response: its status and body say why.
            if let Some(status) = outcome.http_status {
                o = o.with_http_status(status);
            }
            o = o.with_body_excerpt(outcome.body_excerpt.clone());
        }
        if self.kind() == "plain_http" {
            o = o.with_hint(
                "plain http is refused unless the client allows it (ClientConfig::allow_http), \
                 for local development only"
                    .to_owned(),
            );
        }
        o
    }

    /// A stable snake_case kind for logs and the C ABI.
    pub fn kind(&self) -> &'static str {
        match self {
            ResolveError::Location { .. } => "location",
            ResolveError::Fetch { .. } => "fetch",
            ResolveError::Status { status, .. } if (300..400).contains(status) => "redirect",
            ResolveError::Status { .. } => "status",
            ResolveError::Card { error, .. } => error.kind(),
        }
    }
}

/// A resolved card: the target and what the host needs besides.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResolvedCard {
    /// Where calls go (with the credentials the card asks for).
    pub target: Target,
    /// The URL the card was fetched from.
    pub card_url: String,
    /// The card as fetched.
    pub card_json: String,
    /// The address class of the card's host (a host that resolves names checks the
    /// interface's addresses against it: no drift from public to private).
    pub card_class: AddressClass,
    /// What the host's [`CardCache`] should keep for this card's URL (stored with
    /// [`CardCache::put`]); `None` when the response may not be stored (`no-store`).
    pub cache_entry: Option<CachedCard>,
    /// Whether the card came from the cache (fresh, or revalidated by a `304`).
    pub from_cache: bool,
}

/// What a [`CardFetch`] reports.
///
/// Exhaustive on purpose: a host acts on every event (a new one would be ignored and the fetch
/// would hang), so a new kind is a deliberate breaking change.
#[derive(Debug, Clone)]
pub enum CardEvent {
    /// Stop request `0` now (its deadline passed or its body grew past the limit).
    Abort(RequestId),
    /// The resolution is over; always the last event.
    Resolved(Box<Result<ResolvedCard, ResolveError>>),
}

#[derive(Debug)]
enum Phase {
    Ready,
    InFlight {
        id: RequestId,
        deadline: Millis,
        head: Option<(u16, Vec<(String, String)>)>,
        body: Vec<u8>,
    },
    Done,
}

/// The machine that resolves one agent card. See the module docs.
#[derive(Debug)]
pub struct CardFetch {
    options: CardOptions,
    /// The URL of the fetch in progress (or the next one).
    url: String,
    /// The legacy well-known URL to try after a 404, until it is tried.
    fallback: Option<String>,
    attempt: u32,
    phase: Phase,
    events: VecDeque<CardEvent>,
    /// The cached entries of the URLs this fetch may ask (see [`CardFetch::use_cache`]).
    cached: Vec<CachedCard>,
}

impl CardFetch {
    /// Resolution of the card behind `source` (a base URL or a card URL). A source that is
    /// no URL, or plain http the policy refuses, resolves at once to an error (nothing is
    /// handed out).
    pub fn new(source: &str, options: CardOptions) -> CardFetch {
        let mut m = CardFetch {
            options,
            url: String::new(),
            fallback: None,
            attempt: 0,
            phase: Phase::Ready,
            events: VecDeque::new(),
            cached: Vec::new(),
        };
        match card::card_location(source) {
            Err(error) => m.finish(Err(ResolveError::Location {
                url: source.to_owned(),
                error,
            })),
            Ok(loc) => {
                m.url = loc.primary;
                m.fallback = loc.fallback;
                if !m.options.policy.allow_http
                    && m.url
                        .get(..7)
                        .is_some_and(|p| p.eq_ignore_ascii_case("http://"))
                {
                    // Refused before any byte goes out, as the card's own error.
                    let url = m.url.clone();
                    m.finish(Err(ResolveError::Card {
                        error: CardError::PlainHttp { url: url.clone() },
                        url,
                    }));
                }
            }
        }
        m
    }

    /// Uses the host's `cache` at `now`: a fresh card for the URL about to be fetched
    /// resolves at once (no request; its [`CardEvent::Resolved`] is queued), a stale one is
    /// revalidated (the fetch carries its validators, and a `304` reuses it). Call it right
    /// after [`CardFetch::new`], before the first `poll_transmit`.
    pub fn use_cache(&mut self, cache: &CardCache, now: Millis) {
        if !matches!(self.phase, Phase::Ready) || self.attempt > 0 {
            return;
        }
        self.cached = [Some(self.url.as_str()), self.fallback.as_deref()]
            .into_iter()
            .flatten()
            .filter_map(|u| cache.get(u).cloned())
            .collect();
        if let Some(c) = self
            .cached
            .iter()
            .find(|c| c.url == self.url && c.is_fresh(now))
        {
            let body = c.body.clone();
            let entry = c.clone();
            let result = self.read(200, &[], &body).map(|mut r| {
                r.cache_entry = Some(entry);
                r.from_cache = true;
                r
            });
            self.finish(result);
        }
    }

    fn cached_for(&self, url: &str) -> Option<&CachedCard> {
        self.cached.iter().find(|c| c.url == url)
    }

    /// The next fetch to perform (a `GET` with `Accept: application/json`, and the
    /// validators of a cached card for revalidation), when one is due.
    #[must_use]
    pub fn poll_transmit(&mut self, now: Millis) -> Option<Transmit> {
        if !matches!(self.phase, Phase::Ready) {
            return None;
        }
        self.attempt += 1;
        let id = RequestId(self.attempt);
        let deadline = now.saturating_add(self.options.timeout);
        self.phase = Phase::InFlight {
            id,
            deadline,
            head: None,
            body: Vec::new(),
        };
        Some(Transmit {
            id,
            request: HttpRequest {
                method: HttpMethod::Get,
                url: self.url.clone(),
                headers: std::iter::once(("accept".to_owned(), "application/json".to_owned()))
                    .chain(
                        self.cached_for(&self.url)
                            .map(CachedCard::validators)
                            .unwrap_or_default(),
                    )
                    .collect(),
                body: Vec::new(),
            },
            connect_by: now
                .saturating_add(self.options.connect_timeout)
                .min(deadline),
            deadline,
        })
    }

    /// The in-flight fetch's deadline.
    #[must_use]
    pub fn poll_timeout(&self) -> Option<Millis> {
        match self.phase {
            Phase::InFlight { deadline, .. } => Some(deadline),
            _ => None,
        }
    }

    /// The next event; `None` when there is none now.
    #[must_use]
    pub fn poll_event(&mut self) -> Option<CardEvent> {
        self.events.pop_front()
    }

    /// The response head of fetch `id`.
    ///
    /// # Errors
    /// [`InputError`] when `id` is not in flight or its head was already given.
    pub fn handle_head(
        &mut self,
        id: RequestId,
        status: u16,
        headers: Vec<(String, String)>,
        now: Millis,
    ) -> Result<(), InputError> {
        self.current(id)?;
        if self.late(now) {
            return Ok(());
        }
        let Phase::InFlight { head, .. } = &mut self.phase else {
            unreachable!("checked by current()")
        };
        if head.is_some() {
            return Err(InputError::HeadTwice);
        }
        *head = Some((status, headers));
        Ok(())
    }

    /// A chunk of fetch `id`'s body; past [`CardOptions::max_bytes`] the fetch fails.
    ///
    /// # Errors
    /// [`InputError`] when `id` is not in flight or no head was given.
    pub fn handle_body(
        &mut self,
        id: RequestId,
        chunk: &[u8],
        now: Millis,
    ) -> Result<(), InputError> {
        self.current(id)?;
        if matches!(&self.phase, Phase::InFlight { head: None, .. }) {
            return Err(InputError::NoHead);
        }
        if self.late(now) {
            return Ok(());
        }
        let limit = self.options.max_bytes;
        let Phase::InFlight { body, .. } = &mut self.phase else {
            unreachable!("checked by current()")
        };
        if (body.len() as u64).saturating_add(chunk.len() as u64) > limit {
            let o = Outcome::transport(
                ErrorName::ResponseTooLarge,
                RequestSent::Unknown,
                format!("response body larger than the {limit}-byte limit"),
            )
            .with_retry(RetryAdvice::Never);
            self.events.push_back(CardEvent::Abort(id));
            self.fail(o);
            return Ok(());
        }
        body.extend_from_slice(chunk);
        Ok(())
    }

    /// The end of fetch `id`'s body: the card is read and resolved, or the legacy URL is
    /// tried after a 404.
    ///
    /// # Errors
    /// [`InputError`] when `id` is not in flight or no head was given.
    pub fn handle_end(&mut self, id: RequestId, now: Millis) -> Result<(), InputError> {
        self.current(id)?;
        if matches!(&self.phase, Phase::InFlight { head: None, .. }) {
            return Err(InputError::NoHead);
        }
        if self.late(now) {
            return Ok(());
        }
        let Phase::InFlight {
            head: Some((status, headers)),
            body,
            ..
        } = std::mem::replace(&mut self.phase, Phase::Ready)
        else {
            unreachable!("checked above")
        };
        if status == 404
            && let Some(fallback) = self.fallback.take()
        {
            self.url = fallback;
            return Ok(());
        }
        let result = match (status, self.cached_for(&self.url)) {
            (304, Some(c)) => {
                let entry = c.clone().revalidated(&headers, now);
                let body = c.body.clone();
                self.read(200, &headers, &body).map(|mut r| {
                    r.cache_entry = entry;
                    r.from_cache = true;
                    r
                })
            }
            _ => self.read(status, &headers, &body).map(|mut r| {
                r.cache_entry = CachedCard::from_response(&self.url, &headers, &body, now);
                r
            }),
        };
        self.finish(result);
        Ok(())
    }

    /// The transport of fetch `id` failed.
    ///
    /// # Errors
    /// [`InputError`] when `id` is not in flight.
    pub fn handle_failure(
        &mut self,
        id: RequestId,
        failure: TransportFailure,
        now: Millis,
    ) -> Result<(), InputError> {
        self.current(id)?;
        if self.late(now) {
            return Ok(());
        }
        self.fail(failure.outcome);
        Ok(())
    }

    /// Time has reached `now`: a fetch past its deadline times out.
    pub fn handle_timeout(&mut self, now: Millis) {
        self.late(now);
    }

    /// The host abandons the resolution: a fetch in flight is aborted
    /// ([`CardEvent::Abort`]) and the resolution ends as a failed fetch (`transport`/`Reset`,
    /// "canceled by the caller"). Nothing happens once it is over.
    pub fn cancel(&mut self, _now: Millis) {
        let sent = match self.phase {
            Phase::Done => return,
            Phase::InFlight { id, .. } => {
                self.events.push_back(CardEvent::Abort(id));
                RequestSent::Unknown
            }
            Phase::Ready => RequestSent::No,
        };
        self.fail(Outcome::transport(
            ErrorName::Reset,
            sent,
            "canceled by the caller",
        ));
    }

    fn current(&self, id: RequestId) -> Result<(), InputError> {
        match &self.phase {
            Phase::InFlight { id: cur, .. } if *cur == id => Ok(()),
            Phase::Done => Err(InputError::Finished),
            _ => Err(InputError::Stale),
        }
    }

    fn late(&mut self, now: Millis) -> bool {
        let Phase::InFlight { id, deadline, .. } = self.phase else {
            return false;
        };
        if now < deadline {
            return false;
        }
        self.events.push_back(CardEvent::Abort(id));
        let o = Outcome::transport(
            ErrorName::Timeout,
            RequestSent::Unknown,
            format!("call timeout after {} ms", self.options.timeout.0),
        );
        self.fail(o);
        true
    }

    fn fail(&mut self, outcome: Outcome) {
        let url = self.url.clone();
        self.finish(Err(ResolveError::Fetch { url, outcome }));
    }

    /// A complete card response: parsed, resolved, validated.
    fn read(
        &self,
        status: u16,
        headers: &[(String, String)],
        body: &[u8],
    ) -> Result<ResolvedCard, ResolveError> {
        let url = self.url.clone();
        if status != 200 {
            let location = headers
                .iter()
                .find(|(n, _)| n.eq_ignore_ascii_case("location"))
                .map(|(_, v)| v.clone());
            let mut info = ResponseInfo::new(status, body);
            for (n, v) in headers {
                info = info.header(n, v);
            }
            return Err(ResolveError::Status {
                url,
                status,
                location,
                outcome: classify(&info),
            });
        }
        let card_err = |error| ResolveError::Card {
            url: url.clone(),
            error,
        };
        let card = AgentCard::parse(body).map_err(card_err)?;
        let resolved = card
            .resolve(&url, &self.options.preferences, &self.options.policy)
            .map_err(card_err)?;
        let card_class = card::Url::parse(&url)
            .map(|u| u.host().class())
            .unwrap_or(AddressClass::Public);
        let credentials: CredentialPlan = resolved.credentials;
        Ok(ResolvedCard {
            target: Target {
                url: resolved.choice.url.clone(),
                version: resolved.choice.version,
                binding: resolved.choice.binding,
                tenant: resolved.choice.tenant.clone(),
                agent_name: self
                    .options
                    .agent_name
                    .clone()
                    .unwrap_or_else(|| card.name.clone()),
                credentials: Some(credentials),
                capabilities: Some(card.capabilities()),
            },
            card_url: url.clone(),
            card_json: String::from_utf8_lossy(body).into_owned(),
            card_class,
            cache_entry: None,
            from_cache: false,
        })
    }

    fn finish(&mut self, result: Result<ResolvedCard, ResolveError>) {
        self.phase = Phase::Done;
        self.events.push_back(CardEvent::Resolved(Box::new(result)));
    }
}
