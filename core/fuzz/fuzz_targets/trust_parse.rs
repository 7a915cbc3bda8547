//! Fuzz the trust parsers: RFC 8785 canonical JSON, the card's signing form, JWK Sets,
//! JWS protected headers, card verification, JWTs and push notification bodies. Arbitrary bytes must never panic; canonical
//! output must be a fixed point (canonicalizing it again changes nothing) and parse back to the
//! same value; the signing form of a signing form is itself.
#![no_main]

use a2a_core::trust::canonical::Json;
use a2a_core::trust::card_form::{card_payload, signing_form};
use a2a_core::trust::card_sig::{KeyStore, verify_card};
use a2a_core::trust::jwks::{Jwk, JwkSet, PublicKey};
use a2a_core::trust::jws;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(v) = Json::parse(data) {
        let c = v.canonical();
        let again = Json::parse(&c).expect("canonical output parses");
        assert_eq!(again.canonical(), c, "canonical form is a fixed point");
        let compact = v.to_compact();
        assert_eq!(Json::parse(compact.as_bytes()).expect("compact output parses").canonical(), c);
        let form = signing_form(&v);
        assert_eq!(signing_form(&form), form, "the signing form is idempotent");
        assert_eq!(card_payload(&v), form.canonical());
    }
    if let Ok(set) = JwkSet::parse(data) {
        assert!(set.keys.len() + set.skipped.len() <= a2a_core::trust::jwks::MAX_KEYS);
        for k in &set.keys {
            // A key read from a set writes back to a JWK that reads as the same key.
            let v = serde_json::Value::Object(k.key.jwk_members());
            assert_eq!(Jwk::from_value(&v).expect("written JWK reads").key, k.key);
        }
    }
    let _ = PublicKey::from_pem(data);
    if let Ok(text) = std::str::from_utf8(data) {
        if let Ok(h) = jws::parse_header(text, None) {
            assert!(jws::Algorithm::ALL.contains(&h.alg));
        }
        let _ = jws::split_compact(text);
        // As a JWT: refused (no key can match) with a message, never a panic.
        if let Err(e) = a2a_core::trust::jwt::verify(text, &KeyStore::new()) {
            assert!(!e.to_string().is_empty());
        }
    }
    if let Ok(c) = a2a_core::trust::jwt::claims(data) {
        let _ = c.aud.len();
    }
    // As a push notification body, checked with a token.
    let policy = a2a_core::trust::push::PushPolicy {
        token: Some("t".into()),
        task_id: Some("t-1".into()),
        ..Default::default()
    };
    let mut window = a2a_core::trust::push::ReplayWindow::new(2);
    let headers = [("X-A2A-Notification-Token", "t")];
    let v = a2a_core::trust::push::verify_notification(&headers, data, &policy, &KeyStore::new(), 0, &mut window);
    if let a2a_core::trust::push::Verdict::Accepted(a) = &v {
        assert_eq!(a.task_id, "t-1");
        // The same bytes again are a replay.
        let again = a2a_core::trust::push::verify_notification(&headers, data, &policy, &KeyStore::new(), 0, &mut window);
        assert!(matches!(again, a2a_core::trust::push::Verdict::Rejected(_)));
    }
    // Verification with a key that cannot match reaches every refusal path without panicking.
    let mut keys = KeyStore::new();
    keys.add_public_key(PublicKey::Ed25519(vec![0; 32]), Some("k"));
    if let Err(e) = verify_card(data, &keys) {
        assert!(!e.to_string().is_empty());
    }
});
