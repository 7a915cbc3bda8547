//! JSON Web Signatures (RFC 7515): the protected header, verification of a signature over a
//! payload (detached, as card signatures are, or inside a compact token), and signing.
//!
//! Only asymmetric algorithms are accepted: `none` and the HMAC algorithms are refused by
//! name, so that a key set or a token cannot talk a verifier into a check that anybody could
//! pass. A key is used only with the algorithm its type fits (and its JWK `alg`, when
//! given). Signing draws the randomness ECDSA and RSA need from the random source the caller
//! passes in.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use ring::rand::SecureRandom;
use ring::signature::{self as sig, KeyPair};
use serde_json::Value;

use super::jwks::{Jwk, PublicKey, rsa_public_key_der};

/// The largest protected header read (bytes, decoded).
pub const MAX_HEADER_BYTES: usize = 8 * 1024;

/// A signature algorithm (RFC 7518 §3.1, RFC 8037 §3.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Algorithm {
    /// ECDSA P-256 with SHA-256.
    Es256,
    /// ECDSA P-384 with SHA-384.
    Es384,
    /// RSASSA-PKCS1-v1_5 with SHA-256.
    Rs256,
    /// RSASSA-PKCS1-v1_5 with SHA-384.
    Rs384,
    /// RSASSA-PKCS1-v1_5 with SHA-512.
    Rs512,
    /// RSASSA-PSS with SHA-256.
    Ps256,
    /// RSASSA-PSS with SHA-384.
    Ps384,
    /// RSASSA-PSS with SHA-512.
    Ps512,
    /// Ed25519.
    EdDsa,
}

impl Algorithm {
    /// Every algorithm, in the order of [`Algorithm::as_str`]'s names.
    pub const ALL: [Algorithm; 9] = [
        Algorithm::Es256,
        Algorithm::Es384,
        Algorithm::Rs256,
        Algorithm::Rs384,
        Algorithm::Rs512,
        Algorithm::Ps256,
        Algorithm::Ps384,
        Algorithm::Ps512,
        Algorithm::EdDsa,
    ];

    /// The JOSE name (`"ES256"`, …, `"EdDSA"`).
    pub fn as_str(self) -> &'static str {
        match self {
            Algorithm::Es256 => "ES256",
            Algorithm::Es384 => "ES384",
            Algorithm::Rs256 => "RS256",
            Algorithm::Rs384 => "RS384",
            Algorithm::Rs512 => "RS512",
            Algorithm::Ps256 => "PS256",
            Algorithm::Ps384 => "PS384",
            Algorithm::Ps512 => "PS512",
            Algorithm::EdDsa => "EdDSA",
        }
    }

    /// Reads a JOSE name (case-sensitive, RFC 7515 §4.1.1).
    ///
    /// # Errors
    /// [`JwsError::AlgNone`], [`JwsError::AlgSymmetric`] or [`JwsError::AlgUnsupported`].
    pub fn parse(name: &str) -> Result<Algorithm, JwsError> {
        if let Some(a) = Algorithm::ALL.into_iter().find(|a| a.as_str() == name) {
            return Ok(a);
        }
        Err(match name {
            "none" => JwsError::AlgNone,
            "HS256" | "HS384" | "HS512" => JwsError::AlgSymmetric(name.to_owned()),
            _ => JwsError::AlgUnsupported(name.to_owned()),
        })
    }

    /// Whether `key` is of the type this algorithm verifies with.
    pub fn fits(self, key: &PublicKey) -> bool {
        matches!(
            (self, key),
            (Algorithm::Es256, PublicKey::P256(_))
                | (Algorithm::Es384, PublicKey::P384(_))
                | (
                    Algorithm::Rs256
                        | Algorithm::Rs384
                        | Algorithm::Rs512
                        | Algorithm::Ps256
                        | Algorithm::Ps384
                        | Algorithm::Ps512,
                    PublicKey::Rsa { .. }
                )
                | (Algorithm::EdDsa, PublicKey::Ed25519(_))
        )
    }
}

