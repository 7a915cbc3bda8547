//! A whole-body SSE splitter for [`classify`](super::classify) when a complete
//! `text/event-stream` body is handed over at once (tables, captured streams). Incremental
//! decoding with limits is [`crate::sse`]'s job; this reader follows the same WHATWG field
//! rules (CRLF, LF or CR line ends; `:` comments; `data` lines joined with `\n`; an optional
//! space after the colon; an unterminated last block is discarded).

/// One dispatched event or comment.
pub(crate) enum Piece<'a> {
    /// An event: its type (empty when none was given) and its data.
    Event {
        event_type: &'a [u8],
        data: &'a [u8],
    },
    /// A comment line (keep-alive).
    Comment,
}

/// Calls `f` for every complete event and comment of `body`, in order.
pub(crate) fn split(body: &[u8], mut f: impl FnMut(Piece<'_>)) {
    let body = body.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(body);
    let mut data: Vec<u8> = Vec::new();
    let mut has_data = false;
    let mut event_type: &[u8] = b"";
    let mut i = 0;
    while i < body.len() {
        let rest = &body[i..];
        let Some(end) = memchr::memchr2(b'\n', b'\r', rest) else {
            break; // unterminated last line: discarded with its block
        };
        let line = &rest[..end];
        let mut next = i + end + 1;
        if rest[end] == b'\r' && rest.get(end + 1) == Some(&b'\n') {
            next += 1;
        }
        i = next;
        if line.is_empty() {
            if has_data {
                f(Piece::Event {
                    event_type,
                    data: &data,
                });
            }
            data.clear();
            has_data = false;
            event_type = b"";
            continue;
        }
        if line[0] == b':' {
            f(Piece::Comment);
            continue;
        }
        let (name, value) = match memchr::memchr(b':', line) {
            Some(c) => {
                let v = &line[c + 1..];
                (&line[..c], v.strip_prefix(b" ").unwrap_or(v))
            }
            None => (line, &b""[..]),
        };
        match name {
            b"data" => {
                if has_data {
                    data.push(b'\n');
                }
                data.extend_from_slice(value);
                has_data = true;
            }
            b"event" => event_type = value,
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn events(body: &[u8]) -> Vec<(String, String)> {
        let mut out = Vec::new();
        split(body, |p| {
            if let Piece::Event { event_type, data } = p {
                out.push((
                    String::from_utf8_lossy(event_type).into_owned(),
                    String::from_utf8_lossy(data).into_owned(),
                ));
            }
        });
        out
    }

    #[test]
    fn line_ends_comments_multiline_and_unterminated() {
        let body = b": ping\r\n\r\nevent: error\r\ndata: a\r\ndata:b\r\n\r\ndata: c\rdata: d\r\rdata: lost\n";
        assert_eq!(
            events(body),
            vec![
                ("error".to_owned(), "a\nb".to_owned()),
                (String::new(), "c\nd".to_owned())
            ]
        );
    }
}
