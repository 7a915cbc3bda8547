//! Fuzz target: the server-side request readers (`a2a_core::server::parse_jsonrpc` and
//! `parse_rest`) and the model readers behind them, on arbitrary bytes.
//!
//! Input layout: byte 0 selects the binding, the HTTP verb and the `A2A-Version` header;
//! the rest up to the first `\n` is the REST target (path and query), the remainder the
//! body. Invariants: nothing panics; every refusal answers with a JSON body (and, for
//! JSON-RPC, HTTP 200); every accepted request can be answered with an error in its own
//! version and binding; the model readers never panic on the body in any form.
#![no_main]

use a2a_core::model::{WireForm, SendResponse, StreamEvent, from_slice};
use a2a_core::outcome::ErrorName;
use a2a_core::server::{self, A2aError, ServerOptions};
use libfuzzer_sys::fuzz_target;

const VERBS: [&str; 4] = ["GET", "POST", "DELETE", "PUT"];
const VERSIONS: [Option<&str>; 5] = [None, Some("1.0"), Some(""), Some("0.3"), Some("2.0")];

fuzz_target!(|data: &[u8]| {
    let Some((&sel, rest)) = data.split_first() else {
        return;
    };
    let (target, body) = match rest.iter().position(|b| *b == b'\n') {
        Some(i) => (&rest[..i], &rest[i + 1..]),
        None => (&rest[..0], rest),
    };
    let target = String::from_utf8_lossy(target);
    // A JSON Content-Type, as every A2A client sends (issue 21 refuses others before the
    // body is read, which would leave the readers unfuzzed).
    let mut headers: Vec<(&str, &str)> = VERSIONS[usize::from(sel >> 2) % VERSIONS.len()]
        .map(|v| vec![("A2A-Version", v), ("A2A-Extensions", "https://e.example/x")])
        .unwrap_or_default();
    headers.push(("Content-Type", "application/json"));
    let opts = ServerOptions {
        v0_3: sel & 0x40 == 0,
        v1_0: sel & 0x80 == 0 || sel & 0x40 != 0,
        host: None,
    };
    let result = if sel & 1 == 0 {
        server::parse_jsonrpc(&headers, body, &opts)
    } else {
        server::parse_rest(VERBS[usize::from(sel >> 1) % 4], &target, &headers, body, &opts)
    };
    match result {
        Err(e) => {
            let r = e.response();
            assert!(serde_json::from_slice::<serde_json::Value>(&r.body).is_ok());
            if sel & 1 == 0 {
                assert_eq!(r.status, 200);
            }
        }
        Ok(req) => {
            let r = server::handler_error(&req, &A2aError::new(ErrorName::Internal));
            assert!(serde_json::from_slice::<serde_json::Value>(&r.body).is_ok());
        }
    }
    for form in WireForm::ALL {
        let _ = from_slice::<StreamEvent>(body, form);
        let _ = from_slice::<SendResponse>(body, form);
    }
});
