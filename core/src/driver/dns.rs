//! Name resolution with the card's address rules applied to the answers (DNS rebinding).
//!
//! The card rules ([`crate::card`]) refuse an interface URL that names a loopback,
//! private, link-local, unique-local or unspecified address when the card came from a
//! public host and the caller did not allow that host. A host *name* passes those rules,
//! so a public name that resolves to `127.0.0.1` or `169.254.169.254` would too. This
//! resolver closes that gap: for the interface host of a card-resolved target, every
//! resolved address is checked before connecting, and the internal ones are refused
//! exactly where the card rules would refuse that literal address in that card:
//! - the card counts as internal (an intranet card: everything allowed) when its URL names
//!   an internal host, or when every address its host resolved to when it was fetched is
//!   internal;
//! - a host the caller allows (`allow_hosts`, `--allow-host`) is not checked (neither as
//!   the interface nor as the card's host);
//! - a target the caller named directly (no card: `Client::with_target`, `--no-card`) is
//!   not checked, nor is a card fetch from an all-internal host (the caller chose it);
//! - behind a proxy the proxy resolves the name, so the check is the proxy's.
//!
//! Refused addresses are skipped; when none is left the call fails before connecting with
//! a `transport`/`AddressRefused` outcome (`request_sent = no`, retry `never`).
//!
//! A card host that answers both public and internal addresses is a public host: its
//! internal addresses are skipped for the card fetch as well (so the card, and the pooled
//! connection the first calls reuse, never come from one). The check runs when a
//! connection is made: calls reusing a pooled connection go where it already leads.
//!
//! Answers come from the system (ureq's resolver), from `ClientConfig::resolve` (curl's
//! `--resolve HOST:PORT:ADDR[,ADDR...]`), or from an injected [`Resolve`].

use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex};

use ureq::config::Config;
use ureq::http::Uri;
use ureq::unversioned::resolver::{DefaultResolver, ResolvedSocketAddrs, Resolver};
use ureq::unversioned::transport::NextTimeout;

use crate::card::{AddressClass, classify_ip};
use crate::outcome::{ErrorName, Outcome, RequestSent, RetryAdvice};

/// A name resolver the caller provides instead of the system's (service discovery, tests).
pub trait Resolve: Send + Sync {
    /// The addresses of `host` (a name, never an IP literal) for `port`; an empty list or
    /// an error means the name does not resolve.
    fn resolve(&self, host: &str, port: u16) -> std::io::Result<Vec<IpAddr>>;
}

impl<F> Resolve for F
where
    F: Fn(&str, u16) -> std::io::Result<Vec<IpAddr>> + Send + Sync,
{
    fn resolve(&self, host: &str, port: u16) -> std::io::Result<Vec<IpAddr>> {
        self(host, port)
    }
}

/// One `--resolve` entry.
#[derive(Debug, Clone)]
struct Fixed {
    host: String,
    /// `None` for any port (`*`).
    port: Option<u16>,
    addrs: Vec<IpAddr>,
}

/// Parses `HOST:PORT:ADDR[,ADDR...]` (IPv6 addresses in brackets or bare).
fn parse_fixed(entry: &str) -> Result<Fixed, String> {
    let bad = |why: &str| format!("--resolve {entry:?}: {why} (expected HOST:PORT:ADDR[,ADDR...])");
    let (host, rest) = entry.split_once(':').ok_or_else(|| bad("no port"))?;
    let (port, addrs) = rest.split_once(':').ok_or_else(|| bad("no address"))?;
    let host = host.trim_start_matches('[').trim_end_matches(']');
    if host.is_empty() {
        return Err(bad("no host"));
    }
    let port = match port {
        "*" => None,
        p => Some(
            p.parse::<u16>()
                .map_err(|_| bad("the port is not a number"))?,
        ),
    };
    let mut list = Vec::new();
    for a in addrs.split(',').map(str::trim) {
        let a = a.trim_start_matches('[').trim_end_matches(']');
        list.push(
            a.parse::<IpAddr>()
                .map_err(|_| bad(&format!("{a:?} is not an IP address")))?,
        );
    }
    Ok(Fixed {
        host: host.trim_end_matches('.').to_ascii_lowercase(),
        port,
        addrs: list,
    })
}

