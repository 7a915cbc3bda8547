//! Card resolution: fetch the agent card (never following a redirect, never sending the
//! caller's credentials), parse it, choose an interface and validate its URL with the core's
//! card module, and turn the result into the client's [`Target`].

use std::time::Duration;

use super::exchange::{HttpRequest, HttpResponse};
use super::{Client, Target};
use crate::card::{self, AgentCard, CardError, CredentialPlan, Policy, Preferences};
use crate::classify::{ResponseInfo, classify};
use crate::outcome::{ErrorName, Outcome, RequestSent, RetryAdvice};

/// Why a client could not resolve its target from the agent card (the "card resolution"
/// channel). Raised by [`Client::new`], or by the first call when resolution is deferred
/// (then as a `transport` outcome with error `CardResolution`; see
/// [`CardResolutionError::to_outcome`]).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CardResolutionError {
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
    /// The card URL answered something other than 200: an error status, or a redirect
    /// (never followed: a moved card is a configuration change the caller must make).
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
    /// URL that fails validation (another host, plain http, drift to a private address).
    #[error("agent card at {url}: {error}")]
    Card {
        /// The card URL.
        url: String,
        /// Why.
        error: CardError,
    },
}

impl CardResolutionError {
    /// The error as a `transport` outcome with error `CardResolution` (a fetch that failed
    /// with `Tls`, `Proxy` or `AddressRefused` keeps that error): nothing was sent to
    /// the agent. Retry advice: `backoff` when the fetch failed or the server answered 5xx,
    /// `never` when the card itself is wrong (a redirect, a bad interface, a 4xx).
    pub fn to_outcome(&self) -> Outcome {
        // A card that could not be fetched because of TLS, the proxy or a refused address
        // keeps that error, its reason and its hint: they say what to change.
        if let CardResolutionError::Fetch { outcome, .. } = self
            && matches!(
                outcome.error,
                Some(ErrorName::Tls | ErrorName::Proxy | ErrorName::AddressRefused)
            )
        {
            let mut o = outcome.clone();
            o.message = Some(self.to_string());
            return o;
        }
        let mut o =
            Outcome::transport(ErrorName::CardResolution, RequestSent::No, self.to_string());
        o.retry = match self {
            CardResolutionError::Fetch { .. } => RetryAdvice::Backoff,
            CardResolutionError::Status { status, .. } if *status >= 500 => RetryAdvice::Backoff,
            _ => RetryAdvice::Never,
        };
        if let CardResolutionError::Status { outcome, .. } = self {
            o.http_status = outcome.http_status;
            o.body_excerpt = outcome.body_excerpt.clone();
        }
        if self.kind() == "plain_http" {
            o.hint = Some(
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
            CardResolutionError::Location { .. } => "location",
            CardResolutionError::Fetch { .. } => "fetch",
            CardResolutionError::Status { status, .. } if (300..400).contains(status) => "redirect",
            CardResolutionError::Status { .. } => "status",
            CardResolutionError::Card { error, .. } => error.kind(),
        }
    }
}

impl Client {
    /// Fetches and validates the card behind `source` (a base URL or a card URL) and
    /// returns the interface to use.
    pub(crate) fn resolve_card(&self, source: &str) -> Result<Target, CardResolutionError> {
        // The card fetch is bounded by max_time on its own, and by the enclosing call's
        // total deadline when resolution was deferred to that call.
        let _within = super::within(
            self.inner
                .config
                .max_time
                .map(|m| std::time::Instant::now() + m),
        );
        let loc = card::card_location(source).map_err(|error| CardResolutionError::Location {
            url: source.to_owned(),
            error,
        })?;
        let mut url = loc.primary.clone();
        if !self.inner.config.allow_http
            && url
                .get(..7)
                .is_some_and(|p| p.eq_ignore_ascii_case("http://"))
        {
            // Refused before any byte goes out, as the card's own error (retry: never),
            // not as a fetch failure a caller might back off and retry.
            return Err(CardResolutionError::Card {
                error: CardError::PlainHttp { url: url.clone() },
                url,
            });
        }
        let card_host = url
            .split_once("://")
            .map_or("", |(_, r)| super::proxy::host_of(r));
        self.inner.guard.begin_card(card_host);
        let mut response = self.fetch_card(&url)?;
        if response.status == 404
            && let Some(fallback) = &loc.fallback
        {
            url = fallback.clone();
            response = self.fetch_card(&url)?;
        }
        if response.status != 200 {
            let location = response.header("location").map(str::to_owned);
            let mut info = ResponseInfo::new(response.status, &response.body);
            for (n, v) in &response.headers {
                info = info.header(n, v);
            }
            return Err(CardResolutionError::Status {
                url,
                status: response.status,
                location,
                outcome: classify(&info),
            });
        }
        let card_err = |error| CardResolutionError::Card {
            url: url.clone(),
            error,
        };
        let card = AgentCard::parse(&response.body).map_err(card_err)?;
        let resolved = card
            .resolve(&url, &self.preferences(), &self.policy())
            .map_err(card_err)?;
        // Arm the rebinding check of the interface's resolved addresses (see `dns`).
        let card_class = card::Url::parse(&url)
            .map(|u| u.host().class())
            .unwrap_or(card::AddressClass::Public);
        let iface_host = resolved
            .choice
            .url
            .split_once("://")
            .map_or("", |(_, r)| super::proxy::host_of(r));
        let allowed = self.inner.config.allow_hosts.iter().any(|h| {
            let rest = h.split_once("://").map_or(h.as_str(), |(_, r)| r);
            super::proxy::host_of(rest).eq_ignore_ascii_case(iface_host)
        });
        self.inner
            .guard
            .finish_card(card_class, iface_host, allowed);
        Ok(Target {
            url: resolved.choice.url.clone(),
            version: resolved.choice.version,
            binding: resolved.choice.binding,
            tenant: resolved.choice.tenant.clone(),
            agent_name: self
                .inner
                .config
                .agent_name
                .clone()
                .unwrap_or_else(|| card.name.clone()),
            card_json: Some(String::from_utf8_lossy(&response.body).into_owned()),
            credentials: Some(resolved.credentials),
        })
    }

