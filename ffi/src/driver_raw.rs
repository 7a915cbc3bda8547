//! The driver's raw HTTP layer (feature `driver`): one exchange, or an event stream read
//! chunk by chunk, on an `a2a_client`'s connection pool and timeouts, abortable from
//! another thread. For bindings that plug the driver under another SDK's HTTP interface
//! (the a2a-java `A2AHttpClient`) and decode events with `a2a_sse_decoder` themselves.
//!
//! What the driver guarantees here as in its typed calls: connect and call timeouts,
//! redirects never followed (a 3xx is a response), every status a response (4xx/5xx
//! bodies included), bounded bodies, identity encoding asked on streams, and a per-read
//! idle deadline on streams. Header hooks do NOT run on raw calls: the caller sends the
//! headers it wants.
//!
//! `a2a_call_run` runs a client machine (`machine.rs`) over this layer's transport, one
//! foreign call per step (the loop is the driver's, `a2a::driver::run`; `machine_run.rs` runs
//! it on an `a2a_call`): the way for bindings to use the
//! native transport without driving the machine's inputs themselves.
//!
//! Threading: `a2a_abort_trigger` and `a2a_raw_stream_abort` are the only functions that
//! may be called while another thread is inside a call on the same objects; they make a
//! blocked exchange or read return promptly with `A2A_CLIENT_TRANSPORT` and a `transport`
//! `Reset` outcome ("aborted by the caller").

use std::ffi::c_char;
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use a2a::driver::{AbortHandle, Client, HttpRequest, HttpResponse, RawStream, ReadEnd};
use a2a::outcome::{ErrorName, Outcome, RequestSent};

use crate::driver::{a2a_client, a2a_client_config, config_from};
use crate::handle::{self, Handle, try_mut, try_out, try_ref, try_shared};
use crate::header::{a2a_header, headers_from};
use crate::outcome::a2a_outcome;
use crate::panic::ffi_panic_boundary;
use crate::result::a2a_result;
use crate::view::{a2a_bytes, a2a_str, input_bytes, try_input};

/// A thread-safe abort switch for one raw call (`a2a_client_exchange` or
/// `a2a_client_open_stream`): `a2a_abort_trigger` from any thread shuts the call's
/// connection down.
///
/// Methods: `a2a_abort_new`, `a2a_abort_trigger`, `a2a_abort_is_triggered`,
/// `a2a_abort_free`.
///
/// Threading: thread-safe (`trigger` and `is_triggered` may race with each other and with
/// the call it was given to); only `a2a_abort_free` must not race with anything. A call
/// keeps its own reference, so the abort may be freed before the call or stream ends.
pub struct a2a_abort {
    inner: AbortHandle,
}

impl Handle for a2a_abort {}

/// A new, untriggered abort switch for one call. `out`: a new handle the caller owns
/// (free with `a2a_abort_free`).
///
/// Errors: `A2A_NULL_PARAMETER`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_abort_new(out: *mut *mut a2a_abort) -> a2a_result {
    ffi_panic_boundary! {
        let out = try_out!(out);
        out.set(handle::into_raw(a2a_abort { inner: AbortHandle::new() }));
        a2a_result::A2A_OK
    }
}

/// Aborts the call the switch was given to: an exchange or stream read blocked in another
/// thread returns promptly with `A2A_CLIENT_TRANSPORT`; a call not started yet fails
/// without sending. During the TCP connect itself the abort takes effect when the connect
/// returns (at the latest at the connect timeout). Triggering twice, or after the call
/// ended, does nothing. MAY be called from any thread, concurrently with the call. NULL is
/// a no-op.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_abort_trigger(abort: *const a2a_abort) {
    ffi_panic_boundary! {
        let a = try_ref!(abort);
        a.inner.abort();
    }
}

/// Whether `a2a_abort_trigger` was called (false for NULL). May be called from any thread.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_abort_is_triggered(abort: *const a2a_abort) -> bool {
    ffi_panic_boundary! {
        let a = try_ref!(abort);
        a.inner.is_aborted()
    }
}

