//! The stream tracker fed by the real SSE decoder: the same stream from both reference
//! servers yields identical items, interrupted vs truncated ends, the idle timeout, a
//! non-SSE answer to a streaming call, and property tests over arbitrary input.

use a2a_core::classify::{Asked, ResponseInfo, classify};
use a2a_core::error_id::{extract_error_id, leaked_exception};
use a2a_core::outcome::{Channel, ErrorName, RetryAdvice, TaskState};
use a2a_core::sse::{Decoder, Item};
use a2a_core::stream::{StreamEnd, StreamEndKind, StreamItem, StreamItemKind, StreamTracker};
use a2a_core::time::Millis;
use a2a_core::version::{Binding, ProtocolVersion};
use proptest::prelude::*;
use serde_json::Value;

const ASK_10: Asked<'static> = Asked {
    version: Some(ProtocolVersion::V1_0),
    binding: Some(Binding::JsonRpc),
    method: Some("SendStreamingMessage"),
    request_id: Some("41"),
};

/// Feeds `body` in `chunk`-byte pieces through the decoder and a tracker.
fn track(asked: Asked<'_>, body: &[u8], chunk: usize) -> (Vec<StreamItem>, StreamEnd) {
    let mut t = StreamTracker::new(asked, Some(Millis(60_000)), Millis(0));
    let mut d = Decoder::new();
    let mut items = Vec::new();
    for (i, piece) in body.chunks(chunk.max(1)).enumerate() {
        let now = Millis(i as u64);
        t.on_bytes(now);
        let mut feed = d.feed(piece);
        while let Some(item) = feed.next_item().expect("no limit error") {
            match item {
                Item::Event(ev) => {
                    items.extend(t.on_event(now, ev.event_type, ev.data, Some(ev.id)))
                }
                Item::Comment(_) => t.on_comment(now),
                _ => {}
            }
        }
    }
    (items, t.finish())
}

// The 'stream 3' interaction of docs/peers.md §1.5 (Python: CRLF, spaced JSON, result
// before id, a ping) and §2 (JS: LF, compact, jsonrpc first, metadata {} and mediaType, no
// pings), with the same ids written out in both.
const TID: &str = "0939c926-0000-4000-8000-000000000009";
const CID: &str = "28767125-0000-4000-8000-000000000028";

fn python_stream() -> String {
    let mut s = String::new();
    let ev = |s: &mut String, result: String| {
        s.push_str(&format!(
            "data: {{\"result\": {result}, \"id\": 41, \"jsonrpc\": \"2.0\"}}\r\n\r\n"
        ));
    };
    ev(
        &mut s,
        format!(
            "{{\"task\": {{\"id\": \"{TID}\", \"contextId\": \"{CID}\", \"status\": {{\"state\": \"TASK_STATE_SUBMITTED\"}}, \"history\": [{{\"messageId\": \"m-1\", \"role\": \"ROLE_USER\", \"parts\": [{{\"text\": \"stream 3\"}}]}}]}}}}"
        ),
    );
    s.push_str(": ping - 2026-11-30 00:12:27.571686+00:00\r\n\r\n");
    ev(
        &mut s,
        format!(
            "{{\"statusUpdate\": {{\"taskId\": \"{TID}\", \"contextId\": \"{CID}\", \"status\": {{\"state\": \"TASK_STATE_WORKING\", \"timestamp\": \"2026-11-30T00:06:48.659471Z\"}}}}}}"
        ),
    );
    for i in 0..3 {
        ev(
            &mut s,
            format!(
                "{{\"artifactUpdate\": {{\"taskId\": \"{TID}\", \"contextId\": \"{CID}\", \"artifact\": {{\"artifactId\": \"chunk-{i}\", \"name\": \"chunk-{i}\", \"parts\": [{{\"text\": \"chunk {i}\"}}]}}, \"lastChunk\": true}}}}"
            ),
        );
        s.push_str(": ping - 2026-11-30 00:12:29.000000+00:00\r\n\r\n");
    }
    ev(
        &mut s,
        format!(
            "{{\"statusUpdate\": {{\"taskId\": \"{TID}\", \"contextId\": \"{CID}\", \"status\": {{\"state\": \"TASK_STATE_COMPLETED\", \"timestamp\": \"2026-11-30T00:06:48.659617Z\"}}}}}}"
        ),
    );
    s
}