impl std::fmt::Display for Algorithm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why a signature was not accepted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum JwsError {
    /// A part is not unpadded base64url.
    #[error("{0} is not unpadded base64url")]
    Base64(&'static str),
    /// The protected header is not a JSON object, or too large.
    #[error("protected header is not a JSON object of at most {MAX_HEADER_BYTES} bytes")]
    Header,
    /// A header member has the wrong type.
    #[error("header member {0:?} has the wrong type")]
    HeaderMember(&'static str),
    /// No `alg`.
    #[error("header has no \"alg\"")]
    NoAlg,
    /// `alg` is `none`.
    #[error("\"alg\":\"none\" refused: an unsigned card or token proves nothing")]
    AlgNone,
    /// `alg` is an HMAC algorithm.
    #[error("\"alg\":{0:?} refused: a shared-secret MAC is not a publisher's signature")]
    AlgSymmetric(String),
    /// `alg` is not one this module verifies.
    #[error("unsupported \"alg\":{0:?}")]
    AlgUnsupported(String),
    /// `crit` names extensions this verifier does not understand (RFC 7515 §4.1.11).
    #[error("header lists critical extensions this verifier does not understand: {0}")]
    Critical(String),
    /// A member is in both the protected and the unprotected header (RFC 7515 §7.2.1).
    #[error("header member {0:?} is both protected and unprotected")]
    DuplicateHeader(String),
    /// The key's type does not fit the algorithm, or its JWK `alg` names another one.
    #[error("algorithm {alg} does not fit the key ({key})")]
    AlgKeyMismatch {
        /// The header's algorithm.
        alg: Algorithm,
        /// What the key is.
        key: String,
    },
    /// The signature does not verify with the key.
    #[error("signature does not verify")]
    BadSignature,
    /// A compact token is not three dot-separated parts.
    #[error("not a compact JWS (three base64url parts separated by dots)")]
    Compact,
}

impl JwsError {
    /// A stable snake_case name for the error kind.
    pub fn kind(&self) -> &'static str {
        match self {
            JwsError::Base64(_) => "base64",
            JwsError::Header => "header",
            JwsError::HeaderMember(_) => "header_member",
            JwsError::NoAlg => "no_alg",
            JwsError::AlgNone => "alg_none",
            JwsError::AlgSymmetric(_) => "alg_symmetric",
            JwsError::AlgUnsupported(_) => "alg_unsupported",
            JwsError::Critical(_) => "critical",
            JwsError::DuplicateHeader(_) => "duplicate_header",
            JwsError::AlgKeyMismatch { .. } => "alg_key_mismatch",
            JwsError::BadSignature => "bad_signature",
            JwsError::Compact => "compact",
        }
    }
}

/// The JOSE header of one signature: the protected members, with the unprotected ones (if
/// any) merged in for key selection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Header {
    /// The algorithm (always protected).
    pub alg: Algorithm,
    /// `kid`, protected or not.
    pub kid: Option<String>,
    /// `jku`, protected only (a key-set URL nobody signed is not followed).
    pub jku: Option<String>,
    /// `typ`, protected only.
    pub typ: Option<String>,
}

/// Reads the protected header (`protected_b64`) and the optional unprotected one.
///
/// # Errors
/// [`JwsError`] naming what is wrong.
pub fn parse_header(
    protected_b64: &str,
    unprotected: Option<&serde_json::Map<String, Value>>,
) -> Result<Header, JwsError> {
    let raw = decode("protected header", protected_b64)?;
    if raw.len() > MAX_HEADER_BYTES {
        return Err(JwsError::Header);
    }
    let v: Value = serde_json::from_slice(&raw).map_err(|_| JwsError::Header)?;
    let p = v.as_object().ok_or(JwsError::Header)?;
    if let Some(u) = unprotected
        && let Some(k) = u.keys().find(|k| p.contains_key(*k))
    {
        return Err(JwsError::DuplicateHeader(k.clone()));
    }
    // `null` reads as absent: the Python a2a-sdk's signer writes `"jku":null` when its caller
    // fills its `ProtectedHeader` type's optional members with None.
    let text = |m: &serde_json::Map<String, Value>, name: &'static str| match m.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(JwsError::HeaderMember(name)),
    };
    if let Some(c) = p.get("crit") {
        // No extension is understood here, so any listed one fails (and so does a malformed
        // list: RFC 7515 §4.1.11 asks for a non-empty array of names).
        return Err(JwsError::Critical(c.to_string()));
    }
    let alg = Algorithm::parse(&text(p, "alg")?.ok_or(JwsError::NoAlg)?)?;
    let kid = match text(p, "kid")? {
        Some(k) => Some(k),
        None => unprotected.map(|u| text(u, "kid")).transpose()?.flatten(),
    };
    Ok(Header {
        alg,
        kid,
        jku: text(p, "jku")?,
        typ: text(p, "typ")?,
    })
}

