//! The socket layer under ureq: a connector that wraps every transport so the driver can
//! (1) know whether any request byte was written, which decides `request_sent = no|unknown`,
//! and (2) cut a read at the stream's idle deadline.
//!
//! ureq's own body timeout is a whole-body deadline, fatal to long streams; its per-read
//! timeout is fixed per request. The stream idle rule needs a deadline recomputed from the
//! tracker after every event, so the deadline lives in a [`CallIo`] the driver updates
//! between reads. The transport finds the current call's `CallIo` in a thread-local set
//! around each blocking ureq operation ([`CallIo::enter`]): ureq is blocking, so every
//! transport method of a call runs on the thread that entered it, and a stream iterator
//! moved to another thread re-enters before each read.

use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use ureq::unversioned::transport::time::Duration as UreqDuration;
use ureq::unversioned::transport::{Buffers, ConnectionDetails, Connector, NextTimeout, Transport};

/// Per-call I/O state shared between the driver and the transport.
#[derive(Debug, Default)]
pub(crate) struct CallIo {
    /// Set once any byte of the request has been handed to the socket.
    wrote: AtomicBool,
    /// Set when a read was cut by `deadline`.
    idle_fired: AtomicBool,
    /// When the next read must give up (the stream's idle deadline), if any.
    deadline: Mutex<Option<Instant>>,
}

thread_local! {
    static CURRENT: RefCell<Option<Arc<CallIo>>> = const { RefCell::new(None) };
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
        *self.deadline.lock().unwrap_or_else(|e| e.into_inner()) = at;
    }

    /// Clears the deadline, keeping whether the last read was cut by it.
    pub(crate) fn clear_deadline(&self) {
        *self.deadline.lock().unwrap_or_else(|e| e.into_inner()) = None;
    }

    fn deadline(&self) -> Option<Instant> {
        *self.deadline.lock().unwrap_or_else(|e| e.into_inner())
    }
}

fn current() -> Option<Arc<CallIo>> {
    CURRENT.with(|c| c.borrow().clone())
}

/// The connector placed last in the chain (after TCP and TLS): wraps what they produced.
#[derive(Debug, Default)]
pub(crate) struct Watch;

impl<In: Transport> Connector<In> for Watch {
    type Out = Watched<In>;

    fn connect(
        &self,
        _details: &ConnectionDetails,
        chained: Option<In>,
    ) -> Result<Option<Self::Out>, ureq::Error> {
        Ok(chained.map(|inner| Watched { inner }))
    }
}

/// A transport that records writes and honours the current call's read deadline.
///
/// It sits outside TLS, so only HTTP bytes count as "written" (a TLS handshake that fails
/// has not sent the request).
#[derive(Debug)]
pub(crate) struct Watched<T> {
    inner: T,
}

impl<T: Transport> Transport for Watched<T> {
    fn buffers(&mut self) -> &mut dyn Buffers {
        self.inner.buffers()
    }

    fn transmit_output(&mut self, amount: usize, timeout: NextTimeout) -> Result<(), ureq::Error> {
        if let Some(io) = current() {
            io.wrote.store(true, Ordering::SeqCst);
        }
        self.inner.transmit_output(amount, timeout)
    }

    fn await_input(&mut self, timeout: NextTimeout) -> Result<bool, ureq::Error> {
        let io = current();
        let deadline = io.as_ref().and_then(|io| io.deadline());
        let Some(deadline) = deadline else {
            return self.inner.await_input(timeout);
        };
        let now = Instant::now();
        let fire = |io: &Option<Arc<CallIo>>| {
            if let Some(io) = io {
                io.idle_fired.store(true, Ordering::SeqCst);
            }
            ureq::Error::Timeout(ureq::Timeout::PerRead)
        };
        if now >= deadline {
            return Err(fire(&io));
        }
        let left = UreqDuration::Exact(deadline - now);
        let mut capped = timeout;
        if left < capped.after {
            capped.after = left;
            capped.reason = ureq::Timeout::PerRead;
        }
        match self.inner.await_input(capped) {
            Err(ureq::Error::Timeout(_)) if Instant::now() >= deadline => Err(fire(&io)),
            other => other,
        }
    }

    fn is_open(&mut self) -> bool {
        self.inner.is_open()
    }

    fn is_tls(&self) -> bool {
        self.inner.is_tls()
    }
}
