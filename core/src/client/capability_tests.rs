//! Capability checks before a call: each method family against a card that declares its
//! capability, one that does not, and the opt-out; both protocol versions' card fields; a
//! target without a card checks nothing.
#![allow(clippy::result_large_err)]

use std::borrow::Cow;

use super::*;
use crate::card::AgentCard;
use crate::model::params::{ListPushConfigsParams, PushConfigRef, SendMessageParams, TaskIdParams};
use crate::model::{Message, Part, PushNotificationConfig, Role, TaskPushNotificationConfig};
use crate::outcome::{Channel, ErrorName, RequestSent, RetryAdvice};

const URL: &str = "https://agent.example/a2a";

/// A 0.3 card: `capabilities` for streaming and push, the top-level flag for the extended card.
fn card_03(streaming: bool, push: bool, extended: bool) -> String {
    format!(
        r#"{{"name":"Caps","url":"{URL}","preferredTransport":"JSONRPC","protocolVersion":"0.3.0",
        "capabilities":{{"streaming":{streaming},"pushNotifications":{push}}},
        "supportsAuthenticatedExtendedCard":{extended}}}"#
    )
}

/// A 1.0 card: everything under `capabilities`.
fn card_10(streaming: bool, push: bool, extended: bool) -> String {
    format!(
        r#"{{"name":"Caps","supportedInterfaces":[{{"url":"{URL}","protocolBinding":"JSONRPC",
        "protocolVersion":"1.0"}}],"capabilities":{{"streaming":{streaming},
        "pushNotifications":{push},"extendedAgentCard":{extended}}}}}"#
    )
}

/// The target a card fetch resolves `card` to (the real path: fetch, parse, resolve).
fn resolve(card: &str) -> Target {
    let mut m = CardFetch::new("https://agent.example", CardOptions::default());
    let t = m.poll_transmit(Millis(0)).expect("the card fetch");
    let h = vec![("content-type".to_owned(), "application/json".to_owned())];
    m.handle_head(t.id, 200, h, Millis(1)).unwrap();
    m.handle_body(t.id, card.as_bytes(), Millis(1)).unwrap();
    m.handle_end(t.id, Millis(1)).unwrap();
    match std::iter::from_fn(|| m.poll_event()).last() {
        Some(CardEvent::Resolved(r)) => r.expect("resolves").target,
        other => panic!("expected Resolved, got {other:?}"),
    }
}

fn message() -> Message<'static> {
    Message::new(
        Cow::Borrowed("msg-1"),
        Role::User,
        vec![Part::text("hi".to_owned())],
    )
}

/// One call of each checked method, with the capability it needs (0 streaming, 1 push,
/// 2 extended card), and two that need none.
fn calls() -> Vec<(Call<'static>, Option<usize>)> {
    let push_ref = PushConfigRef {
        task_id: Cow::Borrowed("t-1"),
        config_id: Some(Cow::Borrowed("p-1")),
        metadata: None,
    };
    vec![
        (
            Call::SendStreamingMessage(SendMessageParams::new(message())),
            Some(0),
        ),
        (Call::SubscribeToTask(TaskIdParams::new("t-1")), Some(0)),
        (
            Call::CreatePushConfig(TaskPushNotificationConfig {
                task_id: Cow::Borrowed("t-1"),
                config: PushNotificationConfig::new("https://hooks.example/a2a"),
                tenant: None,
            }),
            Some(1),
        ),
        (Call::GetPushConfig(push_ref.clone()), Some(1)),
        (
            Call::ListPushConfigs(ListPushConfigsParams {
                task_id: Cow::Borrowed("t-1"),
                page_size: None,
                page_token: None,
                metadata: None,
            }),
            Some(1),
        ),
        (Call::DeletePushConfig(push_ref), Some(1)),
        (Call::GetExtendedAgentCard, Some(2)),
        (Call::SendMessage(SendMessageParams::new(message())), None),
        (Call::CancelTask(TaskIdParams::new("t-1")), None),
    ]
}