/// Frees an abort switch. NULL is a no-op; must not be called twice, nor while another
/// thread may still trigger it.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_abort_free(abort: *mut a2a_abort) {
    ffi_panic_boundary! {
        // SAFETY: the header requires a pointer from this library, not yet freed.
        unsafe { handle::free(abort) }
    }
}

/// A client with `*config` (NULL: defaults) and no target, for the raw calls only (the
/// typed calls on it return a `CardResolution` outcome). Does no I/O. `out`: a new client
/// the caller owns (free with `a2a_client_free`).
///
/// Errors: `A2A_NULL_PARAMETER`, `A2A_INVALID_UTF8`, `A2A_INVALID_ARGUMENT` (config).
#[unsafe(no_mangle)]
pub extern "C" fn a2a_client_new_raw(
    config: *const a2a_client_config,
    out: *mut *mut a2a_client,
) -> a2a_result {
    ffi_panic_boundary! {
        let out = try_out!(out);
        // SAFETY: the header requires `config` to be NULL or a readable config.
        let cfg = try_input!(unsafe { config_from(config) });
        out.set(handle::into_raw(a2a_client { inner: std::sync::Arc::new(Client::raw(cfg)) }));
        a2a_result::A2A_OK
    }
}

/// A complete HTTP response (status, headers with lower-cased names in arrival order,
/// body decoded when the server gzipped it).
///
/// Methods: `a2a_raw_response_status`, `a2a_raw_response_header_count`,
/// `a2a_raw_response_header`, `a2a_raw_response_body`, `a2a_raw_response_free`.
///
/// Threading: immutable, so its `const` functions may be called from several threads.
/// Views into it are valid until it is freed.
pub struct a2a_raw_response {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Handle for a2a_raw_response {}

impl a2a_raw_response {
    fn from_core(r: HttpResponse) -> a2a_raw_response {
        a2a_raw_response {
            status: r.status,
            headers: r.headers,
            body: r.body,
        }
    }
}

/// The HTTP status (0 for NULL).
#[unsafe(no_mangle)]
pub extern "C" fn a2a_raw_response_status(response: *const a2a_raw_response) -> u16 {
    ffi_panic_boundary! {
        try_ref!(response).status
    }
}

/// The number of header fields (0 for NULL).
#[unsafe(no_mangle)]
pub extern "C" fn a2a_raw_response_header_count(response: *const a2a_raw_response) -> usize {
    ffi_panic_boundary! {
        try_ref!(response).headers.len()
    }
}

/// Writes header field `index` (0-based, arrival order): its lower-cased name and its
/// value (UTF-8; bytes that were not UTF-8 replaced by U+FFFD), views valid until the
/// response (or the stream owning it) is freed.
///
/// Errors: `A2A_NULL_PARAMETER`; `A2A_NONE` when `index` is past the last header.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_raw_response_header(
    response: *const a2a_raw_response,
    index: usize,
    name: *mut a2a_str,
    value: *mut a2a_str,
) -> a2a_result {
    ffi_panic_boundary! {
        let r = try_ref!(response);
        let name = try_out!(name);
        let value = try_out!(value);
        let Some((n, v)) = r.headers.get(index) else {
            return a2a_result::A2A_NONE;
        };
        name.set(a2a_str::from_str(n));
        value.set(a2a_str::from_str(v));
        a2a_result::A2A_OK
    }
}

/// The body (never NULL for a live response, possibly empty; the absent view for NULL),
/// valid until the response (or the stream owning it) is freed.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_raw_response_body(response: *const a2a_raw_response) -> a2a_bytes {
    ffi_panic_boundary! {
        a2a_bytes::from_slice(&try_ref!(response).body)
    }
}

/// Frees a response. NULL is a no-op; must not be called twice. Never call it on the head
/// borrowed from a stream (`a2a_raw_stream_head`).
#[unsafe(no_mangle)]
pub extern "C" fn a2a_raw_response_free(response: *mut a2a_raw_response) {
    ffi_panic_boundary! {
        // SAFETY: the header requires a pointer from this library, not yet freed.
        unsafe { handle::free(response) }
    }
}

