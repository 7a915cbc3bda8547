//! The crate's one JSON string escaper. Every JSON text the crate writes by hand (the
//! `a2a classify` object of [`crate::outcome`], the canonical answer of `answer`, the
//! RFC 8785 form of `trust`) writes its strings through [`escape_into`], and everything else
//! is written by serde_json, so all of them escape alike.
//!
//! The escapes are serde_json's (1.0, `ser.rs`'s `ESCAPE` table), which RFC 8785 §3.2.2.2
//! also prescribes: `\"` and `\\`; the short forms `\b` (U+0008), `\t`, `\n`, `\f`
//! (U+000C) and `\r`; every other control character below U+0020 as `\u00xx` with
//! lowercase hex; everything else, DEL, non-ASCII and U+2028/U+2029 included, as itself.

/// Appends `s` as a JSON string literal, quotes included (see [`escape_into`]).
pub(crate) fn write_str(out: &mut String, s: &str) {
    out.push('"');
    escape_into(out, s);
    out.push('"');
}

/// Appends the inside of the JSON string literal for `s`: the escapes of the module docs,
/// every other character as itself.
pub(crate) fn escape_into(out: &mut String, s: &str) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let bytes = s.as_bytes();
    let first = first_escape(bytes);
    if first == bytes.len() {
        // The usual string (an id, a word, a line of text): nothing to escape.
        out.push_str(s);
        return;
    }
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate().skip(first) {
        let short = match b {
            b'"' => '"',
            b'\\' => '\\',
            0x08 => 'b',
            b'\t' => 't',
            b'\n' => 'n',
            0x0c => 'f',
            b'\r' => 'r',
            0x00..=0x1f => 'u',
            _ => continue,
        };
        // `b` is an ASCII byte, so both slices end on character boundaries.
        out.push_str(&s[start..i]);
        out.push('\\');
        out.push(short);
        if short == 'u' {
            out.push_str("00");
            out.push(char::from(HEX[usize::from(b >> 4)]));
            out.push(char::from(HEX[usize::from(b & 0xf)]));
        }
        start = i + 1;
    }
    out.push_str(&s[start..]);
}

/// The index of the first byte of `bytes` that [`escape_into`] escapes (a quote, a
/// backslash, a byte below 0x20), or `bytes.len()` when none does. Eight bytes at a time:
/// a word is passed over when none of its bytes is one of them (callgrind: the byte-by-byte
/// scan was about 1.6k instructions of a 0.3 stream event's rendered JSON).
pub(crate) fn first_escape(bytes: &[u8]) -> usize {
    let mut chunks = bytes.chunks_exact(8);
    let mut at = 0;
    for chunk in chunks.by_ref() {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        if escape_bytes(u64::from_le_bytes(word)) != 0 {
            break;
        }
        at += 8;
    }
    at + bytes[at..]
        .iter()
        .position(|&b| b == b'"' || b == b'\\' || b < 0x20)
        .unwrap_or(bytes.len() - at)
}

/// The high bit of every byte of the little-endian word `x` that is `"`, `\\` or below 0x20:
/// exact for the lowest such byte and for whether there is one at all (a borrow only
/// carries towards higher bytes, so higher marks may be spurious). The one word test of the
/// crate's string scans: [`first_escape`], the tape's string tokens, the envelope's direct
/// body.
#[inline]
pub(crate) fn escape_bytes(x: u64) -> u64 {
    const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
    const HIGH: u64 = u64::from_ne_bytes([0x80; 8]);
    // Flipping bit 1 turns `"` (0x22) into 0x20 and keeps every byte below 0x20 below it
    // (0x20 and 0x21 become 0x22 and 0x23): a quote or a control byte is then exactly a
    // byte below 0x21, one "hasless" test (its high bit clear, and subtracting 0x21 borrows
    // from it) instead of a zero-byte test and a below-0x20 test, three fewer operations per
    // word of string text (40.85k -> 40.17k instructions per one-pass read of the 2 KB task,
    // thin LTO, callgrind).
    let flipped = x ^ (ONES * 0x02);
    let quote_or_control = flipped.wrapping_sub(ONES * 0x21) & !flipped;
    let bs = x ^ (ONES * u64::from(b'\\'));
    let backslash = bs.wrapping_sub(ONES) & !bs;
    (quote_or_control | backslash) & HIGH
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::write_str;

    fn written(s: &str) -> String {
        let mut out = String::new();
        write_str(&mut out, s);
        out
    }

    #[test]
    fn every_ascii_byte_as_serde_json_writes_it() {
        for b in 0u8..0x80 {
            let s = char::from(b).to_string();
            assert_eq!(written(&s), serde_json::to_string(&s).unwrap(), "{b:#04x}");
        }
        assert_eq!(written("\u{8}\u{c}\u{1f}"), r#""\b\f\u001f""#);
        assert_eq!(written("\u{2028}é"), "\"\u{2028}é\"");
    }

    /// Strings weighted towards the characters that need escaping.
    fn tricky() -> impl Strategy<Value = String> {
        let c = prop_oneof![
            3 => (0u32..0x20).prop_map(|u| char::from_u32(u).unwrap_or('?')),
            2 => prop::sample::select(vec!['"', '\\', '/', '\u{7f}', '\u{2028}', '\u{2029}', 'é', '😀']),
            2 => any::<char>(),
            1 => prop::char::range('a', 'z'),
        ];
        prop::collection::vec(c, 0..40).prop_map(|v| v.into_iter().collect())
    }

    #[test]
    fn first_escape_finds_the_first_byte_to_escape_in_every_position() {
        for len in 0..20 {
            for at in 0..=len {
                for b in [b'"', b'\\', 0x00, 0x1f, b'\n'] {
                    let mut v = vec![b'a'; len];
                    if at < len {
                        v[at] = b;
                    }
                    assert_eq!(super::first_escape(&v), at, "{len} {at} {b:#04x}");
                }
            }
        }
        // Bytes just outside the escaped set, non-ASCII among them: nothing found.
        let plain = [
            0x20, 0x21, 0x23, 0x5b, 0x5d, 0x7f, 0x80, 0xa2, 0xdc, 0xff, 0x9f, 0xe0,
        ];
        assert_eq!(super::first_escape(&plain), plain.len());
    }

    proptest! {
        /// The escaper's output is a JSON string that serde_json reads back to the input,
        /// and the very bytes serde_json itself writes for it.
        #[test]
        fn round_trips_and_matches_serde_json(s in tricky()) {
            let out = written(&s);
            prop_assert_eq!(serde_json::from_str::<String>(&out).unwrap(), s.clone());
            prop_assert_eq!(out, serde_json::to_string(&s).unwrap());
        }
    }
}
