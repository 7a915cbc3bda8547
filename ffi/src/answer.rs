//! The agent's answer over the C ABI: one canonical JSON rendering, not a function per field.
//!
//! The normalized answer (task, message, artifacts, text | data | file parts, metadata; see
//! `core/src/answer`) is handed to C as its canonical JSON text: every binding already has a
//! JSON parser and turns that text into its own typed values (dataclasses, structs,
//! records). One rendering keeps the surface to three calls and lets the model grow without
//! new exports:
//!
//! - `a2a_outcome_info.result_json` (from `a2a_outcome_get_info`): the answer attached to an
//!   outcome the client returned (send, get, cancel; a stream's `END` outcome holds the
//!   assembled answer, an item's outcome its event).
//! - `a2a_answer_read`: the same rendering from a body the caller received itself (a
//!   binding with its own HTTP driver, captured streams, the shared fixtures).
//! - `a2a_client_send_message` / `a2a_client_stream_message` (in `driver.rs`): a message of
//!   any parts, given in the same canonical part shape.

use crate::buffer::a2a_buffer;
use crate::handle::try_mut;
use crate::panic::ffi_panic_boundary;
use crate::result::a2a_result;
use crate::view::try_bytes;
use crate::vocab::{a2a_binding, a2a_protocol_version};

/// Reads the agent's answer from a body received in `version` (an `a2a_protocol_version`)
/// over `binding` (an `a2a_binding`) and appends its canonical JSON to `out`. With
/// `is_stream` false, `body` is the whole response of a send, get or cancel call (JSON-RPC
/// response or HTTP+JSON body); with `is_stream` true, it is a whole `text/event-stream`
/// body, whose events are put together (artifact chunks with `append`) into the final
/// answer. `body` is read during the call only.
///
/// Returns `A2A_OK`, or `A2A_NONE` (nothing appended) for a stream without any event.
///
/// Errors (nothing appended; `a2a_buffer_last_error(out)` says what could not be read and
/// where, e.g. `invalid base64 in file bytes (...) at artifacts[0].parts[2].bytes`):
/// `A2A_NULL_PARAMETER`, `A2A_INVALID_ARGUMENT` (version or binding not a member),
/// `A2A_ANSWER_UNREADABLE`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_answer_read(
    body: *const u8,
    body_len: usize,
    version: u32,
    binding: u32,
    is_stream: bool,
    out: *mut a2a_buffer,
) -> a2a_result {
    ffi_panic_boundary! {
        let buf = try_mut!(out);
        let body = try_bytes!(body, body_len);
        let (Some(v), Some(b)) = (
            a2a_protocol_version::core_from_u32(version),
            a2a_binding::core_from_u32(binding),
        ) else {
            return a2a_result::A2A_INVALID_ARGUMENT;
        };
        let read = if is_stream {
            a2a::answer::read_event_stream(body, v, b)
        } else {
            a2a::answer::read_result(body, v, b).map(|r| Some(r.into_owned()))
        };
        match read {
            Ok(Some(r)) => {
                buf.set_error(None);
                buf.bytes
                    .extend_from_slice(a2a::answer::to_json_string(&r).as_bytes());
                a2a_result::A2A_OK
            }
            Ok(None) => {
                buf.set_error(None);
                a2a_result::A2A_NONE
            }
            Err(e) => {
                buf.set_error(Some(e.to_string()));
                a2a_result::A2A_ANSWER_UNREADABLE
            }
        }
    }
}

/// Renders an optional answer for an outcome handle.
#[cfg(feature = "client")]
pub(crate) fn render(r: Option<&a2a::model::SendResponse<'_>>) -> Option<String> {
    r.map(a2a::answer::to_json_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture() -> serde_json::Value {
        serde_json::from_str(include_str!("../../bindings/fixtures/answers.json")).unwrap()
    }

    fn vb(c: &serde_json::Value) -> (u32, u32) {
        let v = if c["version"] == "0.3" { 1 } else { 2 };
        let b = if c["binding"] == "jsonrpc" { 1 } else { 2 };
        (v, b)
    }

    fn read(body: &[u8], v: u32, b: u32, stream: bool) -> (a2a_result, String, String) {
        let mut buf = a2a_buffer {
            bytes: Vec::new(),
            last_error: String::new(),
        };
        let rc = a2a_answer_read(body.as_ptr(), body.len(), v, b, stream, &mut buf);
        (rc, String::from_utf8(buf.bytes).unwrap(), buf.last_error)
    }

    #[test]
    fn the_fixture_answers_read_through_the_c_abi() {
        let d = fixture();
        for c in d["results"].as_array().unwrap() {
            let (v, b) = vb(c);
            let (rc, json, _) = read(c["body"].to_string().as_bytes(), v, b, false);
            assert_eq!(rc, a2a_result::A2A_OK, "{}", c["name"]);
            let got: serde_json::Value = serde_json::from_str(&json).unwrap();
            assert_eq!(got, c["expect"], "{}", c["name"]);
        }
        for c in d["streams"].as_array().unwrap() {
            let (v, b) = vb(c);
            let body: String = c["events"]
                .as_array()
                .unwrap()
                .iter()
                .map(|e| format!("data: {}\n\n", e.as_str().unwrap()))
                .collect();
            let (rc, json, _) = read(body.as_bytes(), v, b, true);
            assert_eq!(rc, a2a_result::A2A_OK, "{}", c["name"]);
            let got: serde_json::Value = serde_json::from_str(&json).unwrap();
            assert_eq!(got, c["expect"], "{}", c["name"]);
        }
        let c = &d["unreadable"][0];
        let (v, b) = vb(c);
        let (rc, json, err) = read(c["body_text"].as_str().unwrap().as_bytes(), v, b, false);
        assert_eq!(rc, a2a_result::A2A_ANSWER_UNREADABLE);
        assert!(json.is_empty());
        assert!(err.ends_with(c["at"].as_str().unwrap()), "{err}");
        assert_eq!(read(b"", 1, 1, true).0, a2a_result::A2A_NONE);
        assert_eq!(read(b"{}", 9, 1, false).0, a2a_result::A2A_INVALID_ARGUMENT);
    }
}
