#![cfg(feature = "trust")]
//! The trust functions through the C ABI (`ffi/src/trust.rs`): every function with good and
//! bad input, NULLs, and each result code it documents.

mod common;

use std::ptr::{null, null_mut};

use a2a::trust::SystemRandom;
use a2a::trust::jws::SigningKey;
use a2a_core::buffer::{a2a_buffer, a2a_buffer_free, a2a_buffer_new};
use a2a_core::card::{a2a_card_free, a2a_card_new, a2a_card_parse};
use a2a_core::header::a2a_header;
use a2a_core::result::a2a_result;
use a2a_core::trust::*;
use a2a_core::view::a2a_str;
use serde_json::{Value, json};

const P256: &[u8] = include_bytes!("../../core/src/trust/testdata/p256.pem");
const P256_PUB: &[u8] = include_bytes!("../../core/src/trust/testdata/p256.pub.pem");
const RSA: &[u8] = include_bytes!("../../core/src/trust/testdata/rsa2048.pem");
const RSA_PUB: &[u8] = include_bytes!("../../core/src/trust/testdata/rsa2048.pub.pem");
const ED25519: &[u8] = include_bytes!("../../core/src/trust/testdata/ed25519.pem");

const CARD: &str = r#"{"name":"Echo","description":"Says it back","version":"1.0.0",
  "supportedInterfaces":[{"url":"https://agent.example/a2a","protocolBinding":"JSONRPC","protocolVersion":"1.0"}],
  "capabilities":{"streaming":true,"extensions":[]},"defaultInputModes":["text/plain"],
  "defaultOutputModes":["text/plain"],"skills":[{"id":"echo","name":"Echo","description":"Echoes","tags":["demo"]}]}"#;

use a2a_result::*;

/// A buffer holding stale bytes, so each test also shows the call empties it first.
fn buffer() -> *mut a2a_buffer {
    let mut b = null_mut();
    assert_eq!(a2a_buffer_new(&mut b), A2A_OK);
    // Stale content from an earlier call: every trust function empties the buffer first.
    assert_eq!(a2a_trust_canonical(b"[1]".as_ptr(), 3, false, b), A2A_OK);
    b
}

fn bytes(b: *mut a2a_buffer) -> Vec<u8> {
    common::buffer_bytes(b)
}

fn text(b: *mut a2a_buffer) -> String {
    String::from_utf8(bytes(b)).unwrap()
}

fn json_of(b: *mut a2a_buffer) -> Value {
    serde_json::from_slice(&bytes(b)).unwrap_or_else(|e| panic!("{e}: {}", text(b)))
}

fn public_jwks(pem: &[u8], kid: &str) -> String {
    let k = SigningKey::from_pem(pem, &SystemRandom::new()).unwrap();
    json!({"keys": [k.public_jwk(kid)]}).to_string()
}

/// `a2a_card_sign` with `kid` and an optional `jku`; the signed card.
fn sign(card: &str, pem: &[u8], kid: &str, jku: Option<&str>) -> String {
    let b = buffer();
    let (jp, jl) = jku.map_or((null(), 0), |j| (j.as_ptr(), j.len()));
    let r = a2a_card_sign(
        card.as_ptr(),
        card.len(),
        pem.as_ptr(),
        pem.len(),
        kid.as_ptr().cast(),
        kid.len(),
        jp.cast(),
        jl,
        b,
    );
    assert_eq!(r, A2A_OK, "{}", text(b));
    let s = text(b);
    a2a_buffer_free(b);
    s
}

fn verify(card: &str, keys: &[u8]) -> (a2a_result, Value) {
    let b = buffer();
    let r = a2a_card_signature_verify(card.as_ptr(), card.len(), keys.as_ptr(), keys.len(), b);
    let v = json_of(b);
    a2a_buffer_free(b);
    (r, v)
}

