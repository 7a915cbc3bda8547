//! The few DER shapes a key needs: tag, definite length, contents (X.690 §8.1).
//!
//! Hand-written on purpose: reading a SubjectPublicKeyInfo and an RSAPublicKey takes four
//! tags, and ring (which parses its own key formats) does not expose its reader; the DER
//! crates would add a dependency stack for a few dozen lines. Bounded by the input: every
//! length is checked against what is left.

/// `SEQUENCE` (constructed).
pub(crate) const SEQUENCE: u8 = 0x30;
/// `INTEGER`.
pub(crate) const INTEGER: u8 = 0x02;
/// `BIT STRING`.
pub(crate) const BIT_STRING: u8 = 0x03;
/// `OBJECT IDENTIFIER`.
pub(crate) const OID: u8 = 0x06;

/// Reads consecutive elements of one level.
pub(crate) struct Reader<'a> {
    rest: &'a [u8],
}

impl<'a> Reader<'a> {
    pub(crate) fn new(bytes: &'a [u8]) -> Reader<'a> {
        Reader { rest: bytes }
    }

    /// The contents of the next element if its tag is `tag`; `None` on any other tag or a
    /// malformed or non-minimal length.
    pub(crate) fn take(&mut self, tag: u8) -> Option<&'a [u8]> {
        let (&t, rest) = self.rest.split_first()?;
        if t != tag {
            return None;
        }
        let (&first, mut rest) = rest.split_first()?;
        let len = if first < 0x80 {
            usize::from(first)
        } else {
            let n = usize::from(first & 0x7f);
            if n == 0 || n > 4 || rest.len() < n {
                return None;
            }
            let mut len = 0usize;
            for &b in &rest[..n] {
                len = (len << 8) | usize::from(b);
            }
            // DER: the shortest form, so a long form is only for 128 and more.
            if len < 0x80 || rest[0] == 0 {
                return None;
            }
            rest = &rest[n..];
            len
        };
        if rest.len() < len {
            return None;
        }
        let (contents, after) = rest.split_at(len);
        self.rest = after;
        Some(contents)
    }

    /// `Some(())` when everything was read.
    pub(crate) fn finish(&self) -> Option<()> {
        self.rest.is_empty().then_some(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_and_long_lengths_and_refusals() {
        let mut r = Reader::new(&[0x02, 0x01, 0x05, 0x30, 0x00]);
        assert_eq!(r.take(INTEGER), Some(&[5u8][..]));
        assert_eq!(r.take(INTEGER), None);
        assert_eq!(r.take(SEQUENCE), Some(&[][..]));
        assert_eq!(r.finish(), Some(()));
        let long = [&[0x04u8, 0x81, 0x80][..], &[7u8; 128]].concat();
        assert_eq!(Reader::new(&long).take(0x04).map(<[u8]>::len), Some(128));
        // Non-minimal long form, truncated contents, too long a length.
        assert_eq!(Reader::new(&[0x04, 0x81, 0x01, 0x00]).take(0x04), None);
        assert_eq!(Reader::new(&[0x04, 0x05, 0x00]).take(0x04), None);
        assert_eq!(Reader::new(&[0x04, 0x85, 1, 1, 1, 1, 1]).take(0x04), None);
        assert_eq!(Reader::new(&[]).take(0x04), None);
    }
}