/// # Safety
/// Every `(ptr, len)` pair must describe readable memory, `headers` an array of
/// `headers_len` readable `a2a_header`s.
#[allow(clippy::too_many_arguments)]
unsafe fn request_from(
    method: *const c_char,
    method_len: usize,
    url: *const c_char,
    url_len: usize,
    headers: *const a2a_header,
    headers_len: usize,
    body: *const u8,
    body_len: usize,
) -> Result<HttpRequest, a2a_result> {
    // SAFETY: forwarded contract.
    let (method, url, headers, body) = unsafe {
        (
            crate::view::input_str(method, method_len)?,
            crate::view::input_str(url, url_len)?,
            headers_from(headers, headers_len)?,
            input_bytes(body, body_len)?,
        )
    };
    if method.is_empty() || url.is_empty() {
        return Err(a2a_result::A2A_INVALID_ARGUMENT);
    }
    Ok(HttpRequest {
        method: method.to_owned(),
        url: url.to_owned(),
        headers: headers
            .into_iter()
            .map(|(n, v)| (n.to_owned(), v.to_owned()))
            .collect(),
        body: body.to_vec(),
    })
}

fn budget(timeout_ms: u64) -> Option<Duration> {
    (timeout_ms > 0).then(|| Duration::from_millis(timeout_ms))
}

/// Writes a failure outcome to `error` (when non-NULL) and returns `A2A_CLIENT_TRANSPORT`.
fn transport_failure(error: *mut *mut a2a_outcome, o: Outcome) -> a2a_result {
    if !error.is_null() {
        // SAFETY: non-NULL; the header requires a writable pointer.
        unsafe { error.write(a2a_outcome::into_raw(o)) };
    }
    a2a_result::A2A_CLIENT_TRANSPORT
}

/// Sends one request (`method`, absolute `url`, `headers`, `body`; all copied) and reads
/// the whole response. BLOCKS, bounded by the whole-call timeout: `timeout_ms`, or the
/// client's call timeout when 0 (the shorter wins), and by the client's body limit.
/// Redirects are never followed; every status is a response. `abort` may be NULL; when
/// given, `a2a_abort_trigger` on it from another thread ends the call promptly.
///
/// `out`: on `A2A_OK`, a new response the caller owns (free with `a2a_raw_response_free`).
/// `error`: may be NULL; on `A2A_CLIENT_TRANSPORT` receives a new `transport` outcome the
/// caller owns (free with `a2a_outcome_free`): connect failure (`request_sent = no`),
/// timeout, reset or abort (`unknown` once request bytes were written), body over the
/// limit, invalid method, URL or header.
///
/// Thread-safe on the client (calls share its connection pool).
///
/// Errors: `A2A_NULL_PARAMETER`, `A2A_INVALID_UTF8`, `A2A_INVALID_ARGUMENT` (empty method
/// or URL), `A2A_CLIENT_TRANSPORT`, `A2A_CLOSED` (the client is being freed; nothing is
/// sent).
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub extern "C" fn a2a_client_exchange(
    client: *const a2a_client,
    method: *const c_char,
    method_len: usize,
    url: *const c_char,
    url_len: usize,
    headers: *const a2a_header,
    headers_len: usize,
    body: *const u8,
    body_len: usize,
    timeout_ms: u64,
    abort: *const a2a_abort,
    out: *mut *mut a2a_raw_response,
    error: *mut *mut a2a_outcome,
) -> a2a_result {
    ffi_panic_boundary! {
        let c = try_shared!(client);
        let out = try_out!(out);
        // SAFETY: the header requires readable inputs.
        let req = try_input!(unsafe {
            request_from(method, method_len, url, url_len, headers, headers_len, body, body_len)
        });
        // SAFETY: the header requires `abort` to be NULL or a live abort switch.
        let abort = unsafe { abort_or_new(abort) };
        match c.inner.exchange_abortable(&req, budget(timeout_ms), &abort) {
            Ok(r) => {
                out.set(handle::into_raw(a2a_raw_response::from_core(r)));
                a2a_result::A2A_OK
            }
            Err(o) => transport_failure(error, o),
        }
    }
}

