//! Public keys: JWK and JWK Set documents (RFC 7517, 7518 §6, 8037) and PEM
//! `SubjectPublicKeyInfo` keys (a trusted key store).
//!
//! Supported: EC P-256 and P-384 (`x`, `y`), RSA (`n`, `e`, 2048 to 8192 bits) and OKP
//! Ed25519 (`x`). A key set is read key by key: a key of a kind this module does not use
//! (`oct`, X25519, an encryption key) is set aside with its reason instead of failing the
//! whole set, so that a publisher's set with extra keys still works.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde_json::Value;

use super::der;

/// The largest key set read (keys beyond it are refused, not dropped silently).
pub const MAX_KEYS: usize = 100;

/// The key material itself.
#[derive(Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum PublicKey {
    /// An EC P-256 point, uncompressed (`04 || x || y`, 65 bytes).
    P256(Vec<u8>),
    /// An EC P-384 point, uncompressed (`04 || x || y`, 97 bytes).
    P384(Vec<u8>),
    /// An RSA public key: modulus and exponent, big-endian without leading zeros.
    Rsa {
        /// Modulus.
        n: Vec<u8>,
        /// Public exponent.
        e: Vec<u8>,
    },
    /// An Ed25519 public key (32 bytes).
    Ed25519(Vec<u8>),
}

impl std::fmt::Debug for PublicKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.kind())
    }
}

impl PublicKey {
    /// `"EC P-256"`, `"EC P-384"`, `"RSA"` or `"Ed25519"`.
    pub fn kind(&self) -> &'static str {
        match self {
            PublicKey::P256(_) => "EC P-256",
            PublicKey::P384(_) => "EC P-384",
            PublicKey::Rsa { .. } => "RSA",
            PublicKey::Ed25519(_) => "Ed25519",
        }
    }

    /// Reads a PEM `PUBLIC KEY` (SubjectPublicKeyInfo) block.
    ///
    /// # Errors
    /// [`JwkError::Pem`] when there is no such block, [`JwkError::Unsupported`] for another
    /// algorithm or curve, [`JwkError::Invalid`] for malformed DER.
    pub fn from_pem(pem: &[u8]) -> Result<PublicKey, JwkError> {
        use rustls_pki_types::pem::{PemObject, SectionKind};
        let mut found = None;
        for section in <(SectionKind, Vec<u8>)>::pem_slice_iter(pem) {
            match section {
                Ok((SectionKind::PublicKey, der)) => {
                    found = Some(der);
                    break;
                }
                Ok(_) => {}
                Err(e) => return Err(JwkError::Pem(e.to_string())),
            }
        }
        let der = found
            .ok_or_else(|| JwkError::Pem("no '-----BEGIN PUBLIC KEY-----' block".to_owned()))?;
        from_spki(&der)
    }

    /// Reads every PEM `PUBLIC KEY` block of `pem`, in order (a trust bundle).
    ///
    /// # Errors
    /// As [`PublicKey::from_pem`]: the first block that cannot be read, or no block at all.
    pub fn all_from_pem(pem: &[u8]) -> Result<Vec<PublicKey>, JwkError> {
        use rustls_pki_types::pem::{PemObject, SectionKind};
        let mut keys = Vec::new();
        for section in <(SectionKind, Vec<u8>)>::pem_slice_iter(pem) {
            match section {
                Ok((SectionKind::PublicKey, der)) => keys.push(from_spki(&der)?),
                Ok(_) => {}
                Err(e) => return Err(JwkError::Pem(e.to_string())),
            }
        }
        if keys.is_empty() {
            return Err(JwkError::Pem(
                "no '-----BEGIN PUBLIC KEY-----' block".to_owned(),
            ));
        }
        Ok(keys)
    }

    /// The JWK members of this key (`kty`, `crv`, `x`, `y`, `n`, `e`), for publishing.
    pub fn jwk_members(&self) -> serde_json::Map<String, Value> {
        let b = |v: &[u8]| Value::String(URL_SAFE_NO_PAD.encode(v));
        let mut m = serde_json::Map::new();
        match self {
            PublicKey::P256(p) | PublicKey::P384(p) => {
                let (crv, n) = match self {
                    PublicKey::P256(_) => ("P-256", 32),
                    _ => ("P-384", 48),
                };
                m.insert("kty".into(), "EC".into());
                m.insert("crv".into(), crv.into());
                m.insert("x".into(), b(&p[1..=n]));
                m.insert("y".into(), b(&p[1 + n..]));
            }
            PublicKey::Rsa { n, e } => {
                m.insert("kty".into(), "RSA".into());
                m.insert("n".into(), b(n));
                m.insert("e".into(), b(e));
            }
            PublicKey::Ed25519(x) => {
                m.insert("kty".into(), "OKP".into());
                m.insert("crv".into(), "Ed25519".into());
                m.insert("x".into(), b(x));
            }
        }
        m
    }
}

