//! Percent-encoding of path segments and query values, and header checks.

/// Appends `text` percent-encoded for a path segment or query value (RFC 3986): every byte
/// outside the unreserved set `A-Z a-z 0-9 - . _ ~` becomes `%XX` (upper-case hex), so `/`,
/// `:`, `?`, `#`, `%`, `&`, `=` and spaces never change the route.
pub fn push_encoded(out: &mut String, text: &str) {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    for &b in text.as_bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(b as char);
        } else {
            out.push('%');
            out.push(HEX[usize::from(b >> 4)] as char);
            out.push(HEX[usize::from(b & 15)] as char);
        }
    }
}

/// Whether `text`, as a whole path segment, is a dot segment (`.` or `..`). Percent-encoding
/// does not help: `%2E` is equivalent to `.` (RFC 3986 §2.3, §6.2.2.2), and a normalizing
/// server or proxy (RFC 3986 §5.2.4 and §6.2.2.3, the WHATWG URL parser, Go's `ServeMux`,
/// nginx) would resolve `/tasks/%2E%2E` to the parent resource all the same. The request
/// builder refuses such a segment instead (see `BuildError::NotRepresentable`).
pub fn is_dot_segment(text: &str) -> bool {
    text == "." || text == ".."
}

/// `text` percent-encoded (see `push_encoded`).
pub fn encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    push_encoded(&mut out, text);
    out
}

/// Decodes `%XX` escapes (and nothing else: `+` stays `+`). `None` for a bad escape or a
/// result that is not UTF-8.
pub fn decode(text: &str) -> Option<std::borrow::Cow<'_, str>> {
    if !text.contains('%') {
        return Some(std::borrow::Cow::Borrowed(text));
    }
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = bytes.get(i + 1..i + 3)?;
            let hi = (hex[0] as char).to_digit(16)?;
            let lo = (hex[1] as char).to_digit(16)?;
            out.push((hi * 16 + lo) as u8);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok().map(std::borrow::Cow::Owned)
}

/// Whether `name` is an HTTP header name (an RFC 9110 token).
pub fn is_header_name(name: &str) -> bool {
    !name.is_empty() && name.bytes().all(|b| TCHAR[usize::from(b)])
}

/// The bytes `alnum` or in `extra`, as a table (one load per byte instead of a search of
/// `extra`: every header of every request is checked).
pub(crate) const fn byte_class(extra: &[u8]) -> [bool; 256] {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 256 {
        t[b] = (b as u8).is_ascii_alphanumeric();
        b += 1;
    }
    let mut i = 0;
    while i < extra.len() {
        t[extra[i] as usize] = true;
        i += 1;
    }
    t
}

/// RFC 9110 tchar.
static TCHAR: [bool; 256] = byte_class(b"!#$%&'*+-.^_`|~");

/// Bytes a header value may hold: tab, and anything from space up except DEL.
static VALUE: [bool; 256] = {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 256 {
        t[b] = b == 0x09 || (b >= 0x20 && b != 0x7f);
        b += 1;
    }
    t
};

/// Whether `value` can travel as an HTTP header value: no CR, LF or NUL (no header
/// injection), no other control byte except tab.
pub fn is_header_value(value: &str) -> bool {
    // Eight bytes at a time: a word with no byte below 0x20 and none 0x7f is all allowed;
    // one that may have either (a tab, or a refused byte) is checked byte by byte.
    const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
    const HIGH: u64 = u64::from_ne_bytes([0x80; 8]);
    let bytes = value.as_bytes();
    let mut words = bytes.chunks_exact(8);
    for w in &mut words {
        let mut word = [0u8; 8];
        word.copy_from_slice(w);
        let x = u64::from_ne_bytes(word);
        let below_space = x.wrapping_sub(ONES * 0x20) & !x & HIGH;
        let d = x ^ (ONES * 0x7f);
        let del = d.wrapping_sub(ONES) & !d & HIGH;
        if (below_space | del) != 0 && !w.iter().all(|&b| VALUE[usize::from(b)]) {
            return false;
        }
    }
    words.remainder().iter().all(|&b| VALUE[usize::from(b)])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_values_by_word_match_the_byte_rule() {
        for len in 1..=17 {
            for at in 0..len {
                for b in 0u8..0x80 {
                    let mut v = vec![b'a'; len];
                    v[at] = b;
                    let v = String::from_utf8(v).unwrap();
                    let want = b == b'\t' || (b >= 0x20 && b != 0x7f);
                    assert_eq!(is_header_value(&v), want, "{v:?}");
                }
                let mut v = "a".repeat(len);
                v.insert(at, 'é');
                assert!(is_header_value(&v), "{v:?}");
            }
        }
    }

    #[test]
    fn encodes_everything_outside_unreserved() {
        assert_eq!(encode("t-1"), "t-1");
        assert_eq!(encode("a/b:c d"), "a%2Fb%3Ac%20d");
        assert_eq!(encode("é"), "%C3%A9");
        assert_eq!(encode("50%&x=y?#"), "50%25%26x%3Dy%3F%23");
        assert_eq!(encode("A~z._-09"), "A~z._-09");
    }

    #[test]
    fn only_whole_dot_segments_are_dot_segments() {
        assert!(is_dot_segment("."));
        assert!(is_dot_segment(".."));
        for s in ["...", ".a", "a.", "", "%2E", "./", "t-1.2"] {
            assert!(!is_dot_segment(s), "{s:?}");
        }
    }

    #[test]
    fn decodes_round_trip_and_rejects_bad_escapes() {
        for s in ["a/b:c d", "é", "%%", "plain", ""] {
            assert_eq!(decode(&encode(s)).as_deref(), Some(s));
        }
        assert_eq!(decode("%2"), None);
        assert_eq!(decode("%zz"), None);
        assert_eq!(decode("%FF"), None);
        assert_eq!(decode("a+b").as_deref(), Some("a+b"));
    }

    #[test]
    fn header_checks() {
        assert!(is_header_name("Idempotency-Key"));
        assert!(!is_header_name("Bad Name"));
        assert!(!is_header_name(""));
        assert!(is_header_value("Bearer abc\tdef"));
        assert!(!is_header_value("x\r\nInjected: 1"));
        assert!(!is_header_value("nul\0"));
    }
}
