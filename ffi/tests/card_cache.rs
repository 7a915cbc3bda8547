//! The machine config's card cache and minimum protocol through the C functions, driven by
//! an in-memory agent that counts card requests: fresh means no request, stale means a
//! conditional one that a 304 answers, no-store is never kept; a card offering only 0.3
//! is refused under a 1.0 minimum with nothing sent.

mod common;

use common::{machine_config, set_interface, view_string};
use std::ptr::{null, null_mut};

use a2a_core::header::a2a_header;
use a2a_core::machine::*;
use a2a_core::machine_config::*;
use a2a_core::outcome::{a2a_outcome_get_info, a2a_outcome_info};
use a2a_core::result::a2a_result;
use a2a_core::vocab::{a2a_error_name, a2a_protocol_version};

/// The in-memory agent: its card, the headers it answers with, and what it was asked.
struct Agent {
    card: String,
    etag: &'static str,
    cache_control: &'static str,
    requests: Vec<Vec<(String, String)>>,
}

impl Agent {
    fn new(card: serde_json::Value, cache_control: &'static str) -> Agent {
        Agent {
            card: card.to_string(),
            etag: "\"v1\"",
            cache_control,
            requests: Vec::new(),
        }
    }

    /// Resolves the card at `now` with `cfg`: the finished event's interface URL and outcome
    /// error name (for a refusal).
    fn resolve(&mut self, cfg: *mut a2a_machine_config, now: u64) -> Result<String, String> {
        let url = "http://agent.test/";
        let mut fetch = null_mut();
        assert_eq!(
            a2a_call_new_card_fetch(cfg, url.as_ptr().cast(), url.len(), &mut fetch),
            a2a_result::A2A_OK
        );
        let mut t = std::mem::MaybeUninit::<a2a_transmit>::uninit();
        while a2a_call_poll_transmit(fetch, now, t.as_mut_ptr()) == a2a_result::A2A_OK {
            let t = unsafe { t.assume_init() };
            let hs = unsafe { std::slice::from_raw_parts(t.headers, t.headers_len) };
            let headers: Vec<(String, String)> = hs
                .iter()
                .map(|h| {
                    let n = unsafe { std::slice::from_raw_parts(h.name.cast::<u8>(), h.name_len) };
                    let v =
                        unsafe { std::slice::from_raw_parts(h.value.cast::<u8>(), h.value_len) };
                    (
                        String::from_utf8_lossy(n).into_owned(),
                        String::from_utf8_lossy(v).into_owned(),
                    )
                })
                .collect();
            let matches = headers
                .iter()
                .any(|(n, v)| n.eq_ignore_ascii_case("if-none-match") && v == self.etag);
            self.requests.push(headers);
            let status = if matches { 304 } else { 200 };
            let answer = [
                ("Content-Type", "application/json"),
                ("ETag", self.etag),
                ("Cache-Control", self.cache_control),
            ];
            let hv: Vec<a2a_header> = answer
                .iter()
                .map(|(n, v)| a2a_header {
                    name: n.as_ptr().cast(),
                    name_len: n.len(),
                    value: v.as_ptr().cast(),
                    value_len: v.len(),
                })
                .collect();
            let id = t.request_id;
            assert_eq!(
                a2a_call_handle_head(fetch, id, status, hv.as_ptr(), hv.len(), now),
                a2a_result::A2A_OK
            );
            if status == 200 {
                assert_eq!(
                    a2a_call_handle_body(fetch, id, self.card.as_ptr(), self.card.len(), now),
                    a2a_result::A2A_OK
                );
            }
            assert_eq!(a2a_call_handle_end(fetch, id, now), a2a_result::A2A_OK);
        }
        let mut result = None;
        for _ in 0..10 {
            let mut e = std::mem::MaybeUninit::<a2a_event>::uninit();
            if a2a_call_poll_event(fetch, e.as_mut_ptr()) != a2a_result::A2A_OK {
                break;
            }
            let e = unsafe { e.assume_init() };
            if e.kind == a2a_event_kind::Finished {
                result = Some(if e.outcome.is_null() {
                    Ok(view_string(e.interface_url).unwrap())
                } else {
                    let mut i = std::mem::MaybeUninit::<a2a_outcome_info>::uninit();
                    assert_eq!(
                        a2a_outcome_get_info(e.outcome, i.as_mut_ptr()),
                        a2a_result::A2A_OK
                    );
                    let i = unsafe { i.assume_init() };
                    assert!(i.has_error_name);
                    let name = if i.error_name == a2a_error_name::CardResolution as u32 {
                        "CardResolution".to_owned()
                    } else {
                        i.error_name.to_string()
                    };
                    Err(format!(
                        "{name} {}",
                        view_string(i.message).unwrap_or_default()
                    ))
                });
            }
        }
        a2a_call_free(fetch);
        result.expect("a FINISHED event")
    }
}

