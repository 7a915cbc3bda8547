//! Trust over the C ABI (feature `trust`): the core's [`a2a::trust`] module as 14 functions.
//! Signed agent cards (canonical form, verify, the `jku` to fetch, sign), the receiving end
//! of push notifications (`a2a_push_verifier`), the sending end's webhook check, and OAuth
//! 2.0 client credentials (`a2a_oauth2`), all sans-IO: keys, clocks and HTTP answers come in
//! as arguments.
//!
//! Outputs go into a caller-owned `a2a_buffer`, which each function first empties. Every
//! refusal writes a JSON report into that buffer whose `"reason"` is the core's stable
//! `kind()` word, so bindings raise typed errors without parsing prose. The two handles are
//! thread-safe: their calls hold a mutex inside.

use std::ffi::c_char;
use std::net::IpAddr;
use std::sync::Mutex;

use a2a::card::Url;
use a2a::trust::SystemRandom;
use a2a::trust::canonical::{Json, canonicalize};
use a2a::trust::card_form::card_payload;
use a2a::trust::card_sig::{
    CardSignatureError, KeyStore, jku_allowed, sign_card, signature_headers, verification_report,
    verify_card,
};
use a2a::trust::jws::SigningKey;
use a2a::trust::oauth2::{
    ClientAuth, ClientCredentials, Secret, TokenError, TokenStep, TokenTracker, parse_response,
};
use a2a::trust::push::{PushPolicy, ReplayWindow, Verdict, verify_notification};
use a2a::trust::webhook::{WebhookPolicy, check_resolved, check_url};
use serde_json::{Value, json};

use crate::buffer::a2a_buffer;
use crate::card::a2a_card;
use crate::handle::{self, Handle, try_mut, try_out, try_ref, try_shared};
use crate::header::{a2a_header, headers_from};
use crate::panic::ffi_panic_boundary;
use crate::result::a2a_result;
use crate::view::{a2a_str, try_bytes, try_input, try_str};

/// The replay window's size when `a2a_push_verifier_new` gets 0.
const DEFAULT_REPLAY_CAPACITY: usize = 4096;
/// The early-refresh margin when `a2a_oauth2_config.refresh_early_ms` is 0.
const DEFAULT_REFRESH_EARLY_MS: u64 = 30_000;

/// Empties `b` and writes `bytes` into it.
fn put(b: &mut a2a_buffer, bytes: &[u8]) {
    b.bytes.clear();
    b.set_error(None);
    b.bytes.extend_from_slice(bytes);
}

/// Empties `b`, writes the JSON report `v` into it (its `detail`, if any, also becomes the
/// buffer's last error) and returns `code`.
fn refuse(b: &mut a2a_buffer, code: a2a_result, v: &Value) -> a2a_result {
    put(b, v.to_string().as_bytes());
    b.set_error(v.get("detail").and_then(Value::as_str).map(str::to_owned));
    code
}

/// `{"reason": reason, "detail": detail}`.
fn report(reason: &str, detail: &str) -> Value {
    json!({"reason": reason, "detail": detail})
}

/// The code for a card-verification failure: the card is not (an object of) JSON, or it is
/// and its signatures do not verify.
fn card_error_code(e: &CardSignatureError) -> a2a_result {
    match e {
        CardSignatureError::Card(_) | CardSignatureError::Shape => a2a_result::A2A_TRUST_JSON,
        _ => a2a_result::A2A_CARD_SIGNATURE,
    }
}

/// Reads a key document (JWK Set, one JWK, PEM public keys); `Err` is the report.
fn keys_from(doc: &[u8]) -> Result<KeyStore, Value> {
    KeyStore::from_document(doc).map_err(|e| report(e.kind(), &e.to_string()))
}

