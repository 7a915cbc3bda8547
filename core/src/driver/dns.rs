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
//! The rules are kept per host, so one client's transport serves several agents: the Rust
//! driver's card resolution and `a2a_call_run` (a card fetch machine run on the transport,
//! [`super::Client::begin_rebinding_check`] and [`super::Client::finish_rebinding_check`])
//! set them alike; a card served fresh from a cache carries its host's finding from when
//! it was fetched.
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
//!
//! # No name resolution for a reused connection
//! ureq (3.5) asks the resolver before every request, before it looks in its pool, and its
//! system resolver runs each lookup on a new thread whenever the call has a timeout (every
//! call of this driver has one). A call that reuses a pooled connection never uses the
//! answer, so this resolver keeps the per-call cost to what a reused connection needs:
//! - an IP literal is its own answer: no lookup, no thread;
//! - a name's last answer (from the system or the injected resolver, per host and port) is
//!   reused for as long as a connection made from it may still be pooled
//!   (`ClientConfig::pool_idle_timeout`, 3 s by default), then looked up again. A new
//!   connection inside that window (a second concurrent call, a connection the server
//!   closed) goes to an address at most that old, which is no staler than the pooled
//!   connections the same calls would otherwise reuse; a failed connect forgets the
//!   host's answer ([`Answers::forget`]), so a moved host is looked up again at once. A
//!   failed lookup is never kept.
//!
//! The reuse does not weaken the rebinding check: what is kept is the resolver's raw
//! answer, and the check above runs on it at every use, with the guard's state of that
//! moment. (A rebinding attack needs a *new* answer; keeping an old one longer only makes
//! it harder.) `--resolve` entries are fixed answers and are never looked up.

use std::collections::{HashMap, HashSet};
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use ureq::config::Config;
use ureq::http::Uri;
use ureq::unversioned::resolver::{DefaultResolver, ResolvedSocketAddrs, Resolver};
use ureq::unversioned::transport::NextTimeout;

use super::lock::Locked;
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

/// What the resolver checks, set by card resolution. Kept per host, so that one client
/// (one transport) may resolve the cards of several agents, one after another or at once.
#[derive(Debug, Default)]
struct GuardState {
    /// The hosts of the cards being fetched, each with whether every address it resolved
    /// to (so far) was internal.
    cards: HashMap<String, bool>,
    /// The interface hosts whose answers are checked (their card is public).
    checked: HashSet<String>,
}

/// The per-client switch between card resolution and the resolver.
#[derive(Debug, Clone, Default)]
pub(crate) struct Guard(Arc<Mutex<GuardState>>);

impl Guard {
    fn state(&self) -> std::sync::MutexGuard<'_, GuardState> {
        self.0.locked()
    }

    /// The card at `card_host` is about to be fetched: record its answers.
    pub(crate) fn begin_card(&self, card_host: &str) {
        self.state().cards.insert(norm(card_host), false);
    }

    /// The card at `card_host` comes from the cache (no fetch, no lookup now): what its
    /// host's lookup found when it was fetched (`resolved_internal`) stands in.
    pub(crate) fn begin_cached_card(&self, card_host: &str, resolved_internal: bool) {
        self.state()
            .cards
            .insert(norm(card_host), resolved_internal);
    }

    /// A fetch of the card at `card_host` ended without a card: its answers are no longer
    /// recorded.
    pub(crate) fn forget_card(&self, card_host: &str) {
        self.state().cards.remove(&norm(card_host));
    }

    /// Whether every address `card_host` resolved to was internal (during its fetch).
    pub(crate) fn card_resolved_internal(&self, card_host: &str) -> bool {
        self.state()
            .cards
            .get(&norm(card_host))
            .copied()
            .unwrap_or(false)
    }

    /// The card from `card_host` resolved to an interface on `iface_host`: check that
    /// host's answers unless the card is internal (written or resolved) or the caller
    /// allows the host (a host another card resolved to before follows the newest card).
    pub(crate) fn finish_card(
        &self,
        card_host: &str,
        card_class: AddressClass,
        iface_host: &str,
        allowed: bool,
    ) {
        let mut s = self.state();
        let resolved_internal = s.cards.remove(&norm(card_host)).unwrap_or(false);
        let card_internal = card_class.is_internal() || resolved_internal;
        let literal = iface_host
            .trim_start_matches('[')
            .trim_end_matches(']')
            .parse::<IpAddr>()
            .is_ok();
        let host = norm(iface_host);
        if !card_internal && !allowed && !literal {
            s.checked.insert(host);
        } else {
            s.checked.remove(&host);
        }
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
        let reason = self.addrs.first().map_or("internal", |(_, c)| c.as_str());
        Outcome::transport(ErrorName::AddressRefused, RequestSent::No, self.to_string())
            .with_reason(reason.to_owned())
            .with_hint(format!(
                "if {} really is an internal agent you trust, allow it with --allow-host {} (ClientConfig::allow_hosts)",
                self.host, self.host
            ))
            .with_retry(RetryAdvice::Never)
    }
}

