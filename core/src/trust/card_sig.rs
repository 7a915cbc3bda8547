//! Signed agent cards (A2A 1.0 §8.4): verify a card's signatures against the keys the caller
//! trusts, and sign a card.
//!
//! Verification (§8.4.3) takes the card's bytes and a [`KeyStore`]: keys from a JWK Set the
//! caller fetched (from the signature's `jku` or elsewhere) and keys it trusts outright
//! (PEM). A card passes when at least one signature verifies; otherwise every signature's
//! reason is reported. Which `jku` to fetch is the caller's decision: [`jku_allowed`] says
//! whether one is on the card's own host over https, the rule the driver applies.

use ring::rand::SecureRandom;
use serde_json::Value;

use super::canonical::{CanonicalError, Json};
use super::card_form::{SIGNATURES, card_payload};
use super::jwks::{Jwk, JwkError, JwkSet, PublicKey};
use super::jws::{self, Algorithm, JwsError, SigningKey, SigningKeyError};
use crate::card::{Host, Url};

/// The most signatures looked at on one card.
pub const MAX_SIGNATURES: usize = 16;

/// The keys a verifier trusts.
#[derive(Debug, Clone, Default)]
pub struct KeyStore {
    keys: Vec<Jwk>,
}

impl KeyStore {
    /// An empty store.
    pub fn new() -> KeyStore {
        KeyStore::default()
    }

    /// Adds every usable key of a JWK Set.
    pub fn add_set(&mut self, set: &JwkSet) -> &mut KeyStore {
        self.keys.extend(set.keys.iter().cloned());
        self
    }

    /// Adds one key. A key without `kid` is tried for every signature whose algorithm fits
    /// it (a trusted key from a PEM file usually has none).
    pub fn add(&mut self, key: Jwk) -> &mut KeyStore {
        self.keys.push(key);
        self
    }

    /// Adds a trusted public key with an optional `kid`.
    pub fn add_public_key(&mut self, key: PublicKey, kid: Option<&str>) -> &mut KeyStore {
        self.add(Jwk {
            kid: kid.map(str::to_owned),
            alg: None,
            key,
        })
    }

    /// The keys of one document, its form detected: PEM (one or more `PUBLIC KEY` blocks,
    /// keys without `kid`) when it holds `-----BEGIN`, else JSON: a JWK Set when it has a
    /// `keys` member, else one JWK. Keys a set cannot use are skipped as in
    /// [`JwkSet::parse`]; a document leaving no usable key at all is refused
    /// ([`JwkError::NoKeys`]).
    ///
    /// # Errors
    /// [`JwkError`].
    pub fn from_document(doc: &[u8]) -> Result<KeyStore, JwkError> {
        let mut store = KeyStore::new();
        if doc.windows(10).any(|w| w == b"-----BEGIN") {
            for key in PublicKey::all_from_pem(doc)? {
                store.add_public_key(key, None);
            }
        } else {
            let v: Value =
                serde_json::from_slice(doc).map_err(|e| JwkError::Json(e.to_string()))?;
            if v.get("keys").is_some() {
                store.add_set(&JwkSet::parse(doc)?);
            } else {
                store.add(Jwk::from_value(&v)?);
            }
        }
        if store.is_empty() {
            return Err(JwkError::NoKeys);
        }
        Ok(store)
    }

    /// Whether the store holds no key.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// The keys to try for a signature with `kid`: those with that `kid`, and those with none.
    /// A signature without `kid` is tried only against keys without one.
    pub(crate) fn candidates<'a>(
        &'a self,
        kid: Option<&'a str>,
    ) -> impl Iterator<Item = &'a Jwk> + 'a {
        self.keys
            .iter()
            .filter(move |k| k.kid.is_none() || (kid.is_some() && k.kid.as_deref() == kid))
    }
}

/// A signature that verified.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerifiedSignature {
    /// Its position in `signatures`.
    pub index: usize,
    /// Its algorithm.
    pub alg: Algorithm,
    /// Its `kid`.
    pub kid: Option<String>,
    /// Its protected `jku`.
    pub jku: Option<String>,
}

