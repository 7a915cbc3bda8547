//! The remote's correlation id in failure text, and leaked exception detail.
//!
//! ADK servers (Java and Python) answer a failed run with a FAILED task whose status text is
//! `Agent execution failed. (error_id: 3f9c0a7b12de)`: twelve lowercase hex digits that the
//! remote operator can search for in its logs (`Runner failed to execute [error_id=…]`).
//! [`extract_error_id`] finds that id in every form it is written in. With the server's
//! debug setting on, the text also carries `: <ExceptionClass>: <message>`;
//! [`leaked_exception`] detects that so an operator can alert on servers leaking internals.
//!
//! [`leaked_detail`] answers the question a client acts on: does a FAILED text carry detail
//! beyond its error id (then the orchestrating model must see only the id).
//!
//! The functions scan once, left to right, without a regex engine: linear in the text.

/// Length of an ADK error id in hex digits.
pub const ERROR_ID_LEN: usize = 12;

const KEY: &[u8] = b"error_id";

/// Built once: constructing a substring searcher costs more than scanning a short text.
static KEY_FINDER: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
    std::sync::LazyLock::new(|| memchr::memmem::Finder::new(KEY));
static COLON_SPACE: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
    std::sync::LazyLock::new(|| memchr::memmem::Finder::new(b": "));

/// Finds the first ADK error id in `text`: `error_id: 3f9c0a7b12de`, `error_id=3f9c0a7b12de`,
/// `[error_id=3f9c0a7b12de]`, also with quotes around key or value (`"error_id": "…"`).
///
/// The id must be exactly twelve lowercase hex digits, not followed by another letter, digit
/// or `_` (a longer run is not an ADK id). Uppercase hex is refused: ADK never writes it.
/// Returns a slice of `text`.
pub fn extract_error_id(text: &str) -> Option<&str> {
    let bytes = text.as_bytes();
    let finder = &*KEY_FINDER;
    let mut from = 0;
    while let Some(at) = finder.find(&bytes[from..]) {
        let start = from + at;
        from = start + KEY.len();
        if let Some(id) = id_after_key(text, from) {
            return Some(id);
        }
    }
    None
}

/// Reads `["']? ws* [:=] ws* ["']? <12 hex>` at `i`, returning the id when it is one.
fn id_after_key(text: &str, mut i: usize) -> Option<&str> {
    let b = text.as_bytes();
    let skip_quote = |i: &mut usize| {
        if matches!(b.get(*i), Some(b'"' | b'\'')) {
            *i += 1;
        }
    };
    let skip_ws = |i: &mut usize| {
        while matches!(b.get(*i), Some(b' ' | b'\t')) {
            *i += 1;
        }
    };
    skip_quote(&mut i);
    skip_ws(&mut i);
    if !matches!(b.get(i), Some(b':' | b'=')) {
        return None;
    }
    i += 1;
    skip_ws(&mut i);
    skip_quote(&mut i);
    let end = i.checked_add(ERROR_ID_LEN)?;
    let run = b.get(i..end)?;
    if !run.iter().all(|c| matches!(c, b'0'..=b'9' | b'a'..=b'f')) {
        return None;
    }
    if b.get(end)
        .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_')
    {
        return None;
    }
    // The run is ASCII, so `i..end` are char boundaries.
    Some(&text[i..end])
}

/// Exception detail found in a failure text: `…: java.lang.IllegalStateException: boom`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LeakedException<'a> {
    /// The exception class as written (`ValueError`, `java.lang.IllegalStateException`).
    pub class: &'a str,
    /// The text after `class: ` up to the end (possibly empty).
    pub message: &'a str,
}

/// Detects the `: <ExceptionClass>: <message>` suffix that a server's debug setting appends
/// to a failure text (ADK: `ADK_DEBUG_ERRORS`). The class is a dotted identifier whose last
/// segment starts with an uppercase letter and ends in `Error`, `Exception`, `Exit`,
/// `Interrupt`, `Fault` or `Throwable` (Python builtins and Java classes), or is a dotted,
/// package-qualified name (`com.acme.Boom`). Returns the first such suffix.
pub fn leaked_exception(text: &str) -> Option<LeakedException<'_>> {
    let b = text.as_bytes();
    let finder = &*COLON_SPACE;
    let mut from = 0;
    while let Some(at) = finder.find(&b[from..]) {
        let start = from + at + 2;
        from = start;
        let mut end = start;
        while end < b.len()
            && (b[end].is_ascii_alphanumeric() || matches!(b[end], b'_' | b'.' | b'$'))
        {
            end += 1;
        }
        let class = &text[start..end];
        let followed = b.get(end) == Some(&b':') || end == b.len();
        if followed && is_exception_class(class) {
            let message = text[end..]
                .strip_prefix(':')
                .unwrap_or("")
                .trim_start_matches(' ');
            return Some(LeakedException { class, message });
        }
        // Continue after the token: tokens never contain ": ", so the scan stays linear.
        from = from.max(end);
    }
    None
}

fn is_exception_class(class: &str) -> bool {
    if class.is_empty() || class.starts_with('.') || class.ends_with('.') || class.contains("..") {
        return false;
    }
    let last = class.rsplit('.').next().unwrap_or(class);
    let starts_upper = last.bytes().next().is_some_and(|c| c.is_ascii_uppercase());
    if !starts_upper || last.bytes().next().is_some_and(|c| c.is_ascii_digit()) {
        return false;
    }
    let suffix = [
        "Error",
        "Exception",
        "Exit",
        "Interrupt",
        "Fault",
        "Throwable",
    ]
    .iter()
    .any(|s| last.ends_with(s));
    let qualified = class.contains('.')
        && class
            .split('.')
            .next()
            .is_some_and(|p| p.bytes().next().is_some_and(|c| c.is_ascii_lowercase()));
    suffix || qualified
}

