//! SSE decoder ratios from rotated rounds: for every scenario and chunking, each round times
//! every contender once (the memchr2 floor, sse-core, a2a-core, a2a-core with UTF-8
//! validation, a2a-core with comment text, a2a-protocol-client's `SseParser`), starting the order one contender later than the
//! round before, so a burst of machine load falls on a different contender each round. The
//! ratios are computed inside each round and the table gives their median and spread (min to
//! max) over the rounds. Every timed call asserts the counts it decoded.
//!
//! `cargo bench -p a2a-benches --bench sse_rounds -- [--rounds N] [--budget-ms MS] [FILTER]`
//! (add `--profile bench-lto` for the thin-LTO build). Prints a markdown table.
//!
//! For instruction counts: `--only floor|sse-core|a2a|a2a-utf8|a2a-text|sdk --iters N FILTER`
//! runs one contender N times on the matching rows inside `profile_only` and prints
//! nothing else; run it under `valgrind --tool=callgrind --toggle-collect='*profile_only*'`.

#[allow(dead_code)] // eventsource-stream is measured by the criterion bench only.
mod sse_shared;

use std::hint::black_box;
use std::time::{Duration, Instant};

use a2a_core::sse::Config;
use sse_shared::{a2a_core, a2a_core_with, a2a_protocol_client, floor, scenarios, sse_core};

#[derive(Clone, Copy, PartialEq)]
enum Who {
    Floor,
    SseCore,
    A2a,
    A2aUtf8,
    A2aText,
    /// a2a-protocol-client's `SseParser` (the a2a-protocol-sdk family).
    Sdk,
}

/// Contenders, one slot each in the per-round timings.
const WHO: usize = 6;

/// Seconds per call of `f`: one warm-up call, then calls until `budget` has passed (at
/// least three).
fn time(budget: Duration, mut f: impl FnMut()) -> f64 {
    f();
    let start = Instant::now();
    let mut n = 0u32;
    while n < 3 || start.elapsed() < budget {
        f();
        n += 1;
    }
    start.elapsed().as_secs_f64() / f64::from(n)
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// `median [min–max]` of per-round ratios.
fn spread(mut v: Vec<f64>) -> String {
    let (lo, hi) = v
        .iter()
        .fold((f64::MAX, f64::MIN), |(lo, hi), &x| (lo.min(x), hi.max(x)));
    format!("{:.2}x [{lo:.2}–{hi:.2}]", median(&mut v))
}

fn human(secs: f64) -> String {
    if secs >= 1e-3 {
        format!("{:.2} ms", secs * 1e3)
    } else {
        format!("{:.1} µs", secs * 1e6)
    }
}

/// One contender `iters` times on `chunks` (for callgrind's `--toggle-collect`).
#[inline(never)]
fn profile_only(who: Who, s: &sse_shared::Scenario, chunks: &[&[u8]], iters: usize) {
    let text = Config::new().with_comment_text(true);
    let want = (s.events, s.comments);
    for _ in 0..iters {
        match who {
            Who::Floor => assert!(floor(black_box(&s.input)) >= s.events),
            Who::SseCore => assert_eq!(sse_core(black_box(chunks)), s.events),
            Who::A2a => assert_eq!(a2a_core(black_box(chunks), false), want),
            Who::A2aUtf8 => assert_eq!(a2a_core(black_box(chunks), true), want),
            Who::A2aText => assert_eq!(a2a_core_with(text, black_box(chunks), false), want),
            Who::Sdk => assert_eq!(a2a_protocol_client(black_box(chunks)), s.events),
        }
    }
}

fn loadavg() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".into())
}

