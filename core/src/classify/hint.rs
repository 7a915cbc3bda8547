//! Hints: version mismatches (which side to change) and the remote's own stable hint.

use crate::outcome::RemoteHint;
use crate::version::ProtocolVersion;

use super::method::MethodInfo;

/// Parses a stable hint a remote appends to its message: `[retryable=false; reason=quota]`
/// (the rules: [`RemoteHint::parse`]).
pub fn parse_remote_hint(message: &str) -> Option<RemoteHint> {
    RemoteHint::parse(message)
}

/// Reads "A2A version 'X' is not supported … Expected version 'Y'" (Python) and
/// "… version 'X' is not supported. Supported versions: 1.0, 0.3" (JS): the version the
/// server read, and what it expects. Returns `None` when the text is not a version refusal.
pub(crate) fn version_refusal(message: &str) -> Option<(Option<&str>, Option<String>)> {
    let lower_has = |needle: &str| {
        message
            .as_bytes()
            .windows(needle.len())
            .any(|w| w.eq_ignore_ascii_case(needle.as_bytes()))
    };
    if !(lower_has("version") && lower_has("not supported")) {
        return None;
    }
    let quoted = |s: &str| -> Option<(usize, usize)> {
        let a = s.find('\'')?;
        let b = s[a + 1..].find('\'')?;
        Some((a + 1, a + 1 + b))
    };
    let got = quoted(message).map(|(a, b)| &message[a..b]);
    let expected = if let Some(i) = message.find("Expected version") {
        let tail = &message[i..];
        quoted(tail).map(|(a, b)| tail[a..b].to_owned())
    } else if let Some(i) = message.find("Supported versions:") {
        let tail = message[i + "Supported versions:".len()..].trim();
        let tail = tail.trim_end_matches('.');
        (!tail.is_empty()).then(|| tail.to_owned())
    } else {
        None
    };
    Some((got, expected))
}

/// The hint for a version refusal (-32009, `VERSION_NOT_SUPPORTED`, or Python's -32603
/// "A2A version … is not supported"). `asked` is the version the client meant to speak.
pub(crate) fn version_not_supported(
    message: Option<&str>,
    asked: Option<ProtocolVersion>,
) -> String {
    let (got, expected) = message.and_then(version_refusal).unwrap_or((None, None));
    let mut s = String::from("version mismatch: ");
    match (got, &expected) {
        (Some(g), Some(e)) => s.push_str(&format!(
            "the remote read this request as version {g} but expects {e}; "
        )),
        (Some(g), None) => s.push_str(&format!("the remote does not support version {g}; ")),
        (None, Some(e)) => s.push_str(&format!("the remote expects version {e}; ")),
        (None, None) => s.push_str("the remote does not support the requested version; "),
    }
    let expects_1 = expected.as_deref().is_some_and(|e| e.starts_with('1'));
    let read_as_03 = got.is_some_and(|g| g.starts_with("0."));
    if asked == Some(ProtocolVersion::V1_0) && read_as_03 {
        s.push_str("change the client: send the header A2A-Version: 1.0 with 1.0 requests");
    } else if asked == Some(ProtocolVersion::V0_3) && expects_1 {
        s.push_str(
            "change the client: this endpoint serves 1.0 only; use 1.0 method names with A2A-Version: 1.0 (or enable 0.3 compatibility on the server)",
        );
    } else if asked == Some(ProtocolVersion::V0_3) {
        s.push_str(
            "change the client: send 0.3 requests without an A2A-Version header (the header is for 1.0 requests)",
        );
    } else if got.is_some_and(|g| !g.starts_with("0.") && !g.starts_with("1.0")) {
        s.push_str(
            "change the client: send A2A-Version: 1.0 (the remote compares versions exactly)",
        );
    } else {
        s.push_str("change the client to a version the remote's agent card lists");
    }
    s
}

/// The hint for MethodNotFound when the method belongs to a version: the remote most likely
/// speaks the other one (or, for 1.0, did not receive `A2A-Version: 1.0`).
pub(crate) fn method_not_found(method: &str, info: &MethodInfo) -> String {
    match info.version {
        ProtocolVersion::V1_0 => format!(
            "version mismatch: the remote does not know the 1.0 method {method}: it serves 0.3 only, or did not read the request as 1.0; change the client: send A2A-Version: 1.0, or speak 0.3 ({}) to this agent",
            info.kind
                .jsonrpc_name(ProtocolVersion::V0_3)
                .unwrap_or("no 0.3 equivalent")
        ),
        ProtocolVersion::V0_3 => format!(
            "version mismatch: the remote does not serve the 0.3 method {method} (it serves 1.0 only, or 0.3 requests must not carry A2A-Version: 1.0); change the client: speak 1.0 ({}) with A2A-Version: 1.0, or drop the header",
            info.kind
                .jsonrpc_name(ProtocolVersion::V1_0)
                .unwrap_or("no 1.0 equivalent")
        ),
    }
}

/// The hint for a 0.3 name that never existed (`tasks/list`).
pub(crate) fn unknown_03_method(method: &str) -> Option<String> {
    (method == "tasks/list").then(|| {
        "version mismatch: 0.3 has no tasks/list; change the client: listing tasks needs 1.0 (ListTasks with A2A-Version: 1.0)"
            .to_owned()
    })
}

/// The hint for a success body of the other version's shape.
pub(crate) fn other_shape(asked: ProtocolVersion, seen: ProtocolVersion) -> String {
    format!(
        "version mismatch: asked in {asked} but the remote answered in {seen} shape; change the client to speak {seen} to this agent (or fix the server's version routing)"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remote_hint() {
        let h = parse_remote_hint("quota exceeded [retryable=false; reason=quota]").unwrap();
        assert_eq!(h.retryable, Some(false));
        assert_eq!(
            h.pairs,
            vec![
                ("retryable".to_owned(), "false".to_owned()),
                ("reason".to_owned(), "quota".to_owned())
            ]
        );
        assert_eq!(
            parse_remote_hint("[retryable=true]").unwrap().retryable,
            Some(true)
        );
        assert_eq!(parse_remote_hint("list [1, 2] of things"), None);
        assert_eq!(parse_remote_hint("[reason=x]"), None);
        assert_eq!(parse_remote_hint("[retryable=false"), None);
        assert_eq!(
            parse_remote_hint("[retryable=maybe]").unwrap().retryable,
            None
        );
    }

    #[test]
    fn version_texts() {
        let py = "A2A version '0.3' is not supported by this handler. Expected version '1.0'.";
        assert_eq!(
            version_refusal(py),
            Some((Some("0.3"), Some("1.0".to_owned())))
        );
        let js = "The requested A2A protocol version '1.2' is not supported. Supported versions: 1.0, 0.3";
        assert_eq!(
            version_refusal(js),
            Some((Some("1.2"), Some("1.0, 0.3".to_owned())))
        );
        assert_eq!(version_refusal("Task not found"), None);
        let h = version_not_supported(Some(py), Some(ProtocolVersion::V1_0));
        assert!(h.contains("A2A-Version: 1.0"), "{h}");
        assert!(h.starts_with("version mismatch"), "{h}");
    }
}
