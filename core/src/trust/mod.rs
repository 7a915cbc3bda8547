//! Trust: signed agent cards and verified push notifications, and the keys, tokens and
//! canonical form they rest on. No I/O: the caller fetches key sets and cards and hands in
//! the bytes, the wall clock and the random source signing needs.
//!
//! - [`canonical`]: RFC 8785 (JCS) canonical JSON over strictly read I-JSON.
//! - [`card_form`]: the card as signed (A2A 1.0 §8.4.1: `signatures` excluded, defaults
//!   removed by the proto's field presence rules).
//! - [`jwks`]: public keys from JWK Sets and PEM.
//! - [`jws`]: JWS headers, verification and signing (ES256/384, RS/PS256–512, EdDSA).
//! - [`card_sig`]: verifying and signing a card with the above.
//! - [`jwt`]: JSON Web Tokens: signature and registered claims.
//! - [`push`]: the receiving end of push notifications: token, JWT and claims, task id,
//!   replay window; one typed verdict.
//! - [`webhook`]: the sending end: webhook URLs and their resolved addresses checked
//!   against internal targets.
//! - [`oauth2`]: OAuth 2.0 client credentials: token request, response, expiry tracking
//!   with early, single-flight refresh; secrets never printed.
//!
//! ```
//! use a2a_core::trust::{card_sig, jwks::JwkSet, card_form, canonical::Json};
//! let card = br#"{"name":"Example Agent","description":"","capabilities":
//!     {"streaming":false,"pushNotifications":false,"extensions":[]},"skills":[]}"#;
//! let payload = card_form::card_payload(&Json::parse(card)?);
//! assert_eq!(payload, br#"{"capabilities":{"pushNotifications":false,"streaming":false},"description":"","name":"Example Agent","skills":[]}"#);
//! // An unsigned card does not verify, whatever the keys.
//! let keys = card_sig::KeyStore::new();
//! assert_eq!(card_sig::verify_card(card, &keys).unwrap_err().kind(), "unsigned");
//! # Ok::<(), a2a_core::trust::canonical::CanonicalError>(())
//! ```

pub mod canonical;
pub mod card_form;
pub mod card_sig;
mod der;
pub mod jwks;
pub mod jws;
pub mod jwt;
pub mod oauth2;
pub mod push;
pub mod webhook;

/// The system's random source, which signing takes as an argument (ECDSA nonces, RSA
/// blinding); verification needs none.
pub use ring::rand::SystemRandom;

#[cfg(test)]
mod push_tests;
#[cfg(test)]
mod tests;
