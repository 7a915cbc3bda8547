//! Agent cards: where to fetch them, how to read both protocol versions' shapes, which
//! interface to use, whether it is safe to send credentials there, and which credential
//! the card asks for. No I/O: the caller fetches the bytes.
//!
//! Typical use:
//! 1. [`card_location`] turns a base URL or card URL into the URL(s) to fetch;
//! 2. [`AgentCard::parse`] reads the body;
//! 3. [`AgentCard::resolve`] selects an interface ([`AgentCard::select`]) and validates
//!    its URL against the URL the card came from ([`validate_interface_url`]);
//! 4. [`AgentCard::credentials`] says what to present.
//!
//! ```
//! use a2a_core::card::{AgentCard, Policy, Preferences};
//! use a2a_core::version::{Binding, ProtocolVersion};
//! let card = AgentCard::parse(br#"{"name":"Echo","supportedInterfaces":[
//!     {"url":"https://agent.example.com/a2a/v1","protocolBinding":"JSONRPC","protocolVersion":"1.0"}]}"#)?;
//! let r = card.resolve(
//!     "https://agent.example.com/.well-known/agent-card.json",
//!     &Preferences::default(),
//!     &Policy::default(),
//! )?;
//! assert_eq!((r.choice.version, r.choice.binding), (ProtocolVersion::V1_0, Binding::JsonRpc));
//! assert_eq!(r.url.path(), "/a2a/v1");
//! # Ok::<(), a2a_core::card::CardError>(())
//! ```

mod discovery;
mod fields;
mod parse;
mod security;
mod select;
mod validate;

pub use crate::url::addr::{AddressClass, classify_ip, classify_ipv4, classify_ipv6};
pub use crate::url::{Host, Url, UrlError};
pub use discovery::{CardLocation, LEGACY_WELL_KNOWN_PATH, WELL_KNOWN_PATH, card_location};
pub use parse::{AgentCard, AgentInterface, Capabilities, CardShape, InterfaceOrigin};
pub use security::{
    ApiKeyLocation, BearerSource, Credential, CredentialNeed, CredentialPlan, SecurityRequirement,
    SecurityScheme, client_credentials_token_urls,
};
pub use select::{Choice, Preferences, SelectionOrder, SkipReason, Skipped};
pub use validate::{Policy, ValidatedUrl, validate_interface_url};

/// Why a card could not be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CardError {
    /// The body is not JSON (serde_json's message, with line and column).
    #[error("agent card is not valid JSON: {0}")]
    Json(String),
    /// The body is JSON but not an object.
    #[error("agent card is not a JSON object")]
    NotAnObject,
    /// A field the client relies on has the wrong type.
    #[error("agent card field {field:?} must be {expected}")]
    InvalidField {
        /// The field name.
        field: &'static str,
        /// What was expected.
        expected: &'static str,
    },
    /// An entry of an interface list is malformed.
    #[error("agent card {list}[{index}]: {problem}")]
    InvalidInterface {
        /// `supportedInterfaces` or `additionalInterfaces`.
        list: &'static str,
        /// Position in the list.
        index: usize,
        /// What is wrong.
        problem: &'static str,
    },
    /// No interface matches the client's versions and bindings.
    #[error("no usable interface: the client speaks {wanted}; the card offers {offered}")]
    NoUsableInterface {
        /// What the client asked for.
        wanted: String,
        /// What the card offers.
        offered: String,
    },
    /// A URL does not parse.
    #[error("invalid URL {url:?}: {error}")]
    InvalidUrl {
        /// The URL as written.
        url: String,
        /// What is wrong.
        error: UrlError,
    },
    /// A URL carries `user@` before the host, which hides the real host from a reader.
    #[error("URL {url:?} carries userinfo ('user@'): refused, the real host is after the '@'")]
    UserinfoInUrl {
        /// The URL as written.
        url: String,
    },
    /// Plain `http://` while the policy does not allow it.
    #[error("plain http refused for {url:?} (allow it explicitly for local development)")]
    PlainHttp {
        /// The URL as written.
        url: String,
    },
    /// A scheme other than http or https.
    #[error("unsupported URL scheme in {url:?}: only https (and http when allowed)")]
    UnsupportedScheme {
        /// The URL as written.
        url: String,
    },
    /// The interface points at a local or private address while the card came from a
    /// public host.
    #[error(
        "card URL drift: the card from {card} points its interface at {interface} ({class} address); credentials would leave the card's host"
    )]
    CardUrlDrift {
        /// The interface origin.
        interface: String,
        /// What kind of address it is.
        class: AddressClass,
        /// The origin the card was fetched from.
        card: String,
    },
    /// The interface origin differs from the card's and is not allowed.
    #[error(
        "host mismatch: the interface {interface} is not the card's origin {card} and not in the allow-list"
    )]
    HostMismatch {
        /// The interface origin.
        interface: String,
        /// The origin the card was fetched from.
        card: String,
    },
}

impl CardError {
    /// A stable snake_case name for the error kind (fixtures, logs, the C ABI).
    pub fn kind(&self) -> &'static str {
        match self {
            CardError::Json(_) => "json",
            CardError::NotAnObject => "not_an_object",
            CardError::InvalidField { .. } => "invalid_field",
            CardError::InvalidInterface { .. } => "invalid_interface",
            CardError::NoUsableInterface { .. } => "no_usable_interface",
            CardError::InvalidUrl { .. } => "invalid_url",
            CardError::UserinfoInUrl { .. } => "userinfo_in_url",
            CardError::PlainHttp { .. } => "plain_http",
            CardError::UnsupportedScheme { .. } => "unsupported_scheme",
            CardError::CardUrlDrift { .. } => "card_url_drift",
            CardError::HostMismatch { .. } => "host_mismatch",
        }
    }
}

/// The outcome of [`AgentCard::resolve`]: the chosen interface, its validated URL, and the
/// credentials the card asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolved {
    /// Which interface, and why.
    pub choice: Choice,
    /// Its URL, parsed and validated.
    pub url: Url,
    /// True when the URL has the card's origin, false when the allow-list admitted it.
    pub same_origin: bool,
    /// What to present.
    pub credentials: CredentialPlan,
}

impl AgentCard {
    /// Selects an interface for `prefs` and validates its URL against `card_url` (the URL
    /// the card was fetched from, after any redirect) under `policy`.
    ///
    /// A chosen interface that fails validation is an error, not a reason to fall back to
    /// a less preferred one: a card pointing elsewhere is a misconfiguration or an attack
    /// that must be seen.
    ///
    /// # Errors
    /// Any error of [`AgentCard::select`] or [`validate_interface_url`].
    pub fn resolve(
        &self,
        card_url: &str,
        prefs: &Preferences,
        policy: &Policy,
    ) -> Result<Resolved, CardError> {
        let choice = self.select(prefs)?;
        let v = validate_interface_url(&choice.url, card_url, policy)?;
        Ok(Resolved {
            choice,
            url: v.url,
            same_origin: v.same_origin,
            credentials: self.credentials(),
        })
    }
}

#[cfg(test)]
mod tests;