#[test]
fn canonical_plain_and_card_form() {
    let b = buffer();
    let doc = br#"{"b":1.0,"a":[true,null,"\u00e9"]}"#;
    assert_eq!(
        a2a_trust_canonical(doc.as_ptr(), doc.len(), false, b),
        A2A_OK
    );
    assert_eq!(text(b), "{\"a\":[true,null,\"é\"],\"b\":1}");
    // The card form drops defaults (an empty `extensions`) and `signatures`.
    let card = br#"{"name":"A","signatures":[{"protected":"x","signature":"y"}],
        "capabilities":{"extensions":[],"streaming":false}}"#;
    assert_eq!(
        a2a_trust_canonical(card.as_ptr(), card.len(), true, b),
        A2A_OK
    );
    assert_eq!(
        text(b),
        r#"{"capabilities":{"streaming":false},"name":"A"}"#
    );
    // Duplicate member names are not I-JSON: refused with a typed report.
    let dup = br#"{"a":1,"a":2}"#;
    assert_eq!(
        a2a_trust_canonical(dup.as_ptr(), dup.len(), false, b),
        A2A_TRUST_JSON
    );
    let rep = json_of(b);
    assert!(
        rep["reason"].is_string() && rep["detail"].is_string(),
        "{rep}"
    );
    assert_eq!(
        a2a_trust_canonical(b"{".as_ptr(), 1, true, b),
        A2A_TRUST_JSON
    );
    // NULLs: the buffer, and (NULL, n > 0); (NULL, 0) is the empty input (not JSON).
    assert_eq!(
        a2a_trust_canonical(doc.as_ptr(), doc.len(), false, null_mut()),
        A2A_NULL_PARAMETER
    );
    assert_eq!(a2a_trust_canonical(null(), 3, false, b), A2A_NULL_PARAMETER);
    assert_eq!(a2a_trust_canonical(null(), 0, false, b), A2A_TRUST_JSON);
    a2a_buffer_free(b);
}

#[test]
fn sign_verify_tamper_refuse_for_each_key_type() {
    for (pem, alg) in [(P256, "ES256"), (RSA, "RS256"), (ED25519, "EdDSA")] {
        let signed = sign(CARD, pem, "k1", Some("https://agent.example/jwks.json"));
        let jwks = public_jwks(pem, "k1");
        let (r, rep) = verify(&signed, jwks.as_bytes());
        assert_eq!(r, A2A_OK, "{rep}");
        assert_eq!(
            rep,
            json!({"verified": true, "kid": "k1", "alg": alg,
                   "jku": "https://agent.example/jwks.json"})
        );
        // One JWK alone works as well as the set.
        let jwk = serde_json::from_str::<Value>(&jwks).unwrap()["keys"][0].to_string();
        assert_eq!(verify(&signed, jwk.as_bytes()).0, A2A_OK);
        // Tampered: refused, with each signature's reason.
        let tampered = signed.replacen("Says it back", "Says it all", 1);
        let (r, rep) = verify(&tampered, jwks.as_bytes());
        assert_eq!(r, A2A_CARD_SIGNATURE);
        assert_eq!(rep["verified"], false);
        assert_eq!(rep["reason"], "no_valid_signature");
        assert_eq!(rep["signatures"][0]["rejected"], "bad_signature", "{rep}");
        assert_eq!(rep["signatures"][0]["kid"], "k1");
        assert_eq!(rep["signatures"][0]["alg"], alg);
    }
    // A PEM public key (no kid) verifies; the wrong key does not.
    let signed = sign(CARD, P256, "p", None);
    assert_eq!(verify(&signed, P256_PUB).0, A2A_OK);
    let (r, rep) = verify(&signed, RSA_PUB);
    assert_eq!(r, A2A_CARD_SIGNATURE);
    assert_eq!(rep["signatures"][0]["rejected"], "unknown_key", "{rep}");
    let (r, rep) = verify(&signed, public_jwks(ED25519, "p").as_bytes());
    assert_eq!(r, A2A_CARD_SIGNATURE, "{rep}");
}

#[test]
fn verify_refusals_have_their_codes() {
    let signed = sign(CARD, P256, "p", None);
    let keys = public_jwks(P256, "p");
    // Unsigned.
    let (r, rep) = verify(CARD, keys.as_bytes());
    assert_eq!(
        (r, rep["reason"].as_str()),
        (A2A_CARD_SIGNATURE, Some("unsigned"))
    );
    assert_eq!(rep["signatures"], json!([]));
    // Not JSON, not an object.
    let (r, rep) = verify("{\"name\":", keys.as_bytes());
    assert_eq!(
        (r, rep["reason"].as_str()),
        (A2A_TRUST_JSON, Some("card_json"))
    );
    let (r, rep) = verify("[1]", keys.as_bytes());
    assert_eq!((r, rep["reason"].as_str()), (A2A_TRUST_JSON, Some("shape")));
    // Keys unreadable, or none usable.
    for (keys, reason) in [
        (&b"not a key"[..], "json"),
        (b"{\"keys\":[]}", "no_keys"),
        (
            b"-----BEGIN PUBLIC KEY-----\n!!\n-----END PUBLIC KEY-----\n",
            "pem",
        ),
        (b"", "json"),
    ] {
        let (r, rep) = verify(&signed, keys);
        assert_eq!(
            (r, rep["reason"].as_str()),
            (A2A_TRUST_KEY, Some(reason)),
            "{rep}"
        );
        assert!(rep["detail"].is_string());
    }
    // NULLs.
    let b = buffer();
    let k = keys.as_bytes();
    assert_eq!(
        a2a_card_signature_verify(
            signed.as_ptr(),
            signed.len(),
            k.as_ptr(),
            k.len(),
            null_mut()
        ),
        A2A_NULL_PARAMETER
    );
    assert_eq!(
        a2a_card_signature_verify(null(), 5, k.as_ptr(), k.len(), b),
        A2A_NULL_PARAMETER
    );
    assert_eq!(
        a2a_card_signature_verify(signed.as_ptr(), signed.len(), null(), 2, b),
        A2A_NULL_PARAMETER
    );
    a2a_buffer_free(b);
}

