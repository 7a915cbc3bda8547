//! Is a host public, or does it name this machine or a private network?
//!
//! A card fetched from a public host that points its interface at `localhost`, a loopback,
//! private, link-local or unique-local address ("card URL drift") would make the client send
//! its credentials somewhere the operator never meant. The same classification is what a
//! driver should apply to the addresses a host name resolves to (DNS rebinding), which is
//! why [`classify_ip`] is public.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// What kind of place an address or host name points to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum AddressClass {
    /// A public address, or a domain name that is not a `localhost` name (its resolution is
    /// the caller's to check).
    Public,
    /// `localhost`, `localhost.` or a name under `.localhost` (RFC 6761).
    LocalhostName,
    /// 127.0.0.0/8 or ::1.
    Loopback,
    /// 10/8, 172.16/12, 192.168/16 (RFC 1918), or the deprecated IPv6 site-local fec0::/10.
    Private,
    /// 100.64.0.0/10, the carrier-grade NAT shared address space (RFC 6598).
    SharedAddressSpace,
    /// 169.254/16 or fe80::/10 (cloud metadata services live here).
    LinkLocal,
    /// fc00::/7 (RFC 4193).
    UniqueLocal,
    /// 0.0.0.0/8 or `::`.
    Unspecified,
    /// Multicast or the IPv4 limited broadcast address: never an HTTP server.
    Multicast,
}

impl AddressClass {
    /// True for everything except [`AddressClass::Public`].
    pub fn is_internal(self) -> bool {
        self != AddressClass::Public
    }

    /// A short lowercase name (`"loopback"`, `"private"`, …) for messages and fixtures.
    pub fn as_str(self) -> &'static str {
        match self {
            AddressClass::Public => "public",
            AddressClass::LocalhostName => "localhost",
            AddressClass::Loopback => "loopback",
            AddressClass::Private => "private",
            AddressClass::SharedAddressSpace => "shared-address-space",
            AddressClass::LinkLocal => "link-local",
            AddressClass::UniqueLocal => "unique-local",
            AddressClass::Unspecified => "unspecified",
            AddressClass::Multicast => "multicast",
        }
    }
}

