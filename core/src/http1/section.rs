//! Header sections (a head or a trailer section): where one ends in the bytes read so far,
//! and httparse header storage sized by both the limit and the input, so that a huge
//! configured limit never allocates by the limit.

/// Where a header section stands in the bytes read so far, measured against its size limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SectionScan {
    /// The section is complete: it is the first this many bytes (its empty line included).
    Complete(usize),
    /// No end yet, and no line feed in the first `scanned` bytes: resume from there once
    /// more bytes arrive.
    Incomplete { scanned: usize },
    /// The section is, or is bound to be, larger than the limit.
    TooLarge,
}

/// Looks for the end of a header section in `buf`, resuming after the `scanned` bytes an
/// earlier call already searched, and checks its size against `limit`. `at_line_start` as
/// for [`find_section_end`].
pub(crate) fn scan_section(
    buf: &[u8],
    scanned: usize,
    at_line_start: bool,
    limit: usize,
) -> SectionScan {
    match find_section_end(buf, scanned, at_line_start) {
        Some(end) if end > limit => SectionScan::TooLarge,
        Some(end) => SectionScan::Complete(end),
        None if buf.len() > limit => SectionScan::TooLarge,
        None => SectionScan::Incomplete { scanned: buf.len() },
    }
}

/// Finds the end of a header section (the byte after its empty line) in `buf`, looking only
/// at line feeds from `from` on. `at_line_start` says that `buf` starts a line, so that an
/// empty section (`\r\n` or `\n` at once) ends immediately, as trailers may.
fn find_section_end(buf: &[u8], from: usize, at_line_start: bool) -> Option<usize> {
    let from = from.min(buf.len());
    for off in memchr::memchr_iter(b'\n', &buf[from..]) {
        let i = from + off;
        let empty_line = match i {
            0 => at_line_start,
            1 => buf[0] == b'\n' || (at_line_start && buf[0] == b'\r'),
            _ => buf[i - 1] == b'\n' || (buf[i - 1] == b'\r' && buf[i - 2] == b'\n'),
        };
        if empty_line {
            return Some(i + 1);
        }
    }
    None
}

/// Header slots kept on the stack; larger sections use the heap.
const STACK_SLOTS: usize = 48;

/// Calls `f` with httparse header storage for a section of `len` bytes under a limit of
/// `limit` fields. A field takes at least 3 bytes (`a:` and LF), so more slots than
/// `len / 3 + 1` can never be filled: the storage stays proportional to the input.
pub(crate) fn with_header_slots<'b, R>(
    limit: usize,
    len: usize,
    f: impl FnOnce(&mut [httparse::Header<'b>]) -> R,
) -> R {
    let slots = limit.min(len / 3 + 1);
    if slots <= STACK_SLOTS {
        let mut stack: [httparse::Header<'b>; STACK_SLOTS] = [httparse::EMPTY_HEADER; STACK_SLOTS];
        f(&mut stack[..slots])
    } else {
        let mut heap = vec![httparse::EMPTY_HEADER; slots];
        f(&mut heap)
    }
}
