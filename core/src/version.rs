//! Protocol versions and HTTP bindings.
//!
//! A2A is deployed in two incompatible major shapes: 0.3 (JSON-RPC with `kind`
//! discriminators, REST under `/v1`) and 1.0 (ProtoJSON everywhere, `A2A-Version: 1.0`).
//! Minor versions within a major are wire-compatible, so the core keeps the minor for
//! reporting and dispatches on the major shape.

use std::fmt;

/// The two protocol shapes deployed today.
///
/// Exhaustive on purpose: each version is a wire shape every match must handle (the C ABI
/// and the bindings number them), so a new one is a deliberate breaking change.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ProtocolVersion {
    /// Protocol 0.3 (`message/send`, `kind` discriminators, kebab-case states).
    V0_3,
    /// Protocol 1.0 (`SendMessage`, ProtoJSON, `A2A-Version: 1.0`).
    V1_0,
}

/// Why a version string was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum VersionError {
    /// The string is not `MAJOR.MINOR` or `MAJOR.MINOR.PATCH` in ASCII digits.
    #[error("malformed protocol version {0:?}: expected MAJOR.MINOR such as \"1.0\" or \"0.3\"")]
    Malformed(String),
    /// The major/minor pair is not a version this core speaks.
    #[error("unsupported protocol version {major}.{minor}: this core speaks 0.3 and 1.x")]
    Unsupported {
        /// Major version as parsed.
        major: u32,
        /// Minor version as parsed.
        minor: u32,
    },
}

/// A parsed `MAJOR.MINOR[.PATCH]` version string, as found in cards and `A2A-Version`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct VersionNumber {
    /// Major version.
    pub major: u32,
    /// Minor version.
    pub minor: u32,
}

impl VersionNumber {
    /// Parses `"0.3"`, `"0.3.0"`, `"1.0"`, `"1.2"`; surrounding ASCII whitespace is ignored.
    pub fn parse(text: &str) -> Result<VersionNumber, VersionError> {
        let malformed = || VersionError::Malformed(text.to_owned());
        let mut parts = text.trim().split('.');
        let mut number = || -> Result<u32, VersionError> {
            let p = parts.next().ok_or_else(malformed)?;
            if p.is_empty() || p.len() > 9 || !p.bytes().all(|b| b.is_ascii_digit()) {
                return Err(malformed());
            }
            p.parse().map_err(|_| malformed())
        };
        let major = number()?;
        let minor = number()?;
        match parts.next() {
            None => {}
            Some(p) if !p.is_empty() && p.len() <= 9 && p.bytes().all(|b| b.is_ascii_digit()) => {}
            Some(_) => return Err(malformed()),
        }
        if parts.next().is_some() {
            return Err(malformed());
        }
        Ok(VersionNumber { major, minor })
    }

    /// The protocol shape this number is spoken in, or an error for an unknown major.
    pub fn protocol(self) -> Result<ProtocolVersion, VersionError> {
        match (self.major, self.minor) {
            (0, 3) => Ok(ProtocolVersion::V0_3),
            (1, _) => Ok(ProtocolVersion::V1_0),
            (major, minor) => Err(VersionError::Unsupported { major, minor }),
        }
    }
}

impl ProtocolVersion {
    /// Parses a version string (`"0.3"`, `"0.3.0"`, `"1.0"`, `"1.2"`) into a protocol shape.
    pub fn parse(text: &str) -> Result<ProtocolVersion, VersionError> {
        VersionNumber::parse(text)?.protocol()
    }

    /// The canonical `MAJOR.MINOR` string: `"0.3"` or `"1.0"`.
    pub fn as_str(self) -> &'static str {
        match self {
            ProtocolVersion::V0_3 => "0.3",
            ProtocolVersion::V1_0 => "1.0",
        }
    }

    /// The `A2A-Version` header value to send, if any (0.3 sends none).
    pub fn header_value(self) -> Option<&'static str> {
        match self {
            ProtocolVersion::V0_3 => None,
            ProtocolVersion::V1_0 => Some("1.0"),
        }
    }

    /// The version a server should assume from an `A2A-Version` header: absent or empty
    /// means 0.3.
    pub fn from_header(value: Option<&str>) -> Result<ProtocolVersion, VersionError> {
        match value.map(str::trim) {
            None | Some("") => Ok(ProtocolVersion::V0_3),
            Some(v) => ProtocolVersion::parse(v),
        }
    }
}

