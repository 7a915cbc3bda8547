//! Fuzz agent-card parsing, interface selection, URL validation and card URL building:
//! arbitrary bytes must never panic, and whatever is accepted must be self-consistent
//! (a resolved interface is same-origin with the card URL, or allow-listed).
#![no_main]

use a2a_core::card::{AgentCard, Policy, Preferences, SelectionOrder, Url, card_location};
use a2a_core::version::{Binding, ProtocolVersion};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(card) = AgentCard::parse(data) {
        let card_url = "https://agent.example.com/.well-known/agent-card.json";
        for order in [SelectionOrder::ClientFirst, SelectionOrder::CardFirst] {
            let prefs = Preferences {
                versions: vec![ProtocolVersion::V0_3, ProtocolVersion::V1_0],
                bindings: vec![Binding::HttpJson, Binding::JsonRpc],
                order,
                min_version: None,
            };
            if let Ok(choice) = card.select(&prefs) {
                assert!(choice.index < card.interfaces.len());
                assert_eq!(card.interfaces[choice.index].url, choice.url);
                let _ = choice.explain();
            }
            match card.resolve(card_url, &prefs, &Policy::default()) {
                Ok(r) => {
                    assert!(r.same_origin);
                    assert_eq!(r.url.scheme(), "https");
                    assert!(r.url.userinfo().is_none());
                }
                Err(e) => assert!(!e.to_string().is_empty()),
            }
        }
        let _ = card.credentials();
    }
    if let Ok(text) = std::str::from_utf8(data) {
        if let Ok(url) = Url::parse(text) {
            let again = Url::parse(&url.to_string()).expect("a parsed URL re-parses");
            assert_eq!(again, url);
            let _ = url.host().class();
        }
        if let Ok(loc) = card_location(text) {
            assert!(Url::parse(&loc.primary).is_ok());
        }
    }
});
