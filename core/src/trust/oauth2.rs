//! OAuth 2.0 client credentials (RFC 6749 §4.4), sans-IO: the token request to send, the
//! response read into a token or a typed error (§5.1, §5.2), and a tracker that says when to
//! fetch a token (early, before it expires) and lets only one fetch run at a time. The host
//! performs the HTTP exchange and passes its wall clock in.
//!
//! Secrets (the client secret, access tokens) are held in [`Secret`], whose `Debug` and
//! `Display` print `<redacted>`; a [`TokenRequest`]'s `Debug` hides its credentials too.

use std::fmt;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde_json::Value;

use crate::card::{Host, Url};

/// The largest token response read (bytes).
pub const MAX_RESPONSE_BYTES: usize = 64 * 1024;

/// A secret string: printed as `<redacted>`, read with [`Secret::expose`].
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    /// Wraps a secret.
    pub fn new(s: impl Into<String>) -> Secret {
        Secret(s.into())
    }

    /// The secret itself, for the one place it is sent.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("<redacted>")
    }
}

impl fmt::Display for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("<redacted>")
    }
}

/// How the client authenticates to the token endpoint (RFC 6749 §2.3.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ClientAuth {
    /// `Authorization: Basic` with the form-encoded id and secret (the method servers MUST
    /// support).
    #[default]
    Basic,
    /// `client_id` and `client_secret` in the form body.
    Post,
}

/// A client-credentials client.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientCredentials {
    token_url: Url,
    client_id: String,
    client_secret: Secret,
    scope: Option<String>,
    auth: ClientAuth,
}

/// Why a client could not be configured.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// The token URL does not parse.
    #[error("token URL {url:?}: {error}")]
    Url {
        /// The URL as given.
        url: String,
        /// What is wrong.
        error: crate::card::UrlError,
    },
    /// The token URL is not https (and http was not allowed), or carries userinfo.
    #[error("token URL {0:?} must be https without userinfo (credentials travel there)")]
    Insecure(String),
    /// An empty client id.
    #[error("empty client id")]
    EmptyClientId,
}

impl ClientCredentials {
    /// A client for `token_url` (https; http only with `allow_http`, for local testing).
    ///
    /// # Errors
    /// [`ConfigError`].
    pub fn new(
        token_url: &str,
        client_id: &str,
        client_secret: Secret,
        allow_http: bool,
    ) -> Result<ClientCredentials, ConfigError> {
        let url = Url::parse(token_url).map_err(|error| ConfigError::Url {
            url: token_url.to_owned(),
            error,
        })?;
        let scheme_ok = url.scheme() == "https" || (allow_http && url.scheme() == "http");
        if !scheme_ok || url.userinfo().is_some() {
            return Err(ConfigError::Insecure(token_url.to_owned()));
        }
        if client_id.is_empty() {
            return Err(ConfigError::EmptyClientId);
        }
        Ok(ClientCredentials {
            token_url: url,
            client_id: client_id.to_owned(),
            client_secret,
            scope: None,
            auth: ClientAuth::Basic,
        })
    }

    /// A client for `token_url` that must be https, except plain http to a loopback host
    /// (`127.0.0.0/8`, `::1`, a `localhost` name) when `allow_http_loopback` (tests and
    /// local development: credentials never leave the machine).
    ///
    /// # Errors
    /// [`ConfigError`]; plain http elsewhere is [`ConfigError::Insecure`].
    pub fn new_loopback_http(
        token_url: &str,
        client_id: &str,
        client_secret: Secret,
        allow_http_loopback: bool,
    ) -> Result<ClientCredentials, ConfigError> {
        let loopback = Url::parse(token_url).is_ok_and(|u| {
            matches!(
                u.host().class(),
                crate::card::AddressClass::Loopback | crate::card::AddressClass::LocalhostName
            )
        });
        ClientCredentials::new(
            token_url,
            client_id,
            client_secret,
            allow_http_loopback && loopback,
        )
    }

    /// Asks for `scope` (space-separated scope tokens).
    pub fn with_scope(mut self, scope: Option<String>) -> ClientCredentials {
        self.scope = scope.filter(|s| !s.is_empty());
        self
    }

    /// Authenticates with `auth` instead of HTTP Basic.
    pub fn with_auth(mut self, auth: ClientAuth) -> ClientCredentials {
        self.auth = auth;
        self
    }

    /// The token endpoint.
    pub fn token_url(&self) -> &Url {
        &self.token_url
    }

