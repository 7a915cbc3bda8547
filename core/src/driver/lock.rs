//! Locking the driver's mutexes: a poisoned lock is taken over, not propagated.
//!
//! Every critical section in the driver leaves its data consistent at each step (a slot
//! assigned or taken, a list pushed to, a map entry replaced), so a panic on one thread
//! while it held a lock (a header hook or resolver of the caller's, say) must not make the
//! client unusable from every other thread.

use std::sync::{Mutex, MutexGuard, PoisonError};

/// [`Mutex::lock`] that takes over a poisoned lock.
pub(crate) trait Locked<T> {
    /// The guard, whether or not another thread panicked while holding the lock.
    fn locked(&self) -> MutexGuard<'_, T>;
}

impl<T> Locked<T> for Mutex<T> {
    fn locked(&self) -> MutexGuard<'_, T> {
        self.lock().unwrap_or_else(PoisonError::into_inner)
    }
}
