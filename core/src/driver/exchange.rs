//! One HTTP exchange through ureq, configured the way A2A needs it: no redirects followed,
//! 4xx/5xx returned as responses (their JSON-RPC bodies must reach the classifier), bounded
//! bodies, identity encoding on streams, and every failure turned into a precise
//! `transport` outcome.
//!
//! A plain `http://` request with no proxy chosen for it skips ureq: [`super::plain`] writes
//! the same bytes and reads the answer with the core's own HTTP/1.1 reader over the driver's
//! own pooled connections, and its failures come back as the same `ureq::Error` values, so
//! [`transport_outcome`] maps both paths alike (about a third of a pooled send's
//! instructions: 97.9k to 63.3k per bench-driver send under callgrind, 123 to 83 allocations).

use std::io::Read;
use std::sync::Arc;
use std::time::{Duration, Instant};

use ureq::unversioned::transport::{ConnectProxyConnector, Connector, RustlsConnector};

use super::config::ClientConfig;
use super::io::{CallIo, Watch};
use super::plain::{Budget, Failure, Head, Malformed, Plain, PlainBody, Req, Target};
use crate::outcome::{ErrorName, Outcome, RequestSent, RetryAdvice};

/// One HTTP request as the driver sends it (the plain value the envelope builders produce,
/// with the path already joined to the interface URL).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpRequest {
    /// `GET`, `POST`, `DELETE`.
    pub method: String,
    /// The absolute URL.
    pub url: String,
    /// Headers in order; a later header with the same name is sent as well (use
    /// [`HttpRequest::set_header`] to replace).
    pub headers: Vec<(String, String)>,
    /// The body (empty for `GET`).
    pub body: Vec<u8>,
}

impl HttpRequest {
    /// Sets `name` to `value`, replacing every existing header of that name
    /// (case-insensitive). In an interceptor, a reserved name (`Content-Length`, `Host`,
    /// `A2A-Version`, ...; see [`super::Interceptor`]) set to anything but the builder's own
    /// value makes the call fail unsent.
    pub fn set_header(&mut self, name: &str, value: &str) {
        self.headers.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
        self.headers.push((name.to_owned(), value.to_owned()));
    }

    /// Removes every header named `name` (case-insensitive); returns how many were removed.
    /// An interceptor may drop a header the builder set, e.g. `A2A-Version` to reproduce a
    /// client that omits it (a testing and compatibility aid: a 1.0 call without it is read
    /// as 0.3 by the servers). Removing is not overriding: the reserved-header rule (see
    /// [`super::Interceptor`]) refuses reserved headers a hook adds or changes, not ones it
    /// drops.
    pub fn remove_header(&mut self, name: &str) -> usize {
        let before = self.headers.len();
        self.headers.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
        before - self.headers.len()
    }

    /// The first value of `name` (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        header_in(&self.headers, name)
    }
}

impl From<crate::client::HttpRequest> for HttpRequest {
    /// A request a machine handed out, as the driver sends it (nothing copied but the
    /// method's name).
    fn from(r: crate::client::HttpRequest) -> HttpRequest {
        HttpRequest {
            method: r.method.as_str().to_owned(),
            url: r.url,
            headers: r.headers,
            body: r.body,
        }
    }
}

/// A complete HTTP response (header names lower-cased, in order; the body decoded when the
/// server compressed it): the machine's type.
pub use crate::client::HttpResponse;

fn header_in<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.as_str())
}

