//! Writing the agent card: one card that 1.0 and 0.3 clients both read.
//!
//! A 1.0 client reads `supportedInterfaces` (url, `protocolBinding`, `protocolVersion` per
//! interface, in the server's order of preference). A 0.3 client reads the top-level `url`,
//! `preferredTransport`, `protocolVersion` and `additionalInterfaces`, and ignores the 1.0
//! list; without them it cannot pick an interface at all (the official Go SDK's 0.3 client
//! needs `url` and `preferredTransport`). [`CardBuilder`] writes both for the same interfaces:
//! the 1.0 list as given, and the 0.3 fields from the first interface spoken in 0.3 (the
//! preferred one) with every 0.3 interface in `additionalInterfaces`, as the 0.3 spec's own
//! example does. A card offering only 1.0 interfaces carries no 0.3 fields.
//!
//! ```
//! use a2a_core::server::{CardBuilder, CardSkill};
//! use a2a_core::version::{Binding, ProtocolVersion};
//!
//! let card = CardBuilder::new("booking", "Books seats", "1.2.0")
//!     .interface("https://agent.example/a2a", ProtocolVersion::V1_0, Binding::JsonRpc)
//!     .interface("https://agent.example/a2a/v03", ProtocolVersion::V0_3, Binding::JsonRpc)
//!     .streaming(true)
//!     .skill(CardSkill::new("book", "Book", "Books a seat", &["travel"]))
//!     .to_json()
//!     .unwrap();
//! let v: serde_json::Value = serde_json::from_str(&card).unwrap();
//! assert_eq!(v["supportedInterfaces"][0]["protocolVersion"], "1.0");
//! assert_eq!(v["url"], "https://agent.example/a2a/v03");
//! assert_eq!(v["preferredTransport"], "JSONRPC");
//! assert_eq!(v["protocolVersion"], "0.3.0");
//! ```

use serde_json::{Value, json};

use crate::version::{Binding, ProtocolVersion};

/// The `protocolVersion` a 0.3 card states (the 0.3 schema's default).
pub const CARD_PROTOCOL_VERSION_0_3: &str = "0.3.0";

/// One skill of the card.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CardSkill {
    /// Stable id.
    pub id: String,
    /// Human-readable name.
    pub name: String,
    /// What it does.
    pub description: String,
    /// Keywords.
    pub tags: Vec<String>,
    /// Example prompts (optional).
    pub examples: Vec<String>,
}

impl CardSkill {
    /// A skill with its id, name, description and tags, no examples.
    pub fn new(id: &str, name: &str, description: &str, tags: &[&str]) -> CardSkill {
        CardSkill {
            id: id.to_owned(),
            name: name.to_owned(),
            description: description.to_owned(),
            tags: tags.iter().map(|t| (*t).to_owned()).collect(),
            examples: Vec::new(),
        }
    }
}

/// Why a card could not be written.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CardBuildError {
    /// No interface was added: no client could call the agent.
    #[error("the card has no interface")]
    NoInterface,
    /// A required text field is empty.
    #[error("the card's {0} is empty")]
    Empty(&'static str),
    /// An interface URL is not an absolute http(s) URL.
    #[error("interface URL {0:?} is not an absolute http:// or https:// URL")]
    BadUrl(String),
    /// Signing the card failed (the key or the random source).
    #[error("signing the card failed: {0}")]
    Sign(String),
}

/// Builds an agent card carrying the 1.0 and the 0.3 fields for the same interfaces.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CardBuilder {
    name: String,
    description: String,
    version: String,
    interfaces: Vec<(String, ProtocolVersion, Binding)>,
    streaming: bool,
    push_notifications: bool,
    input_modes: Vec<String>,
    output_modes: Vec<String>,
    skills: Vec<CardSkill>,
}

impl CardBuilder {
    /// A card for the agent `name` (its `description` and its own `version`), with text
    /// input and output modes and no interface yet.
    pub fn new(name: &str, description: &str, version: &str) -> CardBuilder {
        CardBuilder {
            name: name.to_owned(),
            description: description.to_owned(),
            version: version.to_owned(),
            interfaces: Vec::new(),
            streaming: false,
            push_notifications: false,
            input_modes: vec!["text/plain".to_owned()],
            output_modes: vec!["text/plain".to_owned()],
            skills: Vec::new(),
        }
    }

