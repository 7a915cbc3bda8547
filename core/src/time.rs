//! Time as the caller sees it: the core never reads a clock.
//!
//! Every time-dependent call takes `now: Millis`, a monotonic millisecond count chosen by the
//! caller (for example milliseconds since the caller's process start), and hands deadlines
//! back as `Millis` on the same scale.

/// A point on the caller's monotonic clock, or a duration, in milliseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Millis(pub u64);

impl Millis {
    /// Zero milliseconds.
    pub const ZERO: Millis = Millis(0);

    /// `self + d`, saturating at `u64::MAX` instead of overflowing.
    pub fn saturating_add(self, d: Millis) -> Millis {
        Millis(self.0.saturating_add(d.0))
    }

    /// `self - earlier`, or zero when `earlier` is later than `self`.
    pub fn saturating_sub(self, earlier: Millis) -> Millis {
        Millis(self.0.saturating_sub(earlier.0))
    }

    /// Milliseconds from whole seconds, saturating.
    pub fn from_secs(secs: u64) -> Millis {
        Millis(secs.saturating_mul(1000))
    }
}