/// One key with its JWK parameters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Jwk {
    /// `kid`, if any.
    pub kid: Option<String>,
    /// `alg`, if any: the only algorithm this key may then be used with.
    pub alg: Option<String>,
    /// The key.
    pub key: PublicKey,
}

/// A key set: the keys read, and the keys set aside with their reason.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct JwkSet {
    /// Keys usable for verification, in document order.
    pub keys: Vec<Jwk>,
    /// Keys set aside: their position in `keys` and why.
    pub skipped: Vec<(usize, JwkError)>,
}

/// Why a key, or a key set, could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum JwkError {
    /// The document is not JSON.
    #[error("JWK set is not valid JSON: {0}")]
    Json(String),
    /// The document, or a key, is not a JSON object.
    #[error("not a JSON object")]
    NotAnObject,
    /// The set has no `keys` array.
    #[error("JWK set has no \"keys\" array")]
    NoKeys,
    /// The set has more keys than [`MAX_KEYS`].
    #[error("JWK set has {0} keys, more than the {MAX_KEYS} read")]
    TooManyKeys(usize),
    /// A member is missing or has the wrong type.
    #[error("JWK member {0:?} is missing or not a string")]
    Missing(&'static str),
    /// A key type, curve or algorithm this module does not verify with.
    #[error("unsupported key: {0}")]
    Unsupported(String),
    /// A member is not valid unpadded base64url, has the wrong length, or the DER is broken.
    #[error("invalid key: {0}")]
    Invalid(String),
    /// The key is not for signatures (`use` is not `sig`, or `key_ops` lacks `verify`).
    #[error("key is not for verifying signatures ({0})")]
    NotForSignatures(String),
    /// A published key carries private material (`d`, `p`, …): refused, it should not
    /// have been published.
    #[error("key carries private material ({0:?})")]
    PrivateMaterial(&'static str),
    /// No usable PEM block.
    #[error("PEM: {0}")]
    Pem(String),
}

impl JwkError {
    /// A stable snake_case name for the error kind.
    pub fn kind(&self) -> &'static str {
        match self {
            JwkError::Json(_) => "json",
            JwkError::NotAnObject => "not_an_object",
            JwkError::NoKeys => "no_keys",
            JwkError::TooManyKeys(_) => "too_many_keys",
            JwkError::Missing(_) => "missing",
            JwkError::Unsupported(_) => "unsupported",
            JwkError::Invalid(_) => "invalid",
            JwkError::NotForSignatures(_) => "not_for_signatures",
            JwkError::PrivateMaterial(_) => "private_material",
            JwkError::Pem(_) => "pem",
        }
    }
}

impl JwkSet {
    /// Reads a JWK Set document (`{"keys":[...]}`).
    ///
    /// # Errors
    /// [`JwkError`] when the document itself is unusable; a bad key only lands in
    /// [`JwkSet::skipped`].
    pub fn parse(bytes: &[u8]) -> Result<JwkSet, JwkError> {
        let v: Value = serde_json::from_slice(bytes).map_err(|e| JwkError::Json(e.to_string()))?;
        let obj = v.as_object().ok_or(JwkError::NotAnObject)?;
        let keys = obj
            .get("keys")
            .and_then(Value::as_array)
            .ok_or(JwkError::NoKeys)?;
        if keys.len() > MAX_KEYS {
            return Err(JwkError::TooManyKeys(keys.len()));
        }
        let mut set = JwkSet::default();
        for (i, k) in keys.iter().enumerate() {
            match Jwk::from_value(k) {
                Ok(jwk) => set.keys.push(jwk),
                Err(e) => set.skipped.push((i, e)),
            }
        }
        Ok(set)
    }

    /// The keys whose `kid` is `kid`.
    pub fn by_kid<'a>(&'a self, kid: &'a str) -> impl Iterator<Item = &'a Jwk> + 'a {
        self.keys
            .iter()
            .filter(move |k| k.kid.as_deref() == Some(kid))
    }
}

