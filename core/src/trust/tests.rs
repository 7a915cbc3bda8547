//! End to end: cards signed and verified with every key type, and the ways a card, a key or
//! a signature can be wrong.

use super::card_sig::{CardSignatureError, KeyStore, sign_card, verify_card};
use super::jwks::{Jwk, JwkSet, PublicKey};
use super::jws::{self, Algorithm, SigningKey};
use super::{SystemRandom, canonical::Json};

const RSA: &[u8] = include_bytes!("testdata/rsa2048.pem");
const RSA_PKCS1: &[u8] = include_bytes!("testdata/rsa2048-pkcs1.pem");
const RSA_PUB: &[u8] = include_bytes!("testdata/rsa2048.pub.pem");
const P256: &[u8] = include_bytes!("testdata/p256.pem");
const P256_SEC1: &[u8] = include_bytes!("testdata/p256-sec1.pem");
const P256_PUB: &[u8] = include_bytes!("testdata/p256.pub.pem");
const ED25519: &[u8] = include_bytes!("testdata/ed25519.pem");
const ED25519_PUB: &[u8] = include_bytes!("testdata/ed25519.pub.pem");

const CARD: &str = r#"{"name":"Echo","description":"Says it back","version":"1.0.0",
  "supportedInterfaces":[{"url":"https://agent.example/a2a","protocolBinding":"JSONRPC","protocolVersion":"1.0"}],
  "capabilities":{"streaming":true,"extensions":[]},"defaultInputModes":["text/plain"],
  "defaultOutputModes":["text/plain"],"skills":[{"id":"echo","name":"Echo","description":"Echoes","tags":["demo"]}],
  "documentationUrl":"https://agent.example/docs?q=\u00e9"}"#;

fn key(pem: &[u8]) -> SigningKey {
    SigningKey::from_pem(pem, &SystemRandom::new()).unwrap()
}

fn store_of(k: &SigningKey, kid: &str) -> KeyStore {
    let jwks = format!("{{\"keys\":[{}]}}", k.public_jwk(kid));
    let set = JwkSet::parse(jwks.as_bytes()).unwrap();
    assert!(set.skipped.is_empty(), "{:?}", set.skipped);
    let mut s = KeyStore::new();
    s.add_set(&set);
    s
}

fn rejection(e: CardSignatureError) -> Vec<&'static str> {
    match e {
        CardSignatureError::NoValidSignature(v) => v.iter().map(|(_, r)| r.kind()).collect(),
        other => panic!("expected NoValidSignature, got {other:?}"),
    }
}

#[test]
fn every_key_type_signs_and_verifies() {
    let rng = SystemRandom::new();
    for (pem, alg) in [
        (P256, Algorithm::Es256),
        (RSA, Algorithm::Rs256),
        (RSA_PKCS1, Algorithm::Rs256),
        (ED25519, Algorithm::EdDsa),
    ] {
        let k = key(pem);
        assert_eq!(k.algorithm(), alg);
        let signed = sign_card(
            CARD.as_bytes(),
            &k,
            "k1",
            Some("https://agent.example/jwks.json"),
            &rng,
        )
        .unwrap();
        let ok = verify_card(signed.as_bytes(), &store_of(&k, "k1")).unwrap();
        assert_eq!((ok.index, ok.alg, ok.kid.as_deref()), (0, alg, Some("k1")));
        assert_eq!(ok.jku.as_deref(), Some("https://agent.example/jwks.json"));
        // The protected header is what §8.4.2 asks for.
        let v = Json::parse(signed.as_bytes()).unwrap();
        let prot = v.get("signatures").and_then(|s| match s {
            Json::Array(a) => a[0].get("protected").and_then(Json::as_str),
            _ => None,
        });
        let h = jws::parse_header(prot.unwrap(), None).unwrap();
        assert_eq!((h.alg, h.typ.as_deref()), (alg, Some("JOSE")));
    }
    for alg in [Algorithm::Ps256, Algorithm::Rs512] {
        let k = key(RSA).with_algorithm(alg).unwrap();
        let signed = sign_card(CARD.as_bytes(), &k, "r", None, &rng).unwrap();
        assert_eq!(
            verify_card(signed.as_bytes(), &store_of(&k, "r"))
                .unwrap()
                .alg,
            alg
        );
    }
    assert_eq!(
        key(P256)
            .with_algorithm(Algorithm::Rs256)
            .unwrap_err()
            .to_string(),
        "algorithm RS256 does not fit this EC P-256 key"
    );
}