    /// The token request (RFC 6749 §4.4.2): `POST`, form body
    /// `grant_type=client_credentials[&scope=…]`, client authentication per [`ClientAuth`].
    pub fn request(&self) -> TokenRequest {
        let mut body = String::from("grant_type=client_credentials");
        if let Some(s) = &self.scope {
            body.push_str("&scope=");
            body.push_str(&form_encode(s));
        }
        let mut headers = vec![
            (
                "Content-Type".to_owned(),
                "application/x-www-form-urlencoded".to_owned(),
            ),
            ("Accept".to_owned(), "application/json".to_owned()),
        ];
        match self.auth {
            ClientAuth::Basic => {
                // §2.3.1: the id and secret are form-encoded before Basic's base64.
                let pair = format!(
                    "{}:{}",
                    form_encode(&self.client_id),
                    form_encode(self.client_secret.expose())
                );
                headers.push((
                    "Authorization".to_owned(),
                    format!("Basic {}", STANDARD.encode(pair)),
                ));
            }
            ClientAuth::Post => {
                body.push_str("&client_id=");
                body.push_str(&form_encode(&self.client_id));
                body.push_str("&client_secret=");
                body.push_str(&form_encode(self.client_secret.expose()));
            }
        }
        TokenRequest {
            url: self.token_url.to_string(),
            headers,
            body,
        }
    }
}

/// A request to perform: `POST url` with these headers and body.
#[derive(Clone, PartialEq, Eq)]
pub struct TokenRequest {
    /// The token endpoint.
    pub url: String,
    /// Headers, `Authorization` among them for Basic authentication.
    pub headers: Vec<(String, String)>,
    /// The form body (holds the secret for [`ClientAuth::Post`]).
    pub body: String,
}

impl fmt::Debug for TokenRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let headers: Vec<(&str, &str)> = self
            .headers
            .iter()
            .map(|(n, v)| {
                if n.eq_ignore_ascii_case("authorization") {
                    (n.as_str(), "<redacted>")
                } else {
                    (n.as_str(), v.as_str())
                }
            })
            .collect();
        f.debug_struct("TokenRequest")
            .field("url", &self.url)
            .field("headers", &headers)
            .field("body", &"<redacted>")
            .finish()
    }
}

/// `application/x-www-form-urlencoded` (RFC 6749 Appendix B): bytes other than ALPHA, DIGIT,
/// `-._*` are percent-encoded, space becomes `+`.
pub fn form_encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for &b in s.as_bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'*' => {
                out.push(char::from(b));
            }
            b' ' => out.push('+'),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// An access token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Token {
    /// The token (sent as `Authorization: Bearer`).
    pub access_token: Secret,
    /// Its lifetime in seconds, when the server says (`expires_in`).
    pub expires_in: Option<u64>,
    /// The scope granted, when the server says.
    pub scope: Option<String>,
}

/// The error codes of RFC 6749 §5.2.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorCode {
    /// `invalid_request`.
    InvalidRequest,
    /// `invalid_client`: wrong id or secret.
    InvalidClient,
    /// `invalid_grant`.
    InvalidGrant,
    /// `unauthorized_client`: this client may not use client credentials.
    UnauthorizedClient,
    /// `unsupported_grant_type`.
    UnsupportedGrantType,
    /// `invalid_scope`.
    InvalidScope,
    /// Another code (an extension).
    Other(String),
}

impl ErrorCode {
    fn parse(s: &str) -> ErrorCode {
        match s {
            "invalid_request" => ErrorCode::InvalidRequest,
            "invalid_client" => ErrorCode::InvalidClient,
            "invalid_grant" => ErrorCode::InvalidGrant,
            "unauthorized_client" => ErrorCode::UnauthorizedClient,
            "unsupported_grant_type" => ErrorCode::UnsupportedGrantType,
            "invalid_scope" => ErrorCode::InvalidScope,
            other => ErrorCode::Other(other.to_owned()),
        }
    }

    /// The code as the server wrote it.
    pub fn as_str(&self) -> &str {
        match self {
            ErrorCode::InvalidRequest => "invalid_request",
            ErrorCode::InvalidClient => "invalid_client",
            ErrorCode::InvalidGrant => "invalid_grant",
            ErrorCode::UnauthorizedClient => "unauthorized_client",
            ErrorCode::UnsupportedGrantType => "unsupported_grant_type",
            ErrorCode::InvalidScope => "invalid_scope",
            ErrorCode::Other(s) => s,
        }
    }
}

