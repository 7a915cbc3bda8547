//! Typed errors of the HTTP/1.1 layer: one enum for building requests, one for reading
//! responses. Both are `Copy`, with static messages, so they cost nothing on the hot path.

/// Why a request could not be serialized. Nothing is written when this is returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RequestError {
    /// The method is empty or not an HTTP token (RFC 9110 §9.1).
    #[error("invalid HTTP method: must be a non-empty token")]
    Method,
    /// The request target is empty, not origin-form (`/…`) or absolute-form, or holds a
    /// space, control character, `#` or a byte outside visible ASCII.
    #[error(
        "invalid request target: must start with '/' (or be an absolute http(s) URL) and hold only visible ASCII without '#'"
    )]
    Target,
    /// The `Host` value is empty or holds characters that cannot appear in an authority.
    #[error(
        "invalid Host value: must be a non-empty host[:port] of visible ASCII without '/', '?', '#', '@' or '\\'"
    )]
    Host,
    /// Header number `index` (0-based, in the caller's list) has a name that is not a token.
    #[error("header #{index}: name is empty or not an HTTP token")]
    HeaderName {
        /// Position of the header in the caller's list.
        index: usize,
    },
    /// Header number `index` has a value holding CR, LF, NUL or another control character:
    /// sending it would let the value inject headers or a second request.
    #[error(
        "header #{index}: value holds CR, LF, NUL or another control character (header injection refused)"
    )]
    HeaderValue {
        /// Position of the header in the caller's list.
        index: usize,
    },
    /// Header number `index` is `Host`, `Content-Length` or `Transfer-Encoding`, which the
    /// serializer writes itself: a second copy would make the message ambiguous.
    #[error(
        "header #{index}: Host, Content-Length and Transfer-Encoding are written by the serializer"
    )]
    ReservedHeader {
        /// Position of the header in the caller's list.
        index: usize,
    },
}

/// Which part of the status line or header block httparse refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum HeadSyntax {
    /// The status line does not start with `HTTP/1.0` or `HTTP/1.1`.
    Version,
    /// The status code is not three digits, or the status line is malformed.
    Status,
    /// A header name holds an invalid character.
    HeaderName,
    /// A header value holds an invalid character.
    HeaderValue,
    /// A line ending is malformed (CR not followed by LF).
    NewLine,
    /// An invalid token where a token was expected.
    Token,
}

impl HeadSyntax {
    fn as_str(self) -> &'static str {
        match self {
            HeadSyntax::Version => "status line: HTTP version is not HTTP/1.0 or HTTP/1.1",
            HeadSyntax::Status => "status line: malformed status code or line",
            HeadSyntax::HeaderName => "invalid character in a header name",
            HeadSyntax::HeaderValue => "invalid character in a header value",
            HeadSyntax::NewLine => "malformed line ending",
            HeadSyntax::Token => "invalid token",
        }
    }
}

impl std::fmt::Display for HeadSyntax {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why a response could not be read. After an error the parser is spent: every later call
/// returns the same error, and the connection must be closed (its framing is unknown).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ResponseError {
    /// The status line or a header is malformed.
    #[error("malformed response head: {0}")]
    Malformed(HeadSyntax),
    /// The status line and headers exceed `Limits::max_head_bytes` without ending.
    #[error("response head larger than the limit of {limit} bytes")]
    HeadTooLarge {
        /// The limit in force.
        limit: usize,
    },
    /// The response has more headers than `Limits::max_headers`.
    #[error("response has more than {limit} headers")]
    TooManyHeaders {
        /// The limit in force.
        limit: usize,
    },
    /// More 1xx informational responses than `Limits::max_informational` before the final one.
    #[error("more than {limit} informational (1xx) responses before the final response")]
    TooManyInformational {
        /// The limit in force.
        limit: usize,
    },
    /// A `101 Switching Protocols` answer: this client never asks for an upgrade.
    #[error("unexpected 101 Switching Protocols: no upgrade was requested")]
    UnexpectedUpgrade,
    /// `Content-Length` is not a decimal number that fits in 64 bits.
    #[error("invalid Content-Length value")]
    InvalidContentLength,
    /// Two `Content-Length` values that differ (a request-smuggling / response-splitting sign).
    #[error("conflicting Content-Length values")]
    ConflictingContentLength,
    /// Both `Transfer-Encoding` and `Content-Length` (RFC 9112 §6.3: "ought to be handled as an error").
    #[error("both Transfer-Encoding and Content-Length present")]
    ContentLengthWithTransferEncoding,
    /// A transfer coding other than a single `chunked` (e.g. `gzip, chunked`, or `chunked` twice).
    #[error("unsupported Transfer-Encoding: only a single 'chunked' coding is understood")]
    UnsupportedTransferCoding,
    /// A chunk-size line that is not hex digits (optionally followed by `;extensions`) then CRLF:
    /// empty, negative, `0x`-prefixed, over 16 hex digits (more than 64 bits), or ended by a bare LF.
    #[error("invalid chunk-size line")]
    InvalidChunkSize,
    /// A chunk-size line (with its extensions) longer than `Limits::max_chunk_line`.
    #[error("chunk-size line longer than the limit of {limit} bytes")]
    ChunkLineTooLong {
        /// The limit in force.
        limit: usize,
    },
    /// Chunk data not followed by CRLF.
    #[error("chunk data not followed by CRLF")]
    MissingChunkTerminator,
    /// The trailer section is malformed.
    #[error("malformed trailer section: {0}")]
    MalformedTrailers(HeadSyntax),
    /// The trailer section exceeds `Limits::max_trailer_bytes`.
    #[error("trailer section larger than the limit of {limit} bytes")]
    TrailersTooLarge {
        /// The limit in force.
        limit: usize,
    },
    /// More trailer fields than `Limits::max_headers`.
    #[error("more than {limit} trailer fields")]
    TooManyTrailers {
        /// The limit in force.
        limit: usize,
    },
    /// The connection closed before a single byte of response arrived (a stale pooled
    /// connection looks like this).
    #[error("connection closed before any response byte arrived")]
    ClosedBeforeResponse,
    /// The connection closed in the middle of the status line or headers.
    #[error("connection closed in the middle of the response head")]
    TruncatedHead,
    /// The connection closed before the body was complete.
    #[error("connection closed after {received} body bytes, before the body was complete")]
    TruncatedBody {
        /// The declared `Content-Length`, or `None` for a chunked body.
        expected: Option<u64>,
        /// Body bytes received before the close.
        received: u64,
    },
}

