//! Streaming responses: proxy-safe headers, SSE frames for stream events and errors, and a
//! sans-IO keep-alive schedule.

use serde::Serialize;
use serde::ser::{SerializeMap, Serializer};

use super::error::A2aError;
use super::request::IncomingRequest;
use super::response::{Served, jsonrpc_error_body, rest_error_body};
use crate::model::{InForm, ModelError, StreamEvent};
use crate::outcome::{Channel, ErrorName};
use crate::sse::encoder::OutEvent;
use crate::time::Millis;
use crate::version::{Binding, ProtocolVersion};

/// Headers of a streaming response. `Cache-Control: no-store` and `X-Accel-Buffering: no`
/// keep caches and buffering proxies (nginx) from holding events back. Never compress an
/// event stream (no `Content-Encoding`): compressors buffer, and a stream that is never
/// flushed looks dead to the client.
pub const STREAM_HEADERS: [(&str, &str); 3] = [
    ("Content-Type", "text/event-stream"),
    ("Cache-Control", "no-store"),
    ("X-Accel-Buffering", "no"),
];

/// [`STREAM_HEADERS`] as owned pairs.
pub fn stream_headers() -> Vec<(String, String)> {
    STREAM_HEADERS
        .iter()
        .map(|(n, v)| ((*n).to_owned(), (*v).to_owned()))
        .collect()
}

/// Appends one SSE event with [`crate::sse`]'s encoder: an optional `event:` line (line
/// breaks removed), then `data` as one `data:` line per line of it (CR, LF and CRLF all
/// end a line, as decoders read them), then the blank line that dispatches it.
pub fn write_event(out: &mut Vec<u8>, event_type: Option<&str>, data: &[u8]) {
    let clean: Option<Vec<u8>> =
        event_type.map(|t| t.bytes().filter(|b| *b != b'\r' && *b != b'\n').collect());
    let mut ev = OutEvent::new(data);
    ev.event_type = clean.as_deref();
    ev.write_to(out)
        .expect("no id is set and the event type has no line break");
}

/// One SSE frame and what it reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame {
    /// The bytes to write.
    pub bytes: Vec<u8>,
    /// What it reports, for the tally (count the last frame of a stream).
    pub served: Served,
}

/// The frame of one stream event: JSON-RPC wraps it in a response with the request's id;
/// HTTP+JSON sends the bare event.
pub fn event_frame(
    req: &IncomingRequest<'_>,
    event: &StreamEvent<'_>,
) -> Result<Frame, ModelError> {
    let form = req.form();
    let json = match req.binding {
        Binding::JsonRpc => {
            struct Env<'r, 'e, 'a>(&'r IncomingRequest<'r>, InForm<'e, StreamEvent<'a>>);
            impl Serialize for Env<'_, '_, '_> {
                fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                    let mut m = s.serialize_map(Some(3))?;
                    m.serialize_entry("jsonrpc", "2.0")?;
                    m.serialize_entry("id", &self.0.id)?;
                    m.serialize_entry("result", &self.1)?;
                    m.end()
                }
            }
            serde_json::to_vec(&Env(req, InForm(event, form)))?
        }
        Binding::HttpJson => serde_json::to_vec(&InForm(event, form))?,
    };
    let mut bytes = Vec::with_capacity(json.len() + 8);
    write_event(&mut bytes, None, &json);
    Ok(Frame {
        bytes,
        served: Served::of_event(Some(req.method), event),
    })
}

/// The frame of an error after the stream started. 1.0 sends it as `event: error` (as the
/// Python SDK does); 0.3 as a plain `data:` event. JSON-RPC carries an error response with
/// the request id, HTTP+JSON a google.rpc.Status body.
pub fn error_frame(req: &IncomingRequest<'_>, error: &A2aError) -> Frame {
    let json = match req.binding {
        Binding::JsonRpc => jsonrpc_error_body(req.version, req.id.as_ref(), error),
        Binding::HttpJson => rest_error_body(error),
    };
    let mut bytes = Vec::with_capacity(json.len() + 24);
    let event_type = (req.version == ProtocolVersion::V1_0).then_some("error");
    write_event(&mut bytes, event_type, &json);
    Frame {
        bytes,
        served: Served {
            method: Some(req.method),
            channel: Channel::Protocol,
            code: match error.name {
                ErrorName::Other => error.code.to_string(),
                n => n.as_str().to_owned(),
            },
            rpc_code: Some(error.code),
            state: None,
        },
    }
}

/// When to write `: keep-alive` comments on a quiet stream, so that idle timeouts of load
/// balancers and proxies (often 30–60 s) do not cut it. Sans-IO: the caller passes `now`
/// and the time of its last write, and arms a timer for [`KeepAlive::next_due`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeepAlive {
    /// Silence allowed before a comment is written.
    pub interval: Millis,
}

impl Default for KeepAlive {
    /// 15 s, what sse-starlette (the Python SDK's SSE layer) uses.
    fn default() -> KeepAlive {
        KeepAlive {
            interval: Millis(15_000),
        }
    }
}

impl KeepAlive {
    /// The comment to write: an SSE comment line and a blank line.
    pub const COMMENT: &'static [u8] = crate::sse::encoder::KEEP_ALIVE;

    /// When the next comment is due, given the last write (event or comment).
    pub fn next_due(&self, last_write: Millis) -> Millis {
        last_write.saturating_add(self.interval)
    }

    /// Whether a comment is due at `now`. After writing it, pass `now` as the last write.
    pub fn is_due(&self, now: Millis, last_write: Millis) -> bool {
        now >= self.next_due(last_write)
    }

    /// How long the caller may sleep at `now` before the next comment is due (zero when
    /// one is due already).
    pub fn wait(&self, now: Millis, last_write: Millis) -> Millis {
        self.next_due(last_write).saturating_sub(now)
    }
}
