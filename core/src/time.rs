//! Time as the caller sees it: the core never reads a clock.
//!
//! Every time-dependent call takes `now: Millis`, a monotonic millisecond count chosen by the
//! caller (for example milliseconds since the caller's process start), and hands deadlines
//! back as `Millis` on the same scale.
//!
//! Wall-clock time appears in one place: a `Retry-After` HTTP-date, which the caller turns
//! into seconds to wait by passing its own clock ([`RetryAfter`]).

mod http_date;

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

/// A `Retry-After` value (RFC 9110 §10.2.3): delta-seconds or an HTTP-date.
///
/// The one `Retry-After` reader of the core: the classifier
/// ([`ResponseInfo`](crate::classify::ResponseInfo)) and the HTTP/1.1 reader
/// ([`ResponseHead`](crate::http1::ResponseHead)) both use it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RetryAfter {
    /// Delta-seconds: wait this many seconds.
    Seconds(u64),
    /// An HTTP-date, as seconds since the Unix epoch (UTC). The core has no clock: subtract
    /// the caller's wall-clock time with [`RetryAfter::seconds_from`].
    At {
        /// Seconds since 1970-01-01T00:00:00Z.
        unix_seconds: u64,
    },
}

impl RetryAfter {
    /// Parses delta-seconds (saturating at `u64::MAX`) or an HTTP-date in any of the three
    /// forms of RFC 9110 §5.6.7 (`Sun, 06 Nov 1994 08:49:37 GMT`,
    /// `Sunday, 06-Nov-94 08:49:37 GMT`, `Sun Nov  6 08:49:37 1994`); anything else is
    /// `None`. Without a clock, an RFC 850 two-digit year `70`–`99` is 19xx, `00`–`69` 20xx;
    /// [`RetryAfter::parse_with_clock`] applies the RFC's 50-year rule instead.
    pub fn parse(value: &[u8]) -> Option<RetryAfter> {
        RetryAfter::parse_with_clock(value, None)
    }

    /// As [`RetryAfter::parse`], reading an RFC 850 two-digit year by RFC 9110's rule
    /// against `now_unix_seconds` (the caller's wall clock, when known).
    pub fn parse_with_clock(value: &[u8], now_unix_seconds: Option<u64>) -> Option<RetryAfter> {
        let v = trim_ows(value);
        if !v.is_empty() && v.iter().all(u8::is_ascii_digit) {
            let secs = v.iter().try_fold(0u64, |acc, &d| {
                acc.checked_mul(10)?.checked_add(u64::from(d - b'0'))
            });
            return Some(RetryAfter::Seconds(secs.unwrap_or(u64::MAX)));
        }
        http_date::parse_http_date(v, now_unix_seconds)
            .map(|unix_seconds| RetryAfter::At { unix_seconds })
    }

    /// Seconds to wait, given the caller's current wall-clock time in Unix seconds
    /// (zero when the date has passed).
    pub fn seconds_from(self, now_unix_seconds: u64) -> u64 {
        match self {
            RetryAfter::Seconds(s) => s,
            RetryAfter::At { unix_seconds } => unix_seconds.saturating_sub(now_unix_seconds),
        }
    }

    /// Seconds to wait: delta-seconds as given; an HTTP-date only when the caller knows its
    /// wall-clock time (`None` without one).
    pub fn secs(self, now_unix_seconds: Option<u64>) -> Option<u64> {
        match self {
            RetryAfter::Seconds(s) => Some(s),
            RetryAfter::At { .. } => now_unix_seconds.map(|now| self.seconds_from(now)),
        }
    }
}

/// A `Retry-After` header value as seconds to wait: [`RetryAfter::parse_with_clock`] then
/// [`RetryAfter::secs`]. `None` for garbage, and for an HTTP-date without a clock.
pub fn retry_after_secs(value: &[u8], now_unix_seconds: Option<u64>) -> Option<u64> {
    RetryAfter::parse_with_clock(value, now_unix_seconds)?.secs(now_unix_seconds)
}

/// `v` without leading and trailing spaces and tabs (HTTP's optional whitespace).
fn trim_ows(mut v: &[u8]) -> &[u8] {
    while let [b' ' | b'\t', rest @ ..] = v {
        v = rest;
    }
    while let [rest @ .., b' ' | b'\t'] = v {
        v = rest;
    }
    v
}

#[cfg(test)]
mod tests {
    use super::{RetryAfter, retry_after_secs};

    #[test]
    fn retry_after_forms() {
        assert_eq!(RetryAfter::parse(b"120"), Some(RetryAfter::Seconds(120)));
        assert_eq!(RetryAfter::parse(b" 0 \t"), Some(RetryAfter::Seconds(0)));
        assert_eq!(
            RetryAfter::parse(b"99999999999999999999999"),
            Some(RetryAfter::Seconds(u64::MAX))
        );
        for date in [
            &b"Sun, 06 Nov 1994 08:49:37 GMT"[..],
            b"Sunday, 06-Nov-94 08:49:37 GMT",
            b" Sun Nov  6 08:49:37 1994 ",
        ] {
            assert_eq!(
                RetryAfter::parse(date),
                Some(RetryAfter::At {
                    unix_seconds: 784_111_777
                })
            );
        }
        for bad in [&b"-1"[..], b"1.5", b"", b"  ", b"soon", b"+3", b"3 s"] {
            assert_eq!(RetryAfter::parse(bad), None, "{bad:?}");
        }
        let at = RetryAfter::At { unix_seconds: 1000 };
        assert_eq!(at.seconds_from(990), 10);
        assert_eq!(at.seconds_from(2000), 0);
        assert_eq!(at.secs(None), None);
        assert_eq!(at.secs(Some(400)), Some(600));
        assert_eq!(RetryAfter::Seconds(7).secs(None), Some(7));
    }

    #[test]
    fn seconds_to_wait_need_a_clock_only_for_dates() {
        assert_eq!(retry_after_secs(b"3", None), Some(3));
        assert_eq!(
            retry_after_secs(b"Sun, 06 Nov 1994 08:49:37 GMT", None),
            None
        );
        assert_eq!(
            retry_after_secs(b"Sun, 06 Nov 1994 08:49:37 GMT", Some(784_111_657)),
            Some(120)
        );
        // RFC 850 in 2026: "94" is 1994 (2094 would be more than 50 years ahead), so the
        // date has passed.
        assert_eq!(
            retry_after_secs(b"Sunday, 06-Nov-94 08:49:37 GMT", Some(1_767_225_600)),
            Some(0)
        );
        assert_eq!(retry_after_secs(b"garbage", Some(0)), None);
    }
}
