//! Which `Host` a server answers for: the defence against DNS rebinding.
//!
//! A web page on `http://attacker.example:8080` can make its own name resolve to 127.0.0.1
//! (DNS rebinding); the browser then treats an agent listening on 127.0.0.1:8080 as that
//! page's own origin and lets the page read its answers. The one thing the browser cannot
//! change is the `Host` header: it still says `attacker.example:8080`. So a server bound to
//! loopback answers only for its own address (`127.0.0.1:PORT`, `[::1]:PORT`,
//! `localhost:PORT`) and for the names its embedder lists; anything else is 421 Misdirected
//! Request (RFC 9110 §15.5.20: this server is not authoritative for that origin).
//!
//! A server bound elsewhere is checked only when names are listed: it is reachable from
//! the network anyway, and its protection is authentication (see `docs/serving.md`).

use std::net::SocketAddr;

use crate::card::{AddressClass, Host, Url, classify_ip};

/// The `Host` values a server answers for (see the module docs).
///
/// Build it once, from the address the listener was actually bound to
/// ([`std::net::TcpListener::local_addr`], not the port 0 it asked for), and pass it in
/// [`super::ServerOptions::host`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostPolicy {
    bound: SocketAddr,
    loopback: bool,
    /// Extra names in normal form, with the port they must carry (`None`: any port).
    names: Vec<(Host, Option<u16>)>,
}

/// Why a [`HostPolicy`] could not be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum HostPolicyError {
    /// The bound address has port 0: pass the address the listener got.
    #[error("the bound address {0} has port 0: pass the address the listener was given")]
    PortZero(SocketAddr),
    /// A name is not `host` or `host:port` (a domain name or an IP literal).
    #[error("{0:?} is not a host name or host:port")]
    InvalidName(String),
}

/// Why a request's `Host` was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum HostRefusal {
    /// No `Host` header (HTTP/2 and HTTP/3 servers: pass `:authority` as `Host`).
    #[error("the request has no Host header")]
    Missing,
    /// More than one `Host` header (RFC 9112 §3.2: 400).
    #[error("the request has more than one Host header")]
    Repeated,
    /// A `Host` that is not `host[:port]`.
    #[error("the Host header {0:?} is not host[:port]")]
    Malformed(String),
    /// A well-formed `Host` this server does not answer for.
    #[error("this server does not answer for Host {0:?} (misdirected request)")]
    NotServed(String),
}

impl HostRefusal {
    /// The HTTP status to answer: 400 for a missing, repeated or malformed `Host`
    /// (RFC 9112 §3.2), 421 Misdirected Request for a host this server does not serve.
    pub fn status(&self) -> u16 {
        match self {
            HostRefusal::NotServed(_) => 421,
            _ => 400,
        }
    }
}

/// Reads `host[:port]` (a `Host` header value or a configured name) with the card URL
/// parser, so that hosts compare in one normal form (lowercase, no trailing dot, IPv6 as an
/// address, IPv4 in any numeric spelling). Nothing but the authority may be present.
fn parse_authority(text: &str) -> Option<(Host, Option<u16>)> {
    if text.is_empty() || text.contains(['/', '?', '#', '@']) {
        return None;
    }
    let url = Url::parse(&format!("http://{text}")).ok()?;
    Some((url.host().clone(), url.port()))
}

/// Whether a `Host` port (absent: the scheme's default) is `want`. The core does not know
/// whether the listener speaks http or https, so an absent port matches 80 and 443.
fn port_matches(port: Option<u16>, want: u16) -> bool {
    match port {
        Some(p) => p == want,
        None => want == 80 || want == 443,
    }
}

impl HostPolicy {
    /// The policy of a listener bound to `bound`. A loopback address turns the check on.
    ///
    /// # Errors
    /// [`HostPolicyError::PortZero`] when `bound` has port 0.
    pub fn new(bound: SocketAddr) -> Result<HostPolicy, HostPolicyError> {
        if bound.port() == 0 {
            return Err(HostPolicyError::PortZero(bound));
        }
        Ok(HostPolicy {
            bound,
            loopback: classify_ip(bound.ip()) == AddressClass::Loopback,
            names: Vec::new(),
        })
    }

    /// Adds a name the server also answers for: `agent.example.com` (any port) or
    /// `agent.example.com:8443` (that port only; `:443` and `:80` also match a `Host`
    /// without a port). Listing a name turns the check on for any bound address.
    ///
    /// # Errors
    /// [`HostPolicyError::InvalidName`] for anything but `host` or `host:port`.
    pub fn name(mut self, name: &str) -> Result<HostPolicy, HostPolicyError> {
        let parsed = parse_authority(name.trim())
            .ok_or_else(|| HostPolicyError::InvalidName(name.to_owned()))?;
        self.names.push(parsed);
        Ok(self)
    }

    /// The address the listener is bound to.
    pub fn bound(&self) -> SocketAddr {
        self.bound
    }

    /// Whether [`HostPolicy::check`] looks at `Host` at all: for a loopback listener, or
    /// when names are listed.
    pub fn is_active(&self) -> bool {
        self.loopback || !self.names.is_empty()
    }

