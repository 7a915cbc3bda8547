//! The receiving end of push notifications (A2A 1.0 §4.3.3, §13.2): is this POST really from
//! the agent, about the task the webhook was registered for, and new?
//!
//! [`verify_notification`] takes the request's headers and body, the receiver's
//! [`PushPolicy`] (the config's token, the expected audience and issuer, the task id), the
//! keys it trusts, the wall clock (seconds since the Unix epoch, from the caller) and a
//! [`ReplayWindow`], and returns one [`Verdict`]. Checks, in order:
//! 1. the body is one `StreamResponse` (`task`, `message`, `statusUpdate`, `artifactUpdate`;
//!    a 0.3 body is a bare task) and names the task the config is for;
//! 2. the config's token, when set, equals `X-A2A-Notification-Token` (compared in constant
//!    time);
//! 3. when keys are given, `Authorization: Bearer <JWT>` verifies with one of them and its
//!    claims hold: `aud` contains the audience, `iss` is the issuer (when set), `exp` and
//!    `iat` are present, not expired and not from the future beyond the skew, `iat` not
//!    older than the maximum age, `nbf` reached, and a `taskId` claim (when present) equal to
//!    the body's task;
//! 4. the notification was not seen before: keyed by the JWT's `jti`, or without a JWT by the
//!    SHA-256 of the body, remembered until the token expires (or for the maximum age).
//!
//! Nothing is remembered for a notification that fails a check, so a forged copy cannot
//! block the real one.

use std::collections::{HashSet, VecDeque};

use serde_json::Value;

use super::card_sig::KeyStore;
use super::jwt::{self, JwtError};

/// The header a token-authenticated notification carries its token in (the name the
/// Python a2a-sdk sender uses in 0.3 and 1.0, and a2a-go v0.3's).
pub const TOKEN_HEADER: &str = "X-A2A-Notification-Token";

/// The same header without `X-`, as a2a-go v2 sends it. The specification names neither
/// (§4.3.3 shows only `Authorization`), so the receiver reads both.
pub const TOKEN_HEADER_UNPREFIXED: &str = "A2A-Notification-Token";

/// What the receiver expects of a notification.
#[derive(Clone, PartialEq, Eq)]
pub struct PushPolicy {
    /// The config's `token`: the notification must carry it in [`TOKEN_HEADER`] (or
    /// [`TOKEN_HEADER_UNPREFIXED`]).
    pub token: Option<String>,
    /// The JWT's `aud` must contain this (the webhook URL, as registered).
    pub audience: Option<String>,
    /// The JWT's `iss` must be this, when set.
    pub issuer: Option<String>,
    /// The task the config was registered for; the body must be about it.
    pub task_id: Option<String>,
    /// Allowed clock difference, seconds (default 60).
    pub skew_secs: i64,
    /// The oldest `iat` accepted, seconds before now (default 300).
    pub max_age_secs: i64,
}

impl Default for PushPolicy {
    fn default() -> PushPolicy {
        PushPolicy {
            token: None,
            audience: None,
            issuer: None,
            task_id: None,
            skew_secs: 60,
            max_age_secs: 300,
        }
    }
}

// The token is a secret: never printed.
impl std::fmt::Debug for PushPolicy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PushPolicy")
            .field("token", &self.token.as_ref().map(|_| "<redacted>"))
            .field("audience", &self.audience)
            .field("issuer", &self.issuer)
            .field("task_id", &self.task_id)
            .field("skew_secs", &self.skew_secs)
            .field("max_age_secs", &self.max_age_secs)
            .finish()
    }
}

/// The ids seen recently, each until its own expiry; at most `capacity` of them (the oldest
/// is forgotten first when full).
#[derive(Debug, Clone)]
pub struct ReplayWindow {
    capacity: usize,
    order: VecDeque<(String, i64)>,
    seen: HashSet<String>,
}

impl ReplayWindow {
    /// A window remembering at most `capacity` ids (at least 1).
    pub fn new(capacity: usize) -> ReplayWindow {
        ReplayWindow {
            capacity: capacity.max(1),
            order: VecDeque::new(),
            seen: HashSet::new(),
        }
    }

    /// How many ids are remembered now.
    pub fn len(&self) -> usize {
        self.order.len()
    }

    /// Whether no id is remembered.
    pub fn is_empty(&self) -> bool {
        self.order.is_empty()
    }

    fn expire(&mut self, now: i64) {
        // Entries are not sorted by expiry; a full scan keeps the bound exact and is O(n)
        // for a window of a few thousand ids.
        let seen = &mut self.seen;
        self.order.retain(|(id, until)| {
            let keep = *until >= now;
            if !keep {
                seen.remove(id);
            }
            keep
        });
    }

