//! Card tests: the shared fixtures in `bindings/fixtures/cards.json`, plus unit cases for
//! parsing, selection, validation, credentials and card URL building.

use super::*;
use crate::version::{Binding, ProtocolVersion};
use proptest::prelude::*;
use serde_json::Value;

const FIXTURES: &str = include_str!("../../../bindings/fixtures/cards.json");

fn prefs_from(v: &Value) -> Preferences {
    Preferences {
        versions: v["versions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| ProtocolVersion::parse(s.as_str().unwrap()).unwrap())
            .collect(),
        bindings: v["bindings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| Binding::parse(s.as_str().unwrap()).unwrap())
            .collect(),
        order: match v["order"].as_str().unwrap() {
            "client" => SelectionOrder::ClientFirst,
            "card" => SelectionOrder::CardFirst,
            other => panic!("unknown order {other}"),
        },
        min_version: None,
    }
}

fn policy_from(v: &Value) -> Policy {
    Policy {
        allow_http: v["allow_http"].as_bool().unwrap(),
        allowed_origins: v["allowed_origins"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s.as_str().unwrap().to_owned())
            .collect(),
    }
}

fn credential_word(c: &Credential) -> String {
    match c {
        Credential::BearerToken { .. } => "bearer".into(),
        Credential::Basic => "basic".into(),
        Credential::ClientCertificate => "client_certificate".into(),
        Credential::ApiKey { location, name } => format!(
            "api_key:{}:{name}",
            match location {
                ApiKeyLocation::Header => "header",
                ApiKeyLocation::Query => "query",
                ApiKeyLocation::Cookie => "cookie",
            }
        ),
        Credential::OtherHttp { scheme } => format!("other_http:{scheme}"),
        Credential::Unknown => "unknown".into(),
    }
}

#[test]
fn shared_fixtures() {
    let doc: Value = serde_json::from_str(FIXTURES).unwrap();
    let cases = doc["cases"].as_array().unwrap();
    assert!(cases.len() >= 40);
    for case in cases {
        let name = case["name"].as_str().unwrap();
        assert!(
            case["source"].as_str().is_some_and(|s| !s.is_empty()),
            "{name}: every case names its source"
        );
        let card_bytes = serde_json::to_vec(&case["card"]).unwrap();
        let card = AgentCard::parse(&card_bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        let got = card.resolve(
            case["card_url"].as_str().unwrap(),
            &prefs_from(&case["preferences"]),
            &policy_from(&case["policy"]),
        );
        let expect = &case["expect"];
        match (got, expect["error"].as_str()) {
            (Ok(r), None) => {
                assert_eq!(r.choice.url, expect["url"].as_str().unwrap(), "{name}");
                assert_eq!(
                    r.choice.version.as_str(),
                    expect["version"].as_str().unwrap(),
                    "{name}"
                );
                assert_eq!(
                    r.choice.binding.as_str(),
                    expect["binding"].as_str().unwrap(),
                    "{name}"
                );
                assert_eq!(
                    r.choice.tenant.as_deref(),
                    expect["tenant"].as_str(),
                    "{name}"
                );
                if let Some(origin) = expect.get("origin") {
                    assert_eq!(
                        r.choice.origin.to_string(),
                        origin.as_str().unwrap(),
                        "{name}"
                    );
                }
                assert!(!r.choice.explain().is_empty());
            }
            (Err(e), Some(kind)) => {
                assert_eq!(e.kind(), kind, "{name}: {e}");
                assert!(!e.to_string().is_empty());
            }
            (got, _) => panic!("{name}: expected {expect}, got {got:?}"),
        }
        if let Some(creds) = case.get("credentials") {
            let plan = card.credentials();
            let words: Vec<Vec<String>> = plan
                .alternatives
                .iter()
                .map(|alt| alt.iter().map(|n| credential_word(&n.credential)).collect())
                .collect();
            let want: Vec<Vec<String>> = serde_json::from_value(creds.clone()).unwrap();
            assert_eq!(words, want, "{name}");
        }
    }
}

#[test]
fn shared_location_fixtures() {
    let doc: Value = serde_json::from_str(FIXTURES).unwrap();
    let cases = doc["locations"].as_array().unwrap();
    assert!(cases.len() >= 10);
    for case in cases {
        let input = case["input"].as_str().unwrap();
        assert!(case["source"].as_str().is_some_and(|s| !s.is_empty()));
        match (card_location(input), case["error"].as_str()) {
            (Ok(loc), None) => {
                assert_eq!(loc.primary, case["primary"].as_str().unwrap(), "{input}");
                assert_eq!(
                    loc.fallback.as_deref(),
                    case["fallback"].as_str(),
                    "{input}"
                );
            }
            (Err(e), Some(kind)) => assert_eq!(e.kind(), kind, "{input}"),
            (got, _) => panic!("{input}: got {got:?}, expected {case}"),
        }
    }
}

#[test]
fn hybrid_card_interfaces_are_merged_without_duplicates() {
    let card = AgentCard::parse(
        br#"{"name":"h","supportedInterfaces":[
            {"url":"https://h/","protocolBinding":"JSONRPC","protocolVersion":"1.0","tenant":""},
            {"url":"https://h/","protocolBinding":"JSONRPC","protocolVersion":"0.3"}],
          "url":"https://h/","preferredTransport":"JSONRPC","protocolVersion":"0.3",
          "additionalInterfaces":[{"transport":"HTTP+JSON","url":"https://h/rest"}],
          "unknownField":{"nested":[1,2,3]}}"#,
    )
    .unwrap();
    assert_eq!(card.shape, CardShape::Hybrid);
    let list: Vec<(&str, &str, Option<&str>)> = card
        .interfaces
        .iter()
        .map(|i| {
            (
                i.url.as_str(),
                i.binding.as_str(),
                i.protocol_version.as_deref(),
            )
        })
        .collect();
    assert_eq!(
        list,
        vec![
            ("https://h/", "JSONRPC", Some("1.0")),
            ("https://h/", "JSONRPC", Some("0.3")),
            ("https://h/rest", "HTTP+JSON", Some("0.3")),
        ]
    );
    assert_eq!(card.interfaces[0].tenant, None, "empty tenant = unset");
    assert_eq!(
        card.interfaces[2].origin,
        InterfaceOrigin::AdditionalInterfaces(0)
    );
}

#[test]
fn min_version_never_chooses_an_older_interface() {
    let card = AgentCard::parse(
        br#"{"supportedInterfaces":[{"url":"https://h/old","protocolBinding":"JSONRPC","protocolVersion":"0.3"}]}"#,
    )
    .unwrap();
    let mut p = Preferences {
        min_version: Some(ProtocolVersion::V1_0),
        ..Preferences::default()
    };
    let err = card.select(&p).unwrap_err();
    assert_eq!(err.kind(), "no_usable_interface");
    assert!(err.to_string().contains("none older than 1.0"), "{err}");
    // Even a client that lists 0.3 (or insists on it) does not get it.
    p.versions = vec![ProtocolVersion::V0_3];
    assert!(card.select(&p).is_err());
    p.min_version = Some(ProtocolVersion::V0_3);
    assert_eq!(card.select(&p).unwrap().version, ProtocolVersion::V0_3);
}

#[test]
fn legacy_versions_and_snake_case() {
    let card = AgentCard::parse(
        br#"{"supported_interfaces":[{"url":"https://h/a","protocol_binding":"HTTP+JSON","protocol_version":"1.2","tenant":"t1"}],
            "capabilities":{"streaming":true,"extended_agent_card":true}}"#,
    )
    .unwrap();
    let c = card.select(&Preferences::default()).unwrap();
    assert_eq!(
        (
            c.version,
            c.binding,
            c.tenant.as_deref(),
            c.declared_version.as_deref()
        ),
        (
            ProtocolVersion::V1_0,
            Binding::HttpJson,
            Some("t1"),
            Some("1.2")
        )
    );
    assert!(card.streaming && card.extended_card && !card.push_notifications);
    // Unversioned entries: 1.0 in supportedInterfaces, 0.3 in the legacy fields.
    let card = AgentCard::parse(
        br#"{"supportedInterfaces":[{"url":"https://h/new"}],"url":"https://h/old"}"#,
    )
    .unwrap();
    let v: Vec<_> = card.interfaces.iter().map(|i| i.wire_version()).collect();
    assert_eq!(
        v,
        vec![Some(ProtocolVersion::V1_0), Some(ProtocolVersion::V0_3)]
    );
    // A pre-0.3 card (0.2.x, no preferredTransport) is spoken as 0.3 JSON-RPC.
    let card = AgentCard::parse(br#"{"protocolVersion":"0.2.9","url":"https://h/rpc"}"#).unwrap();
    assert_eq!(card.shape, CardShape::V0_3);
    let c = card.select(&Preferences::default()).unwrap();
    assert_eq!(
        (c.version, c.binding),
        (ProtocolVersion::V0_3, Binding::JsonRpc)
    );
    // An unknown major is skipped with its reason.
    let card = AgentCard::parse(
        br#"{"supportedInterfaces":[{"url":"https://h/2","protocolBinding":"JSONRPC","protocolVersion":"2.0"},
                                    {"url":"https://h/1","protocolBinding":"JSONRPC","protocolVersion":"1.0"}]}"#,
    )
    .unwrap();
    let c = card.select(&Preferences::default()).unwrap();
    assert_eq!(c.url, "https://h/1");
    assert_eq!(
        c.skipped,
        vec![Skipped {
            index: 0,
            reason: SkipReason::UnsupportedVersion("2.0".into())
        }]
    );
}

