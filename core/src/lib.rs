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
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod answer;
pub mod card;
pub mod classify;
pub mod envelope;
pub mod error_id;
pub mod http1;
pub mod model;
pub mod outcome;
pub mod resilience;
pub mod server;
pub mod sse;
pub mod stream;
pub mod tally;
pub mod time;
pub mod traceparent;
pub mod version;

#[cfg(feature = "driver")]
pub mod driver;

/// The README's Rust examples, compiled and run as doctests so that they stay true.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
pub struct ReadmeExamples;
