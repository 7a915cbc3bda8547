//! Typed errors of the HTTP/1.1 layer: one enum for building requests, one for reading
//! responses, one for reading requests (with the status to answer). All are `Copy`, with
//! static messages, so they cost nothing on the hot path.

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

/// Which part of the start line (status line or request line) or header block httparse refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum HeadSyntax {
    /// The HTTP version is not `HTTP/1.0` or `HTTP/1.1` (or the status line does not start
    /// with one).
    Version,
    /// The status code is not three digits, or the status line is malformed.
    Status,
    /// A header name holds an invalid character.
    HeaderName,
    /// A header value holds an invalid character.
    HeaderValue,
    /// A line ending is malformed (CR not followed by LF).
    NewLine,
    /// An invalid token where a token was expected (e.g. a request method, or a request
    /// target holding a space or control character).
    Token,
}

impl HeadSyntax {
    fn as_str(self) -> &'static str {
        match self {
            HeadSyntax::Version => "HTTP version is not HTTP/1.0 or HTTP/1.1",
            HeadSyntax::Status => "status line: malformed status code or line",
            HeadSyntax::HeaderName => "invalid character in a header name",
            HeadSyntax::HeaderValue => "invalid character in a header value",
            HeadSyntax::NewLine => "malformed line ending",
            HeadSyntax::Token => "invalid token (method, request target or version)",
        }
    }

    /// What httparse's error says, as a [`HeadSyntax`].
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
}

/// Why a chunked body (or its trailers) could not be read: shared by both readers, each of
/// which turns it into its own public error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BodyError {
    InvalidChunkSize,
    ChunkLineTooLong { limit: usize },
    MissingChunkTerminator,
    MalformedTrailers(HeadSyntax),
    TrailersTooLarge { limit: usize },
    TooManyTrailers { limit: usize },
}

/// Why the `Content-Length` values could not be read (shared by both readers).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ContentLengthError {
    /// Not 1*DIGIT, or more than 64 bits.
    Invalid,
    /// Two values that differ.
    Conflicting,
}

impl From<BodyError> for ResponseError {
    fn from(e: BodyError) -> ResponseError {
        match e {
            BodyError::InvalidChunkSize => ResponseError::InvalidChunkSize,
            BodyError::ChunkLineTooLong { limit } => ResponseError::ChunkLineTooLong { limit },
            BodyError::MissingChunkTerminator => ResponseError::MissingChunkTerminator,
            BodyError::MalformedTrailers(s) => ResponseError::MalformedTrailers(s),
            BodyError::TrailersTooLarge { limit } => ResponseError::TrailersTooLarge { limit },
            BodyError::TooManyTrailers { limit } => ResponseError::TooManyTrailers { limit },
        }
    }
}

impl From<ContentLengthError> for ResponseError {
    fn from(e: ContentLengthError) -> ResponseError {
        match e {
            ContentLengthError::Invalid => ResponseError::InvalidContentLength,
            ContentLengthError::Conflicting => ResponseError::ConflictingContentLength,
        }
    }
}