/// An open response body read chunk by chunk: an event stream (2xx `text/event-stream`)
/// to feed to an `a2a_sse_decoder`, or any other response already read whole (its body in
/// the head, and `a2a_raw_stream_read` returns `A2A_NONE` at once).
///
/// Methods: `a2a_client_open_stream`, `a2a_raw_stream_head` (an event stream is a 2xx head
/// whose first `Content-Type` passes `a2a_is_event_stream`), `a2a_raw_stream_read`,
/// `a2a_raw_stream_abort`, `a2a_raw_stream_free`.
///
/// Threading: `Send`, not thread-safe, with one exception: `a2a_raw_stream_abort` may be
/// called from another thread while a read is in progress (never concurrently with
/// `a2a_raw_stream_free`). A second read meanwhile returns `A2A_IN_USE`; the free waits
/// for a read in progress (abort first to make it return promptly).
pub struct a2a_raw_stream {
    head: a2a_raw_response,
    abort: AbortHandle,
    idle: Duration,
    /// Read under a lock so that the stream is only ever borrowed shared, which lets
    /// `a2a_raw_stream_abort` run concurrently without aliasing a `&mut`.
    state: Mutex<ReadState>,
}

struct ReadState {
    body: Option<RawStream>,
    /// The last chunk handed out (copied out of the driver's buffer).
    chunk: Vec<u8>,
}

impl Handle for a2a_raw_stream {}

impl a2a_raw_stream {
    fn state(&self) -> MutexGuard<'_, ReadState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Sends a streaming request (as `a2a_client_exchange`; add `Accept: text/event-stream`
/// yourself) and returns once the response head arrived. BLOCKS, bounded by `timeout_ms`
/// (0: the client's call timeout) for connect, send and head; the body has no total
/// deadline, only the per-read idle deadline of `a2a_raw_stream_read`. `abort` may be
/// NULL; when given, triggering it ends the open or any later read (as does
/// `a2a_raw_stream_abort`).
///
/// `out`: on `A2A_OK`, a new stream the caller owns (free with `a2a_raw_stream_free`).
/// `error`: may be NULL; on `A2A_CLIENT_TRANSPORT` receives a new `transport` outcome the
/// caller owns.
///
/// Errors: as `a2a_client_exchange`.
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub extern "C" fn a2a_client_open_stream(
    client: *const a2a_client,
    method: *const c_char,
    method_len: usize,
    url: *const c_char,
    url_len: usize,
    headers: *const a2a_header,
    headers_len: usize,
    body: *const u8,
    body_len: usize,
    timeout_ms: u64,
    abort: *const a2a_abort,
    out: *mut *mut a2a_raw_stream,
    error: *mut *mut a2a_outcome,
) -> a2a_result {
    ffi_panic_boundary! {
        let c = try_shared!(client);
        let out = try_out!(out);
        // SAFETY: the header requires readable inputs.
        let req = try_input!(unsafe {
            request_from(method, method_len, url, url_len, headers, headers_len, body, body_len)
        });
        // SAFETY: the header requires `abort` to be NULL or a live abort switch.
        let abort = unsafe { abort_or_new(abort) };
        let idle = c.inner.config().stream_idle_timeout;
        let (head, body) = match c.inner.open_stream_abortable(&req, budget(timeout_ms), &abort) {
            Ok(Ok(s)) => (
                a2a_raw_response { status: s.status, headers: s.headers.clone(), body: Vec::new() },
                Some(s),
            ),
            Ok(Err(whole)) => (a2a_raw_response::from_core(whole), None),
            Err(o) => return transport_failure(error, o),
        };
        out.set(handle::into_raw(a2a_raw_stream {
            head,
            abort,
            idle,
            state: Mutex::new(ReadState { body, chunk: Vec::new() }),
        }));
        a2a_result::A2A_OK
    }
}

/// The response head: status and headers (its body is empty for an event stream, the
/// whole body otherwise). Borrowed: valid until the stream is freed; never free it. NULL
/// for NULL.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_raw_stream_head(stream: *const a2a_raw_stream) -> *const a2a_raw_response {
    ffi_panic_boundary! {
        &try_ref!(stream).head as *const a2a_raw_response
    }
}

