//! Reading an agent card of either protocol version into one model.
//!
//! Both shapes are read from the same JSON: the 1.0 `supportedInterfaces[]` (each with
//! `url`, `protocolBinding`, `protocolVersion`, `tenant`) and the 0.3 top-level `url`,
//! `preferredTransport`, `protocolVersion` and `additionalInterfaces[]` (each with `url`,
//! `transport`). Deployed servers send both at once (the Python and JS SDKs' "hybrid" cards),
//! so the interfaces of both are collected, 1.0 first, without duplicates. Unknown fields
//! are ignored; ProtoJSON snake_case names (`supported_interfaces`) are accepted too;
//! `"tenant": ""` means no tenant.

use serde_json::{Map, Value};

use super::CardError;
use super::fields::{field, str_field};
use super::security::{
    CredentialPlan, SecurityRequirement, SecurityScheme, credential_plan, parse_requirements,
    parse_schemes,
};
use crate::version::{Binding, ProtocolVersion, VersionNumber};

/// Where in the card an interface was declared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InterfaceOrigin {
    /// `supportedInterfaces[index]` (1.0).
    SupportedInterfaces(usize),
    /// The top-level `url` with `preferredTransport` (0.3).
    PreferredUrl,
    /// `additionalInterfaces[index]` (0.3).
    AdditionalInterfaces(usize),
}

impl std::fmt::Display for InterfaceOrigin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            InterfaceOrigin::SupportedInterfaces(i) => write!(f, "supportedInterfaces[{i}]"),
            InterfaceOrigin::PreferredUrl => f.write_str("url/preferredTransport"),
            InterfaceOrigin::AdditionalInterfaces(i) => write!(f, "additionalInterfaces[{i}]"),
        }
    }
}

/// One interface a card offers, as declared.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentInterface {
    /// The endpoint URL as written in the card.
    pub url: String,
    /// The binding name as written (`JSONRPC`, `HTTP+JSON`, `GRPC`, a URI, …).
    pub binding: String,
    /// The protocol version as written (`"1.0"`, `"0.3.0"`), or `None` when the card gives
    /// none (a 0.3 card without `protocolVersion`).
    pub protocol_version: Option<String>,
    /// The tenant to send with every request; `None` when absent or empty.
    pub tenant: Option<String>,
    /// Where the interface was declared.
    pub origin: InterfaceOrigin,
}

impl AgentInterface {
    /// The binding, when it is one this core speaks (gRPC and custom bindings are `None`).
    pub fn known_binding(&self) -> Option<Binding> {
        Binding::parse(&self.binding)
    }

    /// The wire shape of this interface: `1.x` → 1.0; `0.3` → 0.3; `0.2.x` → 0.3 (pre-0.3
    /// agents speak the same JSON-RPC methods); anything else is `None`. Without a version,
    /// a `supportedInterfaces` entry is taken as 1.0 (the field is required there; a2a-java
    /// defaults it to 1.0) and a legacy `url`/`additionalInterfaces` entry as 0.3 (the
    /// Python SDK's card resolver does the same).
    pub fn wire_version(&self) -> Option<ProtocolVersion> {
        let Some(text) = &self.protocol_version else {
            return Some(match self.origin {
                InterfaceOrigin::SupportedInterfaces(_) => ProtocolVersion::V1_0,
                _ => ProtocolVersion::V0_3,
            });
        };
        let n = VersionNumber::parse(text).ok()?;
        match (n.major, n.minor) {
            (0, 2) => Some(ProtocolVersion::V0_3),
            _ => n.protocol().ok(),
        }
    }
}

/// Which card shape was read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CardShape {
    /// Only `supportedInterfaces` (a 1.0 card).
    V1_0,
    /// Only the 0.3 `url` fields.
    V0_3,
    /// Both (what the Python and JS SDKs serve by default).
    Hybrid,
}

/// What a card declares the agent supports beyond plain calls (`capabilities`, and 0.3's
/// top-level `supportsAuthenticatedExtendedCard`): the client checks a call against it
/// before sending ([`crate::client::Target::capabilities`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Capabilities {
    /// `capabilities.streaming`: `SendStreamingMessage` and `SubscribeToTask`.
    pub streaming: bool,
    /// `capabilities.pushNotifications`: the push-notification-config methods.
    pub push_notifications: bool,
    /// `capabilities.extendedAgentCard` (1.0) or `supportsAuthenticatedExtendedCard`
    /// (0.3): `GetExtendedAgentCard`.
    pub extended_card: bool,
}

