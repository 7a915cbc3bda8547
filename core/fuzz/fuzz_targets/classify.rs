//! Fuzz the classifier and the stream tracker: arbitrary bytes must never panic, always give
//! exactly one channel with a valid exit code and a JSON rendering with the CLI's 17 keys,
//! and a whole event-stream body must give the same end outcome as the tracker fed event by
//! event through the incremental SSE decoder in pieces.
//!
//! The first input byte picks the status, content type and what was asked; the rest is the
//! body.
#![no_main]

use a2a_core::classify::{Asked, ResponseInfo, classify};
use a2a_core::outcome::Channel;
use a2a_core::sse::{Decoder, Item};
use a2a_core::stream::StreamTracker;
use a2a_core::time::Millis;
use a2a_core::version::{Binding, ProtocolVersion};
use libfuzzer_sys::fuzz_target;

const STATUS: [u16; 8] = [200, 201, 302, 400, 404, 429, 500, 502];
const METHODS: [Option<&str>; 8] = [
    None,
    Some("message/send"),
    Some("SendMessage"),
    Some("tasks/get"),
    Some("SendStreamingMessage"),
    Some("tasks/resubscribe"),
    Some("POST /message:send"),
    Some("GET /v1/tasks/t-1"),
];

fuzz_target!(|input: &[u8]| {
    let Some((&sel, body)) = input.split_first() else {
        return;
    };
    let asked = Asked {
        version: match sel & 3 {
            0 => None,
            1 => Some(ProtocolVersion::V0_3),
            _ => Some(ProtocolVersion::V1_0),
        },
        binding: if sel & 4 == 0 { Some(Binding::JsonRpc) } else { None },
        method: METHODS[usize::from(sel >> 5)],
        request_id: if sel & 8 == 0 { Some("1") } else { None },
    };
    let status = STATUS[usize::from((sel >> 2) & 7)];
    let stream = sel & 16 != 0;
    let mut info = ResponseInfo::new(status, body).asked(asked);
    info.content_type = Some(if stream { "text/event-stream" } else { "application/json" });
    let o = classify(&info);
    assert!([0, 3, 4, 5, 6, 7].contains(&o.exit_code()));
    let json: serde_json::Value = serde_json::from_str(&o.to_json()).expect("to_json is JSON");
    assert_eq!(json.as_object().map(|m| m.len()), Some(17));
    let sse = stream && (200..300).contains(&status);
    if !sse {
        assert_ne!(o.channel, Channel::Transport);
        return;
    }
    // Incremental: decoder in 7-byte pieces, tracker event by event.
    let mut t = StreamTracker::new(asked, None, Millis(0));
    let mut d = Decoder::new();
    for piece in body.chunks(7) {
        let mut feed = d.feed(piece);
        while let Ok(Some(item)) = feed.next_item() {
            match item {
                Item::Event(ev) => {
                    t.on_event(Millis(0), ev.event_type, ev.data, Some(ev.id));
                }
                Item::Comment(_) => t.on_comment(Millis(0)),
                _ => {}
            }
        }
    }
    let _ = d.finish();
    let mut end = t.finish().outcome;
    end.http_status = o.http_status;
    if end.version.is_none() {
        end.version = o.version;
    }
    if end.binding.is_none() {
        end.binding = o.binding;
    }
    // classify (the decoder over the whole body at once) and the decoder fed in 7-byte chunks
    // agree (within the decoder's default limits, which fuzz inputs do not reach).
    assert_eq!(end.channel, o.channel);
    assert_eq!(end.state, o.state);
    assert_eq!(end.task_id, o.task_id);
});