    fn contains(&mut self, id: &str, now: i64) -> bool {
        self.expire(now);
        self.seen.contains(id)
    }

    fn insert(&mut self, id: String, until: i64) {
        if self.order.len() >= self.capacity
            && let Some((old, _)) = self.order.pop_front()
        {
            self.seen.remove(&old);
        }
        self.seen.insert(id.clone());
        self.order.push_back((id, until));
    }
}

/// How the notification proved where it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Proof {
    /// The config's token.
    Token,
    /// A JWT signed by a trusted key.
    Jwt {
        /// Its algorithm.
        alg: String,
        /// Its `kid`.
        kid: Option<String>,
        /// Its `iss`.
        iss: Option<String>,
        /// Its `jti`.
        jti: Option<String>,
    },
}

/// An accepted notification.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Accepted {
    /// The task it is about (empty for a message without a task).
    pub task_id: String,
    /// Which `StreamResponse` member it carried: `task`, `message`, `statusUpdate`,
    /// `artifactUpdate`.
    pub event: &'static str,
    /// What it was checked with.
    pub proofs: Vec<Proof>,
    /// The id it is remembered by in the replay window (`jti:…` or `sha256:…`).
    pub replay_id: String,
}

/// Why a notification was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PushRejection {
    /// The policy checks nothing: no token and no keys (a misconfigured receiver).
    #[error("nothing to check the notification with: configure a token or trusted keys")]
    NotConfigured,
    /// The body is not one `StreamResponse` object.
    #[error("body is not a push notification: {0}")]
    Body(String),
    /// The body names no task while the config is for one.
    #[error("notification names no task (expected {0:?})")]
    NoTaskId(String),
    /// The body, or the JWT, is about another task.
    #[error("notification is about task {got:?}, not {expected:?}")]
    TaskMismatch {
        /// The task expected.
        expected: String,
        /// The task named.
        got: String,
    },
    /// The token header is missing.
    #[error("no {TOKEN_HEADER} header")]
    TokenMissing,
    /// The token header does not match the config's token.
    #[error("{TOKEN_HEADER} does not match the config's token")]
    TokenMismatch,
    /// No `Authorization: Bearer` header while keys are configured.
    #[error("no 'Authorization: Bearer' token")]
    JwtMissing,
    /// The JWT does not verify or cannot be read.
    #[error("JWT refused: {0}")]
    Jwt(JwtError),
    /// A claim the receiver needs is missing (`exp`, `iat`, `aud`, `iss`).
    #[error("JWT has no {0:?} claim")]
    ClaimMissing(&'static str),
    /// `aud` does not contain the audience.
    #[error("JWT audience {got:?} does not contain {expected:?}")]
    WrongAudience {
        /// The audience expected.
        expected: String,
        /// What the token says.
        got: Vec<String>,
    },
    /// `iss` is not the issuer.
    #[error("JWT issuer {got:?} is not {expected:?}")]
    WrongIssuer {
        /// The issuer expected.
        expected: String,
        /// What the token says.
        got: String,
    },
    /// `exp` has passed (beyond the skew).
    #[error("JWT expired at {exp} (now {now}, skew {skew}s)")]
    Expired {
        /// The token's `exp`.
        exp: i64,
        /// The caller's clock.
        now: i64,
        /// The skew allowed.
        skew: i64,
    },
    /// `nbf` or `iat` is in the future (beyond the skew).
    #[error("JWT not valid yet ({claim} {at}, now {now})")]
    NotYetValid {
        /// `nbf` or `iat`.
        claim: &'static str,
        /// Its value.
        at: i64,
        /// The caller's clock.
        now: i64,
    },
    /// `iat` is older than the maximum age.
    #[error("JWT issued at {iat}, older than {max_age}s (now {now})")]
    TooOld {
        /// The token's `iat`.
        iat: i64,
        /// The caller's clock.
        now: i64,
        /// The maximum age.
        max_age: i64,
    },
    /// Seen before, within the replay window.
    #[error("replayed notification ({0})")]
    Replayed(String),
}