#[test]
fn signing_refusals() {
    let b = buffer();
    let call = |card: &str, pem: &[u8], kid: &str, jku: &str| {
        a2a_card_sign(
            card.as_ptr(),
            card.len(),
            pem.as_ptr(),
            pem.len(),
            kid.as_ptr().cast(),
            kid.len(),
            jku.as_ptr().cast(),
            jku.len(),
            b,
        )
    };
    assert_eq!(call(CARD, P256, "", ""), A2A_INVALID_ARGUMENT);
    assert_eq!(json_of(b)["reason"], "kid");
    assert_eq!(
        call(CARD, P256, "k", "http://agent.example/k"),
        A2A_INVALID_ARGUMENT
    );
    assert_eq!(json_of(b)["reason"], "jku");
    assert_eq!(call(CARD, b"garbage", "k", ""), A2A_TRUST_KEY);
    assert_eq!(json_of(b)["reason"], "key");
    // A public key cannot sign.
    assert_eq!(call(CARD, P256_PUB, "k", ""), A2A_TRUST_KEY);
    assert_eq!(call("{", P256, "k", ""), A2A_TRUST_JSON);
    assert_eq!(json_of(b)["reason"], "card_json");
    assert_eq!(call("[]", P256, "k", ""), A2A_TRUST_JSON);
    assert_eq!(json_of(b)["reason"], "shape");
    assert_eq!(call(CARD, P256, "k", "https://agent.example/k"), A2A_OK);
    assert!(text(b).contains("\"signatures\":[{\"protected\""));
    // Invalid UTF-8 in kid, NULL kid with a length, NULL output.
    let bad = [0xffu8];
    assert_eq!(
        a2a_card_sign(
            CARD.as_ptr(),
            CARD.len(),
            P256.as_ptr(),
            P256.len(),
            bad.as_ptr().cast(),
            1,
            null(),
            0,
            b
        ),
        A2A_INVALID_UTF8
    );
    assert_eq!(
        a2a_card_sign(
            CARD.as_ptr(),
            CARD.len(),
            P256.as_ptr(),
            P256.len(),
            null(),
            1,
            null(),
            0,
            b
        ),
        A2A_NULL_PARAMETER
    );
    assert_eq!(
        a2a_card_sign(
            CARD.as_ptr(),
            CARD.len(),
            P256.as_ptr(),
            P256.len(),
            c"k".as_ptr(),
            1,
            null(),
            0,
            null_mut()
        ),
        A2A_NULL_PARAMETER
    );
    a2a_buffer_free(b);
}

fn key_url(card: &str, card_url: &str, extra: &str, b: *mut a2a_buffer) -> a2a_result {
    a2a_card_signature_key_url(
        card.as_ptr(),
        card.len(),
        card_url.as_ptr().cast(),
        card_url.len(),
        extra.as_ptr().cast(),
        extra.len(),
        b,
    )
}

