use std::borrow::Cow;

use proptest::prelude::*;

use super::*;
use crate::model::TaskArtifactUpdateEvent;

fn chunk(id: &str, text: &str, append: bool, last: bool) -> StreamEvent<'static> {
    StreamEvent::ArtifactUpdate(TaskArtifactUpdateEvent {
        task_id: Cow::Borrowed("t"),
        context_id: Cow::Borrowed("c"),
        artifact: Artifact {
            artifact_id: Cow::Owned(id.to_owned()),
            name: None,
            description: None,
            parts: vec![Part::text(text.to_owned())],
            metadata: None,
            extensions: Vec::new(),
        },
        append,
        last_chunk: last,
        metadata: None,
    })
}

#[test]
fn an_artifact_sent_again_without_append_replaces_the_old_one() {
    let mut a = Assembler::new();
    a.push(&chunk("x", "old", false, false));
    a.push(&chunk("x", "more", true, false));
    a.push(&chunk("x", "new", false, true));
    let Some(SendResponse::Task(t)) = a.answer() else {
        panic!("a task")
    };
    assert_eq!(t.artifacts.len(), 1);
    assert_eq!(t.artifacts[0].parts, vec![Part::text("new")]);
    assert_eq!(t.id, "t");
    assert_eq!(t.context_id, "c");
}

#[test]
fn a_task_snapshot_keeps_artifacts_assembled_before_it() {
    let mut a = Assembler::new();
    a.push(&chunk("x", "one", false, false));
    let snap = read_event(
        br#"{"task":{"id":"t","contextId":"c","status":{"state":"TASK_STATE_COMPLETED"}}}"#,
        ProtocolVersion::V1_0,
        Binding::HttpJson,
    )
    .unwrap();
    a.push(&snap);
    let r = a.finish().unwrap();
    let SendResponse::Task(t) = &r else { panic!() };
    assert_eq!(t.status.state, TaskState::Completed);
    assert_eq!(text(&r).as_deref(), Some("one"));
}

#[test]
fn many_distinct_artifacts_keep_their_order_and_their_own_chunks() {
    // 5,000 artifacts, each sent, then each extended in reverse order, then the first
    // half replaced: every update finds its own artifact (by the index, not a walk).
    let n = 5_000;
    let mut a = Assembler::new();
    for i in 0..n {
        a.push(&chunk(
            &format!("a{i}"),
            &format!("first {i}"),
            false,
            false,
        ));
    }
    for i in (0..n).rev() {
        a.push(&chunk(
            &format!("a{i}"),
            &format!("second {i}"),
            true,
            false,
        ));
    }
    for i in 0..n / 2 {
        a.push(&chunk(&format!("a{i}"), &format!("new {i}"), false, true));
    }
    let Some(SendResponse::Task(t)) = a.answer() else {
        panic!("a task")
    };
    assert_eq!(t.artifacts.len(), n);
    for (i, art) in t.artifacts.iter().enumerate() {
        assert_eq!(art.artifact_id, format!("a{i}"));
        let want = if i < n / 2 {
            vec![Part::text(format!("new {i}"))]
        } else {
            vec![
                Part::text(format!("first {i}")),
                Part::text(format!("second {i}")),
            ]
        };
        assert_eq!(art.parts, want, "artifact {i}");
    }
}

#[test]
fn the_index_follows_replaced_answers_and_fresh_tasks() {
    let mut a = Assembler::new();
    a.push(&chunk("x", "one", false, false));
    a.push(&chunk("y", "two", false, false));
    // A whole answer read afterwards, with its artifacts in another order.
    let whole = read_result(
        br#"{"jsonrpc":"2.0","id":1,"result":{"kind":"task","id":"t","contextId":"c","status":{"state":"working"},"artifacts":[{"artifactId":"y","parts":[{"kind":"text","text":"Y"}]},{"artifactId":"x","parts":[{"kind":"text","text":"X"}]}]}}"#,
        ProtocolVersion::V0_3,
        Binding::JsonRpc,
    )
    .unwrap()
    .into_owned();
    a.replace(whole);
    a.push(&chunk("x", "more", true, false));
    a.push(&chunk("z", "three", false, false));
    let Some(SendResponse::Task(t)) = a.answer() else {
        panic!("a task")
    };
    let ids: Vec<&str> = t.artifacts.iter().map(|a| a.artifact_id.as_ref()).collect();
    assert_eq!(ids, ["y", "x", "z"]);
    assert_eq!(
        t.artifacts[1].parts,
        vec![Part::text("X"), Part::text("more")]
    );
    assert_eq!(t.artifacts[0].parts, vec![Part::text("Y")]);
    // A direct message, then a task again: the new task starts with no artifacts.
    let msg = read_event(
        br#"{"jsonrpc":"2.0","id":1,"result":{"kind":"message","role":"agent","messageId":"m","parts":[{"kind":"text","text":"hi"}]}}"#,
        ProtocolVersion::V0_3,
        Binding::JsonRpc,
    )
    .unwrap();
    let mut a = Assembler::new();
    a.push(&chunk("x", "one", false, false));
    a.replace(SendResponse::Message(match msg {
        StreamEvent::Message(m) => m.into_owned(),
        _ => panic!("a message"),
    }));
    a.push(&chunk("x", "again", true, false));
    let Some(SendResponse::Task(t)) = a.answer() else {
        panic!("a task")
    };
    assert_eq!(t.artifacts.len(), 1);
    assert_eq!(t.artifacts[0].parts, vec![Part::text("again")]);
}

