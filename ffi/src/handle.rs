//! Opaque handles: how C gets, uses and frees library-owned objects.
//!
//! A handle type is a Rust struct without `#[repr(C)]`, so cbindgen declares it as an
//! opaque `typedef struct a2a_x a2a_x;`. C only ever holds a pointer obtained from the
//! library (`a2a_x_new` or another constructor) and returns it to `a2a_x_free`, which
//! accepts NULL and must not be called twice.
//!
//! # Threading: every handle carries a use gate
//! Handles are `Send` (a handle may move to another thread between calls) and, except the
//! client, not thread-safe. The library does not trust the caller on this: every handle is
//! allocated together with a `Gate`, one atomic word, and
//! - a mutating call (`a2a_x *` first argument, `try_mut!`) takes the gate exclusively for
//!   its duration: a second call on the same handle meanwhile, from another thread, is
//!   refused with `A2A_IN_USE` (its NULL default for functions that do not return an
//!   `a2a_result`) and changes nothing, instead of corrupting the handle;
//! - the client's calls (`try_shared!`) take it shared: any number at once;
//! - `a2a_x_free` marks the gate closing, which refuses every call entering from then on
//!   (`A2A_CLOSED`), WAITS until the calls in flight have left, and only then frees. The
//!   wait is bounded only by those calls (a client call by its own timeouts).
//!
//! What stays the caller's duty: a call that starts after `a2a_x_free` returned (or races
//! with its return) uses freed memory, so a binding orders its own close after its own
//! calls; `const` accessors (`const a2a_x *`) are not gated (they may run together, and the
//! views they return die at the next mutating call anyway), so they must not race with a
//! mutating call or free; and a call must never free the handle it runs on (a header hook
//! freeing its client would wait for itself forever).
//!
//! Handles handed out borrowed (an outcome inside a stream, a stream's response head) are
//! not allocated here: they never reach `try_mut!` or `free` (the header forbids
//! freeing them, and they have no mutating calls).

use std::cell::UnsafeCell;
use std::ops::{Deref, DerefMut};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use crate::result::a2a_result;

/// Marker for types handed to C as `a2a_x *`: only they may go through [`into_raw`] and
/// [`free`], which keeps `Box::from_raw` paired with the right type.
pub(crate) trait Handle: Sized + Send + 'static {}

/// Gate bit: `_free` has started; every new call is refused.
const CLOSING: usize = 1;
/// Gate bit: a mutating call is inside.
const EXCLUSIVE: usize = 2;
/// Gate unit: one shared call inside (the count is the word above the two bits).
#[cfg_attr(not(feature = "driver"), allow(dead_code))]
const SHARED: usize = 4;

/// The longest sleep between two looks of a waiting `_free` (the first looks only yield).
const MAX_PAUSE: Duration = Duration::from_millis(2);

/// Who is inside a handle: closing bit, exclusive bit, shared count, in one atomic word.
///
/// A call's last access to the handle is the atomic that releases the gate, and `_free`
/// polls for the gate to empty rather than being woken: a wake-up object would have to be
/// touched after the release, when the memory may already be gone (the pattern `Arc` uses
/// for the same reason). Polling costs a waiting `_free` at most [`MAX_PAUSE`] of delay.
pub(crate) struct Gate {
    state: AtomicUsize,
}

impl Gate {
    const fn new() -> Gate {
        Gate {
            state: AtomicUsize::new(0),
        }
    }

    /// The code refusing a call that found `state` in the way.
    fn refusal(state: usize) -> a2a_result {
        if state & CLOSING != 0 {
            a2a_result::A2A_CLOSED
        } else {
            a2a_result::A2A_IN_USE
        }
    }

    /// Takes the gate for a mutating call: one compare-and-swap when nobody is inside.
    fn enter_exclusive(&self) -> Result<(), a2a_result> {
        self.state
            .compare_exchange(0, EXCLUSIVE, Ordering::Acquire, Ordering::Relaxed)
            .map(drop)
            .map_err(Gate::refusal)
    }

    fn leave_exclusive(&self) {
        // fetch_sub, not store(0): a `_free` may have set CLOSING meanwhile.
        self.state.fetch_sub(EXCLUSIVE, Ordering::Release);
    }

