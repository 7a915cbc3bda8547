//! Reading an agent card of either protocol version into one model.
//!
//! Both shapes are read from the same JSON: the 1.0 `supportedInterfaces[]` (each with
//! `url`, `protocolBinding`, `protocolVersion`, `tenant`) and the 0.3 top-level `url`,
//! `preferredTransport`, `protocolVersion` and `additionalInterfaces[]` (each with `url`,
//! `transport`). Deployed servers send both at once (the Python and JS SDKs' "hybrid" cards),
//! so the interfaces of both are collected, 1.0 first, without duplicates. Unknown fields
//! are ignored; ProtoJSON snake_case names (`supported_interfaces`) are accepted too;
//! `"tenant": ""` means no tenant.
//!
//! The card is read through private mirror structs with serde derive (`CardIn` here, the
//! schemes' in `security.rs`), the crate's one JSON reading style (`model/de.rs`); their
//! lenient leaf types and why they read a parsed `serde_json::Value` rather than the bytes
//! are in `fields.rs`.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::Value;

use super::CardError;
use super::fields::{ArrayOr, Entries, Flag, ObjectOr, Slot, Text, pick, text};
use super::security::{
    CredentialPlan, RequirementIn, SchemeIn, SecurityRequirement, SecurityScheme, credential_plan,
    parse_requirements, parse_schemes,
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

/// The card as read: every member the client uses, each spelling a field of its own
/// (`fields.rs` says how they are joined and how lenient each is).
#[derive(Deserialize, Default)]
#[serde(default)]
struct CardIn<'a> {
    #[serde(rename = "supportedInterfaces", borrow)]
    supported: Slot<ArrayOr<ObjectOr<InterfaceIn<'a>>>>,
    #[serde(rename = "supported_interfaces", borrow)]
    supported_snake: Slot<ArrayOr<ObjectOr<InterfaceIn<'a>>>>,
    #[serde(borrow)]
    url: Slot<Text<'a>>,
    #[serde(rename = "protocolVersion", borrow)]
    protocol_version: Slot<Text<'a>>,
    #[serde(rename = "protocol_version", borrow)]
    protocol_version_snake: Slot<Text<'a>>,
    #[serde(rename = "preferredTransport", borrow)]
    preferred_transport: Slot<Text<'a>>,
    #[serde(rename = "preferred_transport", borrow)]
    preferred_transport_snake: Slot<Text<'a>>,
    #[serde(rename = "additionalInterfaces", borrow)]
    additional: Slot<ArrayOr<ObjectOr<InterfaceIn<'a>>>>,
    #[serde(rename = "additional_interfaces", borrow)]
    additional_snake: Slot<ArrayOr<ObjectOr<InterfaceIn<'a>>>>,
    capabilities: Slot<ObjectOr<CapabilitiesIn>>,
    #[serde(rename = "supportsAuthenticatedExtendedCard")]
    extended_card: Slot<Flag>,
    #[serde(rename = "supports_authenticated_extended_card")]
    extended_card_snake: Slot<Flag>,
    #[serde(borrow)]
    name: Slot<Text<'a>>,
    #[serde(borrow)]
    description: Slot<Text<'a>>,
    #[serde(borrow)]
    version: Slot<Text<'a>>,
    #[serde(rename = "securitySchemes", borrow)]
    schemes: Slot<Entries<'a, ObjectOr<SchemeIn<'a>>>>,
    #[serde(rename = "security_schemes", borrow)]
    schemes_snake: Slot<Entries<'a, ObjectOr<SchemeIn<'a>>>>,
    #[serde(rename = "securityRequirements", borrow)]
    requirements: Slot<ArrayOr<RequirementIn<'a>>>,
    #[serde(rename = "security_requirements", borrow)]
    requirements_snake: Slot<ArrayOr<RequirementIn<'a>>>,
    #[serde(rename = "security", borrow)]
    requirements_03: Slot<ArrayOr<RequirementIn<'a>>>,
}

/// An entry of `supportedInterfaces` or `additionalInterfaces`.
#[derive(Deserialize, Default)]
#[serde(default)]
struct InterfaceIn<'a> {
    #[serde(borrow)]
    url: Slot<Text<'a>>,
    #[serde(rename = "protocolBinding", borrow)]
    protocol_binding: Slot<Text<'a>>,
    #[serde(rename = "protocol_binding", borrow)]
    protocol_binding_snake: Slot<Text<'a>>,
    #[serde(borrow)]
    transport: Slot<Text<'a>>,
    #[serde(rename = "protocolVersion", borrow)]
    protocol_version: Slot<Text<'a>>,
    #[serde(rename = "protocol_version", borrow)]
    protocol_version_snake: Slot<Text<'a>>,
    #[serde(borrow)]
    tenant: Slot<Text<'a>>,
}

/// `capabilities`.
#[derive(Deserialize, Default)]
#[serde(default)]
struct CapabilitiesIn {
    streaming: Slot<Flag>,
    #[serde(rename = "pushNotifications")]
    push_notifications: Slot<Flag>,
    #[serde(rename = "push_notifications")]
    push_notifications_snake: Slot<Flag>,
    #[serde(rename = "extendedAgentCard")]
    extended_card: Slot<Flag>,
    #[serde(rename = "extended_agent_card")]
    extended_card_snake: Slot<Flag>,
}

/// A boolean member, `false` when absent, `null` or not a boolean.
fn flag(camel: Slot<Flag>, snake: Slot<Flag>) -> bool {
    pick(camel, snake).and_then(|f| f.0).unwrap_or(false)
}