/// Why a request could not be read by [`RequestReader`](super::RequestReader), with the
/// status to answer it with ([`RequestReadError::status`]).
///
/// After an error the reader is spent (every later call returns the same error). Answer with
/// [`status`](RequestReadError::status) and `Connection: close`, then close the connection
/// without reading another request from it: its framing is unknown, and whatever follows
/// could be a second, smuggled request (RFC 9112 §6.3, §11.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RequestReadError {
    /// The request line or a header is malformed (including obs-fold and whitespace between a
    /// header name and its colon, which RFC 9112 §5 makes a server refuse).
    #[error("malformed request head: {0}")]
    Malformed(HeadSyntax),
    /// The request line and headers exceed `RequestLimits::max_head_bytes` without ending.
    #[error("request head larger than the limit of {limit} bytes")]
    HeadTooLarge {
        /// The limit in force.
        limit: usize,
    },
    /// The request has more headers than `RequestLimits::max_headers`.
    #[error("request has more than {limit} headers")]
    TooManyHeaders {
        /// The limit in force.
        limit: usize,
    },
    /// An HTTP/1.1 request without a `Host` header (RFC 9112 §3.2).
    #[error("HTTP/1.1 request without a Host header")]
    MissingHost,
    /// More than one `Host` header (RFC 9112 §3.2).
    #[error("more than one Host header")]
    DuplicateHost,
    /// A `Host` value that is not a `host[:port]` of visible ASCII.
    #[error("invalid Host value")]
    InvalidHost,
    /// A `Content-Length` value that is not 1*DIGIT (a sign, a space inside, letters, an
    /// empty value) or does not fit in 64 bits.
    #[error("invalid Content-Length value: must be decimal digits only")]
    InvalidContentLength,
    /// Two `Content-Length` values that differ.
    #[error("conflicting Content-Length values")]
    ConflictingContentLength,
    /// Both `Transfer-Encoding` and `Content-Length`: refused rather than guessed, as one
    /// side of a proxy chain may have read the other header (request smuggling).
    #[error("both Transfer-Encoding and Content-Length present")]
    ContentLengthWithTransferEncoding,
    /// A `Transfer-Encoding` whose final coding is not `chunked`, that applies `chunked` more
    /// than once, or that is empty: the body length cannot be determined (RFC 9112 §6.3
    /// rule 4).
    #[error(
        "Transfer-Encoding does not end with a single chunked coding: the body length is unknown"
    )]
    ChunkedNotFinal,
    /// A transfer coding before `chunked` that this reader does not implement (e.g.
    /// `gzip, chunked`; RFC 9112 §6.1: 501).
    #[error("unsupported transfer coding: only chunked is implemented")]
    UnsupportedTransferCoding,
    /// `Transfer-Encoding` in an HTTP/1.0 request, whose framing RFC 9112 §6.1 says to treat
    /// as faulty.
    #[error("Transfer-Encoding in an HTTP/1.0 request")]
    TransferEncodingInHttp10,
    /// The body (declared by `Content-Length`, or announced chunk by chunk) is larger than
    /// `RequestLimits::max_body_bytes`.
    #[error("request body larger than the limit of {limit} bytes")]
    BodyTooLarge {
        /// The limit in force.
        limit: u64,
    },
    /// An `Expect` header other than `100-continue` (RFC 9110 §10.1.1: 417).
    #[error("unsupported expectation: only 100-continue is understood")]
    UnsupportedExpectation,
    /// A chunk-size line that is not hex digits (optionally followed by `;extensions`) then
    /// CRLF.
    #[error("invalid chunk-size line")]
    InvalidChunkSize,
    /// A chunk-size line (with its extensions) longer than `RequestLimits::max_chunk_line`.
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
    /// The trailer section exceeds `RequestLimits::max_trailer_bytes`.
    #[error("trailer section larger than the limit of {limit} bytes")]
    TrailersTooLarge {
        /// The limit in force.
        limit: usize,
    },
    /// More trailer fields than `RequestLimits::max_headers`.
    #[error("more than {limit} trailer fields")]
    TooManyTrailers {
        /// The limit in force.
        limit: usize,
    },
    /// The connection closed in the middle of the request head.
    #[error("connection closed in the middle of the request head")]
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

