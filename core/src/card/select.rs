//! Choosing the interface to talk to, and saying why.
//!
//! The client lists the protocol versions and bindings it speaks, most preferred first. By
//! default the client's order decides (version first, then binding) and the card's order
//! breaks ties, so a client that prefers 1.0 gets the card's first 1.0 interface it can
//! speak. [`SelectionOrder::CardFirst`] follows the spec's rule instead (§8.3.2: the first
//! interface in card order whose binding and version the client supports).

use std::fmt;

use super::CardError;
use super::parse::{AgentCard, InterfaceOrigin};
use crate::version::{Binding, ProtocolVersion};

/// Whose order wins when several interfaces are usable.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SelectionOrder {
    /// The client's version preference, then its binding preference, then card order.
    #[default]
    ClientFirst,
    /// Card order; the client's lists only filter.
    CardFirst,
}

/// What the client speaks, most preferred first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Preferences {
    /// Protocol versions, most preferred first.
    pub versions: Vec<ProtocolVersion>,
    /// Bindings, most preferred first.
    pub bindings: Vec<Binding>,
    /// Whose order wins.
    pub order: SelectionOrder,
    /// The oldest protocol version accepted (A2A §3.6.3: never below it, no silent
    /// downgrade): an interface of an older version is never chosen, whatever `versions`
    /// lists. `None` accepts every version in `versions`.
    pub min_version: Option<ProtocolVersion>,
}

impl Default for Preferences {
    /// 1.0 then 0.3; JSON-RPC then HTTP+JSON; client order first.
    fn default() -> Preferences {
        Preferences {
            versions: vec![ProtocolVersion::V1_0, ProtocolVersion::V0_3],
            bindings: vec![Binding::JsonRpc, Binding::HttpJson],
            order: SelectionOrder::ClientFirst,
            min_version: None,
        }
    }
}

/// Why an interface was not chosen.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum SkipReason {
    /// The binding is not one this core speaks (e.g. `GRPC`).
    UnsupportedBinding(String),
    /// The protocol version is not one this core speaks (e.g. `2.0`).
    UnsupportedVersion(String),
    /// The core speaks the binding but the client did not ask for it.
    BindingNotWanted(Binding),
    /// The core speaks the version but the client did not ask for it.
    VersionNotWanted(ProtocolVersion),
    /// Usable, but a more preferred interface was chosen.
    LessPreferred,
}

impl fmt::Display for SkipReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SkipReason::UnsupportedBinding(b) => write!(f, "binding {b} is not supported"),
            SkipReason::UnsupportedVersion(v) => write!(f, "protocol version {v} is not supported"),
            SkipReason::BindingNotWanted(b) => write!(f, "binding {b} not in the client's list"),
            SkipReason::VersionNotWanted(v) => write!(f, "version {v} not in the client's list"),
            SkipReason::LessPreferred => f.write_str("usable but less preferred"),
        }
    }
}

/// An interface that was not chosen, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    /// Index in [`AgentCard::interfaces`].
    pub index: usize,
    /// Why.
    pub reason: SkipReason,
}

/// The interface chosen, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Choice {
    /// Endpoint URL as written in the card (validate it before use).
    pub url: String,
    /// Wire shape to speak.
    pub version: ProtocolVersion,
    /// The version string as declared (`None` for a legacy card without one).
    pub declared_version: Option<String>,
    /// Binding to use.
    pub binding: Binding,
    /// Tenant to send, if any.
    pub tenant: Option<String>,
    /// Index in [`AgentCard::interfaces`].
    pub index: usize,
    /// Where the card declared it.
    pub origin: InterfaceOrigin,
    /// Rank of the version in the client's list (0 = most preferred).
    pub version_rank: usize,
    /// Rank of the binding in the client's list (0 = most preferred).
    pub binding_rank: usize,
    /// Order that decided.
    pub order: SelectionOrder,
    /// Every other interface, with the reason it was passed over.
    pub skipped: Vec<Skipped>,
}