fn js_stream() -> String {
    let mut s = String::new();
    let ev = |s: &mut String, result: String| {
        s.push_str(&format!(
            "data: {{\"jsonrpc\":\"2.0\",\"id\":41,\"result\":{result}}}\n\n"
        ));
    };
    ev(
        &mut s,
        format!(
            "{{\"task\":{{\"id\":\"{TID}\",\"contextId\":\"{CID}\",\"status\":{{\"state\":\"TASK_STATE_SUBMITTED\",\"timestamp\":\"2026-11-30T00:09:47.231Z\"}},\"history\":[{{\"messageId\":\"m-1\",\"role\":\"ROLE_USER\",\"parts\":[{{\"text\":\"stream 3\",\"mediaType\":\"text/plain\"}}],\"metadata\":{{}}}}],\"metadata\":{{}}}}}}"
        ),
    );
    ev(
        &mut s,
        format!(
            "{{\"statusUpdate\":{{\"taskId\":\"{TID}\",\"contextId\":\"{CID}\",\"status\":{{\"state\":\"TASK_STATE_WORKING\",\"timestamp\":\"2026-11-30T00:09:47.240Z\"}},\"metadata\":{{}}}}}}"
        ),
    );
    for i in 0..3 {
        ev(
            &mut s,
            format!(
                "{{\"artifactUpdate\":{{\"taskId\":\"{TID}\",\"contextId\":\"{CID}\",\"artifact\":{{\"artifactId\":\"chunk-{i}\",\"name\":\"chunk-{i}\",\"parts\":[{{\"text\":\"chunk {i}\",\"mediaType\":\"text/plain\"}}],\"metadata\":{{}}}},\"lastChunk\":true,\"metadata\":{{}}}}}}"
            ),
        );
    }
    ev(
        &mut s,
        format!(
            "{{\"statusUpdate\":{{\"taskId\":\"{TID}\",\"contextId\":\"{CID}\",\"status\":{{\"state\":\"TASK_STATE_COMPLETED\",\"timestamp\":\"2026-11-30T00:09:47.300Z\"}},\"metadata\":{{}}}}}}"
        ),
    );
    s
}

#[test]
fn python_and_js_framings_yield_identical_items() {
    let (py, py_end) = track(ASK_10, python_stream().as_bytes(), 4096);
    let (js, js_end) = track(ASK_10, js_stream().as_bytes(), 4096);
    assert_eq!(py.len(), 6);
    assert_eq!(py, js);
    assert_eq!(py_end, js_end);
    let kinds: Vec<StreamItemKind> = py.iter().map(|i| i.kind).collect();
    use StreamItemKind::*;
    assert_eq!(
        kinds,
        [
            Task,
            StatusUpdate,
            ArtifactUpdate,
            ArtifactUpdate,
            ArtifactUpdate,
            StatusUpdate
        ]
    );
    assert_eq!(py[2].artifact_id.as_deref(), Some("chunk-0"));
    assert!(py[2].last_chunk && !py[2].append);
    assert_eq!(py[2].outcome.text.as_deref(), Some("chunk 0"));
    assert!(py[5].ends_stream && !py[4].ends_stream);
    assert_eq!(py_end.kind, StreamEndKind::Completed);
    assert_eq!(py_end.outcome.state, Some(TaskState::Completed));
    assert_eq!(py_end.outcome.task_id.as_deref(), Some(TID));
    assert_eq!(py_end.outcome.context_id.as_deref(), Some(CID));
    assert_eq!(py_end.outcome.exit_code(), 0);
}

#[test]
fn chunking_does_not_change_items() {
    let body = python_stream();
    let whole = track(ASK_10, body.as_bytes(), body.len());
    for chunk in [1, 2, 3, 7, 64] {
        assert_eq!(
            track(ASK_10, body.as_bytes(), chunk),
            whole,
            "chunk {chunk}"
        );
    }
    // The whole-body path used by classify() agrees with the incremental decoder.
    let (items, end) = a2a_core::stream::track_whole_body(ASK_10, body.as_bytes());
    assert_eq!((items, end), whole);
}