/// RFC 8785 canonical form of `json` (`card_form` false), or of an agent card's signing
/// payload (`card_form` true: fields holding their default removed, `signatures` excluded,
/// what `a2a card canonical` prints). `json` is read during the call only. `out`: emptied,
/// then receives the canonical bytes; on `A2A_TRUST_JSON` it receives the report
/// `{"reason":"<kind>","detail":"<text>"}` instead (kinds: `json`, `duplicate_member`,
/// `lone_surrogate`, ...: the core's `CanonicalError::kind`).
///
/// Errors: `A2A_NULL_PARAMETER`, `A2A_IN_USE`, `A2A_CLOSED` (of `out`), `A2A_TRUST_JSON`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_trust_canonical(
    json: *const u8,
    json_len: usize,
    card_form: bool,
    out: *mut a2a_buffer,
) -> a2a_result {
    ffi_panic_boundary! {
        let b = try_mut!(out);
        let json = try_bytes!(json, json_len);
        let done = if card_form {
            Json::parse(json).map(|v| card_payload(&v))
        } else {
            canonicalize(json)
        };
        match done {
            Ok(bytes) => {
                put(b, &bytes);
                a2a_result::A2A_OK
            }
            Err(e) => refuse(b, a2a_result::A2A_TRUST_JSON, &report(e.kind(), &e.to_string())),
        }
    }
}

/// Verifies an agent card's JWS signatures (A2A 1.0 §8.4.3) against `keys`: a JWK Set
/// document, one JWK, or one or more PEM `PUBLIC KEY` blocks (detected: PEM when it holds
/// `-----BEGIN`, a set when the JSON has `keys`). Passes when at least one signature
/// verifies. Both inputs are read during the call only. `report`: emptied, then receives
/// - `A2A_OK`: `{"verified":true,"kid":..,"alg":"ES256","jku":..|null}`;
/// - `A2A_CARD_SIGNATURE` (none verifies, the card is unsigned, too many signatures):
///   `{"verified":false,"reason":"<kind>","detail":"<text>","signatures":[{"index":0,
///   "kid":..,"alg":..,"rejected":"<kind>","detail":"<text>"}]}` (kinds: `unsigned`,
///   `no_valid_signature`, `too_many_signatures`; per signature `bad_signature`,
///   `unknown_key`, `malformed`, ...);
/// - `A2A_TRUST_JSON` (the card is not JSON, not an object, or `signatures` is not an
///   array): the same object, reason `card_json` or `shape`;
/// - `A2A_TRUST_KEY` (`keys` unreadable or without a usable key):
///   `{"reason":"<kind>","detail":"<text>"}` (the core's `JwkError::kind`).
///
/// Errors: `A2A_NULL_PARAMETER`, `A2A_IN_USE`, `A2A_CLOSED` (of `report`), `A2A_TRUST_JSON`,
/// `A2A_TRUST_KEY`, `A2A_CARD_SIGNATURE`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_card_signature_verify(
    card_json: *const u8,
    card_len: usize,
    keys: *const u8,
    keys_len: usize,
    report: *mut a2a_buffer,
) -> a2a_result {
    ffi_panic_boundary! {
        let b = try_mut!(report);
        let card = try_bytes!(card_json, card_len);
        let keys = try_bytes!(keys, keys_len);
        // The card first: a card that is not JSON is that, whatever the keys.
        if let Err(e) = Json::parse(card) {
            let e: Result<_, _> = Err(CardSignatureError::Card(e));
            return refuse(b, a2a_result::A2A_TRUST_JSON, &verification_report(card, &e));
        }
        let store = match keys_from(keys) {
            Ok(s) => s,
            Err(r) => return refuse(b, a2a_result::A2A_TRUST_KEY, &r),
        };
        let result = verify_card(card, &store);
        let v = verification_report(card, &result);
        match &result {
            Ok(_) => {
                put(b, v.to_string().as_bytes());
                a2a_result::A2A_OK
            }
            Err(e) => refuse(b, card_error_code(e), &v),
        }
    }
}

