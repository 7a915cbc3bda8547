//! `--oauth2-token-url URL --client-id ID --client-secret-file FILE [--scope S]`: the network
//! commands fetch an OAuth 2.0 client-credentials token (the core's `trust::oauth2`) before
//! the call, send it as `Authorization: Bearer` only to the interface the card resolution
//! validated, and refresh it through the same request hook when it nears expiry. The secret
//! (from the file, or `A2A_CLIENT_SECRET`) and the token are never printed.
//!
//! Without `--oauth2-token-url`, `--client-id` takes the token URL from the card: the
//! `tokenUrl` of the first OAuth 2.0 scheme with a `clientCredentials` flow (https; plain
//! http only to a loopback host with `--allow-http`), and, without `--scope`, the scopes the
//! card's security requirements name for that scheme.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use a2a_core::card::Url;
use a2a_core::driver::{Client, HttpRequest, RequestContext};
use a2a_core::trust::oauth2::{
    ClientCredentials, Secret, TokenStep, TokenTracker, may_send_token, parse_response,
};

use crate::args::Args;

/// Refresh this long before the token expires.
const REFRESH_EARLY_MS: u64 = 30_000;

/// The OAuth2 client of the command line: its token URL given, or to be read from the card.
#[derive(Clone)]
pub enum OAuth2 {
    /// `--oauth2-token-url` given.
    Configured(ClientCredentials),
    /// `--client-id` without `--oauth2-token-url`: the card's client-credentials flow.
    FromCard {
        /// The client id.
        id: String,
        /// The client secret.
        secret: Secret,
        /// `--scope`, when given.
        scope: Option<String>,
        /// `--allow-http` (then plain http to a loopback token URL is accepted).
        allow_http: bool,
    },
}

/// Reads the OAuth2 flags; `Ok(None)` when neither `--oauth2-token-url` nor `--client-id`
/// is given.
pub fn flags(args: &mut Args, allow_http: bool) -> Result<Option<OAuth2>, String> {
    let url = args.value("--oauth2-token-url")?;
    let id = args.value("--client-id")?;
    let file = args.value("--client-secret-file")?;
    let scope = args.value("--scope")?;
    let Some(id) = id else {
        if url.is_some() {
            return Err("--oauth2-token-url needs --client-id ID".into());
        }
        if file.is_some() || scope.is_some() {
            return Err("--client-secret-file and --scope go with --client-id".into());
        }
        return Ok(None);
    };
    let secret = match file {
        Some(f) => {
            let text = std::fs::read_to_string(&f)
                .map_err(|e| format!("--client-secret-file {f}: {e}"))?;
            text.trim_end_matches(['\r', '\n']).to_owned()
        }
        None => std::env::var("A2A_CLIENT_SECRET").map_err(|_| {
            "--oauth2-token-url needs --client-secret-file FILE or A2A_CLIENT_SECRET".to_owned()
        })?,
    };
    if secret.is_empty() {
        return Err("the client secret is empty".into());
    }
    let Some(url) = url else {
        return Ok(Some(OAuth2::FromCard {
            id,
            secret: Secret::new(secret),
            scope,
            allow_http,
        }));
    };
    let creds = ClientCredentials::new(&url, &id, Secret::new(secret), allow_http)
        .map_err(|e| format!("--oauth2-token-url: {e}"))?;
    Ok(Some(OAuth2::Configured(creds.with_scope(scope))))
}