impl Jwk {
    /// Reads one JWK.
    ///
    /// # Errors
    /// [`JwkError`] saying what is wrong with it.
    pub fn parse(bytes: &[u8]) -> Result<Jwk, JwkError> {
        let v: Value = serde_json::from_slice(bytes).map_err(|e| JwkError::Json(e.to_string()))?;
        Jwk::from_value(&v)
    }

    /// Reads one JWK from a parsed JSON value.
    ///
    /// # Errors
    /// As [`Jwk::parse`].
    pub fn from_value(v: &Value) -> Result<Jwk, JwkError> {
        let o = v.as_object().ok_or(JwkError::NotAnObject)?;
        let text = |name: &'static str| -> Result<Option<&str>, JwkError> {
            match o.get(name) {
                None => Ok(None),
                Some(Value::String(s)) => Ok(Some(s)),
                Some(_) => Err(JwkError::Missing(name)),
            }
        };
        let need = |name: &'static str| text(name)?.ok_or(JwkError::Missing(name));
        let bytes = |name: &'static str| -> Result<Vec<u8>, JwkError> {
            URL_SAFE_NO_PAD
                .decode(need(name)?)
                .map_err(|_| JwkError::Invalid(format!("{name:?} is not unpadded base64url")))
        };
        for private in ["d", "p", "q", "dp", "dq", "qi", "k"] {
            if o.contains_key(private) {
                return Err(JwkError::PrivateMaterial(private));
            }
        }
        if let Some(u) = text("use")?
            && u != "sig"
        {
            return Err(JwkError::NotForSignatures(format!("use {u:?}")));
        }
        if let Some(ops) = o.get("key_ops") {
            let ok = ops
                .as_array()
                .is_some_and(|a| a.iter().any(|op| op == "verify"));
            if !ok {
                return Err(JwkError::NotForSignatures(
                    "key_ops has no \"verify\"".into(),
                ));
            }
        }
        let kty = need("kty")?;
        let key = match kty {
            "EC" => {
                let (crv_len, p384) = match need("crv")? {
                    "P-256" => (32, false),
                    "P-384" => (48, true),
                    other => return Err(JwkError::Unsupported(format!("EC curve {other:?}"))),
                };
                let (x, y) = (bytes("x")?, bytes("y")?);
                if x.len() != crv_len || y.len() != crv_len {
                    return Err(JwkError::Invalid(format!(
                        "EC x and y must be {crv_len} bytes each, got {} and {}",
                        x.len(),
                        y.len()
                    )));
                }
                let point = [&[4u8][..], &x, &y].concat();
                if p384 {
                    PublicKey::P384(point)
                } else {
                    PublicKey::P256(point)
                }
            }
            "RSA" => rsa_key(bytes("n")?, bytes("e")?)?,
            "OKP" => match need("crv")? {
                "Ed25519" => {
                    let x = bytes("x")?;
                    if x.len() != 32 {
                        return Err(JwkError::Invalid(format!(
                            "Ed25519 x must be 32 bytes, got {}",
                            x.len()
                        )));
                    }
                    PublicKey::Ed25519(x)
                }
                other => return Err(JwkError::Unsupported(format!("OKP curve {other:?}"))),
            },
            other => return Err(JwkError::Unsupported(format!("key type {other:?}"))),
        };
        Ok(Jwk {
            kid: text("kid")?.map(str::to_owned),
            alg: text("alg")?.map(str::to_owned),
            key,
        })
    }
}

/// An RSA key from its modulus and exponent: leading zeros removed, 2048 to 8192 bits (the
/// sizes the verifier accepts; RFC 7518 §3.3 asks for at least 2048).
fn rsa_key(n: Vec<u8>, e: Vec<u8>) -> Result<PublicKey, JwkError> {
    let strip = |v: Vec<u8>| -> Vec<u8> {
        let start = v.iter().position(|&b| b != 0).unwrap_or(v.len());
        v[start..].to_vec()
    };
    let (n, e) = (strip(n), strip(e));
    let bits = n.len() * 8 - n.first().map_or(8, |b| b.leading_zeros() as usize);
    if !(2048..=8192).contains(&bits) {
        return Err(JwkError::Unsupported(format!(
            "RSA modulus of {bits} bits (2048 to 8192)"
        )));
    }
    if e.is_empty() || e.len() > 4 {
        return Err(JwkError::Invalid("RSA exponent out of range".into()));
    }
    Ok(PublicKey::Rsa { n, e })
}