#[test]
fn v1_stream_ending_after_input_required_is_interrupted_not_truncated() {
    let body = "data: {\"jsonrpc\":\"2.0\",\"id\":41,\"result\":{\"task\":{\"id\":\"t\",\"contextId\":\"c\",\"status\":{\"state\":\"TASK_STATE_SUBMITTED\"}}}}\n\n\
                data: {\"jsonrpc\":\"2.0\",\"id\":41,\"result\":{\"statusUpdate\":{\"taskId\":\"t\",\"contextId\":\"c\",\"status\":{\"state\":\"TASK_STATE_INPUT_REQUIRED\"}}}}\n\n";
    let (items, end) = track(ASK_10, body.as_bytes(), 5);
    assert!(items[1].ends_stream);
    assert_eq!(end.kind, StreamEndKind::Interrupted);
    assert_eq!(end.outcome.channel, Channel::Task);
    assert_eq!(end.outcome.state, Some(TaskState::InputRequired));
    assert_eq!(end.outcome.exit_code(), 6);
    // The same interaction cut after `working` is truncated, with what a resubscribe needs.
    let cut = body.replace("TASK_STATE_INPUT_REQUIRED", "TASK_STATE_WORKING");
    let (items, end) = track(ASK_10, cut.as_bytes(), 5);
    assert!(!items[1].ends_stream);
    assert_eq!(end.kind, StreamEndKind::Truncated);
    assert_eq!(end.outcome.channel, Channel::Transport);
    assert_eq!(end.outcome.retry, RetryAdvice::Resubscribe);
    assert_eq!(end.outcome.task_id.as_deref(), Some("t"));
    assert_eq!(end.outcome.state, Some(TaskState::Working));
    assert_eq!(end.outcome.exit_code(), 3);
}

#[test]
fn v03_waits_for_final_and_error_events_end_the_stream() {
    let ask = Asked {
        version: Some(ProtocolVersion::V0_3),
        binding: Some(Binding::JsonRpc),
        method: Some("message/stream"),
        request_id: Some("2"),
    };
    // 0.3: input-required with final:false does not end the interaction; final:true does.
    let ev = |state: &str, fin: bool| {
        format!(
            "data: {{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{{\"kind\":\"status-update\",\"taskId\":\"t\",\"contextId\":\"c\",\"status\":{{\"state\":\"{state}\"}},\"final\":{fin}}}}}\n\n"
        )
    };
    let (items, _) = track(ask, ev("input-required", false).as_bytes(), 9);
    assert!(!items[0].ends_stream);
    assert_eq!(items[0].final_flag, Some(false));
    let (items, end) = track(ask, ev("working", true).as_bytes(), 9);
    assert!(items[0].ends_stream);
    assert_eq!(
        end.kind,
        StreamEndKind::Truncated,
        "final on a non-terminal state: task still open"
    );
    // An error event after the snapshot: protocol error, task id kept, poll instead of resend.
    let body = "data: {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"kind\":\"task\",\"id\":\"t\",\"contextId\":\"c\",\"status\":{\"state\":\"submitted\"}}}\n\n\
                event: error\ndata: {\"jsonrpc\":\"2.0\",\"id\":2,\"error\":{\"code\":-32603,\"message\":\"boom\"}}\n\n";
    let (items, end) = track(ask, body.as_bytes(), 3);
    assert_eq!(items[1].kind, StreamItemKind::Error);
    assert_eq!(end.kind, StreamEndKind::Error);
    assert_eq!(end.outcome.error, Some(ErrorName::Internal));
    assert_eq!(end.outcome.retry, RetryAdvice::Poll);
    assert_eq!(end.outcome.task_id.as_deref(), Some("t"));
    // An event answering another request id is malformed, not the caller's task.
    let body = "data: {\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"kind\":\"task\",\"id\":\"x\",\"contextId\":\"c\",\"status\":{\"state\":\"completed\"}}}\n\n";
    let (items, end) = track(ask, body.as_bytes(), 100);
    assert_eq!(items[0].kind, StreamItemKind::Malformed);
    assert_eq!(end.kind, StreamEndKind::Truncated);
    assert_eq!(end.outcome.task_id, None);
    // `event: error` whose data is not an error object is still an error.
    let (items, _) = track(ask, b"event: error\ndata: something broke\n\n", 100);
    assert_eq!(items[0].kind, StreamItemKind::Error);
    assert_eq!(items[0].outcome.channel, Channel::Protocol);
    assert_eq!(items[0].outcome.error, Some(ErrorName::Other));
}

