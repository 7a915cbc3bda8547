//! Client request builders for every A2A method, both versions, both bindings.
//!
//! [`build`] turns a typed [`Call`] into a plain [`Request`]: HTTP method, path relative
//! to the interface URL, headers and body bytes. Nothing here does I/O; hand the request to
//! any HTTP stack (or [`crate::http1`]).
//!
//! ```
//! use a2a_core::envelope::{build, CallOptions, Interface, RpcId};
//! use a2a_core::model::{params::{Call, SendMessageParams}, Message};
//! use a2a_core::version::{Binding, ProtocolVersion};
//!
//! let iface = Interface::new(ProtocolVersion::V1_0, Binding::JsonRpc);
//! let msg = Message::user_text("msg-1", "tell me a joke");
//! let call = Call::SendMessage(SendMessageParams::new(msg));
//! let req = build(&iface, &call, &CallOptions::with_id(RpcId::Number(1))).unwrap();
//! assert_eq!(req.method.as_str(), "POST");
//! assert!(req.headers.iter().any(|(n, v)| n == "A2A-Version" && v == "1.0"));
//! ```
//!
//! # Retries
//! The message's `messageId` is the caller's: keep the [`Call`] and build it again with a
//! new JSON-RPC id (and the same `Idempotency-Key` header, if any) to retry the same message.

mod body;
mod encode;
mod reserved;

use std::fmt;

pub use crate::method::{HttpMethod, Method, REST_ROUTES, RestRoute, RestRouteEntry};
#[cfg(feature = "driver")]
pub(crate) use encode::{byte_class, is_header_name, is_header_value};
pub use encode::{decode as percent_decode, encode as percent_encode};
pub use reserved::{HeaderOwner, ReservedName, reserved_header, reserved_headers};

use crate::model::params::Call;
use crate::model::{ModelError, WireForm};
use crate::version::{Binding, ProtocolVersion};

/// A JSON-RPC request id: a string or an integer, as JSON-RPC allows.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum RpcId {
    /// A numeric id.
    Number(i64),
    /// A string id.
    String(String),
}

impl fmt::Display for RpcId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RpcId::Number(n) => write!(f, "{n}"),
            RpcId::String(s) => f.write_str(s),
        }
    }
}

impl serde::Serialize for RpcId {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            RpcId::Number(n) => s.serialize_i64(*n),
            RpcId::String(t) => s.serialize_str(t),
        }
    }
}

/// Generates string JSON-RPC ids from a caller-supplied seed and a counter (the core has
/// no randomness): `"<seed as 16 hex digits>-<counter>"`, counter from 1.
#[derive(Debug, Clone)]
pub struct IdGenerator {
    seed: u64,
    next: u64,
}

impl IdGenerator {
    /// A generator; pass random bits as `seed` so ids differ across processes.
    pub fn new(seed: u64) -> IdGenerator {
        IdGenerator { seed, next: 1 }
    }

    /// The next id.
    pub fn next_id(&mut self) -> RpcId {
        let n = self.next;
        self.next = self.next.wrapping_add(1);
        RpcId::String(format!("{:016x}-{n}", self.seed))
    }
}

/// The interface a request goes to: version, binding and (1.0) tenant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Interface {
    /// Protocol version spoken on this interface.
    pub version: ProtocolVersion,
    /// HTTP binding.
    pub binding: Binding,
    /// 1.0 tenant, copied exactly from the card's `AgentInterface.tenant` (empty = unset).
    pub tenant: Option<String>,
}

impl Interface {
    /// An interface without a tenant.
    pub fn new(version: ProtocolVersion, binding: Binding) -> Interface {
        Interface {
            version,
            binding,
            tenant: None,
        }
    }

    /// The JSON form this interface speaks.
    pub fn form(&self) -> WireForm {
        WireForm::new(self.version, self.binding)
    }

    fn tenant(&self) -> Option<&str> {
        self.tenant.as_deref().filter(|t| !t.is_empty())
    }
}

