//! A small, strict URL parser for the URLs a card carries and the URL it was fetched from.
//!
//! Only absolute `scheme://authority/path?query#fragment` URLs are accepted. The parser is
//! deliberately stricter than a browser where parsers are known to disagree, because a
//! disagreement between this check and the HTTP stack that later connects is exactly how a
//! credential leaks: backslashes, whitespace, control characters, percent-encoded or
//! non-ASCII hosts are refused rather than interpreted. Hosts are compared in a normal form:
//! lowercase, one trailing dot removed, IPv6 as an address (so `[0::1]` equals `[::1]`), and
//! IPv4 in every numeric spelling a resolver accepts (`127.1`, `0x7f.0.0.1`, `2130706433`).

use std::fmt;
use std::net::{Ipv4Addr, Ipv6Addr};

pub(crate) mod addr;

use addr::{AddressClass, classify_domain, classify_ipv4, classify_ipv6};

/// Why a URL was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum UrlError {
    /// The URL is empty.
    #[error("empty URL")]
    Empty,
    /// Whitespace, a control character, a backslash or a non-ASCII character appears.
    #[error("URL holds whitespace, a control character, a backslash or a non-ASCII character")]
    InvalidCharacter,
    /// No `scheme:` or an invalid scheme.
    #[error("URL has no valid scheme")]
    InvalidScheme,
    /// The scheme is not followed by `//` and an authority.
    #[error("URL has no '//' authority")]
    NoAuthority,
    /// The host is empty.
    #[error("URL has an empty host")]
    EmptyHost,
    /// The host holds characters other than letters, digits, `-`, `_`, `.` (IDN hosts must
    /// be given in punycode), has an empty label, or is a malformed IP literal.
    #[error("URL host is not a valid domain name or IP address")]
    InvalidHost,
    /// The port is not a number from 0 to 65535.
    #[error("URL port is not a number from 0 to 65535")]
    InvalidPort,
}

impl UrlError {
    /// A stable snake_case name for the error kind.
    pub fn kind(&self) -> &'static str {
        match self {
            UrlError::Empty => "empty",
            UrlError::InvalidCharacter => "invalid_character",
            UrlError::InvalidScheme => "invalid_scheme",
            UrlError::NoAuthority => "no_authority",
            UrlError::EmptyHost => "empty_host",
            UrlError::InvalidHost => "invalid_host",
            UrlError::InvalidPort => "invalid_port",
        }
    }
}

/// A host in normal form.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Host {
    /// A domain name, lowercase, without a trailing dot.
    Domain(String),
    /// An IPv4 address (in any numeric spelling in the URL).
    Ipv4(Ipv4Addr),
    /// An IPv6 address (written in brackets in the URL).
    Ipv6(Ipv6Addr),
}

impl Host {
    /// Whether the host is public, a `localhost` name, loopback, private, …
    pub fn class(&self) -> AddressClass {
        match self {
            Host::Domain(d) => classify_domain(d),
            Host::Ipv4(ip) => classify_ipv4(*ip),
            Host::Ipv6(ip) => classify_ipv6(*ip),
        }
    }
}

impl fmt::Display for Host {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Host::Domain(d) => f.write_str(d),
            Host::Ipv4(ip) => write!(f, "{ip}"),
            Host::Ipv6(ip) => write!(f, "[{ip}]"),
        }
    }
}

/// A parsed absolute URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Url {
    scheme: String,
    userinfo: Option<String>,
    host: Host,
    port: Option<u16>,
    path: String,
    query: Option<String>,
    fragment: Option<String>,
}

fn valid_scheme(s: &str) -> bool {
    let mut b = s.bytes();
    b.next().is_some_and(|c| c.is_ascii_alphabetic())
        && b.all(|c| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'-' | b'.'))
}

/// One part of a WHATWG IPv4 address: decimal, `0x` hex or leading-zero octal.
fn ipv4_number(part: &str) -> Option<u64> {
    let (digits, radix) =
        if let Some(h) = part.strip_prefix("0x").or_else(|| part.strip_prefix("0X")) {
            (h, 16)
        } else if part.len() > 1 && part.starts_with('0') {
            (&part[1..], 8)
        } else {
            (part, 10)
        };
    if digits.is_empty() {
        // "0x" alone is zero in WHATWG.
        return (radix == 16).then_some(0);
    }
    if digits.len() > 32 {
        return None;
    }
    u64::from_str_radix(digits, radix).ok()
}