/// Waits for the next bytes of the body (BLOCKS at most `idle_timeout_ms`, or the
/// client's stream idle timeout when 0, measured from this call) and writes them to
/// `*chunk` (never empty; valid until the next `a2a_raw_stream_read` or
/// `a2a_raw_stream_free`).
///
/// Returns `A2A_OK` with a chunk; `A2A_NONE` once the body ended cleanly (and on every
/// call after the end or a failure); `A2A_CLIENT_TRANSPORT` when no byte came within the
/// idle timeout (`transport` `Timeout`), the connection broke (`Reset`, including a
/// chunked body cut short), or the stream was aborted (`Reset`, "aborted by the caller");
/// then `error`, when non-NULL, receives a new outcome the caller owns.
///
/// Errors: `A2A_NULL_PARAMETER`, `A2A_CLIENT_TRANSPORT`, `A2A_IN_USE` (another thread is
/// reading this stream), `A2A_CLOSED` (the stream is being freed).
#[unsafe(no_mangle)]
pub extern "C" fn a2a_raw_stream_read(
    stream: *mut a2a_raw_stream,
    idle_timeout_ms: u64,
    chunk: *mut a2a_bytes,
    error: *mut *mut a2a_outcome,
) -> a2a_result {
    ffi_panic_boundary! {
        // The exclusive hold keeps other reads and the free out, but only a shared borrow is
        // taken through it (Deref, never DerefMut: not try_mut!): a2a_raw_stream_abort may
        // run concurrently (see the type).
        if stream.is_null() {
            return a2a_result::A2A_NULL_PARAMETER;
        }
        // SAFETY: non-NULL; the header requires a live stream from this library.
        let held = match unsafe { handle::enter_exclusive(stream) } {
            Ok(held) => held,
            Err(code) => return code,
        };
        let s: &a2a_raw_stream = &held;
        let chunk = try_out!(chunk);
        let idle = if idle_timeout_ms > 0 { Duration::from_millis(idle_timeout_ms) } else { s.idle };
        let mut st = s.state();
        let st = &mut *st;
        let Some(body) = st.body.as_mut() else {
            return a2a_result::A2A_NONE;
        };
        match body.read_chunk(Instant::now().checked_add(idle)) {
            Ok(Some(bytes)) => {
                st.chunk.clear();
                st.chunk.extend_from_slice(bytes);
                chunk.set(a2a_bytes::from_slice(&st.chunk));
                a2a_result::A2A_OK
            }
            Ok(None) => {
                st.body = None;
                a2a_result::A2A_NONE
            }
            Err(end) => {
                st.body = None;
                let o = match end {
                    ReadEnd::Idle => Outcome::transport(
                        ErrorName::Timeout,
                        RequestSent::Unknown,
                        format!("no data for {} ms (idle timeout)", idle.as_millis()),
                    ),
                    ReadEnd::Failed(o) => o,
                };
                transport_failure(error, o)
            }
        }
    }
}

/// Aborts the stream: a read blocked in another thread returns promptly with
/// `A2A_CLIENT_TRANSPORT` (a `Reset` outcome, "aborted by the caller"), and later reads
/// return `A2A_NONE`. MAY be called from another thread while a read is in progress, but
/// not concurrently with `a2a_raw_stream_free`. NULL is a no-op.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_raw_stream_abort(stream: *const a2a_raw_stream) {
    ffi_panic_boundary! {
        try_ref!(stream).abort.abort();
    }
}

