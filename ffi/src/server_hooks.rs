//! What a server's before/after-execute hooks report, written by the core so every binding
//! says it the same way: the stable hint appended to a FAILED text (`[retryable=false;
//! reason=quota]`) and the CANCELED status of a request refused before it ran (an admission
//! cancel, marked so a client can tell it from a cancel it asked for).

use std::ffi::c_char;

use a2a::model::{self, WireForm};
use a2a::outcome::RemoteHint;
use a2a::server;
use a2a::version::{Binding, ProtocolVersion};

use crate::buffer::a2a_buffer;
use crate::handle::try_mut;
use crate::header::{a2a_header, headers_from};
use crate::panic::ffi_panic_boundary;
use crate::result::a2a_result;
use crate::view::{try_input, try_str};

/// Appends the stable hint `[retryable=<r>; key=value; ...]` to `out`: `retryable` NULL for
/// none (else it comes first), then `pairs` (`a2a_header`s used as key/value, UTF-8, read
/// during the call only) in order; characters that would break the grammar (`[ ] ; =` and
/// controls) become `_`, pairs with an empty key are dropped. Append it to a FAILED text or
/// an error message after one space: clients parse it into their outcome's remote hint.
///
/// Errors: `A2A_NULL_PARAMETER`, `A2A_INVALID_UTF8`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_server_hint_text(
    retryable: *const bool,
    pairs: *const a2a_header,
    pairs_len: usize,
    out: *mut a2a_buffer,
) -> a2a_result {
    ffi_panic_boundary! {
        let buf = try_mut!(out);
        // SAFETY: the header requires `pairs` to hold `pairs_len` valid entries.
        let pairs = try_input!(unsafe { headers_from(pairs, pairs_len) });
        // SAFETY: NULL or a readable bool, by the header's contract.
        let retryable = unsafe { retryable.as_ref() }.copied();
        let hint = RemoteHint {
            retryable,
            pairs: pairs.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect(),
        };
        buf.set_error(None);
        buf.bytes.extend_from_slice(server::format_hint(&hint).as_bytes());
        a2a_result::A2A_OK
    }
}

/// Appends to `out` the CANCELED `TaskStatus` (A2A 1.0 ProtoJSON, the canonical form that
/// `a2a_server_result_response` and `a2a_server_event_frame` read) of a request refused
/// before it ran: its agent message (`message_id`, with the task's `task_id` and
/// `context_id`) reads `<admission prefix> <reason>` and carries the cancel-origin metadata
/// `admission`, which the core's client classifier reads. Strings are UTF-8, read during
/// the call only.
///
/// Errors: `A2A_NULL_PARAMETER`, `A2A_INVALID_UTF8`.
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub extern "C" fn a2a_server_admission_status(
    task_id: *const c_char,
    task_id_len: usize,
    context_id: *const c_char,
    context_id_len: usize,
    message_id: *const c_char,
    message_id_len: usize,
    reason: *const c_char,
    reason_len: usize,
    out: *mut a2a_buffer,
) -> a2a_result {
    ffi_panic_boundary! {
        let buf = try_mut!(out);
        let task_id = try_str!(task_id, task_id_len);
        let context_id = try_str!(context_id, context_id_len);
        let message_id = try_str!(message_id, message_id_len);
        let reason = try_str!(reason, reason_len);
        let status = server::admission_canceled(task_id, context_id, message_id, reason);
        match model::to_vec(&status, WireForm::new(ProtocolVersion::V1_0, Binding::JsonRpc)) {
            Ok(json) => {
                buf.set_error(None);
                buf.bytes.extend_from_slice(&json);
                a2a_result::A2A_OK
            }
            // A status built from UTF-8 strings always serializes; kept typed, not a panic.
            Err(e) => {
                buf.set_error(Some(format!("admission status: {e}")));
                a2a_result::A2A_SERVER_REPLY
            }
        }
    }
}