#[test]
fn idle_timeout_counts_comments_and_resubscribes_when_the_task_is_known() {
    let mut t = StreamTracker::new(ASK_10, Some(Millis(1000)), Millis(0));
    assert_eq!(t.next_deadline(), Some(Millis(1000)));
    t.on_comment(Millis(600));
    assert_eq!(t.next_deadline(), Some(Millis(1600)));
    assert_eq!(t.on_timeout(Millis(1599)), None);
    let item = t
        .on_event(
            Millis(700),
            b"message",
            br#"{"jsonrpc":"2.0","id":41,"result":{"task":{"id":"t-9","contextId":"c","status":{"state":"TASK_STATE_WORKING"}}}}"#,
            None,
        )
        .unwrap();
    assert_eq!(item.kind, StreamItemKind::Task);
    assert_eq!(t.next_deadline(), Some(Millis(1700)));
    let o = t.on_timeout(Millis(1700)).expect("deadline passed");
    assert_eq!(o.channel, Channel::Transport);
    assert_eq!(o.error, Some(ErrorName::Timeout));
    assert_eq!(o.retry, RetryAdvice::Resubscribe);
    assert_eq!(o.task_id.as_deref(), Some("t-9"));
    assert_eq!(o.state, Some(TaskState::Working));
    assert_eq!(t.next_deadline(), None);
    assert_eq!(t.on_timeout(Millis(5000)), None);
    let end = t.finish();
    assert_eq!(end.kind, StreamEndKind::TimedOut);
    assert_eq!(end.outcome, o);

    // Before any task id came back, a send's outcome is unknown.
    let mut t = StreamTracker::new(ASK_10, Some(Millis(10)), Millis(0));
    let o = t.on_timeout(Millis(10)).unwrap();
    assert_eq!(o.retry, RetryAdvice::UnknownOutcome);
    // No idle timeout: no deadline.
    assert_eq!(
        StreamTracker::new(ASK_10, None, Millis(0)).next_deadline(),
        None
    );
}

#[test]
fn a_silent_resubscribe_stream_keeps_the_task_it_was_opened_for() {
    // Issue 21: a Go SDK server sends nothing on a resubscribe until the task changes; the
    // stream that goes idle (or is cut) before its first event still belongs to the task.
    let ask = Asked {
        method: Some("SubscribeToTask"),
        ..ASK_10
    };
    let mut t = StreamTracker::new(ask, Some(Millis(1000)), Millis(0)).with_task_id("t-7");
    assert_eq!(t.task_id(), Some("t-7"));
    let o = t.on_timeout(Millis(1000)).expect("deadline passed");
    assert_eq!(o.error, Some(ErrorName::Timeout));
    assert_eq!(o.task_id.as_deref(), Some("t-7"));
    assert_eq!(o.retry, RetryAdvice::Resubscribe);
    let mut t = StreamTracker::new(ask, Some(Millis(1000)), Millis(0)).with_task_id("t-7");
    let end = t.finish();
    assert_eq!(end.kind, StreamEndKind::Truncated);
    assert_eq!(end.outcome.task_id.as_deref(), Some("t-7"));
    assert_eq!(end.outcome.retry, RetryAdvice::Resubscribe);
    // Without it (as before), the same silence was a read of no known task: backoff.
    let mut t = StreamTracker::new(ask, Some(Millis(1000)), Millis(0));
    let o = t.on_timeout(Millis(1000)).unwrap();
    assert_eq!((o.task_id, o.retry), (None, RetryAdvice::Backoff));
}

#[test]
fn non_sse_answer_to_a_streaming_call_is_classified() {
    let mut t = StreamTracker::new(ASK_10, Some(Millis(1000)), Millis(0));
    let body = br#"{"error":{"code":-32009,"message":"A2A version '0.3' is not supported by this handler. Expected version '1.0'.","data":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"VERSION_NOT_SUPPORTED","domain":"a2a-protocol.org","metadata":{}}]},"id":41,"jsonrpc":"2.0"}"#;
    let o =
        t.on_non_sse_body(&ResponseInfo::new(200, body).header("Content-Type", "application/json"));
    assert_eq!(o.channel, Channel::Protocol);
    assert_eq!(o.error, Some(ErrorName::VersionNotSupported));
    assert_eq!(o.retry, RetryAdvice::FixVersion);
    assert!(t.is_over());
    assert_eq!(t.finish().kind, StreamEndKind::NotAStream);
}

