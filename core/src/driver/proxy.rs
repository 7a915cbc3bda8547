//! Which proxy a URL goes through, with curl's rules, and what a proxy failure means.
//!
//! - `ClientConfig::proxy` (curl's `--proxy`) applies to every URL; `Some("")` turns
//!   proxies off. Otherwise the environment, read when the client is built: for `https`
//!   URLs `https_proxy`, then `HTTPS_PROXY`; for `http` URLs `http_proxy` only (lowercase,
//!   as curl: a CGI program receives a request's `Proxy:` header as `HTTP_PROXY`); then
//!   `all_proxy`, then `ALL_PROXY`. An empty variable counts as unset.
//! - `ClientConfig::no_proxy` (curl's `--noproxy`), otherwise `no_proxy`, then `NO_PROXY`:
//!   comma-separated; `*` alone matches every host; a name matches itself and every name
//!   under it (a leading dot is ignored: `.corp.example` and `corp.example` both match
//!   `corp.example` and `a.corp.example`); an IP address matches itself and a CIDR range
//!   (`10.0.0.0/8`) the addresses in it. Case-insensitive; ports are not part of a match.
//! - The tunnel is ureq's CONNECT connector (`http://` proxy, or `https://` for TLS to the
//!   proxy), with `Proxy-Authorization: Basic` from the proxy URL's percent-encoded
//!   `user:password`. Every URL goes through the tunnel, plain `http` ones too (curl sends
//!   those in absolute form unless `--proxytunnel`; a proxy that only allows CONNECT to
//!   port 443 refuses them, which is reported as such). SOCKS proxies are not supported.
//! - A 407 answer to CONNECT is a `transport`/`Proxy` outcome with reason
//!   `auth_required`; any other non-2xx answer has reason `connect_refused`. Both have
//!   `request_sent = no` and no `http_status` (that is the agent's field: an agent's own
//!   502 stays an `http` outcome). The connect timeout covers reaching the proxy and its
//!   CONNECT answer.
//! - Behind a proxy the target's name is resolved by the proxy, so the rebinding check of
//!   [`super::dns`] is the proxy's to make.

use std::net::IpAddr;

use ureq::Proxy;

use crate::outcome::{ErrorName, Outcome, RequestSent, RetryAdvice};

/// The proxies of one client, decided when it is built.
#[derive(Debug, Clone, Default)]
pub(crate) struct Proxies {
    /// For `https` URLs.
    https: Option<Proxy>,
    /// For `http` URLs.
    http: Option<Proxy>,
    /// Hosts reached directly.
    no_proxy: NoProxy,
}

impl Proxies {
    /// The proxies the client's `proxy` and `no_proxy` settings (`ClientConfig::proxy`,
    /// `ClientConfig::no_proxy`) ask for, reading the environment where they leave them open.
    pub(crate) fn from_settings(
        proxy: Option<&str>,
        no_proxy: Option<&str>,
    ) -> Result<Proxies, String> {
        Proxies::resolve(proxy, no_proxy, |name| std::env::var(name).ok())
    }

    /// As [`Proxies::from_settings`], with the environment given (for tests).
    pub(crate) fn resolve(
        proxy: Option<&str>,
        no_proxy: Option<&str>,
        env: impl Fn(&str) -> Option<String>,
    ) -> Result<Proxies, String> {
        let env = |name: &str| env(name).filter(|v| !v.trim().is_empty());
        let no_proxy = match no_proxy {
            Some(list) => NoProxy::parse(list),
            None => NoProxy::parse(
                &env("no_proxy")
                    .or_else(|| env("NO_PROXY"))
                    .unwrap_or_default(),
            ),
        };
        let (https, http) = match proxy {
            Some(p) if p.trim().is_empty() => (None, None),
            Some(p) => {
                let proxy = parse(p, "--proxy")?;
                (Some(proxy.clone()), Some(proxy))
            }
            None => {
                let all = || {
                    env("all_proxy")
                        .map(|v| ("all_proxy", v))
                        .or_else(|| env("ALL_PROXY").map(|v| ("ALL_PROXY", v)))
                };
                let https = env("https_proxy")
                    .map(|v| ("https_proxy", v))
                    .or_else(|| env("HTTPS_PROXY").map(|v| ("HTTPS_PROXY", v)))
                    .or_else(all);
                let http = env("http_proxy").map(|v| ("http_proxy", v)).or_else(all);
                (
                    https.map(|(n, v)| parse(&v, n)).transpose()?,
                    http.map(|(n, v)| parse(&v, n)).transpose()?,
                )
            }
        };
        Ok(Proxies {
            https,
            http,
            no_proxy,
        })
    }

