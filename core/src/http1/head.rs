//! The parsed status line and header block of a response, owned by the parser so that it
//! stays available while body bytes stream through, with the accessors the classifier and
//! the driver need (content type, `Retry-After`, `Location`, `Content-Encoding`,
//! keep-alive).

use crate::time::RetryAfter;

/// One header field as received: the name as sent (compare with
/// [`str::eq_ignore_ascii_case`]) and the raw value bytes (obs-text is possible).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HeaderField<'h> {
    /// Field name, as sent.
    pub name: &'h str,
    /// Field value, without surrounding whitespace.
    pub value: &'h [u8],
}

/// The header fields of a response (or its trailers), in the order received.
///
/// Stored in two contiguous buffers (names, values) plus offsets: three allocations per
/// response whatever the number of fields.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Headers {
    names: String,
    values: Vec<u8>,
    /// INVARIANT: each entry is (name start, name end, value start, value end), with the
    /// name bounds on char boundaries of `names` (whole `&str`s were pushed).
    fields: Vec<(usize, usize, usize, usize)>,
}

impl Headers {
    /// Builds a header list from (name, value) pairs, e.g. headers read by another HTTP
    /// stack, so that the same accessors and the classifier can be used on them.
    pub fn from_pairs<N: AsRef<str>, V: AsRef<[u8]>>(pairs: &[(N, V)]) -> Headers {
        let mut h = Headers::default();
        for (n, v) in pairs {
            h.push(n.as_ref(), v.as_ref());
        }
        h
    }

    fn push(&mut self, name: &str, value: &[u8]) {
        let (ns, vs) = (self.names.len(), self.values.len());
        self.names.push_str(name);
        // An obs-fold (CRLF + whitespace) becomes spaces (RFC 9112 §5.2); a value without
        // one (nearly all) is copied whole.
        if value.iter().any(|&b| b == b'\r' || b == b'\n') {
            self.values.extend(
                value
                    .iter()
                    .map(|&b| if b == b'\r' || b == b'\n' { b' ' } else { b }),
            );
        } else {
            self.values.extend_from_slice(value);
        }
        self.fields
            .push((ns, self.names.len(), vs, self.values.len()));
    }

    pub(crate) fn from_httparse(raw: &[httparse::Header<'_>]) -> Headers {
        let mut h = Headers {
            names: String::with_capacity(raw.iter().map(|f| f.name.len()).sum()),
            values: Vec::with_capacity(raw.iter().map(|f| f.value.len()).sum()),
            fields: Vec::with_capacity(raw.len()),
        };
        for f in raw {
            h.push(f.name, f.value);
        }
        h
    }

    fn field(&self, &(ns, ne, vs, ve): &(usize, usize, usize, usize)) -> HeaderField<'_> {
        HeaderField {
            name: self.names.get(ns..ne).unwrap_or(""),
            value: self.values.get(vs..ve).unwrap_or(&[]),
        }
    }

    /// Number of fields.
    pub fn len(&self) -> usize {
        self.fields.len()
    }

    /// True when there are no fields.
    pub fn is_empty(&self) -> bool {
        self.fields.is_empty()
    }

    /// All fields in the order received.
    pub fn iter(&self) -> impl Iterator<Item = HeaderField<'_>> {
        self.fields.iter().map(|f| self.field(f))
    }

    /// The value of the first field called `name` (case-insensitive).
    pub fn get(&self, name: &str) -> Option<&[u8]> {
        self.get_all(name).next()
    }

    /// The value of the first field called `name`, if it is valid UTF-8.
    pub fn get_str(&self, name: &str) -> Option<&str> {
        self.get(name).and_then(|v| std::str::from_utf8(v).ok())
    }

    /// The values of every field called `name` (case-insensitive), in order.
    pub fn get_all<'h, 'n>(
        &'h self,
        name: &'n str,
    ) -> impl Iterator<Item = &'h [u8]> + use<'h, 'n> {
        self.iter()
            .filter(move |f| f.name.eq_ignore_ascii_case(name))
            .map(|f| f.value)
    }

    /// True when some field called `name` holds `token` in its comma-separated list
    /// (case-insensitive), as used by `Connection` and `Transfer-Encoding`.
    pub fn has_token(&self, name: &str, token: &str) -> bool {
        self.get_all(name).any(|v| {
            v.split(|&b| b == b',')
                .any(|t| trim_ows(t).eq_ignore_ascii_case(token.as_bytes()))
        })
    }
}

/// Trims optional whitespace (SP / HTAB) from both ends.
pub(crate) fn trim_ows(mut v: &[u8]) -> &[u8] {
    while let [b' ' | b'\t', rest @ ..] = v {
        v = rest;
    }
    while let [rest @ .., b' ' | b'\t'] = v {
        v = rest;
    }
    v
}

/// How the body of a response is delimited (RFC 9112 §6.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BodyFraming {
    /// No body: a response to HEAD, or status 204 or 304.
    Empty,
    /// Exactly this many bytes (`Content-Length`).
    Length(u64),
    /// Chunked transfer coding.
    Chunked,
    /// Everything until the server closes the connection.
    UntilClose,
}

