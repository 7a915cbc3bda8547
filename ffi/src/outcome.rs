//! `a2a_outcome`: an immutable handle on one classified outcome, read in one call
//! (`a2a_outcome_get_info`).
//!
//! Outcomes come from the classifier, the stream tracker and the driver, or are built here
//! for transport failures (`a2a_outcome_transport`) by bindings whose HTTP driver is their
//! own. An outcome has no mutating calls: every view `a2a_outcome_get_info` and
//! `a2a_outcome_remote_hint_pair` return stays valid until `a2a_outcome_free`.

use std::ffi::c_char;

use a2a::outcome::{ErrorName, Outcome};

use crate::handle::{self, Handle, try_out, try_ref};
use crate::panic::ffi_panic_boundary;
use crate::result::a2a_result;
use crate::view::{a2a_str, try_str};
use crate::vocab::{
    a2a_binding, a2a_channel, a2a_error_name, a2a_protocol_version, a2a_request_sent, a2a_retry,
    a2a_task_state,
};

/// One outcome of an A2A call: exactly one channel, the details that channel carries and
/// what to do next. Immutable; free with `a2a_outcome_free`.
///
/// Methods: `a2a_outcome_transport` (constructor), `a2a_outcome_free`,
/// `a2a_outcome_get_info` (every field, the answer's JSON included, in one
/// `a2a_outcome_info`: the one way to read an outcome) and `a2a_outcome_remote_hint_pair`
/// (the remote hint's `key=value` pairs, `a2a_outcome_info.remote_hint_count` of them).
///
/// Threading: `Send`, not thread-safe (an immutable outcome may be read from several threads
/// only if the caller synchronises with its `_free`).
pub struct a2a_outcome {
    pub(crate) inner: Outcome,
    /// The canonical JSON of the answer the call returned (`a2a_outcome_info.result_json`).
    pub(crate) result: Option<String>,
}

impl Handle for a2a_outcome {}

impl a2a_outcome {
    /// Hands `outcome` to C as a new handle.
    pub(crate) fn into_raw(outcome: Outcome) -> *mut a2a_outcome {
        Self::into_raw_with(outcome, None)
    }

    /// Hands `outcome` and the rendered answer it came with to C as a new handle.
    pub(crate) fn into_raw_with(outcome: Outcome, result: Option<String>) -> *mut a2a_outcome {
        handle::into_raw(a2a_outcome {
            inner: outcome,
            result,
        })
    }
}

/// Builds a transport-channel outcome, for a binding whose HTTP driver is its own: the
/// call produced no HTTP response (connect refused, DNS, timeout, reset, TLS, breaker open,
/// card resolution, response too large). Retry advice follows `request_sent`: `backoff` when
/// the request provably never left, `unknown_outcome` otherwise.
///
/// `error`: an `a2a_error_name` from the transport group (201–299). `request_sent`: an
/// `a2a_request_sent`. `message`/`message_len`: UTF-8 detail text, copied (borrowed for the
/// call only); `(NULL, 0)` is an empty message. `out`: receives a new handle the caller owns
/// and must free with `a2a_outcome_free`; written on success only.
///
/// Errors: `A2A_NULL_PARAMETER`, `A2A_INVALID_UTF8`, `A2A_INVALID_ARGUMENT` (`error` is
/// not a transport name or `request_sent` not a member).
#[unsafe(no_mangle)]
pub extern "C" fn a2a_outcome_transport(
    error: u32,
    request_sent: u32,
    message: *const c_char,
    message_len: usize,
    out: *mut *mut a2a_outcome,
) -> a2a_result {
    ffi_panic_boundary! {
        let out = try_out!(out);
        let message = try_str!(message, message_len);
        let Some(error) = a2a_error_name::core_from_u32(error).filter(|e| is_transport(*e)) else {
            return a2a_result::A2A_INVALID_ARGUMENT;
        };
        let Some(sent) = a2a_request_sent::core_from_u32(request_sent) else {
            return a2a_result::A2A_INVALID_ARGUMENT;
        };
        out.set(a2a_outcome::into_raw(Outcome::transport(error, sent, message)));
        a2a_result::A2A_OK
    }
}

