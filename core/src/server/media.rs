//! The media types a request body may be sent in: the defence against cross-site requests.
//!
//! A web page may send a cross-origin POST without asking the server first (no CORS
//! preflight) only when its `Content-Type` is `text/plain`,
//! `application/x-www-form-urlencoded` or `multipart/form-data`, or when it has none. The
//! page cannot read the answer, but the agent would still act on the request. Every A2A
//! body is JSON, so the server refuses a body not declared JSON with 415, and such a
//! request never reaches a handler.
//!
//! Accepted: `application/json` (the JSON-RPC binding and 0.3 HTTP+JSON, A2A 0.3 §3.2 and
//! 1.0 §9) and `application/a2a+json` (the media type A2A 1.0 registers, §14.1, and its
//! HTTP+JSON clients send), with any parameters (`; charset=utf-8`: RFC 8259 §11 defines
//! none and says they have no effect), compared case-insensitively (RFC 9110 §8.3.1).
//! Other `+json` types are refused: no A2A client sends them, and the official JS SDK's
//! JSON-RPC server (`@a2a-js/sdk`) accepts `application/json` alone.

/// The request media types a server accepts, for messages and docs.
pub(crate) const ACCEPTED: &str = "application/json or application/a2a+json";

/// When a request must carry a JSON `Content-Type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Rule {
    /// Always (a JSON-RPC request, an HTTP+JSON request with a body): none is refused.
    Required,
    /// When it names one (a bodyless POST: an HTML form's empty POST says
    /// `application/x-www-form-urlencoded`); none is fine.
    IfPresent,
}

/// Why a request's `Content-Type` is refused under `rule` (the message of the 415 answer),
/// or `None` when it is accepted. More than one `Content-Type` is refused (RFC 9110 §5.3:
/// the field is a singleton; two are a request the server and a proxy may read apart).
pub(crate) fn refusal(headers: &[(&str, &str)], rule: Rule) -> Option<String> {
    let mut values = headers
        .iter()
        .filter(|(n, _)| n.eq_ignore_ascii_case("content-type"))
        .map(|(_, v)| *v);
    let Some(value) = values.next() else {
        return (rule == Rule::Required)
            .then(|| format!("the request has a body but no Content-Type: send {ACCEPTED}"));
    };
    if values.next().is_some() {
        return Some(format!(
            "the request has more than one Content-Type: send one, {ACCEPTED}"
        ));
    }
    let essence = value
        .split(';')
        .next()
        .unwrap_or("")
        .trim_matches([' ', '\t']);
    let json = essence.eq_ignore_ascii_case("application/json")
        || essence.eq_ignore_ascii_case("application/a2a+json");
    (!json).then(|| format!("Content-Type {value:?} is not supported: send {ACCEPTED}"))
}

#[cfg(test)]
mod tests {
    use super::{Rule, refusal};

    #[test]
    fn json_types_with_parameters_pass_and_the_rest_is_refused() {
        let ct = |v| [("content-type", v)];
        for ok in [
            "application/json",
            "APPLICATION/JSON",
            "application/json;charset=utf-8",
            "application/json ; charset=UTF-8",
            "application/a2a+json",
            "\tapplication/a2a+json\t",
        ] {
            assert_eq!(refusal(&ct(ok), Rule::Required), None, "{ok}");
        }
        for bad in [
            "text/plain",
            "text/plain; charset=utf-8",
            "application/x-www-form-urlencoded",
            "multipart/form-data; boundary=--x",
            "application/problem+json",
            "application/json5",
            "json",
            "",
        ] {
            assert!(refusal(&ct(bad), Rule::Required).is_some(), "{bad}");
            assert!(refusal(&ct(bad), Rule::IfPresent).is_some(), "{bad}");
        }
        assert!(refusal(&[], Rule::Required).is_some());
        assert_eq!(refusal(&[], Rule::IfPresent), None);
        let two = [
            ("Content-Type", "application/json"),
            ("Content-Type", "application/json"),
        ];
        assert!(refusal(&two, Rule::Required).is_some());
    }
}