const OID_EC_PUBLIC_KEY: &[u8] = &[0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01];
const OID_P256: &[u8] = &[0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07];
const OID_P384: &[u8] = &[0x2b, 0x81, 0x04, 0x00, 0x22];
const OID_RSA: &[u8] = &[0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01];
const OID_ED25519: &[u8] = &[0x2b, 0x65, 0x70];

/// Reads a DER `SubjectPublicKeyInfo` (RFC 5280 §4.1.2.7).
pub(crate) fn from_spki(spki: &[u8]) -> Result<PublicKey, JwkError> {
    let bad = |what: &str| JwkError::Invalid(format!("SubjectPublicKeyInfo: {what}"));
    let mut outer = der::Reader::new(spki);
    let mut info = der::Reader::new(
        outer
            .take(der::SEQUENCE)
            .ok_or_else(|| bad("no SEQUENCE"))?,
    );
    outer.finish().ok_or_else(|| bad("trailing bytes"))?;
    let mut alg = der::Reader::new(
        info.take(der::SEQUENCE)
            .ok_or_else(|| bad("no algorithm"))?,
    );
    let bits = info
        .take(der::BIT_STRING)
        .ok_or_else(|| bad("no key BIT STRING"))?;
    info.finish().ok_or_else(|| bad("trailing bytes"))?;
    let key = match bits.split_first() {
        Some((0, rest)) => rest,
        _ => return Err(bad("key BIT STRING has unused bits")),
    };
    let oid = alg.take(der::OID).ok_or_else(|| bad("no algorithm OID"))?;
    if oid == OID_EC_PUBLIC_KEY {
        let curve = alg
            .take(der::OID)
            .ok_or_else(|| bad("EC key without a named curve"))?;
        let (len, p384) = if curve == OID_P256 {
            (65, false)
        } else if curve == OID_P384 {
            (97, true)
        } else {
            return Err(JwkError::Unsupported(
                "EC curve other than P-256 or P-384".into(),
            ));
        };
        if key.len() != len || key[0] != 4 {
            return Err(bad("EC point is not uncompressed"));
        }
        Ok(if p384 {
            PublicKey::P384(key.to_vec())
        } else {
            PublicKey::P256(key.to_vec())
        })
    } else if oid == OID_ED25519 {
        if key.len() != 32 {
            return Err(bad("Ed25519 key is not 32 bytes"));
        }
        Ok(PublicKey::Ed25519(key.to_vec()))
    } else if oid == OID_RSA {
        let (n, e) = rsa_public_key_der(key).ok_or_else(|| bad("malformed RSAPublicKey"))?;
        rsa_key(n, e)
    } else {
        Err(JwkError::Unsupported(
            "public key algorithm other than EC, RSA or Ed25519".into(),
        ))
    }
}