/// Verifies `signature_b64` over `protected_b64 || '.' || BASE64URL(payload)` with `key`.
///
/// # Errors
/// [`JwsError::AlgKeyMismatch`] when the key does not fit `header.alg`,
/// [`JwsError::BadSignature`] when the signature does not verify.
pub fn verify(
    header: &Header,
    protected_b64: &str,
    payload_b64: &str,
    signature_b64: &str,
    key: &Jwk,
) -> Result<(), JwsError> {
    let mismatch = || JwsError::AlgKeyMismatch {
        alg: header.alg,
        key: match &key.alg {
            Some(a) => format!("{}, alg {a}", key.key.kind()),
            None => key.key.kind().to_owned(),
        },
    };
    if !header.alg.fits(&key.key) || key.alg.as_deref().is_some_and(|a| a != header.alg.as_str()) {
        return Err(mismatch());
    }
    let signature = decode("signature", signature_b64)?;
    let mut input = Vec::with_capacity(protected_b64.len() + 1 + payload_b64.len());
    input.extend_from_slice(protected_b64.as_bytes());
    input.push(b'.');
    input.extend_from_slice(payload_b64.as_bytes());
    let ok = match &key.key {
        PublicKey::P256(point) | PublicKey::P384(point) => {
            let alg: &dyn sig::VerificationAlgorithm = match header.alg {
                Algorithm::Es256 => &sig::ECDSA_P256_SHA256_FIXED,
                _ => &sig::ECDSA_P384_SHA384_FIXED,
            };
            sig::UnparsedPublicKey::new(alg, point).verify(&input, &signature)
        }
        PublicKey::Ed25519(x) => {
            sig::UnparsedPublicKey::new(&sig::ED25519, x).verify(&input, &signature)
        }
        PublicKey::Rsa { n, e } => {
            let params: &sig::RsaParameters = match header.alg {
                Algorithm::Rs256 => &sig::RSA_PKCS1_2048_8192_SHA256,
                Algorithm::Rs384 => &sig::RSA_PKCS1_2048_8192_SHA384,
                Algorithm::Rs512 => &sig::RSA_PKCS1_2048_8192_SHA512,
                Algorithm::Ps256 => &sig::RSA_PSS_2048_8192_SHA256,
                Algorithm::Ps384 => &sig::RSA_PSS_2048_8192_SHA384,
                _ => &sig::RSA_PSS_2048_8192_SHA512,
            };
            sig::RsaPublicKeyComponents { n, e }.verify(params, &input, &signature)
        }
    };
    ok.map_err(|_| JwsError::BadSignature)
}

/// Splits a compact JWS `header.payload.signature` into its three parts.
///
/// # Errors
/// [`JwsError::Compact`] when it has not exactly three parts.
pub fn split_compact(token: &str) -> Result<(&str, &str, &str), JwsError> {
    let mut parts = token.split('.');
    match (parts.next(), parts.next(), parts.next(), parts.next()) {
        (Some(h), Some(p), Some(s), None) => Ok((h, p, s)),
        _ => Err(JwsError::Compact),
    }
}

/// Unpadded base64url, strictly (no padding, no stray bits).
pub fn decode(what: &'static str, text: &str) -> Result<Vec<u8>, JwsError> {
    URL_SAFE_NO_PAD
        .decode(text)
        .map_err(|_| JwsError::Base64(what))
}

/// Unpadded base64url.
pub fn encode(bytes: &[u8]) -> String {
    URL_SAFE_NO_PAD.encode(bytes)
}

/// A private key that signs, read from PEM.
pub struct SigningKey {
    alg: Algorithm,
    pair: Pair,
}

