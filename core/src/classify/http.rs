//! The http channel (non-2xx without a protocol error) and bounded body excerpts.

use crate::outcome::{ErrorName, Outcome};

use super::scan::{BodyShape, ErrField, MsgField, ScanError};
use super::{CallContext, advice, malformed};

/// Longest body excerpt kept, in bytes (cut back to a UTF-8 boundary).
pub const EXCERPT_MAX: usize = 512;

/// The http error name of a status.
pub(crate) fn http_name(status: u16) -> ErrorName {
    match status {
        300..=399 => ErrorName::Redirect,
        401 => ErrorName::Unauthenticated,
        403 => ErrorName::Forbidden,
        404 => ErrorName::NotFound,
        413 => ErrorName::PayloadTooLarge,
        429 => ErrorName::RateLimited,
        502 => ErrorName::BadGateway,
        503 => ErrorName::Unavailable,
        504 => ErrorName::GatewayTimeout,
        _ => ErrorName::Http,
    }
}

/// An http-channel outcome; `obj` is the body when it was JSON (its message is kept).
pub(crate) fn http_outcome(
    ctx: &CallContext<'_>,
    obj: Option<&BodyShape<'_>>,
    body: &[u8],
) -> Outcome {
    let name = http_name(ctx.status);
    let message = obj
        .and_then(json_message)
        .or_else(|| html_title(body))
        .or_else(|| text_line(body));
    Outcome::http(ctx.status, name, advice::http(ctx, name))
        .with_message(message)
        .with_body_excerpt((!body.is_empty()).then(|| excerpt(body)))
}

/// The human message of a JSON body that is not a protocol error (gateways, frameworks).
fn json_message(obj: &BodyShape<'_>) -> Option<String> {
    if let MsgField::Text(t) = &obj.message {
        return Some(t.to_string());
    }
    match &obj.error {
        ErrField::Text(t) => return Some(t.to_string()),
        ErrField::BodyShape(e) => {
            if let Some(m) = e.message.get() {
                return Some(m.to_owned());
            }
        }
        _ => {}
    }
    obj.detail.get().or(obj.title.get()).map(str::to_owned)
}

/// The `<title>` of an HTML page (proxies' error pages), whitespace collapsed.
fn html_title(body: &[u8]) -> Option<String> {
    let head = &body[..body.len().min(4096)];
    let open = find_ci(head, b"<title")?;
    let gt = head[open..].iter().position(|&b| b == b'>')? + open + 1;
    let close = find_ci(&head[gt..], b"</title")? + gt;
    let t = collapse(&String::from_utf8_lossy(&head[gt..close]));
    (!t.is_empty()).then_some(t)
}

/// The first non-empty line of a short text body (`Not Found`, `Method Not Allowed`).
fn text_line(body: &[u8]) -> Option<String> {
    let head = &body[..body.len().min(EXCERPT_MAX)];
    if head.first() == Some(&b'<') {
        return None;
    }
    let text = String::from_utf8_lossy(head);
    let line = text.lines().map(str::trim).find(|l| !l.is_empty())?;
    Some(line.chars().take(200).collect())
}

fn find_ci(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len())
        .position(|w| w.eq_ignore_ascii_case(needle))
}

fn collapse(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The start of a body as text, at most [`EXCERPT_MAX`] bytes of UTF-8 (invalid bytes
/// replaced by U+FFFD; never cut inside a character).
pub fn excerpt(body: &[u8]) -> String {
    let head = &body[..body.len().min(EXCERPT_MAX)];
    let mut s = String::from_utf8_lossy(head).into_owned();
    if s.len() > EXCERPT_MAX {
        let mut end = EXCERPT_MAX;
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        s.truncate(end);
    }
    // A valid character cut at the byte limit became U+FFFD: drop that partial tail.
    if body.len() > EXCERPT_MAX && s.ends_with('\u{fffd}') && (body[EXCERPT_MAX] & 0xC0) == 0x80 {
        s.pop();
    }
    s
}

/// A 2xx body that could not be read at all.
pub(crate) fn malformed_unreadable(ctx: &CallContext<'_>, e: &ScanError, body: &[u8]) -> Outcome {
    let reason = match e {
        ScanError::Empty => "empty body: expected a JSON object".to_owned(),
        ScanError::NotObject => "body is JSON but not an object".to_owned(),
        ScanError::Json(msg) => {
            if body.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'<') {
                format!("body is not JSON (looks like HTML or XML): {msg}")
            } else {
                format!("body is not valid JSON: {msg}")
            }
        }
    };
    malformed(ctx, reason, body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn excerpt_is_bounded_and_utf8_safe() {
        let body = "é".repeat(400);
        let e = excerpt(body.as_bytes());
        assert!(e.len() <= EXCERPT_MAX);
        assert!(e.chars().all(|c| c == 'é'), "{e}");
        assert_eq!(excerpt(&[0xff; 600]).len(), EXCERPT_MAX - EXCERPT_MAX % 3);
        assert_eq!(excerpt(b"\xff\xfeok"), "\u{fffd}\u{fffd}ok");
    }

    #[test]
    fn titles_and_lines() {
        assert_eq!(
            html_title(b"<html><head><TITLE>502  Bad\n Gateway</title>").as_deref(),
            Some("502 Bad Gateway")
        );
        assert_eq!(text_line(b"\n Not Found \n").as_deref(), Some("Not Found"));
        assert_eq!(text_line(b"<html>"), None);
    }
}
