//! `--oauth2-token-url URL --client-id ID --client-secret-file FILE [--scope S]`: the network
//! commands fetch an OAuth 2.0 client-credentials token (the core's `trust::oauth2`) before
//! the call, send it as `Authorization: Bearer` only to the interface the card resolution
//! validated, and refresh it through the same request hook when it nears expiry. The secret
//! (from the file, or `A2A_CLIENT_SECRET`) and the token are never printed.

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

/// Reads the OAuth2 flags; `Ok(None)` when `--oauth2-token-url` is absent.
pub fn flags(args: &mut Args, allow_http: bool) -> Result<Option<ClientCredentials>, String> {
    let url = args.value("--oauth2-token-url")?;
    let id = args.value("--client-id")?;
    let file = args.value("--client-secret-file")?;
    let scope = args.value("--scope")?;
    let Some(url) = url else {
        if id.is_some() || file.is_some() || scope.is_some() {
            return Err(
                "--client-id, --client-secret-file and --scope go with --oauth2-token-url".into(),
            );
        }
        return Ok(None);
    };
    let id = id.ok_or("--oauth2-token-url needs --client-id ID")?;
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
    let creds = ClientCredentials::new(&url, &id, Secret::new(secret), allow_http)
        .map_err(|e| format!("--oauth2-token-url: {e}"))?;
    Ok(Some(creds.with_scope(scope)))
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
pub fn install(client: &Client, creds: ClientCredentials) -> Result<(), String> {
    let target = client
        .target()
        .map_err(|o| o.message.unwrap_or_else(|| "no target".into()))?;
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
