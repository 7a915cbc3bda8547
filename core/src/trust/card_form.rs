//! The payload a card signature covers (A2A 1.0 §8.4.1): the card without `signatures`, with
//! the fields that hold their default value removed as the Protocol Buffer definition's
//! field presence says, then RFC 8785.
//!
//! The rules, per field of the proto messages the card is made of (§5.7):
//! - a `REQUIRED` field stays, whatever its value (`"description": ""`, `"skills": []`);
//! - an `optional` field, and a message-typed field (presence is tracked for both), stays when
//!   it is written at all (`"streaming": false` stays);
//! - any other field is removed when it holds its default: `""`, `false`, `0`, `[]`, `{}`;
//! - `null` on a known field means "not set" in ProtoJSON and is removed;
//! - a field the proto does not name (a 0.3 field, an extension's) is kept as written, and so
//!   is everything inside a `google.protobuf.Struct` (`params`, a signature's `header`).
//!
//! The table below is the 1.0 proto's `AgentCard` and the messages under it.

use super::canonical::Json;

/// How a field's presence is decided, and what it holds.
#[derive(Clone, Copy)]
enum Field {
    /// `REQUIRED`: always kept; a message or a list of messages is walked.
    Required(Holds),
    /// `optional` scalar or singular message: kept when written; a message is walked.
    Present(Holds),
    /// Plain scalar, repeated field or map: removed when it holds its default.
    Plain(Holds),
    /// `google.protobuf.Struct`: kept as written (its contents are not proto fields).
    Opaque,
}

