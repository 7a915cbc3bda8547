//! The extended card replacing the public one (spec §8.6.2, §13.3: a client "SHOULD
//! replace the public card with the extended card for an authenticated session").
//!
//! The machine does not do it on its own: a `GetExtendedAgentCard` call is a call like any
//! other, and the host feeds its [`CallResult`] to [`ClientState::adopt_extended_card`].
//! That reads the card from the response (the JSON-RPC `result`, or the HTTP+JSON body),
//! parses it and resolves it with the **same** rules, preferences and policy as the public
//! card, against the URL the public card was fetched from (so an extended card whose
//! interface drifts to another host is refused as the public one would be, with the same
//! [`CardError`]), and only then replaces the state's target: its interface, tenant,
//! credentials and capabilities. The agent name stays (the breaker and the tally keep
//! counting the same agent). A refused card changes nothing.
//!
//! A state knows where its card came from only when the host said so
//! ([`ClientState::set_card_origin`]; the reference driver and the C ABI's
//! `a2a_client_state_from_card` do); a state made for a bare interface refuses to adopt
//! ([`AdoptError::NoCardOrigin`]).
// The refusal carries the card error inside a `ResolveError`, as the card fetch does.
#![allow(clippy::result_large_err)]

use super::card::{CardOptions, ResolveError, ResolvedCard};
use super::{CallResult, ClientState, Target};
use crate::card::{AgentCard, CardError, Policy, Preferences};

/// Where a state's card came from: what an extended card is checked against.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct CardOrigin {
    /// The URL the public card was fetched from.
    card_url: String,
    /// The versions and bindings the client speaks.
    preferences: Preferences,
    /// Plain http and the extra origins an interface may point to.
    policy: Policy,
}

/// Why an extended card was not adopted (the state's target is unchanged).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum AdoptError {
    /// The result is not a successful `GetExtendedAgentCard` answer.
    #[error("not a successful GetExtendedAgentCard result (method {method}, channel {channel})")]
    NotExtendedCard {
        /// The method of the call given.
        method: String,
        /// The outcome's channel.
        channel: &'static str,
    },
    /// The state was made for a bare interface: no card origin to check the card against.
    #[error(
        "this client was not made from an agent card: no origin to check the extended card against"
    )]
    NoCardOrigin,
    /// The extended card is unusable: not a card, no usable interface, or an interface
    /// URL that fails validation against the public card's URL (another host, plain http).
    #[error("extended {0}")]
    Card(Box<ResolveError>),
}

impl AdoptError {
    /// A stable snake_case kind for logs and the C ABI: `not_extended_card`,
    /// `no_card_origin`, or the card error's kind (`host_mismatch`, `plain_http`, ...).
    pub fn kind(&self) -> &'static str {
        match self {
            AdoptError::NotExtendedCard { .. } => "not_extended_card",
            AdoptError::NoCardOrigin => "no_card_origin",
            AdoptError::Card(e) => e.kind(),
        }
    }
}

/// The card in an extended-card response: the JSON-RPC `result`, or the whole body.
fn card_bytes(body: &[u8]) -> Result<Vec<u8>, CardError> {
    let v: serde_json::Value =
        serde_json::from_slice(body).map_err(|e| CardError::Json(e.to_string()))?;
    match v {
        serde_json::Value::Object(mut o) if o.contains_key("jsonrpc") => {
            let result = o.remove("result").ok_or(CardError::NotAnObject)?;
            serde_json::to_vec(&result).map_err(|e| CardError::Json(e.to_string()))
        }
        _ => Ok(body.to_vec()),
    }
}

impl ClientState {
    /// Remembers that the target was resolved from the card at `card_url` with
    /// `options`' preferences and policy: [`ClientState::adopt_extended_card`] checks an
    /// extended card against them.
    pub fn set_card_origin(&mut self, card_url: &str, options: &CardOptions) {
        self.card_origin = Some(CardOrigin {
            card_url: card_url.to_owned(),
            preferences: options.preferences.clone(),
            policy: options.policy.clone(),
        });
    }

    /// The URL the target's card was fetched from (`None`: a state for a bare interface).
    pub fn card_url(&self) -> Option<&str> {
        self.card_origin.as_ref().map(|o| o.card_url.as_str())
    }

    /// A state for the target of a resolved card, remembering its origin (see
    /// [`ClientState::set_card_origin`]).
    ///
    /// # Errors
    /// The breaker configuration's [`crate::resilience::ConfigError`].
    pub fn from_card(
        resolved: &ResolvedCard,
        options: &CardOptions,
        config: super::ClientConfig,
        seed: u64,
    ) -> Result<Self, crate::resilience::ConfigError> {
        let mut s = ClientState::new(resolved.target.clone(), config, seed)?;
        s.set_card_origin(&resolved.card_url, options);
        Ok(s)
    }

    /// Replaces the public card with the extended card in `result` (a finished
    /// `GetExtendedAgentCard` call) for the rest of this state's life: later calls go to
    /// its interface with its credentials and capabilities. Returns the new target and the
    /// card's JSON. See the module docs of `client::extended`.
    ///
    /// # Errors
    /// [`AdoptError`]; the target is then unchanged.
    pub fn adopt_extended_card(
        &mut self,
        result: &CallResult,
    ) -> Result<(&Target, String), AdoptError> {
        match &result.response {
            Some(r)
                if result.correlation.method == "GetExtendedAgentCard"
                    && result.outcome.is_success() =>
            {
                self.adopt_extended_card_body(&r.body)
            }
            _ => Err(AdoptError::NotExtendedCard {
                method: result.correlation.method.clone(),
                channel: result.outcome.channel.as_str(),
            }),
        }
    }

    /// [`ClientState::adopt_extended_card`] for a host that checked the call itself: `body`
    /// is the body of a successful `GetExtendedAgentCard` response.
    ///
    /// # Errors
    /// [`AdoptError::NoCardOrigin`] or [`AdoptError::Card`]; the target is then unchanged.
    pub fn adopt_extended_card_body(
        &mut self,
        body: &[u8],
    ) -> Result<(&Target, String), AdoptError> {
        let origin = self.card_origin.as_ref().ok_or(AdoptError::NoCardOrigin)?;
        let refuse = |error| {
            AdoptError::Card(Box::new(ResolveError::Card {
                url: origin.card_url.clone(),
                error,
            }))
        };
        let bytes = card_bytes(body).map_err(refuse)?;
        let card = AgentCard::parse(&bytes).map_err(refuse)?;
        let resolved = card
            .resolve(&origin.card_url, &origin.preferences, &origin.policy)
            .map_err(refuse)?;
        self.target = Target {
            url: resolved.choice.url.clone(),
            version: resolved.choice.version,
            binding: resolved.choice.binding,
            tenant: resolved.choice.tenant.clone(),
            agent_name: self.target.agent_name.clone(),
            credentials: Some(resolved.credentials),
            capabilities: Some(card.capabilities()),
        };
        Ok((&self.target, String::from_utf8_lossy(&bytes).into_owned()))
    }
}
