//! Card signatures on the driver (feature `trust`): the JWK Set a signature's `jku` names,
//! fetched only over https and only from the card's own host unless the caller names
//! another ([`crate::trust::card_sig::jku_allowed`]), within the client's timeouts, with
//! no redirect followed, no interceptor run (no credentials) and at most
//! [`MAX_JWKS_BYTES`]; and [`Client::verified_card`], which verifies the client's card
//! with keys the caller trusts or, without them, with the keys its `jku`s name.

use std::time::Duration;

use super::Client;
use super::exchange::HttpRequest;
use crate::outcome::Outcome;
use crate::trust::card_sig::{
    self, CardSignatureError, KeyStore, MAX_SIGNATURES, VerifiedSignature,
};
use crate::trust::jwks::JwkSet;

/// The largest JWK Set fetched from a `jku`, in bytes (never more than the client's body
/// limit either).
pub const MAX_JWKS_BYTES: usize = 1024 * 1024;

/// Why a `jku` gave no keys.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum JkuError {
    /// The `jku` may not be fetched (not https, userinfo, another host than the card's and
    /// not allowed): nothing was requested.
    #[error("{0}")]
    Refused(String),
    /// The fetch failed in transport.
    #[error("jku {url}: {}", .outcome.message.as_deref().unwrap_or("transport failure"))]
    Fetch {
        /// The `jku`.
        url: String,
        /// The transport outcome.
        outcome: Box<Outcome>,
    },
    /// The server answered something other than 200 (a redirect is not followed).
    #[error("jku {url} answered HTTP {status}")]
    Status {
        /// The `jku`.
        url: String,
        /// The status.
        status: u16,
    },
    /// The body is larger than [`MAX_JWKS_BYTES`] or not a JWK Set.
    #[error("jku {url}: {why}")]
    Invalid {
        /// The `jku`.
        url: String,
        /// Why.
        why: String,
    },
}

impl JkuError {
    /// A stable snake_case kind: `jku_refused`, `jku_fetch`, `jku_status`, `jku_invalid`.
    pub fn kind(&self) -> &'static str {
        match self {
            JkuError::Refused(_) => "jku_refused",
            JkuError::Fetch { .. } => "jku_fetch",
            JkuError::Status { .. } => "jku_status",
            JkuError::Invalid { .. } => "jku_invalid",
        }
    }
}

/// Why [`Client::verified_card`] did not verify the card.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum VerifiedCardError {
    /// The client has no card (a bare target, or the card could not be resolved).
    #[error("no card to verify: {}", .0.message.as_deref().unwrap_or("no target"))]
    NoCard(Box<Outcome>),
    /// No trusted keys were given and no `jku` of the card's signatures gave any: each
    /// `jku`'s reason (empty: the signatures name no `jku`).
    #[error("no keys to verify with: {}", if .0.is_empty() { "no signature names a jku".to_owned() } else { .0.iter().map(ToString::to_string).collect::<Vec<_>>().join("; ") })]
    NoKeys(Vec<JkuError>),
    /// The card's signatures do not verify with the keys.
    #[error(transparent)]
    Signature(#[from] CardSignatureError),
}

impl VerifiedCardError {
    /// A stable snake_case kind: `no_card`, `no_keys` (or the first `jku` error's kind),
    /// or the signature error's.
    pub fn kind(&self) -> &'static str {
        match self {
            VerifiedCardError::NoCard(_) => "no_card",
            VerifiedCardError::NoKeys(v) => v.first().map_or("no_keys", JkuError::kind),
            VerifiedCardError::Signature(e) => e.kind(),
        }
    }
}

impl Client {
    /// The URL this client's card was fetched from (`None`: a bare target, or the card is
    /// not resolved yet).
    pub fn card_url(&self) -> Option<String> {
        self.with_state(|s| s.card_url().map(str::to_owned))
            .flatten()
    }