/// Builds the ureq agent: a CONNECT tunnel when the request names a proxy, TCP, then TLS
/// (rustls, with the trust and client certificate of [`super::tls`]), inside the [`Watch`]
/// wrapper; names resolved by [`super::dns`]; no redirects, statuses as responses, pooled
/// connections dropped before servers close them. The error says why the configuration's
/// files or resolutions cannot be used.
pub(crate) fn build_agent(
    cfg: &ClientConfig,
    guard: super::dns::Guard,
) -> Result<(ureq::Agent, Option<Arc<Plain>>), String> {
    let tls = super::tls::tls_config(cfg)?;
    // Names' answers are reused while their connections may be pooled (see `dns`).
    let answers = super::dns::Answers::new(cfg.pool_idle_timeout);
    let resolver = super::dns::Guarded::new(
        &cfg.resolve,
        &cfg.allow_hosts,
        cfg.resolver.clone(),
        guard.clone(),
        std::sync::Arc::clone(&answers),
    )?;
    // The plain-HTTP fast path (`super::plain`), with a resolver of the same rules sharing
    // the kept answers; none when plain http is refused (ureq says why).
    let plain = if cfg.allow_http {
        let own = super::dns::Guarded::new(
            &cfg.resolve,
            &cfg.allow_hosts,
            cfg.resolver.clone(),
            guard,
            std::sync::Arc::clone(&answers),
        )?;
        Some(Arc::new(Plain::new(
            own,
            Arc::clone(&answers),
            &cfg.user_agent,
            cfg.pool_idle_timeout,
            INPUT_BUFFER,
        )))
    } else {
        None
    };
    let config = ureq::Agent::config_builder()
        // Proxies are chosen per request (curl's rules, see `proxy`), never by ureq from
        // the environment.
        .proxy(None)
        .tls_config(tls)
        .http_status_as_error(false)
        .max_redirects(0)
        .user_agent(cfg.user_agent.as_str())
        .timeout_connect(Some(cfg.connect_timeout))
        .max_idle_age(cfg.pool_idle_timeout)
        .max_idle_connections_per_host(4)
        // The transports' input and output buffers: see INPUT_BUFFER and OUTPUT_BUFFER.
        // The TCP transport (`super::tcp`) and the driver's `LineFed` give theirs back
        // while a connection waits; ureq's TLS transport keeps its two for the
        // connection's life. A response head is not bounded by them (LineFed collects it,
        // up to ureq's 64 KiB head limit, set here so it is explicit).
        .input_buffer_size(INPUT_BUFFER)
        .output_buffer_size(OUTPUT_BUFFER)
        .max_response_header_size(64 * 1024)
        .https_only(!cfg.allow_http)
        .build();
    let connector = Watch {
        chain:
            ().chain(ConnectProxyConnector::default())
                .chain(super::tcp::TcpConnect)
                .chain(RustlsConnector::default()),
        answers,
    };
    Ok((ureq::Agent::with_parts(config, connector, resolver), plain))
}

/// The input buffer of each transport layer under ureq (the driver's TCP transport, ureq's
/// TLS over it): the most one socket read takes.
/// Measured for issue 28 (bench-driver, 2026-12-05, loopback, load average 3-4 on 2 CPUs):
/// RSS per open idle stream 47.8 KiB with 16 KiB, 31.9 with 8 KiB, 28.0 with 4 KiB; CPU
/// per stream event (20,000 small events, medians of 4 runs) 3.40, 3.44 and 3.60 µs, and
/// 40 KB events read no slower with 8 KiB than with 16 KiB. 8 KiB: a third of the memory,
/// no measurable cost; 4 KiB costs about 5% per small event.
pub(crate) const INPUT_BUFFER: usize = 8 * 1024;

/// The output buffer of each transport layer under ureq: a request goes out in pieces of
/// this size, and it bounds the longest single request header line (ureq writes a head
/// line by line; a line that does not fit fails the request before anything is sent).
/// 8 KiB, the per-line limit of common servers (nginx's default buffer, Apache's 8190
/// bytes). The measurements of both sizes were made while ureq's TCP transport kept its
/// buffers for the connection's life; the driver's own (`super::tcp`) gives them back while
/// a connection waits, so an idle stream holds neither (TLS's are still kept).
pub(crate) const OUTPUT_BUFFER: usize = 8 * 1024;