#[test]
fn no_usable_interface_says_what_was_offered() {
    let card = AgentCard::parse(
        br#"{"supportedInterfaces":[{"url":"h:443","protocolBinding":"GRPC","protocolVersion":"1.0"}]}"#,
    )
    .unwrap();
    let e = card.select(&Preferences::default()).unwrap_err();
    let text = e.to_string();
    assert_eq!(e.kind(), "no_usable_interface");
    assert!(text.contains("GRPC 1.0 at h:443"), "{text}");
    assert!(text.contains("JSONRPC"), "{text}");
}

#[test]
fn malformed_cards_are_typed_errors() {
    assert!(matches!(
        AgentCard::parse(b"<html>"),
        Err(CardError::Json(_))
    ));
    assert_eq!(AgentCard::parse(b"[]"), Err(CardError::NotAnObject));
    assert_eq!(
        AgentCard::parse(br#"{"supportedInterfaces":{}}"#),
        Err(CardError::InvalidField {
            field: "supportedInterfaces",
            expected: "an array of interfaces"
        })
    );
    assert_eq!(
        AgentCard::parse(br#"{"supportedInterfaces":[{"protocolBinding":"JSONRPC"}]}"#),
        Err(CardError::InvalidInterface {
            list: "supportedInterfaces",
            index: 0,
            problem: "no \"url\" string"
        })
    );
    assert_eq!(
        AgentCard::parse(br#"{"url":5}"#).unwrap_err().kind(),
        "invalid_field"
    );
    assert_eq!(
        AgentCard::parse(br#"{"url":"https://h/","security":{}}"#)
            .unwrap_err()
            .kind(),
        "invalid_field"
    );
    // Wrong types in fields a client does not rely on are ignored.
    let card = AgentCard::parse(br#"{"name":7,"capabilities":"yes","url":"https://h/"}"#).unwrap();
    assert_eq!(card.name, "");
    assert!(!card.streaming);
}

#[test]
fn credentials_without_requirements_offer_each_scheme() {
    let card = AgentCard::parse(
        br#"{"url":"https://h/","securitySchemes":{
            "key":{"apiKeySecurityScheme":{"location":"query","name":"k"}},
            "tok":{"type":"http","scheme":"bearer","bearerFormat":"JWT"},
            "weird":{"type":"carrier-pigeon"}}}"#,
    )
    .unwrap();
    let plan = card.credentials();
    assert!(!plan.stated);
    assert_eq!(plan.alternatives.len(), 3);
    assert_eq!(
        plan.alternatives[0][0].credential,
        Credential::ApiKey {
            location: ApiKeyLocation::Query,
            name: "k".into()
        }
    );
    assert_eq!(plan.alternatives[0][0].credential.header_name(), None);
    assert_eq!(
        plan.alternatives[1][0].credential,
        Credential::BearerToken {
            source: BearerSource::Http,
            format: Some("JWT".into())
        }
    );
    assert_eq!(
        plan.alternatives[1][0].credential.header_name(),
        Some("Authorization")
    );
    assert_eq!(plan.alternatives[2][0].credential, Credential::Unknown);
    // A requirement naming an undeclared scheme, and anonymous access as an option.
    let card = AgentCard::parse(
        br#"{"url":"https://h/","security":[{"missing":["s"]},{}],
             "securitySchemes":{"k":{"type":"apiKey","in":"header","name":"X-Key"}}}"#,
    )
    .unwrap();
    let plan = card.credentials();
    assert!(plan.stated);
    assert_eq!(plan.alternatives[0][0].credential, Credential::Unknown);
    assert_eq!(plan.alternatives[0][0].scopes, vec!["s".to_string()]);
    assert!(plan.alternatives[1].is_empty());
}

#[test]
fn client_credentials_token_url_is_kept_in_both_shapes() {
    // 0.3 OpenAPI style: the first scheme with the flow wins; other flows are ignored.
    let card = AgentCard::parse(
        br#"{"url":"https://h/","securitySchemes":{
            "code":{"type":"oauth2","flows":{"authorizationCode":{"tokenUrl":"https://a/t"}}},
            "cc":{"type":"oauth2","flows":{"clientCredentials":{"tokenUrl":"https://auth.example/token","scopes":{}}}}}}"#,
    )
    .unwrap();
    assert_eq!(
        card.client_credentials_token_url(),
        Some("https://auth.example/token")
    );
    let code = card
        .security_schemes
        .iter()
        .find(|(n, _)| n == "code")
        .unwrap();
    match &code.1 {
        SecurityScheme::OAuth2 {
            client_credentials_token_url,
            flows,
            ..
        } => {
            assert_eq!(*client_credentials_token_url, None);
            assert_eq!(flows, &vec!["authorizationCode".to_string()]);
        }
        other => panic!("not OAuth2: {other:?}"),
    }
    // 1.0 wrapper, snake_case flow.
    let card = AgentCard::parse(
        br#"{"url":"https://h/","securitySchemes":{"o":{"oauth2SecurityScheme":
            {"flows":{"client_credentials":{"token_url":"https://t.example/o"}}}}}}"#,
    )
    .unwrap();
    assert_eq!(
        card.client_credentials_token_url(),
        Some("https://t.example/o")
    );
    // Empty or missing: none.
    let card = AgentCard::parse(
        br#"{"url":"https://h/","securitySchemes":{"o":{"type":"oauth2",
            "flows":{"clientCredentials":{"tokenUrl":""}}}}}"#,
    )
    .unwrap();
    assert_eq!(card.client_credentials_token_url(), None);
}