/// Why no token came back.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TokenError {
    /// The server refused with an RFC 6749 §5.2 error.
    #[error("token endpoint refused: {}{}", .code.as_str(), .description.as_deref().map(|d| format!(" ({d})")).unwrap_or_default())]
    Refused {
        /// The HTTP status.
        status: u16,
        /// `error`.
        code: ErrorCode,
        /// `error_description`.
        description: Option<String>,
    },
    /// A status other than 200 without an RFC 6749 error body.
    #[error("token endpoint answered HTTP {0}")]
    Status(u16),
    /// The body is not JSON, not an object, or larger than [`MAX_RESPONSE_BYTES`].
    #[error("token response is not a JSON object of at most {MAX_RESPONSE_BYTES} bytes")]
    Body,
    /// No `access_token` string.
    #[error("token response has no access_token")]
    NoAccessToken,
    /// `token_type` is not `Bearer` (case-insensitive, §7.1).
    #[error("token type {0:?} is not Bearer")]
    TokenType(String),
    /// `expires_in` is not a non-negative integer.
    #[error("expires_in is not a non-negative integer")]
    ExpiresIn,
}

impl TokenError {
    /// A stable snake_case name for the error kind.
    pub fn kind(&self) -> &'static str {
        match self {
            TokenError::Refused { .. } => "refused",
            TokenError::Status(_) => "status",
            TokenError::Body => "body",
            TokenError::NoAccessToken => "no_access_token",
            TokenError::TokenType(_) => "token_type",
            TokenError::ExpiresIn => "expires_in",
        }
    }
}

/// Reads the token endpoint's answer (§5.1 on 200, §5.2 otherwise).
///
/// # Errors
/// [`TokenError`].
pub fn parse_response(status: u16, body: &[u8]) -> Result<Token, TokenError> {
    if body.len() > MAX_RESPONSE_BYTES {
        return Err(TokenError::Body);
    }
    let v: Option<Value> = serde_json::from_slice(body).ok();
    let o = v.as_ref().and_then(Value::as_object);
    if status != 200 {
        return match o.and_then(|o| o.get("error")).and_then(Value::as_str) {
            Some(code) => Err(TokenError::Refused {
                status,
                code: ErrorCode::parse(code),
                description: o
                    .and_then(|o| o.get("error_description"))
                    .and_then(Value::as_str)
                    .map(str::to_owned),
            }),
            None => Err(TokenError::Status(status)),
        };
    }
    let o = o.ok_or(TokenError::Body)?;
    let access = o
        .get("access_token")
        .and_then(Value::as_str)
        .filter(|t| !t.is_empty())
        .ok_or(TokenError::NoAccessToken)?;
    match o.get("token_type").and_then(Value::as_str) {
        Some(t) if t.eq_ignore_ascii_case("bearer") => {}
        Some(t) => return Err(TokenError::TokenType(t.to_owned())),
        None => return Err(TokenError::TokenType(String::new())),
    }
    let expires_in = match o.get("expires_in") {
        None | Some(Value::Null) => None,
        // Some servers send the number as a string.
        Some(Value::String(s)) => Some(s.parse::<u64>().map_err(|_| TokenError::ExpiresIn)?),
        Some(v) => Some(v.as_u64().ok_or(TokenError::ExpiresIn)?),
    };
    Ok(Token {
        access_token: Secret::new(access),
        expires_in,
        scope: o.get("scope").and_then(Value::as_str).map(str::to_owned),
    })
}

/// What the host should do before a call that needs a token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TokenStep<'a> {
    /// Use this token.
    Use(&'a Secret),
    /// Fetch a token now (perform [`ClientCredentials::request`], then call
    /// [`TokenTracker::fetched`] or [`TokenTracker::failed`]); this caller owns the fetch.
    Fetch,
    /// Another caller's fetch is in flight and there is no usable token: wait for it.
    Wait,
}

/// Tracks one token: fresh until `expires_in` minus the early-refresh margin, refreshed by
/// one fetch at a time (single flight). Times are the caller's wall clock in milliseconds.
#[derive(Debug, Clone)]
pub struct TokenTracker {
    token: Option<(Secret, Option<u64>)>,
    refresh_early_ms: u64,
    in_flight: bool,
}

impl TokenTracker {
    /// A tracker refreshing `refresh_early_ms` before expiry (30 s is usual).
    pub fn new(refresh_early_ms: u64) -> TokenTracker {
        TokenTracker {
            token: None,
            refresh_early_ms,
            in_flight: false,
        }
    }