enum Pair {
    Ecdsa(sig::EcdsaKeyPair),
    Ed25519(sig::Ed25519KeyPair),
    Rsa(sig::RsaKeyPair),
}

// Nothing of the key is printed.
impl std::fmt::Debug for SigningKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SigningKey({}, private)", self.alg)
    }
}

/// Why a private key could not be read or used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SigningKeyError {
    /// No usable PEM block.
    #[error("PEM: {0}")]
    Pem(String),
    /// The key is not P-256, P-384, Ed25519 or RSA (2048 to 8192 bits) in a form read here.
    #[error("unsupported or malformed private key ({0})")]
    Key(String),
    /// The algorithm asked for does not fit the key.
    #[error("algorithm {alg} does not fit this {key} key")]
    AlgKeyMismatch {
        /// The algorithm asked for.
        alg: Algorithm,
        /// The key's kind.
        key: &'static str,
    },
    /// The random source or the signer failed.
    #[error("signing failed")]
    Sign,
}

impl SigningKey {
    /// Reads a PEM private key: PKCS#8 (`PRIVATE KEY`: P-256, P-384, Ed25519, RSA) or PKCS#1
    /// (`RSA PRIVATE KEY`). The algorithm is the key's natural one (ES256, ES384, EdDSA,
    /// RS256); [`SigningKey::with_algorithm`] picks another RSA one.
    ///
    /// # Errors
    /// [`SigningKeyError::Pem`] or [`SigningKeyError::Key`]. A SEC1 `EC PRIVATE KEY` is
    /// refused with a hint to convert it to PKCS#8.
    pub fn from_pem(pem: &[u8], rng: &dyn SecureRandom) -> Result<SigningKey, SigningKeyError> {
        use rustls_pki_types::pem::{PemObject, SectionKind};
        let mut found = None;
        for section in <(SectionKind, Vec<u8>)>::pem_slice_iter(pem) {
            match section {
                Ok((k @ (SectionKind::PrivateKey | SectionKind::RsaPrivateKey), der)) => {
                    found = Some((k, der));
                    break;
                }
                Ok((SectionKind::EcPrivateKey, _)) => {
                    return Err(SigningKeyError::Pem(
                        "SEC1 'EC PRIVATE KEY' is not read; convert it with `openssl pkcs8 -topk8 -nocrypt`".into(),
                    ));
                }
                Ok(_) => {}
                Err(e) => return Err(SigningKeyError::Pem(e.to_string())),
            }
        }
        let (kind, der) = found
            .ok_or_else(|| SigningKeyError::Pem("no '-----BEGIN PRIVATE KEY-----' block".into()))?;
        if kind == SectionKind::RsaPrivateKey {
            return sig::RsaKeyPair::from_der(&der)
                .map(|k| SigningKey {
                    alg: Algorithm::Rs256,
                    pair: Pair::Rsa(k),
                })
                .map_err(|e| SigningKeyError::Key(e.to_string()));
        }
        if let Ok(k) =
            sig::EcdsaKeyPair::from_pkcs8(&sig::ECDSA_P256_SHA256_FIXED_SIGNING, &der, rng)
        {
            return Ok(SigningKey {
                alg: Algorithm::Es256,
                pair: Pair::Ecdsa(k),
            });
        }
        if let Ok(k) =
            sig::EcdsaKeyPair::from_pkcs8(&sig::ECDSA_P384_SHA384_FIXED_SIGNING, &der, rng)
        {
            return Ok(SigningKey {
                alg: Algorithm::Es384,
                pair: Pair::Ecdsa(k),
            });
        }
        if let Ok(k) = sig::Ed25519KeyPair::from_pkcs8_maybe_unchecked(&der) {
            return Ok(SigningKey {
                alg: Algorithm::EdDsa,
                pair: Pair::Ed25519(k),
            });
        }
        sig::RsaKeyPair::from_pkcs8(&der)
            .map(|k| SigningKey {
                alg: Algorithm::Rs256,
                pair: Pair::Rsa(k),
            })
            .map_err(|e| SigningKeyError::Key(e.to_string()))
    }