fn is_transport(e: ErrorName) -> bool {
    (a2a_error_name::from_core(e) as u32) >= 201
}

/// Frees an outcome. NULL is a no-op; must not be called twice. Every view obtained from
/// the outcome becomes invalid.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_outcome_free(outcome: *mut a2a_outcome) {
    ffi_panic_boundary! {
        // SAFETY: the header requires a pointer from this library, not yet freed.
        unsafe { handle::free(outcome) }
    }
}

/// The `index`-th `key=value` pair of the remote's stable hint, in order.
///
/// `key`, `value`: both written on success only; the views point into the outcome and are
/// valid until `a2a_outcome_free`.
///
/// Errors: `A2A_NULL_PARAMETER`, `A2A_INVALID_ARGUMENT` (`index` >= the count).
#[unsafe(no_mangle)]
pub extern "C" fn a2a_outcome_remote_hint_pair(
    outcome: *const a2a_outcome,
    index: usize,
    key: *mut a2a_str,
    value: *mut a2a_str,
) -> a2a_result {
    ffi_panic_boundary! {
        let o = try_ref!(outcome);
        let key = try_out!(key);
        let value = try_out!(value);
        match o.inner.remote_hint.as_ref().and_then(|h| h.pairs.get(index)) {
            Some((k, v)) => {
                key.set(a2a_str::from_str(k));
                value.set(a2a_str::from_str(v));
                a2a_result::A2A_OK
            }
            None => a2a_result::A2A_INVALID_ARGUMENT,
        }
    }
}

/// Every scalar of an outcome and a view of each of its texts, filled by one call
/// (`a2a_outcome_get_info`, the one way to read an outcome; the per-field accessors it
/// replaced are mapped to these fields in `ffi/README.md`). Each `has_*` flag says
/// whether the field after it is present (the field is zero when absent). Views point
/// into the outcome: valid until `a2a_outcome_free` (for an outcome borrowed from a stream
/// tracker or a client stream, until that handle's next mutating call); an absent text is
/// the view `(NULL, 0)`. Fields are only ever appended.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct a2a_outcome_info {
    /// The outcome's channel: exactly one, which says which fields below it carries.
    pub channel: a2a_channel,
    /// What to do next.
    pub retry: a2a_retry,
    /// Whether the outcome is a success (a completed task or a direct message).
    pub is_success: bool,
    /// Whether the task state is terminal.
    pub terminal: bool,
    /// Whether a FAILED status text carries exception detail beyond its error id (ADK's
    /// debug errors); the model text then carries only the error id.
    pub leaked_detail: bool,
    /// Whether `http_status` is present.
    pub has_http_status: bool,
    /// The HTTP status.
    pub http_status: u16,
    /// Whether `code` is present.
    pub has_code: bool,
    /// The error code (JSON-RPC `error.code` or REST `error.code`).
    pub code: i64,
    /// Whether `error_name` is present.
    pub has_error_name: bool,
    /// The typed error name (error channels): an `a2a_error_name`.
    pub error_name: u32,
    /// Whether `state` is present.
    pub has_state: bool,
    /// The normalized task state (task channel): an `a2a_task_state`.
    pub state: u32,
    /// Whether `retry_after_secs` is present.
    pub has_retry_after_secs: bool,
    /// `Retry-After` in seconds (delta-seconds, or an HTTP-date read against the
    /// classifier's `now_unix_seconds`).
    pub retry_after_secs: u64,
    /// Whether `remote_hint_retryable` is present.
    pub has_remote_hint_retryable: bool,
    /// The `retryable=true|false` flag of the remote's own stable hint (`[retryable=...]`).
    pub remote_hint_retryable: bool,
    /// Number of `key=value` pairs in the remote's stable hint (0 when there is none); read
    /// them with `a2a_outcome_remote_hint_pair`.
    pub remote_hint_count: usize,
    /// Whether `request_sent` is present.
    pub has_request_sent: bool,
    /// For the transport channel, whether the request may have reached the server: an
    /// `a2a_request_sent`.
    pub request_sent: u32,
    /// Whether `version` is present.
    pub has_version: bool,
    /// The protocol version the response was read as: an `a2a_protocol_version`.
    pub version: u32,
    /// Whether `binding` is present.
    pub has_binding: bool,
    /// The binding the response was read as: an `a2a_binding`.
    pub binding: u32,
    /// The exit status the `a2a` command-line tool gives this outcome, so that a binding's
    /// own tools can report the same: 0 success (a message, or a COMPLETED task), 3
    /// transport, HTTP or malformed response, 4 protocol error, 5 FAILED task, 6 CANCELED,
    /// REJECTED, INPUT_REQUIRED or AUTH_REQUIRED task, 7 a task not in a final state
    /// (SUBMITTED, WORKING, unknown).
    pub exit_code: i32,
    /// The `google.rpc.ErrorInfo` reason.
    pub reason: a2a_str,
    /// The error message (protocol or transport).
    pub message: a2a_str,
    /// The JSON-RPC `error.data` or REST `details`, as raw JSON text.
    pub data: a2a_str,
    /// The task id.
    pub task_id: a2a_str,
    /// The context id.
    pub context_id: a2a_str,
    /// The text of the task's status message, or of the direct message (present but empty
    /// is `(ptr, 0)` with a non-NULL `ptr`, not absent).
    pub text: a2a_str,
    /// The remote's 12-hex `error_id`.
    pub error_id: a2a_str,
    /// A version-mismatch or other hint for the caller.
    pub hint: a2a_str,
    /// A bounded excerpt of a non-JSON or unexpected body (e.g. a proxy's HTML page).
    pub body_excerpt: a2a_str,
    /// For a CANCELED task, who canceled it: `"requested"` (this client sent CancelTask for
    /// it, or the server marked it so), `"remote"` or `"admission"` (refused before it ran,
    /// by the server's marker). A static string, valid for the life of the program.
    pub cancel_origin: a2a_str,
    /// The canonical JSON of the answer the outcome carries (see `ffi/README.md` for its
    /// shape): a client outcome of send, get or cancel; a stream's end outcome holds the
    /// assembled answer, an item's outcome its event. Absent when it carries none (a
    /// failure, an outcome the classifier built).
    pub result_json: a2a_str,
}

