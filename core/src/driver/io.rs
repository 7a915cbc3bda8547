//! The socket layer under ureq: a connector that wraps every transport so the driver can
//! (1) know whether any request byte was written, which decides `request_sent = no|unknown`,
//! and (2) cut a read at the stream's idle deadline.
//!
//! ureq's own body timeout is a whole-body deadline, fatal to long streams; its per-read
//! timeout is fixed per request. The stream idle rule needs a deadline recomputed by the
//! stream machine after every event (its `poll_timeout`), so the deadline lives in a
//! [`CallIo`] the driver updates between reads. The transport finds the current call's
//! `CallIo` in a thread-local set around each blocking ureq operation ([`CallIo::enter`]):
//! ureq's connector gives a transport no per-request context, and ureq is blocking, so
//! every transport method of a call runs on the thread that entered it, and a stream iterator
//! moved to another thread re-enters before each read.
//!
//! (3) It also lets another thread abort a call ([`super::AbortHandle`]): the wrapper learns the
//! TCP socket's shutdown handle when the connection is made (by wrapping ureq's
//! `register_shutdown` hook) and attaches it to the current call before every write and
//! read, so an abort shuts the socket down and a read blocked on it returns at once.
//!
//! Under the wrapper, every transport is a [`LineFed`] one: it shows ureq its input a line
//! at a time, so a chunk-framing error never discards the chunks received before it.

use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, Weak};
use std::time::Instant;

use ureq::unversioned::transport::time::Duration as UreqDuration;

use super::linefed::LineFed;
use super::lock::Locked;
use ureq::unversioned::transport::{
    Buffers, ConnectionDetails, Connector, NextTimeout, ShutdownHandle, Transport,
};

/// The socket of the connection a call uses, as ureq's shutdown handle (weak: the
/// connection closes as usual when its transport is dropped).
type Socket = Weak<dyn ShutdownHandle>;

/// Per-call I/O state shared between the driver and the transport.
#[derive(Debug, Default)]
pub(crate) struct CallIo {
    /// Set once any byte of the request has been handed to the socket.
    wrote: AtomicBool,
    /// Set when a read was cut by `deadline`.
    idle_fired: AtomicBool,
    /// When the next read must give up (the stream's idle deadline), if any.
    deadline: Mutex<Option<Instant>>,
    /// Set by [`CallIo::abort`]; never cleared.
    aborted: AtomicBool,
    /// The socket the call is using now (`None` before connecting and once detached).
    socket: Mutex<Option<Socket>>,
    /// Other calls' states aborted with this one ([`CallIo::link`]).
    linked: Mutex<Vec<Weak<CallIo>>>,
    /// Wakes [`CallIo::sleep_until`] on abort (the flag is read under this lock).
    wake: (Mutex<()>, Condvar),
}

thread_local! {
    static CURRENT: RefCell<Option<Arc<CallIo>>> = const { RefCell::new(None) };
    /// How many [`Watch::connect`] calls are running on this thread: more than one means
    /// the chain is connecting to a CONNECT proxy for the outer connection.
    static CONNECTING: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
}

/// Leaves one level of [`CONNECTING`] on drop.
struct Connecting;

impl Connecting {
    /// Enters one level; true when this is the outermost connection (the target's).
    fn enter() -> (Connecting, bool) {
        let depth = CONNECTING.with(|c| {
            let d = c.get();
            c.set(d + 1);
            d
        });
        (Connecting, depth == 0)
    }
}

impl Drop for Connecting {
    fn drop(&mut self) {
        CONNECTING.with(|c| c.set(c.get().saturating_sub(1)));
    }
}

/// Restores the previous thread-local call on drop.
pub(crate) struct Entered(Option<Arc<CallIo>>);

impl Drop for Entered {
    fn drop(&mut self) {
        let prev = self.0.take();
        CURRENT.with(|c| *c.borrow_mut() = prev);
    }
}