    /// Counts a shared call in, unless the handle is closing or a mutating call is inside.
    #[cfg_attr(not(feature = "driver"), allow(dead_code))]
    fn enter_shared(&self) -> Result<(), a2a_result> {
        let before = self.state.fetch_add(SHARED, Ordering::Acquire);
        if before & (CLOSING | EXCLUSIVE) != 0 {
            self.leave_shared();
            return Err(Gate::refusal(before));
        }
        Ok(())
    }

    #[cfg_attr(not(feature = "driver"), allow(dead_code))]
    fn leave_shared(&self) {
        self.state.fetch_sub(SHARED, Ordering::Release);
    }

    /// Marks the gate closing and waits until no call is inside. False when another
    /// `_free` got there first (it frees; this one must not).
    fn close_and_wait(&self) -> bool {
        if self.state.fetch_or(CLOSING, Ordering::AcqRel) & CLOSING != 0 {
            return false;
        }
        let mut looks = 0u32;
        let mut pause = Duration::from_micros(20);
        // Acquire: everything the leaving calls did happens before the free.
        while self.state.load(Ordering::Acquire) != CLOSING {
            if looks < 100 {
                looks += 1;
                std::thread::yield_now();
            } else {
                std::thread::sleep(pause);
                pause = (pause * 2).min(MAX_PAUSE);
            }
        }
        true
    }
}

/// What a handle pointer points at: the value, then its gate. `repr(C)` with the value
/// first, so the `*mut T` C holds is also the address of the whole allocation.
#[repr(C)]
struct Guarded<T> {
    value: UnsafeCell<T>,
    gate: Gate,
}

/// Moves a handle to the heap (with its gate) and gives up ownership to C.
pub(crate) fn into_raw<T: Handle>(value: T) -> *mut T {
    let boxed = Box::new(Guarded {
        value: UnsafeCell::new(value),
        gate: Gate::new(),
    });
    // The value is at offset 0 (repr(C), UnsafeCell is repr(transparent)).
    Box::into_raw(boxed).cast::<T>()
}

/// The allocation behind a handle pointer.
///
/// # Safety
/// `ptr` came from [`into_raw::<T>`] and is not freed yet.
unsafe fn guarded<'a, T: Handle>(ptr: *const T) -> &'a Guarded<T> {
    // SAFETY: by contract the pointer is the address of a live Guarded<T>; the shared
    // reference covers the gate (atomic) and the UnsafeCell (no claim on the value).
    unsafe { &*ptr.cast::<Guarded<T>>() }
}

/// Frees a handle obtained from [`into_raw`]; NULL is a no-op. Waits for the calls inside
/// the handle to leave first (see the module docs).
///
/// # Safety
/// `ptr` is NULL or came from `into_raw::<T>` and was not freed before.
pub(crate) unsafe fn free<T: Handle>(ptr: *mut T) {
    if ptr.is_null() {
        return;
    }
    // SAFETY: by contract a live handle; the reference ends before the drop below.
    if !unsafe { guarded(ptr) }.gate.close_and_wait() {
        return;
    }
    // SAFETY: by contract the pointer came from Box::into_raw of a Guarded<T>; nobody is
    // inside any more and new calls are refused, so this is the last use.
    drop(unsafe { Box::from_raw(ptr.cast::<Guarded<T>>()) });
}

/// A mutating call's hold on a handle: `&mut T` while it lives, the gate released on drop
/// (also when the call panics).
pub(crate) struct Exclusive<'a, T> {
    guarded: &'a Guarded<T>,
}

/// Takes a handle for a mutating call, or says why not (`A2A_IN_USE`, `A2A_CLOSED`).
///
/// # Safety
/// `ptr` is non-NULL, came from `into_raw::<T>` and is not freed yet.
pub(crate) unsafe fn enter_exclusive<'a, T: Handle>(
    ptr: *mut T,
) -> Result<Exclusive<'a, T>, a2a_result> {
    // SAFETY: forwarded contract.
    let guarded = unsafe { guarded(ptr) };
    guarded.gate.enter_exclusive()?;
    Ok(Exclusive { guarded })
}

