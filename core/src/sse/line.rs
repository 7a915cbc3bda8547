//! One complete line: field name/value split and the field rules that need no state.

use memchr::memchr2;

/// The field a line names (WHATWG §9.2.6, names compared byte for byte).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Field {
    /// `data`
    Data,
    /// `event`
    Event,
    /// `id`
    Id,
    /// `retry`
    Retry,
    /// Anything else: ignored.
    Other,
}

/// A non-empty, non-comment line split into its field and the offset where its value starts
/// (after the first colon and at most one space); a line without a colon has an empty value.
///
/// The names that matter are at most 5 bytes long, so only the first 6 bytes are searched
/// for the colon: a line with none there names another field, whose value is never read
/// (its offset is reported as the end of the line).
#[inline]
pub(crate) fn split(line: &[u8]) -> (Field, usize) {
    // Fast path for the dominant shape.
    if line.len() >= 5 && &line[..5] == b"data:" {
        return (Field::Data, value_start(line, 4));
    }
    let head = &line[..line.len().min(6)];
    let colon = head.iter().position(|&b| b == b':');
    let name = match colon {
        Some(c) => &line[..c],
        None if line.len() <= 5 => line,
        None => return (Field::Other, line.len()),
    };
    let field = match name {
        b"data" => Field::Data,
        b"event" => Field::Event,
        b"id" => Field::Id,
        b"retry" => Field::Retry,
        _ => Field::Other,
    };
    match colon {
        Some(c) => (field, value_start(line, c)),
        None => (field, line.len()),
    }
}

/// Offset of the value for a colon at `colon`: one U+0020 after it is removed.
#[inline]
fn value_start(line: &[u8], colon: usize) -> usize {
    if line.get(colon + 1) == Some(&b' ') {
        colon + 2
    } else {
        colon + 1
    }
}

/// A `retry` value: one or more ASCII digits, base 10. Values that do not fit a `u64` are
/// ignored like any other invalid value (documented choice; the spec leaves it open).
#[inline]
pub(crate) fn parse_retry(value: &[u8]) -> Option<u64> {
    if value.is_empty() {
        return None;
    }
    let mut n: u64 = 0;
    for &b in value {
        if !b.is_ascii_digit() {
            return None;
        }
        n = n.checked_mul(10)?.checked_add(u64::from(b - b'0'))?;
    }
    Some(n)
}

/// An `id` value is ignored when it contains NUL (WHATWG, whatwg/html PR #2849).
#[inline]
pub(crate) fn id_is_valid(value: &[u8]) -> bool {
    // Ids are short (a counter, a UUID): the standard library's inlined byte search beats
    // memchr's call and set-up there.
    !value.contains(&0)
}

const LO: u64 = 0x0101_0101_0101_0101;
const HI: u64 = 0x8080_8080_8080_8080;

/// Bytes searched word by word before handing over to `memchr2`: short lines (keep-alives,
/// small token events) end before it, and `memchr2`'s per-call setup would cost more than
/// the whole scan.
pub(crate) const SHORT: usize = 64;

/// Position of the first CR or LF in `hay`.
///
/// The first [`SHORT`] bytes are scanned 8 at a time with a SWAR test (the lowest flagged
/// byte of `(x - 0x01..) & !x & 0x80..` is exactly the first zero byte of `x`, and a zero
/// byte of `w ^ 0x0A..` or `w ^ 0x0D..` is an LF or CR of `w`); longer lines go to `memchr2`.
///
/// Always inlined: with its tail free of loops, `#[inline]` left it an out-of-line call in
/// the decoder under thin LTO (keep-alives in 4-byte chunks +3% instructions); inlined, every
/// row of `sse_rounds` takes as many instructions or fewer (benches/README.md).
#[inline(always)]
pub(crate) fn find_eol(hay: &[u8]) -> Option<usize> {
    let mut i = 0;
    while i + 8 <= hay.len() && i < SHORT {
        let word = &hay[i..i + 8];
        // Gate: does the word hold any byte below 0x0E (CR, LF or a rarer control byte)?
        // Exact as a yes/no ("hasless" of Bit Twiddling Hacks), and half the work of the
        // exact CR/LF test below, which only such a word needs.
        if has_control(word) {
            let hits = eol_in_u64(word);
            if hits != 0 {
                return Some(i + (hits.trailing_zeros() / 8) as usize);
            }
        }
        i += 8;
    }
    if i < SHORT {
        // Fewer than 8 bytes left (a line dripped in small chunks ends here).
        let rest = &hay[i..];
        let n = rest.len();
        if n >= 4 {
            // Two overlapping 4-byte words cover 5 to 7 bytes, one covers 4 (a 4-byte chunk).
            if let Some(p) = eol_in_u32(&rest[..4]) {
                return Some(i + p);
            }
            if n == 4 {
                return None;
            }
            return eol_in_u32(&rest[n - 4..]).map(|p| i + n - 4 + p);
        }
        return eol_in_short(rest).map(|p| p + i);
    }
    memchr2(b'\n', b'\r', &hay[i..]).map(|p| p + i)
}