/// Where to fetch the keys verifying a card from: the first `jku` among the card's
/// signatures that may be fetched, i.e. https, without userinfo, on the host of `card_url`
/// (the URL the card was fetched from) or on one of `extra_hosts` (a comma-separated list of
/// host names or addresses, may be empty). All inputs are read during the call only.
/// `url_out`: emptied, then receives
/// - `A2A_OK`: the URL (text, not JSON);
/// - `A2A_NONE`: nothing (no signature names a `jku`);
/// - `A2A_CARD_SIGNATURE` (every `jku` named is refused):
///   `{"reason":"jku_refused","detail":"<text>","refused":[{"jku":..,"detail":..}]}`;
/// - `A2A_TRUST_JSON` (the card is not JSON, or not an object with a `signatures` array):
///   `{"reason":"card_json"|"shape","detail":..}`.
///
/// Errors: `A2A_NULL_PARAMETER`, `A2A_INVALID_UTF8`, `A2A_IN_USE`, `A2A_CLOSED` (of
/// `url_out`), `A2A_INVALID_ARGUMENT` (`card_url` is not a URL), `A2A_TRUST_JSON`,
/// `A2A_CARD_SIGNATURE`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_card_signature_key_url(
    card_json: *const u8,
    card_len: usize,
    card_url: *const c_char,
    card_url_len: usize,
    extra_hosts: *const c_char,
    extra_hosts_len: usize,
    url_out: *mut a2a_buffer,
) -> a2a_result {
    ffi_panic_boundary! {
        let b = try_mut!(url_out);
        let card = try_bytes!(card_json, card_len);
        let card_url = try_str!(card_url, card_url_len);
        let extra_hosts = try_str!(extra_hosts, extra_hosts_len);
        if Url::parse(card_url).is_err() {
            put(b, b"");
            return a2a_result::A2A_INVALID_ARGUMENT;
        }
        let hosts: Vec<&str> =
            extra_hosts.split(',').map(str::trim).filter(|h| !h.is_empty()).collect();
        let headers = match signature_headers(card) {
            Ok(h) => h,
            Err(e) => {
                return refuse(b, a2a_result::A2A_TRUST_JSON, &report(e.kind(), &e.to_string()));
            }
        };
        let mut refused = Vec::new();
        for jku in headers.iter().filter_map(|h| h.jku.as_deref()) {
            match jku_allowed(jku, card_url, &hosts) {
                Ok(u) => {
                    put(b, u.to_string().as_bytes());
                    return a2a_result::A2A_OK;
                }
                Err(detail) => refused.push(json!({"jku": jku, "detail": detail})),
            }
        }
        if refused.is_empty() {
            put(b, b"");
            return a2a_result::A2A_NONE;
        }
        let detail = refused[0]["detail"].clone();
        refuse(
            b,
            a2a_result::A2A_CARD_SIGNATURE,
            &json!({"reason": "jku_refused", "detail": detail, "refused": refused}),
        )
    }
}

/// Signs an agent card (the server side): adds one entry to its `signatures` (any already
/// there are kept) over its canonical signing form, with the private key `private_key_pem`
/// (PKCS#8 `PRIVATE KEY`: EC P-256 or P-384, RSA, Ed25519; or `RSA PRIVATE KEY`; the
/// algorithm follows the key: ES256, ES384, RS256, EdDSA), protected header `kid` (not
/// empty) and `jku` (NULL/0: none; else an https URL). All inputs are read during the call
/// only; the key is not kept. `signed_out`: emptied, then receives the signed card (compact
/// JSON, members in their order); on an error it receives the report
/// `{"reason":"<kind>","detail":"<text>"}` instead.
///
/// Errors: `A2A_NULL_PARAMETER`, `A2A_INVALID_UTF8`, `A2A_IN_USE`, `A2A_CLOSED` (of
/// `signed_out`), `A2A_INVALID_ARGUMENT` (empty `kid`, reason `kid`; a `jku` that is not an
/// https URL, reason `jku`), `A2A_TRUST_KEY` (the key cannot be read or sign),
/// `A2A_TRUST_JSON` (the card is not a JSON object, reason `card_json` or `shape`).
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub extern "C" fn a2a_card_sign(
    card_json: *const u8,
    card_len: usize,
    private_key_pem: *const u8,
    pem_len: usize,
    kid: *const c_char,
    kid_len: usize,
    jku: *const c_char,
    jku_len: usize,
    signed_out: *mut a2a_buffer,
) -> a2a_result {
    ffi_panic_boundary! {
        let b = try_mut!(signed_out);
        let card = try_bytes!(card_json, card_len);
        let pem = try_bytes!(private_key_pem, pem_len);
        let kid = try_str!(kid, kid_len);
        let jku = Some(try_str!(jku, jku_len)).filter(|j| !j.is_empty());
        if kid.is_empty() {
            return refuse(b, a2a_result::A2A_INVALID_ARGUMENT, &report("kid", "empty kid"));
        }
        if let Some(j) = jku
            && !Url::parse(j).is_ok_and(|u| u.scheme() == "https")
        {
            let detail = format!("jku {j:?} is not an https URL (clients fetch key sets over https only)");
            return refuse(b, a2a_result::A2A_INVALID_ARGUMENT, &report("jku", &detail));
        }
        let rng = SystemRandom::new();
        let key = match SigningKey::from_pem(pem, &rng) {
            Ok(k) => k,
            Err(e) => return refuse(b, a2a_result::A2A_TRUST_KEY, &report("key", &e.to_string())),
        };
        match sign_card(card, &key, kid, jku, &rng) {
            Ok(signed) => {
                put(b, signed.as_bytes());
                a2a_result::A2A_OK
            }
            Err(e) => {
                let code = if e.kind() == "key" {
                    a2a_result::A2A_TRUST_KEY
                } else {
                    a2a_result::A2A_TRUST_JSON
                };
                refuse(b, code, &report(e.kind(), &e.to_string()))
            }
        }
    }
}