/// Parses a host whose last label is numeric as IPv4 the way resolvers (`inet_aton`) and
/// WHATWG do: 1 to 4 parts, the last filling the remaining bytes.
fn parse_ipv4(host: &str) -> Option<Ipv4Addr> {
    let parts: Vec<&str> = host.split('.').collect();
    if parts.is_empty() || parts.len() > 4 {
        return None;
    }
    let mut numbers = Vec::with_capacity(4);
    for p in &parts {
        numbers.push(ipv4_number(p)?);
    }
    let (last, init) = numbers.split_last()?;
    if init.iter().any(|&n| n > 255) {
        return None;
    }
    let last_bits = 8 * (4 - init.len() as u32);
    if *last >= 1u64 << last_bits {
        return None;
    }
    let mut value: u64 = *last;
    for (i, &n) in init.iter().enumerate() {
        value |= n << (8 * (3 - i as u32));
    }
    u32::try_from(value).ok().map(Ipv4Addr::from)
}

fn last_label_is_numeric(host: &str) -> bool {
    let last = host.rsplit('.').next().unwrap_or("");
    !last.is_empty()
        && (last.bytes().all(|b| b.is_ascii_digit())
            || ((last.starts_with("0x") || last.starts_with("0X"))
                && last[2..].bytes().all(|b| b.is_ascii_hexdigit())))
}

fn parse_host(text: &str) -> Result<Host, UrlError> {
    if text.is_empty() {
        return Err(UrlError::EmptyHost);
    }
    if let Some(inner) = text.strip_prefix('[') {
        let inner = inner.strip_suffix(']').ok_or(UrlError::InvalidHost)?;
        return inner
            .parse::<Ipv6Addr>()
            .map(Host::Ipv6)
            .map_err(|_| UrlError::InvalidHost);
    }
    let lower = text.to_ascii_lowercase();
    let name = lower.strip_suffix('.').unwrap_or(&lower);
    if name.is_empty()
        || !name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
        || name.split('.').any(str::is_empty)
    {
        return Err(UrlError::InvalidHost);
    }
    if last_label_is_numeric(name) {
        return parse_ipv4(name)
            .map(Host::Ipv4)
            .ok_or(UrlError::InvalidHost);
    }
    Ok(Host::Domain(name.to_owned()))
}

impl Url {
    /// Parses an absolute URL such as `https://agent.example.com:8443/a2a/v1?x=1`.
    ///
    /// # Errors
    /// A [`UrlError`] naming what is wrong.
    pub fn parse(input: &str) -> Result<Url, UrlError> {
        if input.is_empty() {
            return Err(UrlError::Empty);
        }
        if !input
            .bytes()
            .all(|b| (0x21..=0x7e).contains(&b) && b != b'\\')
        {
            return Err(UrlError::InvalidCharacter);
        }
        let (scheme, rest) = input.split_once(':').ok_or(UrlError::InvalidScheme)?;
        if !valid_scheme(scheme) {
            return Err(UrlError::InvalidScheme);
        }
        let rest = rest.strip_prefix("//").ok_or(UrlError::NoAuthority)?;
        let auth_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
        let (authority, rest) = rest.split_at(auth_end);
        let (userinfo, hostport) = match authority.rfind('@') {
            Some(at) => (Some(authority[..at].to_owned()), &authority[at + 1..]),
            None => (None, authority),
        };
        let (host_text, port_text) = if hostport.starts_with('[') {
            match hostport.find(']') {
                Some(close) => {
                    let (h, after) = hostport.split_at(close + 1);
                    match after {
                        "" => (h, None),
                        p => (h, Some(p.strip_prefix(':').ok_or(UrlError::InvalidHost)?)),
                    }
                }
                None => return Err(UrlError::InvalidHost),
            }
        } else {
            match hostport.rsplit_once(':') {
                Some((h, p)) => (h, Some(p)),
                None => (hostport, None),
            }
        };
        let host = parse_host(host_text)?;
        let port = match port_text {
            None | Some("") => None,
            Some(p) if p.len() <= 5 && p.bytes().all(|b| b.is_ascii_digit()) => {
                Some(p.parse::<u16>().map_err(|_| UrlError::InvalidPort)?)
            }
            Some(_) => return Err(UrlError::InvalidPort),
        };
        let (before_fragment, fragment) = match rest.split_once('#') {
            Some((a, f)) => (a, Some(f.to_owned())),
            None => (rest, None),
        };
        let (path, query) = match before_fragment.split_once('?') {
            Some((p, q)) => (p, Some(q.to_owned())),
            None => (before_fragment, None),
        };
        Ok(Url {
            scheme: scheme.to_ascii_lowercase(),
            userinfo,
            host,
            port,
            path: if path.is_empty() {
                "/".to_owned()
            } else {
                path.to_owned()
            },
            query,
            fragment,
        })
    }