/// Why one signature did not verify.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SignatureRejection {
    /// The entry is not `{"protected": string, "signature": string, "header"?: object}`.
    #[error("malformed signature entry")]
    Malformed,
    /// The JWS itself is refused (header, algorithm, base64, …) or does not verify.
    #[error("{0}")]
    Jws(JwsError),
    /// No trusted key has the signature's `kid` (nor is there a key without a `kid` of the
    /// signature's type).
    #[error("no trusted key fits it (kid {})", .0.as_deref().map_or("none".to_owned(), |k| format!("{k:?}")))]
    UnknownKey(Option<String>),
}

impl SignatureRejection {
    /// A stable snake_case name for the rejection.
    pub fn kind(&self) -> &'static str {
        match self {
            SignatureRejection::Malformed => "malformed",
            SignatureRejection::Jws(e) => e.kind(),
            SignatureRejection::UnknownKey(_) => "unknown_key",
        }
    }
}

/// Why a card did not pass verification.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CardSignatureError {
    /// The card is not I-JSON.
    #[error("card: {0}")]
    Card(CanonicalError),
    /// The card is not an object, or `signatures` is not an array.
    #[error("card is not an object with a \"signatures\" array")]
    Shape,
    /// The card carries no signature.
    #[error("card is not signed (no \"signatures\")")]
    Unsigned,
    /// More signatures than [`MAX_SIGNATURES`].
    #[error("card carries {0} signatures, more than the {MAX_SIGNATURES} looked at")]
    TooManySignatures(usize),
    /// The verifier was given no key at all.
    #[error("no trusted key given")]
    NoKeys,
    /// No signature verified; each one's reason, by position.
    #[error("no signature verified: {}", list(.0))]
    NoValidSignature(Vec<(usize, SignatureRejection)>),
}

fn list(v: &[(usize, SignatureRejection)]) -> String {
    v.iter()
        .map(|(i, r)| format!("signatures[{i}]: {r}"))
        .collect::<Vec<_>>()
        .join("; ")
}

impl CardSignatureError {
    /// A stable snake_case name for the error kind.
    pub fn kind(&self) -> &'static str {
        match self {
            CardSignatureError::Card(_) => "card_json",
            CardSignatureError::Shape => "shape",
            CardSignatureError::Unsigned => "unsigned",
            CardSignatureError::TooManySignatures(_) => "too_many_signatures",
            CardSignatureError::NoKeys => "no_keys",
            CardSignatureError::NoValidSignature(_) => "no_valid_signature",
        }
    }
}

/// One entry of `signatures`.
struct Entry<'a> {
    protected: &'a str,
    signature: &'a str,
    header: Option<serde_json::Map<String, Value>>,
}

fn entry(v: &Json) -> Option<Entry<'_>> {
    let protected = v.get("protected")?.as_str()?;
    let signature = v.get("signature")?.as_str()?;
    let header = match v.get("header") {
        None | Some(Json::Null) => None,
        Some(h @ Json::Object(_)) => match serde_json::from_str::<Value>(&h.to_compact()) {
            Ok(Value::Object(m)) => Some(m),
            _ => return None,
        },
        Some(_) => return None,
    };
    Some(Entry {
        protected,
        signature,
        header,
    })
}

/// The `signatures` of a card, parsed; `Err` for a card that is not an object or whose
/// `signatures` is not an array.
fn signatures(card: &Json) -> Result<&[Json], CardSignatureError> {
    match card {
        Json::Object(_) => match card.get(SIGNATURES) {
            None | Some(Json::Null) => Ok(&[]),
            Some(Json::Array(a)) => Ok(a),
            Some(_) => Err(CardSignatureError::Shape),
        },
        _ => Err(CardSignatureError::Shape),
    }
}

/// The protected headers of a card's signatures (for choosing which `jku` to fetch); an
/// entry that cannot be read is left out.
///
/// # Errors
/// [`CardSignatureError::Card`] or [`CardSignatureError::Shape`].
pub fn signature_headers(card_bytes: &[u8]) -> Result<Vec<jws::Header>, CardSignatureError> {
    let card = Json::parse(card_bytes).map_err(CardSignatureError::Card)?;
    Ok(signatures(&card)?
        .iter()
        .take(MAX_SIGNATURES)
        .filter_map(entry)
        .filter_map(|e| jws::parse_header(e.protected, e.header.as_ref()).ok())
        .collect())
}