/// The receiving end of push notifications: a policy, trusted keys and a replay window.
///
/// Methods: `a2a_push_verifier_new`, `a2a_push_verifier_check`, `a2a_push_verifier_free`.
///
/// Threading: `Send` and thread-safe: checks from several threads are serialised by a mutex
/// inside (each caller passes its own output buffer).
pub struct a2a_push_verifier {
    policy: PushPolicy,
    keys: KeyStore,
    replay: Mutex<ReplayWindow>,
}

impl Handle for a2a_push_verifier {}

/// Reads a push policy: `{"token","audience","issuer","taskId"}` strings (or null),
/// `"skewSecs"`, `"maxAgeSecs"` non-negative integers. Unknown members are refused (a
/// misspelt check would otherwise be skipped silently).
fn policy_from(json: &[u8]) -> Result<PushPolicy, String> {
    let mut p = PushPolicy::default();
    if json.is_empty() {
        return Ok(p);
    }
    let v: Value = serde_json::from_slice(json).map_err(|e| format!("policy: {e}"))?;
    let o = v.as_object().ok_or("policy is not a JSON object")?;
    for (name, value) in o {
        let text = || match value {
            Value::Null => Ok(None),
            Value::String(s) => Ok(Some(s.clone())),
            _ => Err(format!("policy member {name:?} is not a string")),
        };
        let secs = || {
            value
                .as_u64()
                .and_then(|n| i64::try_from(n).ok())
                .ok_or_else(|| format!("policy member {name:?} is not a non-negative integer"))
        };
        match name.as_str() {
            "token" => p.token = text()?,
            "audience" => p.audience = text()?,
            "issuer" => p.issuer = text()?,
            "taskId" => p.task_id = text()?,
            "skewSecs" => p.skew_secs = secs()?,
            "maxAgeSecs" => p.max_age_secs = secs()?,
            other => return Err(format!("policy member {other:?} is unknown")),
        }
    }
    Ok(p)
}

/// A new push-notification verifier. `policy_json` (NULL/0: defaults, i.e. no token, no
/// audience: then only keys can pass a notification):
/// `{"token":..,"audience":..,"issuer":..,"taskId":..,"skewSecs":60,"maxAgeSecs":300}`, every
/// member optional, unknown members refused. `keys`: a JWK Set, one JWK or PEM public keys
/// (as `a2a_card_signature_verify`), or NULL/0 for token-only notifications (with neither a
/// token nor keys every check is rejected, reason `not_configured`). `replay_capacity`: how
/// many accepted notifications the replay window remembers (0: 4096). Inputs are copied.
/// `out`: receives a new verifier the caller owns (free with `a2a_push_verifier_free`);
/// written on success only.
///
/// Errors: `A2A_NULL_PARAMETER`, `A2A_TRUST_JSON` (the policy), `A2A_TRUST_KEY` (the keys).
#[unsafe(no_mangle)]
pub extern "C" fn a2a_push_verifier_new(
    policy_json: *const u8,
    policy_len: usize,
    keys: *const u8,
    keys_len: usize,
    replay_capacity: usize,
    out: *mut *mut a2a_push_verifier,
) -> a2a_result {
    ffi_panic_boundary! {
        let out = try_out!(out);
        let policy = try_bytes!(policy_json, policy_len);
        let keys = try_bytes!(keys, keys_len);
        let Ok(policy) = policy_from(policy) else {
            return a2a_result::A2A_TRUST_JSON;
        };
        let keys = if keys.is_empty() {
            KeyStore::new()
        } else {
            match KeyStore::from_document(keys) {
                Ok(k) => k,
                Err(_) => return a2a_result::A2A_TRUST_KEY,
            }
        };
        let capacity = if replay_capacity == 0 { DEFAULT_REPLAY_CAPACITY } else { replay_capacity };
        out.set(handle::into_raw(a2a_push_verifier {
            policy,
            keys,
            replay: Mutex::new(ReplayWindow::new(capacity)),
        }));
        a2a_result::A2A_OK
    }
}