impl CallIo {
    /// A fresh state for one call.
    pub(crate) fn new() -> Arc<CallIo> {
        Arc::new(CallIo::default())
    }

    /// Makes `self` the current call on this thread until the guard drops.
    pub(crate) fn enter(self: &Arc<CallIo>) -> Entered {
        let prev = CURRENT.with(|c| c.borrow_mut().replace(Arc::clone(self)));
        Entered(prev)
    }

    /// Whether any request byte was written.
    pub(crate) fn wrote(&self) -> bool {
        self.wrote.load(Ordering::SeqCst)
    }

    /// Whether the last failing read was cut by the idle deadline.
    pub(crate) fn idle_fired(&self) -> bool {
        self.idle_fired.load(Ordering::SeqCst)
    }

    /// Sets the deadline for the following reads and forgets an earlier idle cut.
    pub(crate) fn set_deadline(&self, at: Option<Instant>) {
        self.idle_fired.store(false, Ordering::SeqCst);
        *self.deadline.locked() = at;
    }

    /// Clears the deadline, keeping whether the last read was cut by it.
    pub(crate) fn clear_deadline(&self) {
        *self.deadline.locked() = None;
    }

    /// Whether the call was aborted.
    pub(crate) fn aborted(&self) -> bool {
        self.aborted.load(Ordering::SeqCst)
    }

    /// Aborts the call: marks it and shuts its socket down, so a write or read blocked on
    /// it (in any thread) returns; a call not yet connected fails as soon as it connects.
    pub(crate) fn abort(&self) {
        self.aborted.store(true, Ordering::SeqCst);
        let socket = self.socket.locked().take();
        if let Some(s) = socket.and_then(|w| w.upgrade()) {
            s.shutdown();
        }
        drop(self.wake.0.locked());
        self.wake.1.notify_all();
        let linked = std::mem::take(&mut *self.linked.locked());
        for other in linked.iter().filter_map(Weak::upgrade) {
            other.abort();
        }
    }

    /// Makes an abort of `self` abort `other` too (at once when `self` is aborted already).
    /// Only a weak reference is kept: linking does not keep `other` alive.
    pub(crate) fn link(&self, other: &Arc<CallIo>) {
        {
            let mut linked = self.linked.locked();
            linked.retain(|w| w.strong_count() > 0);
            // Linking the same call again (a stream read over many runs) keeps one entry.
            if !linked
                .iter()
                .any(|w| std::ptr::eq(w.as_ptr(), Arc::as_ptr(other)))
            {
                linked.push(Arc::downgrade(other));
            }
        }
        // After the push: an abort that took the list before it has set the flag already.
        if self.aborted() {
            other.abort();
        }
    }

    /// How many linked calls are kept (alive or not yet pruned).
    #[cfg(test)]
    pub(crate) fn linked_count(&self) -> usize {
        self.linked.locked().len()
    }

    /// Blocks until `deadline` or an abort, whichever comes first; whether it was aborted.
    pub(crate) fn sleep_until(&self, deadline: Instant) -> bool {
        let mut guard = self.wake.0.locked();
        loop {
            if self.aborted() {
                return true;
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return false;
            }
            guard = match self.wake.1.wait_timeout(guard, left) {
                Ok((g, _)) => g,
                Err(e) => e.into_inner().0,
            };
        }
    }

    /// Records the socket the call now uses; shuts it down at once when already aborted.
    pub(crate) fn attach(&self, socket: &Socket) {
        let mut slot = self.socket.locked();
        if self.aborted() {
            slot.take();
            drop(slot);
            if let Some(s) = socket.upgrade() {
                s.shutdown();
            }
            return;
        }
        if !slot.as_ref().is_some_and(|w| Weak::ptr_eq(w, socket)) {
            *slot = Some(socket.clone());
        }
    }

    /// Forgets the socket: the call is over and the connection may go back to the pool,
    /// where a late abort must not reach it.
    pub(crate) fn detach(&self) {
        self.socket.locked().take();
    }