/// How long the call may take and how the body is read.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Mode {
    /// Whole-call deadline and a body size limit.
    Unary {
        /// Deadline for the whole exchange.
        timeout: Duration,
        /// Body limit in bytes.
        limit: u64,
    },
    /// A stream: the response head must arrive within `head_timeout`; the body has no total
    /// deadline (the idle deadline is set per read through [`CallIo`]).
    Stream {
        /// Deadline for connect + send + response head.
        head_timeout: Duration,
    },
}

/// A stream response that is an event stream, or anything else read whole.
pub(crate) enum Opened {
    /// 2xx `text/event-stream`: read events from `reader`.
    Events {
        /// Status code.
        status: u16,
        /// Headers.
        headers: Vec<(String, String)>,
        /// The body, decoded if the server compressed it anyway.
        reader: BodyReader,
    },
    /// Any other response (an error status, a JSON-RPC error as `application/json`).
    Whole(HttpResponse),
}

fn to_http(req: &HttpRequest, mode: Mode) -> Result<ureq::http::Request<Vec<u8>>, Outcome> {
    too_long_line(req)?;
    let mut b = ureq::http::Request::builder()
        .method(req.method.as_str())
        .uri(req.url.as_str());
    for (n, v) in &req.headers {
        b = b.header(n.as_str(), v.as_str());
    }
    if let Mode::Stream { .. } = mode
        && req.header("accept-encoding").is_none()
    {
        // Compression makes proxies and servers buffer SSE; ask for identity.
        b = b.header("accept-encoding", "identity");
    }
    b.body(req.body.clone()).map_err(|e| {
        Outcome::transport(
            ErrorName::InvalidRequest,
            RequestSent::No,
            format!("request not sent: invalid request line or header: {e}"),
        )
        .with_retry(RetryAdvice::Never)
    })
}

/// An unsent `InvalidRequest` when the request line or a header line would not fit in the
/// transport's output buffer, which ureq writes a request head into line by line
/// ([`OUTPUT_BUFFER`]): ureq would fail mid-head, after sending the lines before it.
fn too_long_line(req: &HttpRequest) -> Result<(), Outcome> {
    // "METHOD URL HTTP/1.1\r\n" (the URL bounds its path) and "name: value\r\n".
    let line = std::iter::once((req.method.as_str(), req.url.as_str(), 12))
        .chain(req.headers.iter().map(|(n, v)| (n.as_str(), v.as_str(), 4)))
        .find(|(a, b, extra)| a.len() + b.len() + extra > OUTPUT_BUFFER);
    match line {
        None => Ok(()),
        Some((a, b, extra)) => Err(Outcome::transport(
            ErrorName::InvalidRequest,
            RequestSent::No,
            format!(
                "request not sent: the line of {a} is {} bytes, more than the {OUTPUT_BUFFER} \
                 a request head line may take",
                a.len() + b.len() + extra
            ),
        )
        .with_retry(RetryAdvice::Never)),
    }
}

fn collect_headers(parts: &ureq::http::response::Parts) -> Vec<(String, String)> {
    parts
        .headers
        .iter()
        .map(|(n, v)| {
            // `http` keeps names lower-case; values are nearly always UTF-8, which one
            // check confirms (the lossy conversion walked every value in chunks: about 300
            // instructions per send, bench-driver under callgrind).
            let value = match std::str::from_utf8(v.as_bytes()) {
                Ok(text) => text.to_owned(),
                Err(_) => String::from_utf8_lossy(v.as_bytes()).into_owned(),
            };
            (n.as_str().to_owned(), value)
        })
        .collect()
}

fn millis(d: Duration) -> u128 {
    d.as_millis()
}