    /// What to do at `now_ms`. A token inside its early-refresh margin is still used by
    /// everyone while one caller fetches the next one; an expired token is never handed out.
    pub fn step(&mut self, now_ms: u64) -> TokenStep<'_> {
        let (usable, stale) = match &self.token {
            None => (false, true),
            Some((_, None)) => (true, false),
            Some((_, Some(exp))) => (
                now_ms < *exp,
                now_ms.saturating_add(self.refresh_early_ms) >= *exp,
            ),
        };
        if stale && !self.in_flight {
            self.in_flight = true;
            return TokenStep::Fetch;
        }
        match (&self.token, usable) {
            (Some((t, _)), true) => TokenStep::Use(t),
            _ => TokenStep::Wait,
        }
    }

    /// The fetch returned a token at `now_ms`.
    pub fn fetched(&mut self, token: Token, now_ms: u64) {
        let exp = token
            .expires_in
            .map(|s| now_ms.saturating_add(s.saturating_mul(1000)));
        self.token = Some((token.access_token, exp));
        self.in_flight = false;
    }

    /// The fetch failed: the next [`TokenTracker::step`] may fetch again.
    pub fn failed(&mut self) {
        self.in_flight = false;
    }

    /// Forgets the token (the interface answered 401 with it).
    pub fn invalidate(&mut self) {
        self.token = None;
    }
}