/// What the resolver checks, set by card resolution.
#[derive(Debug, Default)]
struct GuardState {
    /// The card's host while the card is fetched.
    card_host: Option<String>,
    /// Whether every address the card's host resolved to was internal.
    card_resolved_internal: bool,
    /// The interface host whose answers are checked (the card is public).
    checked_host: Option<String>,
}

/// The per-client switch between card resolution and the resolver.
#[derive(Debug, Clone, Default)]
pub(crate) struct Guard(Arc<Mutex<GuardState>>);

impl Guard {
    fn state(&self) -> std::sync::MutexGuard<'_, GuardState> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The card at `card_host` is about to be fetched: record its answers.
    pub(crate) fn begin_card(&self, card_host: &str) {
        let mut s = self.state();
        s.card_host = Some(norm(card_host));
        s.card_resolved_internal = false;
        s.checked_host = None;
    }

    /// The card resolved to an interface on `iface_host`: check that host's answers
    /// unless the card is internal (written or resolved) or the caller allows the host.
    pub(crate) fn finish_card(&self, card_class: AddressClass, iface_host: &str, allowed: bool) {
        let mut s = self.state();
        let card_internal = card_class.is_internal() || s.card_resolved_internal;
        s.card_host = None;
        let literal = iface_host
            .trim_start_matches('[')
            .trim_end_matches(']')
            .parse::<IpAddr>()
            .is_ok();
        s.checked_host = (!card_internal && !allowed && !literal).then(|| norm(iface_host));
    }
}

fn norm(host: &str) -> String {
    host.trim_start_matches('[')
        .trim_end_matches(']')
        .trim_end_matches('.')
        .to_ascii_lowercase()
}

/// The error a refused resolution travels in (inside ureq's I/O error).
#[derive(Debug)]
pub(crate) struct Refused {
    host: String,
    addrs: Vec<(IpAddr, AddressClass)>,
}

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let list: Vec<String> = self
            .addrs
            .iter()
            .map(|(a, c)| format!("{a} ({c})"))
            .collect();
        write!(
            f,
            "not connected: {} resolved only to {}, refused for an agent whose card came from a public host (DNS rebinding)",
            self.host,
            list.join(", ")
        )
    }
}

impl std::error::Error for Refused {}

impl Refused {
    /// The outcome of the refusal.
    pub(crate) fn outcome(&self) -> Outcome {
        let mut o =
            Outcome::transport(ErrorName::AddressRefused, RequestSent::No, self.to_string());
        o.reason = Some(
            self.addrs
                .first()
                .map_or("internal", |(_, c)| c.as_str())
                .to_owned(),
        );
        o.hint = Some(format!(
            "if {} really is an internal agent you trust, allow it with --allow-host {} (ClientConfig::allow_hosts)",
            self.host, self.host
        ));
        o.retry = RetryAdvice::Never;
        o
    }
}

/// The resolver of a client: fixed answers, the injected resolver or the system's, with
/// the guard applied.
pub(crate) struct Guarded {
    fixed: Vec<Fixed>,
    /// The hosts of `allow_hosts`: the caller vouches for them.
    allowed: Vec<String>,
    custom: Option<Arc<dyn Resolve>>,
    system: DefaultResolver,
    guard: Guard,
}

impl std::fmt::Debug for Guarded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Guarded")
            .field("fixed", &self.fixed)
            .field("custom", &self.custom.is_some())
            .finish()
    }
}