impl RequestReadError {
    /// The HTTP status to answer with: 400 for malformed or ambiguous framing, 413 for a
    /// body over the limit, 417 for an unknown expectation, 431 for a head or trailers over
    /// the limits, 501 for an unimplemented transfer coding. (A truncated request has nobody
    /// left to answer; it reports 400.)
    pub fn status(&self) -> u16 {
        match self {
            RequestReadError::HeadTooLarge { .. }
            | RequestReadError::TooManyHeaders { .. }
            | RequestReadError::TrailersTooLarge { .. }
            | RequestReadError::TooManyTrailers { .. } => 431,
            RequestReadError::BodyTooLarge { .. } => 413,
            RequestReadError::UnsupportedExpectation => 417,
            RequestReadError::UnsupportedTransferCoding => 501,
            RequestReadError::Malformed(_)
            | RequestReadError::MissingHost
            | RequestReadError::DuplicateHost
            | RequestReadError::InvalidHost
            | RequestReadError::InvalidContentLength
            | RequestReadError::ConflictingContentLength
            | RequestReadError::ContentLengthWithTransferEncoding
            | RequestReadError::ChunkedNotFinal
            | RequestReadError::TransferEncodingInHttp10
            | RequestReadError::InvalidChunkSize
            | RequestReadError::ChunkLineTooLong { .. }
            | RequestReadError::MissingChunkTerminator
            | RequestReadError::MalformedTrailers(_)
            | RequestReadError::TruncatedHead
            | RequestReadError::TruncatedBody { .. } => 400,
        }
    }

    /// A stable snake_case name for the error kind (logs, tests).
    pub fn kind(&self) -> &'static str {
        match self {
            RequestReadError::Malformed(_) => "malformed_head",
            RequestReadError::HeadTooLarge { .. } => "head_too_large",
            RequestReadError::TooManyHeaders { .. } => "too_many_headers",
            RequestReadError::MissingHost => "missing_host",
            RequestReadError::DuplicateHost => "duplicate_host",
            RequestReadError::InvalidHost => "invalid_host",
            RequestReadError::InvalidContentLength => "invalid_content_length",
            RequestReadError::ConflictingContentLength => "conflicting_content_length",
            RequestReadError::ContentLengthWithTransferEncoding => {
                "content_length_with_transfer_encoding"
            }
            RequestReadError::ChunkedNotFinal => "chunked_not_final",
            RequestReadError::UnsupportedTransferCoding => "unsupported_transfer_coding",
            RequestReadError::TransferEncodingInHttp10 => "transfer_encoding_in_http10",
            RequestReadError::BodyTooLarge { .. } => "body_too_large",
            RequestReadError::UnsupportedExpectation => "unsupported_expectation",
            RequestReadError::InvalidChunkSize => "invalid_chunk_size",
            RequestReadError::ChunkLineTooLong { .. } => "chunk_line_too_long",
            RequestReadError::MissingChunkTerminator => "missing_chunk_terminator",
            RequestReadError::MalformedTrailers(_) => "malformed_trailers",
            RequestReadError::TrailersTooLarge { .. } => "trailers_too_large",
            RequestReadError::TooManyTrailers { .. } => "too_many_trailers",
            RequestReadError::TruncatedHead => "truncated_head",
            RequestReadError::TruncatedBody { .. } => "truncated_body",
        }
    }

    /// True for the errors caused by the connection closing early (`TruncatedHead`,
    /// `TruncatedBody`): there is nobody left to answer.
    pub fn is_truncation(&self) -> bool {
        matches!(
            self,
            RequestReadError::TruncatedHead | RequestReadError::TruncatedBody { .. }
        )
    }
}

impl From<BodyError> for RequestReadError {
    fn from(e: BodyError) -> RequestReadError {
        match e {
            BodyError::InvalidChunkSize => RequestReadError::InvalidChunkSize,
            BodyError::ChunkLineTooLong { limit } => RequestReadError::ChunkLineTooLong { limit },
            BodyError::MissingChunkTerminator => RequestReadError::MissingChunkTerminator,
            BodyError::MalformedTrailers(s) => RequestReadError::MalformedTrailers(s),
            BodyError::TrailersTooLarge { limit } => RequestReadError::TrailersTooLarge { limit },
            BodyError::TooManyTrailers { limit } => RequestReadError::TooManyTrailers { limit },
        }
    }
}

impl From<ContentLengthError> for RequestReadError {
    fn from(e: ContentLengthError) -> RequestReadError {
        match e {
            ContentLengthError::Invalid => RequestReadError::InvalidContentLength,
            ContentLengthError::Conflicting => RequestReadError::ConflictingContentLength,
        }
    }
}
