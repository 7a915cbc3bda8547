//! `a2a_vocab_name` / `a2a_vocab_parse` against the core's own enums: for every vocabulary
//! and every number, the name is the core's `as_str` (or `code`, or JSON-RPC name) of the
//! member the C enum maps that number to, and absent for every other number; every name
//! parses back to its number; unknown vocabularies and values are refused as documented.

mod common;

use std::ptr::{null, null_mut};

use a2a::envelope::Method;
use a2a::outcome::{Channel, ErrorName, RequestSent, RetryAdvice, TaskState};
use a2a::version::{Binding, ProtocolVersion};
use a2a_core::request::a2a_method;
use a2a_core::result::a2a_result;
use a2a_core::vocab::*;
use common::view_string;

/// Numbers checked beyond the members: every enum's members are below 300.
const SCAN: u32 = 1000;

fn name(vocab: a2a_vocab, value: u32) -> Option<String> {
    view_string(a2a_vocab_name(vocab as u32, value))
}

fn parse(vocab: u32, text: &[u8]) -> (a2a_result, u32) {
    let mut out = 0xdead_beef;
    let r = a2a_vocab_parse(vocab, text.as_ptr().cast(), text.len(), &mut out);
    (r, out)
}

/// The expected (C number, name) rows of every vocabulary, from the C enums and the core's.
fn expected(vocab: a2a_vocab) -> Vec<(u32, &'static str)> {
    use a2a_vocab as V;
    match vocab {
        V::Channel => vec![
            (a2a_channel::Transport as u32, Channel::Transport.as_str()),
            (a2a_channel::Http as u32, Channel::Http.as_str()),
            (a2a_channel::Protocol as u32, Channel::Protocol.as_str()),
            (a2a_channel::Task as u32, Channel::Task.as_str()),
            (a2a_channel::Message as u32, Channel::Message.as_str()),
            (a2a_channel::Malformed as u32, Channel::Malformed.as_str()),
        ],
        V::TaskState => vec![
            (a2a_task_state::Unknown as u32, TaskState::Unknown.as_str()),
            (
                a2a_task_state::Submitted as u32,
                TaskState::Submitted.as_str(),
            ),
            (a2a_task_state::Working as u32, TaskState::Working.as_str()),
            (
                a2a_task_state::Completed as u32,
                TaskState::Completed.as_str(),
            ),
            (a2a_task_state::Failed as u32, TaskState::Failed.as_str()),
            (
                a2a_task_state::Canceled as u32,
                TaskState::Canceled.as_str(),
            ),
            (
                a2a_task_state::InputRequired as u32,
                TaskState::InputRequired.as_str(),
            ),
            (
                a2a_task_state::Rejected as u32,
                TaskState::Rejected.as_str(),
            ),
            (
                a2a_task_state::AuthRequired as u32,
                TaskState::AuthRequired.as_str(),
            ),
        ],
        V::Retry => vec![
            (a2a_retry::None as u32, RetryAdvice::None.as_str()),
            (a2a_retry::Never as u32, RetryAdvice::Never.as_str()),
            (a2a_retry::NewTask as u32, RetryAdvice::NewTask.as_str()),
            (
                a2a_retry::Resubscribe as u32,
                RetryAdvice::Resubscribe.as_str(),
            ),
            (a2a_retry::Poll as u32, RetryAdvice::Poll.as_str()),
            (a2a_retry::Backoff as u32, RetryAdvice::Backoff.as_str()),
            (
                a2a_retry::UnknownOutcome as u32,
                RetryAdvice::UnknownOutcome.as_str(),
            ),
            (
                a2a_retry::Reauthenticate as u32,
                RetryAdvice::Reauthenticate.as_str(),
            ),
            (
                a2a_retry::FixVersion as u32,
                RetryAdvice::FixVersion.as_str(),
            ),
        ],
        V::RequestSent => vec![
            (a2a_request_sent::No as u32, RequestSent::No.as_str()),
            (
                a2a_request_sent::Unknown as u32,
                RequestSent::Unknown.as_str(),
            ),
        ],
        V::ErrorName => error_names(),
        V::ProtocolVersion => vec![
            (
                a2a_protocol_version::V0_3 as u32,
                ProtocolVersion::V0_3.as_str(),
            ),
            (
                a2a_protocol_version::V1_0 as u32,
                ProtocolVersion::V1_0.as_str(),
            ),
        ],
        V::Binding => vec![
            (a2a_binding::JsonRpc as u32, Binding::JsonRpc.as_str()),
            (a2a_binding::HttpJson as u32, Binding::HttpJson.as_str()),
        ],
        V::MethodJsonrpcV0_3 => methods(ProtocolVersion::V0_3),
        V::MethodJsonrpcV1_0 => methods(ProtocolVersion::V1_0),
        // 0.3 sends no header: only 1.x has a value.
        V::VersionHeader => vec![(a2a_protocol_version::V1_0 as u32, "1.0")],
    }
}