    fn fetch_card(&self, url: &str) -> Result<HttpResponse, CardResolutionError> {
        let request = HttpRequest {
            method: "GET".to_owned(),
            url: url.to_owned(),
            headers: vec![("accept".to_owned(), "application/json".to_owned())],
            body: Vec::new(),
        };
        self.exchange(
            &request,
            Some(self.inner.config.call_timeout.min(Duration::from_secs(30))),
        )
        .map_err(|outcome| CardResolutionError::Fetch {
            url: url.to_owned(),
            outcome,
        })
    }

    fn preferences(&self) -> Preferences {
        let mut p = Preferences::default();
        if let Some(v) = self.inner.config.protocol {
            p.versions = vec![v];
        }
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

/// When the card asks for credentials and the request carries none of them: the outcome to
/// return instead of sending an unauthenticated call. A `mutualTLS` scheme is satisfied by
/// the client certificate of the configuration (`has_client_cert`).
pub(crate) fn missing_credential(
    plan: &CredentialPlan,
    request: &HttpRequest,
    has_client_cert: bool,
) -> Option<Outcome> {
    if plan.alternatives.is_empty() || !plan.stated {
        return None;
    }
    let satisfied = plan.alternatives.iter().any(|alt| {
        alt.iter().all(|need| match need.credential.header_name() {
            Some(h) => request.header(h).is_some(),
            None if need.credential == card::Credential::ClientCertificate => has_client_cert,
            // Query and cookie credentials: not visible here; trust the caller.
            None => true,
        })
    });
    if satisfied {
        return None;
    }
    let wanted: Vec<String> = plan
        .alternatives
        .iter()
        .map(|alt| {
            alt.iter()
                .map(|n| {
                    format!(
                        "{} ({})",
                        n.scheme,
                        n.credential.header_name().unwrap_or("credential")
                    )
                })
                .collect::<Vec<_>>()
                .join(" + ")
        })
        .collect();
    let mut o = Outcome::transport(
        ErrorName::Unauthenticated,
        RequestSent::No,
        format!(
            "not sent: the agent card requires credentials ({}) and the request carries none; add a header or an interceptor (a client certificate: --cert FILE --key FILE)",
            wanted.join(" or ")
        ),
    );
    o.retry = RetryAdvice::Reauthenticate;
    Some(o)
}
