//! The push notification verifier: every check passing and each one failing.

use serde_json::json;

use super::SystemRandom;
use super::card_sig::KeyStore;
use super::jwks::JwkSet;
use super::jws::SigningKey;
use super::jwt;
use super::push::{Proof, PushPolicy, PushRejection, ReplayWindow, Verdict, verify_notification};

const NOW: i64 = 1_800_000_000;
const HOOK: &str = "https://client.example/hooks/a2a";

fn key(pem: &[u8]) -> SigningKey {
    SigningKey::from_pem(pem, &SystemRandom::new()).unwrap()
}

fn keys_of(k: &SigningKey, kid: &str) -> KeyStore {
    let set = JwkSet::parse(json!({"keys": [k.public_jwk(kid)]}).to_string().as_bytes()).unwrap();
    let mut s = KeyStore::new();
    s.add_set(&set);
    s
}

fn token(k: &SigningKey, kid: &str, claims: serde_json::Value) -> String {
    let serde_json::Value::Object(m) = claims else {
        panic!()
    };
    jwt::sign(&m, k, kid, &SystemRandom::new()).unwrap()
}

fn claims() -> serde_json::Value {
    json!({"iss": "https://agent.example", "aud": HOOK, "iat": NOW - 5, "exp": NOW + 300,
           "jti": "n-1", "taskId": "t-1"})
}

fn body(task: &str) -> Vec<u8> {
    json!({"statusUpdate": {"taskId": task, "contextId": "c", "status": {"state": "TASK_STATE_WORKING"}}})
        .to_string()
        .into_bytes()
}

fn policy() -> PushPolicy {
    PushPolicy {
        audience: Some(HOOK.into()),
        issuer: Some("https://agent.example".into()),
        task_id: Some("t-1".into()),
        ..PushPolicy::default()
    }
}

fn reject(v: Verdict) -> PushRejection {
    match v {
        Verdict::Rejected(r) => r,
        Verdict::Accepted(a) => panic!("accepted: {a:?}"),
    }
}

#[test]
fn a_signed_notification_is_accepted_once() {
    for pem in [
        &include_bytes!("testdata/p256.pem")[..],
        include_bytes!("testdata/rsa2048.pem"),
        include_bytes!("testdata/ed25519.pem"),
    ] {
        let k = key(pem);
        let keys = keys_of(&k, "push-1");
        let auth = format!("Bearer {}", token(&k, "push-1", claims()));
        let mut window = ReplayWindow::new(16);
        let headers = [("authorization", auth.as_str())];
        let v = verify_notification(&headers, &body("t-1"), &policy(), &keys, NOW, &mut window);
        let Verdict::Accepted(a) = v else {
            panic!("{v:?}")
        };
        assert_eq!(
            (a.task_id.as_str(), a.event, a.replay_id.as_str()),
            ("t-1", "statusUpdate", "jti:n-1")
        );
        assert!(matches!(&a.proofs[..], [Proof::Jwt { kid: Some(k), .. }] if k == "push-1"));
        // The same token again: a replay.
        let again = verify_notification(
            &headers,
            &body("t-1"),
            &policy(),
            &keys,
            NOW + 1,
            &mut window,
        );
        assert_eq!(reject(again), PushRejection::Replayed("jti:n-1".into()));
    }
}