/// Per-call options: JSON-RPC id, extensions and extra headers.
#[derive(Debug, Clone, Default)]
pub struct CallOptions<'o> {
    /// The JSON-RPC id (required for JSON-RPC; ignored for HTTP+JSON).
    pub id: Option<RpcId>,
    /// Extension URIs to activate (`A2A-Extensions` in 1.0, `X-A2A-Extensions` in 0.3).
    pub extensions: &'o [&'o str],
    /// Caller headers appended as given: credentials, `traceparent`, `Idempotency-Key`...
    pub headers: &'o [(&'o str, &'o str)],
}

impl CallOptions<'_> {
    /// Options with only a JSON-RPC id.
    pub fn with_id(id: RpcId) -> CallOptions<'static> {
        CallOptions {
            id: Some(id),
            extensions: &[],
            headers: &[],
        }
    }
}

/// A built request: send `method` to the interface URL joined with `path`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    /// HTTP method.
    pub method: HttpMethod,
    /// Path relative to the interface URL: empty for JSON-RPC (post to the URL itself);
    /// for HTTP+JSON it starts with `/` and is appended to the URL's path, e.g.
    /// `/acme/tasks/t%2F1?historyLength=5`.
    pub path: String,
    /// Headers in order (names as written; compare case-insensitively).
    pub headers: Vec<(String, String)>,
    /// Body bytes (empty for GET and DELETE).
    pub body: Vec<u8>,
    /// The A2A method.
    pub a2a_method: Method,
    /// The JSON-RPC id the response must echo (JSON-RPC only).
    pub rpc_id: Option<RpcId>,
}

impl Request {
    /// The value of the first header named `name` (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// Why a request could not be built.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BuildError {
    /// The method does not exist in the interface's version (`ListTasks` in 0.3).
    #[error("{method} does not exist in protocol {version}")]
    NotInVersion {
        /// The method.
        method: &'static str,
        /// The version.
        version: ProtocolVersion,
    },
    /// A JSON-RPC call needs an id.
    #[error("a JSON-RPC request needs an id")]
    MissingId,
    /// A field the call carries cannot travel in this version or binding.
    #[error("{0}")]
    NotRepresentable(&'static str),
    /// A caller header has a bad name or value (CR/LF would inject headers).
    #[error("invalid header {0:?}: names must be tokens, values must not contain CR, LF or NUL")]
    BadHeader(String),
    /// A caller header names one the client writes itself (framing, transport or protocol,
    /// see [`reserved_header`]), or the extensions header next to the `extensions` option.
    #[error(
        "header {name:?} is set by the builder or the HTTP layer and cannot be given by the caller: {why}",
        name = .0,
        why = refusal(.0)
    )]
    ReservedHeader(String),
    /// An extension URI contains a comma or a character a header cannot carry.
    #[error("invalid extension URI {0:?}")]
    BadExtension(String),
    /// The model could not be written in the interface's form.
    #[error("cannot write the request body: {0}")]
    Model(#[from] ModelError),
}

/// Why `name` is refused (the text of [`BuildError::ReservedHeader`]).
fn refusal(name: &str) -> String {
    match reserved_header(name) {
        Some(r) => r.to_string(),
        None => {
            "the extensions header is written from the extensions option given with it".to_owned()
        }
    }
}

/// Content type of JSON-RPC requests (both versions) and 0.3 HTTP+JSON requests.
pub const CONTENT_TYPE_JSON: &str = "application/json";
/// Content type of 1.0 HTTP+JSON requests.
pub const CONTENT_TYPE_A2A_JSON: &str = "application/a2a+json";

/// Builds the request for `call` on `iface`.
pub fn build(
    iface: &Interface,
    call: &Call<'_>,
    opts: &CallOptions<'_>,
) -> Result<Request, BuildError> {
    build_with_id(iface, call, opts, opts.id.clone(), 0)
}