/// Position of the first CR or LF in `hay`, a long piece: `memchr2`'s search without its
/// per-call dispatch. On x86-64 the AVX2 searcher is built once (its needles already
/// broadcast) and kept in a static; `memchr2` would load a function pointer, build the
/// searcher again and go through two more calls on every piece (about 20 instructions of
/// some 400 per 1 460-byte piece of a long line). Elsewhere, or without AVX2, `memchr2`.
#[inline]
pub(crate) fn find_eol_long(hay: &[u8]) -> Option<usize> {
    #[cfg(target_arch = "x86_64")]
    {
        use memchr::arch::x86_64::avx2::memchr::Two;
        use std::sync::OnceLock;
        static AVX2: OnceLock<Option<Two>> = OnceLock::new();
        if let Some(two) = AVX2.get_or_init(|| Two::new(b'\n', b'\r')) {
            return two.find(hay);
        }
    }
    memchr2(b'\n', b'\r', hay)
}

/// Position of the first CR or LF in `hay`, for a comment (usually short: a keep-alive): the
/// first 16 bytes are tested as two words, inline and without a loop (the first behind the
/// gate of [`find_eol`], the second with the exact CR/LF test at once, since a line that
/// reaches it usually ends in it); past them, or when fewer than 16 bytes are left,
/// [`find_eol`] goes on and gives the same position.
///
/// Also says whether the comment is followed at once by a blank line with the same line
/// end, as a keep-alive is (`": keepalive\n\n"`, `\r\n\r\n`, `\r\r`): the bytes of the
/// two line ends (2 or 4), read from the word already loaded for the search, or 0 for any
/// other shape (the caller's general path decides those), including a terminator outside
/// the second word of the first 16 bytes and a bare-CR pair whose next byte lies outside
/// the word (it may be an LF). One search serves both answers: testing the shape in a
/// search of its own made the decoder's loop keep the search's constants in registers
/// under thin LTO, which cost every event 2-3%.
#[inline(always)]
pub(crate) fn find_eol_comment(hay: &[u8]) -> (Option<usize>, usize) {
    if let Some(head) = hay.first_chunk::<16>() {
        let (w0, w1) = head.split_at(8);
        if has_control(w0) {
            let hits = eol_in_u64(w0);
            if hits != 0 {
                return (Some((hits.trailing_zeros() / 8) as usize), 0);
            }
        }
        let hits = eol_in_u64(w1);
        if hits != 0 {
            let mut word = [0u8; 8];
            word.copy_from_slice(w1);
            let w = u64::from_le_bytes(word);
            // The flagged high bit is bit 8k + 7 of the terminator's byte k.
            let shift = hits.trailing_zeros() & !7;
            let k = (shift / 8) as usize;
            // Bytes k.. of the word; past its end the shift brings in zeros, never CR or LF.
            let t = w >> shift;
            let ends = match t as u16 {
                0x0A0A => 2,
                0x0A0D if t as u32 == 0x0A0D_0A0D => 4,
                // CR CR: the blank line's CR must not be followed by an LF (the byte is in
                // the word).
                0x0D0D if k <= 5 && (t >> 16) as u8 != b'\n' => 2,
                _ => 0,
            };
            return (Some(8 + k), ends);
        }
        return (find_eol(&hay[16..]).map(|p| p + 16), 0);
    }
    (find_eol(hay), 0)
}

/// [`find_eol`] for at most 8 bytes, inline: two overlapping 4-byte words for 5 to 8 bytes,
/// one for 4, [`eol_in_short`] below that. Returns the same position as [`find_eol`].
#[inline(always)]
pub(crate) fn find_eol_tiny(hay: &[u8]) -> Option<usize> {
    let n = hay.len();
    debug_assert!(n <= 8);
    if n >= 4 {
        if let Some(p) = eol_in_u32(&hay[..4]) {
            return Some(p);
        }
        if n == 4 {
            return None;
        }
        return eol_in_u32(&hay[n - 4..]).map(|p| n - 4 + p);
    }
    eol_in_short(hay)
}

/// Position of the first CR or LF in at most 3 bytes, without a loop: the bytes go into a
/// zeroed 4-byte word (first, middle and last byte, as `append_small` copies them; a zero
/// byte is never CR or LF) for the test of [`eol_in_u32`]. A byte loop cost about 10
/// instructions a byte plus its setup, and made the decoder keep the loop's bounds in
/// stack slots computed on every feed (a comment's start cut by a 4-byte chunk lands here).
#[inline(always)]
fn eol_in_short(hay: &[u8]) -> Option<usize> {
    let n = hay.len();
    debug_assert!(n < 4);
    if n == 0 {
        return None;
    }
    let mut word = [0u8; 4];
    word[0] = hay[0];
    word[n / 2] = hay[n / 2];
    word[n - 1] = hay[n - 1];
    eol_in_u32(&word)
}