#[test]
fn a_direct_message_is_the_answer_of_a_stream_without_a_task() {
    let ev = read_event(
        br#"{"jsonrpc":"2.0","id":1,"result":{"kind":"message","role":"agent","messageId":"m","parts":[{"kind":"text","text":"hi"}]}}"#,
        ProtocolVersion::V0_3,
        Binding::JsonRpc,
    )
    .unwrap();
    let mut a = Assembler::new();
    a.push(&ev);
    let r = a.finish().unwrap();
    assert_eq!(to_json(&r)["text"], "hi");
    assert_eq!(to_json(&r)["kind"], "message");
}

#[test]
fn the_text_falls_back_to_the_status_message() {
    let body = br#"{"jsonrpc":"2.0","id":1,"result":{"task":{"id":"t","status":{"state":"TASK_STATE_INPUT_REQUIRED","message":{"messageId":"q","role":"ROLE_AGENT","parts":[{"text":"which city?"}]}}}}}"#;
    let r = read_result(body, ProtocolVersion::V1_0, Binding::JsonRpc).unwrap();
    assert_eq!(text(&r).as_deref(), Some("which city?"));
    let j = to_json(&r);
    assert_eq!(j["status"]["state"], "input-required");
    assert_eq!(j["context_id"], Value::Null);
}

#[test]
fn a_json_rpc_body_without_result_is_unreadable() {
    let e = read_result(
        br#"{"jsonrpc":"2.0","id":1}"#,
        ProtocolVersion::V1_0,
        Binding::JsonRpc,
    )
    .unwrap_err();
    assert_eq!(e.to_string(), "no result at the JSON-RPC response");
}

#[test]
fn file_bytes_decode_padded_unpadded_and_url_safe() {
    for b64 in ["aGk/Pw==", "aGk/Pw", "aGk_Pw"] {
        let p = Part::from_content(PartContent::Bytes(Cow::Borrowed(b64)));
        assert_eq!(file_bytes(&p).unwrap().unwrap(), b"hi??", "{b64}");
    }
    let bad = Part::from_content(PartContent::Bytes(Cow::Borrowed("a*b")));
    assert!(file_bytes(&bad).unwrap().is_err());
    assert_eq!(encode_bytes(b"hi??"), "aGk/Pw==");
}