/// The status line and headers of a response.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResponseHead {
    /// Status code: three digits as sent (httparse accepts 000–999).
    pub status: u16,
    /// Reason phrase as sent (may be empty).
    pub reason: String,
    /// `0` for HTTP/1.0, `1` for HTTP/1.1.
    pub minor_version: u8,
    /// Header fields in the order received.
    pub headers: Headers,
    /// How the body is delimited.
    pub framing: BodyFraming,
}

impl ResponseHead {
    /// The `Content-Type` value as sent (e.g. `text/event-stream; charset=utf-8`).
    pub fn content_type(&self) -> Option<&str> {
        self.headers.get_str("content-type")
    }

    /// True when the media type of `Content-Type` (before any `;` parameter) equals
    /// `essence`, compared case-insensitively (`is_media_type("text/event-stream")`).
    pub fn is_media_type(&self, essence: &str) -> bool {
        self.content_type().is_some_and(|ct| {
            let media = ct.split(';').next().unwrap_or("");
            media.trim().eq_ignore_ascii_case(essence)
        })
    }

    /// `Retry-After`, parsed (see [`RetryAfter::parse`]); `None` when absent or unreadable.
    pub fn retry_after(&self) -> Option<RetryAfter> {
        self.headers.get("retry-after").and_then(RetryAfter::parse)
    }

    /// `Retry-After` in seconds: delta-seconds as given; an HTTP-date (any of the three
    /// forms) only when the caller passes its wall-clock time in Unix seconds (`None`
    /// otherwise, and when absent). The same reader as the classifier's
    /// ([`crate::time::retry_after_secs`]).
    pub fn retry_after_secs(&self, now_unix_seconds: Option<u64>) -> Option<u64> {
        let v = self.headers.get("retry-after")?;
        crate::time::retry_after_secs(v, now_unix_seconds)
    }

    /// `Content-Encoding` as sent (e.g. `gzip`); `None` when absent. A compressed body must
    /// be decoded by the caller before it is parsed (the core does not decompress).
    pub fn content_encoding(&self) -> Option<&str> {
        self.headers.get_str("content-encoding")
    }

    /// `Location` as sent (redirects are reported, never followed).
    pub fn location(&self) -> Option<&str> {
        self.headers.get_str("location")
    }

    /// The declared `Content-Length` when the body is framed by it.
    pub fn content_length(&self) -> Option<u64> {
        match self.framing {
            BodyFraming::Length(n) => Some(n),
            _ => None,
        }
    }

    /// Whether the server lets the connection be reused after this response: HTTP/1.1
    /// unless `Connection: close`; HTTP/1.0 only with `Connection: keep-alive`; never when
    /// the body runs until the connection closes.
    pub fn keep_alive(&self) -> bool {
        if self.framing == BodyFraming::UntilClose || self.headers.has_token("connection", "close")
        {
            return false;
        }
        self.minor_version >= 1 || self.headers.has_token("connection", "keep-alive")
    }

    /// True for 1xx, 204 and 304, which never carry a body (RFC 9112 §6.3 rule 1).
    pub fn status_forbids_body(status: u16) -> bool {
        (100..200).contains(&status) || status == 204 || status == 304
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn head(minor: u8, framing: BodyFraming, headers: &[(&str, &str)]) -> ResponseHead {
        ResponseHead {
            status: 200,
            reason: "OK".into(),
            minor_version: minor,
            headers: Headers::from_pairs(headers),
            framing,
        }
    }

    #[test]
    fn keep_alive_rules() {
        assert!(head(1, BodyFraming::Length(0), &[]).keep_alive());
        assert!(!head(1, BodyFraming::Length(0), &[("Connection", "Close")]).keep_alive());
        assert!(!head(1, BodyFraming::Length(0), &[("connection", "x, close")]).keep_alive());
        assert!(!head(0, BodyFraming::Length(0), &[]).keep_alive());
        assert!(head(0, BodyFraming::Length(0), &[("Connection", "Keep-Alive")]).keep_alive());
        assert!(!head(1, BodyFraming::UntilClose, &[]).keep_alive());
    }

    #[test]
    fn accessors() {
        let h = head(
            1,
            BodyFraming::Chunked,
            &[
                ("Content-Type", "Text/Event-Stream ; charset=utf-8"),
                ("content-encoding", "gzip"),
                ("Location", "https://elsewhere/"),
                ("Retry-After", "7"),
            ],
        );
        assert!(h.is_media_type("text/event-stream"));
        assert!(!h.is_media_type("application/json"));
        assert_eq!(h.content_encoding(), Some("gzip"));
        assert_eq!(h.location(), Some("https://elsewhere/"));
        assert_eq!(h.retry_after(), Some(RetryAfter::Seconds(7)));
        assert_eq!(h.retry_after_secs(None), Some(7));
        let d = head(
            1,
            BodyFraming::Empty,
            &[("retry-after", "Thu, 01 Jan 1970 00:01:40 GMT")],
        );
        assert_eq!(d.retry_after_secs(None), None);
        assert_eq!(d.retry_after_secs(Some(40)), Some(60));
        assert_eq!(d.retry_after_secs(Some(400)), Some(0));
        assert_eq!(
            head(1, BodyFraming::Empty, &[]).retry_after_secs(Some(1)),
            None
        );
        assert_eq!(h.content_length(), None);
        assert_eq!(h.headers.len(), 4);
        assert_eq!(h.headers.get("CONTENT-ENCODING"), Some(&b"gzip"[..]));
    }
}
