//! Real networks on loopback: TLS agents with a CA generated here (rcgen), one that requires
//! a client certificate, expired / not-yet-valid / wrong-name certificates, a CONNECT proxy
//! with and without credentials, and an injected resolver for DNS rebinding. Each option
//! is exercised through the library and the `a2a` command line. No real DNS, no network
//! beyond 127.0.0.1; every wait is bounded.
#![cfg(feature = "driver")]

use std::io::{Read, Write};
use std::net::{IpAddr, Shutdown, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use a2a_core::driver::{CallOptions, Client, ClientConfig, HttpRequest};
use a2a_core::outcome::{Channel, ErrorName, RequestSent, RetryAdvice};
use rcgen::{
    BasicConstraints, CertificateParams, DnType, ExtendedKeyUsagePurpose, IsCa, KeyPair,
    KeyUsagePurpose,
};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};

const WAIT: Duration = Duration::from_secs(10);

/// A test CA, and leaf certificates it signs, written as PEM files in a temp directory.
struct Pki {
    dir: PathBuf,
    ca: rcgen::Certificate,
    ca_key: KeyPair,
}

/// A leaf certificate and its key, in DER (for the server) and as PEM files.
struct Leaf {
    chain: Vec<CertificateDer<'static>>,
    key: PrivateKeyDer<'static>,
    cert_file: PathBuf,
    key_file: PathBuf,
}

impl Pki {
    fn new(name: &str) -> Pki {
        let dir = std::env::temp_dir().join(format!("a2a-networks-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let ca_key = KeyPair::generate().unwrap();
        let mut p = CertificateParams::new(Vec::<String>::new()).unwrap();
        p.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        // A name of its own: two test CAs with one name would make a verifier try the
        // wrong one (a bad signature instead of an unknown issuer).
        p.distinguished_name
            .push(DnType::CommonName, format!("a2a-core test CA {name}"));
        p.key_usages = vec![
            KeyUsagePurpose::KeyCertSign,
            KeyUsagePurpose::CrlSign,
            KeyUsagePurpose::DigitalSignature,
        ];
        let ca = p.self_signed(&ca_key).unwrap();
        std::fs::write(dir.join("ca.pem"), ca.pem()).unwrap();
        Pki { dir, ca, ca_key }
    }

    fn ca_file(&self) -> PathBuf {
        self.dir.join("ca.pem")
    }

    fn leaf(&self, file: &str, names: &[&str], client: bool, valid: Option<(i32, i32)>) -> Leaf {
        let key = KeyPair::generate().unwrap();
        let names: Vec<String> = names.iter().map(|s| (*s).to_owned()).collect();
        let mut p = CertificateParams::new(names).unwrap();
        p.distinguished_name.push(DnType::CommonName, file);
        p.extended_key_usages = vec![if client {
            ExtendedKeyUsagePurpose::ClientAuth
        } else {
            ExtendedKeyUsagePurpose::ServerAuth
        }];
        if let Some((from, to)) = valid {
            p.not_before = rcgen::date_time_ymd(from, 1, 1);
            p.not_after = rcgen::date_time_ymd(to, 1, 1);
        }
        let cert = p.signed_by(&key, &self.ca, &self.ca_key).unwrap();
        let cert_file = self.dir.join(format!("{file}.pem"));
        let key_file = self.dir.join(format!("{file}.key"));
        std::fs::write(&cert_file, cert.pem()).unwrap();
        std::fs::write(&key_file, key.serialize_pem()).unwrap();
        Leaf {
            chain: vec![cert.der().clone()],
            key: PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(key.serialize_der())),
            cert_file,
            key_file,
        }
    }
}

impl Drop for Pki {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// A loopback HTTPS agent: GET answers a 0.3 card whose interface is `https://{host}:{port}/`,
/// POST answers a JSON-RPC message saying `pong`; one request per connection.
struct TlsAgent {
    port: u16,
    handshakes_ok: Arc<AtomicUsize>,
}

impl TlsAgent {
    fn start(leaf: &Leaf, client_ca: Option<&Pki>, card_host: &str) -> TlsAgent {
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let builder = rustls::ServerConfig::builder_with_provider(Arc::clone(&provider))
            .with_safe_default_protocol_versions()
            .unwrap();
        let builder = match client_ca {
            None => builder.with_no_client_auth(),
            Some(pki) => {
                let mut roots = rustls::RootCertStore::empty();
                roots.add(pki.ca.der().clone()).unwrap();
                let verifier = rustls::server::WebPkiClientVerifier::builder_with_provider(
                    Arc::new(roots),
                    Arc::clone(&provider),
                )
                .build()
                .unwrap();
                builder.with_client_cert_verifier(verifier)
            }
        };
        let config = Arc::new(
            builder
                .with_single_cert(leaf.chain.clone(), leaf.key.clone_key())
                .unwrap(),
        );
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let handshakes_ok = Arc::new(AtomicUsize::new(0));
        let ok = Arc::clone(&handshakes_ok);
        let card_host = card_host.to_owned();
        std::thread::spawn(move || {
            for conn in listener.incoming() {
                let Ok(tcp) = conn else { continue };
                let config = Arc::clone(&config);
                let ok = Arc::clone(&ok);
                let card_host = card_host.clone();
                std::thread::spawn(move || serve(tcp, config, ok, &card_host, port));
            }
        });
        TlsAgent {
            port,
            handshakes_ok,
        }
    }