impl PushRejection {
    /// A stable snake_case name for the rejection.
    pub fn kind(&self) -> &'static str {
        match self {
            PushRejection::NotConfigured => "not_configured",
            PushRejection::Body(_) => "body",
            PushRejection::NoTaskId(_) => "no_task_id",
            PushRejection::TaskMismatch { .. } => "task_mismatch",
            PushRejection::TokenMissing => "token_missing",
            PushRejection::TokenMismatch => "token_mismatch",
            PushRejection::JwtMissing => "jwt_missing",
            PushRejection::Jwt(_) => "jwt",
            PushRejection::ClaimMissing(_) => "claim_missing",
            PushRejection::WrongAudience { .. } => "wrong_audience",
            PushRejection::WrongIssuer { .. } => "wrong_issuer",
            PushRejection::Expired { .. } => "expired",
            PushRejection::NotYetValid { .. } => "not_yet_valid",
            PushRejection::TooOld { .. } => "too_old",
            PushRejection::Replayed(_) => "replayed",
        }
    }
}

/// The outcome of [`verify_notification`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Authentic, about the expected task, and new: process it.
    Accepted(Accepted),
    /// Refused: answer with an error status and do not process it.
    Rejected(PushRejection),
}

impl Verdict {
    /// The verdict as one JSON object (`{"verdict":"accepted","accepted":true,...}` or
    /// `{"verdict":"rejected","accepted":false,"reason":...,"message":...}`); secrets never
    /// appear.
    pub fn to_json(&self) -> Value {
        match self {
            Verdict::Accepted(a) => {
                let proofs: Vec<Value> = a
                    .proofs
                    .iter()
                    .map(|p| match p {
                        Proof::Token => serde_json::json!({"type": "token"}),
                        Proof::Jwt { alg, kid, iss, jti } => serde_json::json!(
                            {"type": "jwt", "alg": alg, "kid": kid, "iss": iss, "jti": jti}),
                    })
                    .collect();
                serde_json::json!({"verdict": "accepted", "accepted": true, "taskId": a.task_id,
                                   "event": a.event, "proofs": proofs, "replayId": a.replay_id})
            }
            Verdict::Rejected(r) => serde_json::json!(
                {"verdict": "rejected", "accepted": false, "reason": r.kind(),
                 "message": r.to_string()}),
        }
    }
}

/// Verifies one notification (see the module docs). `headers` are the request's, names
/// case-insensitive; `now` is the caller's wall clock in seconds since the Unix epoch.
pub fn verify_notification(
    headers: &[(&str, &str)],
    body: &[u8],
    policy: &PushPolicy,
    keys: &KeyStore,
    now: i64,
    replay: &mut ReplayWindow,
) -> Verdict {
    match check(headers, body, policy, keys, now, replay) {
        Ok(a) => Verdict::Accepted(a),
        Err(r) => Verdict::Rejected(r),
    }
}

fn header<'a>(headers: &[(&str, &'a str)], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|(n, _)| n.trim().eq_ignore_ascii_case(name))
        .map(|(_, v)| v.trim())
}

/// The token of a notification, under either spelling ([`TOKEN_HEADER`],
/// [`TOKEN_HEADER_UNPREFIXED`]). Two different values fail closed as a mismatch: a sender
/// writes one token, so a second means something on the way added it, and picking either
/// would let it choose which one is checked.
fn notification_token<'a>(headers: &[(&str, &'a str)]) -> Result<&'a str, PushRejection> {
    let mut found: Option<&str> = None;
    for (name, value) in headers {
        let name = name.trim();
        if !(name.eq_ignore_ascii_case(TOKEN_HEADER)
            || name.eq_ignore_ascii_case(TOKEN_HEADER_UNPREFIXED))
        {
            continue;
        }
        match found {
            Some(seen) if seen != value.trim() => return Err(PushRejection::TokenMismatch),
            _ => found = Some(value.trim()),
        }
    }
    found.ok_or(PushRejection::TokenMissing)
}

/// Equal bytes, in time that depends only on the lengths.
fn same_secret(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// The event and the task id of a `StreamResponse` body (1.0), or of a bare 0.3 task.
fn event_of(body: &[u8]) -> Result<(&'static str, Option<String>), PushRejection> {
    let v: Value =
        serde_json::from_slice(body).map_err(|e| PushRejection::Body(format!("not JSON: {e}")))?;
    let o = v
        .as_object()
        .ok_or_else(|| PushRejection::Body("not a JSON object".into()))?;
    let members = ["task", "message", "statusUpdate", "artifactUpdate"];
    let present: Vec<&'static str> = members.into_iter().filter(|m| o.contains_key(*m)).collect();
    let text = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).map(str::to_owned);
    match present.as_slice() {
        [one] => {
            let inner = &o[*one];
            let id = match *one {
                "task" => text(inner, "id"),
                _ => text(inner, "taskId"),
            };
            Ok((one, id))
        }
        [] if o.get("kind").and_then(Value::as_str) == Some("task") => Ok(("task", text(&v, "id"))),
        [] => Err(PushRejection::Body(
            "no task, message, statusUpdate or artifactUpdate".into(),
        )),
        _ => Err(PushRejection::Body(format!(
            "more than one event: {}",
            present.join(", ")
        ))),
    }
}