fn error_names() -> Vec<(u32, &'static str)> {
    use ErrorName as E;
    use a2a_error_name as C;
    let rows = [
        (C::ParseError, E::ParseError),
        (C::InvalidRequest, E::InvalidRequest),
        (C::MethodNotFound, E::MethodNotFound),
        (C::InvalidParams, E::InvalidParams),
        (C::Internal, E::Internal),
        (C::TaskNotFound, E::TaskNotFound),
        (C::TaskNotCancelable, E::TaskNotCancelable),
        (
            C::PushNotificationNotSupported,
            E::PushNotificationNotSupported,
        ),
        (C::UnsupportedOperation, E::UnsupportedOperation),
        (C::ContentTypeNotSupported, E::ContentTypeNotSupported),
        (C::InvalidAgentResponse, E::InvalidAgentResponse),
        (
            C::ExtendedAgentCardNotConfigured,
            E::ExtendedAgentCardNotConfigured,
        ),
        (C::ExtensionSupportRequired, E::ExtensionSupportRequired),
        (C::VersionNotSupported, E::VersionNotSupported),
        (C::Other, E::Other),
        (C::Unauthenticated, E::Unauthenticated),
        (C::Forbidden, E::Forbidden),
        (C::NotFound, E::NotFound),
        (C::PayloadTooLarge, E::PayloadTooLarge),
        (C::RateLimited, E::RateLimited),
        (C::Redirect, E::Redirect),
        (C::BadGateway, E::BadGateway),
        (C::Unavailable, E::Unavailable),
        (C::GatewayTimeout, E::GatewayTimeout),
        (C::Http, E::Http),
        (C::ConnectFailed, E::ConnectFailed),
        (C::Dns, E::Dns),
        (C::Timeout, E::Timeout),
        (C::Reset, E::Reset),
        (C::CircuitOpen, E::CircuitOpen),
        (C::CardResolution, E::CardResolution),
        (C::ResponseTooLarge, E::ResponseTooLarge),
        (C::Tls, E::Tls),
        (C::Proxy, E::Proxy),
        (C::AddressRefused, E::AddressRefused),
        (C::CapabilityNotDeclared, E::CapabilityNotDeclared),
    ];
    assert_eq!(
        rows.len(),
        ErrorName::ALL.len(),
        "a core error name without a row"
    );
    rows.iter().map(|(c, e)| (*c as u32, e.as_str())).collect()
}

fn methods(version: ProtocolVersion) -> Vec<(u32, &'static str)> {
    use a2a_method as C;
    let rows = [
        (C::SendMessage, Method::SendMessage),
        (C::SendStreamingMessage, Method::SendStreamingMessage),
        (C::GetTask, Method::GetTask),
        (C::ListTasks, Method::ListTasks),
        (C::CancelTask, Method::CancelTask),
        (C::SubscribeToTask, Method::SubscribeToTask),
        (C::CreatePushConfig, Method::CreatePushConfig),
        (C::GetPushConfig, Method::GetPushConfig),
        (C::ListPushConfigs, Method::ListPushConfigs),
        (C::DeletePushConfig, Method::DeletePushConfig),
        (C::GetExtendedAgentCard, Method::GetExtendedAgentCard),
    ];
    assert_eq!(rows.len(), Method::ALL.len(), "a core method without a row");
    rows.iter()
        .filter_map(|(c, m)| Some((*c as u32, m.jsonrpc_name(version)?)))
        .collect()
}

const VOCABS: [a2a_vocab; 10] = [
    a2a_vocab::Channel,
    a2a_vocab::TaskState,
    a2a_vocab::Retry,
    a2a_vocab::RequestSent,
    a2a_vocab::ErrorName,
    a2a_vocab::ProtocolVersion,
    a2a_vocab::Binding,
    a2a_vocab::MethodJsonrpcV0_3,
    a2a_vocab::MethodJsonrpcV1_0,
    a2a_vocab::VersionHeader,
];

#[test]
fn vocab_numbers_are_stable() {
    let numbers: Vec<u32> = VOCABS.iter().map(|v| *v as u32).collect();
    // 8 was the retry policy's give-up reasons, gone with it; never reused.
    assert_eq!(numbers, [1, 2, 3, 4, 5, 6, 7, 9, 10, 11]);
}

#[test]
fn every_value_of_every_vocab_is_named_as_the_core_names_it() {
    for vocab in VOCABS {
        let rows = expected(vocab);
        assert!(!rows.is_empty(), "{vocab:?}");
        for value in 0..SCAN {
            let want = rows
                .iter()
                .find(|(n, _)| *n == value)
                .map(|(_, s)| s.to_string());
            assert_eq!(name(vocab, value), want, "{vocab:?} {value}");
        }
        assert_eq!(name(vocab, u32::MAX), None, "{vocab:?}");
    }
}

#[test]
fn every_name_parses_back_to_its_value() {
    for vocab in VOCABS {
        for value in 0..SCAN {
            let Some(text) = name(vocab, value) else {
                continue;
            };
            assert_eq!(
                parse(vocab as u32, text.as_bytes()),
                (a2a_result::A2A_OK, value),
                "{vocab:?} {text}"
            );
        }
    }
}