/// Runs `call` on a unary machine: `Ok(())` when a request was handed out, else the
/// outcome it finished with.
fn unary(st: &mut ClientState, call: Call<'static>) -> Result<(), Outcome> {
    let mut m = UnaryCall::new(st, call, CallOptions::default(), Millis(0));
    if m.poll_transmit(st, Millis(0)).is_some() {
        return Ok(());
    }
    match std::iter::from_fn(|| m.poll_event()).last() {
        Some(Event::Finished(r)) => Err(r.outcome),
        other => panic!("no request and no result: {other:?}"),
    }
}

/// The same on the stream machine (streaming methods only).
fn streamed(st: &mut ClientState, call: Call<'static>) -> Result<(), Outcome> {
    let mut m = StreamCall::new(
        st,
        call,
        CallOptions::default(),
        StreamConfig::default(),
        Millis(0),
    );
    if m.poll_transmit(st, Millis(0)).is_some() {
        return Ok(());
    }
    match std::iter::from_fn(|| m.poll_event()).last() {
        Some(StreamEvent::Finished(r)) => {
            assert!(r.kind.is_none(), "no stream was opened");
            Err(r.outcome)
        }
        other => panic!("no request and no result: {other:?}"),
    }
}

fn assert_refusal(o: &Outcome, method: &str, capability: &str) {
    assert_eq!(o.channel, Channel::Transport, "{o:?}");
    assert_eq!(o.error, Some(ErrorName::CapabilityNotDeclared), "{o:?}");
    assert_eq!(o.request_sent, Some(RequestSent::No));
    assert_eq!(o.retry, RetryAdvice::Never);
    assert_eq!(o.exit_code(), 3);
    let text = o.message.as_deref().unwrap_or_default();
    assert!(text.contains(method), "names the method {method}: {text}");
    assert!(text.contains(capability), "names {capability}: {text}");
    assert!(
        o.hint
            .as_deref()
            .is_some_and(|h| h.contains("ignore_capabilities")),
        "the hint names the opt-out: {:?}",
        o.hint
    );
}

#[test]
fn both_card_shapes_give_their_capabilities() {
    for (card, version) in [
        (card_03(true, false, true), ProtocolVersion::V0_3),
        (card_10(true, false, true), ProtocolVersion::V1_0),
    ] {
        let parsed = AgentCard::parse(card.as_bytes()).unwrap();
        let caps = parsed.capabilities();
        assert!(caps.streaming && !caps.push_notifications && caps.extended_card);
        let target = resolve(&card);
        assert_eq!(target.version, version);
        assert_eq!(target.capabilities, Some(caps));
    }
    // A card without `capabilities` declares none.
    let bare = r#"{"name":"Bare","url":"https://agent.example/a2a","protocolVersion":"0.3.0"}"#;
    assert_eq!(
        resolve(bare).capabilities,
        Some(crate::card::Capabilities::default())
    );
}

#[test]
fn every_method_family_is_refused_unsent_when_not_declared_in_either_version() {
    // (card, names of the three capabilities as that version's card spells them, wire names)
    let versions = [
        (
            card_03(false, false, false),
            [
                "capabilities.streaming",
                "capabilities.pushNotifications",
                "supportsAuthenticatedExtendedCard",
            ],
        ),
        (
            card_10(false, false, false),
            [
                "capabilities.streaming",
                "capabilities.pushNotifications",
                "capabilities.extendedAgentCard",
            ],
        ),
    ];
    for (card, names) in versions {
        let target = resolve(&card);
        let version = target.version;
        let mut st = ClientState::new(target, ClientConfig::default(), 7).unwrap();
        for (call, needs) in calls() {
            let method = call.method();
            let wire = method.jsonrpc_name(version).unwrap_or(method.name());
            let streaming = matches!(
                call,
                Call::SendStreamingMessage(_) | Call::SubscribeToTask(_)
            );
            let got = if streaming {
                streamed(&mut st, call.clone())
            } else {
                unary(&mut st, call.clone())
            };
            match needs {
                Some(i) => {
                    let o = got.expect_err("refused");
                    assert_refusal(&o, method.name(), names[i]);
                    assert!(o.message.as_deref().unwrap().contains(wire), "{o:?}");
                    // The unary machine refuses a streaming method the same way.
                    if streaming {
                        let o = unary(&mut st, call).expect_err("refused");
                        assert_refusal(&o, method.name(), names[i]);
                    }
                }
                None => assert!(got.is_ok(), "{method:?} needs no capability"),
            }
        }
        // Refusals are not the agent's failures: nothing counted.
        assert_eq!(st.tally().total(), 0, "nothing tallied");
    }
}