#[test]
fn each_claim_check_fails_on_its_own() {
    let k = key(include_bytes!("testdata/p256.pem"));
    let keys = keys_of(&k, "push-1");
    let run = |c: serde_json::Value, body: &[u8], now: i64| {
        let auth = format!("Bearer {}", token(&k, "push-1", c));
        verify_notification(
            &[("Authorization", &auth)],
            body,
            &policy(),
            &keys,
            now,
            &mut ReplayWindow::new(4),
        )
    };
    let with = |k: &str, v: serde_json::Value| {
        let mut c = claims();
        c[k] = v;
        c
    };
    let without = |k: &str| {
        let mut c = claims();
        c.as_object_mut().unwrap().remove(k);
        c
    };
    let b = body("t-1");
    let short = || with("exp", json!(NOW + 60));
    assert_eq!(reject(run(short(), &b, NOW + 60 + 61)).kind(), "expired");
    // Within the skew: still accepted.
    assert!(matches!(
        run(short(), &b, NOW + 60 + 59),
        Verdict::Accepted(_)
    ));
    assert_eq!(
        reject(run(with("iat", json!(NOW + 120)), &b, NOW)).kind(),
        "not_yet_valid"
    );
    assert_eq!(
        reject(run(with("nbf", json!(NOW + 120)), &b, NOW)).kind(),
        "not_yet_valid"
    );
    assert_eq!(
        reject(run(with("iat", json!(NOW - 1000)), &b, NOW)).kind(),
        "too_old"
    );
    assert_eq!(
        reject(run(with("aud", json!(["https://other.example/"])), &b, NOW)).kind(),
        "wrong_audience"
    );
    assert_eq!(
        reject(run(with("iss", json!("https://evil.example")), &b, NOW)).kind(),
        "wrong_issuer"
    );
    assert_eq!(
        reject(run(with("exp", json!("soon")), &b, NOW)),
        PushRejection::Jwt(jwt::JwtError::ClaimType("exp"))
    );
    assert_eq!(
        reject(run(without("exp"), &b, NOW)),
        PushRejection::ClaimMissing("exp")
    );
    assert_eq!(
        reject(run(without("iat"), &b, NOW)),
        PushRejection::ClaimMissing("iat")
    );
    assert_eq!(
        reject(run(without("aud"), &b, NOW)),
        PushRejection::ClaimMissing("aud")
    );
    // The token is for another task than the body, or the body for another task than the config.
    assert_eq!(
        reject(run(with("taskId", json!("t-2")), &b, NOW)).kind(),
        "task_mismatch"
    );
    assert_eq!(
        reject(run(claims(), &body("t-2"), NOW)).kind(),
        "task_mismatch"
    );
    // A token signed by another key, or under another kid.
    let other = key(include_bytes!("testdata/ed25519.pem"));
    let forged = format!("Bearer {}", token(&other, "push-1", claims()));
    let r = reject(verify_notification(
        &[("authorization", &forged)],
        &b,
        &policy(),
        &keys,
        NOW,
        &mut ReplayWindow::new(4),
    ));
    assert_eq!(r.kind(), "jwt");
    let unknown = format!("Bearer {}", token(&k, "push-2", claims()));
    let r = reject(verify_notification(
        &[("authorization", &unknown)],
        &b,
        &policy(),
        &keys,
        NOW,
        &mut ReplayWindow::new(4),
    ));
    assert_eq!(
        r.to_string(),
        "JWT refused: no trusted key fits the token (kid \"push-2\")"
    );
    // alg none.
    let none = format!(
        "Bearer {}.{}.",
        super::jws::encode(br#"{"alg":"none","kid":"push-1"}"#),
        super::jws::encode(claims().to_string().as_bytes())
    );
    let r = reject(verify_notification(
        &[("authorization", &none)],
        &b,
        &policy(),
        &keys,
        NOW,
        &mut ReplayWindow::new(4),
    ));
    assert_eq!(
        r,
        PushRejection::Jwt(jwt::JwtError::Jws(super::jws::JwsError::AlgNone))
    );
    // No bearer at all.
    let r = reject(verify_notification(
        &[("authorization", "Basic eDp5")],
        &b,
        &policy(),
        &keys,
        NOW,
        &mut ReplayWindow::new(4),
    ));
    assert_eq!(r, PushRejection::JwtMissing);
}

#[test]
fn the_token_is_read_under_either_spelling_and_two_values_fail_closed() {
    let p = PushPolicy {
        token: Some("s3cret".into()),
        task_id: Some("t-1".into()),
        ..PushPolicy::default()
    };
    let none = KeyStore::new();
    let mut w = ReplayWindow::new(8);
    // a2a-go v2 sends the header without `X-`.
    let v2 = verify_notification(
        &[("A2A-Notification-Token", "s3cret")],
        &body("t-1"),
        &p,
        &none,
        NOW,
        &mut w,
    );
    assert!(matches!(v2, Verdict::Accepted(_)), "{v2:?}");
    // Both spellings with the same value: one token.
    let both = verify_notification(
        &[
            ("X-A2A-Notification-Token", "s3cret"),
            ("a2a-notification-token", "s3cret"),
        ],
        &body("t-2"),
        &PushPolicy {
            task_id: Some("t-2".into()),
            ..p.clone()
        },
        &none,
        NOW,
        &mut w,
    );
    assert!(matches!(both, Verdict::Accepted(_)), "{both:?}");
    // Two different values: refused, even when one of them is right.
    for headers in [
        [
            ("X-A2A-Notification-Token", "s3cret"),
            ("A2A-Notification-Token", "other"),
        ],
        [
            ("A2A-Notification-Token", "other"),
            ("X-A2A-Notification-Token", "s3cret"),
        ],
        [
            ("X-A2A-Notification-Token", "s3cret"),
            ("X-A2A-Notification-Token", "other"),
        ],
    ] {
        let v = verify_notification(&headers, &body("t-1"), &p, &none, NOW + 1, &mut w);
        assert_eq!(reject(v).kind(), "token_mismatch", "{headers:?}");
    }
}

#[test]
fn token_notifications_and_replays_by_body() {
    let p = PushPolicy {
        token: Some("s3cret".into()),
        task_id: Some("t-1".into()),
        ..PushPolicy::default()
    };
    let none = KeyStore::new();
    let mut w = ReplayWindow::new(2);
    let ok = verify_notification(
        &[("x-a2a-notification-token", "s3cret")],
        &body("t-1"),
        &p,
        &none,
        NOW,
        &mut w,
    );
    let Verdict::Accepted(a) = ok else {
        panic!("{ok:?}")
    };
    assert_eq!(a.proofs, [Proof::Token]);
    assert!(a.replay_id.starts_with("sha256:"));
    let dup = verify_notification(
        &[("X-A2A-Notification-Token", "s3cret")],
        &body("t-1"),
        &p,
        &none,
        NOW,
        &mut w,
    );
    assert_eq!(reject(dup).kind(), "replayed");
    // Remembered for max_age only: the same body later is new again.
    let later = verify_notification(
        &[("X-A2A-Notification-Token", "s3cret")],
        &body("t-1"),
        &p,
        &none,
        NOW + 301,
        &mut w,
    );
    assert!(matches!(later, Verdict::Accepted(_)));
    let wrong = verify_notification(
        &[("X-A2A-Notification-Token", "s3cret!")],
        &body("t-1"),
        &p,
        &none,
        NOW,
        &mut w,
    );
    assert_eq!(reject(wrong), PushRejection::TokenMismatch);
    let missing = verify_notification(&[], &body("t-1"), &p, &none, NOW, &mut w);
    assert_eq!(reject(missing), PushRejection::TokenMissing);
    // The policy's Debug output never shows the token.
    assert!(!format!("{p:?}").contains("s3cret"));
    // Nothing configured, bodies that are not one event.
    let v = verify_notification(
        &[],
        &body("t-1"),
        &PushPolicy::default(),
        &none,
        NOW,
        &mut w,
    );
    assert_eq!(reject(v), PushRejection::NotConfigured);
    for (b, kind) in [
        (&b"not json"[..], "body"),
        (br#"{"task":{"id":"t-1"},"message":{}}"#, "body"),
        (br#"{"other":1}"#, "body"),
        (br#"{"message":{"messageId":"m"}}"#, "no_task_id"),
    ] {
        let v = verify_notification(
            &[("X-A2A-Notification-Token", "s3cret")],
            b,
            &p,
            &none,
            NOW,
            &mut w,
        );
        assert_eq!(reject(v).kind(), kind, "{}", String::from_utf8_lossy(b));
    }
    // A 0.3 body: a bare task.
    let legacy = br#"{"kind":"task","id":"t-1","contextId":"c","status":{"state":"working"}}"#;
    let v = verify_notification(
        &[("X-A2A-Notification-Token", "s3cret")],
        legacy,
        &p,
        &none,
        NOW,
        &mut w,
    );
    assert!(
        matches!(v, Verdict::Accepted(Accepted { event: "task", .. })),
        "{v:?}"
    );
}

use super::push::Accepted;

#[test]
fn the_replay_window_is_bounded() {
    let p = PushPolicy {
        token: Some("t".into()),
        ..PushPolicy::default()
    };
    let mut w = ReplayWindow::new(3);
    for i in 0..10 {
        let b = json!({"task": {"id": format!("t-{i}")}}).to_string();
        let v = verify_notification(
            &[("X-A2A-Notification-Token", "t")],
            b.as_bytes(),
            &p,
            &KeyStore::new(),
            NOW,
            &mut w,
        );
        assert!(matches!(v, Verdict::Accepted(_)));
        assert!(w.len() <= 3);
    }
    assert_eq!(w.len(), 3);
    let json = Verdict::Rejected(PushRejection::TokenMismatch).to_json();
    assert_eq!(json["reason"], "token_mismatch");
}

#[test]
fn the_verdict_json_says_accepted_as_a_boolean() {
    let json = Verdict::Rejected(PushRejection::TokenMismatch).to_json();
    assert_eq!(
        (&json["accepted"], &json["verdict"]),
        (&false.into(), &"rejected".into())
    );
    let p = PushPolicy {
        token: Some("t".into()),
        ..PushPolicy::default()
    };
    let v = verify_notification(
        &[("X-A2A-Notification-Token", "t")],
        br#"{"task":{"id":"t-1"}}"#,
        &p,
        &KeyStore::new(),
        NOW,
        &mut ReplayWindow::new(4),
    );
    let json = v.to_json();
    assert_eq!(
        (&json["accepted"], &json["verdict"]),
        (&true.into(), &"accepted".into())
    );
}