/// How many hosts' answers a client keeps (a client talks to its card host, its interface
/// host and perhaps a proxy).
const ANSWERS_KEPT: usize = 8;

/// One kept answer.
#[derive(Debug)]
struct Kept {
    host: String,
    port: u16,
    addrs: Vec<SocketAddr>,
    /// When it was looked up.
    at: Instant,
}

/// The last answer per host and port, reused while a connection made from it may still be
/// pooled (see the module docs). Shared by the resolver and the connector (which forgets
/// a host whose connect failed).
#[derive(Debug)]
pub(crate) struct Answers {
    /// How long an answer is reused: the pool's idle limit.
    ttl: Duration,
    kept: Mutex<Vec<Kept>>,
}

impl Answers {
    /// Answers reused for `ttl` (`ClientConfig::pool_idle_timeout`; zero keeps none).
    pub(crate) fn new(ttl: Duration) -> Arc<Answers> {
        Arc::new(Answers {
            ttl,
            kept: Mutex::new(Vec::new()),
        })
    }

    fn kept(&self) -> std::sync::MutexGuard<'_, Vec<Kept>> {
        self.kept.locked()
    }

    /// The answer for `host` (normalized) and `port` looked up less than `ttl` ago.
    fn get(&self, host: &str, port: u16, now: Instant) -> Option<Vec<SocketAddr>> {
        self.kept()
            .iter()
            .find(|k| k.host == host && k.port == port && now.duration_since(k.at) < self.ttl)
            .map(|k| k.addrs.clone())
    }

    /// Keeps a fresh answer (replacing the host's older one, else the oldest entry when
    /// full).
    fn put(&self, host: &str, port: u16, addrs: &[SocketAddr], now: Instant) {
        if self.ttl.is_zero() || addrs.is_empty() {
            return;
        }
        let mut kept = self.kept();
        kept.retain(|k| !(k.host == host && k.port == port));
        if kept.len() >= ANSWERS_KEPT {
            kept.remove(0);
        }
        kept.push(Kept {
            host: host.to_owned(),
            port,
            addrs: addrs.to_vec(),
            at: now,
        });
    }

    /// Forgets the answers for the host of `uri` (a connect to it failed): the next
    /// connection looks it up again.
    pub(crate) fn forget(&self, uri: &Uri) {
        let Some(host) = uri.host() else { return };
        self.forget_host(host);
    }

    /// Forgets the answers for `host` (the plain fast path's connect to it failed).
    pub(crate) fn forget_host(&self, host: &str) {
        let host = norm(host);
        self.kept().retain(|k| k.host != host);
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
    /// The answers reused while their connections may be pooled.
    answers: Arc<Answers>,
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
        answers: Arc<Answers>,
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
            answers,
        })
    }

    fn answers(
        &self,
        uri: Option<&Uri>,
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
        // An IP literal is its own answer (ureq's resolver would spend a thread on it).
        if let Ok(ip) = name.parse::<IpAddr>() {
            let addr = SocketAddr::new(ip, port);
            return Ok(config
                .ip_family()
                .keep_wanted(std::iter::once(addr))
                .collect());
        }
        let now = Instant::now();
        if let Some(addrs) = self.answers.get(&name, port, now) {
            return Ok(addrs);
        }
        let addrs = match &self.custom {
            Some(custom) => custom
                .resolve(&name, port)
                .map_err(ureq::Error::Io)?
                .into_iter()
                .map(|a| SocketAddr::new(a, port))
                .collect(),
            None => match uri {
                Some(uri) => self.system.resolve(uri, config, timeout)?.to_vec(),
                None => {
                    let uri: Uri = format!("http://{host}:{port}/")
                        .parse()
                        .map_err(|_| ureq::Error::HostNotFound)?;
                    self.system.resolve(&uri, config, timeout)?.to_vec()
                }
            },
        };
        self.answers.put(&name, port, &addrs, now);
        Ok(addrs)
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
        self.guarded(Some(uri), host, port, config, timeout)
    }
}

impl Guarded {
    /// [`Resolver::resolve`] for a host and port (the plain fast path's, which has no
    /// `Uri`): the same answers, kept answers and guard.
    pub(crate) fn resolve_host(
        &self,
        host: &str,
        port: u16,
        config: &Config,
        timeout: NextTimeout,
    ) -> Result<ResolvedSocketAddrs, ureq::Error> {
        self.guarded(None, host, port, config, timeout)
    }