impl fmt::Display for ProtocolVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The HTTP binding a call travels over (gRPC is out of scope).
///
/// Exhaustive on purpose: the core reads and writes exactly these two bindings, and the C
/// ABI numbers them; a new one is a deliberate breaking change.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Binding {
    /// JSON-RPC 2.0 over HTTP POST.
    JsonRpc,
    /// HTTP+JSON ("REST").
    HttpJson,
}

impl Binding {
    /// The card's transport name: `"JSONRPC"` or `"HTTP+JSON"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Binding::JsonRpc => "JSONRPC",
            Binding::HttpJson => "HTTP+JSON",
        }
    }

    /// The command line's spelling: `"jsonrpc"` or `"http+json"`.
    pub fn cli_name(self) -> &'static str {
        match self {
            Binding::JsonRpc => "jsonrpc",
            Binding::HttpJson => "http+json",
        }
    }

    /// Parses a binding name case-insensitively: `JSONRPC`, `jsonrpc`, `json-rpc`,
    /// `HTTP+JSON`, `http+json`, `rest`. Returns `None` for anything else (e.g. `GRPC`).
    pub fn parse(text: &str) -> Option<Binding> {
        let t = text.trim();
        if t.eq_ignore_ascii_case("jsonrpc") || t.eq_ignore_ascii_case("json-rpc") {
            Some(Binding::JsonRpc)
        } else if t.eq_ignore_ascii_case("http+json") || t.eq_ignore_ascii_case("rest") {
            Some(Binding::HttpJson)
        } else {
            None
        }
    }
}

impl fmt::Display for Binding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_deployed_version_strings() {
        assert_eq!(ProtocolVersion::parse("0.3"), Ok(ProtocolVersion::V0_3));
        assert_eq!(ProtocolVersion::parse("0.3.0"), Ok(ProtocolVersion::V0_3));
        assert_eq!(ProtocolVersion::parse("1.0"), Ok(ProtocolVersion::V1_0));
        assert_eq!(ProtocolVersion::parse(" 1.2 "), Ok(ProtocolVersion::V1_0));
        assert_eq!(
            VersionNumber::parse("1.2").unwrap(),
            VersionNumber { major: 1, minor: 2 }
        );
    }

    #[test]
    fn refuses_unknown_majors_and_garbage() {
        assert_eq!(
            ProtocolVersion::parse("2.0"),
            Err(VersionError::Unsupported { major: 2, minor: 0 })
        );
        assert_eq!(
            ProtocolVersion::parse("0.2"),
            Err(VersionError::Unsupported { major: 0, minor: 2 })
        );
        for bad in [
            "",
            "1",
            "1.",
            ".1",
            "1.0.0.0",
            "v1.0",
            "1.x",
            "1.0.",
            "-1.0",
            "99999999999.0",
        ] {
            assert!(
                matches!(ProtocolVersion::parse(bad), Err(VersionError::Malformed(_))),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn absent_or_empty_header_means_0_3() {
        assert_eq!(
            ProtocolVersion::from_header(None),
            Ok(ProtocolVersion::V0_3)
        );
        assert_eq!(
            ProtocolVersion::from_header(Some("")),
            Ok(ProtocolVersion::V0_3)
        );
        assert_eq!(
            ProtocolVersion::from_header(Some("1.0")),
            Ok(ProtocolVersion::V1_0)
        );
        assert_eq!(ProtocolVersion::V1_0.header_value(), Some("1.0"));
        assert_eq!(ProtocolVersion::V0_3.header_value(), None);
    }

    #[test]
    fn binding_names() {
        assert_eq!(Binding::parse("JSONRPC"), Some(Binding::JsonRpc));
        assert_eq!(Binding::parse("http+json"), Some(Binding::HttpJson));
        assert_eq!(Binding::parse("HTTP+JSON"), Some(Binding::HttpJson));
        assert_eq!(Binding::parse("GRPC"), None);
        assert_eq!(Binding::HttpJson.cli_name(), "http+json");
    }
}