/// Checks one notification: the request's `header_count` headers (names case-insensitive:
/// `X-A2A-Notification-Token` or a2a-go v2's `A2A-Notification-Token`, `Authorization: Bearer <JWT>`), its body, and the wall clock
/// `now_unix_secs` (seconds since the Unix epoch). All inputs are read during the call only.
/// `verdict_out`: emptied, then receives the verdict JSON, the object `a2a push verify`
/// prints: accepted `{"verdict":"accepted","accepted":true,"taskId":..,"event":..,
/// "proofs":[..],"replayId":..}`, rejected `{"verdict":"rejected","accepted":false,
/// "reason":"<kind>","message":"<text>"}` (kinds: `not_configured`, `body`, `no_task_id`,
/// `task_mismatch`, `token_missing`, `token_mismatch`, `jwt_missing`, `jwt`,
/// `claim_missing`, `wrong_audience`, `wrong_issuer`, `expired`, `not_yet_valid`, `too_old`,
/// `replayed`). An accepted notification is remembered, so the same one again is
/// `replayed`; a rejected one is not.
///
/// Errors: `A2A_NULL_PARAMETER`, `A2A_INVALID_UTF8`, `A2A_INVALID_ARGUMENT`, `A2A_IN_USE`,
/// `A2A_CLOSED` (of `verdict_out`, or the verifier is being freed), `A2A_PUSH_REJECTED`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_push_verifier_check(
    verifier: *mut a2a_push_verifier,
    headers: *const a2a_header,
    header_count: usize,
    body: *const u8,
    body_len: usize,
    now_unix_secs: i64,
    verdict_out: *mut a2a_buffer,
) -> a2a_result {
    ffi_panic_boundary! {
        let v = try_shared!(verifier);
        let b = try_mut!(verdict_out);
        // SAFETY: the header documents that `headers` points to `header_count` headers.
        let headers = try_input!(unsafe { headers_from(headers, header_count) });
        let body = try_bytes!(body, body_len);
        let verdict = {
            let Ok(mut replay) = v.replay.lock() else {
                return a2a_result::A2A_PANIC;
            };
            verify_notification(&headers, body, &v.policy, &v.keys, now_unix_secs, &mut replay)
        };
        put(b, verdict.to_json().to_string().as_bytes());
        match verdict {
            Verdict::Accepted(_) => a2a_result::A2A_OK,
            Verdict::Rejected(r) => {
                b.set_error(Some(r.to_string()));
                a2a_result::A2A_PUSH_REJECTED
            }
        }
    }
}

/// Frees a verifier. NULL is a no-op; must not be called twice. Waits for checks running on
/// other threads to return.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_push_verifier_free(verifier: *mut a2a_push_verifier) {
    ffi_panic_boundary! {
        // SAFETY: the header requires a pointer from this library, not yet freed.
        unsafe { handle::free(verifier) }
    }
}