    /// Adds an interface; the first added is the most preferred (card order).
    pub fn interface(mut self, url: &str, version: ProtocolVersion, binding: Binding) -> Self {
        self.interfaces.push((url.to_owned(), version, binding));
        self
    }

    /// Whether the agent streams (`capabilities.streaming`).
    pub fn streaming(mut self, on: bool) -> Self {
        self.streaming = on;
        self
    }

    /// Whether the agent sends push notifications (`capabilities.pushNotifications`).
    pub fn push_notifications(mut self, on: bool) -> Self {
        self.push_notifications = on;
        self
    }

    /// The media types the agent accepts and returns (default `text/plain` both).
    pub fn modes(mut self, input: &[&str], output: &[&str]) -> Self {
        self.input_modes = input.iter().map(|m| (*m).to_owned()).collect();
        self.output_modes = output.iter().map(|m| (*m).to_owned()).collect();
        self
    }

    /// Adds a skill.
    pub fn skill(mut self, skill: CardSkill) -> Self {
        self.skills.push(skill);
        self
    }

    /// The card as a JSON value.
    ///
    /// # Errors
    /// [`CardBuildError`] when there is no interface, a required text is empty or an
    /// interface URL is not absolute http(s).
    pub fn to_value(&self) -> Result<Value, CardBuildError> {
        for (field, v) in [
            ("name", &self.name),
            ("description", &self.description),
            ("version", &self.version),
        ] {
            if v.trim().is_empty() {
                return Err(CardBuildError::Empty(field));
            }
        }
        if self.interfaces.is_empty() {
            return Err(CardBuildError::NoInterface);
        }
        for (url, _, _) in &self.interfaces {
            let rest = url
                .strip_prefix("https://")
                .or_else(|| url.strip_prefix("http://"));
            if rest.is_none_or(|r| r.is_empty() || r.starts_with('/')) {
                return Err(CardBuildError::BadUrl(url.clone()));
            }
        }
        let supported: Vec<Value> = self
            .interfaces
            .iter()
            .map(|(url, v, b)| {
                json!({"url": url, "protocolBinding": b.as_str(), "protocolVersion": v.as_str()})
            })
            .collect();
        let skills: Vec<Value> = self
            .skills
            .iter()
            .map(|s| {
                let mut v = json!({"id": s.id, "name": s.name, "description": s.description,
                                   "tags": s.tags});
                if !s.examples.is_empty() {
                    v["examples"] = json!(s.examples);
                }
                v
            })
            .collect();
        let mut card = json!({
            "name": self.name,
            "description": self.description,
            "version": self.version,
            "supportedInterfaces": supported,
            "capabilities": {"streaming": self.streaming,
                             "pushNotifications": self.push_notifications},
            "defaultInputModes": self.input_modes,
            "defaultOutputModes": self.output_modes,
            "skills": skills,
        });
        let v03: Vec<&(String, ProtocolVersion, Binding)> = self
            .interfaces
            .iter()
            .filter(|(_, v, _)| *v == ProtocolVersion::V0_3)
            .collect();
        if let Some((url, _, binding)) = v03.first() {
            card["url"] = json!(url);
            card["preferredTransport"] = json!(binding.as_str());
            card["protocolVersion"] = json!(CARD_PROTOCOL_VERSION_0_3);
            card["additionalInterfaces"] = Value::Array(
                v03.iter()
                    .map(|(u, _, b)| json!({"url": u, "transport": b.as_str()}))
                    .collect(),
            );
        }
        Ok(card)
    }

    /// The card as compact JSON text (serve it at `/.well-known/agent-card.json`).
    ///
    /// # Errors
    /// As [`CardBuilder::to_value`].
    pub fn to_json(&self) -> Result<String, CardBuildError> {
        self.to_value().map(|v| v.to_string())
    }