    /// When the next read must give up (the stream's idle deadline), if any.
    pub(crate) fn deadline(&self) -> Option<Instant> {
        *self.deadline.locked()
    }

    /// Records that a request byte is about to be written.
    pub(crate) fn mark_wrote(&self) {
        self.wrote.store(true, Ordering::SeqCst);
    }

    /// Records that a read was cut by the deadline.
    pub(crate) fn fire_idle(&self) {
        self.idle_fired.store(true, Ordering::SeqCst);
    }
}

/// The call this thread entered ([`CallIo::enter`]), if any.
pub(crate) fn current() -> Option<Arc<CallIo>> {
    CURRENT.with(|c| c.borrow().clone())
}

/// The connector wrapping the whole chain (TCP, then TLS): it hands the chain a
/// `register_shutdown` hook that also keeps the new socket's shutdown handle, and wraps
/// what the chain produced with it. A failed connect forgets the host's kept DNS answer
/// (see [`super::dns`]), so the next attempt looks it up again.
#[derive(Debug)]
pub(crate) struct Watch<C> {
    /// The connector chain.
    pub(crate) chain: C,
    /// The resolver's kept answers.
    pub(crate) answers: Arc<super::dns::Answers>,
}

impl<C: Connector<()>> Connector<()> for Watch<C> {
    type Out = Watched<LineFed<C::Out>>;

    fn connect(
        &self,
        details: &ConnectionDetails,
        chained: Option<()>,
    ) -> Result<Option<Self::Out>, ureq::Error> {
        let (_level, outermost) = Connecting::enter();
        let seen: Arc<Mutex<Option<Socket>>> = Arc::new(Mutex::new(None));
        let keep = Arc::clone(&seen);
        let register = Arc::clone(&details.register_shutdown);
        let io = current();
        let hook = move |socket: Socket| {
            // Attached now, before TLS: an abort during the handshake reaches it.
            if let Some(io) = &io {
                io.attach(&socket);
            }
            *keep.locked() = Some(socket.clone());
            register(socket)
        };
        let ours = ConnectionDetails {
            uri: details.uri,
            addrs: details.addrs.clone(),
            config: details.config,
            request_level: details.request_level,
            resolver: details.resolver,
            now: details.now,
            timeout: details.timeout,
            current_time: Arc::clone(&details.current_time),
            run_connector: Arc::clone(&details.run_connector),
            register_shutdown: Arc::new(hook),
        };
        let out = match self.chain.connect(&ours, chained) {
            Ok(out) => out,
            Err(e) => {
                self.answers.forget(details.uri);
                return Err(e);
            }
        };
        let socket = seen.locked().take();
        let input = details.config.input_buffer_size();
        Ok(out.map(|inner| Watched {
            inner: LineFed::new(inner, input),
            socket,
            request_bytes: outermost,
        }))
    }
}

/// A transport that records writes and honours the current call's read deadline.
///
/// It sits outside TLS, so only HTTP bytes count as "written" (a TLS handshake that fails
/// has not sent the request).
#[derive(Debug)]
pub(crate) struct Watched<T> {
    inner: T,
    /// The TCP socket under `inner`, when the chain registered one.
    socket: Option<Socket>,
    /// False for the connection to a CONNECT proxy: the `CONNECT` line written on it is
    /// not the request (a refused tunnel has sent nothing to the agent).
    request_bytes: bool,
}

impl<T> Watched<T> {
    /// Attaches the socket to the current call; an error when the call was aborted.
    fn check_in(&self, io: Option<&Arc<CallIo>>) -> Result<(), ureq::Error> {
        let Some(io) = io else { return Ok(()) };
        if let Some(s) = &self.socket {
            io.attach(s);
        }
        if io.aborted() {
            return Err(aborted_error());
        }
        Ok(())
    }
}