/// A whole body goes through the SSE decoder: CRLF, CR and LF line ends, comments,
/// multi-line data, an optional space after the colon, an unterminated last block dropped.
#[test]
fn whole_bodies_follow_the_decoders_framing() {
    let task = r#"{"jsonrpc":"2.0","id":"41","result":{"task":{"id":"t-1","contextId":"c-1","status":{"state":"TASK_STATE_WORKING"}}}}"#;
    let done = r#"{"jsonrpc":"2.0","id":"41","result":{"statusUpdate":{"taskId":"t-1","contextId":"c-1","status":{"state":"TASK_STATE_COMPLETED"}}}}"#;
    // Two data lines joined with a LF between JSON tokens: still the same JSON.
    let (a, b) = done.split_at(done.find(r#""result""#).unwrap());
    let body = format!(
        "\u{feff}: ping\r\n\r\nevent: message\r\ndata:{task}\r\n\r\ndata: {a}\rdata:{b}\r\r"
    );
    let (items, end) = a2a_core::stream::track_whole_body(ASK_10, body.as_bytes());
    let kinds: Vec<_> = items.iter().map(|i| i.kind).collect();
    assert_eq!(kinds, [StreamItemKind::Task, StreamItemKind::StatusUpdate]);
    assert_eq!(end.kind, StreamEndKind::Completed, "{end:?}");
    // The completion in an unterminated last block is dropped (WHATWG): truncated.
    let cut = format!("data: {task}\n\ndata: {done}\n");
    let (items, end) = a2a_core::stream::track_whole_body(ASK_10, cut.as_bytes());
    assert_eq!(items.len(), 1);
    assert_eq!(end.kind, StreamEndKind::Truncated, "{end:?}");
    let info = ResponseInfo::new(200, cut.as_bytes())
        .header("Content-Type", "text/event-stream")
        .asked(ASK_10);
    let o = classify(&info);
    assert_eq!(o.channel, Channel::Transport);
    assert_eq!(o.task_id.as_deref(), Some("t-1"));
    assert_eq!(o.retry, RetryAdvice::Resubscribe);
}

/// An event over the decoder's limits in a whole body: dropped, reported in its place, and
/// the one outcome of `classify` is malformed (never a success, content was lost), unless
/// the stream ended with an error event.
#[test]
fn whole_bodies_get_the_decoders_limits() {
    let task = r#"data: {"jsonrpc":"2.0","id":"41","result":{"task":{"id":"t-1","contextId":"c-1","status":{"state":"TASK_STATE_WORKING"}}}}"#;
    let done = r#"data: {"jsonrpc":"2.0","id":"41","result":{"statusUpdate":{"taskId":"t-1","contextId":"c-1","status":{"state":"TASK_STATE_COMPLETED"}}}}"#;
    let big = format!("data: {}", "x".repeat(a2a_core::sse::DEFAULT_MAX_LINE));
    let body = format!("{task}\n\n{big}\n\n{done}\n\n");
    let (items, end) = a2a_core::stream::track_whole_body(ASK_10, body.as_bytes());
    let kinds: Vec<_> = items.iter().map(|i| i.kind).collect();
    assert_eq!(
        kinds,
        [
            StreamItemKind::Task,
            StreamItemKind::Malformed,
            StreamItemKind::StatusUpdate
        ]
    );
    let dropped = &items[1].outcome;
    assert!(
        dropped.message.as_deref().unwrap().contains("max_line"),
        "{dropped:?}"
    );
    assert_eq!(dropped.retry, RetryAdvice::Poll);
    assert_eq!(end.kind, StreamEndKind::Completed);
    let info = ResponseInfo::new(200, body.as_bytes())
        .header("Content-Type", "text/event-stream")
        .asked(ASK_10);
    let o = classify(&info);
    assert_eq!(o.channel, Channel::Malformed, "{o:?}");
    assert!(!o.is_success());
    assert_eq!(o.task_id.as_deref(), Some("t-1"));
    assert_eq!(o.state, Some(TaskState::Working));
    assert_eq!(o.retry, RetryAdvice::Poll);
    assert_eq!(o.http_status, Some(200));
    // Data over max_event across several lines: the other limit, the same rule.
    let half = "y".repeat(a2a_core::sse::DEFAULT_MAX_EVENT / 2 + 1);
    let body = format!("data: {half}\ndata: {half}\n\n");
    let o = classify(
        &ResponseInfo::new(200, body.as_bytes())
            .header("Content-Type", "text/event-stream")
            .asked(ASK_10),
    );
    assert_eq!(o.channel, Channel::Malformed);
    assert!(o.message.as_deref().unwrap().contains("max_event"), "{o:?}");
    assert_eq!(o.retry, RetryAdvice::Never);
    // An error event after the drop is what the caller must see.
    let err = r#"event: error
data: {"jsonrpc":"2.0","id":"41","error":{"code":-32603,"message":"boom"}}"#;
    let body = format!("{task}\n\n{big}\n\n{err}\n\n");
    let o = classify(
        &ResponseInfo::new(200, body.as_bytes())
            .header("Content-Type", "text/event-stream")
            .asked(ASK_10),
    );
    assert_eq!(o.channel, Channel::Protocol, "{o:?}");
}

#[test]
fn error_id_fixture() {
    let cases: Value = serde_json::from_str(include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../bindings/fixtures/error_ids.json"
    )))
    .unwrap();
    let cases = cases["cases"].as_array().unwrap();
    assert!(cases.len() >= 15);
    for c in cases {
        let text = c["text"].as_str().unwrap();
        assert_eq!(extract_error_id(text), c["expect"].as_str(), "{text:?}");
        assert!(c["source"].as_str().is_some_and(|s| !s.is_empty()));
    }
    let leak = leaked_exception(cases[5]["text"].as_str().unwrap()).unwrap();
    assert_eq!(leak.class, "java.lang.IllegalStateException");
    assert_eq!(leaked_exception(cases[0]["text"].as_str().unwrap()), None);
}