impl<T> Deref for Exclusive<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        // SAFETY: the exclusive gate is held: no other gated call is inside the value.
        unsafe { &*self.guarded.value.get() }
    }
}

impl<T> DerefMut for Exclusive<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: as in deref; `&mut self` makes this the only reference handed out.
        unsafe { &mut *self.guarded.value.get() }
    }
}

impl<T> Drop for Exclusive<'_, T> {
    fn drop(&mut self) {
        self.guarded.gate.leave_exclusive();
    }
}

/// A shared call's hold on a thread-safe handle (the client): `&T` while it lives.
#[cfg_attr(not(feature = "driver"), allow(dead_code))]
pub(crate) struct Shared<'a, T> {
    guarded: &'a Guarded<T>,
}

/// Counts a call into a thread-safe handle, or says why not (`A2A_CLOSED`, or
/// `A2A_IN_USE` while a mutating call is inside).
///
/// # Safety
/// `ptr` is non-NULL, came from `into_raw::<T>` and is not freed yet.
#[cfg_attr(not(feature = "driver"), allow(dead_code))]
pub(crate) unsafe fn enter_shared<'a, T: Handle + Sync>(
    ptr: *const T,
) -> Result<Shared<'a, T>, a2a_result> {
    // SAFETY: forwarded contract.
    let guarded = unsafe { guarded(ptr) };
    guarded.gate.enter_shared()?;
    Ok(Shared { guarded })
}

impl<T> Deref for Shared<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        // SAFETY: shared holders only read (T: Sync); a mutating call cannot be inside
        // while the shared count is nonzero.
        unsafe { &*self.guarded.value.get() }
    }
}

impl<T> Drop for Shared<'_, T> {
    fn drop(&mut self) {
        self.guarded.gate.leave_shared();
    }
}

/// `&T` from a `const a2a_x *` argument, or returns the NULL default of the function's
/// return type (`A2A_NULL_PARAMETER`, NULL, false, 0, an empty view). Not gated: see the
/// module docs.
macro_rules! try_ref {
    ($ptr:expr) => {{
        let p = $ptr;
        if p.is_null() {
            return $crate::panic::NullOrDefault::value();
        }
        // SAFETY: non-NULL; the header requires a live handle from this library.
        unsafe { &*p }
    }};
}

/// `&mut T` from an `a2a_x *` argument for a mutating call, holding the handle's gate
/// exclusively until the end of the enclosing statement or, in `let x = try_mut!(p);`,
/// of the enclosing block (the [`Exclusive`] hold is a temporary that `let` extends).
/// Returns the NULL default for NULL, and `A2A_IN_USE` / `A2A_CLOSED` (the NULL default of
/// a return type that is not `a2a_result`) when another call is inside or the handle is
/// being freed.
macro_rules! try_mut {
    ($ptr:expr) => {
        &mut *{
            let p = $ptr;
            if p.is_null() {
                return $crate::panic::NullOrDefault::value();
            }
            // SAFETY: non-NULL; the header requires a live handle from this library.
            match unsafe { $crate::handle::enter_exclusive(p) } {
                Ok(held) => held,
                Err(code) => return $crate::result::FromResult::from_result(code),
            }
        }
    };
}

/// `&T` from a thread-safe handle's pointer (the client) for one call, counted in its gate
/// as [`try_mut!`] holds it (a [`Shared`] hold); returns as `try_mut!` does when refused.
/// Only the client (feature `driver`) is thread-safe, hence its only user.
#[cfg_attr(not(feature = "driver"), allow(unused_macros))]
macro_rules! try_shared {
    ($ptr:expr) => {
        &*{
            let p = $ptr;
            if p.is_null() {
                return $crate::panic::NullOrDefault::value();
            }
            // SAFETY: non-NULL; the header requires a live handle from this library.
            match unsafe { $crate::handle::enter_shared(p) } {
                Ok(held) => held,
                Err(code) => return $crate::result::FromResult::from_result(code),
            }
        }
    };
}

/// Checks an out-parameter for NULL up front (before any work), returning the NULL default
/// of the return type; yields an [`Out`] to write once the call has succeeded.
macro_rules! try_out {
    ($ptr:expr) => {{
        let p = $ptr;
        if p.is_null() {
            return $crate::panic::NullOrDefault::value();
        }
        $crate::handle::Out(p)
    }};
}