/// The client credentials of the card's first `clientCredentials` flow: its `tokenUrl`
/// (https; plain http only to a loopback host, and only with `allow_http`) and, without
/// `scope`, the scopes the card's requirements name for that scheme (space-separated).
fn from_card(
    target: &a2a_core::driver::Target,
    id: &str,
    secret: Secret,
    scope: Option<String>,
    allow_http: bool,
) -> Result<ClientCredentials, String> {
    let card = target
        .card_json
        .as_deref()
        .ok_or("no card to read the token URL from (--no-card): give --oauth2-token-url URL")?;
    let flows = a2a_core::card::client_credentials_token_urls(card.as_bytes());
    let (scheme, url) = flows.into_iter().next().ok_or(
        "the card declares no OAuth2 client-credentials flow: give --oauth2-token-url URL",
    )?;
    let parsed = Url::parse(&url).map_err(|e| format!("the card's tokenUrl: {e}"))?;
    let loopback = parsed.host().class() == a2a_core::card::AddressClass::Loopback;
    let http_ok = allow_http && loopback;
    if parsed.scheme() != "https" && !(http_ok && parsed.scheme() == "http") {
        return Err(format!(
            "the card's tokenUrl {url:?} is not https (plain http only to a loopback host \
             with --allow-http): refused, the secret is not sent"
        ));
    }
    let scope = scope.or_else(|| {
        let wanted: Vec<String> = target
            .credentials
            .iter()
            .flat_map(|p| p.alternatives.iter().flatten())
            .filter(|n| n.scheme == scheme)
            .flat_map(|n| n.scopes.iter().cloned())
            .fold(Vec::new(), |mut v, s| {
                if !v.contains(&s) {
                    v.push(s);
                }
                v
            });
        (!wanted.is_empty()).then(|| wanted.join(" "))
    });
    let creds = ClientCredentials::new(&url, id, secret, http_ok)
        .map_err(|e| format!("the card's tokenUrl: {e}"))?;
    Ok(creds.with_scope(scope))
}

fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

struct Flow {
    creds: ClientCredentials,
    tracker: TokenTracker,
    http: Client,
    timeout: Duration,
}

impl Flow {
    /// The token to send now, fetching one when the tracker says so.
    fn token(&mut self) -> Result<Option<String>, String> {
        if self.tracker.step(now_ms()) == TokenStep::Fetch {
            let r = self.creds.request();
            let req = HttpRequest {
                method: "POST".into(),
                url: r.url,
                headers: r.headers,
                body: r.body.into_bytes(),
            };
            let fetched = self
                .http
                .exchange(&req, Some(self.timeout))
                .map_err(|o| {
                    format!(
                        "token endpoint unreachable: {}",
                        o.message.as_deref().unwrap_or("transport failure")
                    )
                })
                .and_then(|resp| {
                    parse_response(resp.status, &resp.body).map_err(|e| e.to_string())
                });
            match fetched {
                Ok(t) => self.tracker.fetched(t, now_ms()),
                Err(e) => {
                    self.tracker.failed();
                    return Err(e);
                }
            }
        }
        Ok(match self.tracker.step(now_ms()) {
            TokenStep::Use(s) => Some(s.expose().to_owned()),
            TokenStep::Fetch => {
                self.tracker.failed();
                None
            }
            TokenStep::Wait => None,
        })
    }
}

/// Fetches the first token (an error stops the command before anything is sent to the
/// agent) and registers the hook that sends and refreshes it.
pub fn install(client: &Client, oauth2: OAuth2) -> Result<(), String> {
    let target = client
        .target()
        .map_err(|o| o.message.unwrap_or_else(|| "no target".into()))?;
    let creds = match oauth2 {
        OAuth2::Configured(c) => c,
        OAuth2::FromCard {
            id,
            secret,
            scope,
            allow_http,
        } => from_card(&target, &id, secret, scope, allow_http)?,
    };
    let iface = Url::parse(&target.url).map_err(|e| format!("interface URL: {e}"))?;
    let config = client.config().clone();
    let timeout = config.call_timeout;
    let mut flow = Flow {
        creds,
        tracker: TokenTracker::new(REFRESH_EARLY_MS),
        http: Client::raw(config),
        timeout,
    };
    flow.token()
        .map_err(|e| format!("OAuth2 token: {e}"))?
        .ok_or("OAuth2 token: none issued")?;
    let flow = Arc::new(Mutex::new(flow));
    client.add_interceptor(move |_: &RequestContext<'_>, req: &mut HttpRequest| {
        if !may_send_token(&req.url, &iface) {
            return;
        }
        // The lock makes the refresh single-flight: other calls wait for the one fetching.
        let mut f = flow.lock().unwrap_or_else(|e| e.into_inner());
        match f.token() {
            Ok(Some(t)) => req.set_header("Authorization", &format!("Bearer {t}")),
            // No token: the call goes without one and the agent's refusal is reported.
            Ok(None) => {}
            Err(e) => eprintln!("a2a: OAuth2 token refresh failed: {e}"),
        }
    });
    Ok(())
}