    /// Fetches the JWK Set `jku` names for a card fetched from `card_url`: https only, the
    /// card's host or one of `extra_hosts` (else refused, nothing sent), within the
    /// configured call and connect timeouts, no redirect followed, no interceptor run, at
    /// most [`MAX_JWKS_BYTES`].
    ///
    /// # Errors
    /// [`JkuError`].
    pub fn fetch_jwks(
        &self,
        jku: &str,
        card_url: &str,
        extra_hosts: &[&str],
    ) -> Result<JwkSet, JkuError> {
        let url = card_sig::jku_allowed(jku, card_url, extra_hosts).map_err(JkuError::Refused)?;
        let request = HttpRequest {
            method: "GET".into(),
            url: url.to_string(),
            headers: vec![(
                "Accept".into(),
                "application/jwk-set+json, application/json".into(),
            )],
            body: Vec::new(),
        };
        let timeout = self.inner.config.call_timeout.min(Duration::from_secs(30));
        let r = self
            .exchange(&request, Some(timeout))
            .map_err(|o| JkuError::Fetch {
                url: jku.to_owned(),
                outcome: Box::new(o),
            })?;
        if r.status != 200 {
            return Err(JkuError::Status {
                url: jku.to_owned(),
                status: r.status,
            });
        }
        let invalid = |why: String| JkuError::Invalid {
            url: jku.to_owned(),
            why,
        };
        if r.body.len() > MAX_JWKS_BYTES {
            return Err(invalid(format!(
                "larger than the {MAX_JWKS_BYTES}-byte limit"
            )));
        }
        JwkSet::parse(&r.body).map_err(|e| invalid(e.to_string()))
    }

    /// Verifies this client's card (A2A 1.0 §8.4): with `trusted` keys when given, else with
    /// the keys of the JWK Sets its signatures' protected `jku`s name, each fetched as
    /// [`Client::fetch_jwks`] does (the card's host, or one of `jku_hosts`).
    ///
    /// # Errors
    /// [`VerifiedCardError`].
    pub fn verified_card(
        &self,
        trusted: Option<&KeyStore>,
        jku_hosts: &[&str],
    ) -> Result<VerifiedSignature, VerifiedCardError> {
        let t = self
            .target()
            .map_err(|o| VerifiedCardError::NoCard(Box::new(o)))?;
        let (Some(card), Some(card_url)) = (t.card_json.as_deref(), self.card_url()) else {
            return Err(VerifiedCardError::NoCard(Box::new(Outcome::transport(
                crate::outcome::ErrorName::CardResolution,
                crate::outcome::RequestSent::No,
                "this client was made without a card",
            ))));
        };
        if let Some(keys) = trusted {
            return Ok(card_sig::verify_card(card.as_bytes(), keys)?);
        }
        let mut jkus: Vec<String> = Vec::new();
        for h in card_sig::signature_headers(card.as_bytes())? {
            if let Some(j) = h.jku
                && !jkus.contains(&j)
            {
                jkus.push(j);
            }
        }
        if jkus.is_empty() {
            // Unsigned, or no signature names a jku: the verifier says which.
            return Err(
                match card_sig::verify_card(card.as_bytes(), &KeyStore::new()) {
                    Err(CardSignatureError::NoKeys) | Ok(_) => {
                        VerifiedCardError::NoKeys(Vec::new())
                    }
                    Err(e) => e.into(),
                },
            );
        }
        let mut store = KeyStore::new();
        let mut errors = Vec::new();
        for jku in jkus.iter().take(MAX_SIGNATURES) {
            match self.fetch_jwks(jku, &card_url, jku_hosts) {
                Ok(set) => {
                    store.add_set(&set);
                }
                Err(e) => errors.push(e),
            }
        }
        if store.is_empty() {
            return Err(VerifiedCardError::NoKeys(errors));
        }
        Ok(card_sig::verify_card(card.as_bytes(), &store)?)
    }
}