/// Verifies a card: at least one signature must verify with a key of `keys`.
///
/// # Errors
/// [`CardSignatureError`]; [`CardSignatureError::NoValidSignature`] lists each signature's
/// reason.
pub fn verify_card(
    card_bytes: &[u8],
    keys: &KeyStore,
) -> Result<VerifiedSignature, CardSignatureError> {
    let card = Json::parse(card_bytes).map_err(CardSignatureError::Card)?;
    let sigs = signatures(&card)?;
    if sigs.is_empty() {
        return Err(CardSignatureError::Unsigned);
    }
    if sigs.len() > MAX_SIGNATURES {
        return Err(CardSignatureError::TooManySignatures(sigs.len()));
    }
    if keys.is_empty() {
        return Err(CardSignatureError::NoKeys);
    }
    let payload_b64 = jws::encode(&card_payload(&card));
    let mut rejections = Vec::new();
    for (index, v) in sigs.iter().enumerate() {
        match verify_one(v, &payload_b64, keys) {
            Ok(header) => {
                return Ok(VerifiedSignature {
                    index,
                    alg: header.alg,
                    kid: header.kid,
                    jku: header.jku,
                });
            }
            Err(r) => rejections.push((index, r)),
        }
    }
    Err(CardSignatureError::NoValidSignature(rejections))
}

fn verify_one(
    v: &Json,
    payload_b64: &str,
    keys: &KeyStore,
) -> Result<jws::Header, SignatureRejection> {
    let e = entry(v).ok_or(SignatureRejection::Malformed)?;
    let header =
        jws::parse_header(e.protected, e.header.as_ref()).map_err(SignatureRejection::Jws)?;
    let mut last = None;
    let kid = header.kid.clone();
    for key in keys.candidates(kid.as_deref()) {
        // A key without `kid` of another type is not this signature's key: skip it quietly.
        if key.kid.is_none() && !header.alg.fits(&key.key) {
            continue;
        }
        match jws::verify(&header, e.protected, payload_b64, e.signature, key) {
            Ok(()) => return Ok(header),
            Err(err) => last = Some(err),
        }
    }
    Err(match last {
        Some(err) => SignatureRejection::Jws(err),
        None => SignatureRejection::UnknownKey(header.kid),
    })
}

/// `kid` and `alg` of a signature entry as its headers name them (protected first, then
/// the unprotected `header`), read leniently: for reports, not for trust.
fn entry_names(v: &Json) -> (Option<String>, Option<String>) {
    let mut kid = None;
    let mut alg = None;
    let protected = v
        .get("protected")
        .and_then(Json::as_str)
        .and_then(|p| jws::decode("protected", p).ok())
        .and_then(|b| serde_json::from_slice::<Value>(&b).ok());
    let header = match v.get("header") {
        Some(h @ Json::Object(_)) => serde_json::from_str::<Value>(&h.to_compact()).ok(),
        _ => None,
    };
    for h in [protected, header].into_iter().flatten() {
        let text = |name: &str| h.get(name).and_then(Value::as_str).map(str::to_owned);
        kid = kid.or_else(|| text("kid"));
        alg = alg.or_else(|| text("alg"));
    }
    (kid, alg)
}