/// The sender side: may a push config's webhook URL be called? Refuses a URL that does not
/// parse (reason `invalid`), is not https (`scheme`; plain http passes when `allow_http`),
/// carries userinfo (`userinfo`), or names a loopback, private, link-local, unique-local,
/// shared, unspecified or multicast address or a `localhost` name (`internal`); `resolved`
/// (NULL/0, or a comma-separated list of the IP addresses the host resolved to, an IPv6
/// zone `%...` ignored) is checked with the same address rules, so connect only after this
/// passed on what the resolver returned. Inputs are read during the call only.
/// `reason_out`: emptied; on a refusal it receives `{"reason":"<kind>","detail":"<text>"}`.
///
/// Errors: `A2A_NULL_PARAMETER`, `A2A_INVALID_UTF8`, `A2A_IN_USE`, `A2A_CLOSED` (of
/// `reason_out`), `A2A_INVALID_ARGUMENT` (an entry of `resolved` is not an IP address;
/// report reason `resolved`), `A2A_WEBHOOK_REFUSED`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_webhook_url_check(
    url: *const c_char,
    url_len: usize,
    allow_http: bool,
    resolved: *const c_char,
    resolved_len: usize,
    reason_out: *mut a2a_buffer,
) -> a2a_result {
    ffi_panic_boundary! {
        let b = try_mut!(reason_out);
        let url = try_str!(url, url_len);
        let resolved = try_str!(resolved, resolved_len);
        let mut addrs = Vec::new();
        for a in resolved.split(',').map(str::trim).filter(|a| !a.is_empty()) {
            let bare = a.split('%').next().unwrap_or(a);
            let bare = bare.strip_prefix('[').and_then(|s| s.strip_suffix(']')).unwrap_or(bare);
            match bare.parse::<IpAddr>() {
                Ok(ip) => addrs.push(ip),
                Err(_) => {
                    let detail = format!("resolved address {a:?} is not an IP address");
                    return refuse(b, a2a_result::A2A_INVALID_ARGUMENT, &report("resolved", &detail));
                }
            }
        }
        let policy = WebhookPolicy { allow_http, allow_internal: false };
        match check_url(url, policy).and_then(|_| check_resolved(&addrs, policy)) {
            Ok(()) => {
                put(b, b"");
                a2a_result::A2A_OK
            }
            Err(e) => refuse(b, a2a_result::A2A_WEBHOOK_REFUSED, &report(e.kind(), &e.to_string())),
        }
    }
}

/// The configuration of an OAuth 2.0 client-credentials client (`a2a_oauth2_new`). Every
/// view is read during `a2a_oauth2_new` only (copied). Fields are only ever appended.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct a2a_oauth2_config {
    /// The token endpoint (https; plain http only to a loopback host with
    /// `allow_http_loopback`). Empty `(NULL, 0)`: the `tokenUrl` of `card`'s
    /// `clientCredentials` flow.
    pub token_url: a2a_str,
    /// A card handle holding a parsed card (`a2a_card_parse`), read during `a2a_oauth2_new`
    /// only; may be NULL when `token_url` is given.
    pub card: *const a2a_card,
    /// The client id (not empty).
    pub client_id: a2a_str,
    /// The client secret: copied, never logged, never in any report or last error.
    pub client_secret: a2a_str,
    /// Space-separated scopes to ask for; empty: none.
    pub scope: a2a_str,
    /// True: HTTP Basic client authentication (RFC 6749's default); false: `client_id` and
    /// `client_secret` in the form body.
    pub basic_auth: bool,
    /// How long before the token expires a new one is fetched, ms (0: 30000).
    pub refresh_early_ms: u64,
    /// A plain-http token URL on a loopback host is allowed (tests, local development).
    pub allow_http_loopback: bool,
}

/// An OAuth 2.0 client-credentials client (RFC 6749 §4.4), sans-IO: one token per handle,
/// fetched by one caller at a time (single flight), refreshed early before it expires.
///
/// Methods: `a2a_oauth2_new`, `a2a_oauth2_token`, `a2a_oauth2_request`,
/// `a2a_oauth2_handle_response`, `a2a_oauth2_invalidate`, `a2a_oauth2_free`.
///
/// Threading: `Send` and thread-safe: calls from several threads are serialised by a mutex
/// inside (each caller passes its own output buffers).
pub struct a2a_oauth2 {
    client: ClientCredentials,
    state: Mutex<OAuth2State>,
}

/// The mutable part of an `a2a_oauth2`.
struct OAuth2State {
    tracker: TokenTracker,
    /// A caller was told to fetch (`A2A_NEED_MORE`) and has not handed the answer back.
    fetching: bool,
}

impl Handle for a2a_oauth2 {}