#[allow(
    clippy::too_many_lines,
    reason = "the checks run in the documented order (module docs, steps 1 to 4), each a short block; split, the order would no longer be visible in one place"
)]
fn check(
    headers: &[(&str, &str)],
    body: &[u8],
    policy: &PushPolicy,
    keys: &KeyStore,
    now: i64,
    replay: &mut ReplayWindow,
) -> Result<Accepted, PushRejection> {
    if policy.token.is_none() && keys.is_empty() {
        return Err(PushRejection::NotConfigured);
    }
    let (event, task) = event_of(body)?;
    if let Some(expected) = &policy.task_id {
        match &task {
            None => return Err(PushRejection::NoTaskId(expected.clone())),
            Some(got) if got != expected => {
                return Err(PushRejection::TaskMismatch {
                    expected: expected.clone(),
                    got: got.clone(),
                });
            }
            Some(_) => {}
        }
    }
    let task_id = task.unwrap_or_default();
    let mut proofs = Vec::new();
    if let Some(token) = &policy.token {
        let got = notification_token(headers)?;
        if !same_secret(got.as_bytes(), token.as_bytes()) {
            return Err(PushRejection::TokenMismatch);
        }
        proofs.push(Proof::Token);
    }
    let mut replay_id = None;
    let mut remember_until = now.saturating_add(policy.max_age_secs.max(0));
    if !keys.is_empty() {
        let auth = header(headers, "authorization").ok_or(PushRejection::JwtMissing)?;
        let token = match auth.split_once(' ') {
            Some((scheme, t)) if scheme.eq_ignore_ascii_case("bearer") => t.trim(),
            _ => return Err(PushRejection::JwtMissing),
        };
        let (h, c) = jwt::verify(token, keys).map_err(PushRejection::Jwt)?;
        let skew = policy.skew_secs.max(0);
        let exp = c.exp.ok_or(PushRejection::ClaimMissing("exp"))?;
        let iat = c.iat.ok_or(PushRejection::ClaimMissing("iat"))?;
        if now > exp.saturating_add(skew) {
            return Err(PushRejection::Expired { exp, now, skew });
        }
        if iat > now.saturating_add(skew) {
            return Err(PushRejection::NotYetValid {
                claim: "iat",
                at: iat,
                now,
            });
        }
        if let Some(nbf) = c.nbf
            && nbf > now.saturating_add(skew)
        {
            return Err(PushRejection::NotYetValid {
                claim: "nbf",
                at: nbf,
                now,
            });
        }
        let max_age = policy.max_age_secs.max(0);
        if now.saturating_sub(iat) > max_age.saturating_add(skew) {
            return Err(PushRejection::TooOld { iat, now, max_age });
        }
        if let Some(aud) = &policy.audience {
            if c.aud.is_empty() {
                return Err(PushRejection::ClaimMissing("aud"));
            }
            if !c.aud.iter().any(|a| a == aud) {
                return Err(PushRejection::WrongAudience {
                    expected: aud.clone(),
                    got: c.aud.clone(),
                });
            }
        }
        if let Some(iss) = &policy.issuer {
            match &c.iss {
                None => return Err(PushRejection::ClaimMissing("iss")),
                Some(got) if got != iss => {
                    return Err(PushRejection::WrongIssuer {
                        expected: iss.clone(),
                        got: got.clone(),
                    });
                }
                Some(_) => {}
            }
        }
        if let Some(claimed) = &c.task_id
            && *claimed != task_id
        {
            return Err(PushRejection::TaskMismatch {
                expected: claimed.clone(),
                got: task_id,
            });
        }
        if let Some(j) = &c.jti {
            replay_id = Some(format!("jti:{j}"));
        }
        remember_until = exp.saturating_add(skew);
        proofs.push(Proof::Jwt {
            alg: h.alg.as_str().to_owned(),
            kid: h.kid,
            iss: c.iss,
            jti: c.jti,
        });
    }
    let replay_id = replay_id.unwrap_or_else(|| {
        let digest = ring::digest::digest(&ring::digest::SHA256, body);
        let hex: String = digest.as_ref().iter().map(|b| format!("{b:02x}")).collect();
        format!("sha256:{hex}")
    });
    if replay.contains(&replay_id, now) {
        return Err(PushRejection::Replayed(replay_id));
    }
    replay.insert(replay_id.clone(), remember_until);
    Ok(Accepted {
        task_id,
        event,
        proofs,
        replay_id,
    })
}