/// The outcome of [`verify_card`] on `card_bytes` as one JSON report (what the C ABI and the
/// bindings hand out):
/// - verified: `{"verified":true,"kid":..,"alg":"ES256","jku":..|null}`;
/// - refused: `{"verified":false,"reason":"<kind>","detail":"<text>","signatures":[..]}`,
///   `signatures` holding, for [`CardSignatureError::NoValidSignature`], one
///   `{"index":i,"kid":..,"alg":..,"rejected":"<kind>","detail":"<text>"}` per signature
///   (empty for the other errors).
pub fn verification_report(
    card_bytes: &[u8],
    result: &Result<VerifiedSignature, CardSignatureError>,
) -> Value {
    match result {
        Ok(v) => serde_json::json!({
            "verified": true, "kid": v.kid, "alg": v.alg.as_str(), "jku": v.jku,
        }),
        Err(e) => {
            let mut list = Vec::new();
            if let CardSignatureError::NoValidSignature(rejections) = e {
                let card = Json::parse(card_bytes).ok();
                let sigs = card
                    .as_ref()
                    .and_then(|c| signatures(c).ok())
                    .unwrap_or(&[]);
                for (index, why) in rejections {
                    let (kid, alg) = sigs.get(*index).map(entry_names).unwrap_or_default();
                    list.push(serde_json::json!({
                        "index": index, "kid": kid, "alg": alg,
                        "rejected": why.kind(), "detail": why.to_string(),
                    }));
                }
            }
            serde_json::json!({
                "verified": false, "reason": e.kind(), "detail": e.to_string(),
                "signatures": list,
            })
        }
    }
}

/// Why a card could not be signed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CardSignError {
    /// The card is not I-JSON.
    #[error("card: {0}")]
    Card(CanonicalError),
    /// The card is not an object, or its `signatures` is not an array.
    #[error("card is not an object (with, if any, a \"signatures\" array)")]
    Shape,
    /// The key failed to sign.
    #[error("{0}")]
    Key(SigningKeyError),
}

impl CardSignError {
    /// A stable snake_case name for the error kind.
    pub fn kind(&self) -> &'static str {
        match self {
            CardSignError::Card(_) => "card_json",
            CardSignError::Shape => "shape",
            CardSignError::Key(_) => "key",
        }
    }
}

/// Signs a card: adds one signature (protected header `alg`, `typ: JOSE`, `kid`, optional
/// `jku`) to its `signatures`, keeping any already there. Returns the card as compact JSON,
/// members in their original order.
///
/// # Errors
/// [`CardSignError`].
pub fn sign_card(
    card_bytes: &[u8],
    key: &SigningKey,
    kid: &str,
    jku: Option<&str>,
    rng: &dyn SecureRandom,
) -> Result<String, CardSignError> {
    let mut card = Json::parse(card_bytes).map_err(CardSignError::Card)?;
    signatures(&card).map_err(|_| CardSignError::Shape)?;
    let payload = card_payload(&card);
    let (protected, signature) =
        jws::sign_detached(key, "JOSE", kid, jku, &payload, rng).map_err(CardSignError::Key)?;
    let new = Json::Object(vec![
        ("protected".into(), Json::String(protected)),
        ("signature".into(), Json::String(signature)),
    ]);
    if let Json::Object(members) = &mut card {
        match members.iter_mut().find(|(k, _)| k == SIGNATURES) {
            Some((_, Json::Array(list))) => list.push(new),
            Some((_, slot)) => *slot = Json::Array(vec![new]),
            None => members.push((SIGNATURES.into(), Json::Array(vec![new]))),
        }
    }
    Ok(card.to_compact())
}

/// Whether a signature's `jku` may be fetched for a card fetched from `card_url`: https
/// only, and the card's own host unless `extra_hosts` names the `jku`'s host.
pub fn jku_allowed(jku: &str, card_url: &str, extra_hosts: &[&str]) -> Result<Url, String> {
    let u = Url::parse(jku).map_err(|e| format!("jku {jku:?}: {e}"))?;
    if u.scheme() != "https" {
        return Err(format!("jku {jku:?} is not https"));
    }
    if u.userinfo().is_some() {
        return Err(format!("jku {jku:?} carries userinfo"));
    }
    let card = Url::parse(card_url).map_err(|e| format!("card URL {card_url:?}: {e}"))?;
    let same = u.host() == card.host();
    let listed = extra_hosts.iter().any(|h| match u.host() {
        Host::Domain(d) => d.eq_ignore_ascii_case(h.trim_end_matches('.')),
        other => other.to_string() == *h,
    });
    if same || listed {
        Ok(u)
    } else {
        Err(format!(
            "jku {jku:?} is not on the card's host {} (allow its host explicitly)",
            card.host()
        ))
    }
}