fn card(version: &str) -> serde_json::Value {
    serde_json::json!({"name": "echo", "description": "d", "version": "1",
        "supportedInterfaces": [
            {"url": "http://agent.test/a2a", "protocolBinding": "JSONRPC", "protocolVersion": version}],
        "capabilities": {}, "defaultInputModes": ["text"], "defaultOutputModes": ["text"],
        "skills": []})
}

#[test]
fn a_fresh_card_makes_no_request_and_a_stale_one_is_revalidated_by_a_304() {
    let cfg = machine_config(|b| {
        assert_eq!(
            a2a_client_config_builder_set_card_cache(b, 8, null()),
            a2a_result::A2A_OK
        );
    });
    let mut agent = Agent::new(card("1.0"), "max-age=60");
    let want = Ok("http://agent.test/a2a".to_owned());
    assert_eq!(agent.resolve(cfg, 1_000), want);
    assert_eq!(agent.requests.len(), 1);
    assert!(
        !agent.requests[0]
            .iter()
            .any(|(n, _)| n.eq_ignore_ascii_case("if-none-match"))
    );
    // Within max-age: no request at all.
    assert_eq!(agent.resolve(cfg, 30_000), want);
    assert_eq!(agent.requests.len(), 1, "a fresh card is not fetched again");
    // Past it: a conditional request, answered 304 without a body; the card is reused.
    assert_eq!(agent.resolve(cfg, 61_000), want);
    assert_eq!(agent.requests.len(), 2);
    assert!(
        agent.requests[1]
            .iter()
            .any(|(n, v)| n.eq_ignore_ascii_case("if-none-match") && v == "\"v1\""),
        "{:?}",
        agent.requests[1]
    );
    // The 304's max-age made it fresh again.
    assert_eq!(agent.resolve(cfg, 100_000), want);
    assert_eq!(agent.requests.len(), 2);
    a2a_machine_config_free(cfg);
}

#[test]
fn no_store_is_never_cached_and_caching_is_off_by_default() {
    let cfg = machine_config(|b| {
        assert_eq!(
            a2a_client_config_builder_set_card_cache(b, 8, null()),
            a2a_result::A2A_OK
        );
    });
    let mut agent = Agent::new(card("1.0"), "no-store");
    for now in [0, 1, 2] {
        assert!(agent.resolve(cfg, now).is_ok());
    }
    assert_eq!(agent.requests.len(), 3);
    assert!(agent.requests.iter().all(|h| {
        !h.iter()
            .any(|(n, _)| n.eq_ignore_ascii_case("if-none-match"))
    }));
    a2a_machine_config_free(cfg);
    // Without the setter (or with 0), every resolution fetches unconditionally.
    for setter in [None, Some(0)] {
        let cfg = machine_config(|b| {
            if let Some(n) = setter {
                assert_eq!(
                    a2a_client_config_builder_set_card_cache(b, 4, null()),
                    a2a_result::A2A_OK
                );
                assert_eq!(
                    a2a_client_config_builder_set_card_cache(b, n, null()),
                    a2a_result::A2A_OK
                );
            }
        });
        let mut agent = Agent::new(card("1.0"), "max-age=600");
        assert!(agent.resolve(cfg, 0).is_ok() && agent.resolve(cfg, 1).is_ok());
        assert_eq!(agent.requests.len(), 2);
        assert!(agent.requests.iter().all(|h| h.len() == 1), "no validators");
        a2a_machine_config_free(cfg);
    }
    assert_eq!(
        a2a_client_config_builder_set_card_cache(null_mut(), 1, null()),
        a2a_result::A2A_NULL_PARAMETER
    );
}