/// An agent card, reduced to what a client needs to choose an endpoint and credentials.
#[derive(Debug, Clone, PartialEq)]
pub struct AgentCard {
    /// `name`.
    pub name: String,
    /// `description`.
    pub description: String,
    /// The agent's own `version` (not the protocol version).
    pub version: String,
    /// Every interface offered, 1.0 `supportedInterfaces` first (in card order), then the
    /// 0.3 `url` and `additionalInterfaces` not already listed.
    pub interfaces: Vec<AgentInterface>,
    /// `capabilities.streaming`.
    pub streaming: bool,
    /// `capabilities.pushNotifications`.
    pub push_notifications: bool,
    /// `capabilities.extendedAgentCard` (1.0) or `supportsAuthenticatedExtendedCard` (0.3).
    pub extended_card: bool,
    /// `securitySchemes`, by name (sorted by name: JSON objects carry no order here).
    pub security_schemes: Vec<(String, SecurityScheme)>,
    /// `securityRequirements` (1.0) or `security` (0.3): alternatives, each a set of schemes
    /// that must all be satisfied. `None` when the card states no requirement.
    pub security_requirements: Option<Vec<SecurityRequirement>>,
    /// Which shape the card had.
    pub shape: CardShape,
}

/// Looks a field up by its camelCase name, then by its ProtoJSON snake_case name.
fn bool_field(obj: &Map<String, Value>, camel: &str, snake: &str) -> bool {
    field(obj, camel, snake)
        .and_then(Value::as_bool)
        .unwrap_or(false)
}

fn interface_list<'v>(
    obj: &'v Map<String, Value>,
    camel: &'static str,
    snake: &str,
) -> Result<&'v [Value], CardError> {
    match field(obj, camel, snake) {
        None => Ok(&[]),
        Some(Value::Array(a)) => Ok(a),
        Some(_) => Err(CardError::InvalidField {
            field: camel,
            expected: "an array of interfaces",
        }),
    }
}

fn interface_entry<'v>(
    v: &'v Value,
    list: &'static str,
    index: usize,
) -> Result<(&'v Map<String, Value>, String), CardError> {
    let obj = v.as_object().ok_or(CardError::InvalidInterface {
        list,
        index,
        problem: "not an object",
    })?;
    let url = str_field(obj, "url", "url").ok_or(CardError::InvalidInterface {
        list,
        index,
        problem: "no \"url\" string",
    })?;
    Ok((obj, url.to_owned()))
}

fn non_empty(s: Option<&str>) -> Option<String> {
    s.map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
}

impl AgentCard {
    /// The capabilities the card declares.
    pub fn capabilities(&self) -> Capabilities {
        Capabilities {
            streaming: self.streaming,
            push_notifications: self.push_notifications,
            extended_card: self.extended_card,
        }
    }

    /// Parses a card from its JSON bytes.
    ///
    /// # Errors
    /// [`CardError::Json`] for invalid JSON, [`CardError::NotAnObject`], or
    /// [`CardError::InvalidField`] / [`CardError::InvalidInterface`] when a field the client
    /// relies on has the wrong type. A card without any interface parses; choosing one
    /// then fails with [`CardError::NoUsableInterface`].
    pub fn parse(bytes: &[u8]) -> Result<AgentCard, CardError> {
        let value: Value =
            serde_json::from_slice(bytes).map_err(|e| CardError::Json(e.to_string()))?;
        AgentCard::from_value(&value)
    }