impl std::fmt::Display for AddressClass {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Classifies an IPv4 address.
pub fn classify_ipv4(ip: Ipv4Addr) -> AddressClass {
    let [a, b, ..] = ip.octets();
    match (a, b) {
        (127, _) => AddressClass::Loopback,
        (10, _) | (192, 168) => AddressClass::Private,
        (172, 16..=31) => AddressClass::Private,
        (100, 64..=127) => AddressClass::SharedAddressSpace,
        (169, 254) => AddressClass::LinkLocal,
        (0, _) => AddressClass::Unspecified,
        (224..=239, _) => AddressClass::Multicast,
        _ if ip == Ipv4Addr::BROADCAST => AddressClass::Multicast,
        _ => AddressClass::Public,
    }
}

/// Classifies an IPv6 address; IPv4-mapped (`::ffff:a.b.c.d`), IPv4-compatible
/// (`::a.b.c.d`) and NAT64 (`64:ff9b::a.b.c.d`) addresses are classified by their IPv4 part.
pub fn classify_ipv6(ip: Ipv6Addr) -> AddressClass {
    if ip.is_unspecified() {
        return AddressClass::Unspecified;
    }
    if ip.is_loopback() {
        return AddressClass::Loopback;
    }
    let s = ip.segments();
    let embedded = |s: &[u16; 8]| Ipv4Addr::from((u32::from(s[6]) << 16) | u32::from(s[7]));
    if s[..5] == [0, 0, 0, 0, 0] && (s[5] == 0xffff || s[5] == 0) {
        return classify_ipv4(embedded(&s));
    }
    if s[..6] == [0x64, 0xff9b, 0, 0, 0, 0] {
        return classify_ipv4(embedded(&s));
    }
    match s[0] {
        x if x & 0xffc0 == 0xfe80 => AddressClass::LinkLocal,
        x if x & 0xffc0 == 0xfec0 => AddressClass::Private,
        x if x & 0xfe00 == 0xfc00 => AddressClass::UniqueLocal,
        x if x & 0xff00 == 0xff00 => AddressClass::Multicast,
        _ => AddressClass::Public,
    }
}

/// Classifies an IP address (for example one a host name resolved to).
#[cfg_attr(not(feature = "card"), allow(dead_code))] // public only through `card`
pub fn classify_ip(ip: IpAddr) -> AddressClass {
    match ip {
        IpAddr::V4(v4) => classify_ipv4(v4),
        IpAddr::V6(v6) => classify_ipv6(v6),
    }
}

/// Classifies a normalized domain name (lowercase, trailing dot removed).
pub(crate) fn classify_domain(name: &str) -> AddressClass {
    if name == "localhost" || name.ends_with(".localhost") {
        AddressClass::LocalhostName
    } else {
        AddressClass::Public
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v4(s: &str) -> AddressClass {
        classify_ipv4(s.parse().unwrap())
    }
    fn v6(s: &str) -> AddressClass {
        classify_ipv6(s.parse().unwrap())
    }

    #[test]
    fn ipv4_ranges_and_their_edges() {
        assert_eq!(v4("127.0.0.1"), AddressClass::Loopback);
        assert_eq!(v4("127.1.2.3"), AddressClass::Loopback);
        assert_eq!(v4("10.0.0.1"), AddressClass::Private);
        assert_eq!(v4("10.255.255.255"), AddressClass::Private);
        assert_eq!(v4("11.0.0.1"), AddressClass::Public);
        assert_eq!(v4("172.15.255.255"), AddressClass::Public);
        assert_eq!(v4("172.16.0.1"), AddressClass::Private);
        assert_eq!(v4("172.31.255.255"), AddressClass::Private);
        assert_eq!(v4("172.32.0.0"), AddressClass::Public);
        assert_eq!(v4("192.168.1.1"), AddressClass::Private);
        assert_eq!(v4("192.169.0.1"), AddressClass::Public);
        assert_eq!(v4("169.254.169.254"), AddressClass::LinkLocal);
        assert_eq!(v4("100.64.0.1"), AddressClass::SharedAddressSpace);
        assert_eq!(v4("100.128.0.1"), AddressClass::Public);
        assert_eq!(v4("0.0.0.0"), AddressClass::Unspecified);
        assert_eq!(v4("224.0.0.1"), AddressClass::Multicast);
        assert_eq!(v4("255.255.255.255"), AddressClass::Multicast);
        assert_eq!(v4("8.8.8.8"), AddressClass::Public);
    }

    #[test]
    fn ipv6_ranges() {
        assert_eq!(v6("::1"), AddressClass::Loopback);
        assert_eq!(v6("::"), AddressClass::Unspecified);
        assert_eq!(v6("fe80::1"), AddressClass::LinkLocal);
        assert_eq!(v6("febf::1"), AddressClass::LinkLocal);
        assert_eq!(v6("fec0::1"), AddressClass::Private);
        assert_eq!(v6("fc00::1"), AddressClass::UniqueLocal);
        assert_eq!(v6("fdff::1"), AddressClass::UniqueLocal);
        assert_eq!(v6("fe00::1"), AddressClass::Public);
        assert_eq!(v6("ff02::1"), AddressClass::Multicast);
        assert_eq!(v6("2001:db8::1"), AddressClass::Public);
        assert_eq!(v6("::ffff:127.0.0.1"), AddressClass::Loopback);
        assert_eq!(v6("::ffff:10.1.2.3"), AddressClass::Private);
        assert_eq!(v6("::ffff:8.8.8.8"), AddressClass::Public);
        assert_eq!(v6("::127.0.0.1"), AddressClass::Loopback);
        assert_eq!(v6("64:ff9b::192.168.0.1"), AddressClass::Private);
    }

    #[test]
    fn localhost_names() {
        assert_eq!(classify_domain("localhost"), AddressClass::LocalhostName);
        assert_eq!(
            classify_domain("api.localhost"),
            AddressClass::LocalhostName
        );
        assert_eq!(
            classify_domain("localhost.example.com"),
            AddressClass::Public
        );
        assert_eq!(classify_domain("notlocalhost"), AddressClass::Public);
    }
}