/// [`build`] with the JSON-RPC id given by value (`opts.id` is not read): the client's
/// machines hand over the id they drew instead of a copy of it, and the number of headers
/// they append to the request's (`more`), which its list has room for.
pub(crate) fn build_with_id(
    iface: &Interface,
    call: &Call<'_>,
    opts: &CallOptions<'_>,
    id: Option<RpcId>,
    more: usize,
) -> Result<Request, BuildError> {
    let method = call.method();
    if !method.exists_in(iface.version) {
        return Err(BuildError::NotInVersion {
            method: method.name(),
            version: iface.version,
        });
    }
    if iface.version == ProtocolVersion::V0_3 && iface.tenant().is_some() {
        return Err(BuildError::NotRepresentable(
            "a tenant is a 1.0 field; 0.3 interfaces have none",
        ));
    }
    body::check(call, iface.form())?;
    let (http_method, path, body, content_type, rpc_id) = match iface.binding {
        Binding::JsonRpc => {
            let id = id.ok_or(BuildError::MissingId)?;
            let body = body::jsonrpc(call, iface.form(), iface.tenant(), &id)?;
            (
                HttpMethod::Post,
                String::new(),
                body,
                Some(CONTENT_TYPE_JSON),
                Some(id),
            )
        }
        Binding::HttpJson => {
            let (verb, path, body) = body::rest(call, iface.version, iface.tenant())?;
            let ct = match (body.is_empty(), iface.version) {
                (true, _) => None,
                (false, ProtocolVersion::V0_3) => Some(CONTENT_TYPE_JSON),
                (false, ProtocolVersion::V1_0) => Some(CONTENT_TYPE_A2A_JSON),
            };
            (verb, path, body, ct, None)
        }
    };
    // Sized to fit: the client's machines keep the request while its call runs (an open
    // stream's, for its life; issue 28).
    let own = usize::from(content_type.is_some())
        + usize::from(method.is_streaming())
        + usize::from(iface.version.header_value().is_some())
        + usize::from(!opts.extensions.is_empty());
    let mut headers = Vec::with_capacity(own + opts.headers.len() + more);
    if let Some(ct) = content_type {
        headers.push(("Content-Type".to_owned(), ct.to_owned()));
    }
    if method.is_streaming() {
        headers.push(("Accept".to_owned(), "text/event-stream".to_owned()));
    }
    if let Some(v) = iface.version.header_value() {
        headers.push(("A2A-Version".to_owned(), v.to_owned()));
    }
    if !opts.extensions.is_empty() {
        for e in opts.extensions {
            if e.is_empty() || e.contains(',') || !encode::is_header_value(e) || e.trim() != *e {
                return Err(BuildError::BadExtension((*e).to_owned()));
            }
        }
        let name = match iface.version {
            ProtocolVersion::V0_3 => "X-A2A-Extensions",
            ProtocolVersion::V1_0 => "A2A-Extensions",
        };
        headers.push((name.to_owned(), opts.extensions.join(",")));
    }
    for (name, value) in opts.headers {
        check_header(name, value)?;
        // Two sources for one header: the `extensions` option wrote it already.
        let is_extensions = name.eq_ignore_ascii_case("a2a-extensions")
            || name.eq_ignore_ascii_case("x-a2a-extensions");
        if is_extensions && !opts.extensions.is_empty() {
            return Err(BuildError::ReservedHeader((*name).to_owned()));
        }
        headers.push(((*name).to_owned(), (*value).to_owned()));
    }
    Ok(Request {
        method: http_method,
        path,
        headers,
        body,
        a2a_method: method,
        rpc_id,
    })
}

/// Checks a caller header the way [`build`] does: the name must be an HTTP token, the value
/// must carry no CR, LF, NUL or other control byte, and the name must not be reserved
/// ([`reserved_header`]: framing, transport and protocol headers such as `Content-Length`,
/// `Connection`, `A2A-Version`). Front ends (the CLI) call it to refuse a bad header as a
/// usage error before anything is built.
///
/// # Errors
/// [`BuildError::BadHeader`] or [`BuildError::ReservedHeader`].
pub fn check_header(name: &str, value: &str) -> Result<(), BuildError> {
    if !encode::is_header_name(name) || !encode::is_header_value(value) {
        return Err(BuildError::BadHeader(name.to_owned()));
    }
    if reserved_header(name).is_some() {
        return Err(BuildError::ReservedHeader(name.to_owned()));
    }
    Ok(())
}

/// A user text message ready to send: `SendMessage` with one text part and the caller's
/// `message_id` (reuse it when retrying).
pub fn text_message<'a>(message_id: &'a str, text: &'a str) -> Call<'a> {
    Call::SendMessage(crate::model::params::SendMessageParams::new(
        crate::model::Message::user_text(message_id, text),
    ))
}