    fn guarded(
        &self,
        uri: Option<&Uri>,
        host: &str,
        port: u16,
        config: &Config,
        timeout: NextTimeout,
    ) -> Result<ResolvedSocketAddrs, ureq::Error> {
        let addrs = self.answers(uri, host, port, config, timeout)?;
        let name = norm(host);
        let mut kept = self.empty();
        let mut refused = Vec::new();
        {
            let mut s = self.guard.state();
            let mut checked = s.checked.contains(&name);
            if let Some(card_internal) = s.cards.get_mut(&name)
                && !addrs.is_empty()
            {
                let all_internal = addrs.iter().all(|a| classify_ip(a.ip()).is_internal());
                *card_internal = all_internal;
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
            Guarded::new(
                &[],
                &[],
                Some(custom),
                guard.clone(),
                Answers::new(Duration::ZERO),
            )
            .unwrap(),
            guard,
        )
    }

    /// A resolver whose injected lookups are counted, keeping answers for `ttl`; the answer
    /// is whatever `answer` holds at the time of the lookup.
    fn counted(
        ttl: Duration,
        answer: Arc<Mutex<Vec<IpAddr>>>,
    ) -> (
        Guarded,
        Guard,
        Arc<Answers>,
        Arc<std::sync::atomic::AtomicUsize>,
    ) {
        let guard = Guard::default();
        let count = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let seen = Arc::clone(&count);
        let custom: Arc<dyn Resolve> = Arc::new(move |_: &str, _: u16| {
            seen.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            Ok(answer.lock().unwrap().clone())
        });
        let answers = Answers::new(ttl);
        (
            Guarded::new(&[], &[], Some(custom), guard.clone(), Arc::clone(&answers)).unwrap(),
            guard,
            answers,
            count,
        )
    }

    fn lookups(count: &std::sync::atomic::AtomicUsize) -> usize {
        count.load(std::sync::atomic::Ordering::SeqCst)
    }

    #[test]
    fn ip_literals_are_never_looked_up() {
        let answer = Arc::new(Mutex::new(vec!["10.9.9.9".parse().unwrap()]));
        let (r, _, _, count) = counted(Duration::from_secs(3), answer);
        for _ in 0..3 {
            assert_eq!(
                run(&r, "http://127.0.0.1:8080/").unwrap(),
                vec!["127.0.0.1:8080".parse::<SocketAddr>().unwrap()]
            );
            assert_eq!(
                run(&r, "https://[::1]/").unwrap(),
                vec!["[::1]:443".parse::<SocketAddr>().unwrap()]
            );
        }
        assert_eq!(lookups(&count), 0);
    }

    #[test]
    fn a_name_is_looked_up_once_while_its_answer_may_be_pooled() {
        let answer = Arc::new(Mutex::new(vec!["8.8.8.8".parse().unwrap()]));
        let (r, _, answers, count) = counted(Duration::from_secs(3600), Arc::clone(&answer));
        for _ in 0..5 {
            assert_eq!(
                run(&r, "https://agent.example/rpc").unwrap(),
                vec!["8.8.8.8:443".parse::<SocketAddr>().unwrap()]
            );
        }
        assert_eq!(lookups(&count), 1, "answer reused");
        // Another port and another host are other answers.
        run(&r, "https://agent.example:8443/").unwrap();
        run(&r, "https://Other.Example./").unwrap();
        assert_eq!(lookups(&count), 3);
        run(&r, "https://other.example/").unwrap();
        assert_eq!(lookups(&count), 3, "names are compared normalized");
        // A failed connect forgets the host: the next call looks it up again.
        *answer.lock().unwrap() = vec!["9.9.9.9".parse().unwrap()];
        answers.forget(&"https://agent.example/".parse().unwrap());
        assert_eq!(
            run(&r, "https://agent.example/").unwrap(),
            vec!["9.9.9.9:443".parse::<SocketAddr>().unwrap()]
        );
        assert_eq!(lookups(&count), 4);
    }

    #[test]
    fn answers_expire_with_the_pool_and_failures_are_not_kept() {
        // Zero: no connection outlives its call, so every call looks the name up.
        let answer = Arc::new(Mutex::new(vec!["8.8.8.8".parse().unwrap()]));
        let (r, _, _, count) = counted(Duration::ZERO, Arc::clone(&answer));
        run(&r, "https://agent.example/").unwrap();
        run(&r, "https://agent.example/").unwrap();
        assert_eq!(lookups(&count), 2);
        // An answer older than the pool's idle limit is looked up again.
        let (r, _, answers, count) = counted(Duration::from_millis(1), Arc::clone(&answer));
        run(&r, "https://agent.example/").unwrap();
        let later = Instant::now() + Duration::from_millis(2);
        assert!(answers.get("agent.example", 443, later).is_none());
        // An empty answer (the name does not resolve) is not kept.
        let empty = Arc::new(Mutex::new(Vec::new()));
        let (r, _, _, count2) = counted(Duration::from_secs(3600), empty);
        assert!(matches!(
            run(&r, "https://agent.example/"),
            Err(ureq::Error::HostNotFound)
        ));
        assert!(run(&r, "https://agent.example/").is_err());
        assert_eq!(lookups(&count2), 2);
        assert_eq!(lookups(&count), 1);
    }

    #[test]
    fn a_kept_answer_is_checked_again_at_every_use() {
        let answer = Arc::new(Mutex::new(vec!["127.0.0.1".parse().unwrap()]));
        let (r, guard, _, count) = counted(Duration::from_secs(3600), answer);
        // No card yet: the loopback answer passes, and is kept.
        assert_eq!(run(&r, "https://agent.example/").unwrap().len(), 1);
        // A public card now names the host: the kept answer is refused.
        guard.begin_card("card.example");
        guard.finish_card("card.example", AddressClass::Public, "agent.example", false);
        let e = run(&r, "https://agent.example/").unwrap_err();
        assert!(matches!(e, ureq::Error::Io(_)), "{e:?}");
        assert_eq!(lookups(&count), 1);
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
        guard.finish_card(
            "agent.example",
            AddressClass::Public,
            "agent.example",
            false,
        );
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
        guard.finish_card(
            "agent.example",
            AddressClass::Public,
            "agent.example",
            false,
        );
        let kept = run(&r, "https://agent.example:8443/").unwrap();
        assert_eq!(kept, vec!["8.8.8.8:8443".parse::<SocketAddr>().unwrap()]);
    }

    #[test]
    fn intranet_cards_allowed_hosts_and_direct_targets_pass() {
        // The card's own host resolved to private addresses: an intranet card.
        let (r, guard) = resolver(vec!["10.1.2.3".parse().unwrap()]);
        guard.begin_card("agent.corp");
        run(&r, "https://agent.corp/.well-known/agent-card.json").unwrap();
        guard.finish_card("agent.corp", AddressClass::Public, "agent.corp", false);
        assert_eq!(run(&r, "https://agent.corp/").unwrap().len(), 1);
        // The caller allowed the host.
        let (r, guard) = resolver(vec!["127.0.0.1".parse().unwrap()]);
        guard.finish_card("card.example", AddressClass::Public, "agent.example", true);
        assert_eq!(run(&r, "https://agent.example/").unwrap().len(), 1);
        // No card at all.
        let (r, _) = resolver(vec!["127.0.0.1".parse().unwrap()]);
        assert_eq!(run(&r, "https://agent.example/").unwrap().len(), 1);
        // Another host (the proxy's, say) is not the interface host.
        let (r, guard) = resolver(vec!["10.0.0.1".parse().unwrap()]);
        guard.finish_card("card.example", AddressClass::Public, "agent.example", false);
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
        guard.finish_card(
            "agent.example",
            AddressClass::Public,
            "agent.example",
            false,
        );
        assert_eq!(run(&r, "https://agent.example/").unwrap().len(), 1);
    }

    #[test]
    fn one_guard_keeps_the_rule_of_each_agent_it_resolved() {
        // One transport shared by two agents (a2a_call_run): a public card's interface
        // stays checked after an intranet card resolves on the same client, and the
        // intranet agent's interface is not checked.
        let answer = |host: &str, _: u16| -> std::io::Result<Vec<IpAddr>> {
            Ok(vec![if host.ends_with(".corp") {
                "10.0.0.7".parse().unwrap()
            } else {
                "127.0.0.1".parse().unwrap()
            }])
        };
        let guard = Guard::default();
        let r = Guarded::new(
            &[],
            &[],
            Some(Arc::new(answer)),
            guard.clone(),
            Answers::new(Duration::ZERO),
        )
        .unwrap();
        guard.begin_card("public.example");
        guard.begin_card("cards.corp");
        // The intranet card's host resolves internal while it is fetched.
        run(&r, "https://cards.corp/.well-known/agent-card.json").unwrap();
        guard.finish_card(
            "public.example",
            AddressClass::Public,
            "agent.example",
            false,
        );
        guard.finish_card("cards.corp", AddressClass::Public, "agent.corp", false);
        assert!(
            run(&r, "https://agent.example/").is_err(),
            "the public card's rule holds"
        );
        assert_eq!(run(&r, "https://agent.corp/").unwrap().len(), 1);
        assert!(
            !guard.card_resolved_internal("cards.corp"),
            "finished: forgotten"
        );
    }
}