#[test]
fn a_rendered_part_reads_back_as_the_same_part() {
    let parts = vec![
        Part::text("t"),
        Part {
            media_type: Some("application/json".into()),
            ..Part::from_content(PartContent::Data(Json::parse(r#"[1,{"a":null}]"#).unwrap()))
        },
        Part {
            filename: Some("f.bin".into()),
            metadata: Some(Json::parse(r#"{"m":1}"#).unwrap()),
            ..Part::from_content(PartContent::Bytes("AAEC".into()))
        },
        Part::from_content(PartContent::Url("https://x/y".into())),
    ];
    for p in parts {
        let back = part_from_json(&part_to_json(&p), "p").unwrap();
        assert_eq!(back, p);
    }
}

proptest! {
    /// However a text artifact is cut into appended chunks, the assembled artifact holds
    /// every chunk in order, and the answer's text is the chunks joined with newlines.
    #[test]
    fn appended_chunks_assemble_in_order(chunks in proptest::collection::vec("[a-z ]{0,8}", 1..12),
                                         other in proptest::option::of(0usize..12)) {
        let mut a = Assembler::new();
        for (i, c) in chunks.iter().enumerate() {
            a.push(&chunk("a", c, i > 0, i + 1 == chunks.len()));
            if other == Some(i) {
                a.push(&chunk("b", "side", false, true));
            }
        }
        let r = a.finish().unwrap();
        let SendResponse::Task(t) = &r else { panic!("a task") };
        let got: Vec<&str> = t.artifacts[0].parts.iter().filter_map(Part::as_text).collect();
        prop_assert_eq!(&got, &chunks.iter().map(String::as_str).collect::<Vec<_>>());
        let want_b = other.is_some_and(|o| o < chunks.len());
        prop_assert_eq!(t.artifacts.len(), 1 + usize::from(want_b));
        let mut all = chunks.clone();
        if want_b { all.push("side".into()); }
        prop_assert_eq!(text(&r), Some(all.join("\n")));
    }
}

/// A task that exercises every branch of the direct rendering: every part kind, metadata
/// and data with keys out of order and number forms serde_json rewrites, strings needing
/// every escape, an empty context id, history, a status message, several text parts.
fn every_branch(s: &str) -> SendResponse<'static> {
    let meta = || {
        Some(Json::parse(r#"{"z":1.0,"a":[1e2,-0,"\u00e9\n"],"m":{"y":null,"b":true}}"#).unwrap())
    };
    let parts = vec![
        Part::text(format!("one {s}")),
        Part {
            media_type: Some(Cow::Owned(format!("text/{s}"))),
            filename: Some(Cow::Owned(s.to_owned())),
            metadata: meta(),
            ..Part::text(s.to_owned())
        },
        Part::from_content(PartContent::Data(Json::parse(r#"{"b":2,"a":1}"#).unwrap())),
        Part::from_content(PartContent::Bytes("AAEC".into())),
        Part::from_content(PartContent::Bytes("not base64!".into())),
        Part::from_content(PartContent::Url(Cow::Owned(format!("https://x/{s}")))),
    ];
    let mut msg = Message::new(Cow::Owned(s.to_owned()), Role::Agent, parts.clone());
    msg.context_id = Some(Cow::Owned(s.to_owned()));
    msg.metadata = meta();
    let mut status = TaskStatus::new(TaskState::InputRequired);
    status.message = Some(Box::new(msg.clone()));
    status.timestamp = Some("2026-01-01T00:00:00Z".into());
    SendResponse::Task(Task {
        id: Cow::Owned(s.to_owned()),
        context_id: Cow::Borrowed(""),
        status,
        artifacts: vec![Artifact {
            artifact_id: Cow::Owned(s.to_owned()),
            name: Some(Cow::Owned(s.to_owned())),
            description: None,
            parts,
            metadata: meta(),
            extensions: Vec::new(),
        }],
        history: vec![msg.clone(), Message::new("m-2", Role::User, vec![])],
        metadata: meta(),
    })
}

/// Each answer and event form of [`every_branch`]'s content, written both ways.
fn both_ways(s: &str) -> Vec<(String, String)> {
    let r = every_branch(s);
    let SendResponse::Task(t) = &r else {
        unreachable!()
    };
    let mut status_only = t.clone();
    status_only.artifacts.clear();
    let no_text = SendResponse::Task(Task {
        status: TaskStatus::new(TaskState::Working),
        ..status_only.clone()
    });
    let msg = t.history[0].clone();
    let events = [
        StreamEvent::Task(t.clone()),
        StreamEvent::Message(msg.clone()),
        StreamEvent::StatusUpdate(crate::model::TaskStatusUpdateEvent {
            task_id: t.id.clone(),
            context_id: Cow::Owned(s.to_owned()),
            status: t.status.clone(),
            is_final: true,
            metadata: t.metadata.clone(),
        }),
        StreamEvent::ArtifactUpdate(TaskArtifactUpdateEvent {
            task_id: t.id.clone(),
            context_id: Cow::Borrowed(""),
            artifact: t.artifacts[0].clone(),
            append: true,
            last_chunk: false,
            metadata: None,
        }),
    ];
    let mut out: Vec<(String, String)> = [
        r.clone(),
        SendResponse::Task(status_only),
        no_text,
        SendResponse::Message(msg),
    ]
    .iter()
    .map(|r| (to_json_string(r), to_json(r).to_string()))
    .collect();
    out.extend(
        events
            .iter()
            .map(|e| (event_to_json_string(e), event_to_json(e).to_string())),
    );
    out
}

#[test]
fn the_direct_rendering_is_the_trees_text_byte_for_byte() {
    for s in [
        "",
        "plain",
        "q\"b\\s/",
        "\n\r\t\u{8}\u{c}\u{0}\u{1f}\u{7f}",
        "é ü 日本 🎉",
    ] {
        for (direct, tree) in both_ways(s) {
            assert_eq!(direct, tree, "{s:?}");
        }
    }
}

proptest! {
    /// Any string, wherever it sits in an answer, is escaped as serde_json escapes it.
    #[test]
    fn any_string_renders_as_serde_json_writes_it(s in any::<String>()) {
        for (direct, tree) in both_ways(&s) {
            prop_assert_eq!(direct, tree);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 4096, ..ProptestConfig::default() })]

    /// The non-decoding base64 check agrees with the `base64` crate's decoder, length included.
    #[test]
    fn base64_len_agrees_with_the_decoder(text in "[A-Za-z0-9+/_=*-]{0,13}") {
        prop_assert_eq!(base64_len(&text), decode_base64(&text).ok().map(|v| v.len()), "{}", text);
    }

    /// Encoded bytes of any length pass, with or without padding, in either alphabet.
    #[test]
    fn base64_len_of_encoded_bytes(bytes in prop::collection::vec(any::<u8>(), 0..40)) {
        use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
        prop_assert_eq!(base64_len(&STANDARD.encode(&bytes)), Some(bytes.len()));
        prop_assert_eq!(base64_len(&URL_SAFE_NO_PAD.encode(&bytes)), Some(bytes.len()));
    }

    /// A raw value written verbatim is exactly what serde_json's tree prints for it.
    #[test]
    fn canonical_raw_values_are_the_tree_text(text in raw_json()) {
        let tree: Value = match serde_json::from_str(&text) {
            Ok(v) => v,
            Err(_) => return Ok(()),
        };
        if render::canonical(&text) {
            prop_assert_eq!(&text, &tree.to_string());
        }
        // And the tree's own text is canonical whenever it holds no float and no integer
        // beyond 18 digits (the checker is conservative there).
        let printed = tree.to_string();
        let long_run = printed
            .as_bytes()
            .split(|b| !b.is_ascii_digit())
            .any(|run| run.len() > 18);
        if !printed.contains(['.', 'e', 'E']) && !printed.contains("\\u") && !long_run {
            prop_assert!(render::canonical(&printed), "{}", printed);
        }
    }
}

/// Raw JSON with unsorted and duplicate keys, whitespace, escapes and number forms.
fn raw_json() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        Just("null".to_owned()),
        Just("true".to_owned()),
        any::<i64>().prop_map(|n| n.to_string()),
        any::<u64>().prop_map(|n| n.to_string()),
        Just("-0".to_owned()),
        Just("1.0".to_owned()),
        Just("1E2".to_owned()),
        Just("123456789012345678901".to_owned()),
        "[a-c\u{e9}\u{7f}]{0,4}".prop_map(|s| format!("{s:?}")),
        Just(r#""a\/b""#.to_owned()),
        Just(r#""\u0001\u001f\n""#.to_owned()),
        Just(r#""q\"\\""#.to_owned()),
    ];
    leaf.prop_recursive(4, 24, 5, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(|v| format!("[{}]", v.join(","))),
            prop::collection::vec(("[a-c]{1,2}", inner, prop::bool::ANY), 0..5).prop_map(|kv| {
                let items: Vec<String> = kv
                    .into_iter()
                    .map(|(k, v, sp)| format!("\"{k}\":{}{v}", if sp { " " } else { "" }))
                    .collect();
                format!("{{{}}}", items.join(","))
            }),
        ]
    })
}

/// A stream event of `kind` (0 task snapshot, 1 status, 2 artifact update, 3 message)
/// touching artifact id `id`, with extensions and a name so appends exercise every field.
fn any_event(kind: u8, id: u8, append: bool, n: usize) -> StreamEvent<'static> {
    let art = || Artifact {
        artifact_id: Cow::Owned(format!("a{id}")),
        name: n.is_multiple_of(2).then(|| Cow::Owned(format!("name {n}"))),
        description: n.is_multiple_of(3).then(|| Cow::Owned(format!("desc {n}"))),
        parts: vec![Part::text(format!("text {n}"))],
        metadata: None,
        extensions: vec![Cow::Owned(format!("ext{}", n % 2)), Cow::Borrowed("ext0")],
    };
    match kind {
        0 => StreamEvent::Task(Task {
            id: Cow::Borrowed("t"),
            context_id: Cow::Borrowed("c"),
            status: TaskStatus::new(TaskState::Working),
            artifacts: vec![art(), art()],
            history: Vec::new(),
            metadata: None,
        }),
        1 => StreamEvent::StatusUpdate(crate::model::TaskStatusUpdateEvent {
            task_id: Cow::Borrowed("t"),
            context_id: Cow::Borrowed("c"),
            status: TaskStatus::new(if n.is_multiple_of(2) {
                TaskState::Working
            } else {
                TaskState::Completed
            }),
            is_final: false,
            metadata: None,
        }),
        2 => StreamEvent::ArtifactUpdate(TaskArtifactUpdateEvent {
            task_id: Cow::Borrowed("t"),
            context_id: Cow::Borrowed("c"),
            artifact: art(),
            append,
            last_chunk: false,
            metadata: None,
        }),
        _ => StreamEvent::Message(Message {
            message_id: Cow::Owned(format!("m{n}")),
            role: Role::Agent,
            parts: vec![Part::text(format!("reply {n}"))],
            context_id: None,
            task_id: None,
            reference_task_ids: Vec::new(),
            extensions: Vec::new(),
            metadata: None,
        }),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// `push` (copying only what the answer keeps) assembles exactly what applying the
    /// whole event does.
    #[test]
    fn pushing_borrowed_events_assembles_what_owned_events_do(
        evs in proptest::collection::vec((0u8..4, 0u8..4, any::<bool>()), 0..24)
    ) {
        let (mut by_ref, mut owned) = (Assembler::new(), Assembler::new());
        for (n, &(kind, id, append)) in evs.iter().enumerate() {
            let ev = any_event(kind, id, append, n);
            by_ref.push(&ev);
            owned.push_owned(ev);
        }
        prop_assert_eq!(by_ref.events(), owned.events());
        prop_assert_eq!(by_ref.answer(), owned.answer());
    }
}

/// Two ids with the same hash (forced: SipHash collisions cannot be found) keep their own
/// positions.
#[test]
fn artifact_ids_whose_hashes_collide_keep_their_own_positions() {
    let arts: Vec<Artifact<'static>> = ["x", "y"]
        .iter()
        .map(|id| Artifact {
            artifact_id: Cow::Borrowed(*id),
            name: None,
            description: None,
            parts: Vec::new(),
            metadata: None,
            extensions: Vec::new(),
        })
        .collect();
    let mut index = ArtifactIndex::default();
    let (hx, none) = index.find(&arts, "x");
    assert_eq!(none, None);
    index.add(hx, "x", 0);
    // "y" is given "x"'s hash, as a collision would.
    index.add(hx, "y", 1);
    assert_eq!(index.collided.get("y"), Some(&1));
    use std::hash::BuildHasher as _;
    let hy = index.keys.hash_one("y");
    index.by_hash.insert(hy, 0); // "y"'s own slot now points at "x": checked, not trusted
    assert_eq!(index.find(&arts, "y").1, Some(1));
    assert_eq!(index.find(&arts, "x").1, Some(0));
    assert_eq!(index.find(&arts, "z").1, None);
}

/// `to_static` copies what `clone().into_owned()` copies, every field and part kind.
#[test]
fn to_static_is_clone_into_owned() {
    let body = r#"{"kind":"task","id":"t","contextId":"c",
        "status":{"state":"working","timestamp":"2026-01-01T00:00:00Z","message":{"kind":"message","messageId":"m","role":"agent",
          "parts":[{"kind":"text","text":"hi","metadata":{"a":1}}],"contextId":"c","taskId":"t",
          "referenceTaskIds":["r"],"extensions":["e"],"metadata":{"b":[2]}}},
        "artifacts":[{"artifactId":"a","name":"n","description":"d","extensions":["x"],"metadata":{"k":"v"},
          "parts":[{"kind":"text","text":"one"},{"kind":"data","data":{"z":true}},
                   {"kind":"file","file":{"bytes":"aGk=","mimeType":"text/plain","name":"f.txt"}},
                   {"kind":"file","file":{"uri":"https://x/y"}}]}]}"#;
    let ev = read_event(body.as_bytes(), ProtocolVersion::V0_3, Binding::HttpJson).expect("a task");
    let StreamEvent::Task(t) = &ev else {
        panic!("{ev:?}")
    };
    assert_eq!(t.status.to_static(), t.status.clone().into_owned());
    assert!(t.status.message.is_some());
    let a = &t.artifacts[0];
    assert_eq!(a.parts.len(), 4);
    assert_eq!(a.to_static(), a.clone().into_owned());
    for p in &a.parts {
        assert_eq!(p.to_static(), p.clone().into_owned());
    }
}