/// A read timeout of at most `left` that stays the same from one read to the next: whole
/// seconds while more than two are left, `left` itself after that.
///
/// ureq sets the socket's read timeout (a `setsockopt`) whenever the value it is handed
/// differs from the last one, and a deadline's remaining time differs at every read: a plain
/// call paid one more system call for it, a stream one per read. Rounded down, the value
/// repeats; a read woken early by the rounding waits again for the rest
/// ([`Watched::await_input`]), so every deadline still fires when it is due (issue 28).
pub(crate) fn steady(left: std::time::Duration) -> std::time::Duration {
    const EXACT_BELOW: std::time::Duration = std::time::Duration::from_secs(2);
    if left <= EXACT_BELOW {
        left
    } else {
        std::time::Duration::from_secs(left.as_secs())
    }
}

/// The one short wait a read whose idle deadline passed before it began still makes, to
/// take bytes that arrived while the caller was away.
pub(crate) const LATE_READ: std::time::Duration = std::time::Duration::from_millis(1);

/// The error a transport operation of an aborted call fails with.
fn aborted_error() -> ureq::Error {
    ureq::Error::Io(std::io::Error::new(
        std::io::ErrorKind::ConnectionAborted,
        "aborted by the caller",
    ))
}

impl<T: Transport> Transport for Watched<T> {
    fn buffers(&mut self) -> &mut dyn Buffers {
        self.inner.buffers()
    }

    fn transmit_output(&mut self, amount: usize, timeout: NextTimeout) -> Result<(), ureq::Error> {
        let io = current();
        self.check_in(io.as_ref())?;
        if let Some(io) = &io
            && self.request_bytes
        {
            io.mark_wrote();
        }
        self.inner.transmit_output(amount, timeout)
    }

    fn await_input(&mut self, timeout: NextTimeout) -> Result<bool, ureq::Error> {
        let io = current();
        self.check_in(io.as_ref())?;
        let start = Instant::now();
        // The instant ureq's own budget runs out, and this call's read deadline.
        let budget = match timeout.after {
            UreqDuration::Exact(d) => start.checked_add(d),
            UreqDuration::NotHappening => None,
        };
        let idle = io.as_ref().and_then(|io| io.deadline());
        let fire = |io: &Option<Arc<CallIo>>| {
            if let Some(io) = io {
                io.fire_idle();
            }
            ureq::Error::Timeout(ureq::Timeout::PerRead)
        };
        // The earlier of the two, reported as ureq's reason or as a read timeout (ours).
        let mut asked = timeout;
        let until = match (budget, idle) {
            (Some(b), Some(d)) if d >= b => b,
            (_, Some(d)) => {
                asked.reason = ureq::Timeout::PerRead;
                d
            }
            (Some(b), None) => b,
            (None, None) => return self.inner.await_input(timeout),
        };
        loop {
            let now = Instant::now();
            if idle.is_some_and(|d| now >= d) {
                // The deadline passed before this read began: the caller was away (a loop
                // body slower than the idle timeout). Bytes that came meanwhile show the
                // server was not idle, so they are read, with one short wait, instead of
                // cutting the stream with them unread.
                let mut late = asked;
                late.after = UreqDuration::Exact(LATE_READ);
                return match self.inner.await_input(late) {
                    Err(ureq::Error::Timeout(_)) => Err(fire(&io)),
                    other => other,
                };
            }
            asked.after = UreqDuration::Exact(steady(until.saturating_duration_since(now)));
            match self.inner.await_input(asked) {
                // Woken before the deadline by the rounding of `steady`: wait the rest.
                // (ureq's own per-read timeout, which the driver does not set, is not ours.)
                Err(ureq::Error::Timeout(r))
                    if r == asked.reason && asked.per_read.is_none() && Instant::now() < until => {}
                Err(ureq::Error::Timeout(_)) if idle.is_some_and(|d| Instant::now() >= d) => {
                    return Err(fire(&io));
                }
                other => return other,
            }
        }
    }

    fn is_open(&mut self) -> bool {
        self.inner.is_open()
    }

    fn is_tls(&self) -> bool {
        self.inner.is_tls()
    }
}