    /// Checks the request's `Host` header (names compared case-insensitively).
    ///
    /// # Errors
    /// A [`HostRefusal`]; answer it with its [`HostRefusal::status`].
    pub fn check(&self, headers: &[(&str, &str)]) -> Result<(), HostRefusal> {
        if !self.is_active() {
            return Ok(());
        }
        let mut values = headers
            .iter()
            .filter(|(n, _)| n.eq_ignore_ascii_case("host"))
            .map(|(_, v)| v.trim_matches([' ', '\t']));
        let value = values.next().ok_or(HostRefusal::Missing)?;
        if values.next().is_some() {
            return Err(HostRefusal::Repeated);
        }
        let (host, port) =
            parse_authority(value).ok_or_else(|| HostRefusal::Malformed(value.to_owned()))?;
        let own_port = port_matches(port, self.bound.port());
        let is_bound_ip = match (&host, self.bound.ip()) {
            (Host::Ipv4(h), std::net::IpAddr::V4(b)) => *h == b,
            (Host::Ipv6(h), std::net::IpAddr::V6(b)) => *h == b,
            _ => false,
        };
        // On loopback, any loopback literal and `localhost` name this machine: a rebinding
        // page's Host is its own domain, never one of these.
        let names_this_machine = self.loopback
            && (host.class() == AddressClass::Loopback
                || matches!(&host, Host::Domain(d) if d == "localhost"));
        if own_port && (is_bound_ip || names_this_machine) {
            return Ok(());
        }
        let listed = self
            .names
            .iter()
            .any(|(h, p)| *h == host && p.is_none_or(|want| port_matches(port, want)));
        if listed {
            return Ok(());
        }
        Err(HostRefusal::NotServed(value.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy(bound: &str, names: &[&str]) -> HostPolicy {
        names
            .iter()
            .fold(HostPolicy::new(bound.parse().unwrap()).unwrap(), |p, n| {
                p.name(n).unwrap()
            })
    }

    fn check(p: &HostPolicy, host: &str) -> Result<(), HostRefusal> {
        p.check(&[("Content-Type", "application/json"), ("Host", host)])
    }

    #[test]
    fn a_loopback_listener_answers_for_its_own_address_only() {
        let p = policy("127.0.0.1:8080", &[]);
        for ok in [
            "127.0.0.1:8080",
            "localhost:8080",
            "LOCALHOST:8080",
            "localhost.:8080",
            "[::1]:8080",
            "127.0.0.2:8080",
            " 127.0.0.1:8080 ",
        ] {
            assert_eq!(check(&p, ok), Ok(()), "{ok}");
        }
        for (bad, status) in [
            ("attacker.example:8080", 421),
            ("attacker.example", 421),
            ("127.0.0.1:9090", 421),
            ("localhost", 421),
            ("localhost.attacker.example:8080", 421),
            ("evil.localhost:8080", 421),
            ("10.0.0.1:8080", 421),
            ("", 400),
            ("127.0.0.1:8080/x", 400),
            ("user@127.0.0.1:8080", 400),
            ("127.0.0.1:80800", 400),
            ("a b:8080", 400),
            ("[::1:8080", 400),
        ] {
            let e = check(&p, bad).expect_err(bad);
            assert_eq!(e.status(), status, "{bad}: {e}");
        }
        assert_eq!(p.check(&[]), Err(HostRefusal::Missing));
        assert_eq!(
            p.check(&[("Host", "127.0.0.1:8080"), ("host", "127.0.0.1:8080")]),
            Err(HostRefusal::Repeated)
        );
    }

    #[test]
    fn ipv6_loopback_and_default_ports() {
        let p = policy("[::1]:443", &[]);
        assert_eq!(check(&p, "[::1]"), Ok(()));
        assert_eq!(check(&p, "[0:0::1]:443"), Ok(()));
        assert_eq!(check(&p, "localhost"), Ok(()));
        assert_eq!(check(&p, "127.0.0.1:443"), Ok(()));
        assert!(check(&p, "[::1]:80").is_err());
    }

    #[test]
    fn listed_names_are_answered_for_with_their_ports() {
        let p = policy(
            "127.0.0.1:8080",
            &["agent.example.com", "api.example.com:8443"],
        );
        for ok in [
            "agent.example.com",
            "Agent.Example.COM:1234",
            "api.example.com:8443",
            "127.0.0.1:8080",
        ] {
            assert_eq!(check(&p, ok), Ok(()), "{ok}");
        }
        assert!(check(&p, "api.example.com").is_err());
        assert!(check(&p, "api.example.com:443").is_err());
        assert!(check(&p, "sub.agent.example.com").is_err());
        let p = policy("127.0.0.1:8080", &["api.example.com:443"]);
        assert_eq!(check(&p, "api.example.com"), Ok(()));
    }

    #[test]
    fn other_listeners_are_checked_only_when_names_are_listed() {
        let open = policy("0.0.0.0:8080", &[]);
        assert!(!open.is_active());
        assert_eq!(check(&open, "anything.example"), Ok(()));
        assert_eq!(open.check(&[]), Ok(()));
        let named = policy("10.0.0.5:8080", &["agent.internal"]);
        assert!(named.is_active());
        assert_eq!(check(&named, "agent.internal:8080"), Ok(()));
        assert_eq!(check(&named, "10.0.0.5:8080"), Ok(()));
        assert!(
            check(&named, "localhost:8080").is_err(),
            "not a loopback listener"
        );
        assert!(check(&named, "other.internal:8080").is_err());
    }

    #[test]
    fn bad_policies_are_typed_errors() {
        assert!(matches!(
            HostPolicy::new("127.0.0.1:0".parse().unwrap()),
            Err(HostPolicyError::PortZero(_))
        ));
        let p = HostPolicy::new("127.0.0.1:1".parse().unwrap()).unwrap();
        for bad in [
            "",
            "https://a.example",
            "a.example/x",
            "*.example.com",
            "a b",
            "a:b",
        ] {
            assert_eq!(
                p.clone().name(bad),
                Err(HostPolicyError::InvalidName(bad.to_owned())),
                "{bad}"
            );
        }
    }
}