    /// The card as compact JSON text with one JWS signature (A2A 1.0 §8.4.2: protected header
    /// `alg`, `typ: JOSE`, `kid`, and `jku` when given) over its canonical form. Publish the
    /// key's public half ([`crate::trust::jws::SigningKey::public_jwk`]) at `jku` or hand it
    /// to clients out of band.
    ///
    /// # Errors
    /// As [`CardBuilder::to_value`]; [`CardBuildError::Sign`] when the key fails to sign.
    #[cfg(feature = "trust")]
    pub fn to_signed_json(
        &self,
        key: &crate::trust::jws::SigningKey,
        kid: &str,
        jku: Option<&str>,
        rng: &dyn ring::rand::SecureRandom,
    ) -> Result<String, CardBuildError> {
        let json = self.to_json()?;
        crate::trust::card_sig::sign_card(json.as_bytes(), key, kid, jku, rng)
            .map_err(|e| CardBuildError::Sign(e.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::card;

    fn two() -> CardBuilder {
        CardBuilder::new("demo", "demo agent", "1.0.0")
            .interface(
                "http://127.0.0.1:9/a2a",
                ProtocolVersion::V1_0,
                Binding::JsonRpc,
            )
            .interface(
                "http://127.0.0.1:9/a2a",
                ProtocolVersion::V0_3,
                Binding::JsonRpc,
            )
            .interface(
                "http://127.0.0.1:9/rest",
                ProtocolVersion::V0_3,
                Binding::HttpJson,
            )
    }

    #[test]
    fn both_versions_fields_for_the_same_interfaces() {
        let v = two().streaming(true).to_value().unwrap();
        assert_eq!(v["supportedInterfaces"].as_array().unwrap().len(), 3);
        assert_eq!(v["supportedInterfaces"][2]["protocolBinding"], "HTTP+JSON");
        assert_eq!(v["url"], "http://127.0.0.1:9/a2a");
        assert_eq!(v["preferredTransport"], "JSONRPC");
        assert_eq!(v["protocolVersion"], "0.3.0");
        assert_eq!(v["additionalInterfaces"][1]["transport"], "HTTP+JSON");
        assert_eq!(v["capabilities"]["streaming"], true);
        // A 1.0-only card carries no 0.3 fields.
        let only = CardBuilder::new("a", "b", "1")
            .interface(
                "https://a.example/x",
                ProtocolVersion::V1_0,
                Binding::HttpJson,
            )
            .to_value()
            .unwrap();
        assert!(only.get("url").is_none() && only.get("preferredTransport").is_none());
    }

    #[test]
    fn the_cores_own_reader_takes_either_version_from_it() {
        let text = two().to_json().unwrap();
        let parsed = card::AgentCard::parse(text.as_bytes()).unwrap();
        assert_eq!(parsed.interfaces.len(), 3);
        // Card order: the 1.0 JSON-RPC interface; a 0.3-only client gets the 0.3 one.
        let mut p = card::Preferences {
            order: card::SelectionOrder::CardFirst,
            ..card::Preferences::default()
        };
        let c = parsed.select(&p).unwrap();
        assert_eq!(c.version, ProtocolVersion::V1_0);
        p.versions = vec![ProtocolVersion::V0_3];
        let c = parsed.select(&p).unwrap();
        assert_eq!(c.version, ProtocolVersion::V0_3);
        assert_eq!(c.url, "http://127.0.0.1:9/a2a");
    }

    #[test]
    fn refusals() {
        let none = CardBuilder::new("a", "b", "1").to_json();
        assert_eq!(none, Err(CardBuildError::NoInterface));
        let empty = CardBuilder::new(" ", "b", "1")
            .interface("https://a.example", ProtocolVersion::V1_0, Binding::JsonRpc)
            .to_json();
        assert_eq!(empty, Err(CardBuildError::Empty("name")));
        let bad = CardBuilder::new("a", "b", "1")
            .interface("/relative", ProtocolVersion::V1_0, Binding::JsonRpc)
            .to_json();
        assert!(matches!(bad, Err(CardBuildError::BadUrl(_))));
    }
}