#[test]
fn the_key_url_is_the_cards_host_over_https() {
    let b = buffer();
    let card_url = "https://agent.example/.well-known/agent-card.json";
    let signed = sign(CARD, P256, "p", Some("https://agent.example/jwks.json"));
    assert_eq!(key_url(&signed, card_url, "", b), A2A_OK);
    assert_eq!(text(b), "https://agent.example/jwks.json");
    // No jku at all.
    let plain = sign(CARD, P256, "p", None);
    assert_eq!(key_url(&plain, card_url, "", b), A2A_NONE);
    assert_eq!(text(b), "");
    // Another host: refused unless listed.
    let elsewhere = sign(CARD, P256, "p", Some("https://keys.example/jwks.json"));
    assert_eq!(key_url(&elsewhere, card_url, "", b), A2A_CARD_SIGNATURE);
    let rep = json_of(b);
    assert_eq!(rep["reason"], "jku_refused");
    assert_eq!(rep["refused"][0]["jku"], "https://keys.example/jwks.json");
    assert_eq!(
        key_url(&elsewhere, card_url, "other.example, keys.example", b),
        A2A_OK
    );
    assert_eq!(text(b), "https://keys.example/jwks.json");
    // Bad inputs.
    assert_eq!(key_url(&signed, "not a url", "", b), A2A_INVALID_ARGUMENT);
    assert_eq!(key_url("{", card_url, "", b), A2A_TRUST_JSON);
    assert_eq!(json_of(b)["reason"], "card_json");
    assert_eq!(
        key_url(&signed, card_url, "", null_mut()),
        A2A_NULL_PARAMETER
    );
    let bad = [0xffu8];
    assert_eq!(
        a2a_card_signature_key_url(
            signed.as_ptr(),
            signed.len(),
            bad.as_ptr().cast(),
            1,
            null(),
            0,
            b
        ),
        A2A_INVALID_UTF8
    );
    a2a_buffer_free(b);
}

const NOW: i64 = 1_800_000_000;
const HOOK: &str = "https://client.example/hooks/a2a";

fn verifier(policy: &str, keys: &[u8]) -> *mut a2a_push_verifier {
    let mut v = null_mut();
    let (kp, kl) = if keys.is_empty() {
        (null(), 0)
    } else {
        (keys.as_ptr(), keys.len())
    };
    assert_eq!(
        a2a_push_verifier_new(policy.as_ptr(), policy.len(), kp, kl, 0, &mut v),
        A2A_OK
    );
    v
}

fn check(
    v: *mut a2a_push_verifier,
    headers: &[(&str, &str)],
    body: &str,
    now: i64,
) -> (a2a_result, Value) {
    let hs = common::headers(headers);
    let b = buffer();
    let r = a2a_push_verifier_check(v, hs.as_ptr(), hs.len(), body.as_ptr(), body.len(), now, b);
    let out = json_of(b);
    a2a_buffer_free(b);
    (r, out)
}

fn jwt(pem: &[u8], kid: &str, claims: Value) -> String {
    let k = SigningKey::from_pem(pem, &SystemRandom::new()).unwrap();
    let Value::Object(m) = claims else { panic!() };
    a2a::trust::jwt::sign(&m, &k, kid, &SystemRandom::new()).unwrap()
}

fn status_body(task: &str) -> String {
    json!({"statusUpdate": {"taskId": task, "contextId": "c", "status": {"state": "TASK_STATE_WORKING"}}})
        .to_string()
}