    /// The scheme, lowercase (`https`).
    pub fn scheme(&self) -> &str {
        &self.scheme
    }

    /// The `user[:password]` part before `@`, if any. A URL carrying one is refused by card
    /// validation: `https://good@evil` goes to `evil`.
    pub fn userinfo(&self) -> Option<&str> {
        self.userinfo.as_deref()
    }

    /// The host in normal form.
    pub fn host(&self) -> &Host {
        &self.host
    }

    /// The explicit port, if any.
    pub fn port(&self) -> Option<u16> {
        self.port
    }

    /// The explicit port, or 80 for `http` and 443 for `https`.
    pub fn port_or_default(&self) -> Option<u16> {
        self.port.or(match self.scheme.as_str() {
            "http" => Some(80),
            "https" => Some(443),
            _ => None,
        })
    }

    /// The path, `/` when the URL has none.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// The query after `?`, if any.
    pub fn query(&self) -> Option<&str> {
        self.query.as_deref()
    }

    /// The fragment after `#`, if any (never sent on the wire).
    pub fn fragment(&self) -> Option<&str> {
        self.fragment.as_deref()
    }

    /// `host[:port]` as the `Host` header wants it (the port only when not the default).
    pub fn authority(&self) -> String {
        let default = match self.scheme.as_str() {
            "http" => Some(80),
            "https" => Some(443),
            _ => None,
        };
        match self.port {
            Some(p) if Some(p) != default => format!("{}:{p}", self.host),
            _ => self.host.to_string(),
        }
    }

    /// The origin-form request target: path plus `?query`.
    pub fn request_target(&self) -> String {
        match &self.query {
            Some(q) => format!("{}?{q}", self.path),
            None => self.path.clone(),
        }
    }

    /// `scheme://host:port` with the port always written: the unit of trust.
    pub fn origin(&self) -> String {
        match self.port_or_default() {
            Some(p) => format!("{}://{}:{p}", self.scheme, self.host),
            None => format!("{}://{}", self.scheme, self.host),
        }
    }

    /// True when scheme, normalized host and effective port are all equal.
    pub fn same_origin(&self, other: &Url) -> bool {
        self.scheme == other.scheme
            && self.host == other.host
            && self.port_or_default() == other.port_or_default()
    }
}

