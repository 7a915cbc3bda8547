//! W3C Trace Context `traceparent` header (version `00`): format and parse.
//!
//! `00-<32 hex trace id>-<16 hex parent id>-<2 hex flags>`, lower-case hex. All-zero trace
//! or parent ids are invalid. The core has no randomness: new ids come from bytes the caller
//! supplies ([`TraceParent::from_random`]).

use std::fmt;

/// A parsed or built `traceparent` value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TraceParent {
    /// 16-byte trace id (never all zero).
    pub trace_id: [u8; 16],
    /// 8-byte parent (span) id (never all zero).
    pub parent_id: [u8; 8],
    /// Trace flags; bit 0 is "sampled".
    pub flags: u8,
}

/// Why a `traceparent` value was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TraceParentError {
    /// Not 55 bytes of `vv-trace-parent-ff` (for version 00).
    #[error("traceparent must be 55 characters: 00-<32 hex>-<16 hex>-<2 hex>")]
    Length,
    /// A dash is missing or misplaced.
    #[error("traceparent fields must be separated by '-'")]
    Separator,
    /// A field is not lower-case hex.
    #[error("traceparent fields must be lower-case hex")]
    Hex,
    /// Version `ff` is forbidden.
    #[error("traceparent version ff is invalid")]
    Version,
    /// The trace id is all zero.
    #[error("traceparent trace id is all zero")]
    ZeroTraceId,
    /// The parent id is all zero.
    #[error("traceparent parent id is all zero")]
    ZeroParentId,
}

/// The sampled flag.
pub const FLAG_SAMPLED: u8 = 0x01;

/// Each byte's value as a lower-case hex digit, `NOT_HEX` for any other byte (a load per
/// digit: every request's `traceparent` is parsed).
static HEX_VAL: [u8; 256] = {
    let mut t = [NOT_HEX; 256];
    let mut b = 0;
    while b < 10 {
        t[b'0' as usize + b] = b as u8;
        b += 1;
    }
    let mut b = 0;
    while b < 6 {
        t[b'a' as usize + b] = 10 + b as u8;
        b += 1;
    }
    t
};
const NOT_HEX: u8 = 0xff;

fn decode_hex<const N: usize>(text: &[u8]) -> Result<[u8; N], TraceParentError> {
    let mut out = [0u8; N];
    // Every digit decoded, then one check: `NOT_HEX` has its high bits set, a digit not.
    let mut bad = 0u8;
    for (o, pair) in out.iter_mut().zip(text.chunks_exact(2)) {
        let hi = HEX_VAL[usize::from(pair[0])];
        let lo = HEX_VAL[usize::from(pair[1])];
        bad |= hi | lo;
        *o = hi << 4 | lo;
    }
    if bad & 0xf0 != 0 {
        return Err(TraceParentError::Hex);
    }
    Ok(out)
}

impl TraceParent {
    /// Builds a new trace from 24 random bytes (16 for the trace id, 8 for the parent id).
    /// Returns `None` in the (negligible) case that either id comes out all zero; draw
    /// again then.
    pub fn from_random(random: [u8; 24], sampled: bool) -> Option<TraceParent> {
        let mut trace_id = [0u8; 16];
        let mut parent_id = [0u8; 8];
        trace_id.copy_from_slice(&random[..16]);
        parent_id.copy_from_slice(&random[16..]);
        TraceParent::new(trace_id, parent_id, if sampled { FLAG_SAMPLED } else { 0 })
    }

    /// A value from explicit ids; `None` when either id is all zero.
    pub fn new(trace_id: [u8; 16], parent_id: [u8; 8], flags: u8) -> Option<TraceParent> {
        if trace_id == [0; 16] || parent_id == [0; 8] {
            return None;
        }
        Some(TraceParent {
            trace_id,
            parent_id,
            flags,
        })
    }

    /// A child in the same trace: same trace id and flags, new parent id (the caller's
    /// span). `None` if `parent_id` is all zero.
    pub fn child(&self, parent_id: [u8; 8]) -> Option<TraceParent> {
        TraceParent::new(self.trace_id, parent_id, self.flags)
    }

    /// Whether the sampled flag is set.
    pub fn sampled(&self) -> bool {
        self.flags & FLAG_SAMPLED != 0
    }