/// `RSAPublicKey ::= SEQUENCE { modulus INTEGER, publicExponent INTEGER }` (RFC 8017 A.1.1).
pub(crate) fn rsa_public_key_der(der_bytes: &[u8]) -> Option<(Vec<u8>, Vec<u8>)> {
    let mut outer = der::Reader::new(der_bytes);
    let mut seq = der::Reader::new(outer.take(der::SEQUENCE)?);
    outer.finish()?;
    let n = seq.take(der::INTEGER)?.to_vec();
    let e = seq.take(der::INTEGER)?.to_vec();
    seq.finish()?;
    Some((n, e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_each_key_type_and_sets_aside_the_rest() {
        // RFC 7517 Appendix A.1's EC and RSA public keys, RFC 8037 A.2's Ed25519 key.
        let set = br#"{"keys":[
          {"kty":"EC","crv":"P-256","x":"MKBCTNIcKUSDii11ySs3526iDZ8AiTo7Tu6KPAqv7D4","y":"4Etl6SRW2YiLUrN5vfvVHuhp7x8PxltmWWlbbM4IFyM","use":"enc","kid":"1"},
          {"kty":"EC","crv":"P-256","x":"MKBCTNIcKUSDii11ySs3526iDZ8AiTo7Tu6KPAqv7D4","y":"4Etl6SRW2YiLUrN5vfvVHuhp7x8PxltmWWlbbM4IFyM","kid":"ec"},
          {"kty":"RSA","n":"0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw","e":"AQAB","alg":"RS256","kid":"2011-04-29"},
          {"kty":"OKP","crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo","kid":"ed"},
          {"kty":"oct","k":"AyM1SysPpbyDfgZld3umj1qzKObwVMkoqQ-EstJQLr_T-1qS0gZH75aKtMN3Yj0iPS4hcgUuTwjAzZr1Z9CAow"},
          {"kty":"OKP","crv":"X25519","x":"hSDwCYkwp1R0i33ctD73Wg2_Og0mOBr066SpjqqbTmo"},
          {"kty":"EC","crv":"P-256","x":"AA","y":"AA"},
          {"kty":"EC","crv":"P-256","x":"MKBCTNIcKUSDii11ySs3526iDZ8AiTo7Tu6KPAqv7D4=","y":"4Etl6SRW2YiLUrN5vfvVHuhp7x8PxltmWWlbbM4IFyM"},
          {"kty":"RSA","n":"AQAB","e":"AQAB"},
          "not an object"
        ]}"#;
        let s = JwkSet::parse(set).unwrap();
        let kinds: Vec<_> = s
            .keys
            .iter()
            .map(|k| (k.kid.as_deref(), k.key.kind()))
            .collect();
        assert_eq!(
            kinds,
            [
                (Some("ec"), "EC P-256"),
                (Some("2011-04-29"), "RSA"),
                (Some("ed"), "Ed25519")
            ]
        );
        assert_eq!(s.keys[1].alg.as_deref(), Some("RS256"));
        let skipped: Vec<_> = s.skipped.iter().map(|(i, e)| (*i, e.kind())).collect();
        assert_eq!(
            skipped,
            [
                (0, "not_for_signatures"),
                (4, "private_material"),
                (5, "unsupported"),
                (6, "invalid"),
                (7, "invalid"),
                (8, "unsupported"),
                (9, "not_an_object")
            ]
        );
        assert_eq!(s.by_kid("ed").count(), 1);
        assert_eq!(s.by_kid("nope").count(), 0);
    }

    #[test]
    fn refuses_unusable_sets() {
        assert_eq!(JwkSet::parse(b"[]").unwrap_err(), JwkError::NotAnObject);
        assert_eq!(JwkSet::parse(b"{}").unwrap_err(), JwkError::NoKeys);
        assert_eq!(JwkSet::parse(b"{").unwrap_err().kind(), "json");
        let many = format!("{{\"keys\":[{}]}}", vec!["{}"; MAX_KEYS + 1].join(","));
        assert_eq!(
            JwkSet::parse(many.as_bytes()).unwrap_err(),
            JwkError::TooManyKeys(MAX_KEYS + 1)
        );
        assert_eq!(
            Jwk::parse(br#"{"kty":"EC","crv":"P-256","x":"MKBCTNIcKUSDii11ySs3526iDZ8AiTo7Tu6KPAqv7D4","y":"4Etl6SRW2YiLUrN5vfvVHuhp7x8PxltmWWlbbM4IFyM","d":"x"}"#),
            Err(JwkError::PrivateMaterial("d"))
        );
        assert_eq!(
            Jwk::parse(br#"{"kty":"OKP","crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo","key_ops":["sign"]}"#).unwrap_err().kind(),
            "not_for_signatures"
        );
        assert_eq!(
            Jwk::parse(br#"{"crv":"Ed25519"}"#),
            Err(JwkError::Missing("kty"))
        );
    }

    #[test]
    fn pem_public_keys() {
        // RFC 8410 §10.1's Ed25519 public key.
        let pem = b"-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEAGb9ECWmEzf6FQbrBZ9w7lshQhqowtrbLDFw4rXAxZuE=\n-----END PUBLIC KEY-----\n";
        let k = PublicKey::from_pem(pem).unwrap();
        assert_eq!(k.kind(), "Ed25519");
        assert_eq!(
            k.jwk_members()["x"],
            "Gb9ECWmEzf6FQbrBZ9w7lshQhqowtrbLDFw4rXAxZuE"
        );
        assert_eq!(PublicKey::from_pem(b"nothing").unwrap_err().kind(), "pem");
        let broken =
            b"-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEAGb9E\n-----END PUBLIC KEY-----\n";
        assert_eq!(PublicKey::from_pem(broken).unwrap_err().kind(), "invalid");
    }
}