#[test]
fn trusted_pem_keys_verify_without_a_kid() {
    let rng = SystemRandom::new();
    for (private, public) in [(P256, P256_PUB), (RSA, RSA_PUB), (ED25519, ED25519_PUB)] {
        let k = key(private);
        let signed = sign_card(CARD.as_bytes(), &k, "any", None, &rng).unwrap();
        let mut store = KeyStore::new();
        store.add_public_key(PublicKey::from_pem(public).unwrap(), None);
        assert!(verify_card(signed.as_bytes(), &store).is_ok());
        assert_eq!(PublicKey::from_pem(public).unwrap(), k.public_key());
    }
}

#[test]
fn a_signed_card_still_verifies_when_reformatted_and_a_second_signature_is_added() {
    let rng = SystemRandom::new();
    let (ec, ed) = (key(P256), key(ED25519));
    let once = sign_card(CARD.as_bytes(), &ec, "ec", None, &rng).unwrap();
    // Re-serialized by another JSON writer (members reordered, whitespace added).
    let pretty =
        serde_json::to_string_pretty(&serde_json::from_str::<serde_json::Value>(&once).unwrap())
            .unwrap();
    assert!(verify_card(pretty.as_bytes(), &store_of(&ec, "ec")).is_ok());
    // A second signature (key rotation) does not disturb the first: `signatures` is excluded.
    let twice = sign_card(once.as_bytes(), &ed, "ed", None, &rng).unwrap();
    assert_eq!(
        verify_card(twice.as_bytes(), &store_of(&ec, "ec"))
            .unwrap()
            .index,
        0
    );
    assert_eq!(
        verify_card(twice.as_bytes(), &store_of(&ed, "ed"))
            .unwrap()
            .index,
        1
    );
    // Defaults added or removed do not change the payload either.
    let with_defaults = twice.replacen(
        "\"version\"",
        "\"iconUrl\":null,\"provider\":null,\"version\"",
        1,
    );
    assert!(verify_card(with_defaults.as_bytes(), &store_of(&ed, "ed")).is_ok());
}

#[test]
fn a_tampered_card_is_refused() {
    let rng = SystemRandom::new();
    let k = key(P256);
    let signed = sign_card(CARD.as_bytes(), &k, "k", None, &rng).unwrap();
    let store = store_of(&k, "k");
    for (from, to) in [
        ("\"Says it back\"", "\"Says it back!\""),
        ("https://agent.example/a2a", "https://evil.example/a2a"),
        ("\"streaming\":true", "\"streaming\":false"),
        // An explicitly set optional field is part of the payload: removing it is tampering.
        ("\"streaming\":true,", ""),
    ] {
        let t = signed.replacen(from, to, 1);
        assert_ne!(t, signed, "{from}");
        assert_eq!(
            rejection(verify_card(t.as_bytes(), &store).unwrap_err()),
            ["bad_signature"],
            "{from}"
        );
    }
    // Duplicate member names are refused before any key is tried.
    let dup = signed.replacen(
        "{\"name\":\"Echo\",",
        "{\"name\":\"Echo\",\"name\":\"Evil\",",
        1,
    );
    assert_eq!(
        verify_card(dup.as_bytes(), &store).unwrap_err().kind(),
        "card_json"
    );
}