impl Choice {
    /// A one-line explanation for logs: what was chosen, by which rule, what was skipped.
    pub fn explain(&self) -> String {
        let rule = match self.order {
            SelectionOrder::ClientFirst => format!(
                "client preference #{} for version, #{} for binding, then card order",
                self.version_rank + 1,
                self.binding_rank + 1
            ),
            SelectionOrder::CardFirst => "first usable interface in card order".to_owned(),
        };
        let mut s = format!(
            "chose {} {} at {} ({}): {rule}",
            self.version, self.binding, self.url, self.origin
        );
        for skip in &self.skipped {
            s.push_str(&format!("; skipped #{}: {}", skip.index, skip.reason));
        }
        s
    }
}

impl AgentCard {
    /// Chooses the interface to use for the client's preferences.
    ///
    /// # Errors
    /// [`CardError::NoUsableInterface`] when no interface has a version and binding that
    /// the client asked for (for example a card offering only gRPC), listing what the card
    /// offers.
    #[allow(
        clippy::too_many_lines,
        reason = "the interface choice's rules in their documented order of preference"
    )]
    pub fn select(&self, prefs: &Preferences) -> Result<Choice, CardError> {
        let mut usable = Vec::new();
        let mut skipped = Vec::new();
        for (index, iface) in self.interfaces.iter().enumerate() {
            let Some(binding) = iface.known_binding() else {
                skipped.push(Skipped {
                    index,
                    reason: SkipReason::UnsupportedBinding(iface.binding.clone()),
                });
                continue;
            };
            let Some(version) = iface.wire_version() else {
                let v = iface.protocol_version.clone().unwrap_or_default();
                skipped.push(Skipped {
                    index,
                    reason: SkipReason::UnsupportedVersion(v),
                });
                continue;
            };
            let below_min = prefs.min_version.is_some_and(|m| version < m);
            let Some(version_rank) = prefs
                .versions
                .iter()
                .position(|&v| v == version)
                .filter(|_| !below_min)
            else {
                skipped.push(Skipped {
                    index,
                    reason: SkipReason::VersionNotWanted(version),
                });
                continue;
            };
            let Some(binding_rank) = prefs.bindings.iter().position(|&b| b == binding) else {
                skipped.push(Skipped {
                    index,
                    reason: SkipReason::BindingNotWanted(binding),
                });
                continue;
            };
            usable.push((version_rank, binding_rank, index, version, binding));
        }
        let best = match prefs.order {
            SelectionOrder::ClientFirst => usable.iter().min_by_key(|u| (u.0, u.1, u.2)),
            SelectionOrder::CardFirst => usable.iter().min_by_key(|u| u.2),
        };
        let Some(&(version_rank, binding_rank, index, version, binding)) = best else {
            return Err(CardError::NoUsableInterface {
                wanted: format!(
                    "versions [{}]{}, bindings [{}]",
                    join(
                        prefs
                            .versions
                            .iter()
                            .filter(|v| prefs.min_version.is_none_or(|m| **v >= m))
                            .map(|v| v.as_str())
                    ),
                    prefs
                        .min_version
                        .map(|m| format!(" (none older than {})", m.as_str()))
                        .unwrap_or_default(),
                    join(prefs.bindings.iter().map(|b| b.as_str()))
                ),
                offered: if self.interfaces.is_empty() {
                    "no interfaces (neither supportedInterfaces nor url)".to_owned()
                } else {
                    join(self.interfaces.iter().map(|i| {
                        format!(
                            "{} {} at {}",
                            i.binding,
                            i.protocol_version.as_deref().unwrap_or("(unversioned)"),
                            i.url
                        )
                    }))
                },
            });
        };
        for u in &usable {
            if u.2 != index {
                skipped.push(Skipped {
                    index: u.2,
                    reason: SkipReason::LessPreferred,
                });
            }
        }
        skipped.sort_by_key(|s| s.index);
        let iface = &self.interfaces[index];
        Ok(Choice {
            url: iface.url.clone(),
            version,
            declared_version: iface.protocol_version.clone(),
            binding,
            tenant: iface.tenant.clone(),
            index,
            origin: iface.origin,
            version_rank,
            binding_rank,
            order: prefs.order,
            skipped,
        })
    }
}

fn join<S: AsRef<str>>(items: impl Iterator<Item = S>) -> String {
    let mut out = String::new();
    for (i, s) in items.enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        out.push_str(s.as_ref());
    }
    out
}