fn any_asked() -> impl Strategy<
    Value = (
        Option<u8>,
        Option<u8>,
        Option<&'static str>,
        Option<&'static str>,
    ),
> {
    (
        proptest::option::of(0u8..2),
        proptest::option::of(0u8..2),
        proptest::option::of(prop::sample::select(vec![
            "message/send",
            "SendMessage",
            "tasks/get",
            "GetTask",
            "SubscribeToTask",
            "tasks/resubscribe",
            "POST /message:send",
            "GET /v1/tasks/t",
            "foo/bar",
            "tasks/list",
        ])),
        proptest::option::of(prop::sample::select(vec!["1", "2", "abc", ""])),
    )
}

fn asked_of(
    a: &(
        Option<u8>,
        Option<u8>,
        Option<&'static str>,
        Option<&'static str>,
    ),
) -> Asked<'static> {
    Asked {
        version: a.0.map(|v| {
            if v == 0 {
                ProtocolVersion::V0_3
            } else {
                ProtocolVersion::V1_0
            }
        }),
        binding: a.1.map(|b| {
            if b == 0 {
                Binding::JsonRpc
            } else {
                Binding::HttpJson
            }
        }),
        method: a.2,
        request_id: a.3,
    }
}

/// JSON-ish bodies built from the A2A vocabulary, to reach deep paths more often than
/// random bytes do.
fn vocab_body() -> impl Strategy<Value = String> {
    let key = prop::sample::select(vec![
        "jsonrpc",
        "id",
        "result",
        "error",
        "code",
        "message",
        "data",
        "task",
        "statusUpdate",
        "artifactUpdate",
        "kind",
        "status",
        "state",
        "taskId",
        "contextId",
        "parts",
        "text",
        "final",
        "artifact",
        "details",
        "reason",
        "@type",
        "type",
        "title",
        "detail",
        "messageId",
        "role",
        "content",
        "append",
        "lastChunk",
    ]);
    let leaf = prop_oneof![
        Just("null".to_owned()),
        Just("\"2.0\"".to_owned()),
        Just("-32001".to_owned()),
        Just("true".to_owned()),
        Just("\"task\"".to_owned()),
        Just("\"TASK_STATE_FAILED\"".to_owned()),
        Just("\"error_id: 0123456789ab\"".to_owned()),
        Just("\"TASK_NOT_FOUND\"".to_owned()),
        Just("[]".to_owned()),
        Just("1.5".to_owned()),
        Just("\"x\\u00e9\"".to_owned()),
    ];
    leaf.prop_recursive(4, 48, 6, move |inner| {
        prop_oneof![
            prop::collection::vec((key.clone(), inner.clone()), 0..6).prop_map(|kv| {
                let fields: Vec<String> = kv
                    .into_iter()
                    .map(|(k, v)| format!("\"{k}\":{v}"))
                    .collect();
                format!("{{{}}}", fields.join(","))
            }),
            prop::collection::vec(inner, 0..4).prop_map(|v| format!("[{}]", v.join(","))),
        ]
    })
}

