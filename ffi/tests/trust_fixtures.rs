#![cfg(feature = "trust")]
//! The shared trust fixtures (`bindings/fixtures/trust/`, which every binding runs) proven
//! through the C functions: every case of `cases.json` gives its expected result code and
//! reason. With `A2A_BLESS_TRUST_FIXTURES=1` the core-signed cards, the key sets, the push
//! tokens and `cases.json` are written first (the SDK-signed card comes from `sdk_sign.py`,
//! which needs the core-signed cards: run this first, then it).

mod common;

use std::path::PathBuf;
use std::ptr::{null, null_mut};

use a2a::trust::SystemRandom;
use a2a::trust::jws::SigningKey;
use a2a_core::buffer::{a2a_buffer, a2a_buffer_free, a2a_buffer_new};
use a2a_core::result::a2a_result;
use a2a_core::trust::*;
use serde_json::{Value, json};

/// The clock of the push cases, seconds since the Unix epoch (2027-01-15).
const NOW: i64 = 1_800_000_000;
const HOOK: &str = "https://client.example/hooks/a2a";
const ISSUER: &str = "https://agent.example";
const JKU: &str = "https://agent.example/.well-known/jwks.json";
const CARD_URL: &str = "https://agent.example/.well-known/agent-card.json";

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../bindings/fixtures/trust")
}