#[test]
fn push_token_accept_replay_and_mismatch() {
    let v = verifier(r#"{"token":"s3cret","taskId":"t-1"}"#, b"");
    let h = [("X-A2A-Notification-Token", "s3cret")];
    let (r, out) = check(v, &h, &status_body("t-1"), NOW);
    assert_eq!(r, A2A_OK, "{out}");
    assert_eq!(
        (&out["accepted"], &out["verdict"]),
        (&json!(true), &json!("accepted"))
    );
    assert_eq!(out["taskId"], "t-1");
    let (r, out) = check(v, &h, &status_body("t-1"), NOW + 1);
    assert_eq!(
        (r, out["reason"].as_str()),
        (A2A_PUSH_REJECTED, Some("replayed"))
    );
    assert_eq!(out["accepted"], false);
    let (r, out) = check(
        v,
        &[("x-a2a-notification-token", "wrong")],
        &status_body("t-1"),
        NOW,
    );
    assert_eq!(
        (r, out["reason"].as_str()),
        (A2A_PUSH_REJECTED, Some("token_mismatch"))
    );
    let (r, out) = check(v, &[], &status_body("t-1"), NOW);
    assert_eq!(
        (r, out["reason"].as_str()),
        (A2A_PUSH_REJECTED, Some("token_missing"))
    );
    let (r, out) = check(v, &h, &status_body("t-2"), NOW);
    assert_eq!(
        (r, out["reason"].as_str()),
        (A2A_PUSH_REJECTED, Some("task_mismatch"))
    );
    let (r, out) = check(v, &h, "not json", NOW);
    assert_eq!(
        (r, out["reason"].as_str()),
        (A2A_PUSH_REJECTED, Some("body"))
    );
    // The token never appears in a verdict.
    assert!(!out.to_string().contains("s3cret"));
    a2a_push_verifier_free(v);
}

#[test]
fn push_jwt_checks() {
    let keys = public_jwks(P256, "push-1");
    let policy = json!({"audience": HOOK, "issuer": "https://agent.example", "taskId": "t-1",
                        "skewSecs": 30, "maxAgeSecs": 300})
    .to_string();
    let v = verifier(&policy, keys.as_bytes());
    let claims = |jti: &str, iat: i64, exp: i64, task: &str| {
        json!({"iss": "https://agent.example", "aud": HOOK, "iat": iat, "exp": exp,
               "jti": jti, "taskId": task})
    };
    let bearer = |c: Value| format!("Bearer {}", jwt(P256, "push-1", c));
    let ok = bearer(claims("n-1", NOW - 5, NOW + 300, "t-1"));
    let (r, out) = check(v, &[("Authorization", &ok)], &status_body("t-1"), NOW);
    assert_eq!(r, A2A_OK, "{out}");
    assert_eq!(out["replayId"], "jti:n-1");
    let (r, out) = check(v, &[("Authorization", &ok)], &status_body("t-1"), NOW);
    assert_eq!(out["reason"], "replayed", "{r:?}");
    let expired = bearer(claims("n-2", NOW - 200, NOW - 100, "t-1"));
    assert_eq!(
        check(v, &[("Authorization", &expired)], &status_body("t-1"), NOW).1["reason"],
        "expired"
    );
    let other = bearer(claims("n-3", NOW, NOW + 60, "t-9"));
    assert_eq!(
        check(v, &[("Authorization", &other)], &status_body("t-1"), NOW).1["reason"],
        "task_mismatch"
    );
    let wrong_key = format!(
        "Bearer {}",
        jwt(ED25519, "push-1", claims("n-4", NOW, NOW + 60, "t-1"))
    );
    assert_eq!(
        check(
            v,
            &[("Authorization", &wrong_key)],
            &status_body("t-1"),
            NOW
        )
        .1["reason"],
        "jwt"
    );
    assert_eq!(
        check(v, &[], &status_body("t-1"), NOW).1["reason"],
        "jwt_missing"
    );
    a2a_push_verifier_free(v);
    // Nothing to check with.
    let v = verifier("", b"");
    let (r, out) = check(v, &[], &status_body("t-1"), NOW);
    assert_eq!(
        (r, out["reason"].as_str()),
        (A2A_PUSH_REJECTED, Some("not_configured"))
    );
    a2a_push_verifier_free(v);
}

#[test]
fn push_verifier_construction_and_null_checks() {
    let mut v = null_mut();
    for policy in [
        "{",
        "[]",
        r#"{"audiance":"x"}"#,
        r#"{"skewSecs":-1}"#,
        r#"{"token":5}"#,
    ] {
        assert_eq!(
            a2a_push_verifier_new(policy.as_ptr(), policy.len(), null(), 0, 0, &mut v),
            A2A_TRUST_JSON,
            "{policy}"
        );
    }
    assert!(v.is_null(), "written on success only");
    assert_eq!(
        a2a_push_verifier_new(null(), 0, b"junk".as_ptr(), 4, 0, &mut v),
        A2A_TRUST_KEY
    );
    assert_eq!(
        a2a_push_verifier_new(null(), 0, null(), 0, 0, null_mut()),
        A2A_NULL_PARAMETER
    );
    assert_eq!(
        a2a_push_verifier_new(null(), 2, null(), 0, 0, &mut v),
        A2A_NULL_PARAMETER
    );
    assert_eq!(
        a2a_push_verifier_new(null(), 0, P256_PUB.as_ptr(), P256_PUB.len(), 1, &mut v),
        A2A_OK
    );
    let b = buffer();
    let body = status_body("t");
    assert_eq!(
        a2a_push_verifier_check(null_mut(), null(), 0, body.as_ptr(), body.len(), NOW, b),
        A2A_NULL_PARAMETER
    );
    assert_eq!(
        a2a_push_verifier_check(v, null(), 1, body.as_ptr(), body.len(), NOW, b),
        A2A_NULL_PARAMETER
    );
    assert_eq!(
        a2a_push_verifier_check(v, null(), 0, body.as_ptr(), body.len(), NOW, null_mut()),
        A2A_NULL_PARAMETER
    );
    let bad = [0xffu8];
    let h = [a2a_header {
        name: bad.as_ptr().cast(),
        name_len: 1,
        value: null(),
        value_len: 0,
    }];
    assert_eq!(
        a2a_push_verifier_check(v, h.as_ptr(), 1, body.as_ptr(), body.len(), NOW, b),
        A2A_INVALID_UTF8
    );
    a2a_buffer_free(b);
    a2a_push_verifier_free(v);
    a2a_push_verifier_free(null_mut());
}

#[test]
fn push_verifier_is_thread_safe_and_accepts_a_notification_once() {
    let v = verifier(r#"{"token":"t"}"#, b"");
    let addr = v as usize;
    let body = status_body("t-1");
    let accepted: usize = std::thread::scope(|s| {
        let hs: Vec<_> = (0..4)
            .map(|_| {
                let body = body.clone();
                s.spawn(move || {
                    let (r, _) = check(
                        addr as *mut a2a_push_verifier,
                        &[("X-A2A-Notification-Token", "t")],
                        &body,
                        NOW,
                    );
                    usize::from(r == A2A_OK)
                })
            })
            .collect();
        hs.into_iter().map(|h| h.join().unwrap()).sum()
    });
    assert_eq!(accepted, 1);
    a2a_push_verifier_free(v);
}

fn webhook(url: &str, allow_http: bool, resolved: &str, b: *mut a2a_buffer) -> a2a_result {
    a2a_webhook_url_check(
        url.as_ptr().cast(),
        url.len(),
        allow_http,
        resolved.as_ptr().cast(),
        resolved.len(),
        b,
    )
}

#[test]
fn webhook_urls_are_checked() {
    let b = buffer();
    assert_eq!(webhook("https://client.example/hook", false, "", b), A2A_OK);
    assert_eq!(text(b), "");
    assert_eq!(
        webhook(
            "https://client.example/hook",
            false,
            "93.184.216.34, 2606:2800::1",
            b
        ),
        A2A_OK
    );
    for (url, allow_http, resolved, reason) in [
        ("http://client.example/hook", false, "", "scheme"),
        ("ftp://client.example/hook", true, "", "scheme"),
        ("https://user@client.example/hook", false, "", "userinfo"),
        ("https://127.0.0.1/hook", false, "", "internal"),
        ("https://localhost/hook", false, "", "internal"),
        ("https://169.254.169.254/latest", false, "", "internal"),
        ("https://[::1]/hook", false, "", "internal"),
        (
            "https://client.example/hook",
            false,
            "93.184.216.34,10.0.0.7",
            "internal",
        ),
        (
            "https://client.example/hook",
            false,
            "fe80::1%eth0",
            "internal",
        ),
        ("not a url", false, "", "invalid"),
    ] {
        assert_eq!(
            webhook(url, allow_http, resolved, b),
            A2A_WEBHOOK_REFUSED,
            "{url} {resolved}"
        );
        let rep = json_of(b);
        assert_eq!(rep["reason"], reason, "{url}: {rep}");
        assert!(rep["detail"].is_string());
    }
    assert_eq!(webhook("http://client.example/hook", true, "", b), A2A_OK);
    assert_eq!(
        webhook("https://client.example/hook", false, "nonsense", b),
        A2A_INVALID_ARGUMENT
    );
    assert_eq!(json_of(b)["reason"], "resolved");
    assert_eq!(
        webhook("https://client.example/hook", false, "", null_mut()),
        A2A_NULL_PARAMETER
    );
    assert_eq!(
        a2a_webhook_url_check(null(), 3, false, null(), 0, b),
        A2A_NULL_PARAMETER
    );
    let bad = [0xffu8];
    assert_eq!(
        a2a_webhook_url_check(bad.as_ptr().cast(), 1, false, null(), 0, b),
        A2A_INVALID_UTF8
    );
    a2a_buffer_free(b);
}

fn view(s: &str) -> a2a_str {
    a2a_str {
        ptr: s.as_ptr().cast(),
        len: s.len(),
    }
}

fn config(token_url: &'static str) -> a2a_oauth2_config {
    a2a_oauth2_config {
        token_url: view(token_url),
        card: null(),
        client_id: view("agent client"),
        client_secret: view("s3cr3t:&="),
        scope: view("a2a.read"),
        basic_auth: true,
        refresh_early_ms: 0,
        allow_http_loopback: false,
    }
}

fn oauth2(c: &a2a_oauth2_config) -> *mut a2a_oauth2 {
    let mut o = null_mut();
    assert_eq!(a2a_oauth2_new(c, &mut o), A2A_OK);
    o
}

fn respond(o: *mut a2a_oauth2, status: u16, body: &str, now: u64) -> (a2a_result, String) {
    let b = buffer();
    let r = a2a_oauth2_handle_response(o, status, body.as_ptr(), body.len(), now, b);
    let t = text(b);
    a2a_buffer_free(b);
    (r, t)
}

fn token(o: *mut a2a_oauth2, now: u64) -> (a2a_result, String) {
    let b = buffer();
    let r = a2a_oauth2_token(o, now, b);
    let t = text(b);
    a2a_buffer_free(b);
    (r, t)
}

const T0: u64 = 1_800_000_000_000;

#[test]
fn oauth2_fetch_use_refresh_and_invalidate() {
    let o = oauth2(&config("https://auth.example/token"));
    // The first caller fetches; the others wait (no token yet).
    assert_eq!(token(o, T0), (A2A_NEED_MORE, String::new()));
    assert_eq!(token(o, T0).0, A2A_IN_USE);
    let (u, f, a) = (buffer(), buffer(), buffer());
    assert_eq!(a2a_oauth2_request(o, u, f, a), A2A_OK);
    assert_eq!(text(u), "https://auth.example/token");
    assert_eq!(text(f), "grant_type=client_credentials&scope=a2a.read");
    // Basic of the form-encoded id and secret.
    assert_eq!(text(a), "Basic YWdlbnQrY2xpZW50OnMzY3IzdCUzQSUyNiUzRA==");
    let ok = r#"{"access_token":"tok-1","token_type":"Bearer","expires_in":60}"#;
    assert_eq!(respond(o, 200, ok, T0), (A2A_OK, String::new()));
    assert_eq!(token(o, T0 + 1000), (A2A_OK, "tok-1".to_owned()));
    // Inside the 30 s early margin: one caller refreshes, the others still get the token.
    assert_eq!(token(o, T0 + 31_000).0, A2A_NEED_MORE);
    assert_eq!(token(o, T0 + 31_000), (A2A_OK, "tok-1".to_owned()));
    let ok2 = r#"{"access_token":"tok-2","token_type":"bearer","expires_in":"60"}"#;
    assert_eq!(respond(o, 200, ok2, T0 + 31_000).0, A2A_OK);
    assert_eq!(token(o, T0 + 32_000), (A2A_OK, "tok-2".to_owned()));
    // A 401 from the agent: forget it, fetch again.
    a2a_oauth2_invalidate(o);
    assert_eq!(token(o, T0 + 33_000).0, A2A_NEED_MORE);
    // Transport failure: reported, and the next caller may fetch.
    let (r, rep) = respond(o, 0, "", T0 + 33_000);
    assert_eq!(r, A2A_OAUTH2_REFUSED);
    assert_eq!(
        serde_json::from_str::<Value>(&rep).unwrap()["reason"],
        "transport"
    );
    assert_eq!(token(o, T0 + 34_000).0, A2A_NEED_MORE);
    let (r, rep) = respond(
        o,
        401,
        r#"{"error":"invalid_client","error_description":"who?"}"#,
        T0 + 34_000,
    );
    assert_eq!(r, A2A_OAUTH2_REFUSED);
    let rep: Value = serde_json::from_str(&rep).unwrap();
    assert_eq!(
        (&rep["reason"], &rep["error"]),
        (&json!("refused"), &json!("invalid_client"))
    );
    assert!(!rep.to_string().contains("s3cr3t"));
    // Answers that are not tokens.
    for (status, body, reason) in [
        (500, "oops", "status"),
        (200, "[]", "body"),
        (200, r#"{"token_type":"Bearer"}"#, "no_access_token"),
        (
            200,
            r#"{"access_token":"x","token_type":"mac"}"#,
            "token_type",
        ),
        (
            200,
            r#"{"access_token":"x","token_type":"Bearer","expires_in":-1}"#,
            "expires_in",
        ),
    ] {
        assert_eq!(token(o, T0 + 40_000).0, A2A_NEED_MORE);
        let (r, rep) = respond(o, status, body, T0 + 40_000);
        assert_eq!(r, A2A_OAUTH2_REFUSED, "{body}");
        assert_eq!(
            serde_json::from_str::<Value>(&rep).unwrap()["reason"],
            reason,
            "{body}"
        );
    }
    // An answer nobody asked for.
    assert_eq!(respond(o, 200, ok, T0).0, A2A_INVALID_ARGUMENT);
    // NULLs.
    assert_eq!(a2a_oauth2_token(null_mut(), T0, u), A2A_NULL_PARAMETER);
    assert_eq!(a2a_oauth2_token(o, T0, null_mut()), A2A_NULL_PARAMETER);
    assert_eq!(a2a_oauth2_request(o, u, f, null_mut()), A2A_NULL_PARAMETER);
    assert_eq!(a2a_oauth2_request(null(), u, f, a), A2A_NULL_PARAMETER);
    assert_eq!(
        a2a_oauth2_handle_response(null_mut(), 200, null(), 0, T0, u),
        A2A_NULL_PARAMETER
    );
    assert_eq!(
        a2a_oauth2_handle_response(o, 200, null(), 4, T0, u),
        A2A_NULL_PARAMETER
    );
    a2a_oauth2_invalidate(null_mut());
    for b in [u, f, a] {
        a2a_buffer_free(b);
    }
    a2a_oauth2_free(o);
    a2a_oauth2_free(null_mut());
}

#[test]
fn oauth2_configuration() {
    // Form-post authentication: the secret goes in the body, no Authorization.
    let mut c = config("https://auth.example/token");
    c.basic_auth = false;
    c.scope = view("");
    let o = oauth2(&c);
    let (u, f, a) = (buffer(), buffer(), buffer());
    assert_eq!(a2a_oauth2_request(o, u, f, a), A2A_OK);
    assert_eq!(
        text(f),
        "grant_type=client_credentials&client_id=agent+client&client_secret=s3cr3t%3A%26%3D"
    );
    assert_eq!(text(a), "");
    a2a_oauth2_free(o);
    // The token URL from the card's clientCredentials flow.
    let card_json = br#"{"name":"A","url":"https://agent.example/a2a","securitySchemes":{"o":
        {"type":"oauth2","flows":{"clientCredentials":{"tokenUrl":"https://auth.example/cc","scopes":{}}}}}}"#;
    let mut card = null_mut();
    assert_eq!(a2a_card_new(&mut card), A2A_OK);
    let mut c = config("");
    c.card = card;
    let mut o = null_mut();
    assert_eq!(
        a2a_oauth2_new(&c, &mut o),
        A2A_INVALID_ARGUMENT,
        "no card parsed yet"
    );
    assert_eq!(
        a2a_card_parse(card, card_json.as_ptr(), card_json.len()),
        A2A_OK
    );
    let o = oauth2(&c);
    a2a_card_free(card);
    assert_eq!(a2a_oauth2_request(o, u, f, a), A2A_OK);
    assert_eq!(text(u), "https://auth.example/cc");
    a2a_oauth2_free(o);
    // Refused configurations.
    let mut o = null_mut();
    for (url, loopback) in [
        ("", false),
        ("http://auth.example/token", true),
        ("http://127.0.0.1:9/token", false),
        ("https://user@auth.example/token", false),
        ("nope", false),
    ] {
        let mut c = config("");
        c.token_url = view(url);
        c.allow_http_loopback = loopback;
        assert_eq!(a2a_oauth2_new(&c, &mut o), A2A_INVALID_ARGUMENT, "{url}");
    }
    let mut c = config("https://auth.example/token");
    c.client_id = view("");
    assert_eq!(a2a_oauth2_new(&c, &mut o), A2A_INVALID_ARGUMENT);
    assert!(o.is_null());
    let mut c = config("http://127.0.0.1:9/token");
    c.allow_http_loopback = true;
    let o = oauth2(&c);
    a2a_oauth2_free(o);
    let mut c = config("https://auth.example/token");
    c.client_secret = a2a_str {
        ptr: null(),
        len: 3,
    };
    let mut o = null_mut();
    assert_eq!(a2a_oauth2_new(&c, &mut o), A2A_NULL_PARAMETER);
    assert_eq!(a2a_oauth2_new(null(), &mut o), A2A_NULL_PARAMETER);
    assert_eq!(
        a2a_oauth2_new(&config("https://a.example/t"), null_mut()),
        A2A_NULL_PARAMETER
    );
    for b in [u, f, a] {
        a2a_buffer_free(b);
    }
}

#[test]
fn oauth2_single_flight_across_threads() {
    let o = oauth2(&config("https://auth.example/token"));
    let addr = o as usize;
    let fetchers: usize = std::thread::scope(|s| {
        let hs: Vec<_> = (0..4)
            .map(|_| {
                s.spawn(move || usize::from(token(addr as *mut a2a_oauth2, T0).0 == A2A_NEED_MORE))
            })
            .collect();
        hs.into_iter().map(|h| h.join().unwrap()).sum()
    });
    assert_eq!(fetchers, 1);
    a2a_oauth2_free(o);
}