#[test]
fn card_urls_keep_the_base_path() {
    let loc = |s: &str| card_location(s).unwrap();
    assert_eq!(
        loc("https://h/agents/x"),
        CardLocation {
            primary: "https://h/agents/x/.well-known/agent-card.json".into(),
            fallback: Some("https://h/agents/x/.well-known/agent.json".into()),
        }
    );
    assert_eq!(
        loc("https://h/agents/x/").primary,
        "https://h/agents/x/.well-known/agent-card.json"
    );
    assert_eq!(
        loc("https://h").primary,
        "https://h/.well-known/agent-card.json"
    );
    assert_eq!(
        loc("https://H:443/").primary,
        "https://h/.well-known/agent-card.json"
    );
    assert_eq!(
        loc("http://127.0.0.1:18901/").primary,
        "http://127.0.0.1:18901/.well-known/agent-card.json"
    );
    assert_eq!(
        loc("https://h/t/.well-known/agent-card.json"),
        CardLocation {
            primary: "https://h/t/.well-known/agent-card.json".into(),
            fallback: Some("https://h/t/.well-known/agent.json".into()),
        }
    );
    assert_eq!(
        loc("https://h/.well-known/agent.json"),
        CardLocation {
            primary: "https://h/.well-known/agent.json".into(),
            fallback: None,
        }
    );
    assert_eq!(
        loc("https://h/cards/mine.json?v=2#x"),
        CardLocation {
            primary: "https://h/cards/mine.json?v=2".into(),
            fallback: None,
        }
    );
    assert_eq!(
        loc("https://[::1]:8443/a").primary,
        "https://[::1]:8443/a/.well-known/agent-card.json"
    );
    assert_eq!(
        card_location("https://u@h/").unwrap_err().kind(),
        "userinfo_in_url"
    );
    assert_eq!(
        card_location("ftp://h/").unwrap_err().kind(),
        "unsupported_scheme"
    );
    assert_eq!(card_location("h/a").unwrap_err().kind(), "invalid_url");
}

