//! The extended card replacing the public one: adopted after a successful
//! `GetExtendedAgentCard` (its capabilities and interface used by the next call), refused
//! when its interface drifts to another host (the public card stays), and refused for a
//! result that is no extended card or a state with no card origin.
#![allow(clippy::result_large_err)]

use super::*;
use crate::model::params::TaskIdParams;
use crate::outcome::{Channel, ErrorName};

/// A 1.0 card at `url` with the given streaming capability; the extended card is offered.
fn card(url: &str, streaming: bool) -> String {
    format!(
        r#"{{"name":"Ext","supportedInterfaces":[{{"url":"{url}","protocolBinding":"JSONRPC",
        "protocolVersion":"1.0"}}],"capabilities":{{"streaming":{streaming},
        "extendedAgentCard":true}}}}"#
    )
}

/// A state resolved from `public` through the card machine, knowing its origin.
fn state_from(public: &str) -> ClientState {
    let options = CardOptions::default();
    let mut m = CardFetch::new("https://agent.example", options.clone());
    let t = m.poll_transmit(Millis(0)).expect("the card fetch");
    let h = vec![("content-type".to_owned(), "application/json".to_owned())];
    m.handle_head(t.id, 200, h, Millis(1)).unwrap();
    m.handle_body(t.id, public.as_bytes(), Millis(1)).unwrap();
    m.handle_end(t.id, Millis(1)).unwrap();
    let resolved = match std::iter::from_fn(|| m.poll_event()).last() {
        Some(CardEvent::Resolved(r)) => r.expect("resolves"),
        other => panic!("expected Resolved, got {other:?}"),
    };
    ClientState::from_card(&resolved, &options, ClientConfig::default(), 3).unwrap()
}

/// Runs `GetExtendedAgentCard` on `st`, the agent answering `body` (a JSON-RPC response
/// carrying `card` as its result).
fn fetch_extended(st: &mut ClientState, card: &str) -> CallResult {
    let mut m = UnaryCall::new(
        st,
        Call::GetExtendedAgentCard,
        CallOptions::default(),
        Millis(10),
    );
    let t = m.poll_transmit(st, Millis(10)).expect("declared: sent");
    let sent: serde_json::Value = serde_json::from_slice(&t.request.body).unwrap();
    let body = format!(r#"{{"jsonrpc":"2.0","id":{},"result":{card}}}"#, sent["id"]);
    let h = vec![("content-type".to_owned(), "application/json".to_owned())];
    m.handle_head(st, t.id, 200, h, Millis(11)).unwrap();
    m.handle_body(st, t.id, body.as_bytes(), Millis(11))
        .unwrap();
    m.handle_end(st, t.id, Millis(11)).unwrap();
    match std::iter::from_fn(|| m.poll_event()).last() {
        Some(Event::Finished(r)) => *r,
        other => panic!("expected Finished, got {other:?}"),
    }
}

/// Whether a `SubscribeToTask` on `st` is handed out (not refused unsent).
fn stream_allowed(st: &mut ClientState) -> bool {
    let mut m = StreamCall::new(
        st,
        Call::SubscribeToTask(TaskIdParams::new("t-1")),
        CallOptions::default(),
        StreamConfig::default(),
        Millis(20),
    );
    m.poll_transmit(st, Millis(20)).is_some()
}

#[test]
fn the_extended_card_replaces_the_public_one_and_its_capability_is_used() {
    let mut st = state_from(&card("https://agent.example/a2a", false));
    assert!(
        !stream_allowed(&mut st),
        "the public card declares no streaming"
    );
    let r = fetch_extended(&mut st, &card("https://agent.example/a2a/v2", true));
    assert_eq!(r.outcome.channel, Channel::Message, "{:?}", r.outcome);
    let (target, json) = st.adopt_extended_card(&r).expect("adopted");
    assert_eq!(target.url, "https://agent.example/a2a/v2");
    assert_eq!(target.agent_name, "Ext");
    assert!(target.capabilities.is_some_and(|c| c.streaming));
    assert!(json.contains("/a2a/v2"), "{json}");
    assert!(
        stream_allowed(&mut st),
        "the extended card declares streaming"
    );
    // The next request goes to the extended card's interface.
    let mut m = UnaryCall::new(
        &mut st,
        Call::GetTask(crate::model::params::GetTaskParams {
            id: "t-1".into(),
            history_length: None,
            metadata: None,
        }),
        CallOptions::default(),
        Millis(30),
    );
    let t = m.poll_transmit(&mut st, Millis(30)).unwrap();
    assert_eq!(t.request.url, "https://agent.example/a2a/v2");
}

#[test]
fn a_drifting_extended_card_is_refused_and_the_public_card_stays() {
    let mut st = state_from(&card("https://agent.example/a2a", false));
    let before = st.target().clone();
    let r = fetch_extended(&mut st, &card("https://elsewhere.example/a2a", true));
    let e = st.adopt_extended_card(&r).unwrap_err();
    assert_eq!(e.kind(), "host_mismatch", "{e}");
    assert!(e.to_string().contains("elsewhere.example"), "{e}");
    assert_eq!(st.target(), &before);
    assert!(!stream_allowed(&mut st));
    // Plain http is refused as for the public card.
    let r = fetch_extended(&mut st, &card("http://agent.example/a2a", true));
    assert_eq!(st.adopt_extended_card(&r).unwrap_err().kind(), "plain_http");
    // Not a card at all.
    let r = fetch_extended(&mut st, "[1,2]");
    assert!(st.adopt_extended_card(&r).is_err());
    assert_eq!(st.target(), &before);
}

#[test]
fn only_a_successful_extended_card_result_on_a_state_with_a_card_origin_is_adopted() {
    let mut st = state_from(&card("https://agent.example/a2a", false));
    let mut r = fetch_extended(&mut st, &card("https://agent.example/a2a", true));
    let mut failed = r.clone();
    failed.outcome = Outcome::transport(
        ErrorName::Timeout,
        crate::outcome::RequestSent::Unknown,
        "x",
    );
    assert_eq!(
        st.adopt_extended_card(&failed).unwrap_err().kind(),
        "not_extended_card"
    );
    r.correlation.method = "GetTask".to_owned();
    assert_eq!(
        st.adopt_extended_card(&r).unwrap_err().kind(),
        "not_extended_card"
    );
    // A state for a bare interface has nothing to check the card against.
    let target = Target::new(
        "https://agent.example/a2a",
        ProtocolVersion::V1_0,
        Binding::JsonRpc,
    );
    let mut bare = ClientState::new(target, ClientConfig::default(), 1).unwrap();
    let r = fetch_extended(&mut bare, &card("https://agent.example/a2a", true));
    assert_eq!(
        bare.adopt_extended_card(&r).unwrap_err(),
        AdoptError::NoCardOrigin
    );
}