    /// Parses a header value. Version `00` must be exactly 55 characters; a higher version
    /// is read by its first 55 characters when followed by `-` or the end (the W3C rule
    /// for future versions). Surrounding spaces and tabs are ignored.
    pub fn parse(value: &str) -> Result<TraceParent, TraceParentError> {
        let b = value.trim_matches([' ', '\t']).as_bytes();
        if b.len() < 55 {
            return Err(TraceParentError::Length);
        }
        let version = decode_hex::<1>(&b[0..2])?[0];
        if version == 0xff {
            return Err(TraceParentError::Version);
        }
        if version == 0 && b.len() != 55 {
            return Err(TraceParentError::Length);
        }
        if version != 0 && b.len() > 55 && b[55] != b'-' {
            return Err(TraceParentError::Length);
        }
        if b[2] != b'-' || b[35] != b'-' || b[52] != b'-' {
            return Err(TraceParentError::Separator);
        }
        let trace_id = decode_hex::<16>(&b[3..35])?;
        let parent_id = decode_hex::<8>(&b[36..52])?;
        let flags = decode_hex::<1>(&b[53..55])?[0];
        if trace_id == [0; 16] {
            return Err(TraceParentError::ZeroTraceId);
        }
        if parent_id == [0; 8] {
            return Err(TraceParentError::ZeroParentId);
        }
        Ok(TraceParent {
            trace_id,
            parent_id,
            flags,
        })
    }
}

impl TraceParent {
    /// The version-00 header value's bytes, built in place: a traceparent goes out with every
    /// call, and a `write!` per byte cost more than the rest of the header's handling.
    fn value_bytes(&self) -> [u8; 55] {
        const HEX: &[u8; 16] = b"0123456789abcdef";
        let mut out = *b"00-00000000000000000000000000000000-0000000000000000-00";
        let mut put = |at: usize, b: u8| {
            out[at] = HEX[usize::from(b >> 4)];
            out[at + 1] = HEX[usize::from(b & 0xf)];
        };
        for (i, &b) in self.trace_id.iter().enumerate() {
            put(3 + 2 * i, b);
        }
        for (i, &b) in self.parent_id.iter().enumerate() {
            put(36 + 2 * i, b);
        }
        put(53, self.flags);
        out
    }

    /// The version-00 header value as an owned string (what `to_string` gives, without the
    /// formatting machinery: one per call).
    pub fn header_value(&self) -> String {
        // ASCII by construction, so never the empty default: the check is a few word
        // compares (a char-by-char collect cost twenty times more, the lossy conversion's
        // chunk walk about 400 instructions).
        std::str::from_utf8(&self.value_bytes())
            .unwrap_or_default()
            .to_owned()
    }
}

impl fmt::Display for TraceParent {
    /// Writes the version-00 header value.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(std::str::from_utf8(&self.value_bytes()).map_err(|_| fmt::Error)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const W3C: &str = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

    #[test]
    fn parses_and_formats_the_w3c_example() {
        let tp = TraceParent::parse(W3C).unwrap();
        assert_eq!(tp.trace_id[0], 0x4b);
        assert_eq!(tp.parent_id[7], 0xb7);
        assert!(tp.sampled());
        assert_eq!(tp.to_string(), W3C);
        assert_eq!(tp.header_value(), W3C);
    }

    #[test]
    fn refuses_bad_values() {
        use TraceParentError::*;
        let cases = [
            ("", Length),
            (
                "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-0",
                Length,
            ),
            (
                "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-",
                Length,
            ),
            (
                "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
                Hex,
            ),
            (
                "00-4bf92f3577b34da6a3ce929d0e0e473g-00f067aa0ba902b7-01",
                Hex,
            ),
            (
                "00_4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
                Separator,
            ),
            (
                "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
                Version,
            ),
            (
                "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
                ZeroTraceId,
            ),
            (
                "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
                ZeroParentId,
            ),
        ];
        for (v, e) in cases {
            assert_eq!(TraceParent::parse(v), Err(e), "{v:?}");
        }
    }

    #[test]
    fn future_versions_are_read_by_their_prefix() {
        let v = "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra";
        assert!(TraceParent::parse(v).is_ok());
        let v = "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01x";
        assert_eq!(TraceParent::parse(v), Err(TraceParentError::Length));
    }

    #[test]
    fn builds_from_random_bytes() {
        let mut r = [0u8; 24];
        for (i, b) in r.iter_mut().enumerate() {
            *b = i as u8 + 1;
        }
        let tp = TraceParent::from_random(r, true).unwrap();
        assert_eq!(TraceParent::parse(&tp.to_string()), Ok(tp));
        assert!(TraceParent::from_random([0; 24], true).is_none());
        let child = tp.child([9; 8]).unwrap();
        assert_eq!(child.trace_id, tp.trace_id);
        assert_ne!(child.parent_id, tp.parent_id);
    }
}