/// A new OAuth 2.0 client-credentials client from `config` (see `a2a_oauth2_config`; read
/// during the call only, everything copied). `out`: receives a new client the caller owns
/// (free with `a2a_oauth2_free`); written on success only.
///
/// Errors: `A2A_NULL_PARAMETER`, `A2A_INVALID_UTF8`, `A2A_INVALID_ARGUMENT` (no token URL
/// given and none in the card, or `card` holds no parsed card; a token URL that does not
/// parse, is not https (plain http allowed only to loopback with `allow_http_loopback`) or
/// carries userinfo; an empty client id).
#[unsafe(no_mangle)]
pub extern "C" fn a2a_oauth2_new(
    config: *const a2a_oauth2_config,
    out: *mut *mut a2a_oauth2,
) -> a2a_result {
    ffi_panic_boundary! {
        let c = try_ref!(config);
        let out = try_out!(out);
        let token_url = try_str!(c.token_url.ptr, c.token_url.len);
        let client_id = try_str!(c.client_id.ptr, c.client_id.len);
        let secret = try_str!(c.client_secret.ptr, c.client_secret.len);
        let scope = try_str!(c.scope.ptr, c.scope.len);
        let from_card;
        let token_url = if token_url.is_empty() {
            if c.card.is_null() {
                return a2a_result::A2A_INVALID_ARGUMENT;
            }
            // SAFETY: non-NULL; the header requires a live card handle, only read here.
            let card = unsafe { &*c.card };
            match card.agent_card().and_then(|a| a.client_credentials_token_url()) {
                Some(u) => {
                    from_card = u.to_owned();
                    from_card.as_str()
                }
                None => return a2a_result::A2A_INVALID_ARGUMENT,
            }
        } else {
            token_url
        };
        let Ok(client) = ClientCredentials::new_loopback_http(
            token_url,
            client_id,
            Secret::new(secret),
            c.allow_http_loopback,
        ) else {
            return a2a_result::A2A_INVALID_ARGUMENT;
        };
        let auth = if c.basic_auth { ClientAuth::Basic } else { ClientAuth::Post };
        let client = client.with_scope(Some(scope.to_owned())).with_auth(auth);
        let early = if c.refresh_early_ms == 0 { DEFAULT_REFRESH_EARLY_MS } else { c.refresh_early_ms };
        out.set(handle::into_raw(a2a_oauth2 {
            client,
            state: Mutex::new(OAuth2State { tracker: TokenTracker::new(early), fetching: false }),
        }));
        a2a_result::A2A_OK
    }
}

/// What to do at `now_ms` (the wall clock, ms since the Unix epoch) before a call that
/// needs the token. `token_out`: emptied, then
/// - `A2A_OK`: receives the access token, to send as `Authorization: Bearer <token>` to the
///   validated interface host only;
/// - `A2A_NEED_MORE`: this caller must fetch one: `a2a_oauth2_request`, perform it, then
///   `a2a_oauth2_handle_response` exactly once (also on a transport failure, status 0);
///   meanwhile other callers get the current token while it is still valid, else
///   `A2A_IN_USE`;
/// - `A2A_IN_USE`: another caller is fetching and no valid token exists: wait briefly and ask
///   again.
///
/// Errors: `A2A_NULL_PARAMETER`, `A2A_CLOSED`, `A2A_IN_USE` (also: `token_out` is in use).
#[unsafe(no_mangle)]
pub extern "C" fn a2a_oauth2_token(
    oauth2: *mut a2a_oauth2,
    now_ms: u64,
    token_out: *mut a2a_buffer,
) -> a2a_result {
    ffi_panic_boundary! {
        let o = try_shared!(oauth2);
        let b = try_mut!(token_out);
        put(b, b"");
        let Ok(mut st) = o.state.lock() else {
            return a2a_result::A2A_PANIC;
        };
        match st.tracker.step(now_ms) {
            TokenStep::Use(t) => {
                put(b, t.expose().as_bytes());
                a2a_result::A2A_OK
            }
            TokenStep::Fetch => {
                st.fetching = true;
                a2a_result::A2A_NEED_MORE
            }
            TokenStep::Wait => a2a_result::A2A_IN_USE,
        }
    }
}