fn read(name: &str) -> Vec<u8> {
    std::fs::read(dir().join(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn write(name: &str, v: &Value) {
    let text = serde_json::to_string_pretty(v).unwrap() + "\n";
    std::fs::write(dir().join(name), text).unwrap();
}

fn key(name: &str) -> SigningKey {
    SigningKey::from_pem(&read(name), &SystemRandom::new()).unwrap()
}

fn jwks(keys: &[(&str, &str)]) -> Value {
    json!({"keys": keys.iter().map(|(pem, kid)| key(pem).public_jwk(kid)).collect::<Vec<_>>()})
}

fn new_buffer() -> *mut a2a_buffer {
    let mut b = null_mut();
    assert_eq!(a2a_buffer_new(&mut b), a2a_result::A2A_OK);
    b
}

fn take(b: *mut a2a_buffer) -> Vec<u8> {
    let out = common::buffer_bytes(b);
    a2a_buffer_free(b);
    out
}

fn sign(card: &[u8], pem: &str, kid: &str) -> Value {
    let b = new_buffer();
    let pem = read(pem);
    let r = a2a_card_sign(
        card.as_ptr(),
        card.len(),
        pem.as_ptr(),
        pem.len(),
        kid.as_ptr().cast(),
        kid.len(),
        JKU.as_ptr().cast(),
        JKU.len(),
        b,
    );
    assert_eq!(r, a2a_result::A2A_OK);
    serde_json::from_slice(&take(b)).unwrap()
}

fn token(pem: &str, kid: &str, claims: Value) -> String {
    let Value::Object(m) = claims else { panic!() };
    a2a::trust::jwt::sign(&m, &key(pem), kid, &SystemRandom::new()).unwrap()
}

fn claims(jti: &str, iat: i64, exp: i64, task: &str) -> Value {
    json!({"iss": ISSUER, "aud": HOOK, "iat": iat, "exp": exp, "jti": jti, "taskId": task})
}

fn status(task: &str) -> Value {
    json!({"statusUpdate": {"taskId": task, "contextId": "ctx-1",
                            "status": {"state": "TASK_STATE_WORKING"}}})
}

fn step(headers: Value, body: Value, now: i64, code: &str, reason: Option<&str>) -> Value {
    json!({"headers": headers, "body": body, "now": now, "expect": code, "reason": reason})
}

/// Writes every generated fixture (see the module docs).
fn bless() {
    let unsigned = read("card.unsigned.json");
    for (name, pem, kid) in [
        ("core-eddsa", "core-eddsa.pem", "core-eddsa"),
        ("core-rs256", "core-rs256.pem", "core-rs256"),
    ] {
        let signed = sign(&unsigned, pem, kid);
        write(&format!("{name}.card.json"), &signed);
        write(&format!("{name}.jwks.json"), &jwks(&[(pem, kid)]));
    }
    let mut tampered: Value = serde_json::from_slice(&read("core-eddsa.card.json")).unwrap();
    tampered["skills"][0]["description"] = json!("Echoes the message, and a bit more");
    write("core-eddsa.tampered.card.json", &tampered);
    // The right kids, other keys.
    write(
        "wrong.jwks.json",
        &jwks(&[
            ("wrong-ed25519.pem", "core-eddsa"),
            ("wrong-p256.pem", "sdk-es256"),
        ]),
    );
    write("push.jwks.json", &jwks(&[("push-es256.pem", "push-1")]));

    let card = |name, card, keys, expect, reason: Option<&str>, extra: Value| {
        let mut c = json!({"name": name, "card": card, "keys": keys, "expect": expect,
                           "reason": reason});
        c.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        c
    };
    let cards = vec![
        card(
            "sdk signed, its JWKS",
            "sdk-es256.card.json",
            "sdk-es256.jwks.json",
            "A2A_OK",
            None,
            json!({"kid": "sdk-es256", "alg": "ES256", "jku": JKU}),
        ),
        card(
            "sdk signed, its key as PEM",
            "sdk-es256.card.json",
            "sdk-es256.pub.pem",
            "A2A_OK",
            None,
            json!({"kid": "sdk-es256", "alg": "ES256"}),
        ),
        card(
            "core signed EdDSA",
            "core-eddsa.card.json",
            "core-eddsa.jwks.json",
            "A2A_OK",
            None,
            json!({"kid": "core-eddsa", "alg": "EdDSA", "jku": JKU}),
        ),
        card(
            "core signed RS256",
            "core-rs256.card.json",
            "core-rs256.jwks.json",
            "A2A_OK",
            None,
            json!({"kid": "core-rs256", "alg": "RS256", "jku": JKU}),
        ),
        card(
            "tampered",
            "core-eddsa.tampered.card.json",
            "core-eddsa.jwks.json",
            "A2A_CARD_SIGNATURE",
            Some("no_valid_signature"),
            json!({"rejected": ["bad_signature"]}),
        ),
        card(
            "sdk signed, wrong key",
            "sdk-es256.card.json",
            "wrong.jwks.json",
            "A2A_CARD_SIGNATURE",
            Some("no_valid_signature"),
            json!({"rejected": ["bad_signature"]}),
        ),
        card(
            "core signed, wrong key",
            "core-eddsa.card.json",
            "wrong.jwks.json",
            "A2A_CARD_SIGNATURE",
            Some("no_valid_signature"),
            json!({"rejected": ["bad_signature"]}),
        ),
        card(
            "core signed, another signer's keys",
            "core-eddsa.card.json",
            "sdk-es256.jwks.json",
            "A2A_CARD_SIGNATURE",
            Some("no_valid_signature"),
            json!({"rejected": ["unknown_key"]}),
        ),
        card(
            "unsigned",
            "card.unsigned.json",
            "sdk-es256.jwks.json",
            "A2A_CARD_SIGNATURE",
            Some("unsigned"),
            json!({}),
        ),
        card(
            "keys that are not keys",
            "core-eddsa.card.json",
            "card.unsigned.json",
            "A2A_TRUST_KEY",
            Some("missing"),
            json!({}),
        ),
    ];
    let key_urls = vec![
        json!({"name": "jku on the card's host", "card": "core-eddsa.card.json",
               "card_url": CARD_URL, "extra_hosts": "", "expect": "A2A_OK", "url": JKU}),
        json!({"name": "card fetched from another host", "card": "core-eddsa.card.json",
               "card_url": "https://mirror.example/card.json", "extra_hosts": "",
               "expect": "A2A_CARD_SIGNATURE", "reason": "jku_refused"}),
        json!({"name": "that host allowed", "card": "core-eddsa.card.json",
               "card_url": "https://mirror.example/card.json", "extra_hosts": "agent.example",
               "expect": "A2A_OK", "url": JKU}),
        json!({"name": "unsigned card", "card": "card.unsigned.json", "card_url": CARD_URL,
               "extra_hosts": "", "expect": "A2A_NONE"}),
    ];

    let tok = |c: Value| {
        json!([[
            "Authorization",
            format!("Bearer {}", token("push-es256.pem", "push-1", c))
        ]])
    };
    let good = tok(claims("n-1", NOW - 5, NOW + 300, "task-1"));
    let jwt_policy = json!({"audience": HOOK, "issuer": ISSUER, "taskId": "task-1",
                            "skewSecs": 60, "maxAgeSecs": 300});
    let secret = json!([["X-A2A-Notification-Token", "s3cret-token"]]);
    let push = vec![
        json!({"name": "token: accepted, then replayed",
               "policy": {"token": "s3cret-token", "taskId": "task-1"}, "keys": null,
               "steps": [step(secret.clone(), status("task-1"), NOW, "A2A_OK", None),
                         step(secret.clone(), status("task-1"), NOW + 10, "A2A_PUSH_REJECTED", Some("replayed"))]}),
        json!({"name": "token: wrong, missing, other task",
               "policy": {"token": "s3cret-token", "taskId": "task-1"}, "keys": null,
               "steps": [step(json!([["X-A2A-Notification-Token", "guess"]]), status("task-1"), NOW,
                              "A2A_PUSH_REJECTED", Some("token_mismatch")),
                         step(json!([]), status("task-1"), NOW, "A2A_PUSH_REJECTED", Some("token_missing")),
                         step(secret.clone(), status("task-2"), NOW, "A2A_PUSH_REJECTED", Some("task_mismatch"))]}),
        json!({"name": "jwt: accepted, then replayed; the same token after it expired",
               "policy": jwt_policy, "keys": "push.jwks.json",
               "steps": [step(good.clone(), status("task-1"), NOW, "A2A_OK", None),
                         step(good.clone(), status("task-1"), NOW + 1, "A2A_PUSH_REJECTED", Some("replayed")),
                         step(good.clone(), status("task-1"), NOW + 400, "A2A_PUSH_REJECTED", Some("expired"))]}),
        json!({"name": "jwt: expired, wrong task, wrong audience, wrong key, none",
               "policy": jwt_policy, "keys": "push.jwks.json",
               "steps": [step(tok(claims("n-2", NOW - 400, NOW - 100, "task-1")), status("task-1"), NOW,
                              "A2A_PUSH_REJECTED", Some("expired")),
                         step(tok(claims("n-3", NOW, NOW + 60, "task-9")), status("task-1"), NOW,
                              "A2A_PUSH_REJECTED", Some("task_mismatch")),
                         step(good.clone(), status("task-9"), NOW, "A2A_PUSH_REJECTED", Some("task_mismatch")),
                         step(tok(json!({"iss": ISSUER, "aud": "https://elsewhere.example/hook",
                                         "iat": NOW, "exp": NOW + 60, "jti": "n-4", "taskId": "task-1"})),
                              status("task-1"), NOW, "A2A_PUSH_REJECTED", Some("wrong_audience")),
                         step(json!([["Authorization", format!("Bearer {}",
                                   token("wrong-p256.pem", "push-1", claims("n-5", NOW, NOW + 60, "task-1")))]]),
                              status("task-1"), NOW, "A2A_PUSH_REJECTED", Some("jwt")),
                         step(json!([]), status("task-1"), NOW, "A2A_PUSH_REJECTED", Some("jwt_missing"))]}),
    ];
    let webhooks: Vec<Value> = [
        (
            "https://client.example/hooks/a2a",
            false,
            "",
            "A2A_OK",
            None,
        ),
        (
            "https://client.example/hooks/a2a",
            false,
            "93.184.216.34",
            "A2A_OK",
            None,
        ),
        (
            "http://client.example/hooks/a2a",
            false,
            "",
            "A2A_WEBHOOK_REFUSED",
            Some("scheme"),
        ),
        ("http://client.example/hooks/a2a", true, "", "A2A_OK", None),
        (
            "https://user@client.example/hooks/a2a",
            false,
            "",
            "A2A_WEBHOOK_REFUSED",
            Some("userinfo"),
        ),
        (
            "https://169.254.169.254/latest/meta-data",
            false,
            "",
            "A2A_WEBHOOK_REFUSED",
            Some("internal"),
        ),
        (
            "https://localhost:8443/hook",
            false,
            "",
            "A2A_WEBHOOK_REFUSED",
            Some("internal"),
        ),
        (
            "https://client.example/hooks/a2a",
            false,
            "93.184.216.34,10.1.2.3",
            "A2A_WEBHOOK_REFUSED",
            Some("internal"),
        ),
        (
            "https://client.example/hooks/a2a",
            false,
            "::1",
            "A2A_WEBHOOK_REFUSED",
            Some("internal"),
        ),
    ]
    .iter()
    .map(|(url, allow_http, resolved, expect, reason)| {
        json!({"url": url, "allow_http": allow_http, "resolved": resolved, "expect": expect,
               "reason": reason})
    })
    .collect();
    write(
        "cases.json",
        &json!({
            "about": "Trust fixtures (issue 26 items 1-4) that every binding runs through its own API: \
                      cards (verify `card` against the key document `keys`: a JWK Set, one JWK or \
                      PEM), key_urls (the jku to fetch for a card fetched from card_url), push (one \
                      verifier per case from `policy` and `keys` (null: token only); its steps run \
                      in order on it, each with its own clock `now` in Unix seconds; headers are \
                      [name, value] pairs, body is the JSON to send, compact), webhooks (the sender's \
                      URL check). `expect` is the C result code's name; `reason` the report's or \
                      verdict's \"reason\" (the core's kind()), null when accepted; `kid`/`alg`/`jku` \
                      what the verified report names; `rejected` each signature's reason in order. \
                      Generated by ffi/tests/trust_fixtures.rs (A2A_BLESS_TRUST_FIXTURES=1) and \
                      sdk_sign.py (the a2a-sdk-signed card); the keys are test keys protecting nothing.",
            "now": NOW,
            "codes": {"A2A_OK": 0, "A2A_NONE": 2, "A2A_TRUST_JSON": 1300, "A2A_TRUST_KEY": 1301,
                      "A2A_CARD_SIGNATURE": 1302, "A2A_PUSH_REJECTED": 1303,
                      "A2A_WEBHOOK_REFUSED": 1304, "A2A_OAUTH2_REFUSED": 1305},
            "cards": cards,
            "key_urls": key_urls,
            "push": push,
            "webhooks": webhooks,
        }),
    );
}

fn code(cases: &Value, name: &str) -> u32 {
    cases["codes"][name]
        .as_u64()
        .unwrap_or_else(|| panic!("unknown code {name}")) as u32
}

#[test]
fn every_trust_fixture_case_holds_through_the_c_functions() {
    if std::env::var_os("A2A_BLESS_TRUST_FIXTURES").is_some() {
        bless();
    }
    let cases: Value = serde_json::from_slice(&read("cases.json")).unwrap();
    let mut n = 0;
    for c in cases["cards"].as_array().unwrap() {
        let card = read(c["card"].as_str().unwrap());
        let keys = read(c["keys"].as_str().unwrap());
        let b = new_buffer();
        let r = a2a_card_signature_verify(card.as_ptr(), card.len(), keys.as_ptr(), keys.len(), b);
        let report: Value = serde_json::from_slice(&take(b)).unwrap();
        let name = &c["name"];
        assert_eq!(
            r as u32,
            code(&cases, c["expect"].as_str().unwrap()),
            "{name}: {report}"
        );
        assert_eq!(
            report.get("reason").unwrap_or(&Value::Null),
            &c["reason"],
            "{name}: {report}"
        );
        for field in ["kid", "alg", "jku"] {
            if let Some(want) = c.get(field) {
                assert_eq!(&report[field], want, "{name}: {field}");
            }
        }
        if let Some(want) = c.get("rejected") {
            let got: Vec<&Value> = report["signatures"]
                .as_array()
                .unwrap()
                .iter()
                .map(|s| &s["rejected"])
                .collect();
            assert_eq!(&json!(got), want, "{name}: {report}");
        }
        n += 1;
    }
    for c in cases["key_urls"].as_array().unwrap() {
        let card = read(c["card"].as_str().unwrap());
        let (url, extra) = (
            c["card_url"].as_str().unwrap(),
            c["extra_hosts"].as_str().unwrap(),
        );
        let b = new_buffer();
        let r = a2a_card_signature_key_url(
            card.as_ptr(),
            card.len(),
            url.as_ptr().cast(),
            url.len(),
            extra.as_ptr().cast(),
            extra.len(),
            b,
        );
        let out = String::from_utf8(take(b)).unwrap();
        let name = &c["name"];
        assert_eq!(
            r as u32,
            code(&cases, c["expect"].as_str().unwrap()),
            "{name}: {out}"
        );
        if let Some(u) = c.get("url") {
            assert_eq!(out, u.as_str().unwrap(), "{name}");
        }
        if let Some(reason) = c.get("reason") {
            assert_eq!(
                &serde_json::from_str::<Value>(&out).unwrap()["reason"],
                reason,
                "{name}"
            );
        }
        n += 1;
    }
    for c in cases["push"].as_array().unwrap() {
        let policy = c["policy"].to_string();
        let keys = c["keys"].as_str().map(read).unwrap_or_default();
        let mut v = null_mut();
        let (kp, kl) = if keys.is_empty() {
            (null(), 0)
        } else {
            (keys.as_ptr(), keys.len())
        };
        assert_eq!(
            a2a_push_verifier_new(policy.as_ptr(), policy.len(), kp, kl, 0, &mut v),
            a2a_result::A2A_OK
        );
        for (i, s) in c["steps"].as_array().unwrap().iter().enumerate() {
            let pairs: Vec<(String, String)> = s["headers"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| {
                    (
                        p[0].as_str().unwrap().to_owned(),
                        p[1].as_str().unwrap().to_owned(),
                    )
                })
                .collect();
            let hs = common::headers(&pairs);
            let body = s["body"].to_string();
            let b = new_buffer();
            let r = a2a_push_verifier_check(
                v,
                hs.as_ptr(),
                hs.len(),
                body.as_ptr(),
                body.len(),
                s["now"].as_i64().unwrap(),
                b,
            );
            let verdict: Value = serde_json::from_slice(&take(b)).unwrap();
            let name = format!("{} step {i}", c["name"]);
            assert_eq!(
                r as u32,
                code(&cases, s["expect"].as_str().unwrap()),
                "{name}: {verdict}"
            );
            assert_eq!(
                verdict.get("reason").unwrap_or(&Value::Null),
                &s["reason"],
                "{name}"
            );
            assert_eq!(verdict["accepted"], s["reason"].is_null(), "{name}");
            n += 1;
        }
        a2a_push_verifier_free(v);
    }
    for c in cases["webhooks"].as_array().unwrap() {
        let (url, resolved) = (c["url"].as_str().unwrap(), c["resolved"].as_str().unwrap());
        let b = new_buffer();
        let r = a2a_webhook_url_check(
            url.as_ptr().cast(),
            url.len(),
            c["allow_http"].as_bool().unwrap(),
            resolved.as_ptr().cast(),
            resolved.len(),
            b,
        );
        let out = take(b);
        assert_eq!(r as u32, code(&cases, c["expect"].as_str().unwrap()), "{c}");
        let reason = if out.is_empty() {
            Value::Null
        } else {
            serde_json::from_slice::<Value>(&out).unwrap()["reason"].clone()
        };
        assert_eq!(reason, c["reason"], "{c}");
        n += 1;
    }
    assert!(n >= 30, "only {n} cases");
}