/// An interface list: empty when absent or `null`, an error when not an array.
fn interface_list<'a>(
    camel: Slot<ArrayOr<ObjectOr<InterfaceIn<'a>>>>,
    snake: Slot<ArrayOr<ObjectOr<InterfaceIn<'a>>>>,
    name: &'static str,
) -> Result<Vec<ObjectOr<InterfaceIn<'a>>>, CardError> {
    match pick(camel, snake) {
        None => Ok(Vec::new()),
        Some(ArrayOr(Some(list))) => Ok(list),
        Some(ArrayOr(None)) => Err(CardError::InvalidField {
            field: name,
            expected: "an array of interfaces",
        }),
    }
}

/// An entry of an interface list with its `url`.
fn interface_entry<'a>(
    entry: ObjectOr<InterfaceIn<'a>>,
    list: &'static str,
    index: usize,
) -> Result<(InterfaceIn<'a>, String), CardError> {
    let mut entry = entry.0.ok_or(CardError::InvalidInterface {
        list,
        index,
        problem: "not an object",
    })?;
    let url =
        text(std::mem::take(&mut entry.url), Slot::Absent).ok_or(CardError::InvalidInterface {
            list,
            index,
            problem: "no \"url\" string",
        })?;
    Ok((entry, url.into_owned()))
}

fn non_empty(s: Option<Cow<'_, str>>) -> Option<String> {
    s.as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
}

/// A binding name as written, `JSONRPC` when none is given.
fn binding(s: Option<Cow<'_, str>>) -> String {
    s.map_or_else(|| "JSONRPC".to_owned(), Cow::into_owned)
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
        if !value.is_object() {
            return Err(CardError::NotAnObject);
        }
        // Every field of the mirror is lenient, so reading an object cannot fail.
        let mut card = CardIn::deserialize(value).map_err(|e| CardError::Json(e.to_string()))?;
        let supported = interface_list(
            std::mem::take(&mut card.supported),
            std::mem::take(&mut card.supported_snake),
            "supportedInterfaces",
        )?;
        let mut interfaces = Vec::with_capacity(supported.len() + 1);
        for (i, entry) in supported.into_iter().enumerate() {
            let (o, url) = interface_entry(entry, "supportedInterfaces", i)?;
            interfaces.push(AgentInterface {
                url,
                binding: binding(
                    text(o.protocol_binding, o.protocol_binding_snake)
                        .or_else(|| text(o.transport, Slot::Absent)),
                ),
                protocol_version: non_empty(text(o.protocol_version, o.protocol_version_snake)),
                tenant: non_empty(text(o.tenant, Slot::Absent)),
                origin: InterfaceOrigin::SupportedInterfaces(i),
            });
        }
        let legacy = legacy_interfaces(&mut card)?;
        let shape = match (interfaces.is_empty(), legacy.is_empty()) {
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
        let caps = pick(card.capabilities, Slot::Absent)
            .and_then(|c| c.0)
            .unwrap_or_default();
        let security_schemes = parse_schemes(pick(card.schemes, card.schemes_snake))?;
        let requirements = match pick(card.requirements, card.requirements_snake) {
            Some(r) => Some(r),
            None => pick(card.requirements_03, Slot::Absent),
        };
        Ok(AgentCard {
            name: text(card.name, Slot::Absent)
                .unwrap_or_default()
                .into_owned(),
            description: text(card.description, Slot::Absent)
                .unwrap_or_default()
                .into_owned(),
            version: text(card.version, Slot::Absent)
                .unwrap_or_default()
                .into_owned(),
            interfaces,
            streaming: flag(caps.streaming, Slot::Absent),
            push_notifications: flag(caps.push_notifications, caps.push_notifications_snake),
            extended_card: flag(caps.extended_card, caps.extended_card_snake)
                || flag(card.extended_card, card.extended_card_snake),
            security_schemes,
            security_requirements: parse_requirements(requirements)?,
            shape,
        })
    }
}

/// The 0.3 interfaces: the top-level `url` with `preferredTransport`, then
/// `additionalInterfaces`, all with the top-level `protocolVersion`.
fn legacy_interfaces(card: &mut CardIn<'_>) -> Result<Vec<AgentInterface>, CardError> {
    let legacy_url = match pick(std::mem::take(&mut card.url), Slot::Absent) {
        None => None,
        Some(Text(Some(s))) => Some(s.into_owned()),
        Some(Text(None)) => {
            return Err(CardError::InvalidField {
                field: "url",
                expected: "a string",
            });
        }
    };
    let legacy_version = non_empty(text(
        std::mem::take(&mut card.protocol_version),
        std::mem::take(&mut card.protocol_version_snake),
    ));
    let mut legacy = Vec::new();
    if let Some(url) = legacy_url {
        legacy.push(AgentInterface {
            url,
            binding: binding(text(
                std::mem::take(&mut card.preferred_transport),
                std::mem::take(&mut card.preferred_transport_snake),
            )),
            protocol_version: legacy_version.clone(),
            tenant: None,
            origin: InterfaceOrigin::PreferredUrl,
        });
    }
    let additional = interface_list(
        std::mem::take(&mut card.additional),
        std::mem::take(&mut card.additional_snake),
        "additionalInterfaces",
    )?;
    for (i, entry) in additional.into_iter().enumerate() {
        let (o, url) = interface_entry(entry, "additionalInterfaces", i)?;
        legacy.push(AgentInterface {
            url,
            binding: binding(
                text(o.transport, Slot::Absent)
                    .or_else(|| text(o.protocol_binding, o.protocol_binding_snake)),
            ),
            protocol_version: legacy_version.clone(),
            tenant: None,
            origin: InterfaceOrigin::AdditionalInterfaces(i),
        });
    }
    Ok(legacy)
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