impl fmt::Display for Url {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}://", self.scheme)?;
        if let Some(u) = &self.userinfo {
            write!(f, "{u}@")?;
        }
        write!(f, "{}", self.host)?;
        if let Some(p) = self.port {
            write!(f, ":{p}")?;
        }
        f.write_str(&self.path)?;
        if let Some(q) = &self.query {
            write!(f, "?{q}")?;
        }
        if let Some(fr) = &self.fragment {
            write!(f, "#{fr}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn host(s: &str) -> Host {
        Url::parse(s).unwrap().host().clone()
    }

    #[test]
    fn parts() {
        let u = Url::parse("HTTPS://user:pw@Agent.Example.COM.:8443/a2a/v1?x=1&y#frag").unwrap();
        assert_eq!(u.scheme(), "https");
        assert_eq!(u.userinfo(), Some("user:pw"));
        assert_eq!(u.host(), &Host::Domain("agent.example.com".into()));
        assert_eq!(u.port(), Some(8443));
        assert_eq!(u.path(), "/a2a/v1");
        assert_eq!(u.query(), Some("x=1&y"));
        assert_eq!(u.fragment(), Some("frag"));
        assert_eq!(u.authority(), "agent.example.com:8443");
        assert_eq!(u.request_target(), "/a2a/v1?x=1&y");
        assert_eq!(u.origin(), "https://agent.example.com:8443");
        let u = Url::parse("http://h").unwrap();
        assert_eq!(
            (u.path(), u.port_or_default(), u.authority().as_str()),
            ("/", Some(80), "h")
        );
        let u = Url::parse("https://h:443?q").unwrap();
        assert_eq!(
            (u.path(), u.query(), u.authority().as_str()),
            ("/", Some("q"), "h")
        );
        assert_eq!(Url::parse("https://h:/x").unwrap().port(), None);
    }

    #[test]
    fn userinfo_uses_the_last_at() {
        let u = Url::parse("https://good@evil").unwrap();
        assert_eq!(u.host(), &Host::Domain("evil".into()));
        assert_eq!(u.userinfo(), Some("good"));
        let u = Url::parse("https://good.com@evil.com@real.net/x").unwrap();
        assert_eq!(u.host(), &Host::Domain("real.net".into()));
        assert_eq!(u.userinfo(), Some("good.com@evil.com"));
        assert_eq!(Url::parse("https://a@/x"), Err(UrlError::EmptyHost));
    }

    #[test]
    fn ip_literals() {
        assert_eq!(host("http://[::1]:8080/"), Host::Ipv6(Ipv6Addr::LOCALHOST));
        assert_eq!(host("http://[0:0::1]/"), Host::Ipv6(Ipv6Addr::LOCALHOST));
        assert_eq!(
            host("http://[FE80::1]/"),
            Host::Ipv6("fe80::1".parse().unwrap())
        );
        assert_eq!(
            host("http://127.1.2.3/"),
            Host::Ipv4(Ipv4Addr::new(127, 1, 2, 3))
        );
        assert_eq!(
            host("http://127.1/"),
            Host::Ipv4(Ipv4Addr::new(127, 0, 0, 1))
        );
        assert_eq!(
            host("http://2130706433/"),
            Host::Ipv4(Ipv4Addr::new(127, 0, 0, 1))
        );
        assert_eq!(
            host("http://0x7f.0.0.1/"),
            Host::Ipv4(Ipv4Addr::new(127, 0, 0, 1))
        );
        assert_eq!(
            host("http://0177.0.0.1/"),
            Host::Ipv4(Ipv4Addr::new(127, 0, 0, 1))
        );
        assert_eq!(
            host("http://10.0.0.1./"),
            Host::Ipv4(Ipv4Addr::new(10, 0, 0, 1))
        );
        for bad in [
            "http://[::1/",
            "http://[::1]x/",
            "http://[fe80::1%25eth0]/",
            "http://[1.2.3.4]/",
            "http://256.0.0.1/",
            "http://1.2.3.4.5/",
            "http://4294967296/",
            "http://09.0.0.1/",
            "http://a..b/",
            "http://./",
            "http://%6c%6fcalhost/",
            "http://ex ample/",
            "http://exa\\mple/",
            "http://bücher.de/",
        ] {
            assert!(Url::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn hosts_compare_in_normal_form() {
        let a = Url::parse("https://Agent.Example.com./x").unwrap();
        let b = Url::parse("https://agent.example.com:443/y").unwrap();
        assert!(a.same_origin(&b));
        let c = Url::parse("https://agent.example.com:8443/").unwrap();
        assert!(!a.same_origin(&c), "port mismatch");
        let d = Url::parse("http://agent.example.com/").unwrap();
        assert!(!a.same_origin(&d), "scheme mismatch");
        assert_eq!(host("http://localhost./"), Host::Domain("localhost".into()));
    }

    #[test]
    fn malformed() {
        assert_eq!(Url::parse(""), Err(UrlError::Empty));
        assert_eq!(
            Url::parse("agent.example.com/x"),
            Err(UrlError::InvalidScheme)
        );
        assert_eq!(Url::parse("1http://h/"), Err(UrlError::InvalidScheme));
        assert_eq!(Url::parse("https:h/x"), Err(UrlError::NoAuthority));
        assert_eq!(Url::parse("https:///x"), Err(UrlError::EmptyHost));
        assert_eq!(Url::parse("https://h:99999/"), Err(UrlError::InvalidPort));
        assert_eq!(Url::parse("https://h:8a/"), Err(UrlError::InvalidPort));
        assert_eq!(Url::parse("https://h:-1/"), Err(UrlError::InvalidPort));
        assert_eq!(Url::parse(" https://h/"), Err(UrlError::InvalidCharacter));
        assert_eq!(
            Url::parse("https://h/\r\nx"),
            Err(UrlError::InvalidCharacter)
        );
    }

    #[test]
    fn display_round_trips() {
        for s in ["https://u@h:1/p?q#f", "http://[::1]:8080/", "https://h/a/b"] {
            assert_eq!(Url::parse(s).unwrap().to_string(), s);
        }
    }
}