    fn url(&self, host: &str) -> String {
        format!("https://{host}:{}/", self.port)
    }
}

fn serve(
    tcp: TcpStream,
    config: Arc<rustls::ServerConfig>,
    ok: Arc<AtomicUsize>,
    card_host: &str,
    port: u16,
) {
    let _ = tcp.set_read_timeout(Some(WAIT));
    let _ = tcp.set_write_timeout(Some(WAIT));
    let Ok(conn) = rustls::ServerConnection::new(config) else {
        return;
    };
    let mut tls = rustls::StreamOwned::new(conn, tcp);
    let Some((head, body)) = read_request(&mut tls) else {
        return;
    };
    ok.fetch_add(1, Ordering::SeqCst);
    let reply = if head.starts_with("GET") {
        format!(
            r#"{{"protocolVersion":"0.3.0","name":"tls-agent","description":"d","url":"https://{card_host}:{port}/","preferredTransport":"JSONRPC","version":"1","capabilities":{{}},"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],"skills":[]}}"#
        )
    } else {
        let id = serde_json::from_slice::<serde_json::Value>(&body)
            .ok()
            .and_then(|v| v.get("id").cloned())
            .unwrap_or(serde_json::Value::Null);
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"result":{{"kind":"message","messageId":"m1","role":"agent","parts":[{{"kind":"text","text":"pong"}}]}}}}"#
        )
    };
    let _ = write!(
        tls,
        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{reply}",
        reply.len()
    );
    let _ = tls.flush();
    tls.conn.send_close_notify();
    let _ = tls.flush();
    let _ = tls.sock.shutdown(Shutdown::Both);
}

/// Reads one request head and its content-length body; `None` on a failed handshake.
fn read_request(s: &mut impl Read) -> Option<(String, Vec<u8>)> {
    let mut buf = Vec::new();
    let mut byte = [0u8; 1];
    while !buf.ends_with(b"\r\n\r\n") {
        if s.read(&mut byte).ok()? == 0 || buf.len() > 65536 {
            return None;
        }
        buf.push(byte[0]);
    }
    let head = String::from_utf8_lossy(&buf).into_owned();
    let len = head
        .lines()
        .find_map(|l| {
            let (n, v) = l.split_once(':')?;
            n.eq_ignore_ascii_case("content-length")
                .then(|| v.trim().parse::<usize>().ok())?
        })
        .unwrap_or(0);
    let mut body = vec![0u8; len.min(1 << 20)];
    s.read_exact(&mut body).ok()?;
    Some((head, body))
}

/// A loopback CONNECT proxy: answers `status` to CONNECT when given, asks for `creds`
/// (Basic, base64 of `user:password`) when given, and records every CONNECT target.
struct Proxy {
    port: u16,
    seen: Arc<Mutex<Vec<String>>>,
}