#[test]
fn validation_details() {
    let p = Policy::default();
    let card = "https://agent.example.com/.well-known/agent-card.json";
    let v = validate_interface_url("https://AGENT.example.com./a2a", card, &p).unwrap();
    assert!(v.same_origin);
    assert_eq!(v.url.path(), "/a2a");
    match validate_interface_url("https://[::1]/a2a", card, &p) {
        Err(CardError::CardUrlDrift {
            class,
            interface,
            card,
        }) => {
            assert_eq!(class, AddressClass::Loopback);
            assert_eq!(interface, "https://[::1]:443");
            assert_eq!(card, "https://agent.example.com:443");
        }
        other => panic!("{other:?}"),
    }
    // A malformed allow-list entry is reported, not ignored.
    let bad = Policy {
        allowed_origins: vec!["not a url".into()],
        ..Policy::default()
    };
    assert_eq!(
        validate_interface_url("https://other.example.net/", card, &bad)
            .unwrap_err()
            .kind(),
        "invalid_url"
    );
    // The card URL itself is held to the same rules.
    assert_eq!(
        validate_interface_url("https://h/", "http://h/", &p)
            .unwrap_err()
            .kind(),
        "plain_http"
    );
    assert_eq!(
        validate_interface_url("https://h/", "https://u@h/", &p)
            .unwrap_err()
            .kind(),
        "userinfo_in_url"
    );
}