impl Guarded {
    /// The resolver for `resolve` entries and an optional injected resolver.
    pub(crate) fn new(
        resolve: &[String],
        allow_hosts: &[String],
        custom: Option<Arc<dyn Resolve>>,
        guard: Guard,
    ) -> Result<Guarded, String> {
        Ok(Guarded {
            allowed: allow_hosts
                .iter()
                .map(|h| {
                    let rest = h.split_once("://").map_or(h.as_str(), |(_, r)| r);
                    norm(super::proxy::host_of(rest))
                })
                .collect(),
            fixed: resolve
                .iter()
                .map(|e| parse_fixed(e))
                .collect::<Result<_, _>>()?,
            custom,
            system: DefaultResolver::default(),
            guard,
        })
    }

    fn answers(
        &self,
        uri: &Uri,
        host: &str,
        port: u16,
        config: &Config,
        timeout: NextTimeout,
    ) -> Result<Vec<SocketAddr>, ureq::Error> {
        let name = norm(host);
        if let Some(f) = self
            .fixed
            .iter()
            .find(|f| f.host == name && f.port.is_none_or(|p| p == port))
        {
            return Ok(f.addrs.iter().map(|a| SocketAddr::new(*a, port)).collect());
        }
        if name.parse::<IpAddr>().is_err()
            && let Some(custom) = &self.custom
        {
            let addrs = custom.resolve(&name, port).map_err(ureq::Error::Io)?;
            return Ok(addrs
                .into_iter()
                .map(|a| SocketAddr::new(a, port))
                .collect());
        }
        Ok(self.system.resolve(uri, config, timeout)?.to_vec())
    }
}