/// Runs one exchange. The caller has entered `io` ([`CallIo::enter`]).
fn run(
    net: &Net<'_>,
    req: &HttpRequest,
    mode: Mode,
    connect_timeout: Duration,
    io: &Arc<CallIo>,
) -> Result<ureq::http::Response<ureq::Body>, Outcome> {
    let request = to_http(req, mode)?;
    let proxy = net.proxies.for_url(&req.url);
    let configured = net.agent.configure_request(request).proxy(proxy.clone());
    let configured = match mode {
        Mode::Unary { timeout, .. } => configured
            .timeout_global(Some(timeout))
            .timeout_connect(Some(connect_timeout.min(timeout))),
        Mode::Stream { head_timeout } => configured
            .timeout_connect(Some(connect_timeout.min(head_timeout)))
            .timeout_send_request(Some(head_timeout))
            .timeout_send_body(Some(head_timeout))
            .timeout_recv_response(Some(head_timeout)),
    };
    net.agent.run(configured.build()).map_err(|e| {
        if let ureq::Error::ConnectProxyFailed(m) = &e {
            return super::proxy::refused_outcome(m, proxy.as_ref());
        }
        let o = transport_outcome(&e, io, mode, connect_timeout);
        // Behind a CONNECT proxy every local connection is the proxy's: say so.
        if let Some(p) = &proxy
            && matches!(o.error, Some(ErrorName::ConnectFailed | ErrorName::Dns))
        {
            let message = format!(
                "proxy {}:{} could not be reached: {}",
                p.host(),
                p.port(),
                o.message.as_deref().unwrap_or("connection failed")
            );
            return o.with_message(message);
        }
        o
    })
}

/// What an exchange goes through: the agent and the client's proxies.
#[derive(Clone, Copy)]
pub(crate) struct Net<'a> {
    /// The ureq agent (pool, TLS, resolver).
    pub(crate) agent: &'a ureq::Agent,
    /// The proxies, chosen per URL.
    pub(crate) proxies: &'a super::proxy::Proxies,
    /// The plain-HTTP fast path, when plain http is allowed.
    pub(crate) plain: Option<&'a Arc<Plain>>,
}

impl<'a> Net<'a> {
    /// The fast path and where `req` goes on it, when it takes `req`: plain http, no proxy
    /// chosen for the URL, nothing ureq would treat differently ([`Plain::target`]).
    fn plain_for<'r>(&self, req: &'r HttpRequest) -> Option<(&'a Arc<Plain>, Target<'r>)> {
        let plain = self.plain?;
        let target = Plain::target(&plain_req(req))?;
        if self.proxies.for_url(&req.url).is_some() {
            return None;
        }
        Some((plain, target))
    }

    /// `req` exchanged on the fast path when it takes it ([`Net::plain_for`]), within the
    /// budget `mode` gives (a call's whole deadline, a stream's head deadline), a failure
    /// as the call's outcome; `None` when `req` goes through ureq.
    fn plain_exchange(
        &self,
        req: &HttpRequest,
        mode: Mode,
        connect_timeout: Duration,
        io: &CallIo,
    ) -> Option<Result<(Head, PlainBody), Outcome>> {
        let (plain, target) = self.plain_for(req)?;
        if let Err(o) = too_long_line(req) {
            return Some(Err(o));
        }
        let budget = match mode {
            Mode::Unary { timeout, .. } => Budget::Call {
                timeout,
                connect: connect_timeout.min(timeout),
            },
            Mode::Stream { head_timeout } => Budget::Stream {
                connect: connect_timeout.min(head_timeout),
                head: head_timeout,
            },
        };
        let config = self.agent.config();
        Some(
            super::plain::exchange(plain, &plain_req(req), &target, budget, config, io)
                .map_err(|f| failure_outcome(f, io, mode, connect_timeout)),
        )
    }
}

/// `req` as the fast path takes it.
fn plain_req(req: &HttpRequest) -> Req<'_> {
    Req {
        method: &req.method,
        url: &req.url,
        headers: &req.headers,
        body: &req.body,
    }
}

