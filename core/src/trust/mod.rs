//! Trust: signed agent cards, and the keys and canonical form they rest on. No I/O: the
//! caller fetches key sets and cards and hands in the bytes, and hands in the random source
//! signing needs.
//!
//! - [`canonical`]: RFC 8785 (JCS) canonical JSON over strictly read I-JSON.
//! - [`card_form`]: the card as signed (A2A 1.0 §8.4.1: `signatures` excluded, defaults
//!   removed by the proto's field presence rules).
//! - [`jwks`]: public keys from JWK Sets and PEM.
//! - [`jws`]: JWS headers, verification and signing (ES256/384, RS/PS256–512, EdDSA).
//! - [`card_sig`]: verifying and signing a card with the above.
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

/// The system's random source, which signing takes as an argument (ECDSA nonces, RSA
/// blinding); verification needs none.
pub use ring::rand::SystemRandom;

#[cfg(test)]
mod tests;