proptest! {
    #[test]
    fn card_parsing_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..256)) {
        if let Ok(card) = AgentCard::parse(&bytes) {
            let _ = card.select(&Preferences::default());
            let _ = card.credentials();
        }
    }

    #[test]
    fn url_parsing_never_panics_and_round_trips(s in "[a-zA-Z0-9:/@\\[\\]._%?#-]{0,40}") {
        if let Ok(u) = Url::parse(&s) {
            let again = Url::parse(&u.to_string()).unwrap();
            prop_assert_eq!(&again, &u);
            let _ = u.host().class();
        }
    }

    #[test]
    fn structured_cards_never_panic(
        urls in proptest::collection::vec("(https?://)?[a-z0-9.:@\\[\\]]{0,20}(/[a-z]{0,5})?", 0..4),
        bindings in proptest::collection::vec(prop_oneof![Just("JSONRPC"), Just("HTTP+JSON"), Just("GRPC"), Just("x")], 4),
        versions in proptest::collection::vec(prop_oneof![Just("1.0"), Just("0.3"), Just("0.2.5"), Just("2.0"), Just("")], 4),
    ) {
        let ifaces: Vec<Value> = urls.iter().enumerate().map(|(i, u)| serde_json::json!({
            "url": u, "protocolBinding": bindings[i], "protocolVersion": versions[i], "tenant": ""
        })).collect();
        let card = AgentCard::from_value(&serde_json::json!({"supportedInterfaces": ifaces})).unwrap();
        let card_url = "https://agent.example.com/.well-known/agent-card.json";
        match card.resolve(card_url, &Preferences::default(), &Policy::default()) {
            Ok(r) => prop_assert!(r.same_origin),
            Err(e) => prop_assert!(!e.to_string().is_empty()),
        }
    }
}