    /// Reads a card from an already parsed JSON value.
    ///
    /// # Errors
    /// As [`AgentCard::parse`].
    pub fn from_value(value: &Value) -> Result<AgentCard, CardError> {
        let obj = value.as_object().ok_or(CardError::NotAnObject)?;
        let mut interfaces = Vec::new();
        let supported = interface_list(obj, "supportedInterfaces", "supported_interfaces")?;
        for (i, v) in supported.iter().enumerate() {
            let (o, url) = interface_entry(v, "supportedInterfaces", i)?;
            interfaces.push(AgentInterface {
                url,
                binding: str_field(o, "protocolBinding", "protocol_binding")
                    .or_else(|| str_field(o, "transport", "transport"))
                    .unwrap_or("JSONRPC")
                    .to_owned(),
                protocol_version: non_empty(str_field(o, "protocolVersion", "protocol_version")),
                tenant: non_empty(str_field(o, "tenant", "tenant")),
                origin: InterfaceOrigin::SupportedInterfaces(i),
            });
        }
        let legacy_url = match field(obj, "url", "url") {
            None => None,
            Some(Value::String(s)) => Some(s.clone()),
            Some(_) => {
                return Err(CardError::InvalidField {
                    field: "url",
                    expected: "a string",
                });
            }
        };
        let legacy_version = non_empty(str_field(obj, "protocolVersion", "protocol_version"));
        let mut legacy = Vec::new();
        if let Some(url) = &legacy_url {
            legacy.push(AgentInterface {
                url: url.clone(),
                binding: str_field(obj, "preferredTransport", "preferred_transport")
                    .unwrap_or("JSONRPC")
                    .to_owned(),
                protocol_version: legacy_version.clone(),
                tenant: None,
                origin: InterfaceOrigin::PreferredUrl,
            });
        }
        let additional = interface_list(obj, "additionalInterfaces", "additional_interfaces")?;
        for (i, v) in additional.iter().enumerate() {
            let (o, url) = interface_entry(v, "additionalInterfaces", i)?;
            legacy.push(AgentInterface {
                url,
                binding: str_field(o, "transport", "transport")
                    .or_else(|| str_field(o, "protocolBinding", "protocol_binding"))
                    .unwrap_or("JSONRPC")
                    .to_owned(),
                protocol_version: legacy_version.clone(),
                tenant: None,
                origin: InterfaceOrigin::AdditionalInterfaces(i),
            });
        }
        let shape = match (supported.is_empty(), legacy.is_empty()) {
            (false, false) => CardShape::Hybrid,
            (true, false) => CardShape::V0_3,
            _ => CardShape::V1_0,
        };
        for iface in legacy {
            let duplicate = interfaces.iter().any(|known| {
                known.url == iface.url
                    && known.binding.eq_ignore_ascii_case(&iface.binding)
                    && known.wire_version() == iface.wire_version()
            });
            if !duplicate {
                interfaces.push(iface);
            }
        }
        let caps = field(obj, "capabilities", "capabilities").and_then(Value::as_object);
        let cap = |camel: &str, snake: &str| caps.is_some_and(|c| bool_field(c, camel, snake));
        let text = |camel: &str| str_field(obj, camel, camel).unwrap_or("").to_owned();
        Ok(AgentCard {
            name: text("name"),
            description: text("description"),
            version: text("version"),
            interfaces,
            streaming: cap("streaming", "streaming"),
            push_notifications: cap("pushNotifications", "push_notifications"),
            extended_card: cap("extendedAgentCard", "extended_agent_card")
                || bool_field(
                    obj,
                    "supportsAuthenticatedExtendedCard",
                    "supports_authenticated_extended_card",
                ),
            security_schemes: parse_schemes(field(obj, "securitySchemes", "security_schemes"))?,
            security_requirements: parse_requirements(
                field(obj, "securityRequirements", "security_requirements")
                    .or_else(|| field(obj, "security", "security")),
            )?,
            shape,
        })
    }
}

impl AgentCard {
    /// Which credentials the card asks for; see [`CredentialPlan`].
    pub fn credentials(&self) -> CredentialPlan {
        credential_plan(
            &self.security_schemes,
            self.security_requirements.as_deref(),
        )
    }

    /// The token endpoint of the card's OAuth 2.0 `clientCredentials` flow: of the first
    /// OAuth 2.0 scheme declaring one, in the card's order. Not validated (the OAuth 2.0
    /// client checks it is https).
    pub fn client_credentials_token_url(&self) -> Option<&str> {
        self.security_schemes.iter().find_map(|(_, s)| match s {
            SecurityScheme::OAuth2 {
                client_credentials_token_url: Some(u),
                ..
            } => Some(u.as_str()),
            _ => None,
        })
    }
}