#[test]
fn declared_capabilities_and_the_opt_out_let_every_call_go() {
    for card in [card_03(true, true, true), card_10(true, true, true)] {
        let mut st = ClientState::new(resolve(&card), ClientConfig::default(), 7).unwrap();
        for (call, _) in calls() {
            let method = call.method();
            assert!(unary(&mut st, call).is_ok(), "{method:?} declared");
        }
    }
    let config = ClientConfig {
        ignore_capabilities: true,
        ..ClientConfig::default()
    };
    for card in [card_03(false, false, false), card_10(false, false, false)] {
        let mut st = ClientState::new(resolve(&card), config, 7).unwrap();
        for (call, _) in calls() {
            let method = call.method();
            let streaming = matches!(
                call,
                Call::SendStreamingMessage(_) | Call::SubscribeToTask(_)
            );
            let got = if streaming {
                streamed(&mut st, call)
            } else {
                unary(&mut st, call)
            };
            assert!(got.is_ok(), "{method:?} sent with the check off");
        }
    }
}

#[test]
fn one_capability_does_not_stand_for_another() {
    // Streaming declared, push and extended card not (0.3), and the reverse (1.0).
    let mut st = ClientState::new(
        resolve(&card_03(true, false, false)),
        ClientConfig::default(),
        1,
    )
    .unwrap();
    assert!(streamed(&mut st, Call::SubscribeToTask(TaskIdParams::new("t-1"))).is_ok());
    let o = unary(&mut st, Call::GetExtendedAgentCard).expect_err("refused");
    assert_refusal(
        &o,
        "agent/getAuthenticatedExtendedCard",
        "supportsAuthenticatedExtendedCard",
    );
    let mut st = ClientState::new(
        resolve(&card_10(false, true, true)),
        ClientConfig::default(),
        1,
    )
    .unwrap();
    assert!(unary(&mut st, Call::GetExtendedAgentCard).is_ok());
    let o = streamed(
        &mut st,
        Call::SendStreamingMessage(SendMessageParams::new(message())),
    )
    .expect_err("refused");
    assert_refusal(&o, "SendStreamingMessage", "capabilities.streaming");
}

#[test]
fn a_target_without_a_card_checks_nothing() {
    for version in [ProtocolVersion::V0_3, ProtocolVersion::V1_0] {
        let target = Target::new(URL, version, Binding::JsonRpc);
        assert_eq!(target.capabilities, None);
        let mut st = ClientState::new(target, ClientConfig::default(), 3).unwrap();
        for (call, _) in calls() {
            let method = call.method();
            assert!(unary(&mut st, call).is_ok(), "{method:?} unchecked");
        }
    }
}

#[test]
fn the_check_does_not_depend_on_the_binding() {
    let mut target = Target::new(URL, ProtocolVersion::V1_0, Binding::HttpJson);
    target.capabilities = Some(crate::card::Capabilities::default());
    let mut st = ClientState::new(target, ClientConfig::default(), 3).unwrap();
    let o =
        streamed(&mut st, Call::SubscribeToTask(TaskIdParams::new("t-1"))).expect_err("refused");
    assert_refusal(&o, "SubscribeToTask", "capabilities.streaming");
}