/// Whether a request to `url` may carry the token: only to the interface host the card
/// resolution validated (scheme, host and port equal), never elsewhere.
pub fn may_send_token(url: &str, validated_interface: &Url) -> bool {
    let Ok(u) = Url::parse(url) else {
        return false;
    };
    let same_host = match (u.host(), validated_interface.host()) {
        (Host::Domain(a), Host::Domain(b)) => a.eq_ignore_ascii_case(b),
        (a, b) => a == b,
    };
    u.scheme() == validated_interface.scheme()
        && same_host
        && u.port_or_default() == validated_interface.port_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn client(auth: ClientAuth) -> ClientCredentials {
        ClientCredentials::new(
            "https://auth.example/token",
            "agent client",
            Secret::new("s3cr3t:&="),
            false,
        )
        .unwrap()
        .with_scope(Some("a2a.read a2a.write".into()))
        .with_auth(auth)
    }

    #[test]
    fn the_request_is_rfc_6749_4_4_2() {
        let r = client(ClientAuth::Basic).request();
        assert_eq!(r.url, "https://auth.example/token");
        assert_eq!(
            r.body,
            "grant_type=client_credentials&scope=a2a.read+a2a.write"
        );
        let auth = &r
            .headers
            .iter()
            .find(|(n, _)| n == "Authorization")
            .unwrap()
            .1;
        let decoded = STANDARD
            .decode(auth.strip_prefix("Basic ").unwrap())
            .unwrap();
        assert_eq!(decoded, b"agent+client:s3cr3t%3A%26%3D");
        let p = client(ClientAuth::Post).request();
        assert!(p.headers.iter().all(|(n, _)| n != "Authorization"));
        assert!(
            p.body
                .ends_with("&client_id=agent+client&client_secret=s3cr3t%3A%26%3D")
        );
        // Nothing secret in Debug output.
        for dbg in [
            format!("{r:?}"),
            format!("{p:?}"),
            format!("{:?}", client(ClientAuth::Post)),
        ] {
            assert!(
                !dbg.contains("s3cr3t") && !dbg.contains("czNjcjN0"),
                "{dbg}"
            );
        }
    }

    #[test]
    fn plain_http_only_to_loopback_and_only_when_allowed() {
        let new = |url: &str, allow: bool| {
            ClientCredentials::new_loopback_http(url, "id", Secret::new("s"), allow)
        };
        for url in [
            "http://127.0.0.1:8080/t",
            "http://[::1]/t",
            "http://localhost/t",
        ] {
            assert!(new(url, true).is_ok(), "{url}");
            assert!(
                matches!(new(url, false), Err(ConfigError::Insecure(_))),
                "{url}"
            );
        }
        for url in [
            "http://auth.example/t",
            "http://10.0.0.1/t",
            "http://user@127.0.0.1/t",
        ] {
            assert!(
                matches!(new(url, true), Err(ConfigError::Insecure(_))),
                "{url}"
            );
        }
        assert!(new("https://auth.example/t", false).is_ok());
        assert!(matches!(
            new("ftp://127.0.0.1/t", true),
            Err(ConfigError::Insecure(_))
        ));
        assert!(matches!(
            new("not a url", true),
            Err(ConfigError::Url { .. })
        ));
    }

    #[test]
    fn configuration_is_checked() {
        let s = || Secret::new("x");
        assert_eq!(
            ClientCredentials::new("http://auth.example/t", "c", s(), false).unwrap_err(),
            ConfigError::Insecure("http://auth.example/t".into())
        );
        assert!(ClientCredentials::new("http://127.0.0.1:9/t", "c", s(), true).is_ok());
        assert!(ClientCredentials::new("https://u:p@auth.example/t", "c", s(), false).is_err());
        assert_eq!(
            ClientCredentials::new("https://auth.example/t", "", s(), false).unwrap_err(),
            ConfigError::EmptyClientId
        );
    }

    #[test]
    fn responses_and_their_errors() {
        let t = parse_response(
            200,
            br#"{"access_token":"tok","token_type":"bearer","expires_in":3600,"scope":"a"}"#,
        )
        .unwrap();
        assert_eq!((t.access_token.expose(), t.expires_in), ("tok", Some(3600)));
        assert!(!format!("{t:?}").contains("tok\""));
        let t = parse_response(
            200,
            br#"{"access_token":"tok","token_type":"Bearer","expires_in":"60"}"#,
        )
        .unwrap();
        assert_eq!(t.expires_in, Some(60));
        let e = parse_response(
            401,
            br#"{"error":"invalid_client","error_description":"bad secret"}"#,
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "token endpoint refused: invalid_client (bad secret)"
        );
        assert!(matches!(
            e,
            TokenError::Refused {
                status: 401,
                code: ErrorCode::InvalidClient,
                ..
            }
        ));
        let e = parse_response(400, br#"{"error":"custom_thing"}"#).unwrap_err();
        assert!(
            matches!(e, TokenError::Refused { code: ErrorCode::Other(ref c), .. } if c == "custom_thing")
        );
        assert_eq!(
            parse_response(503, b"<html>").unwrap_err(),
            TokenError::Status(503)
        );
        assert_eq!(parse_response(200, b"[]").unwrap_err(), TokenError::Body);
        assert_eq!(
            parse_response(200, br#"{"token_type":"Bearer"}"#).unwrap_err(),
            TokenError::NoAccessToken
        );
        assert_eq!(
            parse_response(200, br#"{"access_token":"t","token_type":"mac"}"#)
                .unwrap_err()
                .kind(),
            "token_type"
        );
        assert_eq!(
            parse_response(
                200,
                br#"{"access_token":"t","token_type":"Bearer","expires_in":-1}"#
            )
            .unwrap_err(),
            TokenError::ExpiresIn
        );
    }

    #[test]
    fn the_tracker_refreshes_early_and_one_at_a_time() {
        let tok = |s: &str, exp: Option<u64>| Token {
            access_token: Secret::new(s),
            expires_in: exp,
            scope: None,
        };
        let mut t = TokenTracker::new(30_000);
        assert_eq!(t.step(0), TokenStep::Fetch);
        // A second caller while the first fetches and no token exists: waits.
        assert_eq!(t.step(1), TokenStep::Wait);
        t.fetched(tok("a", Some(100)), 1_000); // expires at 101_000
        assert!(matches!(t.step(50_000), TokenStep::Use(s) if s.expose() == "a"));
        // Inside the early margin: one caller fetches, the others keep using the old token.
        assert_eq!(t.step(71_000), TokenStep::Fetch);
        assert!(matches!(t.step(72_000), TokenStep::Use(s) if s.expose() == "a"));
        // Past expiry with the fetch still in flight: nobody gets the expired token.
        assert_eq!(t.step(101_000), TokenStep::Wait);
        t.failed();
        assert_eq!(t.step(101_500), TokenStep::Fetch);
        t.fetched(tok("b", None), 102_000);
        assert!(matches!(t.step(10_000_000), TokenStep::Use(s) if s.expose() == "b"));
        t.invalidate();
        assert_eq!(t.step(10_000_001), TokenStep::Fetch);
    }

    #[test]
    fn the_token_goes_only_to_the_validated_host() {
        let iface = Url::parse("https://agent.example/a2a/v1").unwrap();
        assert!(may_send_token("https://agent.example/a2a/v1", &iface));
        assert!(may_send_token("https://AGENT.example:443/other", &iface));
        assert!(!may_send_token("https://agent.example:8443/a2a/v1", &iface));
        assert!(!may_send_token("http://agent.example/a2a/v1", &iface));
        assert!(!may_send_token("https://evil.example/a2a/v1", &iface));
        assert!(!may_send_token(
            "https://agent.example.evil.example/",
            &iface
        ));
        assert!(!may_send_token("not a url", &iface));
    }
}
