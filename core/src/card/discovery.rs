//! Where to fetch a card from.
//!
//! The card lives at `/.well-known/agent-card.json` (0.3 and 1.0) under the agent's base
//! URL; pre-0.3 agents served `/.well-known/agent.json`, which is the fallback. The base
//! path is kept (`https://h/agents/x` → `https://h/agents/x/.well-known/agent-card.json`):
//! resolving the well-known path against the base as an absolute path drops it, a bug seen
//! in several SDKs. A full card URL (one ending in `.json`) is used as given.

use super::CardError;
use crate::url::Url;

/// The card path defined by A2A 0.3 and 1.0.
pub const WELL_KNOWN_PATH: &str = "/.well-known/agent-card.json";
/// The pre-0.3 card path, tried when the first answers 404.
pub const LEGACY_WELL_KNOWN_PATH: &str = "/.well-known/agent.json";

/// The URLs to try, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CardLocation {
    /// Try this first.
    pub primary: String,
    /// Try this when the first answers 404, if any.
    pub fallback: Option<String>,
}

/// Builds the card URL(s) from a base URL (`https://h/a2a`) or a full card URL
/// (`https://h/a2a/.well-known/agent-card.json`, or any URL whose path ends in `.json`).
///
/// # Errors
/// [`CardError::InvalidUrl`] when `input` is not a valid absolute URL,
/// [`CardError::UserinfoInUrl`] when it carries `user@`, and
/// [`CardError::UnsupportedScheme`] for schemes other than http and https.
pub fn card_location(input: &str) -> Result<CardLocation, CardError> {
    let url = Url::parse(input).map_err(|error| CardError::InvalidUrl {
        url: input.to_owned(),
        error,
    })?;
    if url.userinfo().is_some() {
        return Err(CardError::UserinfoInUrl {
            url: input.to_owned(),
        });
    }
    if !matches!(url.scheme(), "http" | "https") {
        return Err(CardError::UnsupportedScheme {
            url: input.to_owned(),
        });
    }
    let prefix = format!("{}://{}", url.scheme(), url.authority());
    let query = url.query().map(|q| format!("?{q}")).unwrap_or_default();
    let path = url.path();
    let at = |p: &str| format!("{prefix}{p}{query}");
    if let Some(base) = path.strip_suffix(WELL_KNOWN_PATH) {
        return Ok(CardLocation {
            primary: at(path),
            fallback: Some(at(&format!("{base}{LEGACY_WELL_KNOWN_PATH}"))),
        });
    }
    if path.ends_with(".json") {
        return Ok(CardLocation {
            primary: at(path),
            fallback: None,
        });
    }
    let base = path.trim_end_matches('/');
    Ok(CardLocation {
        primary: at(&format!("{base}{WELL_KNOWN_PATH}")),
        fallback: Some(at(&format!("{base}{LEGACY_WELL_KNOWN_PATH}"))),
    })
}
