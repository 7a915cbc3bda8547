//! JSON Web Tokens (RFC 7519) in compact JWS form: the signature checked with a trusted key
//! chosen by `kid`, the registered claims read with their types checked. Whether the claims
//! are acceptable (issuer, audience, times) is the caller's policy; see [`super::push`].

use serde_json::Value;

use super::card_sig::KeyStore;
use super::jws::{self, Header, JwsError};

/// The longest token read (bytes).
pub const MAX_TOKEN_BYTES: usize = 16 * 1024;

/// The registered claims, and the A2A task id when the sender put one in.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Claims {
    /// `iss`.
    pub iss: Option<String>,
    /// `sub`.
    pub sub: Option<String>,
    /// `aud` (a single string reads as a one-element list).
    pub aud: Vec<String>,
    /// `iat`, seconds since the Unix epoch.
    pub iat: Option<i64>,
    /// `exp`, seconds since the Unix epoch.
    pub exp: Option<i64>,
    /// `nbf`, seconds since the Unix epoch.
    pub nbf: Option<i64>,
    /// `jti`.
    pub jti: Option<String>,
    /// `taskId` (or `task_id`), the task the notification is about.
    pub task_id: Option<String>,
}

/// Why a token was not accepted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum JwtError {
    /// Longer than [`MAX_TOKEN_BYTES`].
    #[error("token longer than {MAX_TOKEN_BYTES} bytes")]
    TooLong,
    /// The JWS layer refused it (form, header, algorithm, signature).
    #[error("{0}")]
    Jws(JwsError),
    /// No trusted key fits the token's `kid` and algorithm.
    #[error("no trusted key fits the token (kid {})", .0.as_deref().map_or("none".to_owned(), |k| format!("{k:?}")))]
    UnknownKey(Option<String>),
    /// The payload is not a JSON object.
    #[error("token payload is not a JSON object")]
    Payload,
    /// A registered claim has the wrong type (`exp` not a number, …).
    #[error("claim {0:?} has the wrong type")]
    ClaimType(&'static str),
}

impl JwtError {
    /// A stable snake_case name for the error kind.
    pub fn kind(&self) -> &'static str {
        match self {
            JwtError::TooLong => "too_long",
            JwtError::Jws(e) => e.kind(),
            JwtError::UnknownKey(_) => "unknown_key",
            JwtError::Payload => "payload",
            JwtError::ClaimType(_) => "claim_type",
        }
    }
}

/// Verifies a compact token's signature with `keys` and reads its claims. Times are not
/// judged here.
///
/// # Errors
/// [`JwtError`].
pub fn verify(token: &str, keys: &KeyStore) -> Result<(Header, Claims), JwtError> {
    if token.len() > MAX_TOKEN_BYTES {
        return Err(JwtError::TooLong);
    }
    let (protected, payload_b64, signature) = jws::split_compact(token).map_err(JwtError::Jws)?;
    let header = jws::parse_header(protected, None).map_err(JwtError::Jws)?;
    let mut last = None;
    let kid = header.kid.clone();
    for key in keys.candidates(kid.as_deref()) {
        if key.kid.is_none() && !header.alg.fits(&key.key) {
            continue;
        }
        match jws::verify(&header, protected, payload_b64, signature, key) {
            Ok(()) => {
                let payload = jws::decode("payload", payload_b64).map_err(JwtError::Jws)?;
                return Ok((header, claims(&payload)?));
            }
            Err(e) => last = Some(e),
        }
    }
    Err(match last {
        Some(e) => JwtError::Jws(e),
        None => JwtError::UnknownKey(header.kid),
    })
}

/// Reads the claims of a payload.
///
/// # Errors
/// [`JwtError::Payload`] or [`JwtError::ClaimType`].
pub fn claims(payload: &[u8]) -> Result<Claims, JwtError> {
    let v: Value = serde_json::from_slice(payload).map_err(|_| JwtError::Payload)?;
    let o = v.as_object().ok_or(JwtError::Payload)?;
    let text = |name: &'static str| match o.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(JwtError::ClaimType(name)),
    };
    // NumericDate (RFC 7519 §2): seconds, possibly fractional; the fraction is dropped.
    let time = |name: &'static str| match o.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(n)) => n
            .as_i64()
            .or_else(|| {
                n.as_f64()
                    .filter(|f| f.is_finite() && f.abs() < 1e15)
                    .map(|f| f as i64)
            })
            .map(Some)
            .ok_or(JwtError::ClaimType(name)),
        Some(_) => Err(JwtError::ClaimType(name)),
    };
    let aud = match o.get("aud") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::String(s)) => vec![s.clone()],
        Some(Value::Array(a)) => a
            .iter()
            .map(|x| {
                x.as_str()
                    .map(str::to_owned)
                    .ok_or(JwtError::ClaimType("aud"))
            })
            .collect::<Result<_, _>>()?,
        Some(_) => return Err(JwtError::ClaimType("aud")),
    };
    let task_id = match text("taskId")? {
        Some(t) => Some(t),
        None => text("task_id")?,
    };
    Ok(Claims {
        iss: text("iss")?,
        sub: text("sub")?,
        aud,
        iat: time("iat")?,
        exp: time("exp")?,
        nbf: time("nbf")?,
        jti: text("jti")?,
        task_id,
    })
}

/// Signs `claims` (a JSON object) as a compact token with header `alg` (the key's), `typ: JWT`
/// and `kid`: what a push sender puts in `Authorization: Bearer`.
///
/// # Errors
/// As [`jws::SigningKey::sign`].
pub fn sign(
    claims: &serde_json::Map<String, Value>,
    key: &jws::SigningKey,
    kid: &str,
    rng: &dyn ring::rand::SecureRandom,
) -> Result<String, jws::SigningKeyError> {
    let header = serde_json::json!({"alg": key.algorithm().as_str(), "typ": "JWT", "kid": kid});
    let input = format!(
        "{}.{}",
        jws::encode(header.to_string().as_bytes()),
        jws::encode(Value::Object(claims.clone()).to_string().as_bytes())
    );
    let signature = key.sign(input.as_bytes(), rng)?;
    Ok(format!("{input}.{}", jws::encode(&signature)))
}
