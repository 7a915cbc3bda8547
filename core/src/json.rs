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
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
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