impl RequestError {
    /// A stable snake_case name for the error kind (fixtures, logs, the C ABI).
    pub fn kind(&self) -> &'static str {
        match self {
            RequestError::Method => "method",
            RequestError::Target => "target",
            RequestError::Host => "host",
            RequestError::HeaderName { .. } => "header_name",
            RequestError::HeaderValue { .. } => "header_value",
            RequestError::ReservedHeader { .. } => "reserved_header",
        }
    }
}

impl ResponseError {
    /// A stable snake_case name for the error kind (fixtures, logs, the C ABI).
    pub fn kind(&self) -> &'static str {
        match self {
            ResponseError::Malformed(_) => "malformed_head",
            ResponseError::HeadTooLarge { .. } => "head_too_large",
            ResponseError::TooManyHeaders { .. } => "too_many_headers",
            ResponseError::TooManyInformational { .. } => "too_many_informational",
            ResponseError::UnexpectedUpgrade => "unexpected_upgrade",
            ResponseError::InvalidContentLength => "invalid_content_length",
            ResponseError::ConflictingContentLength => "conflicting_content_length",
            ResponseError::ContentLengthWithTransferEncoding => {
                "content_length_with_transfer_encoding"
            }
            ResponseError::UnsupportedTransferCoding => "unsupported_transfer_coding",
            ResponseError::InvalidChunkSize => "invalid_chunk_size",
            ResponseError::ChunkLineTooLong { .. } => "chunk_line_too_long",
            ResponseError::MissingChunkTerminator => "missing_chunk_terminator",
            ResponseError::MalformedTrailers(_) => "malformed_trailers",
            ResponseError::TrailersTooLarge { .. } => "trailers_too_large",
            ResponseError::TooManyTrailers { .. } => "too_many_trailers",
            ResponseError::ClosedBeforeResponse => "closed_before_response",
            ResponseError::TruncatedHead => "truncated_head",
            ResponseError::TruncatedBody { .. } => "truncated_body",
        }
    }

    /// True for the errors caused by the connection closing early (`ClosedBeforeResponse`,
    /// `TruncatedHead`, `TruncatedBody`): transport failures for the caller, as opposed to
    /// a server that answered with malformed or over-limit framing.
    pub fn is_truncation(&self) -> bool {
        matches!(
            self,
            ResponseError::ClosedBeforeResponse
                | ResponseError::TruncatedHead
                | ResponseError::TruncatedBody { .. }
        )
    }

    pub(crate) fn from_httparse(e: httparse::Error) -> HeadSyntax {
        match e {
            httparse::Error::Version => HeadSyntax::Version,
            httparse::Error::Status => HeadSyntax::Status,
            httparse::Error::HeaderName => HeadSyntax::HeaderName,
            httparse::Error::HeaderValue => HeadSyntax::HeaderValue,
            httparse::Error::NewLine => HeadSyntax::NewLine,
            httparse::Error::Token => HeadSyntax::Token,
            // TooManyHeaders is mapped by the callers, which know the limit.
            httparse::Error::TooManyHeaders => HeadSyntax::Token,
        }
    }
}