/// A response body to read incrementally: ureq's reader, or the fast path's (decoded from
/// gzip when the server compressed it, as ureq's is).
pub(crate) enum BodyReader {
    /// From ureq.
    Ureq(ureq::BodyReader<'static>),
    /// From the plain fast path.
    Plain(PlainBody),
    /// From the plain fast path, gzip decoded.
    Gzip(Box<flate2::read::MultiGzDecoder<PlainBody>>),
}

impl BodyReader {
    fn plain(body: PlainBody, gzip: bool) -> BodyReader {
        if gzip {
            BodyReader::Gzip(Box::new(flate2::read::MultiGzDecoder::new(body)))
        } else {
            BodyReader::Plain(body)
        }
    }
}

impl Read for BodyReader {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        match self {
            BodyReader::Ureq(r) => r.read(buf),
            BodyReader::Plain(r) => r.read(buf),
            // As ureq's decoder: its own errors as a decompression failure.
            BodyReader::Gzip(r) => r.read(buf).map_err(|e| {
                if e.get_ref()
                    .is_some_and(|i| i.is::<ureq::Error>() || i.is::<Malformed>())
                {
                    e
                } else {
                    ureq::Error::Decompress("gzip", e).into_io()
                }
            }),
        }
    }
}

/// The outcome of a fast-path failure, as ureq's failure would map.
fn failure_outcome(f: Failure, io: &CallIo, mode: Mode, connect_timeout: Duration) -> Outcome {
    match f {
        Failure::Ureq(e) => transport_outcome(&e, io, mode, connect_timeout),
        Failure::Response(_) if io.aborted() => aborted_outcome(io),
        Failure::Response(e) => reset(io, format!("malformed HTTP response: {e}")),
    }
}

/// Reads `reader` to its end into `bytes`; ureq's `BodyExceedsLimit` past `limit` bytes.
fn read_limited(reader: &mut BodyReader, limit: u64, bytes: &mut Vec<u8>) -> std::io::Result<()> {
    reader.take(limit.saturating_add(1)).read_to_end(bytes)?;
    if bytes.len() as u64 > limit {
        return Err(ureq::Error::BodyExceedsLimit(limit).into_io());
    }
    Ok(())
}

/// A call's response before its body is read.
struct CallAnswer {
    status: u16,
    headers: Vec<(String, String)>,
    /// `Content-Length` (0 when absent or when the body is decoded from gzip).
    size_hint: u64,
    reader: BodyReader,
}

/// Sends a call's request (on the fast path when it takes it, else through ureq): the
/// response before its body is read.
fn call_exchange(
    net: &Net<'_>,
    req: &HttpRequest,
    mode: Mode,
    connect_timeout: Duration,
    io: &Arc<CallIo>,
) -> Result<CallAnswer, Outcome> {
    if let Some(answer) = net.plain_exchange(req, mode, connect_timeout, io) {
        let (head, body) = answer?;
        let size_hint = if head.gzip {
            0
        } else {
            header_in(&head.headers, "content-length")
                .and_then(|v| v.trim().parse::<u64>().ok())
                .unwrap_or(0)
        };
        return Ok(CallAnswer {
            status: head.status,
            reader: BodyReader::plain(body, head.gzip),
            headers: head.headers,
            size_hint,
        });
    }
    let (parts, body) = run(net, req, mode, connect_timeout, io)?.into_parts();
    Ok(CallAnswer {
        status: parts.status.as_u16(),
        headers: collect_headers(&parts),
        size_hint: body.content_length().unwrap_or(0),
        reader: BodyReader::Ureq(body.into_with_config().reader()),
    })
}