#[cfg_attr(not(feature = "driver"), allow(unused_imports))]
pub(crate) use try_shared;
pub(crate) use {try_mut, try_out, try_ref};

/// A checked, non-NULL out-parameter. Writing is the last step of a successful call, so
/// outputs are written only on success.
pub(crate) struct Out<T>(pub(crate) *mut T);

impl<T> Out<T> {
    /// Writes the output.
    pub(crate) fn set(self, value: T) {
        // SAFETY: checked non-NULL by try_out!; the header requires it to be writable and
        // aligned. `write` does not drop the (possibly uninitialised) previous value.
        unsafe { self.0.write(value) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Barrier;
    use std::sync::atomic::AtomicBool;

    struct Counter {
        n: u64,
        dropped: &'static AtomicBool,
    }
    impl Handle for Counter {}
    impl Drop for Counter {
        fn drop(&mut self) {
            self.dropped.store(true, Ordering::SeqCst);
        }
    }

    fn leaked_flag() -> &'static AtomicBool {
        Box::leak(Box::new(AtomicBool::new(false)))
    }

    #[test]
    fn a_second_mutating_call_is_refused_while_one_is_inside() {
        let p = into_raw(Counter {
            n: 0,
            dropped: leaked_flag(),
        });
        let mut held = unsafe { enter_exclusive(p) }.unwrap();
        held.n += 1;
        assert_eq!(
            unsafe { enter_exclusive(p) }.err(),
            Some(a2a_result::A2A_IN_USE)
        );
        drop(held);
        assert_eq!(unsafe { enter_exclusive(p) }.map(|h| h.n).ok(), Some(1));
        unsafe { free(p) };
    }

    #[test]
    fn free_waits_for_the_call_inside_and_refuses_new_ones() {
        let dropped = leaked_flag();
        let p = into_raw(Counter { n: 0, dropped });
        let addr = p as usize;
        let inside = Barrier::new(2);
        let release = AtomicBool::new(false);
        std::thread::scope(|s| {
            s.spawn(|| {
                let mut held = unsafe { enter_exclusive(addr as *mut Counter) }.unwrap();
                inside.wait();
                // Bounded: the main thread sets `release` right after seeing CLOSING.
                for _ in 0..10_000 {
                    if release.load(Ordering::SeqCst) {
                        break;
                    }
                    std::thread::sleep(Duration::from_millis(1));
                }
                held.n = 7;
                assert!(!dropped.load(Ordering::SeqCst), "freed under the call");
            });
            inside.wait();
            let freer = s.spawn(|| unsafe { free(addr as *mut Counter) });
            let g = unsafe { guarded(p) };
            for _ in 0..10_000 {
                if g.gate.state.load(Ordering::SeqCst) & CLOSING != 0 {
                    break;
                }
                std::thread::sleep(Duration::from_millis(1));
            }
            assert_eq!(
                unsafe { enter_shared(addr as *const Counter) }.err(),
                Some(a2a_result::A2A_CLOSED)
            );
            assert!(!dropped.load(Ordering::SeqCst));
            release.store(true, Ordering::SeqCst);
            freer.join().unwrap();
        });
        assert!(dropped.load(Ordering::SeqCst));
    }

    // `enter_shared` needs `Sync`; Counter is (u64 and a &'static AtomicBool).
    #[test]
    fn shared_calls_run_together_and_keep_a_mutating_call_out() {
        let p = into_raw(Counter {
            n: 3,
            dropped: leaked_flag(),
        });
        let a = unsafe { enter_shared(p as *const Counter) }.unwrap();
        let b = unsafe { enter_shared(p as *const Counter) }.unwrap();
        assert_eq!(a.n + b.n, 6);
        assert_eq!(
            unsafe { enter_exclusive(p) }.err(),
            Some(a2a_result::A2A_IN_USE)
        );
        drop((a, b));
        let held = unsafe { enter_exclusive(p) }.unwrap();
        assert_eq!(
            unsafe { enter_shared(p as *const Counter) }.err(),
            Some(a2a_result::A2A_IN_USE)
        );
        drop(held);
        unsafe { free(p) };
    }
}