/// The token request to perform (RFC 6749 §4.4.2): `POST` to `url_out`'s URL with body
/// `form_out` and headers `Content-Type: application/x-www-form-urlencoded`,
/// `Accept: application/json` and, when `authorization_out` is not empty,
/// `Authorization: <authorization_out>` (HTTP Basic). Each buffer is emptied, then written.
/// `form_out` holds the client secret with form-post authentication and
/// `authorization_out` with Basic: send them only to the token URL, never log them.
///
/// Errors: `A2A_NULL_PARAMETER`, `A2A_IN_USE`, `A2A_CLOSED` (of the buffers, or the client
/// is being freed).
#[unsafe(no_mangle)]
pub extern "C" fn a2a_oauth2_request(
    oauth2: *const a2a_oauth2,
    url_out: *mut a2a_buffer,
    form_out: *mut a2a_buffer,
    authorization_out: *mut a2a_buffer,
) -> a2a_result {
    ffi_panic_boundary! {
        let o = try_shared!(oauth2);
        let u = try_mut!(url_out);
        let f = try_mut!(form_out);
        let a = try_mut!(authorization_out);
        let r = o.client.request();
        put(u, r.url.as_bytes());
        put(f, r.body.as_bytes());
        let auth = r
            .headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case("authorization"))
            .map_or("", |(_, v)| v.as_str());
        put(a, auth.as_bytes());
        a2a_result::A2A_OK
    }
}

/// Hands the token endpoint's answer back (HTTP `status`, 0 when the request failed in
/// transport; `body`, read during the call only) at `now_ms` (wall clock, ms since the Unix
/// epoch). Only valid after this handle's `a2a_oauth2_token` returned `A2A_NEED_MORE` and
/// before the answer was handed back. `error_out`: emptied; on `A2A_OAUTH2_REFUSED` it
/// receives `{"reason":"<kind>","error":"invalid_client"|..|null,"detail":"<text>"}`
/// (kinds: `transport`, `refused` (an RFC 6749 §5.2 error, in `error`), `status`, `body`,
/// `no_access_token`, `token_type`, `expires_in`); the next `a2a_oauth2_token` may then fetch
/// again.
///
/// Errors: `A2A_NULL_PARAMETER`, `A2A_IN_USE`, `A2A_CLOSED`, `A2A_INVALID_ARGUMENT` (no
/// fetch is outstanding), `A2A_OAUTH2_REFUSED`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_oauth2_handle_response(
    oauth2: *mut a2a_oauth2,
    status: u16,
    body: *const u8,
    body_len: usize,
    now_ms: u64,
    error_out: *mut a2a_buffer,
) -> a2a_result {
    ffi_panic_boundary! {
        let o = try_shared!(oauth2);
        let b = try_mut!(error_out);
        let body = try_bytes!(body, body_len);
        put(b, b"");
        let Ok(mut st) = o.state.lock() else {
            return a2a_result::A2A_PANIC;
        };
        if !st.fetching {
            return a2a_result::A2A_INVALID_ARGUMENT;
        }
        st.fetching = false;
        if status == 0 {
            st.tracker.failed();
            let v = json!({"reason": "transport", "error": null,
                           "detail": "the token request failed in transport"});
            return refuse(b, a2a_result::A2A_OAUTH2_REFUSED, &v);
        }
        match parse_response(status, body) {
            Ok(token) => {
                st.tracker.fetched(token, now_ms);
                a2a_result::A2A_OK
            }
            Err(e) => {
                st.tracker.failed();
                let code = match &e {
                    TokenError::Refused { code, .. } => Some(code.as_str().to_owned()),
                    _ => None,
                };
                let v = json!({"reason": e.kind(), "error": code, "detail": e.to_string()});
                refuse(b, a2a_result::A2A_OAUTH2_REFUSED, &v)
            }
        }
    }
}

/// Forgets the token (the agent answered 401 with it): the next `a2a_oauth2_token` fetches
/// a new one. A fetch in flight is not affected. NULL is a no-op.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_oauth2_invalidate(oauth2: *mut a2a_oauth2) {
    ffi_panic_boundary! {
        let o = try_shared!(oauth2);
        if let Ok(mut st) = o.state.lock() {
            st.tracker.invalidate();
        }
    }
}

/// Frees a client (and the token and secret it holds). NULL is a no-op; must not be called
/// twice. Waits for calls running on other threads to return.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_oauth2_free(oauth2: *mut a2a_oauth2) {
    ffi_panic_boundary! {
        // SAFETY: the header requires a pointer from this library, not yet freed.
        unsafe { handle::free(oauth2) }
    }
}