#[test]
fn wrong_key_unknown_kid_and_refused_algorithms() {
    let rng = SystemRandom::new();
    let (ec, ed) = (key(P256), key(ED25519));
    let signed = sign_card(CARD.as_bytes(), &ec, "k", None, &rng).unwrap();
    // Another P-256 key under the same kid.
    let other = SigningKey::from_pem(&pem_of_new_p256(&rng), &rng).unwrap();
    assert_eq!(
        rejection(verify_card(signed.as_bytes(), &store_of(&other, "k")).unwrap_err()),
        ["bad_signature"]
    );
    // A key of another type under the same kid.
    assert_eq!(
        rejection(verify_card(signed.as_bytes(), &store_of(&ed, "k")).unwrap_err()),
        ["alg_key_mismatch"]
    );
    // The right key under another kid.
    assert_eq!(
        rejection(verify_card(signed.as_bytes(), &store_of(&ec, "other")).unwrap_err()),
        ["unknown_key"]
    );
    // A JWK whose alg names another algorithm.
    let mut jwk = ec.public_jwk("k");
    jwk["alg"] = "ES384".into();
    let mut s = KeyStore::new();
    s.add(Jwk::from_value(&jwk).unwrap());
    assert_eq!(
        rejection(verify_card(signed.as_bytes(), &s).unwrap_err()),
        ["alg_key_mismatch"]
    );
    // No keys, no signatures.
    assert_eq!(
        verify_card(signed.as_bytes(), &KeyStore::new())
            .unwrap_err()
            .kind(),
        "no_keys"
    );
    assert_eq!(
        verify_card(CARD.as_bytes(), &store_of(&ec, "k"))
            .unwrap_err()
            .kind(),
        "unsigned"
    );

    // Rewritten protected headers: alg none, HS256 (with the public key as the MAC secret,
    // the classic confusion), an unknown alg, crit, a header that is not JSON.
    let store = store_of(&ec, "k");
    for (header, want) in [
        (r#"{"alg":"none","kid":"k"}"#, "alg_none"),
        (r#"{"alg":"HS256","kid":"k"}"#, "alg_symmetric"),
        (r#"{"alg":"ES512","kid":"k"}"#, "alg_unsupported"),
        (
            r#"{"alg":"ES256","kid":"k","crit":["b64"],"b64":false}"#,
            "critical",
        ),
        (r#"{"kid":"k"}"#, "no_alg"),
        (r#"{"alg":null,"kid":"k"}"#, "no_alg"),
        (r#"{"alg":"ES256","kid":"k","jku":7}"#, "header_member"),
        (r#"["ES256"]"#, "header"),
    ] {
        let card = with_signature(CARD, &jws::encode(header.as_bytes()), "AAAA");
        assert_eq!(
            rejection(verify_card(card.as_bytes(), &store).unwrap_err()),
            [want],
            "{header}"
        );
    }
    // A signature with a protected kid that also appears unprotected.
    let card = CARD.replacen(
        "{",
        &format!(
            "{{\"signatures\":[{{\"protected\":\"{}\",\"signature\":\"AA\",\"header\":{{\"kid\":\"x\"}}}},{{\"protected\":1}}],",
            jws::encode(br#"{"alg":"ES256","kid":"k"}"#)
        ),
        1,
    );
    assert_eq!(
        rejection(verify_card(card.as_bytes(), &store).unwrap_err()),
        ["duplicate_header", "malformed"]
    );
}

fn with_signature(card: &str, protected: &str, signature: &str) -> String {
    card.replacen(
        "{",
        &format!(
            "{{\"signatures\":[{{\"protected\":\"{protected}\",\"signature\":\"{signature}\"}}],"
        ),
        1,
    )
}

fn pem_of_new_p256(rng: &SystemRandom) -> Vec<u8> {
    use base64::Engine;
    let doc = ring::signature::EcdsaKeyPair::generate_pkcs8(
        &ring::signature::ECDSA_P256_SHA256_FIXED_SIGNING,
        rng,
    )
    .unwrap();
    let b64 = base64::engine::general_purpose::STANDARD.encode(doc.as_ref());
    format!("-----BEGIN PRIVATE KEY-----\n{b64}\n-----END PRIVATE KEY-----\n").into_bytes()
}

#[test]
fn private_key_formats() {
    let rng = SystemRandom::new();
    let e = SigningKey::from_pem(P256_SEC1, &rng).unwrap_err();
    assert!(e.to_string().contains("openssl pkcs8 -topk8"), "{e}");
    assert_eq!(
        SigningKey::from_pem(P256_PUB, &rng)
            .unwrap_err()
            .to_string(),
        "PEM: no '-----BEGIN PRIVATE KEY-----' block"
    );
    let debug = format!("{:?}", key(ED25519));
    assert_eq!(debug, "SigningKey(EdDSA, private)");
}

#[test]
fn the_spec_example_header_reads_back() {
    // A2A 1.0 §8.4.2's example protected header (its key is not published, so only the
    // header can be checked).
    let h = jws::parse_header(
        "eyJhbGciOiJFUzI1NiIsInR5cCI6IkpPU0UiLCJraWQiOiJrZXktMSIsImprdSI6Imh0dHBzOi8vZXhhbXBsZS5jb20vYWdlbnQvandrcy5qc29uIn0",
        None,
    )
    .unwrap();
    assert_eq!(h.alg, Algorithm::Es256);
    assert_eq!(h.typ.as_deref(), Some("JOSE"));
    assert_eq!(h.kid.as_deref(), Some("key-1"));
    assert_eq!(
        h.jku.as_deref(),
        Some("https://example.com/agent/jwks.json")
    );
}

#[test]
fn jku_is_followed_only_over_https_on_the_cards_host() {
    use super::card_sig::jku_allowed;
    let card = "https://agent.example/.well-known/agent-card.json";
    assert!(jku_allowed("https://agent.example/jwks.json", card, &[]).is_ok());
    assert!(jku_allowed("https://AGENT.example./jwks.json", card, &[]).is_ok());
    assert!(
        jku_allowed("http://agent.example/jwks.json", card, &[])
            .unwrap_err()
            .contains("not https")
    );
    assert!(
        jku_allowed("https://keys.example/jwks.json", card, &[])
            .unwrap_err()
            .contains("not on the card's host")
    );
    assert!(jku_allowed("https://keys.example/jwks.json", card, &["keys.example"]).is_ok());
    assert!(
        jku_allowed("https://u@agent.example/jwks.json", card, &[])
            .unwrap_err()
            .contains("userinfo")
    );
}

#[test]
fn key_documents_are_detected_jwks_jwk_or_pem() {
    let rng = SystemRandom::new();
    let k = key(P256);
    let signed = sign_card(CARD.as_bytes(), &k, "k", None, &rng).unwrap();
    let jwk = k.public_jwk("k").to_string();
    let jwks = format!("{{\"keys\":[{jwk}]}}");
    // Two PEM blocks: the first does not fit, the second does.
    let bundle = [RSA_PUB, P256_PUB].concat();
    for doc in [jwks.as_bytes(), jwk.as_bytes(), P256_PUB, &bundle] {
        let store = KeyStore::from_document(doc).unwrap();
        assert!(verify_card(signed.as_bytes(), &store).is_ok());
    }
    assert_eq!(
        KeyStore::from_document(&bundle)
            .unwrap()
            .candidates(None)
            .count(),
        2
    );
    let kind = |doc: &[u8]| KeyStore::from_document(doc).unwrap_err().kind();
    assert_eq!(kind(b"not json"), "json");
    assert_eq!(kind(b"{\"keys\":[]}"), "no_keys");
    assert_eq!(
        kind(b"{\"keys\":[{\"kty\":\"oct\",\"k\":\"AA\"}]}"),
        "no_keys"
    );
    // A symmetric key is secret material, never a published verification key.
    assert_eq!(kind(b"{\"kty\":\"oct\",\"k\":\"AA\"}"), "private_material");
    assert_eq!(
        kind(b"-----BEGIN PRIVATE KEY-----\nAA==\n-----END PRIVATE KEY-----\n"),
        "pem"
    );
    assert_eq!(kind(ED25519), "pem");
}

#[test]
fn the_verification_report_names_each_signature() {
    use super::card_sig::verification_report;
    let rng = SystemRandom::new();
    let k = key(P256);
    let other = key(ED25519);
    let once = sign_card(CARD.as_bytes(), &other, "ed", None, &rng).unwrap();
    let twice = sign_card(
        once.as_bytes(),
        &k,
        "p",
        Some("https://agent.example/k"),
        &rng,
    )
    .unwrap();
    let store = store_of(&k, "p");
    let r = verification_report(twice.as_bytes(), &verify_card(twice.as_bytes(), &store));
    assert_eq!(
        r,
        serde_json::json!({"verified": true, "kid": "p", "alg": "ES256",
                           "jku": "https://agent.example/k"})
    );
    let tampered = twice.replacen("Says it back", "Says it", 1);
    let r = verification_report(
        tampered.as_bytes(),
        &verify_card(tampered.as_bytes(), &store),
    );
    assert_eq!(r["verified"], false);
    assert_eq!(r["reason"], "no_valid_signature");
    let sigs = r["signatures"].as_array().unwrap();
    assert_eq!(sigs.len(), 2);
    assert_eq!(
        (&sigs[0]["kid"], &sigs[0]["alg"]),
        (&"ed".into(), &"EdDSA".into())
    );
    assert_eq!(sigs[0]["rejected"], "unknown_key");
    assert_eq!(
        (&sigs[1]["kid"], &sigs[1]["rejected"]),
        (&"p".into(), &"bad_signature".into())
    );
    let r = verification_report(CARD.as_bytes(), &verify_card(CARD.as_bytes(), &store));
    assert_eq!(r["reason"], "unsigned");
    assert_eq!(r["signatures"], serde_json::json!([]));
}