    /// The proxy for `url`, or `None` to connect directly.
    pub(crate) fn for_url(&self, url: &str) -> Option<Proxy> {
        let (scheme, rest) = url.split_once("://")?;
        let proxy = if scheme.eq_ignore_ascii_case("https") {
            self.https.as_ref()
        } else if scheme.eq_ignore_ascii_case("http") {
            self.http.as_ref()
        } else {
            None
        }?;
        let host = host_of(rest);
        if self.no_proxy.matches(host) {
            return None;
        }
        Some(proxy.clone())
    }

    /// Whether any URL may go through a proxy.
    #[cfg(test)]
    pub(crate) fn any(&self) -> bool {
        self.https.is_some() || self.http.is_some()
    }
}

/// The host of the part of a URL after `scheme://`, without brackets or port.
pub(crate) fn host_of(rest: &str) -> &str {
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let hostport = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    if let Some(v6) = hostport.strip_prefix('[') {
        return v6.split(']').next().unwrap_or("");
    }
    hostport.split(':').next().unwrap_or("")
}

/// A proxy URL as ureq reads it, refusing what this driver cannot do.
fn parse(url: &str, origin: &str) -> Result<Proxy, String> {
    let url = url.trim();
    let scheme = url.split_once("://").map_or("http", |(s, _)| s);
    if !scheme.eq_ignore_ascii_case("http") && !scheme.eq_ignore_ascii_case("https") {
        return Err(format!(
            "{origin}: proxy {} uses {scheme}://, which this client does not support (http:// or https:// CONNECT proxies only)",
            redact(url)
        ));
    }
    Proxy::new(url).map_err(|e| format!("{origin}: proxy {}: {e}", redact(url)))
}

/// `url` with the password of its userinfo replaced by `***`, for messages and `Debug`.
pub(crate) fn redact(url: &str) -> String {
    let (prefix, rest) = match url.split_once("://") {
        Some((s, r)) => (format!("{s}://"), r),
        None => (String::new(), url),
    };
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(authority_end);
    match authority.rsplit_once('@') {
        Some((userinfo, host)) => {
            let user = userinfo.split(':').next().unwrap_or("");
            let masked = if userinfo.contains(':') {
                format!("{user}:***")
            } else {
                user.to_owned()
            };
            format!("{prefix}{masked}@{host}{tail}")
        }
        None => url.to_owned(),
    }
}

/// curl's no-proxy list.
#[derive(Debug, Clone, Default)]
struct NoProxy {
    all: bool,
    names: Vec<String>,
    nets: Vec<(IpAddr, u8)>,
}

impl NoProxy {
    fn parse(list: &str) -> NoProxy {
        let mut out = NoProxy::default();
        for entry in list.split(',').map(str::trim).filter(|e| !e.is_empty()) {
            if entry == "*" {
                out.all = true;
                continue;
            }
            let bare = entry.trim_start_matches('[').trim_end_matches(']');
            let (addr, bits) = match bare.split_once('/') {
                Some((a, b)) => (a, b.parse::<u8>().ok()),
                None => (bare, None),
            };
            if let Ok(ip) = addr.trim_end_matches(']').parse::<IpAddr>() {
                let max = if ip.is_ipv4() { 32 } else { 128 };
                out.nets.push((ip, bits.unwrap_or(max).min(max)));
                continue;
            }
            out.names.push(
                entry
                    .trim_start_matches('.')
                    .trim_end_matches('.')
                    .to_ascii_lowercase(),
            );
        }
        out
    }