/// What a field holds: a scalar (or a list or map of scalars), or messages of one type.
#[derive(Clone, Copy)]
enum Holds {
    Scalar,
    /// A message or a list of messages.
    Message(&'static Message),
    /// A map whose values are messages (its keys are not field names).
    MapOf(&'static Message),
}

type Message = [(&'static str, Field)];

use Field::{Opaque, Plain, Present, Required};
use Holds::{MapOf, Message as M, Scalar};

static AGENT_CARD: &Message = &[
    ("name", Required(Scalar)),
    ("description", Required(Scalar)),
    ("supportedInterfaces", Required(M(AGENT_INTERFACE))),
    ("provider", Present(M(AGENT_PROVIDER))),
    ("version", Required(Scalar)),
    ("documentationUrl", Present(Scalar)),
    ("capabilities", Required(M(AGENT_CAPABILITIES))),
    ("securitySchemes", Plain(MapOf(SECURITY_SCHEME))),
    ("securityRequirements", Plain(M(SECURITY_REQUIREMENT))),
    ("defaultInputModes", Required(Scalar)),
    ("defaultOutputModes", Required(Scalar)),
    ("skills", Required(M(AGENT_SKILL))),
    ("iconUrl", Present(Scalar)),
];
static AGENT_INTERFACE: &Message = &[
    ("url", Required(Scalar)),
    ("protocolBinding", Required(Scalar)),
    ("tenant", Plain(Scalar)),
    ("protocolVersion", Required(Scalar)),
];
static AGENT_PROVIDER: &Message = &[
    ("url", Required(Scalar)),
    ("organization", Required(Scalar)),
];
static AGENT_CAPABILITIES: &Message = &[
    ("streaming", Present(Scalar)),
    ("pushNotifications", Present(Scalar)),
    ("extensions", Plain(M(AGENT_EXTENSION))),
    ("extendedAgentCard", Present(Scalar)),
];
static AGENT_EXTENSION: &Message = &[
    ("uri", Plain(Scalar)),
    ("description", Plain(Scalar)),
    ("required", Plain(Scalar)),
    ("params", Opaque),
];
static AGENT_SKILL: &Message = &[
    ("id", Required(Scalar)),
    ("name", Required(Scalar)),
    ("description", Required(Scalar)),
    ("tags", Required(Scalar)),
    ("examples", Plain(Scalar)),
    ("inputModes", Plain(Scalar)),
    ("outputModes", Plain(Scalar)),
    ("securityRequirements", Plain(M(SECURITY_REQUIREMENT))),
];
static SECURITY_REQUIREMENT: &Message = &[("schemes", Plain(MapOf(STRING_LIST)))];
static STRING_LIST: &Message = &[("list", Plain(Scalar))];
// A oneof: each member tracks presence.
static SECURITY_SCHEME: &Message = &[
    ("apiKeySecurityScheme", Present(M(API_KEY_SCHEME))),
    ("httpAuthSecurityScheme", Present(M(HTTP_AUTH_SCHEME))),
    ("oauth2SecurityScheme", Present(M(OAUTH2_SCHEME))),
    (
        "openIdConnectSecurityScheme",
        Present(M(OPEN_ID_CONNECT_SCHEME)),
    ),
    ("mtlsSecurityScheme", Present(M(MTLS_SCHEME))),
];
static API_KEY_SCHEME: &Message = &[
    ("description", Plain(Scalar)),
    ("location", Required(Scalar)),
    ("name", Required(Scalar)),
];
static HTTP_AUTH_SCHEME: &Message = &[
    ("description", Plain(Scalar)),
    ("scheme", Required(Scalar)),
    ("bearerFormat", Plain(Scalar)),
];
static OAUTH2_SCHEME: &Message = &[
    ("description", Plain(Scalar)),
    ("flows", Required(M(OAUTH_FLOWS))),
    ("oauth2MetadataUrl", Plain(Scalar)),
];
static OPEN_ID_CONNECT_SCHEME: &Message = &[
    ("description", Plain(Scalar)),
    ("openIdConnectUrl", Required(Scalar)),
];
static MTLS_SCHEME: &Message = &[("description", Plain(Scalar))];
// A oneof.
static OAUTH_FLOWS: &Message = &[
    ("authorizationCode", Present(M(AUTHORIZATION_CODE_FLOW))),
    ("clientCredentials", Present(M(CLIENT_CREDENTIALS_FLOW))),
    ("implicit", Present(M(IMPLICIT_FLOW))),
    ("password", Present(M(PASSWORD_FLOW))),
    ("deviceCode", Present(M(DEVICE_CODE_FLOW))),
];
static AUTHORIZATION_CODE_FLOW: &Message = &[
    ("authorizationUrl", Required(Scalar)),
    ("tokenUrl", Required(Scalar)),
    ("refreshUrl", Plain(Scalar)),
    ("scopes", Required(Scalar)),
    ("pkceRequired", Plain(Scalar)),
];
static CLIENT_CREDENTIALS_FLOW: &Message = &[
    ("tokenUrl", Required(Scalar)),
    ("refreshUrl", Plain(Scalar)),
    ("scopes", Required(Scalar)),
];
static IMPLICIT_FLOW: &Message = &[
    ("authorizationUrl", Plain(Scalar)),
    ("refreshUrl", Plain(Scalar)),
    ("scopes", Plain(Scalar)),
];
static PASSWORD_FLOW: &Message = &[
    ("tokenUrl", Plain(Scalar)),
    ("refreshUrl", Plain(Scalar)),
    ("scopes", Plain(Scalar)),
];
static DEVICE_CODE_FLOW: &Message = &[
    ("deviceAuthorizationUrl", Required(Scalar)),
    ("tokenUrl", Required(Scalar)),
    ("refreshUrl", Plain(Scalar)),
    ("scopes", Required(Scalar)),
];

/// The name of the member that holds the signatures (excluded from the payload).
pub(crate) const SIGNATURES: &str = "signatures";

/// The card as signed: `signatures` excluded, defaults removed (see the module docs).
/// A card that is not an object is returned as it is (the caller refuses it).
pub fn signing_form(card: &Json) -> Json {
    match card {
        Json::Object(members) => Json::Object(
            members
                .iter()
                .filter(|(k, _)| k != SIGNATURES)
                .filter_map(|(k, v)| field(AGENT_CARD, k, v))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// The RFC 8785 bytes of [`signing_form`]: the JWS payload of a card signature.
pub fn card_payload(card: &Json) -> Vec<u8> {
    signing_form(card).canonical()
}

/// One member of a message: kept (walked) or removed.
fn field(message: &Message, name: &str, value: &Json) -> Option<(String, Json)> {
    let Some((_, kind)) = message.iter().find(|(n, _)| *n == name) else {
        return Some((name.to_owned(), value.clone()));
    };
    if *value == Json::Null && !matches!(kind, Opaque) {
        return None;
    }
    let kept = match kind {
        Opaque => value.clone(),
        Required(h) | Present(h) => walk(*h, value),
        Plain(h) => {
            if is_default(value) {
                return None;
            }
            walk(*h, value)
        }
    };
    Some((name.to_owned(), kept))
}

/// Walks a value that holds messages: one message, a list of them or a map of them.
fn walk(holds: Holds, value: &Json) -> Json {
    match (holds, value) {
        (Scalar, v) => v.clone(),
        (M(_), Json::Array(items)) => Json::Array(items.iter().map(|v| walk(holds, v)).collect()),
        (M(message), v) => message_of(message, v),
        (MapOf(message), Json::Object(members)) => Json::Object(
            members
                .iter()
                .map(|(k, v)| (k.clone(), message_of(message, v)))
                .collect(),
        ),
        (MapOf(_), v) => v.clone(),
    }
}

fn message_of(message: &Message, value: &Json) -> Json {
    match value {
        Json::Object(members) => Json::Object(
            members
                .iter()
                .filter_map(|(k, v)| field(message, k, v))
                .collect(),
        ),
        other => other.clone(),
    }
}

fn is_default(v: &Json) -> bool {
    match v {
        Json::Null | Json::Bool(false) => true,
        Json::Number(n) => *n == 0.0,
        Json::String(s) => s.is_empty(),
        Json::Array(a) => a.is_empty(),
        Json::Object(m) => m.is_empty(),
        Json::Bool(true) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn payload(card: &str) -> String {
        String::from_utf8(card_payload(&Json::parse(card.as_bytes()).unwrap())).unwrap()
    }

    /// A2A 1.0 §8.4.1's worked example, byte for byte.
    #[test]
    fn the_specifications_example() {
        let fragment = r#"{
  "name": "Example Agent",
  "description": "",
  "capabilities": {
    "streaming": false,
    "pushNotifications": false,
    "extensions": []
  },
  "skills": []
}"#;
        assert_eq!(
            payload(fragment),
            r#"{"capabilities":{"pushNotifications":false,"streaming":false},"description":"","name":"Example Agent","skills":[]}"#
        );
    }

    #[test]
    fn signatures_are_excluded_and_plain_defaults_removed_at_every_depth() {
        let card = r#"{"name":"A","description":"d","version":"1","signatures":[{"protected":"x","signature":"y"}],
          "supportedInterfaces":[{"url":"https://a.example/","protocolBinding":"JSONRPC","protocolVersion":"1.0","tenant":""}],
          "capabilities":{"extendedAgentCard":false,"extensions":[{"uri":"urn:x","required":false,"description":"","params":{"a":"","b":null}}]},
          "provider":null,"documentationUrl":"",
          "securitySchemes":{"o":{"oauth2SecurityScheme":{"description":"","flows":{"clientCredentials":{"tokenUrl":"https://t/","refreshUrl":"","scopes":{}}}}}},
          "securityRequirements":[{"schemes":{"o":{"list":[]}}}],
          "defaultInputModes":[],"defaultOutputModes":["text/plain"],
          "skills":[{"id":"s","name":"S","description":"","tags":[],"examples":[]}],
          "x-unknown":"","url":"https://legacy.example/"}"#;
        assert_eq!(
            payload(card),
            concat!(
                r#"{"capabilities":{"extendedAgentCard":false,"extensions":[{"params":{"a":"","b":null},"uri":"urn:x"}]},"#,
                r#""defaultInputModes":[],"defaultOutputModes":["text/plain"],"description":"d","documentationUrl":"","#,
                r#""name":"A","securityRequirements":[{"schemes":{"o":{}}}],"#,
                r#""securitySchemes":{"o":{"oauth2SecurityScheme":{"flows":{"clientCredentials":{"scopes":{},"tokenUrl":"https://t/"}}}}},"#,
                r#""skills":[{"description":"","id":"s","name":"S","tags":[]}],"#,
                r#""supportedInterfaces":[{"protocolBinding":"JSONRPC","protocolVersion":"1.0","url":"https://a.example/"}],"#,
                r#""url":"https://legacy.example/","version":"1","x-unknown":""}"#
            )
        );
    }

    #[test]
    fn member_order_and_whitespace_do_not_change_the_payload() {
        let a = r#"{"name":"A","capabilities":{"streaming":true},"skills":[]}"#;
        let b = "{ \"skills\" : [ ] ,\n \"capabilities\":{\"streaming\":true}, \"name\":\"A\" }";
        assert_eq!(payload(a), payload(b));
    }
}