/// The gate of [`find_eol`] on eight bytes: does any of them lie below 0x0E (CR, LF or a rarer
/// control byte)?
#[inline(always)]
fn has_control(eight: &[u8]) -> bool {
    let mut word = [0u8; 8];
    word.copy_from_slice(eight);
    let w = u64::from_le_bytes(word);
    w.wrapping_sub(LO * 0x0E) & !w & HI != 0
}

/// The CR/LF test of [`find_eol`] on eight bytes: the high bit of every byte that is CR or LF
/// (and of no byte before the first of them), 0 when there is none.
#[inline(always)]
fn eol_in_u64(eight: &[u8]) -> u64 {
    let mut word = [0u8; 8];
    word.copy_from_slice(eight);
    let w = u64::from_le_bytes(word);
    let lf = w ^ (LO * u64::from(b'\n'));
    let cr = w ^ (LO * u64::from(b'\r'));
    (lf.wrapping_sub(LO) & !lf & HI) | (cr.wrapping_sub(LO) & !cr & HI)
}

/// Position of the first CR or LF in four bytes (the SWAR test of [`find_eol`] on a `u32`).
#[inline(always)]
fn eol_in_u32(four: &[u8]) -> Option<usize> {
    const LO4: u32 = 0x0101_0101;
    const HI4: u32 = 0x8080_8080;
    let mut word = [0u8; 4];
    word.copy_from_slice(four);
    let w = u32::from_le_bytes(word);
    let lf = w ^ (LO4 * u32::from(b'\n'));
    let cr = w ^ (LO4 * u32::from(b'\r'));
    let hits = (lf.wrapping_sub(LO4) & !lf & HI4) | (cr.wrapping_sub(LO4) & !cr & HI4);
    (hits != 0).then(|| (hits.trailing_zeros() / 8) as usize)
}

/// The last keep-alive the decoder's short path recognised (a comment and the blank line
/// after it, both inside the first 16 bytes of a line start), kept as the bytes that decided
/// it: the next line start whose bytes agree with them under the mask is the same keep-alive,
/// with the same terminator position and length, without searching again.
///
/// Why: a stream of keep-alives is decoded one line after the other, and with the search
/// each line's start waits for the previous line's search (load, word test, bit scan); the
/// comparison leaves the next position a sum of known numbers, so the lines' work overlaps
/// (benches/README.md, keep-alives on the Intel Xeon). Servers repeat one keep-alive text
/// (`: ping`, `: keepalive`); any other line, or a keep-alive of another shape, takes the
/// search as before, which learns the new shape.
#[derive(Debug, Clone, Copy)]
pub(crate) struct KeepAliveShape {
    /// The first 16 bytes of the keep-alive's line start, as two little-endian words.
    words: [u64; 2],
    /// The bytes of `words` the search decided on (the comment, its line ends and, after a
    /// CR CR pair, the byte that showed no LF follows).
    masks: [u64; 2],
    /// Offset of the comment's terminator from the line start.
    pub(crate) line_len: u8,
    /// Bytes of the comment and the blank line after it.
    pub(crate) total: u8,
}

impl KeepAliveShape {
    /// No shape learned yet: matches no line (its first byte must be 0, and a comment's is
    /// `:`).
    pub(crate) const NONE: KeepAliveShape = KeepAliveShape {
        words: [0, 0],
        masks: [0xFF, 0],
        line_len: 0,
        total: 0,
    };

    /// The shape of a keep-alive that [`find_eol_comment`] found in `head`: its terminator at
    /// `line_len` and `ends` bytes of line ends (2 or 4). The search reports a shape only
    /// when the terminator lies in the second word, so the first word is all comment.
    #[inline]
    pub(crate) fn learn(head: &[u8; 16], line_len: usize, ends: usize) -> KeepAliveShape {
        debug_assert!((8..16).contains(&line_len) && (ends == 2 || ends == 4));
        // A CR CR pair was decided by the byte after it as well (not an LF).
        let crcr = usize::from(head[line_len] == b'\r' && ends == 2);
        let seen = line_len + ends + crcr - 8;
        debug_assert!(seen <= 8);
        let masks = [u64::MAX, u64::MAX >> (64 - 8 * seen)];
        KeepAliveShape {
            words: words(head),
            masks,
            line_len: line_len as u8,
            total: (line_len + ends) as u8,
        }
    }

    /// Whether `head`, a line start, is this keep-alive.
    #[inline(always)]
    pub(crate) fn matches(&self, head: &[u8; 16]) -> bool {
        let [w0, w1] = words(head);
        ((w0 ^ self.words[0]) & self.masks[0]) | ((w1 ^ self.words[1]) & self.masks[1]) == 0
    }
}

/// 16 bytes as two little-endian words.
#[inline(always)]
fn words(head: &[u8; 16]) -> [u64; 2] {
    let (a, b) = head.split_at(8);
    let mut w = [[0u8; 8]; 2];
    w[0].copy_from_slice(a);
    w[1].copy_from_slice(b);
    [u64::from_le_bytes(w[0]), u64::from_le_bytes(w[1])]
}