/// Whether a FAILED status text carries exception detail beyond its error id: ADK's debug
/// shape `(error_id: <id>): <detail>` (what this crate's own server writes when given debug
/// detail: [`crate::server::failure_text`]), or a `: <ExceptionClass>: <message>` suffix
/// anywhere ([`leaked_exception`]). A trailing stable hint (`[retryable=false; ...]`) alone is
/// not detail.
pub fn leaked_detail(text: &str) -> bool {
    if leaked_exception(text).is_some() {
        return true;
    }
    let Some(id) = extract_error_id(text) else {
        return false;
    };
    // `id` is a slice of `text`: what follows it, after the closing parenthesis.
    let end = id.as_ptr() as usize - text.as_ptr() as usize + id.len();
    let rest = text[end..].strip_prefix(')').unwrap_or(&text[end..]);
    let Some(detail) = rest.trim_start().strip_prefix(':') else {
        return false;
    };
    let detail = detail.trim();
    let without_hint = match detail.rfind('[') {
        Some(i)
            if detail.ends_with(']')
                && crate::outcome::RemoteHint::parse(&detail[i..]).is_some() =>
        {
            detail[..i].trim()
        }
        _ => detail,
    };
    !without_hint.is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn forms() {
        assert_eq!(
            extract_error_id("Agent execution failed. (error_id: 7dac02a750a9)"),
            Some("7dac02a750a9")
        );
        assert_eq!(
            extract_error_id("Runner failed to execute [error_id=3f9c0a7b12de]"),
            Some("3f9c0a7b12de")
        );
        assert_eq!(
            extract_error_id("error_id=3f9c0a7b12de"),
            Some("3f9c0a7b12de")
        );
        assert_eq!(
            extract_error_id(r#"{"error_id": "3f9c0a7b12de"}"#),
            Some("3f9c0a7b12de")
        );
    }

    #[test]
    fn refusals() {
        assert_eq!(extract_error_id("error_id: 3F9C0A7B12DE"), None);
        assert_eq!(extract_error_id("error_id: 3f9c0a7b12d"), None);
        assert_eq!(extract_error_id("error_id: 3f9c0a7b12de0"), None);
        assert_eq!(extract_error_id("error_id: 3f9c0a7b12dg"), None);
        assert_eq!(extract_error_id("error_id 3f9c0a7b12de"), None);
        assert_eq!(extract_error_id("error_id:"), None);
        assert_eq!(extract_error_id(""), None);
        // A bad first occurrence does not hide a good second one.
        assert_eq!(
            extract_error_id("error_id: nope; error_id=0123456789ab)"),
            Some("0123456789ab")
        );
    }

    #[test]
    fn leaked_detail_after_the_error_id() {
        let adk = "Agent execution failed. (error_id: 3f9c0a7b12de): java.lang.IllegalStateException: boom";
        assert!(super::leaked_detail(adk));
        // The project's own server, debug detail given: the same shape.
        assert!(super::leaked_detail(
            "Agent execution failed. (error_id: 3f9c0a7b12de): disk full on /var/lib/x [retryable=false]"
        ));
        assert!(!super::leaked_detail(
            "Agent execution failed. (error_id: 3f9c0a7b12de)"
        ));
        assert!(!super::leaked_detail(
            "Agent execution failed. (error_id: 3f9c0a7b12de) [retryable=false; contact=payments-oncall]"
        ));
        assert!(!super::leaked_detail("Card declined [retryable=false]"));
        assert!(super::leaked_detail("failed: ValueError: bad input"));
    }

    #[test]
    fn leaked_detail() {
        let t = "Agent execution failed. (error_id: 3f9c0a7b12de): java.lang.IllegalStateException: boom";
        let l = leaked_exception(t).unwrap();
        assert_eq!(l.class, "java.lang.IllegalStateException");
        assert_eq!(l.message, "boom");
        let l = leaked_exception("failed: ValueError: bad input: x").unwrap();
        assert_eq!((l.class, l.message), ("ValueError", "bad input: x"));
        let l = leaked_exception("x: com.acme.Boom: null").unwrap();
        assert_eq!(l.class, "com.acme.Boom");
        assert_eq!(
            leaked_exception("Agent execution failed. (error_id: 3f9c0a7b12de)"),
            None
        );
        assert_eq!(leaked_exception("Task not found: t-1"), None);
        assert_eq!(leaked_exception("note: Remember: this"), None);
        assert_eq!(leaked_exception("e: .Error: x"), None);
    }

    proptest! {
        #[test]
        fn found_id_is_twelve_lowercase_hex_in_text(s in ".{0,200}") {
            if let Some(id) = extract_error_id(&s) {
                prop_assert_eq!(id.len(), ERROR_ID_LEN);
                prop_assert!(id.bytes().all(|c| matches!(c, b'0'..=b'9' | b'a'..=b'f')));
                prop_assert!(s.contains(id));
            }
            let _ = leaked_exception(&s);
        }

        #[test]
        fn embedded_id_is_found(pre in "[ a-z.(]{0,20}", id in "[0-9a-f]{12}", post in "([ ).;\\]].{0,10})?") {
            let t = format!("{pre}error_id: {id}{post}");
            prop_assert_eq!(extract_error_id(&t), Some(id.as_str()));
        }
    }
}