/// Maps an error from reading a call's body: a malformed answer on the fast path, else
/// ureq's error inside the I/O error (as ureq's `read_to_vec` hands it).
fn call_body_outcome(
    e: std::io::Error,
    io: &CallIo,
    mode: Mode,
    connect_timeout: Duration,
) -> Outcome {
    if !io.aborted()
        && let Some(m) = e.get_ref().and_then(|i| i.downcast_ref::<Malformed>())
    {
        return reset(io, format!("malformed HTTP response: {m}"));
    }
    transport_outcome(&ureq::Error::from(e), io, mode, connect_timeout)
}

/// A body still encoded after ureq's decoding (ureq decodes gzip and strips the header;
/// any other `Content-Encoding` would reach the caller as compressed bytes): refused with a
/// clear outcome instead of being handed on as garbage.
fn refuse_undecoded(status: u16, headers: &[(String, String)]) -> Result<(), Outcome> {
    let Some(enc) = header_in(headers, "content-encoding") else {
        return Ok(());
    };
    if enc.trim().is_empty() || enc.trim().eq_ignore_ascii_case("identity") {
        return Ok(());
    }
    let message = format!(
        "response body uses Content-Encoding {:?}, which this driver does not decode (it asks for gzip or identity); refused instead of passing compressed bytes on",
        enc.trim()
    );
    Err(Outcome::malformed(message, RetryAdvice::Never).with_http_status(status))
}

/// The largest body buffer reserved up front from a response's `Content-Length`.
const PRESIZE_MAX: u64 = 1024 * 1024;

/// A non-streaming exchange: the whole response, or a transport outcome (or a malformed
/// one for a body in an encoding the driver cannot decode).
pub(crate) fn unary(
    net: Net<'_>,
    req: &HttpRequest,
    timeout: Duration,
    connect_timeout: Duration,
    limit: u64,
    io: &Arc<CallIo>,
) -> Result<HttpResponse, Outcome> {
    let _entered = io.enter();
    let mode = Mode::Unary { timeout, limit };
    let response = call_exchange(&net, req, mode, connect_timeout, io).and_then(|answer| {
        let CallAnswer {
            status,
            headers,
            size_hint,
            mut reader,
        } = answer;
        refuse_undecoded(status, &headers)?;
        // Sized from Content-Length (within the limit and a cap: the header is the server's
        // word) so that a small body is read in one pass instead of growing from nothing
        // through several reads.
        let size_hint = size_hint.min(limit).min(PRESIZE_MAX);
        let mut bytes = Vec::with_capacity(usize::try_from(size_hint).unwrap_or(0));
        read_limited(&mut reader, limit, &mut bytes)
            .map_err(|e| call_body_outcome(e, io, mode, connect_timeout))?;
        Ok(HttpResponse {
            status,
            headers,
            body: bytes,
        })
    });
    unary_end(response, io)
}

/// The end of a unary exchange: the socket detached, an aborted call failed.
fn unary_end(
    response: Result<HttpResponse, Outcome>,
    io: &Arc<CallIo>,
) -> Result<HttpResponse, Outcome> {
    io.detach();
    // A shut-down socket may read as a clean end: an aborted call never succeeds.
    if io.aborted() {
        return Err(aborted_outcome(io));
    }
    response
}

/// Opens a stream: an event-stream body to read incrementally, or the whole response.
pub(crate) fn open_stream(
    net: Net<'_>,
    req: &HttpRequest,
    head_timeout: Duration,
    connect_timeout: Duration,
    limit: u64,
    io: &Arc<CallIo>,
) -> Result<Opened, Outcome> {
    let _entered = io.enter();
    let mode = Mode::Stream { head_timeout };
    let opened = open_inner(&net, req, mode, limit, connect_timeout, io);
    if io.aborted() {
        io.detach();
        return Err(aborted_outcome(io));
    }
    if !matches!(opened, Ok(Opened::Events { .. })) {
        io.detach();
    }
    opened
}