#[test]
fn spellings_aliases_and_refusals_per_vocab() {
    use a2a_result::*;
    use a2a_vocab as V;
    let cases: &[(V, &[u8], a2a_result, u32)] = &[
        // Task state: every deployed spelling; an unknown one is UNKNOWN, not an error.
        (
            V::TaskState,
            b"TASK_STATE_CANCELLED",
            A2A_OK,
            a2a_task_state::Canceled as u32,
        ),
        (V::TaskState, b"TASK_STATE_INPUT_REQUIRED", A2A_OK, 6),
        (V::TaskState, b" Completed ", A2A_OK, 3),
        (V::TaskState, b"4", A2A_OK, 4),
        (
            V::TaskState,
            b"nonsense",
            A2A_OK,
            a2a_task_state::Unknown as u32,
        ),
        (V::TaskState, b"", A2A_OK, 0),
        // Error names, channels, retry words, request-sent, give-up codes: exact.
        (
            V::ErrorName,
            b"taskNotFound",
            A2A_INVALID_ARGUMENT,
            0xdead_beef,
        ),
        (V::ErrorName, b"TaskNotFound", A2A_OK, 6),
        (V::Channel, b"Task", A2A_INVALID_ARGUMENT, 0xdead_beef),
        (V::Channel, b"", A2A_INVALID_ARGUMENT, 0xdead_beef),
        (
            V::Retry,
            b"unknown-outcome",
            A2A_INVALID_ARGUMENT,
            0xdead_beef,
        ),
        (V::RequestSent, b"yes", A2A_INVALID_ARGUMENT, 0xdead_beef),
        // Versions: any MAJOR.MINOR[.PATCH] this core speaks.
        (V::ProtocolVersion, b"0.3.0", A2A_OK, 1),
        (V::ProtocolVersion, b" 1.2 ", A2A_OK, 2),
        (
            V::ProtocolVersion,
            b"2.0",
            A2A_VERSION_UNSUPPORTED,
            0xdead_beef,
        ),
        (
            V::ProtocolVersion,
            b"1.x",
            A2A_VERSION_MALFORMED,
            0xdead_beef,
        ),
        (V::ProtocolVersion, b"", A2A_VERSION_MALFORMED, 0xdead_beef),
        // Bindings: case-insensitive, with aliases.
        (V::Binding, b"json-rpc", A2A_OK, 1),
        (V::Binding, b"jsonrpc", A2A_OK, 1),
        (V::Binding, b"REST", A2A_OK, 2),
        (V::Binding, b"http+json", A2A_OK, 2),
        (V::Binding, b"GRPC", A2A_BINDING_UNKNOWN, 0xdead_beef),
        // Methods: exact, per version; another version's name is not found.
        (V::MethodJsonrpcV0_3, b"message/send", A2A_OK, 1),
        (V::MethodJsonrpcV0_3, b"SendMessage", A2A_NONE, 0xdead_beef),
        (V::MethodJsonrpcV1_0, b"message/send", A2A_NONE, 0xdead_beef),
        (V::MethodJsonrpcV1_0, b"sendmessage", A2A_NONE, 0xdead_beef),
        (
            V::MethodJsonrpcV1_0,
            b"ListTasks",
            A2A_OK,
            a2a_method::ListTasks as u32,
        ),
    ];
    for (vocab, text, result, value) in cases {
        assert_eq!(
            parse(*vocab as u32, text),
            (*result, *value),
            "{vocab:?} {:?}",
            String::from_utf8_lossy(text)
        );
    }
}

#[test]
fn unknown_vocab_and_bad_arguments() {
    for vocab in [0, 12, 99, u32::MAX] {
        for value in 0..SCAN {
            assert!(
                a2a_vocab_name(vocab, value).ptr.is_null(),
                "{vocab} {value}"
            );
        }
        // Refused before anything else is looked at, even a NULL out.
        assert_eq!(
            parse(vocab, b"task"),
            (a2a_result::A2A_INVALID_ARGUMENT, 0xdead_beef)
        );
        assert_eq!(
            a2a_vocab_parse(vocab, null(), 0, null_mut()),
            a2a_result::A2A_INVALID_ARGUMENT
        );
    }
    let v = a2a_vocab::Channel as u32;
    assert_eq!(
        a2a_vocab_parse(v, b"task".as_ptr().cast(), 4, null_mut()),
        a2a_result::A2A_NULL_PARAMETER
    );
    let mut out = 7;
    assert_eq!(
        a2a_vocab_parse(v, null(), 3, &mut out),
        a2a_result::A2A_NULL_PARAMETER
    );
    assert_eq!(
        parse(v, b"\xff"),
        (a2a_result::A2A_INVALID_UTF8, 0xdead_beef)
    );
    assert_eq!(out, 7, "not written on failure");
    // (NULL, 0) is the empty text: for the task states, UNKNOWN.
    let mut out = 7;
    assert_eq!(
        a2a_vocab_parse(a2a_vocab::TaskState as u32, null(), 0, &mut out),
        a2a_result::A2A_OK
    );
    assert_eq!(out, 0);
}