/// Frees a stream (closing its connection; a stream read to its end leaves the connection
/// to the pool). NULL is a no-op; must not be called twice, nor while another thread may
/// abort it. A read in progress on another thread is waited for (bounded by its idle
/// timeout; `a2a_raw_stream_abort` first ends it promptly). The head borrowed from it
/// becomes invalid.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_raw_stream_free(stream: *mut a2a_raw_stream) {
    ffi_panic_boundary! {
        // SAFETY: the header requires a pointer from this library, not yet freed.
        unsafe { handle::free(stream) }
    }
}

/// Runs client machine `call` over the native transport `transport` until the caller has
/// something to read: performs every request the machine hands out (card fetch, sends,
/// retries, resubscribes, a stream's get-task fallback) with the driver, feeds it the
/// response head, each body chunk as it arrives (a stream's items one by one), the end or
/// the transport failure (with whether request bytes were written), and sleeps until the
/// machine's next deadline when nothing is in flight (a retry's delay), then tells it the
/// time. Returns `A2A_OK` as soon as at least one event is queued for
/// `a2a_call_poll_event`: `ITEM`, `RETRYING`, `RESUBSCRIBING` or `FINISHED`. Drain them,
/// then call it again until the `FINISHED` event; it returns at once while events are
/// queued. One foreign call per step replaces the `poll_transmit` / `handle_*` /
/// `poll_timeout` loop of `ffi/README.md` (*The client machine*).
///
/// - `call`: any machine (`a2a_call_new_card_fetch`, `a2a_call_new`, `a2a_call_new_text`),
///   driven by this function only: do not mix it with `a2a_call_poll_transmit` or the
///   `a2a_call_handle_*` inputs (`a2a_call_poll_event`, `a2a_call_poll_timeout` and
///   `a2a_call_cancel` between runs are fine).
/// - `transport`: a client from `a2a_client_new_raw` (any `a2a_client` works; only its
///   transport is used): its connection pool, TLS roots, client certificate, proxy and DNS
///   rules apply; each request is connected by the machine's `connect_by` or within the
///   transport's connect timeout, whichever is shorter, and is bounded by the machine's
///   deadline only (the transport's call timeout does not apply: the machine's config says
///   how long a call may take); the transport's response body limit applies besides the
///   machine's. Its header hooks and interceptors do NOT run (the machine's state has its
///   own). Borrowed for the duration of the call; thread-safe, so several calls may run on
///   one transport at once.
/// - `abort`: NULL, or a switch (`a2a_abort_new`) that another thread may trigger with
///   `a2a_abort_trigger` at any time: a run blocked in a connect (at the latest at the
///   connect timeout), a read or a sleep returns promptly and the call is canceled
///   (`a2a_call_cancel`): its `FINISHED` event carries the cancel outcome
///   (`transport`/`Reset`, "canceled by the caller"; `request_sent` `unknown` once a
///   request went out), never a success; a call that had queued its `FINISHED` before the
///   abort keeps it. A switch once triggered stays triggered: a later run with it cancels at
///   once. Borrowed for the duration of the call; the same or another switch may be passed
///   to each run.
/// - `now_ms`: the caller's monotonic clock in ms, on the scale the call was created with
///   (never earlier than the previous run's `*now_out_ms`). The loop continues it with its
///   own monotonic clock; `now_out_ms` (may be NULL) receives the time it returned at on
///   the caller's scale (`now_ms` plus the time spent), written whenever the run started:
///   on `A2A_OK`, and on `A2A_PANIC` from a state an earlier panic poisoned.
///
/// Deadlines: every wait is bounded by a deadline the machine gave (the request's deadline
/// for a connect, send and whole response or a stream's head; a stream's idle or total
/// deadline for each read; a retry's delay for a sleep), so a run never blocks past them
/// and never spins. `ABORT` events are acted on here (the request's connection is closed)
/// and are never handed to the caller. A stream's open response stays in `call` between
/// runs (`a2a_call_free` closes it; so does an `a2a_call_cancel` whose `ABORT` the caller
/// then polls). BLOCKS the calling thread.
///
/// Threading: `call` as every `a2a_call` function (a second function on it meanwhile gets
/// `A2A_IN_USE`; `a2a_call_free` waits for the run: trigger `abort` first to end it
/// promptly).
///
/// Errors: `A2A_NULL_PARAMETER` (`call` or `transport` NULL), `A2A_CALL_FINISHED` (the
/// `FINISHED` event was already polled), `A2A_IN_USE`, `A2A_CLOSED`, `A2A_PANIC`.
#[unsafe(no_mangle)]
pub extern "C" fn a2a_call_run(
    call: *mut crate::machine::a2a_call,
    transport: *const a2a_client,
    abort: *const a2a_abort,
    now_ms: u64,
    now_out_ms: *mut u64,
) -> a2a_result {
    ffi_panic_boundary! {
        if transport.is_null() {
            return a2a_result::A2A_NULL_PARAMETER;
        }
        let c = try_mut!(call);
        let t = try_shared!(transport);
        if c.finished {
            return a2a_result::A2A_CALL_FINISHED;
        }
        // SAFETY: the header requires `abort` to be NULL or a live abort switch.
        let abort = (!abort.is_null()).then(|| &unsafe { &*abort }.inner);
        let mut now = now_ms;
        let code = crate::machine_run::run(c, &t.inner, abort, now_ms, &mut now);
        if !now_out_ms.is_null() {
            // SAFETY: non-NULL; the header requires a writable u64.
            unsafe { now_out_ms.write(now) };
        }
        code
    }
}

