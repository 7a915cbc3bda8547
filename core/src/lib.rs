//! `a2a-core`: a sans-IO protocol core for A2A (Agent2Agent), protocol versions 0.3 and 1.0,
//! JSON-RPC and HTTP+JSON bindings.
//!
//! # What this crate does not do
//! No I/O, no async, no threads, no clock, no randomness: bytes go in, events and outcomes
//! come out, time is passed in by the caller as [`time::Millis`] and deadlines are handed back.
//! The only exception is the optional `driver` feature, a small blocking reference client
//! built on `ureq` that shows how to drive the core correctly.
//!
//! # Data path
//! 1. [`envelope`] builds the request (method, path, headers, body) for a version and binding;
//!    [`http1`] serializes it and reads the response incrementally.
//! 2. [`sse`] decodes an event stream; [`stream`] tracks a streaming call to its end.
//! 3. [`classify`] turns a response into exactly one [`outcome::Outcome`];
//!    [`error_id`] finds the remote's error id; [`tally`] counts outcomes.
//! 4. [`answer`] reads the agent's answer (task, message, artifacts, every part kind) into
//!    one normalized model, assembles streamed artifacts and renders it as canonical JSON.
//! 5. [`resilience`] decides what to do next (retry, resubscribe, give up) and what the
//!    orchestrating model should read.
//!
//! # Features
//! The parser and classifier ([`sse`], [`classify`], [`stream`], [`outcome`], [`error_id`],
//! [`tally`], [`time`], [`traceparent`], [`version`]) are always built. Optional, on by
//! default: `model` (the typed model and `envelope`), `http1` (needs `model`), `card`,
//! `server` (needs `model`), `resilience`. Opt-in: `driver` (needs `model`, `card`,
//! `resilience`, and `server` and `http1` for the `a2a demo` agent) and `client` (needs
//! `model`, `resilience` and `card`): the sans-IO client state machine a host's HTTP stack drives
//! (issue 22). The driver runs it with one I/O loop, [`driver::run()`]: its own calls, card
//! resolution and streams, and the C ABI's `a2a_call_run`, are that loop. On by default
//! too: `trust` (needs `card`): signed agent cards, JWK Sets, JWS and RFC 8785 canonical JSON
//! ([`trust`], built on `ring`). `scripts/ci/12-features.sh` checks every combination.
//!
//! # Module graph
//! Each top-level module and the modules it uses (`crate::` paths), from the top of the data
//! path down to the shared vocabulary (versions and bindings, methods, URLs) at the bottom.
//! There is no cycle: `core/tests/module_graph.rs` reads the imports, fails on a cycle and
//! checks that this block is the real graph. `method` and `url` are private; their types are
//! public as [`classify::Method`] (and `envelope::Method`) and [`card::Url`]. `tape` (one pass
//! over a JSON body, read by the classifier and the answer reader alike) and `json` (the one
//! JSON string escaper every hand-written JSON writer uses) are private. [`stream`] is the public home of the
//! stream tracker, which lives inside [`classify`] (a whole event-stream body is classified
//! through it).
//! ```text
//! driver      -> card, client, envelope, http1, model, outcome, resilience, sse, stream, tally, time, traceparent, trust, version
//! client      -> answer, card, classify, envelope, model, outcome, resilience, sse, stream, tally, tape, time, traceparent, version
//! answer      -> classify, json, model, outcome, sse, tape, version
//! http1       -> envelope, model, sse, time, url, version
//! server      -> card, envelope, method, model, outcome, sse, time, traceparent, trust, version
//! stream      -> classify
//! classify    -> error_id, method, model, outcome, sse, tape, time, version
//! envelope    -> json, method, model, version
//! error_id    -> outcome
//! model       -> method, outcome, tape, version
//! resilience  -> outcome, time
//! tally       -> outcome
//! trust       -> card, json
//! card        -> url, version
//! method      -> version
//! outcome     -> json, version
//! tape        -> json
//! json        -> (nothing)
//! sse         -> (nothing)
//! time        -> (nothing)
//! traceparent -> (nothing)
//! url         -> (nothing)
//! version     -> (nothing)
//! ```
#![forbid(unsafe_code)]
#![deny(missing_docs)]

#[cfg(feature = "model")]
pub mod answer;
#[cfg(feature = "card")]
pub mod card;
pub mod classify;
#[cfg(feature = "client")]
pub mod client;
#[cfg(feature = "model")]
pub mod envelope;
pub mod error_id;
#[cfg(feature = "http1")]
pub mod http1;
mod json;
#[cfg(feature = "trust")]
pub mod trust;
// Shared vocabulary at the bottom of the graph, public through `envelope` and `card`; the
// classifier reads method names and paths with it in every build.
mod method;
#[cfg(feature = "model")]
pub mod model;
pub mod outcome;
#[cfg(feature = "resilience")]
pub mod resilience;
#[cfg(feature = "server")]
pub mod server;
pub mod sse;
pub mod stream;
pub mod tally;
// Without `model` nothing builds a tape (the classifier and the stream tracker only read one
// handed in, and count serde_json passes for the one-pass test): the parser is the answer
// reader's and the client machine's.
#[cfg_attr(not(feature = "model"), allow(dead_code))]
mod tape;
pub mod time;
pub mod traceparent;
#[cfg(any(feature = "card", feature = "http1"))]
mod url;
pub mod version;

#[cfg(feature = "driver")]
pub mod driver;

/// The crate README's Rust examples (core/README.md), compiled and run as doctests so that
/// they stay true.
#[cfg(all(
    doctest,
    feature = "model",
    feature = "http1",
    feature = "card",
    feature = "server",
    feature = "resilience"
))]
#[doc = include_str!("../README.md")]
pub struct ReadmeExamples;