fn main() {
    let mut rounds = 7usize;
    let mut budget = Duration::from_millis(40);
    let mut filter = String::new();
    let mut only = None;
    let mut iters = 1usize;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--rounds" => {
                rounds = args
                    .next()
                    .and_then(|v| v.parse().ok())
                    .expect("--rounds N")
            }
            "--budget-ms" => {
                budget = Duration::from_millis(
                    args.next()
                        .and_then(|v| v.parse().ok())
                        .expect("--budget-ms MS"),
                )
            }
            "--only" => {
                only = Some(match args.next().as_deref() {
                    Some("floor") => Who::Floor,
                    Some("sse-core") => Who::SseCore,
                    Some("a2a") => Who::A2a,
                    Some("a2a-utf8") => Who::A2aUtf8,
                    Some("a2a-text") => Who::A2aText,
                    Some("sdk") => Who::Sdk,
                    _ => panic!("--only floor|sse-core|a2a|a2a-utf8|a2a-text|sdk"),
                })
            }
            "--iters" => iters = args.next().and_then(|v| v.parse().ok()).expect("--iters N"),
            "--bench" => {}
            other => filter = other.to_string(),
        }
    }
    if let Some(who) = only {
        for s in scenarios() {
            for (label, size) in [("whole", s.input.len()), ("1460", 1460), ("4", 4)] {
                if format!("{}/{label}", s.name) == filter {
                    let chunks: Vec<&[u8]> = s.input.chunks(size).collect();
                    profile_only(who, &s, &chunks, iters);
                }
            }
        }
        return;
    }
    let exe = std::env::current_exe().expect("exe");
    let profile_dir = exe
        .parent()
        .and_then(|d| d.parent())
        .and_then(|d| d.file_name())
        .map(|d| d.to_string_lossy().into_owned())
        .unwrap_or_default();
    println!(
        "build: target/{profile_dir}; {rounds} rounds, {} ms per contender per round; load average at start: {}",
        budget.as_millis(),
        loadavg()
    );
    println!();
    println!(
        "| scenario | chunks | a2a-core | a2a-core + UTF-8 | sse-core | floor | vs sse-core | + UTF-8 vs sse-core | vs floor | comment text vs sse-core | a2a-protocol-client | vs a2a-protocol-client |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|");
    let text = Config::new().with_comment_text(true);
    for s in scenarios() {
        let terminators = floor(&s.input);
        for (label, size) in [("whole", s.input.len()), ("1460", 1460), ("4", 4)] {
            let row = format!("{}/{label}", s.name);
            if !row.contains(&filter) {
                continue;
            }
            let chunks: Vec<&[u8]> = s.input.chunks(size).collect();
            let mut who = vec![Who::Floor, Who::SseCore, Who::A2a, Who::A2aUtf8, Who::Sdk];
            if s.comments > 0 {
                who.push(Who::A2aText);
            }
            let want = (s.events, s.comments);
            let mut times: Vec<Vec<f64>> = vec![Vec::new(); WHO];
            for r in 0..rounds {
                let mut t = [0f64; WHO];
                for k in 0..who.len() {
                    let w = who[(r + k) % who.len()];
                    let secs = match w {
                        Who::Floor => time(budget, || {
                            assert_eq!(floor(black_box(&s.input)), terminators)
                        }),
                        Who::SseCore => time(budget, || {
                            assert_eq!(sse_core(black_box(&chunks)), s.events)
                        }),
                        Who::A2a => time(budget, || {
                            assert_eq!(a2a_core(black_box(&chunks), false), want)
                        }),
                        Who::A2aUtf8 => time(budget, || {
                            assert_eq!(a2a_core(black_box(&chunks), true), want)
                        }),
                        Who::A2aText => time(budget, || {
                            assert_eq!(a2a_core_with(text, black_box(&chunks), false), want)
                        }),
                        Who::Sdk => time(budget, || {
                            assert_eq!(a2a_protocol_client(black_box(&chunks)), s.events)
                        }),
                    };
                    t[w as usize] = secs;
                }
                for (i, v) in t.iter().enumerate() {
                    times[i].push(*v);
                }
            }
            let ratio = |num: Who, den: Who| -> Vec<f64> {
                (0..rounds)
                    .map(|r| times[num as usize][r] / times[den as usize][r])
                    .collect()
            };
            let med = |w: Who| human(median(&mut times[w as usize].clone()));
            println!(
                "| {} | {label} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
                s.name,
                med(Who::A2a),
                med(Who::A2aUtf8),
                med(Who::SseCore),
                med(Who::Floor),
                spread(ratio(Who::SseCore, Who::A2a)),
                spread(ratio(Who::SseCore, Who::A2aUtf8)),
                spread(ratio(Who::A2a, Who::Floor)),
                if s.comments > 0 {
                    spread(ratio(Who::SseCore, Who::A2aText))
                } else {
                    "—".into()
                },
                med(Who::Sdk),
                spread(ratio(Who::Sdk, Who::A2a)),
            );
        }
    }
    println!();
    println!("load average at end: {}", loadavg());
}