    fn matches(&self, host: &str) -> bool {
        if self.all {
            return true;
        }
        if let Ok(ip) = host.parse::<IpAddr>() {
            return self.nets.iter().any(|&(net, bits)| in_net(ip, net, bits));
        }
        let host = host.trim_end_matches('.').to_ascii_lowercase();
        self.names.iter().any(|n| {
            host == *n
                || (host.len() > n.len()
                    && host.ends_with(n.as_str())
                    && host.as_bytes()[host.len() - n.len() - 1] == b'.')
        })
    }
}

fn in_net(ip: IpAddr, net: IpAddr, bits: u8) -> bool {
    match (ip, net) {
        (IpAddr::V4(a), IpAddr::V4(b)) => {
            let mask = if bits == 0 {
                0
            } else {
                u32::MAX << (32 - u32::from(bits))
            };
            u32::from(a) & mask == u32::from(b) & mask
        }
        (IpAddr::V6(a), IpAddr::V6(b)) => {
            let mask = if bits == 0 {
                0
            } else {
                u128::MAX << (128 - u32::from(bits))
            };
            u128::from(a) & mask == u128::from(b) & mask
        }
        _ => false,
    }
}

/// The outcome of a CONNECT the proxy answered with anything but 2xx (ureq reports it as
/// `proxy server responded CODE/TEXT`), or `None` when `message` is not such an answer.
pub(crate) fn refused_outcome(message: &str, proxy: Option<&Proxy>) -> Outcome {
    let status = message
        .split("responded ")
        .nth(1)
        .and_then(|s| s.split('/').next())
        .and_then(|s| s.trim().parse::<u16>().ok());
    let at = proxy
        .map(|p| format!(" {}:{}", p.host(), p.port()))
        .unwrap_or_default();
    let (reason, text, hint) = match status {
        Some(407) => (
            "auth_required",
            format!("the proxy{at} answered CONNECT with 407 (proxy authentication required)"),
            "the proxy wants credentials: put them in the proxy URL (http://user:password@host:port, percent-encoded) of --proxy or https_proxy",
        ),
        Some(code) => (
            "connect_refused",
            format!("the proxy{at} refused the tunnel: CONNECT answered {code}"),
            "the proxy does not allow a tunnel to this host and port: ask its operator, or list the host in --noproxy / no_proxy if it is reachable directly",
        ),
        None => (
            "connect_refused",
            format!("the proxy{at} did not complete the tunnel: {message}"),
            "the proxy closed the connection or answered something that is not HTTP: check the proxy URL",
        ),
    };
    let o = Outcome::transport(ErrorName::Proxy, RequestSent::No, text)
        .with_reason(reason.to_owned())
        .with_hint(hint.to_owned());
    if status == Some(407) {
        return o.with_retry(RetryAdvice::Reauthenticate);
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env_of(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let pairs: Vec<(String, String)> = pairs
            .iter()
            .map(|(a, b)| ((*a).to_owned(), (*b).to_owned()))
            .collect();
        move |n: &str| pairs.iter().find(|(k, _)| k == n).map(|(_, v)| v.clone())
    }

    /// The two settings as `ClientConfig` holds them.
    #[derive(Default)]
    struct Flags {
        proxy: Option<String>,
        no_proxy: Option<String>,
    }

    fn resolve(cfg: &Flags, env: impl Fn(&str) -> Option<String>) -> Result<Proxies, String> {
        Proxies::resolve(cfg.proxy.as_deref(), cfg.no_proxy.as_deref(), env)
    }

    fn host(p: Option<Proxy>) -> Option<String> {
        p.map(|p| format!("{}:{}", p.host(), p.port()))
    }

    #[test]
    fn curl_environment_precedence() {
        let cfg = Flags::default();
        let p = resolve(
            &cfg,
            env_of(&[
                ("https_proxy", "http://lower:1"),
                ("HTTPS_PROXY", "http://upper:2"),
                ("HTTP_PROXY", "http://cgi:3"),
                ("ALL_PROXY", "http://all:4"),
            ]),
        )
        .unwrap();
        assert_eq!(
            host(p.for_url("https://a.example/")),
            Some("lower:1".into())
        );
        // HTTP_PROXY (uppercase) is never read: all_proxy/ALL_PROXY apply instead.
        assert_eq!(host(p.for_url("http://a.example/")), Some("all:4".into()));
        let p = resolve(&cfg, env_of(&[("HTTPS_PROXY", "upper:2")])).unwrap();
        assert_eq!(
            host(p.for_url("https://a.example/")),
            Some("upper:2".into())
        );
        assert_eq!(host(p.for_url("http://a.example/")), None);
        let p = resolve(&cfg, env_of(&[("http_proxy", "http://h:5")])).unwrap();
        assert_eq!(host(p.for_url("https://a.example/")), None);
        assert_eq!(host(p.for_url("http://a.example/")), Some("h:5".into()));
        let p = resolve(&cfg, env_of(&[("https_proxy", "")])).unwrap();
        assert!(!p.any());
    }

    #[test]
    fn flag_overrides_environment_and_empty_turns_off() {
        let mut cfg = Flags {
            proxy: Some("http://flag:8".into()),
            ..Flags::default()
        };
        let p = resolve(&cfg, env_of(&[("https_proxy", "http://env:1")])).unwrap();
        assert_eq!(host(p.for_url("https://a.example/")), Some("flag:8".into()));
        assert_eq!(host(p.for_url("http://a.example/")), Some("flag:8".into()));
        cfg.proxy = Some(String::new());
        let p = resolve(&cfg, env_of(&[("https_proxy", "http://env:1")])).unwrap();
        assert!(!p.any());
    }

    #[test]
    fn no_proxy_matching_as_curl() {
        let mut cfg = Flags {
            proxy: Some("http://p:1".into()),
            no_proxy: Some(" .corp.example, localhost,10.0.0.0/8, ::1 ,192.168.1.7".into()),
        };
        let p = resolve(&cfg, env_of(&[("no_proxy", "*")])).unwrap();
        let direct = |u: &str| p.for_url(u).is_none();
        assert!(direct("https://corp.example/"));
        assert!(direct("https://a.b.CORP.example:8443/x"));
        assert!(!direct("https://notcorp.example/"));
        assert!(direct("http://localhost:80/"));
        assert!(direct("https://10.20.30.40/"));
        assert!(!direct("https://11.0.0.1/"));
        assert!(direct("https://[::1]:9/"));
        assert!(direct("https://192.168.1.7/"));
        assert!(!direct("https://192.168.1.8/"));
        assert!(!direct("https://user@example.com/"));
        // The flag replaced the environment's `*`.
        cfg.no_proxy = None;
        let p = resolve(&cfg, env_of(&[("NO_PROXY", "*")])).unwrap();
        assert!(p.for_url("https://anything.example/").is_none());
    }

    #[test]
    fn unsupported_and_redacted() {
        let cfg = Flags {
            proxy: Some("socks5://u:secret@p:1080".into()),
            ..Flags::default()
        };
        let e = resolve(&cfg, env_of(&[])).unwrap_err();
        assert!(e.contains("socks5://"), "{e}");
        assert!(!e.contains("secret"), "{e}");
        assert_eq!(
            redact("http://user:pa%40ss@proxy:3128/"),
            "http://user:***@proxy:3128/"
        );
        assert_eq!(redact("http://proxy:3128"), "http://proxy:3128");
    }

    #[test]
    fn refused_connect_outcomes() {
        let o = refused_outcome(
            "proxy server responded 407/Proxy Authentication Required",
            None,
        );
        assert_eq!(o.error, Some(ErrorName::Proxy));
        assert_eq!(o.reason.as_deref(), Some("auth_required"));
        assert_eq!(o.request_sent, Some(RequestSent::No));
        assert_eq!(o.http_status, None);
        let o = refused_outcome("proxy server responded 403/Forbidden", None);
        assert_eq!(o.reason.as_deref(), Some("connect_refused"));
        assert!(o.message.unwrap().contains("403"));
    }
}