#[test]
fn configs_built_from_one_builder_share_its_cache() {
    let builder = a2a_client_config_builder_new();
    assert_eq!(
        a2a_client_config_builder_set(builder, a2a_client_option::AllowHttp as u32, 1),
        a2a_result::A2A_OK
    );
    assert_eq!(
        a2a_client_config_builder_set_card_cache(builder, 2, null()),
        a2a_result::A2A_OK
    );
    let (mut a, mut b) = (null_mut(), null_mut());
    assert_eq!(
        a2a_client_config_builder_build(builder, &mut a),
        a2a_result::A2A_OK
    );
    assert_eq!(
        a2a_client_config_builder_build(builder, &mut b),
        a2a_result::A2A_OK
    );
    a2a_client_config_builder_free(builder);
    let mut agent = Agent::new(card("1.0"), "max-age=60");
    assert!(agent.resolve(a, 0).is_ok());
    // From another thread, through the other config: still fresh, no request.
    let b_addr = b as usize;
    let mut agent = std::thread::spawn(move || {
        assert!(agent.resolve(b_addr as *mut a2a_machine_config, 10).is_ok());
        agent
    })
    .join()
    .unwrap();
    assert_eq!(agent.requests.len(), 1);
    // A config from another builder (other options) shares it through `share`.
    let c = machine_config(|builder| {
        assert_eq!(
            a2a_client_config_builder_set(builder, a2a_client_option::CardTimeoutMs as u32, 5_000),
            a2a_result::A2A_OK
        );
        assert_eq!(
            a2a_client_config_builder_set_card_cache(builder, 1, a),
            a2a_result::A2A_OK
        );
    });
    a2a_machine_config_free(a);
    // The cache outlives the config that made it.
    assert!(agent.resolve(b, 20).is_ok());
    assert!(agent.resolve(c, 30).is_ok());
    assert_eq!(agent.requests.len(), 1);
    // A config without a cache has none to share.
    let plain = machine_config(|_| {});
    let builder = a2a_client_config_builder_new();
    assert_eq!(
        a2a_client_config_builder_set_card_cache(builder, 1, plain),
        a2a_result::A2A_INVALID_ARGUMENT
    );
    assert_eq!(
        a2a_client_config_builder_set_card_cache(builder, 0, plain),
        a2a_result::A2A_OK
    );
    a2a_client_config_builder_free(builder);
    a2a_machine_config_free(plain);
    a2a_machine_config_free(b);
    a2a_machine_config_free(c);
}

#[test]
fn a_minimum_protocol_refuses_a_card_offering_only_older_versions() {
    let v10 = a2a_protocol_version::V1_0 as u32;
    let v03 = a2a_protocol_version::V0_3 as u32;
    for insist in [0, v03] {
        let cfg = machine_config(|b| {
            assert_eq!(
                a2a_client_config_builder_set(
                    b,
                    a2a_client_option::MinProtocol as u32,
                    u64::from(v10)
                ),
                a2a_result::A2A_OK
            );
            assert_eq!(set_interface(b, insist, 0), a2a_result::A2A_OK);
        });
        let mut agent = Agent::new(card("0.3"), "no-store");
        let err = agent.resolve(cfg, 0).unwrap_err();
        assert!(err.starts_with("CardResolution "), "{err}");
        assert!(err.contains("none older than 1.0"), "{err}");
        assert!(err.contains("JSONRPC 0.3"), "{err}");
        a2a_machine_config_free(cfg);
    }
    // 0.3 allowed: resolved; 1.0 cards are unaffected.
    let cfg = machine_config(|b| {
        assert_eq!(
            a2a_client_config_builder_set(b, a2a_client_option::MinProtocol as u32, u64::from(v03)),
            a2a_result::A2A_OK
        );
    });
    assert!(Agent::new(card("0.3"), "no-store").resolve(cfg, 0).is_ok());
    a2a_machine_config_free(cfg);
    let cfg = machine_config(|b| {
        assert_eq!(
            a2a_client_config_builder_set(b, a2a_client_option::MinProtocol as u32, u64::from(v10)),
            a2a_result::A2A_OK
        );
    });
    assert!(Agent::new(card("1.0"), "no-store").resolve(cfg, 0).is_ok());
    a2a_machine_config_free(cfg);
    // A known interface older than the minimum is refused too.
    let url = "http://agent.test/a2a";
    let mut st = null_mut();
    assert_eq!(
        a2a_client_state_new(cfg, url.as_ptr().cast(), url.len(), v03, 1, 1, &mut st),
        a2a_result::A2A_INVALID_ARGUMENT
    );
    assert!(st.is_null());
    assert_eq!(
        a2a_client_state_new(cfg, url.as_ptr().cast(), url.len(), v10, 1, 1, &mut st),
        a2a_result::A2A_OK
    );
    a2a_client_state_free(st);
    a2a_machine_config_free(cfg);
    let b = a2a_client_config_builder_new();
    assert_eq!(
        a2a_client_config_builder_set(b, a2a_client_option::MinProtocol as u32, 9),
        a2a_result::A2A_INVALID_ARGUMENT
    );
    assert_eq!(
        a2a_client_config_builder_set(b, a2a_client_option::MinProtocol as u32, 0),
        a2a_result::A2A_OK
    );
    a2a_client_config_builder_free(b);
}