impl Proxy {
    fn start(creds: Option<&'static str>, refuse: Option<u16>) -> Proxy {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let log = Arc::clone(&seen);
        std::thread::spawn(move || {
            for conn in listener.incoming() {
                let Ok(client) = conn else { continue };
                let log = Arc::clone(&log);
                std::thread::spawn(move || tunnel(client, creds, refuse, &log));
            }
        });
        Proxy { port, seen }
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    fn seen(&self) -> Vec<String> {
        self.seen.lock().unwrap().clone()
    }
}

fn tunnel(
    mut client: TcpStream,
    creds: Option<&str>,
    refuse: Option<u16>,
    log: &Mutex<Vec<String>>,
) {
    let _ = client.set_read_timeout(Some(WAIT));
    let Some((head, _)) = read_request(&mut client) else {
        return;
    };
    let target = head.split_whitespace().nth(1).unwrap_or("").to_owned();
    let auth = head
        .lines()
        .find_map(|l| {
            let (n, v) = l.split_once(':')?;
            n.eq_ignore_ascii_case("proxy-authorization")
                .then(|| v.trim().to_owned())
        })
        .unwrap_or_default();
    log.lock().unwrap().push(format!("{target} auth={auth}"));
    let answer = |c: &mut TcpStream, status: &str| {
        let _ = write!(c, "HTTP/1.1 {status}\r\ncontent-length: 0\r\n\r\n");
    };
    if let Some(code) = refuse {
        return answer(&mut client, &format!("{code} Refused"));
    }
    if let Some(c) = creds
        && auth != format!("Basic {c}")
    {
        return answer(&mut client, "407 Proxy Authentication Required");
    }
    let Ok(upstream) = TcpStream::connect(&target) else {
        return answer(&mut client, "502 Bad Gateway");
    };
    answer(&mut client, "200 Connection established");
    let (mut a, mut b) = (client.try_clone().unwrap(), upstream.try_clone().unwrap());
    let mut up = upstream;
    let mut down = client;
    let t = std::thread::spawn(move || {
        let _ = std::io::copy(&mut a, &mut up);
        let _ = up.shutdown(Shutdown::Write);
    });
    let _ = std::io::copy(&mut b, &mut down);
    let _ = down.shutdown(Shutdown::Both);
    let _ = t.join();
}

fn config() -> ClientConfig {
    ClientConfig {
        connect_timeout: Duration::from_secs(5),
        call_timeout: Duration::from_secs(10),
        // Tests never take a proxy from the environment unless they say so.
        proxy: Some(String::new()),
        ..ClientConfig::default()
    }
}

fn get(url: &str) -> HttpRequest {
    HttpRequest {
        method: "GET".into(),
        url: url.into(),
        headers: Vec::new(),
        body: Vec::new(),
    }
}

fn tls_failure(cfg: ClientConfig, url: &str) -> a2a_core::outcome::Outcome {
    let o = Client::raw(cfg)
        .exchange(&get(url), None)
        .expect_err("the handshake must fail");
    assert_eq!(o.channel, Channel::Transport, "{o:?}");
    assert_eq!(o.error, Some(ErrorName::Tls), "{o:?}");
    assert_eq!(o.request_sent, Some(RequestSent::No), "{o:?}");
    assert!(o.hint.as_deref().is_some_and(|h| !h.is_empty()), "{o:?}");
    o
}

#[test]
fn cacert_trusts_a_private_ca_and_the_default_store_does_not() {
    let pki = Pki::new("cacert");
    let leaf = pki.leaf("agent", &["localhost", "127.0.0.1"], false, None);
    let agent = TlsAgent::start(&leaf, None, "localhost");
    let url = agent.url("localhost");
    let with_ca = ClientConfig {
        ca_file: Some(pki.ca_file()),
        ..config()
    };
    let r = Client::raw(with_ca).exchange(&get(&url), None).unwrap();
    assert_eq!(r.status, 200);
    assert!(String::from_utf8_lossy(&r.body).contains("tls-agent"));
    // The default (system) store does not know the test CA.
    let o = tls_failure(config(), &url);
    assert_eq!(o.reason.as_deref(), Some("unknown_issuer"), "{o:?}");
    assert_eq!(o.retry, RetryAdvice::Never);
    assert!(o.hint.unwrap().contains("--cacert"));
    // A CA file that holds no certificate is a configuration error, nothing sent.
    let empty = pki.dir.join("empty.pem");
    std::fs::write(&empty, "no pem here\n").unwrap();
    let o = Client::raw(ClientConfig {
        ca_file: Some(empty),
        ..config()
    })
    .exchange(&get(&url), None)
    .unwrap_err();
    assert_eq!(o.error, Some(ErrorName::InvalidRequest), "{o:?}");
    assert_eq!(o.request_sent, Some(RequestSent::No));
    assert!(o.message.unwrap().contains("no PEM certificate"));
}

#[test]
fn certificate_failures_name_their_cause() {
    let pki = Pki::new("causes");
    let cfg = || ClientConfig {
        ca_file: Some(pki.ca_file()),
        ..config()
    };
    let expired = pki.leaf("expired", &["localhost"], false, Some((2000, 2001)));
    let agent = TlsAgent::start(&expired, None, "localhost");
    let o = tls_failure(cfg(), &agent.url("localhost"));
    assert_eq!(o.reason.as_deref(), Some("expired"), "{o:?}");
    let future = pki.leaf("future", &["localhost"], false, Some((2090, 2091)));
    let agent = TlsAgent::start(&future, None, "localhost");
    let o = tls_failure(cfg(), &agent.url("localhost"));
    assert_eq!(o.reason.as_deref(), Some("not_yet_valid"), "{o:?}");
    let other = pki.leaf("other", &["other.test"], false, None);
    let agent = TlsAgent::start(&other, None, "localhost");
    let o = tls_failure(cfg(), &agent.url("localhost"));
    assert_eq!(o.reason.as_deref(), Some("name_mismatch"), "{o:?}");
    assert_eq!(agent.handshakes_ok.load(Ordering::SeqCst), 0);
    // Not a TLS server at all (a plain HTTP answer to the ClientHello): a handshake failure.
    let plain = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = plain.local_addr().unwrap().port();
    std::thread::spawn(move || {
        if let Ok((mut s, _)) = plain.accept() {
            let _ = s.set_read_timeout(Some(WAIT));
            let mut buf = [0u8; 512];
            let _ = s.read(&mut buf);
            let _ = s.write_all(b"HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\n\r\n");
        }
    });
    let o = tls_failure(cfg(), &format!("https://localhost:{port}/"));
    assert_eq!(o.reason.as_deref(), Some("handshake"), "{o:?}");
}

#[test]
fn client_certificates_are_presented_and_their_absence_is_named() {
    let pki = Pki::new("mtls");
    let leaf = pki.leaf("agent", &["localhost"], false, None);
    let client = pki.leaf("client", &["client"], true, None);
    let agent = TlsAgent::start(&leaf, Some(&pki), "localhost");
    let url = agent.url("localhost");
    let base = || ClientConfig {
        ca_file: Some(pki.ca_file()),
        ..config()
    };
    let o = tls_failure(base(), &url);
    assert_eq!(o.reason.as_deref(), Some("client_cert_refused"), "{o:?}");
    assert!(o.hint.unwrap().contains("--cert"));
    let with_cert = ClientConfig {
        client_cert_file: Some(client.cert_file.clone()),
        client_key_file: Some(client.key_file.clone()),
        ..base()
    };
    let r = Client::raw(with_cert).exchange(&get(&url), None).unwrap();
    assert_eq!(r.status, 200);
    // A certificate from another CA is refused by the agent.
    let other_ca = Pki::new("stranger");
    let stranger = other_ca.leaf("client2", &["client"], true, None);
    let o = tls_failure(
        ClientConfig {
            client_cert_file: Some(stranger.cert_file.clone()),
            client_key_file: Some(stranger.key_file.clone()),
            ..base()
        },
        &url,
    );
    assert_eq!(o.reason.as_deref(), Some("client_cert_refused"), "{o:?}");
    // A key that is not the certificate's: a configuration error before anything is sent
    // (ureq would panic on it).
    let o = Client::raw(ClientConfig {
        client_cert_file: Some(client.cert_file.clone()),
        client_key_file: Some(stranger.key_file.clone()),
        ..base()
    })
    .exchange(&get(&url), None)
    .unwrap_err();
    assert_eq!(o.error, Some(ErrorName::InvalidRequest), "{o:?}");
    assert_eq!(o.request_sent, Some(RequestSent::No));
    assert!(o.message.unwrap().contains("cannot use them"));
}

#[test]
fn the_cards_mutual_tls_scheme_is_satisfied_by_a_client_certificate() {
    use a2a_core::card::CredentialPlan;
    use a2a_core::driver::Target;
    use a2a_core::version::{Binding, ProtocolVersion};
    let pki = Pki::new("mtls-card");
    let leaf = pki.leaf("agent", &["localhost"], false, None);
    let client = pki.leaf("client", &["client"], true, None);
    let agent = TlsAgent::start(&leaf, Some(&pki), "localhost");
    let card = r#"{"name":"s","supportedInterfaces":[{"url":"https://localhost/","protocolBinding":"JSONRPC","protocolVersion":"1.0"}],"securitySchemes":{"mtls":{"mtlsSecurityScheme":{}}},"securityRequirements":[{"schemes":{"mtls":{"list":[]}}}]}"#;
    let plan: CredentialPlan = a2a_core::card::AgentCard::parse(card.as_bytes())
        .unwrap()
        .credentials();
    let target = || {
        let mut t = Target::new(
            &agent.url("localhost"),
            ProtocolVersion::V0_3,
            Binding::JsonRpc,
        );
        t.credentials = Some(plan.clone());
        t
    };
    let base = ClientConfig {
        ca_file: Some(pki.ca_file()),
        ..config()
    };
    let r = Client::with_target(target(), base.clone()).send_text("ping", &CallOptions::default());
    assert_eq!(
        r.outcome.error,
        Some(ErrorName::Unauthenticated),
        "{:?}",
        r.outcome
    );
    assert_eq!(r.outcome.request_sent, Some(RequestSent::No));
    assert_eq!(
        agent.handshakes_ok.load(Ordering::SeqCst),
        0,
        "nothing was sent"
    );
    let with_cert = ClientConfig {
        client_cert_file: Some(client.cert_file.clone()),
        client_key_file: Some(client.key_file.clone()),
        ..base
    };
    let r = Client::with_target(target(), with_cert).send_text("ping", &CallOptions::default());
    assert_eq!(r.outcome.channel, Channel::Message, "{:?}", r.outcome);
    assert_eq!(r.outcome.text.as_deref(), Some("pong"));
}

#[test]
fn a_connect_proxy_tunnels_with_and_without_credentials() {
    let pki = Pki::new("proxy");
    let leaf = pki.leaf("agent", &["localhost"], false, None);
    let agent = TlsAgent::start(&leaf, None, "localhost");
    let url = agent.url("localhost");
    let via = |proxy: String| ClientConfig {
        ca_file: Some(pki.ca_file()),
        proxy: Some(proxy),
        ..config()
    };
    let open = Proxy::start(None, None);
    let r = Client::raw(via(open.url()))
        .exchange(&get(&url), None)
        .unwrap();
    assert_eq!(r.status, 200);
    assert_eq!(
        open.seen(),
        vec![format!("localhost:{} auth=", agent.port)],
        "one CONNECT to the agent's host and port, no credentials"
    );
    // "user:p@ss" percent-encoded in the URL, sent as Basic dXNlcjpwQHNz.
    let locked = Proxy::start(Some("dXNlcjpwQHNz"), None);
    let with = format!("http://user:p%40ss@127.0.0.1:{}", locked.port);
    let r = Client::raw(via(with)).exchange(&get(&url), None).unwrap();
    assert_eq!(r.status, 200);
    let o = Client::raw(via(locked.url()))
        .exchange(&get(&url), None)
        .unwrap_err();
    assert_eq!(o.error, Some(ErrorName::Proxy), "{o:?}");
    assert_eq!(o.reason.as_deref(), Some("auth_required"));
    assert_eq!(o.request_sent, Some(RequestSent::No));
    assert_eq!(o.http_status, None, "the proxy's status is not the agent's");
    assert_eq!(o.retry, RetryAdvice::Reauthenticate);
    let refusing = Proxy::start(None, Some(502));
    let o = Client::raw(via(refusing.url()))
        .exchange(&get(&url), None)
        .unwrap_err();
    assert_eq!(o.error, Some(ErrorName::Proxy), "{o:?}");
    assert_eq!(o.reason.as_deref(), Some("connect_refused"));
    assert_eq!(o.request_sent, Some(RequestSent::No));
    assert_eq!(o.http_status, None);
    assert!(o.message.unwrap().contains("502"));
    // --noproxy: the agent's host is reached directly.
    let bypassed = Proxy::start(None, Some(403));
    let r = Client::raw(ClientConfig {
        no_proxy: Some("localhost".into()),
        ..via(bypassed.url())
    })
    .exchange(&get(&url), None)
    .unwrap();
    assert_eq!(r.status, 200);
    assert!(bypassed.seen().is_empty());
    // A proxy that accepts and never answers CONNECT: the connect timeout covers that leg.
    let silent = TcpListener::bind("127.0.0.1:0").unwrap();
    let silent_url = format!("http://127.0.0.1:{}", silent.local_addr().unwrap().port());
    let held = std::thread::spawn(move || {
        let conn = silent.accept();
        std::thread::sleep(Duration::from_secs(3));
        drop(conn);
    });
    let started = std::time::Instant::now();
    let o = Client::raw(ClientConfig {
        connect_timeout: Duration::from_millis(700),
        ..via(silent_url)
    })
    .exchange(&get(&url), None)
    .unwrap_err();
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(o.error, Some(ErrorName::Timeout), "{o:?}");
    assert_eq!(o.request_sent, Some(RequestSent::No), "{o:?}");
    held.join().unwrap();
    // A proxy that is not there: a connect failure that names the proxy, nothing sent.
    let closed = TcpListener::bind("127.0.0.1:0").unwrap();
    let dead = format!("http://127.0.0.1:{}", closed.local_addr().unwrap().port());
    drop(closed);
    let o = Client::raw(via(dead))
        .exchange(&get(&url), None)
        .unwrap_err();
    assert_eq!(o.error, Some(ErrorName::ConnectFailed), "{o:?}");
    assert_eq!(o.request_sent, Some(RequestSent::No));
    assert!(o.message.unwrap().starts_with("proxy 127.0.0.1:"));
}

/// A resolver whose answers change between calls (first the card's, then the rebound one).
fn rebinding(first: Vec<IpAddr>, then: Vec<IpAddr>) -> Arc<dyn a2a_core::driver::Resolve> {
    let calls = AtomicUsize::new(0);
    Arc::new(move |host: &str, _port: u16| {
        assert_eq!(host, "agent.test", "only the agent's name is resolved");
        Ok(if calls.fetch_add(1, Ordering::SeqCst) == 0 {
            first.clone()
        } else {
            then.clone()
        })
    })
}

#[test]
fn a_public_hosts_internal_answers_are_refused_unless_allowed_or_an_intranet_card() {
    let pki = Pki::new("rebind");
    let leaf = pki.leaf("agent", &["agent.test"], false, None);
    let agent = TlsAgent::start(&leaf, None, "agent.test");
    let loopback: IpAddr = "127.0.0.1".parse().unwrap();
    // TEST-NET-3: public by the card rules, and nothing answers there.
    let public: IpAddr = "203.0.113.9".parse().unwrap();
    let cfg = |first: Vec<IpAddr>, allow: Vec<String>| ClientConfig {
        ca_file: Some(pki.ca_file()),
        connect_timeout: Duration::from_secs(1),
        resolver: Some(rebinding(first, vec![loopback])),
        allow_hosts: allow,
        ..config()
    };
    // A host answering a public and a loopback address is public: the loopback answer is
    // refused for the card too, so the agent on loopback is never contacted.
    let e = Client::new(
        &agent.url("agent.test"),
        cfg(vec![loopback, public], Vec::new()),
    )
    .expect_err("only the unreachable public address is left");
    let o = e.to_outcome();
    assert_eq!(o.error, Some(ErrorName::CardResolution), "{o:?}");
    assert_eq!(o.request_sent, Some(RequestSent::No));
    assert_eq!(
        agent.handshakes_ok.load(Ordering::SeqCst),
        0,
        "loopback never reached"
    );
    // --allow-host: the caller vouches for the host; card and calls reach it.
    let client = Client::new(
        &agent.url("agent.test"),
        cfg(vec![loopback, public], vec!["agent.test".into()]),
    )
    .unwrap();
    let r = client.send_text("ping", &CallOptions::default());
    assert_eq!(r.outcome.text.as_deref(), Some("pong"), "{:?}", r.outcome);
    assert_eq!(agent.handshakes_ok.load(Ordering::SeqCst), 2);
    // An intranet card (its host resolved to internal addresses only) keeps working, and
    // its interface (the same name, resolved again on a new connection) too.
    let client = Client::new(&agent.url("agent.test"), cfg(vec![loopback], Vec::new())).unwrap();
    let r = client.send_text("ping", &CallOptions::default());
    assert_eq!(r.outcome.text.as_deref(), Some("pong"), "{:?}", r.outcome);
    assert_eq!(agent.handshakes_ok.load(Ordering::SeqCst), 4);
    // The rebinding refusal of the interface itself (a public card, a new connection that
    // resolves to loopback) is driven through the same resolver in the dns module's tests:
    // on loopback no card can come from a public address.
}

// --- the command line ---

fn a2a(args: &[&str], env: &[(&str, &str)]) -> (i32, serde_json::Value) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_a2a"));
    cmd.args(args).arg("--json");
    for v in [
        "https_proxy",
        "HTTPS_PROXY",
        "http_proxy",
        "all_proxy",
        "ALL_PROXY",
        "no_proxy",
        "NO_PROXY",
        "SSL_CERT_FILE",
        "SSL_CERT_DIR",
    ] {
        cmd.env_remove(v);
    }
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("run a2a");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let last = stdout.lines().last().unwrap_or("null");
    let json = serde_json::from_str(last).unwrap_or_else(|_| {
        panic!(
            "not JSON: {stdout}\nstderr: {}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (out.status.code().unwrap_or(-1), json)
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn cli_trust_store_cacert_client_certificates() {
    let pki = Pki::new("cli-tls");
    let leaf = pki.leaf("agent", &["localhost"], false, None);
    let agent = TlsAgent::start(&leaf, None, "localhost");
    let url = agent.url("localhost");
    let (code, o) = a2a(&["send", &url, "ping"], &[]);
    assert_eq!(code, 3, "{o}");
    assert_eq!(o["error"], "Tls");
    assert_eq!(o["reason"], "unknown_issuer");
    assert_eq!(o["retry"], "never");
    // The system store honours SSL_CERT_FILE.
    let (code, o) = a2a(
        &["send", &url, "ping"],
        &[("SSL_CERT_FILE", s(&pki.ca_file()))],
    );
    assert_eq!((code, &o["text"]), (0, &serde_json::json!("pong")), "{o}");
    let (code, o) = a2a(&["send", &url, "ping", "--cacert", s(&pki.ca_file())], &[]);
    assert_eq!((code, &o["text"]), (0, &serde_json::json!("pong")), "{o}");
    // A system store with no CA at all (an empty SSL_CERT_FILE) is an unknown issuer too.
    let empty = pki.dir.join("empty.pem");
    std::fs::write(&empty, "").unwrap();
    let (code, o) = a2a(&["send", &url, "ping"], &[("SSL_CERT_FILE", s(&empty))]);
    assert_eq!(code, 3, "{o}");
    assert_eq!(o["reason"], "unknown_issuer", "{o}");
    // And SSL_CERT_DIR (a directory of PEM files).
    let certs = pki.dir.join("certs");
    std::fs::create_dir_all(&certs).unwrap();
    std::fs::copy(pki.ca_file(), certs.join("test-ca.pem")).unwrap();
    let (code, o) = a2a(&["send", &url, "ping"], &[("SSL_CERT_DIR", s(&certs))]);
    assert_eq!((code, &o["text"]), (0, &serde_json::json!("pong")), "{o}");
    let mtls = TlsAgent::start(&leaf, Some(&pki), "localhost");
    let client = pki.leaf("client", &["client"], true, None);
    let murl = mtls.url("localhost");
    let (_, o) = a2a(&["card", &murl, "--cacert", s(&pki.ca_file())], &[]);
    assert_eq!(o["reason"], "client_cert_refused", "{o}");
    let (code, o) = a2a(
        &[
            "send",
            &murl,
            "ping",
            "--cacert",
            s(&pki.ca_file()),
            "--cert",
            s(&client.cert_file),
            "--key",
            s(&client.key_file),
        ],
        &[],
    );
    assert_eq!((code, &o["text"]), (0, &serde_json::json!("pong")), "{o}");
}

#[test]
fn cli_proxies_from_the_environment_and_flags() {
    let pki = Pki::new("cli-proxy");
    let leaf = pki.leaf("agent", &["localhost"], false, None);
    let agent = TlsAgent::start(&leaf, None, "localhost");
    let url = agent.url("localhost");
    let ca = pki.ca_file();
    let proxy = Proxy::start(None, None);
    let (code, o) = a2a(
        &["send", &url, "ping", "--cacert", s(&ca)],
        &[("https_proxy", &proxy.url())],
    );
    assert_eq!((code, &o["text"]), (0, &serde_json::json!("pong")), "{o}");
    assert_eq!(
        proxy.seen().len(),
        2,
        "card and call went through the tunnel"
    );
    // HTTP_PROXY (uppercase) is not read, as curl; no_proxy bypasses.
    let unused = Proxy::start(None, Some(403));
    let (code, _) = a2a(
        &["send", &url, "ping", "--cacert", s(&ca)],
        &[("HTTPS_PROXY", &unused.url()), ("no_proxy", "localhost")],
    );
    assert_eq!(code, 0);
    assert!(unused.seen().is_empty());
    // --proxy beats the environment; 407 is named.
    let locked = Proxy::start(Some("dTpw"), None);
    let (code, o) = a2a(
        &["card", &url, "--cacert", s(&ca), "--proxy", &locked.url()],
        &[("https_proxy", &proxy.url())],
    );
    assert_eq!(code, 3);
    let text = o.to_string();
    assert!(text.contains("407"), "{o}");
    let with = format!("http://u:p@127.0.0.1:{}", locked.port);
    let (code, o) = a2a(
        &["send", &url, "ping", "--cacert", s(&ca), "--proxy", &with],
        &[],
    );
    assert_eq!((code, &o["text"]), (0, &serde_json::json!("pong")), "{o}");
    // --noproxy replaces no_proxy.
    let (code, _) = a2a(
        &[
            "send",
            &url,
            "ping",
            "--cacert",
            s(&ca),
            "--noproxy",
            "localhost",
        ],
        &[("https_proxy", &unused.url())],
    );
    assert_eq!(code, 0);
    assert!(unused.seen().is_empty());
}

#[test]
fn cli_resolve_reaches_a_named_agent_on_loopback() {
    let pki = Pki::new("cli-resolve");
    let leaf = pki.leaf("agent", &["agent.test"], false, None);
    let agent = TlsAgent::start(&leaf, None, "agent.test");
    let entry = format!("agent.test:{}:127.0.0.1", agent.port);
    let (code, o) = a2a(
        &[
            "send",
            &agent.url("agent.test"),
            "ping",
            "--cacert",
            s(&pki.ca_file()),
            "--resolve",
            &entry,
        ],
        &[],
    );
    assert_eq!((code, &o["text"]), (0, &serde_json::json!("pong")), "{o}");
    let (code, _) = a2a(
        &["card", "https://agent.test/", "--resolve", "agent.test:x:1"],
        &[],
    );
    assert_eq!(
        code, 3,
        "a malformed --resolve is a configuration error, nothing sent"
    );
}

/// A loopback HTTPS server of fixed documents (path → body, `application/json`), counting
/// the requests per path; one request per connection.
#[cfg(feature = "trust")]
struct TlsFiles {
    port: u16,
    hits: Arc<Mutex<Vec<String>>>,
}

#[cfg(feature = "trust")]
impl TlsFiles {
    /// Binds first (the documents name the port), then serves what `docs(port)` gives.
    fn start(leaf: &Leaf, docs: impl FnOnce(u16) -> Vec<(String, String)>) -> TlsFiles {
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let config = Arc::new(
            rustls::ServerConfig::builder_with_provider(provider)
                .with_safe_default_protocol_versions()
                .unwrap()
                .with_no_client_auth()
                .with_single_cert(leaf.chain.clone(), leaf.key.clone_key())
                .unwrap(),
        );
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let docs = Arc::new(docs(port));
        let hits = Arc::new(Mutex::new(Vec::new()));
        let log = Arc::clone(&hits);
        std::thread::spawn(move || {
            for conn in listener.incoming() {
                let Ok(tcp) = conn else { continue };
                let (config, docs, log) =
                    (Arc::clone(&config), Arc::clone(&docs), Arc::clone(&log));
                std::thread::spawn(move || {
                    let _ = tcp.set_read_timeout(Some(WAIT));
                    let _ = tcp.set_write_timeout(Some(WAIT));
                    let Ok(conn) = rustls::ServerConnection::new(config) else {
                        return;
                    };
                    let mut tls = rustls::StreamOwned::new(conn, tcp);
                    let Some((head, _)) = read_request(&mut tls) else {
                        return;
                    };
                    let path = head.split(' ').nth(1).unwrap_or("").to_owned();
                    log.lock().unwrap().push(path.clone());
                    let (status, body) = docs
                        .iter()
                        .find(|(p, _)| *p == path)
                        .map_or((404, String::new()), |(_, b)| (200, b.clone()));
                    let _ = write!(
                        tls,
                        "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                        body.len()
                    );
                    let _ = tls.flush();
                    tls.conn.send_close_notify();
                    let _ = tls.flush();
                    let _ = tls.sock.shutdown(Shutdown::Both);
                });
            }
        });
        TlsFiles { port, hits }
    }

    fn hits(&self, path: &str) -> usize {
        self.hits
            .lock()
            .unwrap()
            .iter()
            .filter(|p| *p == path)
            .count()
    }
}

/// The card of a loopback agent on `port`, signed with the test key under kid `k1`, naming
/// `jku` (the library's signer: the CLI's refuses a plain-http `jku`); and the JWK Set.
#[cfg(feature = "trust")]
fn signed_card(port: u16, jku: &str) -> (String, String) {
    use a2a_core::trust::jws::SigningKey;
    let pem = include_bytes!("../src/trust/testdata/ed25519.pem");
    let rng = ring::rand::SystemRandom::new();
    let key = SigningKey::from_pem(pem, &rng).unwrap();
    let card = format!(
        r#"{{"protocolVersion":"0.3.0","name":"signed","description":"d","url":"https://localhost:{port}/a2a","preferredTransport":"JSONRPC","version":"1","capabilities":{{}},"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],"skills":[]}}"#
    );
    let signed =
        a2a_core::trust::card_sig::sign_card(card.as_bytes(), &key, "k1", Some(jku), &rng).unwrap();
    let jwks = serde_json::json!({"keys": [key.public_jwk("k1")]}).to_string();
    (signed, jwks)
}

/// `a2a card URL --verify` without keys fetches the JWK Set the signature's `jku` names, over
/// HTTPS (a private CA through --cacert), from the card's own host; a `jku` over plain http
/// or on another host is refused with no request made, and `--jku-host` allows another.
/// The driver's `Client::verified_card` does the same.
#[test]
#[cfg(feature = "trust")]
fn jku_is_fetched_over_https_from_the_cards_host_only() {
    let pki = Pki::new("jku");
    let leaf = pki.leaf("keys", &["localhost", "127.0.0.1"], false, None);
    let server = TlsFiles::start(&leaf, |port| {
        let (good, jwks) = signed_card(port, &format!("https://localhost:{port}/jwks.json"));
        let (plain, _) = signed_card(port, &format!("http://localhost:{port}/jwks.json"));
        let (other, _) = signed_card(port, &format!("https://127.0.0.1:{port}/jwks.json"));
        vec![
            ("/good.json".into(), good),
            ("/plain.json".into(), plain),
            ("/other.json".into(), other),
            ("/jwks.json".into(), jwks),
        ]
    });
    let base = format!("https://localhost:{}", server.port);
    let ca = pki.ca_file();
    let card = |name: &str, extra: &[&str]| {
        let url = format!("{base}/{name}");
        let mut args = vec!["card", url.as_str(), "--verify", "--cacert", s(&ca)];
        args.extend_from_slice(extra);
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_a2a"));
        cmd.args(&args).arg("--json");
        for v in ["https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"] {
            cmd.env_remove(v);
        }
        let out = cmd.output().unwrap();
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (code, out, err) = card("good.json", &[]);
    assert_eq!(code, 0, "{out}{err}");
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["signature"]["verified"], true, "{v}");
    assert_eq!(v["signature"]["kid"], "k1");
    assert_eq!(server.hits("/jwks.json"), 1);

    // Plain http: refused, nothing fetched.
    let (code, _, err) = card("plain.json", &[]);
    assert_eq!(code, 3, "{err}");
    assert!(err.contains("is not https"), "{err}");
    // Another host: refused unless allowed.
    let (code, _, err) = card("other.json", &[]);
    assert_eq!(code, 3, "{err}");
    assert!(err.contains("not on the card's host"), "{err}");
    assert_eq!(server.hits("/jwks.json"), 1, "no request for a refused jku");
    let (code, out, err) = card("other.json", &["--jku-host", "127.0.0.1"]);
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(server.hits("/jwks.json"), 2);

    // The driver's API.
    let config = ClientConfig {
        ca_file: Some(ca.clone()),
        proxy: Some(String::new()),
        ..ClientConfig::default()
    };
    let c = Client::new(&format!("{base}/good.json"), config.clone()).expect("card");
    assert_eq!(
        c.card_url().as_deref(),
        Some(format!("{base}/good.json").as_str())
    );
    let v = c
        .verified_card(None, &[])
        .expect("verifies with the jku's keys");
    assert_eq!(v.kid.as_deref(), Some("k1"));
    assert_eq!(server.hits("/jwks.json"), 3);
    let c = Client::new(&format!("{base}/plain.json"), config).expect("card");
    let e = c.verified_card(None, &[]).unwrap_err();
    assert_eq!(e.kind(), "jku_refused", "{e}");
    let e = c
        .fetch_jwks(
            "https://elsewhere.example/k.json",
            &format!("{base}/plain.json"),
            &[],
        )
        .unwrap_err();
    assert_eq!(e.kind(), "jku_refused");
    assert_eq!(server.hits("/jwks.json"), 3);
}