#[test]
fn client_credentials_token_urls_in_both_card_shapes() {
    use super::client_credentials_token_urls as urls;
    let v10 = br#"{"securitySchemes":{"b":{"httpAuthSecurityScheme":{"scheme":"Bearer"}},
        "o":{"oauth2SecurityScheme":{"flows":{"clientCredentials":{"tokenUrl":"https://idp.example/t","scopes":{}}}}},
        "code":{"oauth2SecurityScheme":{"flows":{"authorizationCode":{"tokenUrl":"https://idp.example/c"}}}}}}"#;
    assert_eq!(
        urls(v10),
        vec![("o".to_owned(), "https://idp.example/t".to_owned())]
    );
    let v03 = br#"{"security_schemes":{"o":{"type":"oauth2","flows":{"client_credentials":{"token_url":"https://idp.example/s"}}}}}"#;
    assert_eq!(
        urls(v03),
        vec![("o".to_owned(), "https://idp.example/s".to_owned())]
    );
    assert!(urls(b"{}").is_empty());
    assert!(urls(b"not json").is_empty());
    assert!(urls(br#"{"securitySchemes":{"o":{"type":"oauth2","flows":{}}}}"#).is_empty());
}

/// What reading the card through its mirror structs keeps from the tree it is read from
/// (`fields.rs`): the last of a repeated member wins, a `null` camelCase member hides its
/// snake_case twin, a member of no interest is still checked (a number out of range, a
/// lone surrogate or bad UTF-8 fails the card), a scheme of no known kind is named by its
/// first member, and a requirement's `schemes` wrapper counts only when it is alone.
#[test]
fn mirror_reading_keeps_the_tree_rules() {
    let card = |s: &str| AgentCard::parse(s.as_bytes());
    let c = card(r#"{"url":"https://a/x","url":"https://b/y"}"#).unwrap();
    assert_eq!(c.interfaces[0].url, "https://b/y");
    assert_eq!(
        card(r#"{"url":5,"url":"https://a/x"}"#).unwrap().interfaces[0].url,
        "https://a/x"
    );
    assert_eq!(
        card(r#"{"url":"https://a/x","url":5}"#).unwrap_err().kind(),
        "invalid_field"
    );
    let c = card(r#"{"url":"https://a/x","protocolVersion":null,"protocol_version":"1.0"}"#);
    assert_eq!(c.unwrap().interfaces[0].protocol_version, None);
    for bad in [
        &br#"{"zz":1e400}"#[..],
        br#"{"zz":"\ud800"}"#,
        b"{\"zz\":\"\xff\"}",
    ] {
        assert_eq!(AgentCard::parse(bad).unwrap_err().kind(), "json");
    }
    let c =
        card(r#"{"securitySchemes":{"b":{"zz":1,"AA":2},"c":{"in":1,"bearerFormat":2},"d":5}}"#)
            .unwrap();
    let kinds: Vec<String> = c
        .security_schemes
        .iter()
        .map(|(_, s)| match s {
            SecurityScheme::Unknown { kind } => kind.clone(),
            other => format!("{other:?}"),
        })
        .collect();
    assert_eq!(kinds, ["AA", "bearerFormat", "not an object"]);
    let c = card(r#"{"securityRequirements":[{"schemes":{"a":["x"]},"other":1}]}"#).unwrap();
    let names: Vec<&str> = c.security_requirements.as_ref().unwrap()[0]
        .schemes
        .iter()
        .map(|(n, _)| n.as_str())
        .collect();
    assert_eq!(names, ["other", "schemes"]);
    let c = card(r#"{"securityRequirements":[{"schemes":{"a":{"list":["x",1,"y"]}}}]}"#).unwrap();
    assert_eq!(
        c.security_requirements.unwrap()[0].schemes,
        [("a".to_owned(), vec!["x".to_owned(), "y".to_owned()])]
    );
}