impl Resolver for Guarded {
    fn resolve(
        &self,
        uri: &Uri,
        config: &Config,
        timeout: NextTimeout,
    ) -> Result<ResolvedSocketAddrs, ureq::Error> {
        let host = uri.host().ok_or(ureq::Error::HostNotFound)?;
        let port = uri.port_u16().unwrap_or_else(|| {
            if uri.scheme_str() == Some("http") {
                80
            } else {
                443
            }
        });
        let addrs = self.answers(uri, host, port, config, timeout)?;
        let name = norm(host);
        let mut kept = self.empty();
        let mut refused = Vec::new();
        {
            let mut s = self.guard.state();
            let mut checked = s.checked_host.as_deref() == Some(name.as_str());
            if s.card_host.as_deref() == Some(name.as_str()) && !addrs.is_empty() {
                let all_internal = addrs.iter().all(|a| classify_ip(a.ip()).is_internal());
                s.card_resolved_internal = all_internal;
                // A host with a public address is a public host: its internal answers are
                // refused for the card fetch too, so the card (and the pooled connection
                // the first calls reuse) never comes from one.
                checked |= !all_internal && !self.allowed.contains(&name);
            }
            for a in addrs {
                let class = classify_ip(a.ip());
                if checked && class.is_internal() {
                    refused.push((a.ip(), class));
                } else {
                    // More answers than ureq keeps (16) are dropped, as ureq does.
                    let _ = kept.try_push(a);
                }
            }
        }
        if kept.is_empty() {
            if refused.is_empty() {
                return Err(ureq::Error::HostNotFound);
            }
            return Err(ureq::Error::Io(std::io::Error::other(Refused {
                host: name,
                addrs: refused,
            })));
        }
        Ok(kept)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resolver(answers: Vec<IpAddr>) -> (Guarded, Guard) {
        let guard = Guard::default();
        let custom: Arc<dyn Resolve> = Arc::new(move |_: &str, _: u16| Ok(answers.clone()));
        (
            Guarded::new(&[], &[], Some(custom), guard.clone()).unwrap(),
            guard,
        )
    }

    fn run(r: &Guarded, url: &str) -> Result<Vec<SocketAddr>, ureq::Error> {
        let uri: Uri = url.parse().unwrap();
        let config = ureq::Agent::config_builder().build();
        r.resolve(&uri, &config, NextTimeout::default())
            .map(|v| v.to_vec())
    }

    #[test]
    fn fixed_entries_parse_and_refuse_garbage() {
        let f = parse_fixed("Agent.Example:443:127.0.0.1,[::1]").unwrap();
        assert_eq!(f.host, "agent.example");
        assert_eq!(f.port, Some(443));
        assert_eq!(f.addrs.len(), 2);
        assert_eq!(parse_fixed("a:*:10.0.0.1").unwrap().port, None);
        assert!(parse_fixed("a:443").is_err());
        assert!(parse_fixed("a:x:1.2.3.4").is_err());
        assert!(parse_fixed("a:1:not-ip").is_err());
    }

    #[test]
    fn public_card_rebinding_to_internal_is_refused() {
        let (r, guard) = resolver(vec!["127.0.0.1".parse().unwrap()]);
        guard.begin_card("agent.example");
        // The card was fetched through a proxy (no local answer): public as written.
        guard.finish_card(AddressClass::Public, "agent.example", false);
        let e = run(&r, "https://agent.example/rpc").unwrap_err();
        let ureq::Error::Io(io) = e else {
            panic!("{e:?}")
        };
        let refused = io.get_ref().unwrap().downcast_ref::<Refused>().unwrap();
        let o = refused.outcome();
        assert_eq!(o.error, Some(ErrorName::AddressRefused));
        assert_eq!(o.reason.as_deref(), Some("loopback"));
        assert_eq!(o.request_sent, Some(RequestSent::No));
        assert!(o.hint.unwrap().contains("--allow-host agent.example"));
    }

    #[test]
    fn mixed_answers_keep_only_public_addresses() {
        let (r, guard) = resolver(vec![
            "169.254.169.254".parse().unwrap(),
            "8.8.8.8".parse().unwrap(),
        ]);
        guard.begin_card("agent.example");
        guard.finish_card(AddressClass::Public, "agent.example", false);
        let kept = run(&r, "https://agent.example:8443/").unwrap();
        assert_eq!(kept, vec!["8.8.8.8:8443".parse::<SocketAddr>().unwrap()]);
    }

    #[test]
    fn intranet_cards_allowed_hosts_and_direct_targets_pass() {
        // The card's own host resolved to private addresses: an intranet card.
        let (r, guard) = resolver(vec!["10.1.2.3".parse().unwrap()]);
        guard.begin_card("agent.corp");
        run(&r, "https://agent.corp/.well-known/agent-card.json").unwrap();
        guard.finish_card(AddressClass::Public, "agent.corp", false);
        assert_eq!(run(&r, "https://agent.corp/").unwrap().len(), 1);
        // The caller allowed the host.
        let (r, guard) = resolver(vec!["127.0.0.1".parse().unwrap()]);
        guard.finish_card(AddressClass::Public, "agent.example", true);
        assert_eq!(run(&r, "https://agent.example/").unwrap().len(), 1);
        // No card at all.
        let (r, _) = resolver(vec!["127.0.0.1".parse().unwrap()]);
        assert_eq!(run(&r, "https://agent.example/").unwrap().len(), 1);
        // Another host (the proxy's, say) is not the interface host.
        let (r, guard) = resolver(vec!["10.0.0.1".parse().unwrap()]);
        guard.finish_card(AddressClass::Public, "agent.example", false);
        assert_eq!(run(&r, "http://proxy.corp:3128/").unwrap().len(), 1);
    }

    #[test]
    fn a_card_with_any_public_answer_is_public() {
        let (r, guard) = resolver(vec![
            "127.0.0.1".parse().unwrap(),
            "8.8.8.8".parse().unwrap(),
        ]);
        guard.begin_card("agent.example");
        // The card fetch itself skips the internal answer of a public host.
        assert_eq!(
            run(&r, "https://agent.example/").unwrap(),
            vec!["8.8.8.8:443".parse::<SocketAddr>().unwrap()]
        );
        guard.finish_card(AddressClass::Public, "agent.example", false);
        assert_eq!(run(&r, "https://agent.example/").unwrap().len(), 1);
    }
}