    /// The same key with another algorithm (RS*/PS* for an RSA key).
    ///
    /// # Errors
    /// [`SigningKeyError::AlgKeyMismatch`] when `alg` does not fit the key.
    pub fn with_algorithm(mut self, alg: Algorithm) -> Result<SigningKey, SigningKeyError> {
        if !alg.fits(&self.public_key()) {
            return Err(SigningKeyError::AlgKeyMismatch {
                alg,
                key: self.public_key().kind(),
            });
        }
        self.alg = alg;
        Ok(self)
    }

    /// The algorithm this key signs with.
    pub fn algorithm(&self) -> Algorithm {
        self.alg
    }

    /// The public half.
    pub fn public_key(&self) -> PublicKey {
        match &self.pair {
            Pair::Ecdsa(k) => {
                let point = k.public_key().as_ref().to_vec();
                if point.len() == 65 {
                    PublicKey::P256(point)
                } else {
                    PublicKey::P384(point)
                }
            }
            Pair::Ed25519(k) => PublicKey::Ed25519(k.public_key().as_ref().to_vec()),
            Pair::Rsa(k) => {
                let (n, e) = rsa_public_key_der(k.public_key().as_ref()).unwrap_or_default();
                let strip = |v: Vec<u8>| {
                    let s = v.iter().position(|&b| b != 0).unwrap_or(v.len());
                    v[s..].to_vec()
                };
                PublicKey::Rsa {
                    n: strip(n),
                    e: strip(e),
                }
            }
        }
    }

    /// The public JWK (`kid`, `alg`, `use: sig` and the key members), for a key set.
    pub fn public_jwk(&self, kid: &str) -> Value {
        let mut m = self.public_key().jwk_members();
        m.insert("kid".into(), kid.into());
        m.insert("alg".into(), self.alg.as_str().into());
        m.insert("use".into(), "sig".into());
        Value::Object(m)
    }

    /// Signs `message` (the JWS signing input); the signature as JWS writes it (ECDSA as
    /// fixed-size `r || s`).
    ///
    /// # Errors
    /// [`SigningKeyError::Sign`] when the random source fails.
    pub fn sign(&self, message: &[u8], rng: &dyn SecureRandom) -> Result<Vec<u8>, SigningKeyError> {
        match &self.pair {
            Pair::Ecdsa(k) => k
                .sign(rng, message)
                .map(|s| s.as_ref().to_vec())
                .map_err(|_| SigningKeyError::Sign),
            Pair::Ed25519(k) => Ok(k.sign(message).as_ref().to_vec()),
            Pair::Rsa(k) => {
                let padding: &dyn sig::RsaEncoding = match self.alg {
                    Algorithm::Rs384 => &sig::RSA_PKCS1_SHA384,
                    Algorithm::Rs512 => &sig::RSA_PKCS1_SHA512,
                    Algorithm::Ps256 => &sig::RSA_PSS_SHA256,
                    Algorithm::Ps384 => &sig::RSA_PSS_SHA384,
                    Algorithm::Ps512 => &sig::RSA_PSS_SHA512,
                    _ => &sig::RSA_PKCS1_SHA256,
                };
                let mut out = vec![0; k.public().modulus_len()];
                k.sign(padding, rng, message, &mut out)
                    .map_err(|_| SigningKeyError::Sign)?;
                Ok(out)
            }
        }
    }
}

/// Signs `payload` with a protected header of `alg` (the key's), `typ`, `kid` and optional
/// `jku`; returns `(protected_b64, signature_b64)`, the payload itself detached.
///
/// # Errors
/// As [`SigningKey::sign`].
pub fn sign_detached(
    key: &SigningKey,
    typ: &str,
    kid: &str,
    jku: Option<&str>,
    payload: &[u8],
    rng: &dyn SecureRandom,
) -> Result<(String, String), SigningKeyError> {
    let mut h = serde_json::Map::new();
    h.insert("alg".into(), key.alg.as_str().into());
    h.insert("typ".into(), typ.into());
    h.insert("kid".into(), kid.into());
    if let Some(j) = jku {
        h.insert("jku".into(), j.into());
    }
    let protected = encode(Value::Object(h).to_string().as_bytes());
    let input = format!("{protected}.{}", encode(payload));
    let signature = key.sign(input.as_bytes(), rng)?;
    Ok((protected, encode(&signature)))
}