fn open_inner(
    net: &Net<'_>,
    req: &HttpRequest,
    mode: Mode,
    limit: u64,
    connect_timeout: Duration,
    io: &Arc<CallIo>,
) -> Result<Opened, Outcome> {
    let Mode::Stream { head_timeout } = mode else {
        unreachable!("open_inner is only called in stream mode")
    };
    let (status, headers, reader) =
        if let Some(answer) = net.plain_exchange(req, mode, connect_timeout, io) {
            let (head, body) = answer?;
            let reader = BodyReader::plain(body, head.gzip);
            (head.status, head.headers, reader)
        } else {
            let response = run(net, req, mode, connect_timeout, io)?;
            let (parts, body) = response.into_parts();
            let headers = collect_headers(&parts);
            let reader = BodyReader::Ureq(body.into_with_config().reader());
            (parts.status.as_u16(), headers, reader)
        };
    refuse_undecoded(status, &headers)?;
    let is_sse = header_in(&headers, "content-type")
        .map(|ct| {
            ct.split(';')
                .next()
                .unwrap_or("")
                .trim()
                .eq_ignore_ascii_case("text/event-stream")
        })
        .unwrap_or(false);
    if (200..300).contains(&status) && is_sse {
        return Ok(Opened::Events {
            status,
            headers,
            reader,
        });
    }
    // Not an event stream: read it whole (bounded by the head timeout) and classify it.
    io.set_deadline(Some(Instant::now() + head_timeout));
    let mut bytes = Vec::new();
    let mut reader = reader;
    let read = read_limited(&mut reader, limit, &mut bytes);
    io.clear_deadline();
    match read {
        Ok(_) => Ok(Opened::Whole(HttpResponse {
            status,
            headers,
            body: bytes,
        })),
        Err(e) => Err(read_error_outcome(&e, io, head_timeout)),
    }
}

/// Maps an error from reading a body (`std::io::Error` wrapping a `ureq::Error`).
pub(crate) fn read_error_outcome(e: &std::io::Error, io: &CallIo, idle: Duration) -> Outcome {
    if io.aborted() {
        return aborted_outcome(io);
    }
    if io.idle_fired() {
        return Outcome::transport(
            ErrorName::Timeout,
            RequestSent::Unknown,
            format!("no data for {} ms (idle timeout)", millis(idle)),
        );
    }
    if let Some(inner) = e.get_ref().and_then(|i| i.downcast_ref::<ureq::Error>()) {
        return transport_outcome(inner, io, Mode::Stream { head_timeout: idle }, idle);
    }
    if let Some(m) = e.get_ref().and_then(|i| i.downcast_ref::<Malformed>()) {
        return reset(io, format!("malformed HTTP response: {m}"));
    }
    reset(
        io,
        format!("connection failed while reading the response: {e}"),
    )
}

/// The outcome of a call aborted by the caller ([`super::AbortHandle`]): a `transport`
/// `Reset` the caller chose, so no retry advice beyond what `request_sent` allows.
pub(crate) fn aborted_outcome(io: &CallIo) -> Outcome {
    Outcome::transport(
        ErrorName::Reset,
        sent(io),
        "aborted by the caller (connection shut down)".to_owned(),
    )
}

fn reset(io: &CallIo, message: String) -> Outcome {
    if io.wrote() {
        Outcome::transport(ErrorName::Reset, RequestSent::Unknown, message)
    } else {
        Outcome::transport(ErrorName::ConnectFailed, RequestSent::No, message)
    }
}

fn sent(io: &CallIo) -> RequestSent {
    if io.wrote() {
        RequestSent::Unknown
    } else {
        RequestSent::No
    }
}