fn check_outcome(o: &a2a_core::outcome::Outcome, stream: bool) -> Result<(), TestCaseError> {
    if !stream {
        prop_assert_ne!(o.channel, Channel::Transport);
    } else if o.channel == Channel::Transport {
        prop_assert_eq!(o.error, Some(ErrorName::Reset));
    }
    prop_assert!([0, 3, 4, 5, 6, 7].contains(&o.exit_code()));
    let v: Value =
        serde_json::from_str(&o.to_json()).map_err(|e| TestCaseError::fail(e.to_string()))?;
    prop_assert_eq!(v.as_object().unwrap().len(), 17);
    prop_assert_eq!(v["channel"].as_str(), Some(o.channel.as_str()));
    if let Some(e) = &o.body_excerpt {
        prop_assert!(e.len() <= a2a_core::classify::EXCERPT_MAX);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn classify_never_panics_on_bytes_and_returns_one_channel(
        body in prop::collection::vec(any::<u8>(), 0..600),
        status in prop::sample::select(vec![100u16, 200, 201, 204, 301, 400, 401, 404, 408, 429, 500, 502, 503, 599]),
        ct in proptest::option::of(prop::sample::select(vec!["application/json", "text/event-stream", "application/problem+json", "text/html"])),
        a in any_asked(),
    ) {
        let mut info = ResponseInfo::new(status, &body).asked(asked_of(&a));
        info.content_type = ct;
        let stream = ct == Some("text/event-stream") && (200..300).contains(&status);
        check_outcome(&classify(&info), stream)?;
    }

    #[test]
    fn classify_never_panics_on_a2a_shaped_json(
        body in vocab_body(),
        status in prop::sample::select(vec![200u16, 400, 404, 500]),
        a in any_asked(),
    ) {
        let o = classify(&ResponseInfo::new(status, body.as_bytes()).asked(asked_of(&a)));
        check_outcome(&o, false)?;
        // As an SSE event, through the tracker, too.
        let mut t = StreamTracker::new(asked_of(&a), Some(Millis(5)), Millis(0));
        if let Some(item) = t.on_event(Millis(1), b"message", body.as_bytes(), None) {
            check_outcome(&item.outcome, false)?;
        }
        let _ = t.on_timeout(Millis(100));
        let end = t.finish();
        prop_assert!(end.outcome.exit_code() >= 0);
    }

    #[test]
    fn sse_bodies_of_random_events_never_panic(
        events in prop::collection::vec((prop::sample::select(vec!["", "event: error\n", ": ping\n"]), vocab_body()), 0..6),
        cut in any::<prop::sample::Index>(),
    ) {
        let mut body = String::new();
        for (prefix, data) in &events {
            body.push_str(prefix);
            body.push_str("data: ");
            body.push_str(data);
            body.push_str("\n\n");
        }
        let cut = if body.is_empty() { 0 } else { cut.index(body.len() + 1) };
        let bytes = &body.as_bytes()[..cut];
        let mut info = ResponseInfo::new(200, bytes).asked(ASK_10);
        info.content_type = Some("text/event-stream");
        check_outcome(&classify(&info), true)?;
    }

    #[test]
    fn whole_body_reader_agrees_with_the_incremental_decoder(
        events in prop::collection::vec(
            (
                prop::sample::select(vec!["", "event: error\n", ": ping\n", "id: 7\n", "retry: 5\n"]),
                vocab_body(),
                prop::sample::select(vec!["\n", "\r\n", "\r"]),
            ),
            0..6,
        ),
        chunk in 1usize..40,
    ) {
        let mut body = String::new();
        for (prefix, data, eol) in &events {
            body.push_str(&prefix.replace('\n', eol));
            body.push_str("data: ");
            body.push_str(data);
            body.push_str(eol);
            body.push_str(eol);
        }
        let incremental = track(ASK_10, body.as_bytes(), chunk);
        let whole = a2a_core::stream::track_whole_body(ASK_10, body.as_bytes());
        prop_assert_eq!(incremental, whole);
    }
}