/// Fills `*out` with every field of `outcome` in one call (see `a2a_outcome_info`); the
/// one way to read an outcome (bindings copy the whole struct out at once). `out`:
/// written on success only; its views point into the outcome, valid as long as it (for a
/// borrowed outcome, until its owner's next mutating call).
///
/// Errors: `A2A_NULL_PARAMETER`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_outcome_get_info(
    outcome: *const a2a_outcome,
    out: *mut a2a_outcome_info,
) -> a2a_result {
    ffi_panic_boundary! {
        let o = try_ref!(outcome);
        let out = try_out!(out);
        let i = &o.inner;
        let hint = i.remote_hint.as_ref();
        let retryable = hint.and_then(|h| h.retryable);
        out.set(a2a_outcome_info {
            channel: a2a_channel::from_core(i.channel),
            retry: a2a_retry::from_core(i.retry),
            is_success: i.is_success(),
            terminal: i.terminal,
            leaked_detail: i.leaked_detail,
            has_http_status: i.http_status.is_some(),
            http_status: i.http_status.unwrap_or(0),
            has_code: i.code.is_some(),
            code: i.code.unwrap_or(0),
            has_error_name: i.error.is_some(),
            error_name: i.error.map_or(0, |v| a2a_error_name::from_core(v) as u32),
            has_state: i.state.is_some(),
            state: i.state.map_or(0, |v| a2a_task_state::from_core(v) as u32),
            has_retry_after_secs: i.retry_after_secs.is_some(),
            retry_after_secs: i.retry_after_secs.unwrap_or(0),
            has_remote_hint_retryable: retryable.is_some(),
            remote_hint_retryable: retryable.unwrap_or(false),
            remote_hint_count: hint.map_or(0, |h| h.pairs.len()),
            has_request_sent: i.request_sent.is_some(),
            request_sent: i.request_sent.map_or(0, |v| a2a_request_sent::from_core(v) as u32),
            has_version: i.version.is_some(),
            version: i.version.map_or(0, |v| a2a_protocol_version::from_core(v) as u32),
            has_binding: i.binding.is_some(),
            binding: i.binding.map_or(0, |v| a2a_binding::from_core(v) as u32),
            exit_code: i.exit_code(),
            reason: a2a_str::from_opt(i.reason.as_deref()),
            message: a2a_str::from_opt(i.message.as_deref()),
            data: a2a_str::from_opt(i.data.as_deref()),
            task_id: a2a_str::from_opt(i.task_id.as_deref()),
            context_id: a2a_str::from_opt(i.context_id.as_deref()),
            text: a2a_str::from_opt(i.text.as_deref()),
            error_id: a2a_str::from_opt(i.error_id.as_deref()),
            hint: a2a_str::from_opt(i.hint.as_deref()),
            body_excerpt: a2a_str::from_opt(i.body_excerpt.as_deref()),
            cancel_origin: match i.cancel_origin {
                Some(c) => a2a_str::from_static(c.as_str()),
                None => a2a_str::from_opt(None),
            },
            result_json: a2a_str::from_opt(o.result.as_deref()),
        });
        a2a_result::A2A_OK
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use a2a::outcome::{Channel, RemoteHint, RetryAdvice, TaskState};
    use std::ptr::{null, null_mut};

    /// The text a view shows, `None` for the absent view (a test helper for every module).
    pub(crate) fn view_text(v: a2a_str) -> Option<&'static str> {
        unsafe { v.as_str() }
    }

    /// `a2a_outcome_get_info` of `o`, asserting it succeeds (a test helper for every module
    /// that reads outcomes).
    pub(crate) fn info(o: *const a2a_outcome) -> a2a_outcome_info {
        let mut i = std::mem::MaybeUninit::<a2a_outcome_info>::zeroed();
        assert_eq!(a2a_outcome_get_info(o, i.as_mut_ptr()), a2a_result::A2A_OK);
        // SAFETY: written on A2A_OK.
        unsafe { i.assume_init() }
    }

    /// The error name `get_info` reports, if any.
    pub(crate) fn error_name(o: *const a2a_outcome) -> Option<a2a_error_name> {
        let i = info(o);
        i.has_error_name
            .then(|| a2a_error_name::core_from_u32(i.error_name).map(a2a_error_name::from_core))
            .flatten()
    }

    #[test]
    fn transport_outcome_round_trip() {
        let mut o: *mut a2a_outcome = null_mut();
        let msg = "connection refused";
        assert_eq!(
            a2a_outcome_transport(
                a2a_error_name::ConnectFailed as u32,
                a2a_request_sent::No as u32,
                msg.as_ptr().cast(),
                msg.len(),
                &mut o
            ),
            a2a_result::A2A_OK
        );
        assert!(!o.is_null());
        let i = info(o);
        assert_eq!(i.channel, a2a_channel::Transport);
        assert_eq!(i.retry, a2a_retry::Backoff);
        assert_eq!(view_text(i.message), Some(msg));
        assert_eq!(view_text(i.task_id), None);
        assert!(i.has_request_sent);
        assert_eq!(i.request_sent, a2a_request_sent::No as u32);
        assert!(!i.has_http_status);
        assert_eq!(i.http_status, 0, "absent is zero");
        assert!(!i.is_success);
        a2a_outcome_free(o);
    }

    #[test]
    fn transport_refuses_non_transport_names_and_bad_numbers() {
        let mut o: *mut a2a_outcome = null_mut();
        for (e, sent) in [
            (a2a_error_name::TaskNotFound as u32, 1),
            (a2a_error_name::BadGateway as u32, 1),
            (0, 1),
            (a2a_error_name::Timeout as u32, 3),
        ] {
            assert_eq!(
                a2a_outcome_transport(e, sent, null(), 0, &mut o),
                a2a_result::A2A_INVALID_ARGUMENT
            );
            assert!(o.is_null(), "out untouched on failure");
        }
        assert_eq!(
            a2a_outcome_transport(203, 2, b"\xc3".as_ptr().cast(), 1, &mut o),
            a2a_result::A2A_INVALID_UTF8
        );
        assert_eq!(
            a2a_outcome_transport(203, 2, null(), 0, null_mut()),
            a2a_result::A2A_NULL_PARAMETER
        );
    }

    #[test]
    fn get_info_reads_every_field() {
        let mut inner = Outcome::empty(Channel::Task);
        inner.http_status = Some(200);
        inner.code = Some(-32001);
        inner.error = Some(ErrorName::TaskNotFound);
        inner.reason = Some("R".into());
        inner.message = Some("M".into());
        inner.data = Some("{}".into());
        inner.state = Some(TaskState::Failed);
        inner.terminal = true;
        inner.task_id = Some("t".into());
        inner.context_id = Some("c".into());
        inner.text = Some("".into());
        inner.error_id = Some("0123456789ab".into());
        inner.retry = RetryAdvice::NewTask;
        inner.retry_after_secs = Some(30);
        inner.hint = Some("h".into());
        inner.remote_hint = Some(RemoteHint {
            retryable: Some(false),
            pairs: vec![
                ("retryable".into(), "false".into()),
                ("reason".into(), "quota".into()),
            ],
        });
        inner.version = Some(a2a::version::ProtocolVersion::V1_0);
        inner.binding = Some(a2a::version::Binding::HttpJson);
        inner.body_excerpt = Some("<html>".into());
        let o = a2a_outcome::into_raw(inner);
        let i = info(o);
        assert!(i.has_http_status);
        assert_eq!(i.http_status, 200);
        assert!(i.has_code);
        assert_eq!(i.code, -32001);
        assert!(i.has_error_name);
        assert_eq!(i.error_name, a2a_error_name::TaskNotFound as u32);
        assert_eq!(view_text(i.reason), Some("R"));
        assert_eq!(view_text(i.message), Some("M"));
        assert_eq!(view_text(i.data), Some("{}"));
        assert!(i.has_state);
        assert_eq!(i.state, a2a_task_state::Failed as u32);
        assert!(i.terminal);
        assert_eq!(view_text(i.task_id), Some("t"));
        assert_eq!(view_text(i.context_id), Some("c"));
        assert!(!i.text.ptr.is_null(), "present but empty is not absent");
        assert_eq!(i.text.len, 0);
        assert_eq!(view_text(i.error_id), Some("0123456789ab"));
        assert_eq!(i.retry, a2a_retry::NewTask);
        assert!(i.has_retry_after_secs);
        assert_eq!(i.retry_after_secs, 30);
        assert_eq!(view_text(i.hint), Some("h"));
        assert!(i.has_remote_hint_retryable);
        assert!(!i.remote_hint_retryable);
        assert_eq!(i.remote_hint_count, 2);
        let (mut k, mut v) = (a2a_str::NONE, a2a_str::NONE);
        assert_eq!(
            a2a_outcome_remote_hint_pair(o, 1, &mut k, &mut v),
            a2a_result::A2A_OK
        );
        assert_eq!(
            (view_text(k), view_text(v)),
            (Some("reason"), Some("quota"))
        );
        assert_eq!(
            a2a_outcome_remote_hint_pair(o, 2, &mut k, &mut v),
            a2a_result::A2A_INVALID_ARGUMENT
        );
        assert!(i.has_version);
        assert_eq!(i.version, a2a_protocol_version::V1_0 as u32);
        assert!(i.has_binding);
        assert_eq!(i.binding, a2a_binding::HttpJson as u32);
        assert_eq!(view_text(i.body_excerpt), Some("<html>"));
        assert!(!i.has_request_sent);
        assert_eq!(i.request_sent, 0);
        assert!(!i.is_success);
        assert_eq!(i.exit_code, 5, "a FAILED task");
        assert!(i.result_json.ptr.is_null(), "no answer attached");
        a2a_outcome_free(o);
    }

    #[test]
    fn null_arguments_are_refused() {
        let mut i = std::mem::MaybeUninit::<a2a_outcome_info>::zeroed();
        assert_eq!(
            a2a_outcome_get_info(null(), i.as_mut_ptr()),
            a2a_result::A2A_NULL_PARAMETER
        );
        let o = a2a_outcome::into_raw(Outcome::empty(Channel::Http));
        assert_eq!(
            a2a_outcome_get_info(o, null_mut()),
            a2a_result::A2A_NULL_PARAMETER
        );
        let e = info(o);
        assert!(!e.has_http_status && e.remote_hint_count == 0);
        let mut k = a2a_str::NONE;
        assert_eq!(
            a2a_outcome_remote_hint_pair(o, 0, &mut k, null_mut()),
            a2a_result::A2A_NULL_PARAMETER
        );
        let mut v = a2a_str::NONE;
        assert_eq!(
            a2a_outcome_remote_hint_pair(null(), 0, &mut k, &mut v),
            a2a_result::A2A_NULL_PARAMETER
        );
        assert_eq!(
            a2a_outcome_remote_hint_pair(o, 0, &mut k, &mut v),
            a2a_result::A2A_INVALID_ARGUMENT,
            "no hint, no pair"
        );
        a2a_outcome_free(o);
        a2a_outcome_free(null_mut());
    }

    /// `a2a_outcome_get_info` reports exactly the outcome's own fields (each `has_*` flag
    /// with its value, zero when absent; each text a view of the outcome's own string).
    fn info_matches_outcome(o: *const a2a_outcome, id: &str) {
        let i = info(o);
        // SAFETY: a live handle of this library.
        let h = unsafe { &*o };
        let x = &h.inner;
        assert_eq!(i.channel, a2a_channel::from_core(x.channel), "{id}");
        assert_eq!(i.retry, a2a_retry::from_core(x.retry), "{id}");
        assert_eq!(i.is_success, x.is_success(), "{id}");
        assert_eq!(i.terminal, x.terminal, "{id}");
        assert_eq!(i.leaked_detail, x.leaked_detail, "{id}");
        assert_eq!(i.exit_code, x.exit_code(), "{id}");
        assert_eq!(
            (i.has_http_status, i.http_status),
            (x.http_status.is_some(), x.http_status.unwrap_or(0)),
            "{id}"
        );
        assert_eq!(
            (i.has_code, i.code),
            (x.code.is_some(), x.code.unwrap_or(0)),
            "{id}"
        );
        assert_eq!(
            (i.has_retry_after_secs, i.retry_after_secs),
            (
                x.retry_after_secs.is_some(),
                x.retry_after_secs.unwrap_or(0)
            ),
            "{id}"
        );
        let retryable = x.remote_hint.as_ref().and_then(|h| h.retryable);
        assert_eq!(
            (i.has_remote_hint_retryable, i.remote_hint_retryable),
            (retryable.is_some(), retryable == Some(true)),
            "{id}"
        );
        let pairs = x.remote_hint.as_ref().map_or(&[][..], |h| &h.pairs[..]);
        assert_eq!(i.remote_hint_count, pairs.len(), "{id}");
        for (n, (k, v)) in pairs.iter().enumerate() {
            let (mut gk, mut gv) = (a2a_str::NONE, a2a_str::NONE);
            assert_eq!(
                a2a_outcome_remote_hint_pair(o, n, &mut gk, &mut gv),
                a2a_result::A2A_OK,
                "{id}"
            );
            assert_eq!(
                (view_text(gk), view_text(gv)),
                (Some(k.as_str()), Some(v.as_str())),
                "{id}"
            );
        }
        assert_eq!(
            (i.has_error_name, i.error_name),
            (
                x.error.is_some(),
                x.error.map_or(0, |v| a2a_error_name::from_core(v) as u32)
            ),
            "{id}"
        );
        assert_eq!(
            (i.has_state, i.state),
            (
                x.state.is_some(),
                x.state.map_or(0, |v| a2a_task_state::from_core(v) as u32)
            ),
            "{id}"
        );
        assert_eq!(
            (i.has_request_sent, i.request_sent),
            (
                x.request_sent.is_some(),
                x.request_sent
                    .map_or(0, |v| a2a_request_sent::from_core(v) as u32)
            ),
            "{id}"
        );
        assert_eq!(
            (i.has_version, i.version),
            (
                x.version.is_some(),
                x.version
                    .map_or(0, |v| a2a_protocol_version::from_core(v) as u32)
            ),
            "{id}"
        );
        assert_eq!(
            (i.has_binding, i.binding),
            (
                x.binding.is_some(),
                x.binding.map_or(0, |v| a2a_binding::from_core(v) as u32)
            ),
            "{id}"
        );
        // Each text is a view of the outcome's own string (same address), or absent.
        let same = |got: a2a_str, want: Option<&str>| match want {
            Some(w) => got.ptr == w.as_ptr().cast() && got.len == w.len(),
            None => got.ptr.is_null() && got.len == 0,
        };
        for (name, got, want) in [
            ("reason", i.reason, x.reason.as_deref()),
            ("message", i.message, x.message.as_deref()),
            ("data", i.data, x.data.as_deref()),
            ("task_id", i.task_id, x.task_id.as_deref()),
            ("context_id", i.context_id, x.context_id.as_deref()),
            ("text", i.text, x.text.as_deref()),
            ("error_id", i.error_id, x.error_id.as_deref()),
            ("hint", i.hint, x.hint.as_deref()),
            ("body_excerpt", i.body_excerpt, x.body_excerpt.as_deref()),
            (
                "cancel_origin",
                i.cancel_origin,
                x.cancel_origin.map(|c| c.as_str()),
            ),
            ("result_json", i.result_json, h.result.as_deref()),
        ] {
            assert!(same(got, want), "{id}: {name}");
        }
    }

    #[test]
    fn get_info_of_a_rich_outcome() {
        let mut inner = Outcome::empty(Channel::Task);
        inner.http_status = Some(200);
        inner.state = Some(TaskState::Failed);
        inner.terminal = true;
        inner.error_id = Some("0123456789ab".into());
        inner.remote_hint = Some(RemoteHint {
            retryable: Some(false),
            pairs: vec![("retryable".into(), "false".into())],
        });
        inner.version = Some(a2a::version::ProtocolVersion::V1_0);
        let o = a2a_outcome::into_raw_with(inner, Some("{\"kind\":\"task\"}".into()));
        info_matches_outcome(o, "rich");
        let i = info(o);
        assert_eq!(i.state, a2a_task_state::Failed as u32);
        assert!(i.has_remote_hint_retryable && !i.remote_hint_retryable);
        assert_eq!(view_text(i.result_json), Some("{\"kind\":\"task\"}"));
        assert!(i.has_version && !i.has_binding && i.binding == 0);
        a2a_outcome_free(o);
    }

    /// Decodes standard base64 (the fixture's `body_base64`); a test helper, no padding
    /// errors expected in a fixture.
    fn base64(s: &str) -> Vec<u8> {
        let val = |c: u8| match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => panic!("not base64: {c}"),
        };
        let digits: Vec<u8> = s.bytes().filter(|&c| c != b'=').map(val).collect();
        let mut out = Vec::new();
        for q in digits.chunks(4) {
            let n = q.iter().fold(0u32, |acc, &d| acc << 6 | u32::from(d)) << (6 * (4 - q.len()));
            out.extend_from_slice(&n.to_be_bytes()[1..q.len()]);
        }
        out
    }

    /// Every row of `bindings/fixtures/outcomes.json` through `a2a_classify` (or
    /// `a2a_outcome_transport`): `a2a_outcome_info.exit_code` equals the row's `exit_code`
    /// column (the CLI's exit status, derived by hand from the outcome table).
    #[test]
    fn exit_code_column_of_the_outcome_table() {
        use crate::classify::{a2a_asked, a2a_classify, a2a_response};
        use crate::vocab::{a2a_vocab, a2a_vocab_parse};
        let doc: serde_json::Value =
            serde_json::from_str(include_str!("../../bindings/fixtures/outcomes.json")).unwrap();
        let rows = doc["rows"].as_array().unwrap();
        assert!(rows.len() >= 150);
        let mut seen = std::collections::BTreeSet::new();
        for row in rows {
            let id = row["id"].as_str().unwrap();
            let input = &row["input"];
            let mut o: *mut a2a_outcome = null_mut();
            if let Some(t) = input.get("transport") {
                let name = t["error"].as_str().unwrap();
                let mut error = a2a_error_name::Invalid as u32;
                assert_eq!(
                    a2a_vocab_parse(
                        a2a_vocab::ErrorName as u32,
                        name.as_ptr().cast(),
                        name.len(),
                        &mut error
                    ),
                    a2a_result::A2A_OK,
                    "{id}"
                );
                let sent = match t["request_sent"].as_str().unwrap() {
                    "no" => a2a_request_sent::No,
                    "unknown" => a2a_request_sent::Unknown,
                    other => panic!("{id}: request_sent {other}"),
                };
                let msg = t["message"].as_str().unwrap_or("");
                assert_eq!(
                    a2a_outcome_transport(
                        error,
                        sent as u32,
                        msg.as_ptr().cast(),
                        msg.len(),
                        &mut o
                    ),
                    a2a_result::A2A_OK,
                    "{id}"
                );
            } else {
                let text = |k: &str| {
                    input
                        .get(k)
                        .and_then(serde_json::Value::as_str)
                        .unwrap_or("")
                };
                let mut version = 0u32;
                if !text("version").is_empty() {
                    let v = text("version");
                    let v = (v.as_ptr().cast(), v.len());
                    assert_eq!(
                        a2a_vocab_parse(a2a_vocab::ProtocolVersion as u32, v.0, v.1, &mut version),
                        a2a_result::A2A_OK
                    );
                }
                let mut binding = 0u32;
                if !text("binding").is_empty() {
                    let b = text("binding");
                    let b = (b.as_ptr().cast(), b.len());
                    assert_eq!(
                        a2a_vocab_parse(a2a_vocab::Binding as u32, b.0, b.1, &mut binding),
                        a2a_result::A2A_OK
                    );
                }
                let body = match (input.get("body_base64"), input.get("body_repeat")) {
                    (Some(b), _) => base64(b.as_str().unwrap()),
                    (None, Some(r)) => {
                        let t = |k: &str| r[k].as_str().unwrap().as_bytes();
                        let count = usize::try_from(r["count"].as_u64().unwrap()).unwrap();
                        [t("head"), &t("fill").repeat(count), t("tail")].concat()
                    }
                    (None, None) => text("body").as_bytes().to_vec(),
                };
                let retry_after = input["headers"]
                    .get("Retry-After")
                    .and_then(serde_json::Value::as_str)
                    .unwrap_or("");
                let (ct, method, rid) = (text("content_type"), text("method"), text("request_id"));
                let response = a2a_response {
                    status: u16::try_from(input["status"].as_u64().unwrap()).unwrap(),
                    content_type: ct.as_ptr().cast(),
                    content_type_len: ct.len(),
                    retry_after: retry_after.as_ptr().cast(),
                    retry_after_len: retry_after.len(),
                    body: body.as_ptr(),
                    body_len: body.len(),
                    asked: a2a_asked {
                        version,
                        binding,
                        method: method.as_ptr().cast(),
                        method_len: method.len(),
                        request_id: rid.as_ptr().cast(),
                        request_id_len: rid.len(),
                    },
                    now_unix_seconds: input["now_unix_seconds"].as_u64().unwrap_or(0),
                };
                assert_eq!(a2a_classify(&response, &mut o), a2a_result::A2A_OK, "{id}");
                if let Some(want) = row.get("retry_after_secs") {
                    let i = info(o);
                    let got = i.has_retry_after_secs.then_some(i.retry_after_secs);
                    assert_eq!(*want, serde_json::json!(got), "{id}: retry_after_secs");
                }
            }
            let want = row["exit_code"].as_i64().unwrap();
            let got = info(o).exit_code;
            assert_eq!(i64::from(got), want, "{id}");
            seen.insert(got);
            info_matches_outcome(o, id);
            a2a_outcome_free(o);
        }
        // The table reaches every status the CLI can give an outcome.
        assert_eq!(seen.into_iter().collect::<Vec<_>>(), [0, 3, 4, 5, 6, 7]);
    }
}