/// The caller's abort switch, or a fresh one nobody else can trigger when `abort` is NULL.
///
/// # Safety
/// `abort` is NULL or points to a live `a2a_abort`.
unsafe fn abort_or_new(abort: *const a2a_abort) -> AbortHandle {
    if abort.is_null() {
        AbortHandle::new()
    } else {
        // SAFETY: non-NULL, and live by the caller's contract.
        unsafe { &*abort }.inner.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outcome::a2a_outcome_free;
    use crate::vocab::{a2a_error_name, a2a_request_sent};
    use std::io::{BufRead, BufReader, Write};
    use std::net::TcpListener;
    use std::ptr::{null, null_mut};

    /// A one-connection loopback server: reads the request head, writes `reply`, then
    /// holds the connection open (at most 10 s) so the client's next read blocks.
    fn serve_once(reply: &'static [u8]) -> String {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/a2a", l.local_addr().unwrap());
        std::thread::spawn(move || {
            let (s, _) = l.accept().unwrap();
            let mut r = BufReader::new(s.try_clone().unwrap());
            let mut line = String::new();
            while r.read_line(&mut line).unwrap_or(0) > 0 && line != "\r\n" {
                line.clear();
            }
            (&s).write_all(reply).unwrap();
            let _ = s.set_read_timeout(Some(Duration::from_secs(10)));
            let mut sink = [0u8; 64];
            let _ = std::io::Read::read(&mut &s, &mut sink);
        });
        url
    }

    fn client() -> *mut a2a_client {
        let mut cfg = std::mem::MaybeUninit::<a2a_client_config>::uninit();
        assert_eq!(
            crate::driver::a2a_client_config_default(cfg.as_mut_ptr()),
            a2a_result::A2A_OK
        );
        // SAFETY: written on A2A_OK.
        let mut cfg = unsafe { cfg.assume_init() };
        cfg.allow_http = true;
        let mut c = null_mut();
        assert_eq!(a2a_client_new_raw(&cfg, &mut c), a2a_result::A2A_OK);
        c
    }

    #[test]
    fn a_blocked_stream_read_is_aborted_from_another_thread() {
        let url = serve_once(
            b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n6\r\ndata: \r\n",
        );
        let c = client();
        let mut s = null_mut();
        assert_eq!(
            a2a_client_open_stream(
                c,
                b"POST".as_ptr().cast(),
                4,
                url.as_ptr().cast(),
                url.len(),
                null(),
                0,
                null(),
                0,
                5000,
                null(),
                &mut s,
                null_mut(),
            ),
            a2a_result::A2A_OK
        );
        assert!(
            unsafe { (*s).state.lock().unwrap().body.is_some() },
            "an event stream"
        );
        assert_eq!(a2a_raw_response_status(a2a_raw_stream_head(s)), 200);
        let mut chunk = a2a_bytes::NONE;
        assert_eq!(
            a2a_raw_stream_read(s, 5000, &mut chunk, null_mut()),
            a2a_result::A2A_OK
        );
        assert_eq!(unsafe { chunk.as_slice() }, Some(&b"data: "[..]));
        // The raw pointer crosses threads as an address; the stream outlives the join.
        let addr = s as usize;
        let aborter = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(200));
            a2a_raw_stream_abort(addr as *const a2a_raw_stream);
            Instant::now()
        });
        let mut err = null_mut();
        assert_eq!(
            a2a_raw_stream_read(s, 20_000, &mut chunk, &mut err),
            a2a_result::A2A_CLIENT_TRANSPORT
        );
        let returned = Instant::now();
        let aborted_at = aborter.join().unwrap();
        assert!(returned.saturating_duration_since(aborted_at) < Duration::from_millis(500));
        assert_eq!(
            crate::outcome::tests::error_name(err),
            Some(a2a_error_name::Reset)
        );
        assert_eq!(
            crate::outcome::tests::request_sent(err),
            Some(a2a_request_sent::Unknown)
        );
        a2a_outcome_free(err);
        assert_eq!(
            a2a_raw_stream_read(s, 20_000, &mut chunk, null_mut()),
            a2a_result::A2A_NONE
        );
        a2a_raw_stream_free(s);
        crate::driver::a2a_client_free(c);
    }

    #[test]
    fn an_exchange_returns_status_headers_and_body_and_a_triggered_abort_sends_nothing() {
        let url = serve_once(b"HTTP/1.1 404 Not Found\r\ncontent-type: text/plain\r\nx-a: b\r\ncontent-length: 4\r\n\r\nnope");
        let c = client();
        let mut r = null_mut();
        let h = a2a_header {
            name: b"X-Test".as_ptr().cast(),
            name_len: 6,
            value: b"1".as_ptr().cast(),
            value_len: 1,
        };
        assert_eq!(
            a2a_client_exchange(
                c,
                b"GET".as_ptr().cast(),
                3,
                url.as_ptr().cast(),
                url.len(),
                &h,
                1,
                null(),
                0,
                0,
                null(),
                &mut r,
                null_mut(),
            ),
            a2a_result::A2A_OK
        );
        assert_eq!(a2a_raw_response_status(r), 404);
        assert_eq!(
            unsafe { a2a_raw_response_body(r).as_slice() },
            Some(&b"nope"[..])
        );
        let (mut n, mut v) = (a2a_str::NONE, a2a_str::NONE);
        let found = (0..a2a_raw_response_header_count(r)).any(|i| {
            assert_eq!(
                a2a_raw_response_header(r, i, &mut n, &mut v),
                a2a_result::A2A_OK
            );
            unsafe { n.as_str() == Some("x-a") && v.as_str() == Some("b") }
        });
        assert!(found);
        a2a_raw_response_free(r);

        let mut ab = null_mut();
        assert_eq!(a2a_abort_new(&mut ab), a2a_result::A2A_OK);
        a2a_abort_trigger(ab);
        assert!(a2a_abort_is_triggered(ab));
        let mut err = null_mut();
        let mut r = null_mut();
        assert_eq!(
            a2a_client_exchange(
                c,
                b"GET".as_ptr().cast(),
                3,
                url.as_ptr().cast(),
                url.len(),
                null(),
                0,
                null(),
                0,
                0,
                ab,
                &mut r,
                &mut err,
            ),
            a2a_result::A2A_CLIENT_TRANSPORT
        );
        assert!(r.is_null());
        assert_eq!(
            crate::outcome::tests::request_sent(err),
            Some(a2a_request_sent::No)
        );
        a2a_outcome_free(err);
        a2a_abort_free(ab);
        crate::driver::a2a_client_free(c);
    }
}