/// Maps a ureq error to a `transport` outcome, deciding `request_sent` from whether any
/// request byte was written.
#[allow(
    clippy::too_many_lines,
    reason = "one match over ureq's error kinds, each arm a line of mapping; split, the table would be harder to check against ureq's enum"
)]
pub(crate) fn transport_outcome(
    e: &ureq::Error,
    io: &CallIo,
    mode: Mode,
    connect_timeout: Duration,
) -> Outcome {
    use std::io::ErrorKind;
    if io.aborted() {
        return aborted_outcome(io);
    }
    if let Some(tls) = super::tls::rustls_error(e) {
        return super::tls::outcome(tls);
    }
    if let ureq::Error::Io(ioe) = e
        && let Some(refused) = ioe
            .get_ref()
            .and_then(|i| i.downcast_ref::<super::dns::Refused>())
    {
        return refused.outcome();
    }
    match e {
        ureq::Error::ConnectProxyFailed(m) => super::proxy::refused_outcome(m, None),
        ureq::Error::Timeout(t) => {
            if io.idle_fired() {
                return Outcome::transport(
                    ErrorName::Timeout,
                    RequestSent::Unknown,
                    "stream idle timeout".to_owned(),
                );
            }
            let message = match (t, mode) {
                (ureq::Timeout::Connect, _) if !io.wrote() => {
                    format!("connect timeout after {} ms", millis(connect_timeout))
                }
                (_, Mode::Unary { timeout, .. }) => {
                    format!("call timeout after {} ms ({t})", millis(timeout))
                }
                (_, Mode::Stream { head_timeout }) => {
                    format!("no response head within {} ms ({t})", millis(head_timeout))
                }
            };
            Outcome::transport(ErrorName::Timeout, sent(io), message)
        }
        ureq::Error::HostNotFound => Outcome::transport(
            ErrorName::Dns,
            RequestSent::No,
            "host name did not resolve".to_owned(),
        ),
        ureq::Error::ConnectionFailed => Outcome::transport(
            ErrorName::ConnectFailed,
            RequestSent::No,
            "connection failed".to_owned(),
        ),
        ureq::Error::BodyExceedsLimit(n) => {
            let limit = match mode {
                Mode::Unary { limit, .. } => limit,
                Mode::Stream { .. } => *n,
            };
            // The server answered: the request was received, and the same call would
            // produce the same body.
            Outcome::transport(
                ErrorName::ResponseTooLarge,
                RequestSent::Unknown,
                format!("response body larger than the {limit}-byte limit"),
            )
            .with_retry(RetryAdvice::Never)
        }
        ureq::Error::Io(ioe) => match ioe.kind() {
            ErrorKind::ConnectionRefused if !io.wrote() => Outcome::transport(
                ErrorName::ConnectFailed,
                RequestSent::No,
                format!("connection refused: {ioe}"),
            ),
            ErrorKind::TimedOut | ErrorKind::WouldBlock => {
                Outcome::transport(ErrorName::Timeout, sent(io), format!("timed out: {ioe}"))
            }
            _ => reset(io, format!("connection failed: {ioe}")),
        },
        ureq::Error::Tls(m) => {
            Outcome::transport(ErrorName::Tls, RequestSent::No, format!("TLS: {m}"))
                .with_reason("handshake".to_owned())
        }
        ureq::Error::TlsRequired => Outcome::transport(
            ErrorName::Tls,
            RequestSent::No,
            "plain http refused (allow_http is off)".to_owned(),
        ),
        ureq::Error::RequireHttpsOnly(m) => Outcome::transport(
            ErrorName::InvalidRequest,
            RequestSent::No,
            format!("plain http refused (allow_http is off): {m}"),
        )
        .with_retry(RetryAdvice::Never)
        .with_hint(
            "plain http is refused unless the client allows it (ClientConfig::allow_http), \
                 for local development only"
                .to_owned(),
        ),
        ureq::Error::BadUri(m) => Outcome::transport(
            ErrorName::InvalidRequest,
            RequestSent::No,
            format!("invalid URL: {m}"),
        )
        .with_retry(RetryAdvice::Never),
        ureq::Error::Protocol(p) => reset(io, format!("malformed HTTP response: {p}")),
        other => reset(io, format!("HTTP failure: {other}")),
    }
}
