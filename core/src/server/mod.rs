//! The server side, for A2A servers embedded in other HTTP stacks.
//!
//! # Call order
//! 1. Read the request: [`parse_jsonrpc`] (a POST on the JSON-RPC interface) or
//!    [`parse_rest`] (any request under the HTTP+JSON interface). A refused request comes
//!    back as a [`RefusedRequest`]; answer `err.response()`. Refused before anything else:
//!    a `Host` the [`HostPolicy`] in [`ServerOptions::host`] does not answer for (421; a
//!    loopback listener must set one: DNS rebinding), a body not declared
//!    `application/json` or `application/a2a+json` (415: a web page's cross-origin
//!    "simple" request), a JSON-RPC batch, a REST id that decodes to `/`, a control
//!    character, `.` or `..` (`docs/serving.md` gives the reasons).
//! 2. Run the call ([`IncomingRequest::call`]) in your handler.
//! 3. Answer: [`result_response`] with a [`Reply`], or [`handler_error`] with an
//!    [`A2aError`]; for streaming methods write [`STREAM_HEADERS`], then one
//!    [`event_frame`] per event (and [`KeepAlive::COMMENT`] whenever [`KeepAlive`] says
//!    one is due), then close. An error after the stream started is an [`error_frame`].
//! 4. Count: every response and frame carries a [`Served`] (method, channel, code) to feed
//!    [`crate::tally`], so the server's own failure rate is visible even though every
//!    JSON-RPC error is an HTTP 200.
//!
//! ```
//! use a2a_core::model::{Message, Part, Role, SendResponse};
//! use a2a_core::model::params::Call;
//! use a2a_core::server::{self, Reply, ServerOptions};
//!
//! let body = br#"{"jsonrpc":"2.0","id":1,"method":"SendMessage",
//!     "params":{"message":{"messageId":"m-1","role":"ROLE_USER","parts":[{"text":"hi"}]}}}"#;
//! let headers = [("Content-Type", "application/json"), ("A2A-Version", "1.0")];
//! let response = match server::parse_jsonrpc(&headers, body, &ServerOptions::default()) {
//!     Err(refused) => refused.response(),
//!     Ok(req) => {
//!         let Call::SendMessage(p) = &req.call else { unreachable!() };
//!         let text = p.message.text().unwrap_or_default();
//!         let reply = SendResponse::Message(Message::new("m-2", Role::Agent, vec![Part::text(text)]));
//!         server::result_response(&req, Reply::Send(&reply)).unwrap()
//!     }
//! };
//! assert_eq!(response.status, 200);
//! assert_eq!(response.served.code, "message");
//! ```
//!
//! The card: [`CardBuilder`] writes one card with the 1.0 `supportedInterfaces` and the 0.3
//! fields (`url`, `preferredTransport`, `protocolVersion`, `additionalInterfaces`) for the
//! same interfaces, so clients of both versions can pick an interface.
//!
//! Versions follow the spec: the method name and `A2A-Version` decide (absent or empty
//! means 0.3), and every answer is written in the version and binding of the request.

mod card;
mod error;
mod failure;
mod host;
mod media;
mod request;
mod response;
mod stream;

pub use crate::method::{RestPath, match_rest_path};
pub use card::{CARD_PROTOCOL_VERSION_0_3, CardBuildError, CardBuilder, CardSkill};
pub use error::{A2aError, DOMAIN, PROTOCOL_ERRORS, code_of, default_message};
pub use failure::{
    ADMISSION_PREFIX, CANCEL_ORIGIN_KEY, CancelOrigin, ErrorId, FAILED_PREFIX, REQUESTED_TEXT,
    admission_canceled, cancel_origin, failed_update, failure_text, format_hint, requested_cancel,
};
pub use host::{HostPolicy, HostPolicyError, HostRefusal};
pub use request::{
    IncomingRequest, RefusedRequest, ServerOptions, parse_jsonrpc, parse_rest, parse_timestamp,
};
pub use response::{
    Reply, Response, Served, error_response, handler_error, jsonrpc_error_body, rest_error_body,
    result_response, write_in_form,
};
pub use stream::{
    Frame, KeepAlive, STREAM_HEADERS, error_frame, event_frame, stream_headers, write_event,
};
